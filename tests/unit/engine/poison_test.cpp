// SPDX-License-Identifier: MIT
// T-POISON's watch (engine/poison.h) on its own: the failure texts it compares, and when a streak
// of the same failure raises a suspicion, with the call before it and the witnesses it keeps.
#include "engine/poison.h"

#include <gtest/gtest.h>

#include "core/text.h"

namespace ctxo::engine {
namespace {

using nlohmann::json;

json call(std::int64_t id, const std::string& tool, json args = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", {{"name", tool}, {"arguments", args}}}};
}

PoisonWatch::Seen ok(const std::string& tool) { return {tool, true, false, 0, 0}; }
PoisonWatch::Seen failed(const std::string& tool, const std::string& text, bool valid = true, std::size_t number = 0) {
  return {tool, valid, true, failure_hash(text), number};
}

TEST(PoisonText, NumbersAndHexRunsAndSpacesAreNormalised) {
  EXPECT_EQ(normalised_failure("  Error: out of memory\n(allocating 4294967295 bytes)  "),
            "Error: out of memory (allocating # bytes)");
  EXPECT_EQ(normalised_failure("handle 0x7f3a9c00 is closed"), "handle #x# is closed");
  EXPECT_EQ(normalised_failure("request deadbeefcafe failed"), "request # failed");
  EXPECT_EQ(normalised_failure("a bad face"), "a bad face");  // short hex-letter words stay
  EXPECT_EQ(normalised_failure(std::string(500, 'x')).size(), kFailureChars);
  for (const char* t : {"Error: out of memory", " x  12 y\n", "", "deadbeefcafe0 and 77"})
    EXPECT_EQ(failure_hash(t), fnv1a(normalised_failure(t))) << t;
  EXPECT_EQ(failure_hash("connect ECONNREFUSED 127.0.0.1:6333"), failure_hash("connect ECONNREFUSED 10.0.0.2:80"));
  EXPECT_NE(failure_hash("Error: out of memory"), failure_hash("Error: not found"));
}

TEST(PoisonWatch, AStreakOfOneFailureAfterWorkingCallsRaisesASuspicionWithTheCallBeforeIt) {
  PoisonWatch pw;
  EXPECT_FALSE(pw.see(ok("count"), call(1, "count")));
  EXPECT_FALSE(pw.see(ok("insert_batch"), call(2, "insert_batch", {{"batch_size", 4}})));
  EXPECT_FALSE(pw.see(ok("insert_batch"), call(3, "insert_batch", {{"batch_size", 5}})));
  // The breaking call answers normally; everything after it fails.
  EXPECT_FALSE(pw.see(ok("insert_batch"), call(4, "insert_batch", {{"batch_size", -1}})));
  EXPECT_FALSE(pw.see(failed("insert_batch", "Error: out of memory", true, 97), call(5, "insert_batch")));
  // An invalid call's error neither extends nor ends the streak.
  EXPECT_FALSE(pw.see(failed("insert_batch", "items must be a list", false), call(6, "insert_batch")));
  EXPECT_FALSE(pw.see(failed("insert_batch", "Error: out of memory"), call(7, "insert_batch")));
  EXPECT_TRUE(pw.see(failed("search", "Error: out of memory"), call(8, "search")));
  EXPECT_EQ(pw.length(), 3u);
  EXPECT_EQ(pw.at(), 5u);
  EXPECT_EQ(pw.number(), 97u);  // the run's number of the streak's first call
  EXPECT_EQ(pw.first()["id"], 5);
  EXPECT_EQ(pw.before()["id"], 4);
  EXPECT_EQ(pw.tools(), (std::vector<std::string>{"insert_batch", "search"}));
  EXPECT_EQ(pw.ids(), (std::vector<std::int64_t>{5, 7, 8}));
  ASSERT_EQ(pw.witnesses().size(), 2u);
  EXPECT_EQ(pw.witnesses()[0].tool, "count");
  EXPECT_EQ(pw.witnesses()[1].request["id"], 2);  // a tool's first normal call is kept
  EXPECT_TRUE(pw.worked("insert_batch"));
  EXPECT_FALSE(pw.worked("search"));
  // Checked: not raised again until the streak reaches another tool.
  pw.checked();
  EXPECT_FALSE(pw.see(failed("search", "Error: out of memory"), call(9, "search")));
  EXPECT_TRUE(pw.see(failed("get", "Error: out of memory"), call(10, "get")));
  pw.checked();
}

TEST(PoisonWatch, TheBreakingCallThatFailsItselfIsTheStreaksFirst) {
  PoisonWatch pw;
  pw.see(ok("count"), call(1, "count"));
  pw.see(failed("insert_batch", "Error: out of memory"), call(2, "insert_batch", {{"batch_size", -1}}));
  pw.see(failed("insert_batch", "Error: out of memory"), call(3, "insert_batch"));
  EXPECT_TRUE(pw.see(failed("search", "Error: out of memory"), call(4, "search")));
  EXPECT_EQ(pw.first()["params"]["arguments"]["batch_size"], -1);
  EXPECT_EQ(pw.before()["id"], 1);
}

TEST(PoisonWatch, ADifferentFailureOrASuccessStartsOver) {
  PoisonWatch pw;
  pw.see(ok("a"), call(1, "a"));
  pw.see(failed("b", "Error: one"), call(2, "b"));
  pw.see(failed("b", "Error: one"), call(3, "b"));
  EXPECT_FALSE(pw.see(failed("c", "Error: two"), call(4, "c")));  // a new streak, the call before it: 3
  EXPECT_EQ(pw.before()["id"], 3);
  EXPECT_EQ(pw.length(), 1u);
  EXPECT_FALSE(pw.see(failed("d", "Error: three"), call(5, "d")));
  EXPECT_EQ(pw.before()["id"], 4);  // the one-call streak's call
  EXPECT_FALSE(pw.see(ok("a"), call(6, "a")));
  EXPECT_EQ(pw.length(), 0u);
}

TEST(PoisonWatch, FailuresFromTheFirstCallHaveNoWitness) {
  PoisonWatch pw;
  bool raised = false;
  for (int i = 1; i <= 12; ++i)
    raised = pw.see(failed(i % 2 ? "search" : "count", "connect ECONNREFUSED 127.0.0.1:" + std::to_string(6000 + i)),
                    call(i, i % 2 ? "search" : "count")) || raised;
  EXPECT_TRUE(raised);  // a streak, but nothing that worked before it: the run needs witnesses
  EXPECT_TRUE(pw.witnesses().empty());
  EXPECT_TRUE(pw.before().is_null());
}

TEST(PoisonWatch, SuspicionsPerInstanceAreBoundedAndAFreshInstanceForgetsTheStreak) {
  PoisonWatch pw;
  pw.see(ok("w"), call(1, "w"));
  std::size_t raised = 0;
  for (int i = 0; i < 40; ++i)
    if (pw.see(failed("t" + std::to_string(i), "boom"), call(10 + i, "t" + std::to_string(i)))) {
      ++raised;
      pw.checked();
    }
  EXPECT_EQ(raised, PoisonWatch::kChecksPerInstance);
  EXPECT_LE(pw.ids().size(), PoisonWatch::kStreakIds);
  pw.fresh_instance();
  EXPECT_EQ(pw.length(), 0u);
  EXPECT_EQ(pw.calls(), 0u);
  EXPECT_TRUE(pw.first().is_null());
  EXPECT_EQ(pw.witnesses().size(), 1u);  // kept across instances
  for (int i = 0; i < 3; ++i) pw.see(failed("x", "boom"), call(100 + i, "x"));
  EXPECT_EQ(pw.length(), 3u);
}

TEST(PoisonWatch, WitnessesAreBoundedToTheLatestTools) {
  PoisonWatch pw;
  for (int i = 0; i < 10; ++i) pw.see(ok("tool" + std::to_string(i)), call(i, "tool" + std::to_string(i)));
  ASSERT_EQ(pw.witnesses().size(), PoisonWatch::kWitnessTools);
  EXPECT_TRUE(pw.worked("tool9"));
  EXPECT_FALSE(pw.worked("tool0"));
}

}  // namespace
}  // namespace ctxo::engine
