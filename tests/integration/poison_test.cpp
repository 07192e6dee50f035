// SPDX-License-Identifier: MIT
// T-POISON (issue 43, "a server broken by one call"), end to end on
// tests/npm/fixtures/poison/vectors.mjs (official SDK, low-level Server): a vector store whose
// insert_batch with a negative batch_size leaves every tool failing "out of memory" while the
// process keeps running. The run reports that call once (shrunk, replayable), restarts the server
// and goes on on a fresh one, so later tools reach data and the failures do not flood the report;
// the conformant twin, and a server whose backend is never there, give no T-POISON.
#include <gtest/gtest.h>

#include <set>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

using nlohmann::json;

std::string fixture() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/poison/vectors.mjs"; }

HarnessRun run(std::vector<std::string> env, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--seed", "1", "--no-cases"};
  for (auto& e : env) args.insert(args.end(), {"--env", e});
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--", "node", fixture()});
  return run_harness(args);
}

std::vector<json> findings_of(const HarnessRun& r, const std::string& id) {
  std::vector<json> out;
  for (const auto& f : r.report["findings"])
    if (f["invariant"] == id) out.push_back(f);
  return out;
}

std::size_t hits(const HarnessRun& r, const std::string& id) {
  std::size_t n = 0;
  for (const auto& f : findings_of(r, id)) n += f.value("count", 1);
  return n;
}

json tool_row(const HarnessRun& r, const std::string& name) {
  for (const auto& t : r.report["tools"])
    if (t["name"] == name) return t;
  return json();
}

// The one T-POISON finding: the insert_batch call with a negative batch_size, its items cut away,
// the failure quoted, and a replay that sends it and then a call of another tool.
void expect_poison_case(const HarnessRun& r) {
  const auto poison = findings_of(r, "T-POISON");
  ASSERT_EQ(poison.size(), 1u) << r.report["findings"].dump(2);
  const json& f = poison[0];
  EXPECT_EQ(f["tool"], "insert_batch");
  EXPECT_EQ(f["severity"], "error");
  EXPECT_EQ(f["cause"]["facts"], (json{{"form", "broken-by-call"}}));
  const json& args = f["request"]["params"]["arguments"];
  ASSERT_TRUE(args.contains("batch_size")) << f.dump(2);
  EXPECT_LT(args["batch_size"].get<double>(), 0) << f.dump(2);
  EXPECT_GE(args["batch_size"].get<double>(), -1) << "shrunk to -1: " << f.dump(2);
  EXPECT_TRUE(!args.contains("items") || args["items"].empty()) << f.dump(2);
  EXPECT_NE(f["response_excerpt"].get<std::string>().find("out of memory"), std::string::npos);
  const std::string replay = f["replay"].get<std::string>();
  const auto at = replay.find("insert_batch");
  ASSERT_NE(at, std::string::npos) << replay;
  bool other_after = false;
  for (const char* t : {"\"count\"", "\"search\"", "\"get\""}) other_after = other_after || replay.find(t, at) != std::string::npos;
  EXPECT_TRUE(other_after) << "the replay sends the breaking call, then a call of another tool: " << replay;
  EXPECT_NE(f["diagnosis"].get<std::string>().find("restarted the server"), std::string::npos) << f["diagnosis"];
  // The rest of the run went on on a fresh server: the tools after it reached data.
  for (const char* t : {"search", "count", "get"}) {
    const json row = tool_row(r, t);
    ASSERT_TRUE(row.is_object()) << t;
    EXPECT_GT(row["coverage"]["data"].get<int>(), 0) << t << ": " << row.dump(2);
  }
  EXPECT_GT(r.report["stats"]["restarts"].get<int>(), 0);
}

TEST(Poison, OneCallThatBreaksEveryToolIsOneFindingAndTheRunGoesOnOnAFreshServer) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run({});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
  EXPECT_EQ(r.exit_code, 1);
  expect_poison_case(r);
  // isError answers: honest failures, nothing else to report.
  EXPECT_EQ(r.all_ids(), (std::set<std::string>{"T-POISON"})) << r.report["findings"].dump(2);
}

// The server: once broken, every call got JSON-RPC -32603. Before T-POISON (it skipped)
// every later valid call of every tool was a P-NO-THROW hit; with it, the breaking call's own
// -32603 is the one P-NO-THROW left, on insert_batch, and the failing calls after it are the
// T-POISON finding.
TEST(Poison, JsonRpcErrorsAfterTheBreakingCallDoNotFloodTheReport) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun before = run({"POISON_FORM=throw"}, {"--skip", "T-POISON"});
  ASSERT_TRUE(before.report.is_object()) << before.err;
  const std::size_t flood = hits(before, "P-NO-THROW");
  EXPECT_GE(flood, 50u) << "the broken server's failures were P-NO-THROW hits: " << before.report["findings"].dump(2);
  std::size_t without_data = 0;
  for (const auto& t : before.report["tools"]) without_data += t["coverage"]["data"].get<int>() == 0 ? 1 : 0;
  EXPECT_GE(without_data, 1u);

  HarnessRun r = run({"POISON_FORM=throw"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
  expect_poison_case(r);
  const auto nothrow = findings_of(r, "P-NO-THROW");
  ASSERT_LE(nothrow.size(), 1u) << r.report["findings"].dump(2);
  if (!nothrow.empty()) {
    EXPECT_EQ(nothrow[0]["tool"], "insert_batch") << nothrow[0].dump(2);
    EXPECT_EQ(nothrow[0]["cause"]["facts"], (json{{"code", "-32603"}, {"form", "jsonrpc-error"}}));
  }
  EXPECT_LE(hits(r, "P-NO-THROW"), 20u) << "at most the breaking calls' own answers: " << r.report["findings"].dump(2);
  EXPECT_LT(hits(r, "P-NO-THROW") * 3, flood);
}

TEST(Poison, TheConformantTwinThatRefusesANegativeBatchGivesNoFinding) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run({"POISON_CONFORMANT=1", "POISON_FORM=throw"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
  EXPECT_TRUE(findings_of(r, "T-POISON").empty()) << r.report["findings"].dump(2);
  EXPECT_TRUE(findings_of(r, "P-NO-THROW").empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.report["stats"]["restarts"].get<int>(), 0);
  EXPECT_EQ(r.report["server_outcomes"].value("T-POISON", ""), "passed") << r.report["server_outcomes"].dump();
}

TEST(Poison, AServerFailingTheSameWayFromItsFirstCallIsNotPoisoned) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run({"POISON_BACKEND=down"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(findings_of(r, "T-POISON").empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.report["stats"]["restarts"].get<int>(), 0);
}

TEST(Poison, EachJobsSessionIsWatchedAndTheCauseIsOneFinding) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run({}, {"--jobs", "2"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
  expect_poison_case(r);
}

}  // namespace
}  // namespace ctxo::test
