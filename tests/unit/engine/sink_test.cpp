// SPDX-License-Identifier: MIT
// The glue live and offline runs share (engine/sink.h): attribution, selection, one root cause
// merged once, row counters and the ids a run says it checked.
#include <gtest/gtest.h>

#include "checks/protocol.h"
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

// A cause is facts, not the server's text: two diagnoses that differ only in the sentence the
// server quoted are one cause; a quoted field name is part of it; a check's own facts decide
// (P-NO-THROW: the error code, the same for a valid and an invalid call, whatever the message).
TEST(Cause, TheServersTextIsNotTheCauseItsFactsAre) {
  auto said = [](const std::string& quoted) {
    Finding f = finding("P-RESULT", kCall, "the result says \"" + quoted + "\" where content belongs");
    f.tool = "search";
    return f;
  };
  EXPECT_EQ(cause_key(said("Session 8f3a not found for user bob")), cause_key(said("Disk quota exceeded on home")));
  EXPECT_EQ(cause_id(said("a b")), cause_id(said("c d")));
  EXPECT_NE(cause_key(said("truncated")), cause_key(said("items")));
  // Ids and hashes the server made up (letters and digits) are not the cause either.
  EXPECT_EQ(cause_key(finding("T-CRASH", json(), "exited while handling req-7f3a9b")),
            cause_key(finding("T-CRASH", json(), "exited while handling req-c0ffee12")));

  // An HTTP status or a JSON-RPC error code in the text is a fact, kept.
  EXPECT_NE(cause_key(finding("T-HTTP-STATUS", json(), "a request was answered HTTP 500 (3 times)")),
            cause_key(finding("T-HTTP-STATUS", json(), "a request was answered HTTP 404 (3 times)")));
  EXPECT_EQ(cause_key(finding("E-ERROR", json(), "refused with JSON-RPC error -32602 after 12 ms")),
            cause_key(finding("E-ERROR", json(), "refused with JSON-RPC error -32602 after 873 ms")));

  auto answered = [](int code, const std::string& message, bool valid) {
    checks::CallContext ctx;
    ctx.schema_valid = valid;
    mcp::Reply r;
    r.kind = mcp::Reply::Kind::kError;
    r.request = kCall;
    r.error = {{"code", code}, {"message", message}};
    auto fs = checks::check_call(ctx, r).take_findings();
    EXPECT_EQ(fs.size(), 1u) << code << " " << message;
    return fs.empty() ? Finding{} : fs.front();
  };
  const Finding valid = answered(-32603, "note abc not found", true);
  EXPECT_EQ(cause_key(valid), cause_key(answered(-32603, "Cannot read properties of undefined (reading 'x')", true)));
  EXPECT_EQ(cause_key(valid), cause_key(answered(-32603, "Expected string, received number", false)));
  EXPECT_NE(cause_key(valid), cause_key(answered(-32000, "note abc not found", true)));
  EXPECT_EQ(cause_of(valid).at("code"), "-32603");
  // Our own value in quotes is ours even where the quotes hold an identifier.
  auto quoting = [](const std::string& id) {
    Finding f = finding("P-RESULT", json{{"method", "tools/call"}, {"params", {{"name", "get"}, {"arguments", {{"id", id}}}}}},
                        "`content` quotes \"" + id + "\" back, then `meta`");
    f.tool = "get";
    return f;
  };
  EXPECT_EQ(cause_key(quoting("8f3a9c1e-77aa-4b0e")), cause_key(quoting("zzzzzzzz")));
  EXPECT_NE(cause_key(quoting("zzzzzzzz")), cause_key(said("content")));
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
