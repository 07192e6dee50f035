// SPDX-License-Identifier: MIT
// What a tool's and an argument's names say about a lookup of several items (issue 42): the one
// word rule both the generator (ToolPlan::several: which argument to give several items) and the
// check (TR-COUNT named-items-missing: which requests to hold to it) go by.
#pragma once

#include <string>

namespace ctxo {

/// An array argument that names the items to return: its name ends in ids, names or keys (`ids`,
/// `taskIds`, `entity_names`, `uuids`; not `paths`, `tags`, `fields`).
bool names_items(const std::string& argument);
/// A string argument that may hold several ids, comma-separated: `id`, `ids`, `taskId`, `task_ids`
/// (not `valid`, `paid`).
bool takes_ids(const std::string& argument);
/// A tool that looks items up: no word of its name (snake, kebab or camel case) says it lists,
/// searches, filters, queries, counts or changes things (`list_issues {labelNames}`: the labels
/// filter; `delete_entities {entityNames}`: the names are targets).
bool lookup_tool(const std::string& tool);
/// `argument` names the things `tool` is about: `ids`, `names`, `keys` or `id` alone, or a noun
/// the tool's name holds (`get_tasks {taskIds}`, `open_nodes {nodeNames}`; not
/// `get_issues {labelNames}`).
bool about_the_tool(const std::string& argument, const std::string& tool);

}  // namespace ctxo
