// SPDX-License-Identifier: MIT
// The tool x invariant matrix every human-facing report shows (JUnit test cases, the Markdown
// table, the HTML grid): for each tool and invariant, how its checks said it came out (passed,
// failed, not observed and why, not applicable), refined by the findings' severity and baseline.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/report.h"

namespace ctxo::reports {

/// How one invariant came out for one tool.
enum class Outcome {
  kNotApplicable,  ///< Nothing to judge on this tool (the rule has no subject here, or not selected).
  kNotObserved,    ///< The rule applies, but no answer exercised it (MatrixRow::reasons says why).
  kPass,           ///< Exercised, no finding.
  kFail,        ///< At least one error finding not accepted by the baseline.
  kWarn,        ///< Only warning findings (not baselined).
  kBaselined,   ///< Only findings accepted by --baseline.
};

/// "not applicable", "not observed", "pass", "fail", "warn", "baselined".
const char* outcome_name(Outcome o);

/// One row: a tool, or the server itself (handshake, tools/list, shutdown: `server` is true and
/// `name` is "(server)").
struct MatrixRow {
  std::string name;
  bool server = false;
  std::vector<Outcome> cells;            ///< One per column.
  std::vector<std::size_t> occurrences;  ///< Findings (counting repeats) per column.
  std::vector<std::size_t> findings;     ///< Indexes into RunReport::findings, this row's.
  std::vector<std::string> reasons;      ///< Per column: why it was not observed ("" otherwise).
  std::string profile;                   ///< The envelope profile the tool was judged by ("" = none).
  std::string profile_reason;            ///< Why that profile.
};

struct Matrix {
  std::vector<std::string> columns;  ///< Invariant ids applied anywhere, in registry order.
  std::vector<MatrixRow> rows;       ///< The server row first, then called tools by name.
};

/// Builds the matrix: rows are the server plus every tool that was called; a tool's cells come
/// from ToolSummary::outcomes (RunReport::server_outcomes for the server row; a report without
/// them falls back to the `invariants` lists, read as passed) and its findings (a finding always
/// marks its cell, even for an invariant the statuses do not list). Findings with an empty tool
/// belong to the server row. Columns are the ids with any status other than not applicable.
Matrix build_matrix(const engine::RunReport& report);

/// Not-observed invariants of one tool that share a reason.
struct Unobserved {
  std::string reason;            ///< ToolSummary::not_observed's text, or a generic one.
  std::vector<std::string> ids;  ///< In registry order.
};

/// The tool's not-observed invariants grouped by reason (groups in order of their first id); one
/// group for a tool whose calls reached no data, with its coverage summary as the reason.
std::vector<Unobserved> group_not_observed(const engine::ToolSummary& tool);

/// The tools that were called (coverage.calls > 0), by name, and how many of them reached no data.
struct CoverageRows {
  std::vector<const engine::ToolSummary*> tools;
  std::size_t without_data = 0;
};
CoverageRows coverage_rows(const engine::RunReport& report);

/// A tool's largest answer in words, with the host limit it came closest to: "22,115 B, 5,529
/// tokens by chars/4: 22% of Claude Code's max-tokens (25,000 tokens)". "" when it has none.
std::string headroom_text(const engine::ToolSummary& tool);
/// The share (percent, rounded down) of the host limit the tool's largest answer came closest to
/// (-1: no host limit applies, or no answer).
long long headroom_percent(const engine::ToolSummary& tool);

/// The report's tools sorted by name (the order the per-tool sections list them in).
std::vector<const engine::ToolSummary*> tools_by_name(const engine::RunReport& report);

/// For a run stopped by a signal: "stopped by SIGINT after 12 calls; the findings are true, the
/// rest of the server was not tested (exit code 130)". "" for a run that was not.
std::string interrupted_reason(const engine::RunReport& r);

/// Why a run's verdict is "untested", to follow "no call reached the server's tools: " ("no tool
/// was called (...)" or "all N calls were answered with an error (...)").
std::string untested_reason(const engine::RunReport& report);

/// Why a run is partial: the selected tools that reached no data, each with what its calls
/// reached or why it was not called, and the exit code it gives ("...; exit code 4 (below
/// --require-coverage 80%)" when the share is below the one required).
std::string partial_reason(const engine::RunReport& report);

/// True when the called tools were not all judged by the same envelope profile (a report then
/// names each tool's profile).
bool mixed_profiles(const engine::RunReport& report);

}  // namespace ctxo::reports
