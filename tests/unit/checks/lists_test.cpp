// SPDX-License-Identifier: MIT
// The list checks (issue 44): P-LIST's pagination forms on every list, the invalid cursor, the
// other lists' items, and P-RELIST's comparison of two tools/list walks. Each form fires on its
// planted defect and stays quiet on the conformant twin.
#include "checks/lists.h"

#include <gtest/gtest.h>

#include <set>

#include "checks/protocol.h"

namespace ctxo::checks {
namespace {

mcp::Reply page(const std::string& method, json result, json cursor = nullptr) {
  mcp::Reply r;
  r.kind = mcp::Reply::Kind::kResult;
  r.request = {{"jsonrpc", "2.0"}, {"id", 2}, {"method", method}, {"params", json::object()}};
  if (!cursor.is_null()) r.request["params"]["cursor"] = cursor;
  r.result = std::move(result);
  return r;
}

json tool(const std::string& name, const std::string& description = "d") {
  return {{"name", name}, {"description", description}, {"inputSchema", {{"type", "object"}}}};
}

// "form list severity" of each finding.
std::set<std::string> forms(const Outcomes& o) {
  std::set<std::string> out;
  for (const auto& f : o) {
    auto form = f.cause.find("form");
    auto list = f.cause.find("list");
    out.insert(f.invariant + " " + (form == f.cause.end() ? "" : form->second) + " " +
               (list == f.cause.end() ? "" : list->second) + (f.severity == Severity::kWarning ? " (w)" : ""));
  }
  return out;
}

mcp::Client::Listing tools_in_pages(std::vector<json> pages_tools) {
  mcp::Client::Listing l;
  json cursor;
  for (std::size_t i = 0; i < pages_tools.size(); ++i) {
    json result = {{"tools", pages_tools[i]}};
    if (i + 1 < pages_tools.size()) result["nextCursor"] = "p" + std::to_string(i + 1);
    l.pages.push_back(page("tools/list", result, cursor));
    cursor = "p" + std::to_string(i + 1);
  }
  l.paginated = pages_tools.size() > 1;
  return l;
}

TEST(ListPagination, ConformantPagesAreQuiet) {
  auto l = tools_in_pages({json::array({tool("a"), tool("b")}), json::array({tool("c")})});
  EXPECT_TRUE(check_tools_list(l, "legacy").empty());
}

TEST(ListPagination, APageRepeatingAnEarlierPagesItemsIsOneFindingPerPage) {
  auto l = tools_in_pages({json::array({tool("a"), tool("b")}), json::array({tool("b"), tool("c")})});
  EXPECT_EQ(forms(check_tools_list(l, "legacy")), (std::set<std::string>{"P-LIST page-repeats-items tools/list"}));
  // The same name twice on one page is the listing's own rule, not a page repeat.
  auto same = tools_in_pages({json::array({tool("a"), tool("a")})});
  auto found = check_tools_list(same, "legacy");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found.begin()->cause.empty());
}

TEST(ListPagination, StuckAndLoopingCursorsAreNamed) {
  auto l = tools_in_pages({json::array({tool("a")}), json::array({tool("b")})});
  l.pages[1].result["nextCursor"] = "p1";
  l.cursor_stuck = true;
  EXPECT_EQ(forms(check_tools_list(l, "legacy")), (std::set<std::string>{"P-LIST cursor-stuck tools/list"}));
  // A stuck cursor whose last page repeats page 1 is one finding, the cursor's.
  l.pages[1].result["tools"] = json::array({tool("a")});
  EXPECT_EQ(forms(check_tools_list(l, "legacy")), (std::set<std::string>{"P-LIST cursor-stuck tools/list"}));
  l.cursor_stuck = false;
  l.cursor_loop = true;
  EXPECT_EQ(forms(check_tools_list(l, "legacy")), (std::set<std::string>{"P-LIST cursor-loop tools/list"}));
  l.cursor_loop = false;
  l.page_limit = true;
  Outcomes o;
  check_pagination(l, o);
  EXPECT_TRUE(forms(o).count("P-LIST endless tools/list"));
}

TEST(ListPagination, EmptyStringCursorStuckSaysItIsACursor) {
  mcp::Client::Listing l;
  l.pages.push_back(page("prompts/list", {{"prompts", json::array({{{"name", "p"}}})}, {"nextCursor", ""}}));
  l.pages.push_back(page("prompts/list", {{"prompts", json::array({{{"name", "q"}}})}, {"nextCursor", ""}}, ""));
  l.method = "prompts/list";
  l.key = "prompts";
  l.cursor_stuck = true;
  auto o = check_list(l);
  EXPECT_EQ(forms(o), (std::set<std::string>{"P-LIST cursor-stuck prompts/list"}));
  EXPECT_NE(o.begin()->diagnosis.find("an empty string is a cursor"), std::string::npos);
}

TEST(OtherLists, ItemsAreHeldToTheSchemasRequiredFields) {
  mcp::Client::Listing l;
  l.method = "resources/list";
  l.key = "resources";
  l.pages.push_back(page("resources/list", {{"resources", json::array({{{"uri", "mem://a"}, {"name", "a"}}})}}));
  EXPECT_TRUE(check_list(l).empty());
  l.pages[0].result["resources"].push_back({{"name", "no-uri"}});
  l.pages[0].result["resources"].push_back({{"uri", "mem://no-name"}});
  auto o = check_list(l);
  EXPECT_EQ(forms(o), (std::set<std::string>{"P-LIST malformed resources/list"}));
  EXPECT_EQ(o.size(), 1u);  // one finding for the page, naming the items
  // Templates: uriTemplate and name; an error there is not judged (templates may be unserved).
  mcp::Client::Listing t;
  t.method = "resources/templates/list";
  t.key = "resourceTemplates";
  t.pages.push_back(page("resources/templates/list", {{"resourceTemplates", json::array({{{"uriTemplate", "x://{a}"}, {"name", "x"}}})}}));
  EXPECT_TRUE(check_list(t).empty());
  t.pages[0].kind = mcp::Reply::Kind::kError;
  t.pages[0].error = {{"code", -32601}, {"message", "Method not found"}};
  EXPECT_TRUE(check_list(t).empty());
  l.pages[0].kind = mcp::Reply::Kind::kError;
  l.pages[0].error = {{"code", -32601}, {"message", "Method not found"}};
  EXPECT_EQ(forms(check_list(l)), (std::set<std::string>{"P-LIST error resources/list"}));
}

TEST(InvalidCursor, OnlyMinus32602IsQuiet) {
  mcp::Reply r = page("tools/list", {{"tools", json::array({tool("a")})}}, kInvalidCursor);
  EXPECT_EQ(forms(check_invalid_cursor(r)), (std::set<std::string>{"P-LIST invalid-cursor-accepted tools/list (w)"}));
  r.kind = mcp::Reply::Kind::kError;
  r.error = {{"code", -32602}, {"message", "invalid cursor"}};
  EXPECT_TRUE(check_invalid_cursor(r).empty());
  r.error = {{"code", -32603}, {"message", "boom"}};
  EXPECT_EQ(forms(check_invalid_cursor(r)), (std::set<std::string>{"P-LIST invalid-cursor-code tools/list (w)"}));
  r.kind = mcp::Reply::Kind::kTimeout;
  EXPECT_TRUE(check_invalid_cursor(r).empty());  // T-HANG's
}

std::vector<ToolPrint> prints(json tools) {
  return tool_prints(tools_in_pages({std::move(tools)}));
}

TEST(Relisting, ChangesWithoutANotificationAreReported) {
  const json req = {{"method", "tools/list"}};
  auto before = prints(json::array({tool("a"), tool("b")}));
  EXPECT_TRUE(check_relisting(before, before, req, "legacy", false, "the calls").empty());
  auto grown = prints(json::array({tool("a"), tool("b"), tool("c")}));
  EXPECT_EQ(forms(check_relisting(before, grown, req, "legacy", false, "the calls")),
            (std::set<std::string>{"P-RELIST changed-without-notification tools/list"}));
  EXPECT_EQ(forms(check_relisting(before, grown, req, "modern", false, "the calls")),
            (std::set<std::string>{"P-RELIST changed-by-requests tools/list"}));
  EXPECT_TRUE(check_relisting(before, grown, req, "legacy", true, "the calls").empty());  // it said so
  // Over HTTP a notification may have gone to the GET stream, which is not opened: no accusation
  // before 2026-07-28, where the change itself is the breach.
  EXPECT_TRUE(check_relisting(before, grown, req, "legacy", false, "the calls", false).empty());
  EXPECT_EQ(check_relisting(before, grown, req, "modern", false, "the calls", false).size(), 1u);
  auto described = prints(json::array({tool("a", "other"), tool("b")}));
  EXPECT_EQ(check_relisting(before, described, req, "legacy", false, "the calls").size(), 1u);
  auto reordered = prints(json::array({tool("b"), tool("a")}));
  EXPECT_EQ(forms(check_relisting(before, reordered, req, "legacy", false, "the calls")),
            (std::set<std::string>{"P-RELIST order-unstable tools/list (w)"}));
  // _meta is not what a host shows the model: a change there is no change.
  json with_meta = json::array({tool("a"), tool("b")});
  with_meta[0]["_meta"] = {{"at", 12345}};
  EXPECT_TRUE(check_relisting(before, prints(with_meta), req, "legacy", false, "the calls").empty());
}

}  // namespace
}  // namespace ctxo::checks
