// SPDX-License-Identifier: MIT
#include "engine/gate.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "checks/registry.h"
#include "engine/selection.h"
#include "profile/profile.h"

namespace ctxo::engine {

namespace {

bool tool_matches(const std::string& pattern, const std::string& tool) {
  return pattern == tool || (!pattern.empty() && glob_match(pattern, tool));
}

// An entry naming a cause accepts that cause where the entry's tool shows it (its own finding, or
// a server-level one listing the tool; tool "" = anywhere): the same defect whatever the seed.
// An entry without one (older baselines) accepts the invariant on its tool, and a server-level
// finding listing tools when entries of the invariant accept every one of them.
bool matches(const BaselineEntry& e, const ReportedFinding& rf) {
  const Finding& f = rf.finding;
  if (e.invariant != f.invariant) return false;
  if (!e.cause.empty())
    return e.cause == cause_id(f) &&
           (e.tool.empty() || tool_matches(e.tool, f.tool) ||
            std::any_of(rf.tools.begin(), rf.tools.end(), [&](const std::string& t) { return tool_matches(e.tool, t); }));
  return tool_matches(e.tool, f.tool);
}

bool accepted(const std::vector<BaselineEntry>& baseline, const ReportedFinding& rf) {
  if (std::any_of(baseline.begin(), baseline.end(), [&](const BaselineEntry& e) { return matches(e, rf); })) return true;
  if (!rf.finding.tool.empty() || rf.tools.empty()) return false;
  return std::all_of(rf.tools.begin(), rf.tools.end(), [&](const std::string& t) {
    return std::any_of(baseline.begin(), baseline.end(), [&](const BaselineEntry& e) {
      return e.invariant == rf.finding.invariant && e.cause.empty() && !e.tool.empty() && tool_matches(e.tool, t);
    });
  });
}

// Whether a finding accepted by `e` is in `r`: a server-level grouped finding counts for the
// per-tool entries it is accepted through.
bool hit(const BaselineEntry& e, const std::vector<BaselineEntry>& baseline, const std::vector<ReportedFinding>& findings) {
  return std::any_of(findings.begin(), findings.end(), [&](const ReportedFinding& rf) {
    if (matches(e, rf)) return true;
    return e.cause.empty() && !e.tool.empty() && rf.finding.tool.empty() && e.invariant == rf.finding.invariant &&
           std::any_of(rf.tools.begin(), rf.tools.end(), [&](const std::string& t) { return tool_matches(e.tool, t); }) &&
           accepted(baseline, rf);
  });
}

}  // namespace

Result<std::vector<BaselineEntry>> load_baseline(const std::string& path) {
  auto read = profile::read_json_file(path);
  if (!read) return make_error("usage", "--baseline: " + read.error().message);
  const json& doc = *read;
  const json* list = nullptr;
  if (doc.is_object() && doc.contains("accepted") && doc["accepted"].is_array()) list = &doc["accepted"];
  else if (doc.is_object() && doc.value("tool", "") == "ctxo-conform" && doc.contains("findings") && doc["findings"].is_array())
    list = &doc["findings"];
  if (!list)
    return make_error("usage", "--baseline file '" + path +
                                   "' is neither {\"accepted\": [{\"invariant\": ..., \"tool\": ...}]} nor a ctxo-conform "
                                   "JSON report");
  std::vector<BaselineEntry> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& e = (*list)[i];
    std::string where = "--baseline file '" + path + "', entry " + std::to_string(i + 1);
    if (!e.is_object() || !e.contains("invariant") || !e["invariant"].is_string())
      return make_error("usage", where + ": needs a string \"invariant\"");
    if (e.contains("tool") && !e["tool"].is_string()) return make_error("usage", where + ": \"tool\" must be a string");
    // A cause: a string id, or a report finding's {"id": ...}.
    std::string cause;
    if (auto c = e.find("cause"); c != e.end()) {
      if (c->is_object() && c->contains("id") && (*c)["id"].is_string()) cause = (*c)["id"].get<std::string>();
      else if (c->is_string()) cause = c->get<std::string>();
      else return make_error("usage", where + ": \"cause\" must be a string (a finding's cause id)");
    }
    BaselineEntry b{e["invariant"].get<std::string>(), e.value("tool", ""), cause};
    if (!checks::find_invariant(b.invariant))
      return make_error("usage", where + ": unknown invariant '" + b.invariant + "' (see --list-invariants)");
    bool dup = std::any_of(out.begin(), out.end(), [&](const BaselineEntry& o) {
      return o.invariant == b.invariant && o.tool == b.tool && o.cause == b.cause;
    });
    if (!dup) out.push_back(std::move(b));
  }
  return out;
}

void settle_verdict(RunReport& r) {
  if (r.error || r.verdict == Verdict::kError) {
    r.verdict = Verdict::kError;
    if (r.exit_code != code(ExitCode::kUsage) && r.exit_code != code(ExitCode::kServer))
      r.exit_code = code(ExitCode::kServer);
    return;
  }
  if (r.error_count() > 0) {
    r.verdict = Verdict::kFail;
    r.exit_code = code(ExitCode::kFail);
  } else if (r.calls == 0 || r.successes == 0 || r.reached_count() == 0) {
    // Nothing was exercised: no call made, or no answer carried data. Not a pass.
    r.verdict = Verdict::kUntested;
    r.exit_code = code(ExitCode::kUntested);
  } else if (r.reached_count() < r.selected_count()) {
    // Some selected tools never reached data: what they promise was not tested.
    r.verdict = Verdict::kPartial;
    const double share = 100.0 * static_cast<double>(r.reached_count()) / static_cast<double>(r.selected_count());
    r.exit_code = code(r.require_coverage && share < *r.require_coverage ? ExitCode::kUntested : ExitCode::kPass);
  } else {
    r.verdict = Verdict::kPass;
    r.exit_code = code(ExitCode::kPass);
  }
  // Tools not called for safety (no sandbox) were not tested: not a pass.
  if (r.verdict == Verdict::kPass &&
      std::any_of(r.tools.begin(), r.tools.end(), [](const ToolSummary& t) { return !t.skipped_for_safety.empty(); }))
    r.verdict = Verdict::kPartial;
  // Stopped by a signal: the findings so far are true, a pass is not earned. The shell's code.
  if (r.interrupted > 0) {
    if (r.verdict != Verdict::kFail) r.verdict = Verdict::kInterrupted;
    r.exit_code = interrupted_exit_code(r.interrupted);
  }
}

void apply_baseline(RunReport& r, const std::vector<BaselineEntry>& baseline) {
  r.baseline_stale.clear();
  for (auto& rf : r.findings) rf.baselined = accepted(baseline, rf);
  const bool server_ran = !r.server_invariants.empty();
  for (const auto& e : baseline) {
    if (hit(e, baseline, r.findings)) continue;
    bool checked = e.tool.empty() ? server_ran
                                  : std::any_of(r.tools.begin(), r.tools.end(), [&](const ToolSummary& t) {
                                      return t.calls > 0 && (t.name == e.tool || glob_match(e.tool, t.name));
                                    });
    if (checked) r.baseline_stale.push_back(e);
  }
  settle_verdict(r);
}

Result<RunReport> merge_reports(const std::vector<RunReport>& shards) {
  if (shards.empty()) return make_error("usage", "merge needs at least one report");
  const RunReport& first = shards.front();
  for (std::size_t i = 1; i < shards.size(); ++i) {
    if (shards[i].seed != first.seed)
      return make_error("usage", "report " + std::to_string(i + 1) + " has seed " + std::to_string(shards[i].seed) +
                                     ", report 1 has seed " + std::to_string(first.seed) +
                                     ": shards of one run share a seed");
    if (shards[i].command != first.command)
      return make_error("usage", "report " + std::to_string(i + 1) + " tested another server command than report 1");
  }
  RunReport m;
  m.seed = first.seed;
  m.command = first.command;
  m.env = first.env;
  m.cwd = first.cwd;
  m.require_coverage = first.require_coverage;
  m.profile = first.profile;
  m.root = first.root;
  m.workspace = first.workspace;
  m.started_at = first.started_at;
  std::set<std::string> checked, server_ids, notes_seen;
  std::map<std::string, std::size_t> finding_at;
  std::map<std::string, std::size_t> tool_at;
  std::set<std::tuple<std::string, std::string, std::string>> stale;
  for (const auto& s : shards) {
    if (m.server_name.empty()) {
      m.server_name = s.server_name;
      m.server_version = s.server_version;
      m.protocol_version = s.protocol_version;
      m.era = s.era;
    }
    if (s.started_at < m.started_at) m.started_at = s.started_at;
    if (s.error && !m.error) {
      m.error = s.error;
      m.exit_code = s.exit_code;
    }
    m.duration = std::max(m.duration, s.duration);
    m.calls += s.calls;
    m.successes += s.successes;
    m.restarts += s.restarts;
    m.shrink_calls += s.shrink_calls;
    m.harvested += s.harvested;
    m.sweep_runs += s.sweep_runs;
    m.notifications += s.notifications;
    m.server_requests += s.server_requests;
    m.unprofiled_results += s.unprofiled_results;
    for (const auto& [k, n] : s.generic_readings) m.generic_readings[k] += n;
    for (const auto& [p, n] : s.profiles_detected) m.profiles_detected[p] += n;
    checked.insert(s.invariants_checked.begin(), s.invariants_checked.end());
    server_ids.insert(s.server_invariants.begin(), s.server_invariants.end());
    for (const auto& [id, st] : s.server_outcomes)
      if (st > m.server_outcomes[id]) m.server_outcomes[id] = st;
    for (const auto& n : s.notes)
      if (notes_seen.insert(n).second) m.notes.push_back(n);
    if (m.stderr_tail.empty()) m.stderr_tail = s.stderr_tail;
    // A tool is the shard's that called it; the others list it as "in another shard".
    for (const auto& t : s.tools) {
      auto it = tool_at.find(t.name);
      if (it == tool_at.end()) {
        tool_at[t.name] = m.tools.size();
        m.tools.push_back(t);
      } else if (t.selected && !m.tools[it->second].selected) {
        m.tools[it->second] = t;
      }
    }
    // Server-level findings are seen by every shard: the same finding once, not once per shard;
    // one grouped from other tools in each shard lists them all and counts them all.
    for (const auto& rf : s.findings) {
      auto k = finding_key(rf.finding);
      auto it = finding_at.find(k);
      if (it == finding_at.end()) {
        finding_at[k] = m.findings.size();
        m.findings.push_back(rf);
      } else {
        auto& have = m.findings[it->second];
        const bool other_tools = std::any_of(rf.tools.begin(), rf.tools.end(), [&](const std::string& t) {
          return !std::binary_search(have.tools.begin(), have.tools.end(), t);
        });
        have.count = other_tools ? have.count + rf.count : std::max(have.count, rf.count);
        have.baselined = have.baselined && rf.baselined;
        std::vector<std::string> tools;
        std::set_union(have.tools.begin(), have.tools.end(), rf.tools.begin(), rf.tools.end(), std::back_inserter(tools));
        have.tools = std::move(tools);
      }
    }
    for (const auto& b : s.baseline_stale) stale.insert({b.invariant, b.tool, b.cause});
  }
  m.invariants_checked = checks::in_registry_order(checked, {});
  m.server_invariants = checks::in_registry_order(server_ids, {});
  std::sort(m.tools.begin(), m.tools.end(), [](const ToolSummary& a, const ToolSummary& b) { return a.name < b.name; });
  // Findings in a stable order: by tool, then invariant, then diagnosis (shard order is arbitrary).
  std::stable_sort(m.findings.begin(), m.findings.end(), [](const ReportedFinding& a, const ReportedFinding& b) {
    return std::tie(a.finding.tool, a.finding.invariant, a.finding.diagnosis) <
           std::tie(b.finding.tool, b.finding.invariant, b.finding.diagnosis);
  });
  // The same cause on most tools of the whole server (group_server_level recounts the rows).
  group_server_level(m);
  // A stale entry in one shard is not stale when another shard's finding matches it.
  for (const auto& [inv, tool, cause] : stale) {
    BaselineEntry e{inv, tool, cause};
    if (!hit(e, {e}, m.findings)) m.baseline_stale.push_back(e);
  }
  settle_verdict(m);
  return m;
}

}  // namespace ctxo::engine
