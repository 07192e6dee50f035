// SPDX-License-Identifier: MIT
// The lists a server gives and their pagination (P-LIST: tools/list's walk, resources/list,
// resources/templates/list, prompts/list, an invalid cursor), and a tools/list asked again after
// the calls (P-RELIST). Pure functions from the pages the client walked to findings; tools/list's
// items themselves are check_tools_list's (protocol.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/outcome.h"
#include "mcp/client.h"

namespace ctxo::checks {

using nlohmann::json;

/// The cursor sent once to a list that paginated, to see it refused (pagination §Error Handling:
/// "Invalid cursors SHOULD result in an error with code -32602"). Fixed, so a run is repeatable and
/// `check` tells the probe apart in a transcript.
inline constexpr const char* kInvalidCursor = "ctxo-conform:not-a-cursor:7f3a9c";

/// P-LIST's pagination findings on any list walk, added to `out`: a nextCursor handed back as it
/// was sent (`cursor-stuck`), one repeating an earlier cursor (`cursor-loop`), a walk past the page
/// bound (`endless`), an over-long cursor (`long-cursor`, warning), and a page listing items an
/// earlier page listed (`page-repeats-items`, by name, uri or uriTemplate). Each with cause key
/// `list` (the method).
void check_pagination(const mcp::Client::Listing& listing, Outcomes& out);

/// P-LIST over every page of resources/list, resources/templates/list or prompts/list: a result
/// object with its array, string cursors, and each item as the schema requires it (a resource's uri
/// and name, a template's uriTemplate and name, a prompt's name), then check_pagination.
Outcomes check_list(const mcp::Client::Listing& listing);

/// P-LIST (warning) on the answer to one request of a list that paginated, sent kInvalidCursor:
/// answered with a page (`invalid-cursor-accepted`) or with an error other than -32602
/// (`invalid-cursor-code`). A timeout or an exit is the engine's (T-HANG, T-CRASH).
Outcomes check_invalid_cursor(const mcp::Reply& reply);

/// One listed tool as a relisting compares it: its name and a hash of what a host shows the model
/// of it (title, description, inputSchema, outputSchema, annotations; not `_meta`).
struct ToolPrint {
  std::string name;
  std::uint64_t print = 0;
};
/// The tools of a tools/list walk's pages, in order.
std::vector<ToolPrint> tool_prints(const mcp::Client::Listing& listing);

/// P-RELIST: `after`, a tools/list asked again after `after_what` (whose first page asked
/// `request`), against `before`, the listing before it on the same server instance. A different
/// set (tools added, removed, or their description or schemas changed) is an error when the server
/// sent no notifications/tools/list_changed between the two (`notified`): `changed-by-requests`
/// in the 2026-07-28 era (the set MUST NOT vary as a side effect of other requests),
/// `changed-without-notification` before it; the same set in another order is a warning
/// (`order-unstable`: tools SHOULD be listed in a deterministic order). Nothing when notified.
/// `notices_seen` false (Streamable HTTP: notifications unrelated to a request go to the GET
/// stream, which the client does not open): a changed set is not reported before 2026-07-28.
Outcomes check_relisting(const std::vector<ToolPrint>& before, const std::vector<ToolPrint>& after,
                         const nlohmann::json& request, const std::string& era, bool notified,
                         const std::string& after_what, bool notices_seen = true);

}  // namespace ctxo::checks
