// SPDX-License-Identifier: MIT
// Self-made data (issue 43; engine/self_made.h): an answer about what the run itself wrote is not
// the server's data. tests/npm/fixtures/reach/selfmade.mjs is an entity store whose lookup answers
// only about entities that exist; started empty, the only entities are those the run's calls to
// create_entity made up, so every lookup that finds one reads back the run's own write.
#include <gtest/gtest.h>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string server() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/reach/selfmade.mjs"; }

const nlohmann::json& tool(const HarnessRun& r, const std::string& name) {
  static const nlohmann::json none;
  for (const auto& t : r.report["tools"])
    if (t["name"] == name) return t;
  return none;
}

bool noted(const HarnessRun& r, const std::string& text) {
  for (const auto& n : r.report["notes"])
    if (n.is_string() && n.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// An empty store: read_entity finds only entities the run created. Its data is self-made, not data
// (before the category every such answer counted as data: read_entity "reached data"), and the
// note says so; create_entity's own answers stay data (the write itself was answered).
TEST(SelfMade, ALookupThatReadsBackOnlyTheRunsOwnWritesReachedNoData) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_harness({"--seed", "1", "--no-cases", "--", "node", server()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  const auto& read = tool(r, "read_entity")["coverage"];
  ASSERT_TRUE(read.is_object()) << r.report["tools"].dump(2);
  EXPECT_EQ(read["data"], 0) << read.dump();
  EXPECT_GT(read["self_made"].get<int>(), 0) << read.dump();
  EXPECT_EQ(read["calls"].get<int>(), read["data"].get<int>() + read["self_made"].get<int>() + read["empty"].get<int>() +
                                          read["misses"].get<int>() + read["errors"].get<int>() +
                                          read["refusals"].get<int>() + read["no_answer"].get<int>() +
                                          read["leaks"].get<int>());
  EXPECT_TRUE(noted(r, "tool read_entity: 0/")) << r.report["notes"].dump(2);
  EXPECT_TRUE(noted(r, "its only data was what the run itself had written")) << r.report["notes"].dump(2);
  EXPECT_GT(tool(r, "create_entity")["coverage"]["data"].get<int>(), 0);
  EXPECT_EQ(tool(r, "create_entity")["coverage"]["self_made"], 0);
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
}

// The store's own entities (named by its listing) are the server's data: read_entity reaches data
// through them, beside the self-made answers.
TEST(SelfMade, TheServersOwnEntitiesAreData) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_harness({"--seed", "1", "--no-cases", "--env", "SELFMADE_SEEDED=1", "--", "node", server()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  const auto& read = tool(r, "read_entity")["coverage"];
  EXPECT_GT(read["data"].get<int>(), 0) << read.dump();
  EXPECT_FALSE(noted(r, "tool read_entity: 0/")) << r.report["notes"].dump(2);
}

}  // namespace
}  // namespace ctxo::test
