// SPDX-License-Identifier: MIT
// The tool x invariant matrix every human-facing report shows (JUnit test cases, the Markdown
// table, the HTML grid): which invariants were applied to which tool, and how each came out.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace ctxo::reports {

/// How one invariant came out for one tool.
enum class Outcome {
  kNotChecked,  ///< Not applied to this tool (no answer of that kind, or not selected).
  kPass,        ///< Applied, no finding.
  kFail,        ///< At least one error finding not accepted by the baseline.
  kWarn,        ///< Only warning findings (not baselined).
  kBaselined,   ///< Only findings accepted by --baseline.
};

/// "not checked", "pass", "fail", "warn", "baselined".
const char* outcome_name(Outcome o);

/// One row: a tool, or the server itself (handshake, tools/list, shutdown: `server` is true and
/// `name` is "(server)").
struct MatrixRow {
  std::string name;
  bool server = false;
  std::vector<Outcome> cells;            ///< One per column.
  std::vector<std::size_t> occurrences;  ///< Findings (counting repeats) per column.
  std::vector<std::size_t> findings;     ///< Indexes into RunReport::findings, this row's.
};

struct Matrix {
  std::vector<std::string> columns;  ///< Invariant ids applied anywhere, in registry order.
  std::vector<MatrixRow> rows;       ///< The server row first, then called tools by name.
};

/// Builds the matrix: rows are the server plus every tool that was called; a tool's cells come
/// from ToolSummary::invariants and its findings (a finding always marks its cell, even for an
/// invariant the summary does not list). Findings with an empty tool belong to the server row.
Matrix build_matrix(const engine::RunReport& report);

}  // namespace ctxo::reports
