// SPDX-License-Identifier: MIT
// What every command of ctxo-conform shares: the exit codes as main() returns them, one `error:`
// line for a bad command line, the options every command spells the same way (--profile, --host,
// --only/--skip, --baseline, --color, -q/-v: one definition each), and writing a finished report
// with its console summary. The commands: the run (run.h), `check` and `merge` (offline.cpp),
// `replay` (replay.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/outputs.h"
#include "core/redact.h"
#include "core/result.h"
#include "engine/gate.h"
#include "engine/report.h"
#include "reports/json_report.h"

namespace ctxo::cli {

inline constexpr const char* kVersion = CTXO_VERSION;

// The exit codes (engine::ExitCode, docs/reference/exit-codes.md), as main() returns them.
inline constexpr int kExitPass = engine::code(engine::ExitCode::kPass);
inline constexpr int kExitFail = engine::code(engine::ExitCode::kFail);
inline constexpr int kExitUsage = engine::code(engine::ExitCode::kUsage);
inline constexpr int kExitServer = engine::code(engine::ExitCode::kServer);

/// The comma-separated values of repeatable list options (--only A,B --only C), empty ones dropped.
std::vector<std::string> split_csv(const std::vector<std::string>& items);

/// Prints one `error:` line; returns the usage exit code (2).
int usage_error(const std::string& message);

/// Parses argv with CLI11 (whose exceptions stop here). nullopt: go on; else the exit code, after
/// printing --help, or one `error:` line for a bad command line.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, bool takes_server);

/// Validates --only/--skip ids; "" when fine, else the error message.
std::string selection_problem(const std::vector<std::string>& only, const std::vector<std::string>& skip);

reports::ConsoleStyle console_style(const std::string& color, int verbosity, bool to_stderr);

/// Writes the reports and the console summary of a finished report; returns its exit code (2 when
/// a report cannot be written). With a `redactor`, the report must have been scrubbed
/// (cli::scrub_report); the rendered reports and the console text are scrubbed once more.
int finish(const engine::RunReport& report, const Outputs& outputs, const std::string& color, int verbosity,
           const core::Redactor* redactor = nullptr);

/// The report side of `check`, `merge` and `replay`, checked before any work: --color, the report
/// paths and --baseline. Returns the accepted entries (empty without --baseline).
Result<std::vector<engine::BaselineEntry>> check_report_options(const std::string& color, const Outputs& outputs,
                                                                const std::string& baseline);

/// --header NAME: VALUE, each: the pairs, or why one is malformed.
Result<std::vector<std::pair<std::string, std::string>>> parse_headers(const std::vector<std::string>& given);

// --- the options every command spells the same way ------------------------------------------
void add_profile_option(CLI::App& app, std::string& profile);
void add_host_option(CLI::App& app, std::string& host);
/// --strict-error-output: P-RESULT holds an isError result's structuredContent to the outputSchema.
void add_strict_error_output_option(CLI::App& app, bool& strict);
void add_selection_options(CLI::App& app, std::vector<std::string>& only, std::vector<std::string>& skip);
void add_baseline_option(CLI::App& app, std::string& baseline);
/// --color WHEN, -q and -v: what -q and -v print is the command's own.
struct Console {
  std::string color = "auto";
  int verbosity = 1;
};
void add_console_options(CLI::App& app, Console& console, const char* quiet_help, const char* verbose_help);

// --- the commands -----------------------------------------------------------------------------
int run_check(int argc, char** argv);   ///< `ctxo-conform check TRANSCRIPT.jsonl`
int run_merge(int argc, char** argv);   ///< `ctxo-conform merge A.json B.json ...`
int run_replay(int argc, char** argv);  ///< `ctxo-conform replay CASE.json`

}  // namespace ctxo::cli
