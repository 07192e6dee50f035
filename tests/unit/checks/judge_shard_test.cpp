// SPDX-License-Identifier: MIT
// A judge's shards (--jobs): answers judged on shards forked from one judge and absorbed in order
// leave that judge exactly as judging them on it, in the same order, would: the same findings at
// finish(), coverage, profiles and reasons, counts, host sizes. And a shard reads what its parent
// knew when it was forked (a tool's profile), without changing it.
#include "checks/judge.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "profile/host.h"
#include "profile/profile.h"

namespace ctxo::checks {
namespace {

using mcp::Reply;

json tool(const std::string& name) {
  return json{{"name", name},
              {"inputSchema", {{"type", "object"}, {"properties", {{"q", {{"type", "string"}}}}}, {"required", {"q"}}}}};
}

Reply text_reply(const std::string& name, const std::string& q, const std::string& text, bool is_error = false) {
  static std::atomic<int> id{0};  // the threads of a test make replies at once
  Reply r;
  r.kind = Reply::Kind::kResult;
  r.request = {{"jsonrpc", "2.0"}, {"id", ++id}, {"method", "tools/call"},
               {"params", {{"name", name}, {"arguments", {{"q", q}}}}}};
  r.result = {{"content", {{{"type", "text"}, {"text", text}}}}};
  if (is_error) r.result["isError"] = true;
  return r;
}

// A ctxo envelope: `returned` items of `total`, cut (with or without its hint).
std::string envelope(int total, int returned, bool truncated, bool hint) {
  json items = json::array();
  for (int i = 0; i < returned; ++i) items.push_back({{"name", "s" + std::to_string(i)}});
  json meta = {{"totalItems", total}, {"returnedItems", returned}, {"truncated", truncated}, {"totalBytes", 100}};
  if (hint) meta["hint"] = "narrow the query";
  return json{{"results", items}, {"_meta", meta}}.dump();
}

// The answers of four tools, in the order a run of one worker judges them; the first two tools'
// on one shard, the last two's on another.
std::vector<Reply> answers() {
  std::vector<Reply> out;
  out.push_back(text_reply("find", "run", envelope(3, 3, false, false)));
  out.push_back(text_reply("find", "go", envelope(40, 2, true, false)));  // cut without a hint
  out.push_back(text_reply("find", "x", envelope(0, 0, false, false)));
  out.push_back(text_reply("notes", "a", "Error: note store is not reachable"));  // an error without isError
  out.push_back(text_reply("notes", "b", "Title: undefined\nBody: hello"));        // a leaked non-value
  out.push_back(text_reply("notes", "c", "Title: ok\nBody: fine"));
  out.push_back(text_reply("dump", "all", std::string(120000, 'w')));  // past the default hosts' limits
  out.push_back(text_reply("dump", "some", "short"));
  out.push_back(text_reply("plain", "p", R"({"rows":[{"id":1},{"id":2}],"count":2})"));
  out.push_back(text_reply("plain", "q", "nothing here", true));
  return out;
}

Judged judge_one(Judge& j, const Reply& r) {
  Exchange x;
  x.tool = r.request["params"]["name"].get<std::string>();
  x.arguments = r.request["params"]["arguments"];
  x.reply = &r;
  x.validity = Validity::kValid;
  x.hold = true;
  return j.call(x);
}

// Everything a run reports of the judge, as text, finish() included (so: call once).
std::string state(Judge& j, const std::vector<Judged>& calls) {
  json out;
  for (const auto& c : calls) {
    json f = json::array();
    for (const auto& x : c.outcomes) f.push_back(x.invariant + " " + x.diagnosis);
    out["calls"].push_back({{"findings", f}, {"reach", static_cast<int>(c.reach)}, {"deferred", c.deferred}});
  }
  for (auto& [tool, o] : j.finish())
    for (const auto& f : o) out["finish"][tool].push_back(f.invariant + " " + f.diagnosis);
  for (const auto& [tool, c] : j.coverage()) out["coverage"][tool] = c.summary() + " largest " + std::to_string(c.largest_bytes);
  for (const auto& [tool, p] : j.tool_profiles()) out["profiles"][tool] = (p.profile ? p.profile->name : "") + ": " + p.reason;
  for (const auto& [name, n] : j.profiles_detected()) out["detected"][name] = n;
  for (const auto& [name, n] : j.generic_readings()) out["readings"][name] = n;
  out["unprofiled"] = j.unprofiled();
  for (const auto& [tool, big] : j.largest()) out["largest"][tool] = big.chars;
  return out.dump(1);
}

struct Given {
  std::vector<profile::Profile> candidates;
  JudgeSetup make() const {
    JudgeSetup s;
    s.candidates = &candidates;
    s.tools = {tool("find"), tool("notes"), tool("dump"), tool("plain")};
    auto hosts = profile::load_hosts("");
    if (hosts.ok()) s.hosts = std::move(*hosts);
    return s;
  }
};

TEST(JudgeShard, ShardsAbsorbedInOrderLeaveTheJudgeAsJudgingInOrderWould) {
  auto builtins = profile::load_builtins();
  ASSERT_TRUE(builtins.ok()) << builtins.error().message;
  Given setup{std::move(*builtins)};
  const std::vector<Reply> all = answers();

  Judge one(setup.make());
  std::vector<Judged> in_order;
  for (const auto& r : all) in_order.push_back(judge_one(one, r));

  Judge run(setup.make());
  std::vector<Judged> sharded;
  auto first = run.fork();
  auto second = run.fork();
  // The second shard judges first (workers finish in any order); absorbed in the tools' order.
  std::vector<Judged> later;
  for (std::size_t i = 6; i < all.size(); ++i) later.push_back(judge_one(*second, all[i]));
  for (std::size_t i = 0; i < 6; ++i) sharded.push_back(judge_one(*first, all[i]));
  EXPECT_EQ(run.absorb(*first), 0u);
  (void)run.absorb(*second);
  for (auto& j : later) sharded.push_back(std::move(j));

  const std::string expected = state(one, in_order);
  EXPECT_EQ(state(run, sharded), expected);
  // Not vacuous: the answers gave findings at once and at finish(), a profile, host sizes.
  EXPECT_NE(expected.find("TR-HINT"), std::string::npos) << expected;
  EXPECT_NE(expected.find("P-ISERROR"), std::string::npos) << expected;
  EXPECT_NE(expected.find("H-SIZE"), std::string::npos) << expected;
  EXPECT_NE(expected.find("\"find\": \"ctxo: "), std::string::npos) << expected;
}

// Two shards judged at the same time on two threads (as two --jobs workers do, without a lock),
// each while the run's judge already knows a tool's profile: the same end as judging in order.
TEST(JudgeShard, TwoShardsJudgingAtOnceEndAsJudgingInOrder) {
  auto builtins = profile::load_builtins();
  ASSERT_TRUE(builtins.ok()) << builtins.error().message;
  Given setup{std::move(*builtins)};
  const std::vector<Reply> all = answers();
  const Reply seen = text_reply("find", "first", envelope(2, 2, false, false));

  Judge one(setup.make());
  std::vector<Judged> in_order{judge_one(one, seen)};
  for (int round = 0; round < 20; ++round)
    for (const auto& r : all) in_order.push_back(judge_one(one, r));

  Judge run(setup.make());
  std::vector<Judged> sharded{judge_one(run, seen)};
  auto first = run.fork();
  auto second = run.fork();
  std::vector<Judged> a, b;
  std::thread t1([&] {
    for (int round = 0; round < 20; ++round)
      for (std::size_t i = 0; i < 6; ++i) a.push_back(judge_one(*first, all[i]));
  });
  std::thread t2([&] {
    for (int round = 0; round < 20; ++round)
      for (std::size_t i = 6; i < all.size(); ++i) b.push_back(judge_one(*second, all[i]));
  });
  t1.join();
  t2.join();
  (void)run.absorb(*first);
  (void)run.absorb(*second);
  // The calls' own outcomes compared as a set per tool group (the order across the two groups is
  // the threads'); the judge's end state whole.
  std::vector<Judged> firsts(in_order.begin(), in_order.begin() + 1), rest_a, rest_b;
  for (std::size_t k = 1; k < in_order.size(); ++k) ((k - 1) % all.size() < 6 ? rest_a : rest_b).push_back(std::move(in_order[k]));
  for (auto* v : {&rest_a, &rest_b})
    for (auto& j : *v) firsts.push_back(std::move(j));
  for (auto* v : {&a, &b})
    for (auto& j : *v) sharded.push_back(std::move(j));
  EXPECT_EQ(state(run, sharded), state(one, firsts));
}

// The answers kept until their tool's profile is known are bounded for the run and its shards
// together, not per shard: two shards judging at once keep no more than one judge would.
TEST(JudgeShard, KeptAnswersAreBoundedForAllShardsTogether) {
  auto builtins = profile::load_builtins();
  ASSERT_TRUE(builtins.ok()) << builtins.error().message;
  Given setup{std::move(*builtins)};
  // An answer counted at about 7 MB kept (8 times its 900 KB line): nine fit the 64 MiB bound.
  auto big = [](const std::string& tool, int i) {
    Reply r = text_reply(tool, "q" + std::to_string(i), R"({"rows":[1,2,3]})");
    r.raw = std::string(900000, ' ');
    return r;
  };
  auto dropped = [&](Judge& j, const std::string& tool, std::size_t n) {
    const std::size_t before = j.unprofiled();
    for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(judge_one(j, big(tool, static_cast<int>(i))).deferred);
    return j.unprofiled() - before;
  };
  Judge one(setup.make());
  const std::size_t alone = dropped(one, "find", 15) + dropped(one, "notes", 15);
  EXPECT_GE(alone, 15u);  // not vacuous: the bound was reached

  Judge run(setup.make());
  auto first = run.fork();
  auto second = run.fork();
  std::size_t a = 0, b = 0;
  std::thread t1([&] { a = dropped(*first, "find", 15); });
  std::thread t2([&] { b = dropped(*second, "notes", 15); });
  t1.join();
  t2.join();
  // No more kept than one judge keeps (a bound per shard would keep nine each); one fewer when the
  // two tools' first answers, always kept, both came while the bound still had room.
  EXPECT_GE(a + b, alone);
  EXPECT_LE(a + b, alone + 1);
}

TEST(JudgeShard, AShardReadsWhatItsParentKnewAndChangesNothingOfIt) {
  auto builtins = profile::load_builtins();
  ASSERT_TRUE(builtins.ok()) << builtins.error().message;
  Given setup{std::move(*builtins)};
  Judge run(setup.make());
  (void)judge_one(run, text_reply("find", "run", envelope(3, 3, false, false)));
  ASSERT_NE(run.profile_of("find"), nullptr);
  auto shard = run.fork();
  EXPECT_EQ(shard->profile_of("find"), run.profile_of("find"));
  EXPECT_EQ(&shard->validators("find"), &run.validators("find"));  // compiled once, shared
  // Judged on the shard under the profile its parent saw; nothing reaches the parent before absorb.
  const Judged cut = judge_one(*shard, text_reply("find", "go", envelope(40, 2, true, false)));
  EXPECT_TRUE(cut.envelope.profile != nullptr);
  EXPECT_EQ(run.coverage().at("find").calls, 1u);
  (void)run.absorb(*shard);
  EXPECT_EQ(run.coverage().at("find").calls, 2u);
}

}  // namespace
}  // namespace ctxo::checks
