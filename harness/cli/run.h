// SPDX-License-Identifier: MIT
// The run's command line: its flags, parsed once into RunFlags (one table, in --help's order), and
// checked and turned into the engine's RunOptions before any server is started (prepare_run).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/common.h"
#include "cli/outputs.h"
#include "cli/safety.h"
#include "engine/gate.h"
#include "engine/options.h"

namespace ctxo::cli {

/// Every flag of the run, as given.
struct RunFlags {
  std::vector<std::string> command;
  std::string url;
  std::vector<std::string> headers;
  std::string profile = "auto";
  std::string host;
  bool strict_error_output = false;
  std::vector<std::string> env;
  std::string cwd, protocol, root;
  std::optional<std::uint64_t> seed;
  std::optional<long long> calls;  // signed, so "-5" is refused rather than wrapped
  std::optional<double> time_budget;
  long long memory_budget = 1024;  // MiB; signed, so "-5" is refused rather than wrapped
  std::string require_coverage;  // "all" or "N%" ("" = not required)
  double tool_budget = 30, shrink_budget = 60;
  bool no_shrink = false;
  bool no_harvest = false;
  bool kill_leftovers = false;
  bool allow_remote_urls = false;
  std::string cases = ".ctxo-conform/cases";
  bool no_cases = false;
  long timeout_ms = 10000;
  long grace_ms = 2000;
  std::vector<std::string> limits;
  Outputs outputs;
  std::string config, server, baseline;
  std::string shard;
  std::string jobs = "1";
  long long concurrency = 4;  // signed, so "-1" is refused rather than wrapped
  bool concurrency_all = false;
  std::vector<std::string> only, skip, tools, exclude_tools;
  bool read_only = false;
  bool list_invariants = false;
  bool version = false;
  std::size_t max_message_bytes = 64u << 20;
  Console console;  ///< --color, -q, -v.
  std::string record;
  SafetyFlags safety;
};

/// Adds the run's options (the server, then every flag, in --help's order) to `app`.
void add_run_options(CLI::App& app, RunFlags& cli);

/// What the run is started with.
struct PreparedRun {
  engine::RunOptions o;
  std::optional<double> require_coverage;       ///< --require-coverage, percent.
  std::vector<engine::BaselineEntry> accepted;  ///< --baseline's entries.
};

/// Checks every flag (and --config's entry, which fills `cli`) and builds the run's options; the
/// report paths are checked and stale ones removed, the seed drawn when none was given. Errors:
/// "config" (a value the JSON report, when asked for, records as the run's error) or "usage" (a
/// command line that names no run: no report is written).
Result<PreparedRun> prepare_run(CLI::App& app, RunFlags& cli);

}  // namespace ctxo::cli
