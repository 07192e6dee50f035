// SPDX-License-Identifier: MIT
// TR-PREFIX and TR-MAXIMAL read generically for a cap that is a constant of the server (issue 42):
// an answer cut below what its call asked for, against the same call at the item count it kept
// (k) and at k+1. The calls to make (cap_calls), each finding, and every case the rule stays
// silent on (the parameter does not count items, the order is not stable, the cut may be the
// default page, the k+1 answer is cut again or lists other items).
#include "checks/generic_caps.h"

#include <gtest/gtest.h>

#include "listed_call_util.h"

#include <set>
#include <string>
#include <vector>

namespace ctxo::checks {
namespace {

using nlohmann::json;

bool is_limit(const std::string& k) { return k == "limit" || k == "maxResults" || k == "tokenBudget" || k == "maxChars"; }

using test::answered;

/// Items `ids` of a list of `total`, said cut when they are fewer.
std::string page(const std::vector<int>& ids, int total = 9) {
  json items = json::array();
  for (int i : ids) items.push_back(json{{"id", i}});
  json a{{"items", items}, {"total", total}, {"truncated", static_cast<int>(ids.size()) < total}};
  if (static_cast<int>(ids.size()) < total) a["hint"] = "At most 3 items per call.";
  return a.dump();
}

std::vector<int> from(int first, int n) {
  std::vector<int> v;
  for (int i = first; i < first + n; ++i) v.push_back(i);
  return v;
}

const json kSchema = json::parse(R"({"type":"object","properties":{
  "q":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":500}}})");

std::vector<std::string> forms(const Outcomes& o) {
  std::vector<std::string> out;
  for (const auto& f : o) out.push_back(f.invariant + " " + f.cause.at("form"));
  return out;
}

TEST(GenericCaps, CountsItemsIsALimitThatIsNotASize) {
  EXPECT_TRUE(counts_items("limit", is_limit));
  EXPECT_TRUE(counts_items("maxResults", is_limit));
  EXPECT_FALSE(counts_items("tokenBudget", is_limit));
  EXPECT_FALSE(counts_items("maxChars", is_limit));
  EXPECT_FALSE(counts_items("line", is_limit));  // not a limit at all
}

TEST(GenericCaps, TheCallsToMakeAreTheCutCallAtKAndKPlusOne) {
  // Asked for 50, got 3 and "there is more": called again with limit 3 and 4.
  std::vector<ListedCall> calls = {answered(json{{"q", "a"}, {"limit", 50}}, page(from(0, 3)))};
  ASSERT_TRUE(calls[0].says_more);
  std::vector<json> want = {json{{"q", "a"}, {"limit", 3}}, json{{"q", "a"}, {"limit", 4}}};
  EXPECT_EQ(cap_calls(calls, kSchema, is_limit), want);
  // No limit given: the schema's item-count parameter.
  EXPECT_EQ(cap_calls({answered(json{{"q", "a"}}, page(from(0, 3)))}, kSchema, is_limit), want);
  // Within the schema's maximum; values already called are left out.
  const json small = json::parse(R"({"type":"object","properties":{"q":{"type":"string"},"limit":{"type":"integer","maximum":3}}})");
  EXPECT_EQ(cap_calls(calls, small, is_limit), std::vector<json>{want[0]});
  calls.push_back(answered(want[0], page(from(0, 3))));
  EXPECT_EQ(cap_calls(calls, kSchema, is_limit), std::vector<json>{want[1]});
  // A cut at the agent's own limit, a size budget given, one item, a list that says it is whole,
  // or no integer item-count parameter: nothing to call.
  EXPECT_TRUE(cap_calls({answered(json{{"limit", 3}}, page(from(0, 3)))}, kSchema, is_limit).empty());
  EXPECT_TRUE(cap_calls({answered(json{{"tokenBudget", 900}}, page(from(0, 3)))}, kSchema, is_limit).empty());
  EXPECT_TRUE(cap_calls({answered(json::object(), page(from(0, 1)))}, kSchema, is_limit).empty());
  EXPECT_TRUE(cap_calls({answered(json::object(), page(from(0, 3), 3))}, kSchema, is_limit).empty());
  const json budget_only = json::parse(R"({"type":"object","properties":{"tokenBudget":{"type":"integer"}}})");
  EXPECT_TRUE(cap_calls({answered(json::object(), page(from(0, 3)))}, budget_only, is_limit).empty());
}

TEST(GenericCaps, ATrueConstantCapPassesBoth) {
  std::vector<ListedCall> calls = {answered(json{{"limit", 50}}, page(from(0, 3))),
                                   answered(json{{"limit", 3}}, page(from(0, 3))),
                                   answered(json{{"limit", 4}}, page(from(0, 3)))};  // capped again
  auto o = check_caps(calls, kSchema, is_limit);
  EXPECT_TRUE(o.empty()) << o[0].diagnosis;
  EXPECT_EQ(o.status("TR-PREFIX"), Status::kPassed);
  EXPECT_EQ(o.status("TR-MAXIMAL"), Status::kPassed);
}

TEST(GenericCaps, ACutThatKeepsOtherItemsIsNotAPrefix) {
  // The cut keeps the last 3 of the 9 asked; asked for 3, the tool gives its first 3.
  std::vector<ListedCall> calls = {answered(json{{"limit", 50}}, page(from(6, 3))),
                                   answered(json{{"limit", 3}}, page(from(0, 3))),
                                   answered(json{{"limit", 4}}, page(from(1, 3)))};
  std::set<std::string> reported;
  auto o = check_caps(calls, kSchema, is_limit, &reported);
  ASSERT_EQ(forms(o), std::vector<std::string>{"TR-PREFIX cut-not-a-prefix"});
  EXPECT_EQ(o[0].profile, "generic");
  EXPECT_EQ(o[0].cause.at("argument"), "limit");
  EXPECT_EQ(o[0].request["params"]["arguments"]["limit"], 50);  // the cut call
  const std::string& d = o[0].diagnosis;
  EXPECT_NE(d.find("asked for `limit` 50"), std::string::npos) << d;
  EXPECT_NE(d.find("the same call with `limit` 3"), std::string::npos) << d;
  EXPECT_NE(d.find("differ from its first item"), std::string::npos) << d;
  EXPECT_NE(d.find(R"({"id":6})"), std::string::npos) << d;
  EXPECT_NE(d.find(R"({"id":0})"), std::string::npos) << d;
  EXPECT_EQ(o.status("TR-MAXIMAL"), Status::kNotObserved);  // k+1 lists other items: silent
  EXPECT_TRUE(check_caps(calls, kSchema, is_limit, &reported).empty());  // once per form
  // Differing further on: the first differing position is named.
  calls[0] = answered(json{{"limit", 50}}, page({0, 1, 7}));
  o = check_caps(calls, kSchema, is_limit);
  ASSERT_EQ(forms(o), std::vector<std::string>{"TR-PREFIX cut-not-a-prefix"});
  EXPECT_NE(o[0].diagnosis.find("differ from item 3"), std::string::npos) << o[0].diagnosis;
}

TEST(GenericCaps, KPlusOneItemsWhenAskedForFewerIsNotMaximal) {
  std::vector<ListedCall> calls = {answered(json{{"limit", 50}}, page(from(0, 3))),
                                   answered(json{{"limit", 3}}, page(from(0, 3))),
                                   answered(json{{"limit", 4}}, page(from(0, 4)))};  // says more too: 4 < 9
  std::set<std::string> reported;
  auto o = check_caps(calls, kSchema, is_limit, &reported);
  ASSERT_EQ(forms(o), std::vector<std::string>{"TR-MAXIMAL constant-cap-not-largest"});
  EXPECT_EQ(o[0].request["params"]["arguments"]["limit"], 50);
  const std::string& d = o[0].diagnosis;
  EXPECT_NE(d.find("the same call with `limit` 4"), std::string::npos) << d;
  EXPECT_NE(d.find("returned 4 items, the cut answer's 3 items and then {\"id\":3}"), std::string::npos) << d;
  EXPECT_EQ(o.status("TR-PREFIX"), Status::kPassed);
  EXPECT_TRUE(check_caps(calls, kSchema, is_limit, &reported).empty());  // once per form
}

TEST(GenericCaps, NoLimitGivenIsMaximalOnlyAgainstADeclaredDefault) {
  std::vector<ListedCall> calls = {answered(json::object(), page(from(0, 3))),
                                   answered(json{{"limit", 3}}, page(from(0, 3))),
                                   answered(json{{"limit", 4}}, page(from(0, 4)))};
  // The cut may be the tool's default page of 3: TR-PREFIX is judged, TR-MAXIMAL is not.
  auto o = check_caps(calls, kSchema, is_limit);
  EXPECT_TRUE(o.empty()) << o[0].diagnosis;
  EXPECT_EQ(o.status("TR-PREFIX"), Status::kPassed);
  EXPECT_EQ(o.status("TR-MAXIMAL"), Status::kNotObserved);
  // A declared default above 3: the default was not what cut it.
  json with_default = kSchema;
  with_default["properties"]["limit"]["default"] = 10;
  o = check_caps(calls, with_default, is_limit);
  ASSERT_EQ(forms(o), std::vector<std::string>{"TR-MAXIMAL constant-cap-not-largest"});
  EXPECT_NE(o[0].diagnosis.find("its declared default is 10"), std::string::npos) << o[0].diagnosis;
  // Without a schema (a transcript with no tools/list) the parameter is found among the calls.
  o = check_caps(calls, json::object(), is_limit);
  EXPECT_TRUE(o.empty());
  EXPECT_EQ(o.status("TR-PREFIX"), Status::kPassed);
}

TEST(GenericCaps, EachSilence) {
  // The call at k returned fewer items (the parameter counts something else): nothing judged.
  auto o = check_caps({answered(json{{"limit", 50}}, page(from(6, 3))), answered(json{{"limit", 3}}, page(from(0, 2)))},
                      kSchema, is_limit);
  EXPECT_TRUE(o.empty()) << o[0].diagnosis;
  EXPECT_EQ(o.status("TR-PREFIX"), Status::kNotObserved);
  // The tool's order is not stable: at 4 it lists 4 items whose first 3 are not those at 3.
  o = check_caps({answered(json{{"limit", 50}}, page(from(6, 3))), answered(json{{"limit", 3}}, page(from(0, 3))),
                  answered(json{{"limit", 4}}, page({5, 4, 3, 2}))},
                 kSchema, is_limit);
  EXPECT_TRUE(o.empty()) << o[0].diagnosis;
  EXPECT_EQ(o.status("TR-PREFIX"), Status::kNotObserved);
  EXPECT_EQ(o.status("TR-MAXIMAL"), Status::kNotObserved);  // k+1 items, other first items: silent
  // k+1 answered with fewer or other items than the cut: TR-MAXIMAL silent.
  o = check_caps({answered(json{{"limit", 50}}, page(from(0, 3))), answered(json{{"limit", 4}}, page(from(0, 2)))}, kSchema,
                 is_limit);
  EXPECT_TRUE(o.empty());
  EXPECT_EQ(o.status("TR-MAXIMAL"), Status::kNotObserved);
  // The agent's own limit cut it (limit 3, 3 items): not a constant cap.
  o = check_caps({answered(json{{"limit", 3}}, page(from(6, 3))), answered(json{{"limit", 4}}, page(from(0, 4)))}, kSchema,
                 is_limit);
  EXPECT_TRUE(o.empty());
  EXPECT_EQ(o.status("TR-PREFIX"), Status::kNotObserved);
  EXPECT_NE(o.reasons().at("TR-PREFIX").find("no answer said it was cut"), std::string::npos);
  // A token budget given may be what cut it.
  o = check_caps({answered(json{{"tokenBudget", 900}}, page(from(6, 3))),
                  answered(json{{"tokenBudget", 900}, {"limit", 3}}, page(from(0, 3)))},
                 kSchema, is_limit);
  EXPECT_TRUE(o.empty());
  // An answer that does not say it was cut.
  o = check_caps({answered(json::object(), page(from(6, 3), 3)), answered(json{{"limit", 3}}, page(from(0, 3), 3))}, kSchema,
                 is_limit);
  EXPECT_TRUE(o.empty());
  EXPECT_EQ(o.status("TR-PREFIX"), Status::kNotObserved);
  // No calls: no status at all.
  EXPECT_TRUE(check_caps({}, kSchema, is_limit).statuses().empty());
}

TEST(GenericCaps, MarkdownListsAreComparedByTheirItems) {
  const auto md = [](int first, int n) {
    std::string s = "Showing " + std::to_string(n) + " of 9 notes:\n\n";
    for (int i = first; i < first + n; ++i) s += "- note " + std::to_string(i) + "\n";
    return s;
  };
  std::vector<ListedCall> calls = {answered(json{{"q", "x"}}, md(6, 3)), answered(json{{"q", "x"}, {"limit", 3}}, md(0, 3)),
                                   answered(json{{"q", "x"}, {"limit", 4}}, md(0, 3))};
  ASSERT_TRUE(calls[0].says_more);
  auto o = check_caps(calls, kSchema, is_limit);
  ASSERT_EQ(forms(o), std::vector<std::string>{"TR-PREFIX cut-not-a-prefix"});
  EXPECT_NE(o[0].diagnosis.find("note 6"), std::string::npos) << o[0].diagnosis;
}

}  // namespace
}  // namespace ctxo::checks
