// SPDX-License-Identifier: MIT
// The ToolPlan's calls to a tool that reads a git history (historied): its repository path the
// workspace root, its revisions the workspace's commits, branches and tags, and, for a tool that
// takes a file too (git_blame {path, rev}, a file at a commit), a commit with a file it changed,
// so the pair names something that exists at that commit (a file paired with any commit is often
// a miss: it did not exist yet, or a blame of it names other commits).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "gen/plan.h"
#include "gen/plan_internal.h"
#include "profile/schema_validator.h"

namespace ctxo::gen {

using namespace detail;

namespace {

// Where the history goes in a tool's arguments.
struct HistorySlots {
  std::vector<std::string> repositories, revisions, paths;
};

// What a parameter's own description says it takes, lowered: "Path to the Git repository" (a
// `path` that is the repository, @cyanheads/git-mcp-server's), "Git object to show (commit hash,
// branch, tag...)" (an `object` that is a revision); a date (`since`: "ISO 8601") is not one.
struct Described {
  bool repository = false, revision = false, date = false;
};
Described described(const json& property_schema) {
  Described d;
  if (!property_schema.is_object()) return d;
  const auto it = property_schema.find("description");
  if (it == property_schema.end() || !it->is_string()) return d;
  const std::string text = ascii_lower(std::string_view(it->get_ref<const std::string&>()).substr(0, 512));
  const auto has = [&](const char* w) { return text.find(w) != std::string::npos; };
  d.date = has("date") || has("iso 8601");
  d.repository = has("repository") && (has("path") || has("directory")) && !has("relative to");
  d.revision = !d.date && has("commit") && (has("hash") || has("sha") || has("branch") || has("tag") || has("ref"));
  return d;
}

HistorySlots history_slots(const json& props) {
  HistorySlots s;
  std::vector<std::string> maybe;  // a revision only in a tool that takes a repository (`target`)
  for (auto it = props.begin(); it != props.end(); ++it) {
    const Described d = described(it.value());
    const bool string_or_any = !it->is_object() || !it->contains("type") || it->at("type") == "string";
    if (repository_parameter(it.key()) || (d.repository && string_or_any)) {
      s.repositories.push_back(it.key());
      continue;
    }
    const std::vector<ValueKind> kinds = parameter_kinds(it.key());
    // (a file's description may name the commit it is read at: `filePath`, "the file at a commit ref")
    const bool names_a_file = !kinds.empty() && (kinds.front() == ValueKind::kPath || kinds.front() == ValueKind::kUri ||
                                                 kinds.front() == ValueKind::kDirectory || kinds.front() == ValueKind::kGlob);
    if (d.revision && string_or_any && !names_a_file && (kinds.empty() || kinds.front() != ValueKind::kRevision)) {
      s.revisions.push_back(it.key());
      continue;
    }
    if (kinds.empty()) continue;
    if (kinds.front() == ValueKind::kRevision && d.date) continue;  // `since` a date, not a commit
    if (kinds.front() == ValueKind::kRevision) s.revisions.push_back(it.key());
    else if (std::find(kinds.begin(), kinds.end(), ValueKind::kRevision) != kinds.end()) maybe.push_back(it.key());
    else if (kinds.front() == ValueKind::kPath) s.paths.push_back(it.key());
  }
  if (!s.repositories.empty()) s.revisions.insert(s.revisions.end(), maybe.begin(), maybe.end());
  return s;
}

// `args` with `key` set to `value` when that keeps the call schema-valid (with_value's rule).
bool set_valid(const profile::SchemaValidator& v, json& args, const std::string& key, const json& value) {
  auto trial = with_value(v, args, key, value);
  if (trial) args = std::move(*trial);
  return trial.has_value();
}

// Every (commit, file it changed) of the history, newest commit first.
std::vector<std::pair<const WorkspaceCommit*, const std::string*>> changes(const Workspace& ws) {
  std::vector<std::pair<const WorkspaceCommit*, const std::string*>> out;
  for (const auto& c : ws.commits)
    for (const auto& f : c.files) out.emplace_back(&c, &f);
  return out;
}

// The revisions a parameter takes: any of the history's (values_of: the newest commits first), or
// the branches or the tags alone (revision_sort).
std::vector<json> revisions_for(const Workspace& ws, const std::string& key) {
  switch (revision_sort(key)) {
    case RevisionSort::kBranch: return {ws.branches.begin(), ws.branches.end()};
    case RevisionSort::kTag: return {ws.tags.begin(), ws.tags.end()};
    case RevisionSort::kAny: break;
  }
  return ws.values_of(ValueKind::kRevision);
}

}  // namespace

std::optional<json> ToolPlan::historied(const json& args, std::size_t k, const Harvest& harvest) const {
  const Workspace* ws = options_.workspace_values ? harvest.workspace() : nullptr;
  if (!validator_ || !ws || ws->commits.empty() || !args.is_object()) return std::nullopt;
  const HistorySlots slots = history_slots(properties_of(*schema_));
  if (slots.revisions.empty() && slots.repositories.empty()) return std::nullopt;
  json out = args;
  // The project itself: a subdirectory or "." may be another repository, or none, for the server.
  for (const auto& key : slots.repositories) set_valid(*validator_, out, key, ws->root);
  std::vector<std::string> commits;  // the revision parameters a commit id fits (not a branch's or a tag's)
  for (const auto& key : slots.revisions)
    if (revision_sort(key) == RevisionSort::kAny) commits.push_back(key);
  const auto pairs = slots.paths.empty() || commits.empty() ? decltype(changes(*ws)){} : changes(*ws);
  if (!pairs.empty() && k % 2 == 0) {
    // A commit and a file it changed; short ids in the first round over the pairs, full ids next.
    const std::size_t i = k / 2;
    const auto& [commit, file] = pairs[i % pairs.size()];
    const bool full = (i / pairs.size()) % 2 == 1;
    for (const auto& key : commits) set_valid(*validator_, out, key, full ? commit->id : commit->short_id);
    for (const auto& key : slots.paths) set_valid(*validator_, out, key, *file);
  } else {
    // The k-th revision; a range's two ends (`base`/`head`, `from`/`to`: in name order) two
    // different ones, the first one older (values_of puts the newest commits first).
    const std::size_t n = slots.revisions.size();
    for (std::size_t r = 0; r < n; ++r) {
      const std::vector<json> revisions = revisions_for(*ws, slots.revisions[r]);
      if (!revisions.empty())
        set_valid(*validator_, out, slots.revisions[r], revisions[(k + n - 1 - r) % revisions.size()]);
    }
  }
  if (out == args) return std::nullopt;
  return out;
}

}  // namespace ctxo::gen
