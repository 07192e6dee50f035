// SPDX-License-Identifier: MIT
#include "engine/sink.h"

#include "checks/generic.h"
#include "transport/transport.h"

#include <string_view>
#include <unordered_map>
#include <vector>

namespace ctxo::engine {

using nlohmann::json;

std::string tool_of(const json& request) {
  if (request.is_object() && request.value("method", "") == "tools/call" && request.contains("params") &&
      request["params"].is_object())
    return request["params"].value("name", "");
  return "";
}

bool http_rule(const std::string& id) { return id.rfind("T-HTTP-", 0) == 0; }

std::vector<std::string> invariants_checked(const checks::Selection& selection, bool live) {
  std::vector<std::string> ids;
  for (const auto& inv : checks::registry())
    if (inv.implemented && (live || inv.family != "transport") && selection.enabled(inv.id)) ids.push_back(inv.id);
  if (!live) ids.push_back("T-ID");
  return ids;
}

ToolSummary& row_of(RunReport& report, const std::string& name) {
  for (auto& t : report.tools)
    if (t.name == name) return t;
  ToolSummary t;
  t.name = name;
  report.tools.push_back(t);
  return report.tools.back();
}

void count_call(RunReport& report, ToolSummary& row, bool success) {
  report.calls++;
  row.calls++;
  if (success) {
    row.successes++;
    report.successes++;
  }
}

bool server_answered(const mcp::Reply& r) {
  if (r.kind != mcp::Reply::Kind::kResult && r.kind != mcp::Reply::Kind::kError) return false;
  if (r.transport_failure.empty()) return true;
  // The transport marks the errors it makes up; the server's own message holding both result and
  // error carries its error as sent.
  const nlohmann::json* data = r.error.is_object() && r.error.contains("data") ? &r.error["data"] : nullptr;
  return !(data && data->is_object() && data->contains(transport::kTransportMark));
}

bool FindingSink::admit(Finding& f, const std::string& tool) const {
  if (!selection_.enabled(f.invariant)) return false;
  if (f.tool.empty() && !f.server_level) f.tool = tool;
  if (f.tool.empty() && !f.server_level && !http_rule(f.invariant)) f.tool = tool_of(f.request);
  return true;
}

std::vector<Finding> FindingSink::take(const std::string& tool, checks::Outcomes o) {
  std::vector<Finding> fs = o.take_findings();
  for (auto& f : fs)
    if (f.tool.empty() && !f.server_level && !tool.empty()) f.tool = tool;
  outcomes_[tool].merge(std::move(o));
  return fs;
}

std::optional<std::string> settle_rows(RunReport& report, const checks::Judge& judge, bool forced, bool candidates,
                                       bool live) {
  // By name through an index: a scan of every row per judged tool took seconds for 50,000 tools.
  std::unordered_map<std::string_view, std::vector<ToolSummary*>> rows;
  for (auto& ts : report.tools) rows[ts.name].push_back(&ts);
  for (const auto& [name, tp] : judge.tool_profiles())
    if (auto it = rows.find(name); it != rows.end())
      for (ToolSummary* ts : it->second) {
        ts->profile = tp.profile ? tp.profile->name : "";
        ts->profile_reason = tp.reason;
      }
  for (const auto& [name, big] : judge.largest())
    if (auto it = rows.find(name); it != rows.end())
      for (ToolSummary* ts : it->second) ts->largest = big;
  for (const auto& [name, n] : judge.profiles_detected()) report.profiles_detected[name] = n;
  report.unprofiled_results = judge.unprofiled();
  report.generic_readings = judge.generic_readings();
  (void)live;
  if (forced || !candidates || report.unprofiled_results == 0) return std::nullopt;
  return generic_note(report.unprofiled_results, report.generic_readings);
}

std::string generic_note(std::size_t unprofiled, const std::map<std::string, std::size_t>& readings) {
  const std::string said = generic_readings_text(readings);
  return "generic reading of the " + std::to_string(unprofiled) + " tool result(s) no envelope profile matched" +
         (said.empty() ? std::string() : ": " + said) +
         (checks::builtin_vocabulary() ? std::string(" (TR-HINT, TR-COUNT, TR-RESUME, TR-PREFIX and TR-MAXIMAL applied to them as profile generic)")
                                       : "; generic truncation rules are off: " +
                                             checks::builtin_vocabulary().error().message);
}

}  // namespace ctxo::engine
