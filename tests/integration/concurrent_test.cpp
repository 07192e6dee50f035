// SPDX-License-Identifier: MIT
// P-CONCURRENT end to end (issue 31): tests/npm/fixtures/concurrent/racy.mjs (official SDK,
// McpServer + zod) has two read-only tools whose answers mix up only when calls overlap (per-call
// state in a module variable across an await; one temporary file shared by every call), and one
// that is right. Each defect is exactly one P-CONCURRENT on its tool, with the batch that showed
// it, the same for --jobs 2, and its case replays it. The twin serialised by a lock
// (CONCURRENT_LOCK=1) and out-of-order.mjs (answers out of order, correctly) pass it;
// --concurrency 0 sends no batch at all. Over Streamable HTTP (the stdio bridge in front of the
// same server) each request of a batch is its own POST, all in flight: the same two findings.
// clock.mjs's answer moves on by itself whenever calls overlap (a clock turning over while a
// batch is in flight): asked alone after the batch it answers the new tick too, so no race.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "../support/net.h"
#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string fixture(const std::string& name) {
  return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/concurrent/" + name;
}

std::map<std::pair<std::string, std::string>, int> found(const HarnessRun& r) {
  std::map<std::pair<std::string, std::string>, int> out;
  for (const auto& f : r.report["findings"]) out[{f["invariant"].get<std::string>(), f["tool"].get<std::string>()}]++;
  return out;
}

std::string outcome(const HarnessRun& r, const std::string& tool) {
  for (const auto& t : r.report["tools"])
    if (t["name"] == tool) return t["outcomes"].value("P-CONCURRENT", std::string("absent"));
  return "no such tool";
}

// In the sandbox where one can be made: racy.mjs names its scratch file by its pid, the same pid 2
// in each server's PID namespace, and the two servers of `--jobs 2` each have a /tmp of their own.
const std::vector<std::string> kQuick = {"--seed", "7", "--calls", "6", "--tool-budget", "20"};

std::vector<std::string> with(std::vector<std::string> extra, const std::string& server,
                              std::vector<std::string> env = {}) {
  std::vector<std::string> args = kQuick;
  args.insert(args.end(), extra.begin(), extra.end());
  for (const auto& e : env) {
    args.push_back("--env");
    args.push_back(e);
  }
  args.insert(args.end(), {"--", "node", fixture(server)});
  return args;
}

TEST(Concurrent, EachRaceIsOneFindingOnItsToolWithItsBatchAndReplays) {
  REQUIRE_NPM(sdk_dir());
  const auto cases = std::filesystem::path(CTXO_BINARY_DIR) / "test-tmp" / "concurrent-cases";
  std::filesystem::remove_all(cases);
  HarnessRun r = run_harness(with({"--cases", cases.string()}, "racy.mjs"));
  ASSERT_TRUE(r.report.is_object()) << r.err;
  const std::map<std::pair<std::string, std::string>, int> want = {{{"P-CONCURRENT", "get_user"}, 1},
                                                                   {{"P-CONCURRENT", "render_report"}, 1}};
  EXPECT_EQ(found(r), want) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(outcome(r, "list_regions"), "passed") << "the right tool, in the same batches";
  for (const auto& f : r.report["findings"]) {
    EXPECT_EQ(f["severity"], "error") << "read-only tools: an error";
    EXPECT_EQ(f["phase"], "concurrent");
    ASSERT_TRUE(f.contains("batch")) << f;
    EXPECT_GE(f["batch"].size(), 2u);
    EXPECT_NE(std::find(f["batch"].begin(), f["batch"].end(), f["request"]), f["batch"].end())
        << "the request that differed is one of the batch";
    const std::string d = f["diagnosis"].get<std::string>();
    EXPECT_NE(d.find("in flight at once on one session"), std::string::npos) << d;
    EXPECT_NE(d.find(" of 5 tries differed"), std::string::npos) << d;
    // The replay line sends the whole batch at once into the server's stdin.
    const std::string replay = f["replay"].get<std::string>();
    for (const auto& req : f["batch"])
      EXPECT_NE(replay.find(std::to_string(req["id"].get<long long>())), std::string::npos) << replay;
  }

  // --jobs 2: the same batches, the same findings.
  HarnessRun two = run_harness(with({"--no-cases", "--jobs", "2"}, "racy.mjs"));
  ASSERT_TRUE(two.report.is_object()) << two.err;
  ASSERT_EQ(found(two), want) << two.report["findings"].dump(2);
  for (std::size_t i = 0; i < r.report["findings"].size(); ++i)
    EXPECT_EQ(two.report["findings"][i]["batch"], r.report["findings"][i]["batch"]);

  // Each case sends its batch again and says how often it differed.
  std::size_t replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cases)) {
    HarnessRun again = run_harness({"replay", entry.path().string()});
    ++replayed;
    EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
    EXPECT_NE(again.out.find("still fails: P-CONCURRENT on "), std::string::npos) << again.out;
    EXPECT_NE(again.out.find(" of 5 tries differed"), std::string::npos) << again.out;
  }
  EXPECT_EQ(replayed, 2u);
}

TEST(Concurrent, OverStreamableHttpTheBatchIsConcurrentPosts) {
  REQUIRE_NPM(sdk_dir());
  const int port = free_port();
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
  std::vector<std::string> args = kQuick;
  args.insert(args.end(), {"--no-cases", "--env", "PORT=" + std::to_string(port), "--url", url, "--", "node",
                           std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/http/stdio-bridge.mjs", "--", "node",
                           fixture("racy.mjs")});
  HarnessRun r = run_harness(args);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  const std::map<std::pair<std::string, std::string>, int> want = {{{"P-CONCURRENT", "get_user"}, 1},
                                                                   {{"P-CONCURRENT", "render_report"}, 1}};
  EXPECT_EQ(found(r), want) << r.report["findings"].dump(2);
  EXPECT_EQ(outcome(r, "list_regions"), "passed");
}

TEST(Concurrent, ASharedStateSerialisedByALockPasses) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_harness(with({"--no-cases"}, "racy.mjs", {"CONCURRENT_LOCK=1"}));
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  for (const char* tool : {"get_user", "render_report", "list_regions"}) EXPECT_EQ(outcome(r, tool), "passed") << tool;
}

// Before the call was asked alone again after a differing batch, this was P-CONCURRENT on
// `status` (and server-everything's get-resource-reference, "created at 9:21:43 PM", failed CI
// the same way when a second turned over during its batch).
TEST(Concurrent, AnAnswerThatMovedOnAloneTooIsNoRace) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_harness(with({"--no-cases"}, "clock.mjs"));
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  // Its mixed batches (one call of it in flight: no tick) held; the partner held throughout.
  EXPECT_EQ(outcome(r, "status"), "passed");
  EXPECT_EQ(outcome(r, "list_regions"), "passed");
  // Alone, only batches with itself: each moved on, none held. Not observed, and said why.
  HarnessRun alone = run_harness(with({"--no-cases", "--tools", "status"}, "clock.mjs"));
  ASSERT_TRUE(alone.report.is_object()) << alone.err;
  EXPECT_TRUE(alone.report["findings"].empty()) << alone.report["findings"].dump(2);
  EXPECT_EQ(outcome(alone, "status"), "not_observed");
  EXPECT_NE(alone.report.dump().find("had moved on alone as well"), std::string::npos);
}

TEST(Concurrent, AnswersOutOfOrderEachUnderItsOwnIdPass) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_harness(with({"--no-cases", "--concurrency", "8"}, "out-of-order.mjs"));
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(outcome(r, "square"), "passed");
  EXPECT_EQ(outcome(r, "word_of_day"), "passed") << "idempotentHint is sent in batches too";
}

TEST(Concurrent, ConcurrencyZeroSendsNoBatch) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_harness(with({"--no-cases", "--concurrency", "0"}, "racy.mjs"));
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(outcome(r, "get_user"), "absent");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

}  // namespace
}  // namespace ctxo::test
