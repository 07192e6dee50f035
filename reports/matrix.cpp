// SPDX-License-Identifier: MIT
#include "reports/matrix.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "checks/registry.h"
#include "core/interrupt.h"
#include "core/text.h"

namespace ctxo::reports {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kNotApplicable: return "not applicable";
    case Outcome::kNotObserved: return "not observed";
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
    case Outcome::kNotApplicable: return 0;
    case Outcome::kNotObserved: return 1;
    case Outcome::kPass: return 2;
    case Outcome::kBaselined: return 3;
    case Outcome::kWarn: return 4;
    case Outcome::kFail: return 5;
  }
  return 0;
}

// What one row's statuses say before findings refine them: id -> (outcome, reason).
using Cells = std::map<std::string, std::pair<Outcome, std::string>>;

Cells cells_of(const std::map<std::string, checks::Status>& outcomes, const std::map<std::string, std::string>* why,
               const std::vector<std::string>& invariants) {
  Cells cells;
  if (outcomes.empty()) {  // a report from before statuses existed: the applied ids passed
    for (const auto& id : invariants) cells[id] = {Outcome::kPass, ""};
    return cells;
  }
  for (const auto& [id, st] : outcomes) {
    switch (st) {
      case checks::Status::kNotApplicable: break;
      case checks::Status::kNotObserved: {
        std::string reason;
        if (why)
          if (auto it = why->find(id); it != why->end()) reason = it->second;
        cells[id] = {Outcome::kNotObserved, reason};
        break;
      }
      case checks::Status::kPassed:
      case checks::Status::kFailed: cells[id] = {Outcome::kPass, ""}; break;  // findings say how it failed
    }
  }
  return cells;
}

}  // namespace

Matrix build_matrix(const engine::RunReport& r) {
  // What each row says, and which rows exist.
  struct Row {
    std::string key;
    Cells cells;
    const engine::ToolSummary* tool = nullptr;
  };
  std::vector<Row> rows;
  std::map<std::string, std::size_t> row_of;
  auto add_row = [&](const std::string& key) -> std::size_t {
    auto it = row_of.find(key);
    if (it != row_of.end()) return it->second;
    row_of[key] = rows.size();
    rows.push_back({key, {}, nullptr});
    return rows.size() - 1;
  };
  std::size_t server = add_row("");
  rows[server].cells = cells_of(r.server_outcomes, nullptr, r.server_invariants);
  std::vector<const engine::ToolSummary*> tools;
  for (const auto& t : r.tools)
    if (t.calls > 0 || !t.invariants.empty() || !t.outcomes.empty()) tools.push_back(&t);
  std::sort(tools.begin(), tools.end(), [](auto* a, auto* b) { return a->name < b->name; });
  for (const auto* t : tools) {
    Row& row = rows[add_row(t->name)];
    row.cells = cells_of(t->outcomes, &t->not_observed, t->invariants);
    row.tool = t;
  }
  for (const auto& rf : r.findings) {
    // A server-level finding grouped from many tools fails each tool it lists too.
    std::vector<std::string> keys = {rf.finding.tool};
    if (rf.finding.tool.empty()) keys.insert(keys.end(), rf.tools.begin(), rf.tools.end());
    for (const auto& key : keys) {
      auto& cell = rows[add_row(key)].cells[rf.finding.invariant];
      if (rank(cell.first) < rank(Outcome::kPass)) cell = {Outcome::kPass, ""};
    }
  }

  std::set<std::string> used;
  for (const auto& row : rows)
    for (const auto& [id, _] : row.cells) used.insert(id);
  Matrix m;
  m.columns = checks::in_registry_order(used, {});
  for (const auto& id : used)  // ids the registry does not know (a newer report): keep them, last
    if (!checks::find_invariant(id)) m.columns.push_back(id);
  std::map<std::string, std::size_t> col_of;
  for (std::size_t i = 0; i < m.columns.size(); ++i) col_of[m.columns[i]] = i;

  for (const auto& src : rows) {
    MatrixRow row;
    row.server = src.key.empty();
    row.name = src.key.empty() ? "(server)" : src.key;
    row.cells.assign(m.columns.size(), Outcome::kNotApplicable);
    row.occurrences.assign(m.columns.size(), 0);
    row.reasons.assign(m.columns.size(), "");
    for (const auto& [id, cell] : src.cells) {
      row.cells[col_of[id]] = cell.first;
      row.reasons[col_of[id]] = cell.second;
    }
    if (src.tool) {
      row.profile = src.tool->profile;
      row.profile_reason = src.tool->profile_reason;
    }
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
    if (rf.finding.tool.empty())
      for (const auto& t : rf.tools) {
        auto& cell = m.rows[row_of[t]].cells[c];
        if (rank(o) > rank(cell)) cell = o;
      }
  }
  // Drop the server row when it has nothing (a report from before server_invariants existed).
  if (m.rows.front().findings.empty() &&
      std::all_of(m.rows.front().cells.begin(), m.rows.front().cells.end(),
                  [](Outcome o) { return o == Outcome::kNotApplicable; }))
    m.rows.erase(m.rows.begin());
  return m;
}

std::vector<Unobserved> group_not_observed(const engine::ToolSummary& t) {
  std::set<std::string> ids;
  for (const auto& [id, st] : t.outcomes)
    if (st == checks::Status::kNotObserved) ids.insert(id);
  std::vector<std::string> order = checks::in_registry_order(ids, {});
  for (const auto& id : ids)
    if (!checks::find_invariant(id)) order.push_back(id);
  std::vector<Unobserved> groups;
  // A tool whose calls reached no data: that is why, whatever each check said.
  if (t.coverage.calls > 0 && t.coverage.data == 0) {
    if (!order.empty()) groups.push_back({t.coverage.summary(), order});
    return groups;
  }
  for (const auto& id : order) {
    auto w = t.not_observed.find(id);
    std::string reason = w != t.not_observed.end() && !w->second.empty() ? w->second : "no answer exercised it";
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Unobserved& u) { return u.reason == reason; });
    if (g == groups.end()) groups.push_back({reason, {id}});
    else g->ids.push_back(id);
  }
  return groups;
}

CoverageRows coverage_rows(const engine::RunReport& r) {
  CoverageRows rows;
  for (const auto* t : tools_by_name(r)) {
    if (t->coverage.calls == 0) continue;
    rows.tools.push_back(t);
    if (t->coverage.data == 0) ++rows.without_data;
  }
  return rows;
}

namespace {

const checks::Headroom* closest(const checks::LargestAnswer& b) {
  const checks::Headroom* best = nullptr;
  for (const auto& h : b.headroom)
    if (h.max > 0 && (!best || static_cast<double>(h.size) / static_cast<double>(h.max) >
                                   static_cast<double>(best->size) / static_cast<double>(best->max)))
      best = &h;
  return best;
}

}  // namespace

long long headroom_percent(const engine::ToolSummary& t) {
  if (!t.largest) return -1;
  const checks::Headroom* h = closest(*t.largest);
  return h ? static_cast<long long>(h->size * 100 / h->max) : -1;
}

std::string headroom_text(const engine::ToolSummary& t) {
  if (!t.largest) return "";
  const checks::LargestAnswer& b = *t.largest;
  std::string s = thousands(b.bytes) + " B, " + thousands(b.chars) + " chars, " + thousands(b.tokens) + " tokens by chars/4" +
                  (b.is_error ? " (an error)" : "");
  if (const checks::Headroom* h = closest(b))
    s += ": " + std::to_string(h->size * 100 / h->max) + "% of " + h->host + "'s " + h->limit + " (" + thousands(h->max) +
         " " + h->unit + ")";
  return s;
}

std::vector<const engine::ToolSummary*> tools_by_name(const engine::RunReport& r) {
  std::vector<const engine::ToolSummary*> tools;
  for (const auto& t : r.tools) tools.push_back(&t);
  std::sort(tools.begin(), tools.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return tools;
}

std::string untested_reason(const engine::RunReport& r) {
  if (r.calls == 0) {
    // A tool the run chose to call but could not (a schema it cannot honour, a time budget): its
    // reason, not a hint at the selection flags.
    std::string why;
    for (const auto* t : tools_by_name(r))
      if (t->selected && t->calls == 0 && !t->skipped.empty()) why += (why.empty() ? "" : "; ") + t->name + ": " + t->skipped;
    if (!why.empty()) return "no tool was called (" + why + ")";
    return "no tool was called (check --tools, --exclude-tools, --read-only and the server's tools/list)";
  }
  checks::Coverage all;
  for (const auto& t : r.tools) all += t.coverage;
  if (r.successes == 0) {
    // A call that timed out or whose server closed the connection was never answered: saying it
    // was "answered with an error" would send the user looking for an error that never came.
    const std::size_t unanswered = std::min(all.no_answer, r.calls);
    const std::size_t errors = r.calls - unanswered;
    auto calls = [](std::size_t n) { return std::to_string(n) + " call" + (n == 1 ? "" : "s"); };
    const std::string never = "never answered (timed out, or the server closed the connection)";
    const std::string error = "answered with an error (a JSON-RPC error or isError: true)";
    if (unanswered == 0)
      return "all " + calls(r.calls) + (r.calls == 1 ? " was " : " were ") + error + ", so no tool was exercised";
    if (errors == 0)
      return (r.calls == 1 ? "the only call was " : "all " + calls(r.calls) + " were ") + never +
             ", so no tool was exercised";
    return "of " + calls(r.calls) + ", " + std::to_string(errors) + (errors == 1 ? " was " : " were ") + error + " and " +
           std::to_string(unanswered) + (unanswered == 1 ? " was " : " were ") + never + ", so no tool was exercised";
  }
  return "no answer carried data (" + all.summary() + "), so no tool was exercised";
}

std::string partial_reason(const engine::RunReport& r) {
  constexpr std::size_t kNamed = 8;
  std::string none;
  std::size_t listed = 0, without = 0;
  for (const auto* t : tools_by_name(r)) {
    if (!t->selected || t->coverage.data > 0) continue;
    ++without;
    if (++listed > kNamed) continue;
    none += (none.empty() ? "" : "; ") + t->name + " (" +
            (t->calls == 0 ? (t->skipped.empty() ? std::string("not called") : t->skipped) : t->coverage.summary()) + ")";
  }
  if (without > kNamed) none += "; and " + std::to_string(without - kNamed) + " more";
  std::string safety;
  std::size_t skipped = 0;
  for (const auto* t : tools_by_name(r))
    if (!t->skipped_for_safety.empty() && ++skipped <= kNamed)
      safety += (safety.empty() ? "" : ", ") + t->name + " (" + t->skipped_for_safety + ")";
  if (skipped > kNamed) safety += " and " + std::to_string(skipped - kNamed) + " more";
  std::string s = without == 0 ? std::string() : "no data from " + none + ": what these tools promise was not tested";
  if (skipped > 0)
    s += (s.empty() ? "" : "; ") + std::string("not called for safety (no sandbox): ") + safety +
         " (install bubblewrap, or --allow-destructive)";
  if (r.require_coverage) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%g%%", *r.require_coverage);
    s += r.exit_code == engine::code(engine::ExitCode::kUntested) ? std::string("; exit code 4 (below --require-coverage ") + pct + ")"
                                                                  : std::string("; --require-coverage ") + pct + " met";
  }
  return s;
}

std::string interrupted_reason(const engine::RunReport& r) {
  if (r.interrupted == 0) return "";
  return std::string("stopped by ") + core::interrupt_name(r.interrupted) + (r.phase.empty() ? "" : " during " + r.phase) +
         " after " + std::to_string(r.calls) +
         " call" + (r.calls == 1 ? "" : "s") + "; " + (r.findings.empty() ? "nothing was found before it" : "the findings are true") +
         ", the rest of the server was not tested (exit code " + std::to_string(r.exit_code) + ")";
}

bool mixed_profiles(const engine::RunReport& r) {
  std::set<std::string> seen;
  for (const auto& t : r.tools)
    if (t.calls > 0) seen.insert(t.profile);
  return seen.size() > 1;
}

}  // namespace ctxo::reports
