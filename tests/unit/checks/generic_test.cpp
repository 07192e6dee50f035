// SPDX-License-Identifier: MIT
// The generic reading of an answer no profile matched (issue 29) and the generic truncation rules
// on it: TR-HINT (a more-flag with no way on), TR-COUNT per answer (counts against the list) and
// across calls (a "no more" at a small limit while a larger limit returns more). Every finding
// says profile "generic"; answers that say nothing, or say it right, are not findings.
#include "checks/generic.h"

#include <gtest/gtest.h>

#include "listed_call_util.h"

#include <string>
#include <set>
#include <vector>

namespace ctxo::checks {
namespace {

using nlohmann::json;

GenericAnswer read(const std::string& text) { return read_answer(std::vector<std::string>{text}, nullptr); }

const Vocabulary& vocab() {
  const auto& v = builtin_vocabulary();
  EXPECT_TRUE(v.ok()) << (v ? "" : v.error().message);
  return *v;
}

json request(const json& args = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"}, {"params", {{"name", "t"}, {"arguments", args}}}};
}

Outcomes check(const std::string& text, const json& args = json::object()) {
  return check_generic(read(text), vocab(), request(args), text);
}

std::vector<std::string> ids(const Outcomes& o) {
  std::vector<std::string> out;
  for (const auto& f : o) out.push_back(f.invariant);
  return out;
}

// ----- Readings ----------------------------------------------------------------------------------

TEST(GenericReading, EachWayAnAnswerIsRead) {
  EXPECT_EQ(read(R"({"a":[1,2]})").reading, Reading::kJson);
  EXPECT_EQ(read(R"(  [1, 2, 3]  )").reading, Reading::kJson);
  auto footer = read("{\"results\":[1]}\n\n---\n**Next:** open one with `read`");
  EXPECT_EQ(footer.reading, Reading::kJsonMarkdown);
  EXPECT_EQ(*footer.data, json::parse(R"({"results":[1]})"));
  EXPECT_EQ(footer.rest, "---\n**Next:** open one with `read`");
  auto fenced = read("Results:\n```json\n{\"items\": [\"a\", \"b\"]}\n```\nDone.");
  EXPECT_EQ(fenced.reading, Reading::kFencedJson);
  EXPECT_EQ((*fenced.data)["items"].size(), 2u);
  EXPECT_EQ(fenced.rest, "Results:\nDone.");
  auto md = read("## Matches (3)\n\n- a\n- b\n  - nested\n- c\n");
  EXPECT_EQ(md.reading, Reading::kMarkdown);
  EXPECT_EQ(md.markdown.list_items, 3u);
  EXPECT_EQ(md.markdown.headings, 1u);
  ASSERT_EQ(md.markdown.heading_counts.size(), 1u);
  EXPECT_EQ(md.markdown.heading_counts[0], 3);
  EXPECT_EQ(read("The build passed.").reading, Reading::kProse);
  EXPECT_EQ(read("  \n").reading, Reading::kNone);
  // A JSON string or number is not the answer's data.
  EXPECT_EQ(read("\"just a string\"").reading, Reading::kProse);
  // Braces in prose are not JSON.
  EXPECT_EQ(read("{ this is not json } and more").reading, Reading::kProse);
}

TEST(GenericReading, StructuredContentFirstAndOtherPartsAreTheRest) {
  json sc = {{"items", {1, 2}}};
  auto a = read_answer(std::vector<std::string>{sc.dump(), "Use offset 2 for more."}, &sc);
  EXPECT_EQ(a.reading, Reading::kJson);
  EXPECT_EQ(a.where, "structuredContent");
  EXPECT_EQ(a.rest, "Use offset 2 for more.");
  auto b = read_answer(std::vector<std::string>{"Here you go:", R"({"x":1})"}, nullptr);
  EXPECT_EQ(b.reading, Reading::kJson);
  EXPECT_EQ(b.where, "text part 2");
  EXPECT_EQ(b.rest, "Here you go:");
}

TEST(GenericReading, MarkdownTablesCountBodyRows) {
  auto m = markdown_shape("| name | kind |\n|---|---|\n| a | fn |\n| b | fn |\n```\n- not an item\n```\n");
  EXPECT_EQ(m.table_rows, 2u);
  EXPECT_EQ(m.list_items, 0u);
  EXPECT_EQ(m.items(), 2u);
}

TEST(Vocabulary, IsDataCheckedAgainstItsSchema) {
  const Vocabulary& v = vocab();
  EXPECT_NE(std::find(v.more_flags.begin(), v.more_flags.end(), "moreAvailable"), v.more_flags.end());
  EXPECT_FALSE(load_vocabulary(json{{"vocabularyFormat", 1}}).ok());
  json doc = {{"vocabularyFormat", 1},
              {"moreFlags", {"truncated"}},
              {"waysOn", {{"fields", json::array()}, {"together", json::array()}, {"hints", json::array()}, {"footer", json::array()}}},
              {"counts", {{"returned", json::array()}, {"total", json::array()}, {"either", json::array()}}},
              {"prose", {{"found", {"found (\\d+)"}}, {"showing", json::array()}, {"more", json::array()}}},
              {"pages", json::array()}};
  EXPECT_TRUE(load_vocabulary(doc).ok());
  doc["prose"]["found"] = {"found \\d+"};  // no capture group
  EXPECT_FALSE(load_vocabulary(doc).ok());
  doc["prose"]["found"] = {"found (?=x)(\\d+)"};  // lookahead: not RE2
  EXPECT_FALSE(load_vocabulary(doc).ok());
}

// ----- TR-HINT ------------------------------------------------------------------------------------

TEST(GenericTrHint, NestedFlagWithNoWayOnIsAFinding) {
  auto o = check("{\"results\":[1,2],\"pagination\":{\"truncated\":true}}\n\n---\n**Next:** open a result with `read`.");
  ASSERT_EQ(ids(o), std::vector<std::string>{"TR-HINT"});
  EXPECT_EQ(o[0].profile, "generic");
  EXPECT_NE(o[0].diagnosis.find("`pagination.truncated` is true"), std::string::npos) << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("JSON+Markdown"), std::string::npos) << o[0].diagnosis;
  EXPECT_EQ(o.status("TR-HINT"), Status::kFailed);
}

TEST(GenericTrHint, AnyWayOnHolds) {
  for (const char* t : {R"({"items":[1],"hasMore":true,"nextCursor":"abc"})",
                        R"({"items":[1],"has_more":true,"next_offset":1})",
                        R"({"items":[1],"truncated":true,"offset":0,"limit":1})",
                        R"({"items":[1],"meta":{"truncated":true,"hint":"narrow the query"}})",
                        "{\"items\":[1],\"truncated\":true}\n\nUse `offset: 1` to see more results."}) {
    SCOPED_TRACE(t);
    auto o = check(t);
    EXPECT_TRUE(o.empty()) << o[0].diagnosis;
    EXPECT_EQ(o.status("TR-HINT"), Status::kPassed);
  }
}

TEST(GenericTrHint, FlagsInsideItemsAndFalseFlagsAreNotTheList) {
  auto o = check(R"({"files":[{"path":"a","content":"…","truncated":true}]})");
  EXPECT_TRUE(o.empty());
  EXPECT_EQ(o.status("TR-HINT"), Status::kNotObserved);
  EXPECT_TRUE(check(R"({"items":[],"truncated":false})").empty());
  EXPECT_TRUE(check(R"({"items":[],"truncated":"yes"})").empty());  // not a boolean
}

// ----- TR-COUNT per answer ------------------------------------------------------------------------

TEST(GenericTrCount, CountsThatContradictTheList) {
  auto a = check(R"({"results":[1,2,3],"returned":5})");
  ASSERT_EQ(ids(a), std::vector<std::string>{"TR-COUNT"});
  EXPECT_EQ(a[0].profile, "generic");
  EXPECT_NE(a[0].diagnosis.find("`returned` says 5"), std::string::npos) << a[0].diagnosis;
  auto b = check(R"({"results":[1,2,3],"pagination":{"total":2}})");
  ASSERT_EQ(ids(b), std::vector<std::string>{"TR-COUNT"});
  EXPECT_NE(b[0].diagnosis.find("`pagination.total` is 2"), std::string::npos) << b[0].diagnosis;
  auto c = check(R"({"events":[1,2],"total":40,"hasMore":false})");
  ASSERT_EQ(ids(c), std::vector<std::string>{"TR-COUNT"});
  EXPECT_NE(c[0].diagnosis.find("silently omitted"), std::string::npos) << c[0].diagnosis;
  auto d = check("{\"items\":[1,2]}\n\nShowing 5 of 40 results.");
  ASSERT_EQ(ids(d), std::vector<std::string>{"TR-COUNT"});
  auto e = check("Showing 9 of 4 matches:\n- a\n- b");
  ASSERT_EQ(ids(e), std::vector<std::string>{"TR-COUNT"});
  auto f = check(R"({"count":1,"items":[1,2],"hasMore":false})");
  ASSERT_EQ(ids(f), std::vector<std::string>{"TR-COUNT"});
  auto g = check(R"({"items":[1,2,3],"meta":{"count":1}})");
  ASSERT_EQ(ids(g), std::vector<std::string>{"TR-COUNT"});
}

TEST(GenericTrCount, ConsistentOrAmbiguousCountsAreNotFindings) {
  for (const char* t : {R"({"results":[1,2,3],"returned":3,"total":40,"hasMore":true,"nextOffset":3})",
                        R"({"count":40,"items":[1,2]})",                      // count may be the total
                        R"({"order":{"total":3,"lines":[1,2,3,4]}})",          // a price, not a count
                        R"({"word":"x","count":1,"positions":[3,8]})",         // occurrences, not a page
                        R"({"a":[1,2],"b":[1,2,3],"total":2})",               // which list?
                        R"({"events":[1,2],"total":40,"hasMore":false,"offset":38})",  // the last page
                        R"({"items":[1,2],"total":2,"hasMore":false})",
                        "Found 38 symbols (showing 2 of 38):\n- a\n- b"}) {
    SCOPED_TRACE(t);
    auto o = check(t);
    EXPECT_TRUE(o.empty()) << o[0].diagnosis;
  }
  // The last page asked for by the arguments.
  EXPECT_TRUE(check(R"({"events":[1,2],"total":40,"hasMore":false})", json{{"offset", 38}}).empty());
  EXPECT_EQ(check(R"({"x":1})").status("TR-COUNT"), Status::kNotObserved);
  EXPECT_EQ(check(R"({"items":[1],"total":1,"hasMore":false})").status("TR-COUNT"), Status::kPassed);
  // A bare `total` beside a list that does not read as a page of results is not compared.
  EXPECT_EQ(check(R"({"items":[1],"total":1})").status("TR-COUNT"), Status::kNotObserved);
}

// mcp-memory-keeper 0.14.1's `context_get`: `truncated` only says the page was not cut to fit its
// token budget; `hasMore`, `nextOffset` and the total say there is more. A false flag that the rest
// of the answer contradicts claims nothing, per answer and across calls; alone, it still does.
TEST(GenericTrCount, AFalseFlagContradictedByTheAnswerClaimsNothing) {
  const char* keeper =
      R"({"items":[{"key":"a"}],"pagination":{"total":3,"returned":1,"hasMore":true,"nextOffset":1,"truncated":false}})";
  for (const char* t : {keeper,
                        R"({"items":[1,2],"pagination":{"total":40,"truncated":false,"nextOffset":2}})",  // a next page
                        R"({"items":[1,2],"total":40,"truncated":false,"has_more":true,"next_cursor":"c2"})",
                        "{\"items\":[1,2],\"total\":40,\"truncated\":false}\n\n38 more results: pass offset 2."}) {
    SCOPED_TRACE(t);
    auto o = check(t);
    EXPECT_TRUE(o.empty()) << o[0].diagnosis;
    EXPECT_EQ(list_facts(read(t), vocab()).says_complete(), "");
  }
  EXPECT_EQ(check(keeper).status("TR-COUNT"), Status::kPassed);  // its counts were compared, and agree
  EXPECT_EQ(check(keeper).status("TR-HINT"), Status::kPassed);    // `hasMore` true, and a way on
  // A null next page names none: the false flag stands against the count.
  auto alone = check(R"({"items":[1,2],"pagination":{"total":40,"truncated":false,"nextOffset":null}})");
  ASSERT_EQ(ids(alone), std::vector<std::string>{"TR-COUNT"});
  EXPECT_NE(alone[0].diagnosis.find("`pagination.truncated` is false"), std::string::npos) << alone[0].diagnosis;
  EXPECT_EQ(list_facts(read(R"({"items":[1],"truncated":false})"), vocab()).says_complete(), "`truncated` is false");
}

// ----- TR-COUNT: the items a request named ---------------------------------------------------------

// The answer to `tool` (a lookup by default) called with `args`.
Outcomes lookup(const std::string& text, const json& args, const std::string& tool = "get_tasks") {
  json r = request(args);
  r["params"]["name"] = tool;
  return check_generic(read(text), vocab(), r, text);
}

TEST(GenericNamed, ItemsNamedAndNotAnsweredAreFound) {
  const json three = {{"ids", {"T1", "T2", "T1999"}}};
  auto o = lookup(R"({"tasks":[{"id":"T1","title":"a"},{"id":"T2","title":"b"}]})", three);
  ASSERT_EQ(ids(o), std::vector<std::string>{"TR-COUNT"});
  EXPECT_EQ(o[0].cause.at("form"), "named-items-missing");
  EXPECT_EQ(o[0].cause.at("field"), "ids");
  EXPECT_NE(o[0].diagnosis.find("the answer has T1, T2 but not a word on T1999"), std::string::npos) << o[0].diagnosis;
  // Comma-separated ids in a string named like an id, answered in Markdown.
  auto md = lookup("## T1: a\n\nStatus: done\n\n## T4: d\n", json{{"taskId", "T1, T4,T99"}}, "show_task");
  ASSERT_EQ(ids(md), std::vector<std::string>{"TR-COUNT"});
  EXPECT_NE(md[0].diagnosis.find("not a word on T99"), std::string::npos) << md[0].diagnosis;
  // Names, in prose; numbers.
  EXPECT_EQ(ids(lookup("groceries: milk", json{{"entityNames", {"groceries", "books"}}}, "open_entities")), std::vector<std::string>{"TR-COUNT"});
  EXPECT_EQ(ids(lookup(R"({"issues":[{"number":12}]})", json{{"issueIds", {12, 13}}}, "getIssues")), std::vector<std::string>{"TR-COUNT"});
}

TEST(GenericNamed, AnswersThatAccountForEachItemOrMayAreNotFindings) {
  const json three = {{"ids", {"T1", "T2", "T1999"}}};
  for (const char* t : {
           R"({"tasks":[{"id":"T1"},{"id":"T2"}],"notFound":["T1999"]})",              // named
           R"({"tasks":[{"id":"T1"},{"id":"T2"}],"message":"1 id was not found"})",    // said, not named
           R"({"tasks":[{"id":"T1"},{"id":"T2"}],"errors":[]})",                       // an errors field
           R"({"tasks":[{"id":"t1"},{"id":"t2"},{"id":"t1999"}]})",                    // case differs
           R"({"tasks":[{"id":"T1"},{"id":"T2"}],"truncated":true,"nextCursor":"x"})", // a cut
           R"({"tasks":[{"id":"a"},{"id":"b"},{"id":"c"}]})",                          // as many entries as names
           "3 of them exist",                                                          // names none: not a lookup
           "T1: ok\nT2: ok\nT1999: there is no such task",
       }) {
    SCOPED_TRACE(t);
    auto o = lookup(t, three);
    EXPECT_TRUE(o.empty()) << o[0].diagnosis;
  }
  // An item's own text may say "error": in JSON only the text outside the lists can account.
  EXPECT_EQ(ids(lookup(R"({"tasks":[{"id":"T1","title":"Fix the error"}]})", three)), std::vector<std::string>{"TR-COUNT"});
  // Not names of items: a list of paths, tags; one item; two lists of names (which one?).
  EXPECT_TRUE(lookup(R"({"files":[{"path":"a"}]})", json{{"paths", {"a", "b"}}}).empty());
  EXPECT_TRUE(lookup(R"({"notes":[{"tag":"a"}]})", json{{"tags", {"a", "b"}}}).empty());
  EXPECT_TRUE(lookup(R"({"tasks":[{"id":"T1"}]})", json{{"ids", {"T1"}}}).empty());
  EXPECT_TRUE(lookup(R"({"tasks":[{"id":"T1"}]})", json{{"ids", {"T1", "T2"}}, {"names", {"a", "b"}}}).empty());
  // "T1" is not in "T10"; a comma-separated id with spaces inside is prose, not ids.
  EXPECT_EQ(ids(lookup(R"({"tasks":[{"id":"T10"},{"id":"T2"}]})", json{{"ids", {"T1", "T2", "T3"}}})), std::vector<std::string>{"TR-COUNT"});
  EXPECT_TRUE(lookup("T1: ok", json{{"id", "T1, the other one"}}).empty());
  // Not a lookup: the tool lists, searches or deletes; the names are of something else (labels).
  EXPECT_TRUE(lookup(R"({"issues":[{"id":1,"labels":["bug"]}]})", json{{"labelNames", {"bug", "ui"}}}, "get_issues").empty());
  EXPECT_TRUE(lookup(R"({"tasks":[{"id":"T1"}]})", three, "list_tasks").empty());
  EXPECT_TRUE(lookup(R"({"tasks":[{"id":"T1"}]})", three, "searchTasks").empty());
  EXPECT_TRUE(lookup("Deleted T1", three, "delete_tasks").empty());
  // Held to the rule: TR-COUNT passed.
  EXPECT_EQ(lookup(R"({"tasks":[{"id":"T1"},{"id":"T2"}],"notFound":["T1999"]})", three).status("TR-COUNT"), Status::kPassed);
}

// ----- TR-COUNT across calls ----------------------------------------------------------------------

OmissionPoint point(std::int64_t limit, const std::string& text) {
  OmissionPoint p;
  p.parameter = "limit";
  p.limit = limit;
  p.request = request(json{{"limit", limit}});
  p.excerpt = text;
  p.facts = list_facts(read(text), vocab());
  return p;
}

TEST(GenericOmission, NoMoreAtASmallLimitWhileALargerOneReturnsMore) {
  auto flag = check_omission(point(1, R"({"matches":[1],"moreAvailable":false})"),
                             point(4, R"({"matches":[1,2,3,4],"moreAvailable":true,"nextOffset":4})"));
  ASSERT_EQ(ids(flag), std::vector<std::string>{"TR-COUNT"});
  EXPECT_EQ(flag[0].profile, "generic");
  EXPECT_NE(flag[0].diagnosis.find("`limit` 1"), std::string::npos) << flag[0].diagnosis;
  EXPECT_NE(flag[0].diagnosis.find("`limit` 4"), std::string::npos) << flag[0].diagnosis;
  EXPECT_NE(flag[0].diagnosis.find("\"limit\":4"), std::string::npos) << "the larger request: " << flag[0].diagnosis;
  EXPECT_EQ(flag[0].request["params"]["arguments"]["limit"], 1);

  auto found = check_omission(point(2, "Found 2 symbols matching 'x':\n\n- a\n- b"),
                              point(8, "Found 8 symbols matching 'x':\n\n- a\n- b\n- c\n- d\n- e\n- f\n- g\n- h"));
  ASSERT_EQ(ids(found), std::vector<std::string>{"TR-COUNT"});
  EXPECT_NE(found[0].diagnosis.find("Found 2"), std::string::npos) << found[0].diagnosis;

  auto total = check_omission(point(2, R"({"items":[1,2],"total":2})"), point(8, R"({"items":[1,2,3],"total":3})"));
  ASSERT_EQ(ids(total), std::vector<std::string>{"TR-COUNT"});
}

TEST(GenericOmission, NoSignalOrAnHonestSignalIsNotAFinding) {
  // No signal at all: an agent that asked for 2 may expect at most 2.
  auto silent = check_omission(point(2, R"({"items":[1,2]})"), point(8, R"({"items":[1,2,3,4,5]})"));
  EXPECT_TRUE(silent.empty());
  EXPECT_EQ(silent.status("TR-COUNT"), Status::kNotApplicable);
  auto honest = check_omission(point(1, R"({"matches":[1],"moreAvailable":true,"nextOffset":1})"),
                               point(4, R"({"matches":[1,2,3,4],"moreAvailable":true,"nextOffset":4})"));
  EXPECT_TRUE(honest.empty());
  // Complete at the small limit and nothing more at the larger one: it told the truth.
  auto truth = check_omission(point(2, R"({"items":[1],"hasMore":false})"), point(8, R"({"items":[1],"hasMore":false})"));
  EXPECT_TRUE(truth.empty());
  EXPECT_EQ(truth.status("TR-COUNT"), Status::kPassed);
  auto shown = check_omission(point(2, "Found 38 symbols (showing 2):\n- a\n- b"), point(8, "Found 38 symbols:\n- a\n- b\n- c"));
  EXPECT_TRUE(shown.empty());
  // mcp-memory-keeper: `truncated: false` beside `hasMore: true` and a `nextOffset` is no "no more".
  auto keeper = check_omission(
      point(1, R"({"items":[1],"pagination":{"total":3,"returned":1,"hasMore":true,"nextOffset":1,"truncated":false}})"),
      point(8, R"({"items":[1,2,3],"pagination":{"total":3,"returned":3,"hasMore":false,"nextOffset":null,"truncated":false}})"));
  EXPECT_TRUE(keeper.empty()) << keeper[0].diagnosis;
  EXPECT_EQ(keeper.status("TR-COUNT"), Status::kNotApplicable);
}

ListedCall listed(const json& args, const std::string& text) {
  ListedCall c;
  c.arguments = args;
  c.request = request(args);
  c.excerpt = text;
  c.facts = list_facts(read(text), vocab());
  return c;
}

bool is_limit(const std::string& k) { return k == "limit"; }

// The pairing: only calls that differ in one limit parameter are compared, and the smallest limit
// that says "no more" is the group's one finding.
TEST(GenericOmission, CallsArePairedByTheirOtherArguments) {
  std::vector<ListedCall> calls = {
      listed(json{{"q", "a"}, {"limit", 4}}, R"({"items":[1,2,3,4],"hasMore":false})"),
      listed(json{{"q", "a"}, {"limit", 1}}, R"({"items":[1],"hasMore":false})"),
      listed(json{{"q", "a"}}, R"({"items":[1,2,3,4,5,6],"hasMore":false})"),      // the default
      listed(json{{"q", "b"}, {"limit", 50}}, R"({"items":[1,2,3,4,5,6,7,8,9],"hasMore":false})"),  // another query
  };
  std::set<std::string> reported;
  auto o = check_omissions(calls, is_limit, &reported);
  ASSERT_EQ(ids(o), std::vector<std::string>{"TR-COUNT"});
  EXPECT_EQ(o[0].request["params"]["arguments"]["limit"], 1);
  EXPECT_NE(o[0].diagnosis.find("returned 6 items"), std::string::npos) << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("no `limit` (the default)"), std::string::npos) << o[0].diagnosis;
  EXPECT_EQ(reported.size(), 1u);
  // Reported once: a second look at the same calls adds nothing.
  EXPECT_TRUE(check_omissions(calls, is_limit, &reported).empty());
  // A parameter that is not a limit (a line number) is never compared.
  std::vector<ListedCall> lines = {listed(json{{"line", 1}}, R"({"items":[1],"hasMore":false})"),
                                   listed(json{{"line", 9}}, R"({"items":[1,2,3],"hasMore":false})")};
  EXPECT_TRUE(check_omissions(lines, is_limit).empty());
}


// ----- TR-RESUME (generic) ----------------------------------------------------------------------

using test::answered;

std::string page(int from, int n, const std::string& next = "") {
  json items = json::array();
  for (int i = from; i < from + n; ++i) items.push_back(json{{"id", i}});
  json a{{"items", items}, {"hasMore", !next.empty()}};
  if (!next.empty()) a["nextCursor"] = next;
  return a.dump();
}

const json kSchema = json::parse(R"({"type":"object","properties":{
  "q":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":50},"cursor":{"type":"string"}}})");

TEST(GenericResume, TheCallsToMakeFollowTheCursorAndDoubleTheLimit) {
  std::vector<ListedCall> calls = {answered(json{{"q", "a"}, {"limit", 3}}, page(0, 3, "c3"))};
  ASSERT_TRUE(calls[0].says_more);
  EXPECT_EQ(calls[0].next_field, "nextCursor");
  EXPECT_EQ(calls[0].items.size(), 3u);
  std::vector<json> want = {json{{"q", "a"}, {"limit", 3}, {"cursor", "c3"}}, json{{"q", "a"}, {"limit", 6}}};
  EXPECT_EQ(resume_calls(calls, kSchema, is_limit), want);
  // Already made: nothing more to call.
  calls.push_back(answered(want[0], page(3, 3, "c6")));
  calls.push_back(answered(want[1], page(0, 6, "c6")));
  EXPECT_TRUE(resume_calls(calls, kSchema, is_limit, 1).empty());
  // A tool with no argument that takes the cursor: nothing to follow.
  EXPECT_TRUE(resume_calls({calls[0]}, json::parse(R"({"type":"object","properties":{"q":{}}})"), is_limit).empty());
}

TEST(GenericResume, APageThatGoesOnWhereTheFirstEndedPasses) {
  std::vector<ListedCall> calls = {answered(json{{"limit", 3}}, page(0, 3, "c3")),
                                   answered(json{{"limit", 3}, {"cursor", "c3"}}, page(3, 3, "c6")),
                                   answered(json{{"limit", 6}}, page(0, 6, "c6"))};
  auto o = check_resumes(calls, is_limit);
  EXPECT_TRUE(o.empty()) << o[0].diagnosis;
  EXPECT_EQ(o.status("TR-RESUME"), Status::kPassed);
}

TEST(GenericResume, SkippedAndRepeatedItemsAreNamed) {
  // The cursor starts one item too far on: item 4 of the larger list is never returned.
  std::vector<ListedCall> skip = {answered(json{{"limit", 3}}, page(0, 3, "c4")),
                                  answered(json{{"limit", 3}, {"cursor", "c4"}}, page(4, 3, "c7")),
                                  answered(json{{"limit", 6}}, page(0, 6, "c6"))};
  std::set<std::string> reported;
  auto o = check_resumes(skip, is_limit, &reported);
  ASSERT_EQ(ids(o), std::vector<std::string>{"TR-RESUME"});
  EXPECT_EQ(o[0].profile, "generic");
  EXPECT_EQ(o[0].request["params"]["arguments"]["cursor"], "c4");
  EXPECT_NE(o[0].diagnosis.find("starts at item 5"), std::string::npos) << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("item 4 is never returned"), std::string::npos) << o[0].diagnosis;
  EXPECT_TRUE(check_resumes(skip, is_limit, &reported).empty());  // once per way on
  // The cursor starts inside the first page: items 2-3 come twice.
  std::vector<ListedCall> again = {answered(json{{"limit", 3}}, page(0, 3, "c1")),
                                   answered(json{{"limit", 3}, {"cursor", "c1"}}, page(1, 3, "c4")),
                                   answered(json{{"limit", 6}}, page(0, 6, "c6"))};
  o = check_resumes(again, is_limit);
  ASSERT_EQ(ids(o), std::vector<std::string>{"TR-RESUME"});
  EXPECT_NE(o[0].diagnosis.find("items 2-3 are returned twice"), std::string::npos) << o[0].diagnosis;
  // With no larger list, a repeat is still seen; a page of new items passes.
  o = check_resumes({again[0], again[1]}, is_limit);
  ASSERT_EQ(ids(o), std::vector<std::string>{"TR-RESUME"});
  EXPECT_NE(o[0].diagnosis.find("repeats 2 items of the first page"), std::string::npos) << o[0].diagnosis;
  EXPECT_TRUE(check_resumes({skip[0], skip[1]}, is_limit).empty());
}

TEST(GenericResume, NotComparableOrNotFollowedIsNeverAFinding) {
  // A larger list in another order: the pages cannot be placed in it.
  std::string reordered = R"({"items":[{"id":5},{"id":4},{"id":3},{"id":2},{"id":1},{"id":0}],"hasMore":false})";
  std::vector<ListedCall> calls = {answered(json{{"limit", 3}}, page(0, 3, "c4")),
                                   answered(json{{"limit", 3}, {"cursor", "c4"}}, page(4, 2, "")),
                                   answered(json{{"limit", 6}}, reordered)};
  auto o = check_resumes(calls, is_limit);
  EXPECT_TRUE(o.empty()) << o[0].diagnosis;
  // Nothing followed: not observed, with why.
  o = check_resumes({calls[0]}, is_limit);
  EXPECT_TRUE(o.empty());
  EXPECT_EQ(o.status("TR-RESUME"), Status::kNotObserved);
  // The coverage's `truncated` count: an answer that says it holds less.
  mcp::Reply r;
  r.kind = mcp::Reply::Kind::kResult;
  r.result = json{{"content", json::array({json{{"type", "text"}, {"text", page(0, 3, "c3")}}})}};
  EXPECT_TRUE(says_truncated(r));
  r.result["content"][0]["text"] = page(0, 3);
  EXPECT_FALSE(says_truncated(r));
  r.result["content"][0]["text"] = "- a\n- b\n\nshowing 2 of 9";
  EXPECT_TRUE(says_truncated(r));
  // Markdown pages compare their items without the numbers.
  EXPECT_EQ(*list_items(read("1. alpha\n2. beta\n")), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(*list_items(read("| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n")),
            (std::vector<std::string>{"| 1 | 2 |", "| 3 | 4 |"}));
}

}  // namespace
}  // namespace ctxo::checks
