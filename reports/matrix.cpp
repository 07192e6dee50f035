// SPDX-License-Identifier: MIT
#include "reports/matrix.h"

#include <algorithm>
#include <map>
#include <set>

#include "checks/registry.h"

namespace ctxo::reports {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kNotChecked: return "not checked";
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kWarn: return "warn";
    case Outcome::kBaselined: return "baselined";
  }
  return "?";
}

namespace {

// Worse outcomes win when several findings share a cell.
int rank(Outcome o) {
  switch (o) {
    case Outcome::kNotChecked: return 0;
    case Outcome::kPass: return 1;
    case Outcome::kBaselined: return 2;
    case Outcome::kWarn: return 3;
    case Outcome::kFail: return 4;
  }
  return 0;
}

}  // namespace

Matrix build_matrix(const engine::RunReport& r) {
  // Which ids each row applies, and which rows exist.
  std::vector<std::pair<std::string, std::set<std::string>>> rows;
  std::map<std::string, std::size_t> row_of;
  auto add_row = [&](const std::string& key) -> std::size_t {
    auto it = row_of.find(key);
    if (it != row_of.end()) return it->second;
    row_of[key] = rows.size();
    rows.push_back({key, {}});
    return rows.size() - 1;
  };
  std::size_t server = add_row("");
  rows[server].second.insert(r.server_invariants.begin(), r.server_invariants.end());
  std::vector<const engine::ToolSummary*> tools;
  for (const auto& t : r.tools)
    if (t.calls > 0 || !t.invariants.empty()) tools.push_back(&t);
  std::sort(tools.begin(), tools.end(), [](auto* a, auto* b) { return a->name < b->name; });
  for (const auto* t : tools) rows[add_row(t->name)].second.insert(t->invariants.begin(), t->invariants.end());
  for (const auto& rf : r.findings) rows[add_row(rf.finding.tool)].second.insert(rf.finding.invariant);

  std::set<std::string> used;
  for (const auto& [_, ids] : rows) used.insert(ids.begin(), ids.end());
  Matrix m;
  m.columns = checks::in_registry_order(used, {});
  for (const auto& id : used)  // ids the registry does not know (a newer report): keep them, last
    if (!checks::find_invariant(id)) m.columns.push_back(id);
  std::map<std::string, std::size_t> col_of;
  for (std::size_t i = 0; i < m.columns.size(); ++i) col_of[m.columns[i]] = i;

  for (const auto& [key, ids] : rows) {
    MatrixRow row;
    row.server = key.empty();
    row.name = key.empty() ? "(server)" : key;
    row.cells.assign(m.columns.size(), Outcome::kNotChecked);
    row.occurrences.assign(m.columns.size(), 0);
    for (const auto& id : ids) row.cells[col_of[id]] = Outcome::kPass;
    m.rows.push_back(std::move(row));
  }
  for (std::size_t i = 0; i < r.findings.size(); ++i) {
    const auto& rf = r.findings[i];
    auto& row = m.rows[row_of[rf.finding.tool]];
    std::size_t c = col_of[rf.finding.invariant];
    Outcome o = rf.baselined ? Outcome::kBaselined
                : rf.finding.severity == Severity::kError ? Outcome::kFail
                                                          : Outcome::kWarn;
    if (rank(o) > rank(row.cells[c])) row.cells[c] = o;
    row.occurrences[c] += rf.count;
    row.findings.push_back(i);
  }
  // Drop the server row when it has nothing (a report from before server_invariants existed).
  if (m.rows.front().findings.empty() &&
      std::all_of(m.rows.front().cells.begin(), m.rows.front().cells.end(),
                  [](Outcome o) { return o == Outcome::kNotChecked; }))
    m.rows.erase(m.rows.begin());
  return m;
}

}  // namespace ctxo::reports
