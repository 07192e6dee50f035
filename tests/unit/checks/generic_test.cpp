// SPDX-License-Identifier: MIT
// The generic reading of an answer no profile matched (issue 29) and the generic truncation rules
// on it: TR-HINT (a more-flag with no way on), TR-COUNT per answer (counts against the list) and
// across calls (a "no more" at a small limit while a larger limit returns more). Every finding
// says profile "generic"; answers that say nothing, or say it right, are not findings.
#include "checks/generic.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(footer.data, json::parse(R"({"results":[1]})"));
  EXPECT_EQ(footer.rest, "---\n**Next:** open one with `read`");
  auto fenced = read("Results:\n```json\n{\"items\": [\"a\", \"b\"]}\n```\nDone.");
  EXPECT_EQ(fenced.reading, Reading::kFencedJson);
  EXPECT_EQ(fenced.data["items"].size(), 2u);
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

}  // namespace
}  // namespace ctxo::checks
