// SPDX-License-Identifier: MIT
// What a run is asked to do: the typed options the command line (or a case file) is parsed into.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/registry.h"
#include "core/redact.h"
#include "engine/profiles.h"
#include "engine/snapshot.h"

namespace ctxo::transport {
class Sandbox;
}

namespace ctxo::engine {

using nlohmann::json;

/// `ctxo-conform replay`: one recorded call instead of generated ones.
struct ReplayCall {
  std::string tool;
  json arguments = json::object();
  bool as_miss = false;  ///< The call is an E-MISS lookup (judged as a graceful miss).
  /// Calls made first, in order, on the same server instance (a state-carrying case: T-SHUTDOWN).
  std::vector<std::pair<std::string, json>> sequence;  ///< (tool, arguments)
  /// A P-CONCURRENT case: the calls sent together (tool, arguments), in order; replay sends them
  /// alone, then together again, several times, and says how often the answers differed.
  std::vector<std::pair<std::string, json>> batch;
};

/// Everything a run needs; filled from the command line.
struct RunOptions {
  std::vector<std::string> command;           ///< argv of the server (with `url`: the command that starts it, or empty).
  /// --url: a Streamable HTTP server ("" = the command is a stdio server). Without a command the
  /// server is not ours to restart: a crash is the server going away, and the limit sweep (other
  /// environments) is skipped.
  std::string url;
  /// --header K:V: sent with every HTTP request (credentials); reports print "<redacted>" for their values.
  std::vector<std::pair<std::string, std::string>> headers;
  std::map<std::string, std::string> env;     ///< Extra environment.
  std::string cwd;                            ///< Server working directory ("" = ours).
  /// The server's name in the user's config (--config's mcpServers entry; "" = none): hosts
  /// prefix tool names with it (H-NAME on mcp__<server>__<tool>). Without it, serverInfo.name.
  std::string config_name;
  /// The --config file ("" = none) and how many other servers it lists: hosts that cap tools
  /// across all servers count theirs too (H-TOOLS says so; they are not started).
  std::string config_path;
  std::size_t config_others = 0;
  std::string protocol;                       ///< Forced protocol version ("" = negotiate).
  std::string profile = "auto";
  std::chrono::milliseconds timeout{10000};   ///< Per request.
  std::chrono::milliseconds grace{2000};      ///< Shutdown grace after closing stdin.
  std::uint64_t seed = 0;
  std::size_t calls_per_tool = 0;             ///< 0 = sized per tool (gen::phase_sizes).
  bool shrink = true;                         ///< Shrink each failing generated call.
  std::size_t max_shrink_calls = 200;         ///< Candidate calls per shrink.
  /// --shrink-budget: the time one shrink may take; past it the smallest reproduction found so far
  /// is the finding, and the run says so.
  std::chrono::milliseconds shrink_budget{60000};
  /// --tool-budget: the time one tool's calls may take (0 = no limit); past it the tool's
  /// remaining generated calls are not made, and the run says so.
  std::chrono::milliseconds tool_budget{30000};
  std::optional<ReplayCall> replay;           ///< Set by `replay`: make only this call.
  std::optional<double> time_budget_s;        ///< Stop generating calls after this many seconds.
  /// --memory-budget: the harness's resident memory, in MiB, past which no new call is made and
  /// the reports are written (0 = no limit). Every phase also bounds what it keeps by itself.
  std::size_t memory_budget_mb = 1024;
  checks::Selection selection;
  std::vector<std::string> tool_globs, exclude_globs;
  bool read_only = false;
  std::size_t max_message_bytes = 64u << 20;
  int shard_index = 0, shard_count = 1;       ///< 0-based shard of shard_count.
  /// --jobs: servers run at once, each calling its share of a phase's tools (at most one per
  /// tool). The calls, findings and reports are the same for any value with the same seed.
  std::size_t jobs = 1;
  std::size_t max_restarts = 20;
  std::optional<std::string> root;            ///< --root: workspace for POS-UTF16.
  std::vector<std::int64_t> limits;           ///< --limits: sweep limits (empty = the profile's).
  bool envelope_repeat = true;                ///< E-STABLE: call each tool's first case twice.
  /// --concurrency: the most tools/call requests in flight at once on one session (P-CONCURRENT:
  /// batches of 2, 4, 8... up to it); 0 = the phase is off.
  std::size_t concurrency = 4;
  /// --concurrency-all: tools annotated neither read-only nor idempotent are sent in batches too
  /// (their differences are warnings).
  bool concurrency_all = false;
  /// Feed values harvested from answers to later calls, and make the second pass (--no-harvest:
  /// false; schema hints and budget parameters driven small stay).
  bool harvest = true;
  std::string record_path;                    ///< --record: write every exchange as a transcript.
  /// --kill-leftovers: end the processes the server started that outlive the run (T-LEFTOVER).
  bool kill_leftovers = false;
  /// The sandbox every server process of the run starts in (null: none, see `no_sandbox`).
  std::shared_ptr<const transport::Sandbox> sandbox;
  /// Why the run has no sandbox ("" when it has one): then tools classed dangerous
  /// (engine/safety.h) are not called unless `allow_destructive` lets them, no harvested or
  /// workspace value goes to a tool that does not read, and pid parameters get kNoSuchPid.
  std::string no_sandbox;
  /// --allow-destructive: classes (process, exec, write, send), tool globs, or "all".
  std::vector<std::string> allow_destructive;
  /// --allow-remote-urls: send a schema's default/example URLs to hosts other than loopback.
  bool allow_remote_urls = false;
  /// --host: the host profiles for H-* checks ("" = the defaults, "none" = none; see profile::load_hosts).
  std::string host;
  /// --strict-error-output: an isError result's structuredContent is held to the tool's
  /// outputSchema too (P-RESULT), as strict clients hold it.
  bool strict_error_output = false;
  /// --profile and --host already loaded (the command line loads them once to refuse a bad
  /// value before a server starts); null: the run loads `profile` and `host`.
  std::shared_ptr<const Judging> judging;
  /// The credentials to scrub from what the run writes itself while it runs (the --record
  /// transcript); null = none. The CLI scrubs the report, the console and case files with it.
  std::shared_ptr<const core::Redactor> redactor;
  /// Where the run publishes its report as it goes (findings as they are found, rows and
  /// counters at most every 200 ms), for the command line to write when a stop cannot wait for
  /// the run; null = not kept.
  std::shared_ptr<Snapshot> snapshot;
};

}  // namespace ctxo::engine
