// SPDX-License-Identifier: MIT
// The glue live and offline runs share (engine/sink.h): attribution, selection, one root cause
// merged once, row counters and the ids a run says it checked.
#include <gtest/gtest.h>

#include "engine/sink.h"

namespace ctxo::engine {
namespace {

using nlohmann::json;

Finding finding(std::string inv, json request = json(), std::string diag = "d") {
  Finding f;
  f.invariant = std::move(inv);
  f.request = std::move(request);
  f.diagnosis = std::move(diag);
  return f;
}

const json kCall = {{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"}, {"params", {{"name", "search"}}}};

TEST(Sink, ToolOfARequest) {
  EXPECT_EQ(tool_of(kCall), "search");
  EXPECT_EQ(tool_of(json{{"method", "tools/list"}, {"params", {{"name", "x"}}}}), "");
  EXPECT_EQ(tool_of(json()), "");
}

TEST(Sink, AttributionTheChecksToolThenTheRequestsButNeverAnHttpRule) {
  RunReport r;
  checks::Selection all;
  FindingSink sink(r, all);
  Finding a = finding("TR-HINT", kCall);
  ASSERT_TRUE(sink.admit(a));
  EXPECT_EQ(a.tool, "search");
  Finding b = finding("TR-HINT", kCall);
  ASSERT_TRUE(sink.admit(b, "other"));
  EXPECT_EQ(b.tool, "other");
  Finding h = finding("T-HTTP-STATUS", kCall);
  ASSERT_TRUE(sink.admit(h));
  EXPECT_EQ(h.tool, "") << "a rule of the transport is the server's, whichever call showed it";
  checks::Selection only({"T-ID"}, {});
  FindingSink picky(r, only);
  Finding c = finding("TR-HINT", kCall);
  EXPECT_FALSE(picky.admit(c));
}

TEST(Sink, OneRootCauseIsMergedOnce) {
  RunReport r;
  r.tools.push_back(ToolSummary{});
  r.tools[0].name = "search";
  checks::Selection all;
  FindingSink sink(r, all);
  Finding f1 = finding("TR-COUNT", kCall, "said 12 items, gave 10");
  Finding f2 = finding("TR-COUNT", json{{"id", 9}, {"method", "tools/call"}, {"params", {{"name", "search"}}}},
                       "said 40 items, gave 25");
  for (Finding* f : {&f1, &f2}) ASSERT_TRUE(sink.admit(*f));
  EXPECT_TRUE(sink.merge(f1));
  EXPECT_FALSE(sink.merge(f2));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].count, 2u);
  EXPECT_EQ(r.findings[0].examples.size(), 1u);
  EXPECT_EQ(r.tools[0].findings, 1u);
  // Statuses: failed exactly where a finding names the tool.
  checks::Outcomes o;
  o.pass("TR-COUNT");
  o.pass("TR-HINT");
  EXPECT_TRUE(sink.take("search", std::move(o)).empty());
  sink.publish();
  EXPECT_EQ(r.tools[0].outcomes.at("TR-COUNT"), checks::Status::kFailed);
  EXPECT_EQ(r.tools[0].outcomes.at("TR-HINT"), checks::Status::kPassed);
}

// A server that quotes our input ("Session not found: <the id we sent>") gives one cause, whatever
// the seed made of the input: the quoted values, whole, escaped or cut short, are not the cause.
TEST(Sink, QuotedArgumentsAreNotPartOfTheCause) {
  auto call = [](json args) {
    return json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "get"}, {"arguments", args}}}};
  };
  auto thrown = [&](const std::string& id, const std::string& quoted) {
    Finding f = finding("P-NO-THROW", call({{"sessionId", id}, {"n", 3}}),
                        "valid call answered with -32603: Session not found: " + quoted);
    f.tool = "get";
    return f;
  };
  const std::string a = "8f3a9c1e-77aa-4b0e-9e1d-0c5a2b7f11d2", b = "zz\"quoted\" ünïcode value";
  EXPECT_EQ(finding_key(thrown(a, a)), finding_key(thrown(b, b)));
  // Escaped as JSON in the server's text.
  EXPECT_EQ(finding_key(thrown(b, "zz\\\"quoted\\\" ünïcode value")), finding_key(thrown(a, a)));
  // A long value cut short in an excerpt.
  const std::string long_value(300, 'q');
  EXPECT_EQ(finding_key(thrown(long_value, long_value.substr(0, 80) + "…")), finding_key(thrown(a, a + "…")));
  // Another cause stays another finding; a short value ("abc") is never blanked out of the text.
  EXPECT_NE(finding_key(thrown(a, "database is locked")), finding_key(thrown(a, a)));
  EXPECT_NE(finding_key(thrown("abc", "abc")), finding_key(thrown("xyz", "xyz")));
}

TEST(Sink, RowCountersAndRows) {
  RunReport r;
  count_call(r, row_of(r, "a"), true);
  count_call(r, row_of(r, "a"), false);
  count_call(r, row_of(r, "b"), false);
  ASSERT_EQ(r.tools.size(), 2u);
  EXPECT_EQ(r.calls, 3u);
  EXPECT_EQ(r.successes, 1u);
  EXPECT_EQ(r.tools[0].calls, 2u);
  EXPECT_EQ(r.tools[0].successes, 1u);
  EXPECT_EQ(r.tools[1].successes, 0u);
}

TEST(Sink, InvariantsCheckedLiveAndOffline) {
  checks::Selection all;
  auto live = invariants_checked(all, true), offline = invariants_checked(all, false);
  EXPECT_NE(std::find(live.begin(), live.end(), "T-CRASH"), live.end());
  EXPECT_EQ(std::find(offline.begin(), offline.end(), "T-CRASH"), offline.end()) << "a transcript shows no crash";
  EXPECT_EQ(offline.back(), "T-ID");
  for (const auto& id : offline) {
    if (id == "T-ID") continue;
    EXPECT_NE(std::find(live.begin(), live.end(), id), live.end()) << id;
  }
}

}  // namespace
}  // namespace ctxo::engine
