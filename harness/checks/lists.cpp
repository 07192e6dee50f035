// SPDX-License-Identifier: MIT
#include "checks/lists.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "core/text.h"

namespace ctxo::checks {

namespace {

std::string raw_of(const mcp::Reply& r) { return r.raw.empty() ? r.result.dump() : r.raw; }

Finding make(const std::string& id, const mcp::Reply& page, std::string diagnosis, std::string form,
             const std::string& list, Severity sev = Severity::kError) {
  Finding f;
  f.invariant = id;
  f.severity = sev;
  f.request = page.request;
  f.response_excerpt = excerpt(page.kind == mcp::Reply::Kind::kError ? page.error.dump() : raw_of(page), 400);
  f.diagnosis = std::move(diagnosis);
  f.cause = {{"form", std::move(form)}, {"list", list}};
  return f;
}

// What one item of a list is called in a sentence.
std::string item_word(const std::string& key) {
  if (key == "resources") return "resource";
  if (key == "resourceTemplates") return "resource template";
  if (key == "prompts") return "prompt";
  return "tool";
}

std::string quoted_list(const std::vector<std::string>& names, std::size_t shown = 5) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i ? ", \"" : "\"") + excerpt(names[i], 80) + "\"";
  if (names.size() > shown) out += " and " + std::to_string(names.size() - shown) + " more";
  return out;
}

std::string cursor_text(const json& request) {
  if (!request.is_object() || !request.contains("params") || !request["params"].is_object() ||
      !request["params"].contains("cursor") || !request["params"]["cursor"].is_string())
    return "";
  return request["params"]["cursor"].get<std::string>();
}

}  // namespace

void check_pagination(const mcp::Client::Listing& l, Outcomes& out) {
  const std::string& m = l.method;
  // A page that repeats items an earlier page listed: by identity (name, uri, uriTemplate). The
  // last page of a walk stopped on a stuck or looping cursor repeats because of that cursor, said
  // once below.
  std::map<std::string, std::size_t> first_page;
  const bool cursor_fault = l.cursor_stuck || l.cursor_loop;
  for (std::size_t p = 0; p < l.pages.size(); ++p) {
    const mcp::Reply& page = l.pages[p];
    if (page.kind != mcp::Reply::Kind::kResult || !page.result.is_object()) continue;
    auto it = page.result.find(l.key);
    if (it == page.result.end() || !it->is_array()) continue;
    std::vector<std::string> repeated;
    std::size_t earliest = p;
    for (const auto& item : *it) {
      std::string id = mcp::Client::item_identity(l.key, item);
      if (id.empty()) continue;
      auto [at, fresh] = first_page.emplace(id, p);
      if (!fresh && at->second < p) {
        earliest = std::min(earliest, at->second);
        repeated.push_back(std::move(id));
      }
    }
    if (repeated.empty() || (cursor_fault && p + 1 == l.pages.size())) continue;
    const std::string cur = cursor_text(page.request);
    out.push_back(make(
        "P-LIST", page,
        "page " + std::to_string(p + 1) + " of " + m + " (asked with cursor \"" + excerpt(cur, 60) + "\") lists " +
            std::to_string(repeated.size()) + " " + item_word(l.key) + (repeated.size() == 1 ? "" : "s") +
            " page " + std::to_string(earliest + 1) + " already listed (" + quoted_list(repeated) +
            "): a page must go on from where the cursor points, and a host that follows nextCursor shows each of "
            "them again, once per page (the model sees duplicates, and a host that keys them by name may refuse "
            "the server). Make the cursor point past the items already sent",
        "page-repeats-items", m));
  }
  if (l.pages.empty()) return;
  const mcp::Reply& last = l.pages.back();
  if (l.cursor_stuck) {
    const std::string cur = cursor_text(last.request);
    out.push_back(make("P-LIST", last,
                       m + " answered the cursor \"" + excerpt(cur, 60) + "\" with nextCursor \"" + excerpt(cur, 60) +
                           "\" again: the cursor does not advance, so a client that follows nextCursor (as hosts "
                           "do) asks for the same page without end, and a host that adds up the pages lists the "
                           "same items again and again" +
                           (cur.empty() ? " (an empty string is a cursor like any other, not the end of the list: "
                                          "omit nextCursor on the last page)"
                                        : "") +
                           ". Return the next page's cursor, or no nextCursor on the last page",
                       "cursor-stuck", m));
  }
  if (l.cursor_loop)
    out.push_back(make("P-LIST", last,
                       m + " pagination loops: nextCursor repeats a cursor already followed, so listing never ends",
                       "cursor-loop", m));
  if (l.page_limit)
    out.push_back(make("P-LIST", last,
                       m + " returned a nextCursor on " + std::to_string(l.pages.size()) +
                           " pages in a row; pagination does not terminate",
                       "endless", m));
  if (l.long_cursor > 0)
    out.push_back(make("P-LIST", last,
                       m + " returned a nextCursor of " + std::to_string(l.long_cursor) + " bytes on page " +
                           std::to_string(l.pages.size()) +
                           "; cursors are opaque tokens, and one this long costs every client that follows it its "
                           "size again on each page (the listing was not followed further)",
                       "long-cursor", m, Severity::kWarning));
}

Outcomes check_list(const mcp::Client::Listing& l) {
  Outcomes out;
  out.pass("P-LIST");
  const std::string& m = l.method;
  const std::string word = item_word(l.key);
  std::size_t index = 0;
  for (const auto& page : l.pages) {
    if (!page.transport_failure.empty()) continue;  // reported by the transport (T-HTTP-*)
    if (page.kind == mcp::Reply::Kind::kError) {
      // A server that declares resources may still not serve templates (no handler for them):
      // only resources/list and prompts/list are what the capability promises.
      if (m == "resources/templates/list") continue;
      out.push_back(make("P-LIST", page,
                         m + " was answered with a JSON-RPC error although the server declares the capability it "
                             "belongs to: a host lists them at connection and shows nothing (or gives up on the "
                             "server). Serve " + m + ", or do not declare the capability",
                         "error", m));
      continue;
    }
    if (page.kind != mcp::Reply::Kind::kResult) continue;  // T-HANG / T-CRASH
    const json& r = page.result;
    if (!r.is_object() || !r.contains(l.key) || !r[l.key].is_array()) {
      out.push_back(make("P-LIST", page, m + " result has no \"" + l.key + "\" array", "malformed", m));
      continue;
    }
    if (r.contains("nextCursor") && !r["nextCursor"].is_string())
      out.push_back(make("P-LIST", page, m + ": nextCursor is not a string; cursors are opaque strings", "malformed", m));
    std::vector<std::string> problems;
    std::size_t bad = 0;
    for (const auto& item : r[l.key]) {
      const std::string at = l.key + "[" + std::to_string(index++) + "]";
      std::string problem;
      auto has_string = [&](const char* field) { return item.contains(field) && item[field].is_string(); };
      if (!item.is_object()) problem = at + " is not an object";
      else if (l.key == "resources" && !has_string("uri")) problem = at + " has no string uri";
      else if (l.key == "resourceTemplates" && !has_string("uriTemplate")) problem = at + " has no string uriTemplate";
      else if (!has_string("name")) problem = at + " has no string name";
      if (problem.empty()) continue;
      ++bad;
      if (problems.size() < 3) problems.push_back(std::move(problem));
    }
    if (bad > 0) {
      std::string d = std::to_string(bad) + " " + word + (bad == 1 ? "" : "s") + " of " + m +
                      " lack what the schema requires (" +
                      (l.key == "resources"           ? "uri and name"
                       : l.key == "resourceTemplates" ? "uriTemplate and name"
                                                      : "name") +
                      "): ";
      for (std::size_t i = 0; i < problems.size(); ++i) d += (i ? "; " : "") + problems[i];
      out.push_back(make("P-LIST", page, d + ". A client that validates results refuses the whole page", "malformed", m));
    }
  }
  check_pagination(l, out);
  return out;
}

Outcomes check_invalid_cursor(const mcp::Reply& reply) {
  Outcomes out;
  out.pass("P-LIST");
  if (!reply.transport_failure.empty()) return out;
  const std::string m = reply.request.value("method", "");
  const std::string said = " with a cursor it never handed out (\"" + std::string(kInvalidCursor) + "\")";
  if (reply.kind == mcp::Reply::Kind::kResult) {
    out.push_back(make("P-LIST", reply,
                       m + said +
                           " was answered with a page, not an error: invalid cursors SHOULD be answered with -32602 "
                           "(Invalid params). A client holding a stale or damaged cursor is given a page that "
                           "continues nothing, with no sign of it. Check the cursor and answer -32602 when it names "
                           "no position",
                       "invalid-cursor-accepted", m, Severity::kWarning));
  } else if (reply.kind == mcp::Reply::Kind::kError) {
    const json code = reply.error.is_object() ? reply.error.value("code", json()) : json();
    if (code != -32602)
      out.push_back(make("P-LIST", reply,
                         m + said + " was answered with error code " + code.dump() +
                             ": invalid cursors SHOULD be answered with -32602 (Invalid params), which clients read "
                             "as \"start the listing again\"; another code reads as the server failing",
                         "invalid-cursor-code", m, Severity::kWarning));
  }
  return out;
}

std::vector<ToolPrint> tool_prints(const mcp::Client::Listing& listing) {
  std::vector<ToolPrint> out;
  for (const auto& page : listing.pages) {
    if (page.kind != mcp::Reply::Kind::kResult || !page.result.is_object()) continue;
    auto it = page.result.find("tools");
    if (it == page.result.end() || !it->is_array()) continue;
    for (const auto& t : *it) {
      if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
      // Hashed in place (nlohmann's structural hash), not dumped: a schema can be megabytes.
      std::uint64_t print = 0;
      for (const char* k : {"title", "description", "inputSchema", "outputSchema", "annotations"}) {
        auto field = t.find(k);
        print = print * 1099511628211ull + (field == t.end() ? 0 : std::hash<json>{}(*field) + 1);
      }
      out.push_back(ToolPrint{t["name"].get<std::string>(), print});
    }
  }
  return out;
}

Outcomes check_relisting(const std::vector<ToolPrint>& before, const std::vector<ToolPrint>& after,
                         const json& request, const std::string& era, bool notified, const std::string& after_what,
                         bool notices_seen) {
  Outcomes out;
  out.pass("P-RELIST");
  if (notified) return out;  // the server said its list changed: whatever it lists now is its news
  std::map<std::string, std::uint64_t> was, now;
  for (const auto& t : before) was.emplace(t.name, t.print);
  for (const auto& t : after) now.emplace(t.name, t.print);
  std::vector<std::string> added, removed, changed;
  for (const auto& [name, print] : now) {
    auto it = was.find(name);
    if (it == was.end()) added.push_back(name);
    else if (it->second != print) changed.push_back(name);
  }
  for (const auto& [name, print] : was)
    if (!now.count(name)) removed.push_back(name);
  mcp::Reply page;
  page.request = request;
  auto finding = [&](std::string d, std::string form, Severity sev) {
    Finding f = make("P-RELIST", page, std::move(d), std::move(form), "tools/list", sev);
    f.response_excerpt.clear();
    return f;
  };
  if (!added.empty() || !removed.empty() || !changed.empty()) {
    // A notification the client could not have seen (an HTTP server's standalone stream, which is
    // not opened) may have been sent: before 2026-07-28 a change is then no evidence of anything.
    if (!notices_seen && era != "modern") return out;
    std::string what;
    auto part = [&](const char* label, const std::vector<std::string>& names) {
      if (!names.empty()) what += (what.empty() ? "" : "; ") + std::string(label) + " " + quoted_list(names);
    };
    part("added", added);
    part("removed", removed);
    part("changed (description, title, schemas or annotations)", changed);
    Finding f = era == "modern"
                    ? finding("tools/list asked again after " + after_what + " lists other tools than before (" + what +
                                  "). In 2026-07-28 the set of tools MUST NOT vary as a side effect of other requests "
                                  "on the connection: a host that listed the tools once goes on offering the model "
                                  "tools that are gone, or never the new ones. Keep the listing independent of the "
                                  "calls made",
                              "changed-by-requests", Severity::kError)
                    : finding("tools/list asked again after " + after_what + " lists other tools than before (" + what +
                                  "), and the server sent no notifications/tools/list_changed in between: hosts list "
                                  "tools once and keep that list until the server says it changed, so the model goes "
                                  "on calling tools that are gone, or never sees the new ones. Send "
                                  "notifications/tools/list_changed (and declare tools.listChanged) when the list "
                                  "changes, or keep it fixed",
                              "changed-without-notification", Severity::kError);
    f.response_excerpt = excerpt(what, 400);
    out.push_back(std::move(f));
    return out;
  }
  bool reordered = before.size() == after.size();
  if (reordered) {
    reordered = false;
    for (std::size_t i = 0; i < before.size(); ++i) reordered = reordered || before[i].name != after[i].name;
  }
  if (reordered) {
    std::vector<std::string> first, second;
    for (std::size_t i = 0; i < before.size() && first.size() < 5; ++i)
      if (before[i].name != after[i].name) {
        first.push_back(before[i].name);
        second.push_back(after[i].name);
      }
    Finding f = finding("tools/list asked again after " + after_what +
                            " lists the same tools in another order (" + quoted_list(first) + " then " +
                            quoted_list(second) +
                            " at the same places): servers SHOULD list tools in a deterministic order, which hosts "
                            "rely on to cache the list and the model's prompt. Sort the tools, or keep the order they "
                            "were registered in",
                        "order-unstable", Severity::kWarning);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ctxo::checks
