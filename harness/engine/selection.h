// SPDX-License-Identifier: MIT
// Which listed tools a run calls, and in which order: --tools/--exclude-tools globs, --read-only,
// --shard, a replayed case's tool. Pure functions of the listing and the options: no server.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/options.h"
#include "engine/report.h"

namespace ctxo::engine {

/// Shell-style glob match ('*' and '?').
bool glob_match(std::string_view pattern, std::string_view text);

/// The tool carries annotations.readOnlyHint: true.
bool annotated_read_only(const nlohmann::json& tool);
/// Annotated readOnlyHint or idempotentHint: a tool hosts call in parallel (P-CONCURRENT).
bool annotated_parallel_safe(const nlohmann::json& tool);

/// A required property of the tool's inputSchema names an identifier (gen::identifier_like), or
/// is a SQL statement (a `sql` parameter, or the query of a tool that runs SQL: gen::runs_sql):
/// its calls need values other tools' answers give, so it runs in the second phase.
bool needs_identifier(const nlohmann::json& tool);

struct ToolSelection {
  /// A row per listed tool with a name, in name order (a name listed twice: its first entry),
  /// `selected` and `skipped` saying whether and why not it is called.
  std::vector<ToolSummary> rows;
  /// The tools to call (pointing into the listing), in name order.
  std::vector<const nlohmann::json*> selected;
};

/// Applies the options to `listed` (tools/list's tools, as listed). Shards split the eligible
/// tools by sorted name, i mod N.
ToolSelection select_tools(const std::vector<nlohmann::json>& listed, const RunOptions& options);

/// The note naming the tools not called for safety (no sandbox: `no_sandbox` says why) and how
/// to call them; nullopt when there are none.
std::optional<std::string> safety_note(const std::vector<ToolSummary>& rows, const std::string& no_sandbox);

/// The note naming the selected tools not annotated read-only, which the run will call; nullopt
/// when there are none.
std::optional<std::string> writers_note(const std::vector<ToolSummary>& rows);

}  // namespace ctxo::engine
