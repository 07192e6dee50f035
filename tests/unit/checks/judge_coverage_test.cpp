// SPDX-License-Identifier: MIT
// The judge's coverage: what each tool's answers reached (data, empty, miss, error, refusal, no
// answer), counted once per answer, again under the profile a kept answer is finally judged by.
#include "checks/judge.h"

#include <gtest/gtest.h>

#include "profile/profile.h"

namespace ctxo::checks {
namespace {

using mcp::Reply;

const json kTool = json::parse(R"({"name":"find","inputSchema":{"type":"object",
  "properties":{"symbol":{"type":"string","maxLength":20}},"required":["symbol"]}})");

Reply text_reply(const json& args, const std::string& text, bool is_error = false) {
  Reply r;
  r.kind = Reply::Kind::kResult;
  r.request = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "find"}, {"arguments", args}}}};
  r.result = {{"content", {{{"type", "text"}, {"text", text}}}}};
  if (is_error) r.result["isError"] = true;
  return r;
}

std::string success(int total, int returned, bool truncated) {
  json items = json::array();
  for (int i = 0; i < returned; ++i) items.push_back({{"name", "s" + std::to_string(i)}});
  json meta = {{"totalItems", total}, {"returnedItems", returned}, {"truncated", truncated}, {"totalBytes", 100}};
  if (truncated) meta["hint"] = "narrow the query";
  return json{{"results", items}, {"_meta", meta}}.dump();
}

Judged call(Judge& j, const Reply& r, Validity v = Validity::kValid) {
  Exchange x;
  x.tool = "find";
  x.arguments = r.request["params"]["arguments"];
  x.reply = &r;
  x.validity = v;
  return j.call(x);
}

TEST(JudgeCoverage, EachAnswerInOneCategory) {
  auto ctxo = profile::load_builtin("ctxo");
  ASSERT_TRUE(ctxo.ok()) << ctxo.error().message;
  JudgeSetup setup;
  setup.forced = &ctxo.value();
  setup.tools = {kTool};
  Judge judge(setup);
  const json ok = {{"symbol", "run"}};
  const json bad = {{"symbol", 7}};
  EXPECT_EQ(call(judge, text_reply(ok, success(3, 3, false))).reach, Reach::kData);
  EXPECT_EQ(call(judge, text_reply(ok, success(40, 2, true))).reach, Reach::kData);
  EXPECT_EQ(call(judge, text_reply(ok, success(0, 0, false))).reach, Reach::kEmpty);
  EXPECT_EQ(call(judge, text_reply(ok, R"({"found":false,"hint":"use search"})")).reach, Reach::kMiss);
  EXPECT_EQ(call(judge, text_reply(ok, "boom", true)).reach, Reach::kError);
  EXPECT_EQ(call(judge, text_reply(bad, R"({"error":true,"message":"symbol must be a string"})"), Validity::kInvalid).reach,
            Reach::kRefusal);
  Reply rpc;
  rpc.kind = Reply::Kind::kError;
  rpc.request = text_reply(bad, "").request;
  rpc.error = {{"code", -32602}, {"message", "Invalid params"}};
  EXPECT_EQ(call(judge, rpc, Validity::kInvalid).reach, Reach::kRefusal);
  judge.unanswered("find");

  const Coverage& c = judge.coverage().at("find");
  EXPECT_EQ(c.calls, 8u);
  EXPECT_EQ(c.data, 2u);
  EXPECT_EQ(c.empty, 1u);
  EXPECT_EQ(c.misses, 1u);
  EXPECT_EQ(c.errors, 1u);
  EXPECT_EQ(c.refusals, 2u);
  EXPECT_EQ(c.no_answer, 1u);
  EXPECT_EQ(c.truncated, 1u);
  EXPECT_EQ(c.largest_bytes, success(40, 2, true).size() > success(3, 3, false).size() ? success(40, 2, true).size()
                                                                                        : success(3, 3, false).size());
}

TEST(JudgeCoverage, KeptAnswersAreCountedAgainUnderTheirProfile) {
  // --profile auto: a miss answer alone does not tell the profile; it is kept until finish()
  // judges it by the profile the tool's success answers showed, and meanwhile counted as the miss
  // form a candidate profile reads it as.
  auto all = profile::load_builtins();
  ASSERT_TRUE(all.ok());
  std::vector<profile::Profile> candidates;
  for (auto& p : all.value())
    if (p.location != profile::Location::kNone) candidates.push_back(std::move(p));
  JudgeSetup setup;
  setup.candidates = &candidates;
  setup.tools = {kTool};
  Judge judge(setup);
  const json ok = {{"symbol", "run"}};
  Judged first = call(judge, text_reply(ok, R"({"found":false,"hint":"use search"})"));
  EXPECT_TRUE(first.deferred);
  EXPECT_EQ(first.reach, Reach::kMiss) << "no profile seen yet: read as a candidate's miss form";
  call(judge, text_reply(ok, success(3, 3, false)));
  (void)judge.finish();
  const Coverage& c = judge.coverage().at("find");
  EXPECT_EQ(c.calls, 2u);
  EXPECT_EQ(c.misses, 1u) << "judged again as the ctxo miss form";
  EXPECT_EQ(c.data, 1u);
}

}  // namespace
}  // namespace ctxo::checks
