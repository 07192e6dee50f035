// SPDX-License-Identifier: MIT
#include "engine/selection.h"

#include <algorithm>
#include <set>

#include "engine/safety.h"
#include "gen/plan.h"
#include "gen/simple.h"

namespace ctxo::engine {

using nlohmann::json;

bool glob_match(std::string_view p, std::string_view t) {
  std::size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi, ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

bool annotated_read_only(const json& tool) {
  return tool.contains("annotations") && tool["annotations"].is_object() &&
         tool["annotations"].value("readOnlyHint", false) == true;
}

bool annotated_parallel_safe(const json& tool) {
  return annotated_read_only(tool) || (tool.contains("annotations") && tool["annotations"].is_object() &&
                                       tool["annotations"].value("idempotentHint", false) == true);
}

bool needs_identifier(const json& tool) {
  if (!tool.contains("inputSchema") || !tool["inputSchema"].is_object()) return false;
  const json& schema = tool["inputSchema"];
  if (!schema.contains("required") || !schema["required"].is_array()) return false;
  // A SQL statement is made from the tables other tools named: it waits for them too.
  const bool sql = gen::runs_sql(tool);
  for (const auto& r : schema["required"]) {
    if (!r.is_string()) continue;
    const std::string p = r.get<std::string>();
    const auto kinds = gen::parameter_kinds(p);
    if (gen::identifier_like(p) || (!kinds.empty() && kinds.front() == gen::ValueKind::kSql) ||
        (sql && !kinds.empty() && kinds.back() == gen::ValueKind::kSnippet))  // a query of a SQL tool
      return true;
  }
  return false;
}

ToolSelection select_tools(const std::vector<json>& listed, const RunOptions& o) {
  std::vector<const json*> tools;
  std::set<std::string> names;
  for (const auto& t : listed) {
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
    if (!names.insert(t["name"].get<std::string>()).second) continue;
    tools.push_back(&t);
  }
  std::sort(tools.begin(), tools.end(),
            [](const json* a, const json* b) { return (*a)["name"].get<std::string>() < (*b)["name"].get<std::string>(); });
  ToolSelection out;
  std::size_t eligible = 0;
  for (const json* t : tools) {
    ToolSummary ts;
    ts.name = (*t)["name"].get<std::string>();
    ts.read_only = annotated_read_only(*t);
    bool in = o.tool_globs.empty();
    for (const auto& g : o.tool_globs) in = in || glob_match(g, ts.name);
    for (const auto& g : o.exclude_globs)
      if (glob_match(g, ts.name)) in = false;
    if (o.replay) in = ts.name == o.replay->tool;
    if (in && o.read_only && !ts.read_only) {
      in = false;
      ts.skipped = "not annotated readOnlyHint:true (--read-only)";
    }
    // No sandbox: what may kill, run, overwrite or send is not called unless allowed.
    if (in && !o.no_sandbox.empty()) {
      const Danger d = classify_danger(*t);
      if (d != Danger::kNone && !danger_allowed(o.allow_destructive, ts.name, d)) {
        in = false;
        ts.skipped_for_safety = danger_key(d);
        ts.skipped = std::string("skipped for safety: ") + danger_label(d) + " (no sandbox)";
      }
    }
    if (in) {
      if (static_cast<int>(eligible % static_cast<std::size_t>(o.shard_count)) != o.shard_index) {
        in = false;
        ts.skipped = "in another shard";
      }
      ++eligible;
    } else if (ts.skipped.empty()) {
      ts.skipped = o.replay ? "not the replayed case's tool" : "not selected (--tools / --exclude-tools)";
    }
    ts.selected = in;
    out.rows.push_back(std::move(ts));
    if (in) out.selected.push_back(t);
  }
  return out;
}

std::optional<std::string> safety_note(const std::vector<ToolSummary>& rows, const std::string& no_sandbox) {
  constexpr std::size_t kNamed = 20;
  std::string list;
  std::size_t n = 0;
  for (const auto& ts : rows)
    if (!ts.skipped_for_safety.empty() && ++n <= kNamed)
      list += (list.empty() ? "" : ", ") + ts.name + " (" + ts.skipped_for_safety + ")";
  if (n == 0) return std::nullopt;
  if (n > kNamed) list += " and " + std::to_string(n - kNamed) + " more";
  (void)no_sandbox;  // the banner said why
  return std::to_string(n) + " tool(s) skipped for safety (no sandbox): " + list +
         ". To call them, install bubblewrap (they run in a sandbox), or pass --allow-destructive CLASS|TOOL|all "
         "to run them on this machine";
}

std::optional<std::string> writers_note(const std::vector<ToolSummary>& rows) {
  // The first kNamed by name, then how many more: a listing of 50,000 writers is one short line.
  constexpr std::size_t kNamed = 20;
  std::string list;
  std::size_t writers = 0;
  for (const auto& ts : rows)
    if (ts.selected && !ts.read_only && ++writers <= kNamed) list += (list.empty() ? "" : ", ") + ts.name;
  if (writers == 0) return std::nullopt;
  if (writers > kNamed) list += " and " + std::to_string(writers - kNamed) + " more";
  return "calling tools not annotated readOnlyHint:true (they may write, move or delete): " + list +
         " (no sandbox: use --read-only to skip them)";
}

}  // namespace ctxo::engine
