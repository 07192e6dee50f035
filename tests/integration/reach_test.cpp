// SPDX-License-Identifier: MIT
// The reach suite (tests/npm/fixtures/reach): a code-intelligence server written with the official
// TypeScript SDK whose listing tools name things (`name`, `id`, `path`, `commitId`) that its lookup
// tools take under other parameter names (`symbol`, `symbolId`, `query`), and whose four defects
// show only on real data. The default run must find each, exactly; with --no-harvest the three
// that need harvested values are not found (proving the test measures reach), and the coverage
// numbers say why. See the suite's README.md.
#include <gtest/gtest.h>

#include <map>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string sdk_dir() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/node_modules/@modelcontextprotocol/sdk"; }
std::string suite() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/reach"; }

HarnessRun run_reach(std::vector<std::string> flags, bool conformant = false) {
  std::vector<std::string> args = {"--seed", "1", "--no-cases", "--root", suite() + "/workspace"};
  if (conformant) args.insert(args.end(), {"--env", "REACH_CONFORMANT=1"});
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "node", suite() + "/codeintel.mjs"});
  return run_harness(args);
}

// "INVARIANT tool" of every finding, warnings included.
std::set<std::string> found(const HarnessRun& r) {
  std::set<std::string> s;
  for (const auto& f : r.report["findings"]) s.insert(f["invariant"].get<std::string>() + " " + f["tool"].get<std::string>());
  return s;
}

const nlohmann::json& tool(const HarnessRun& r, const std::string& name) {
  static const nlohmann::json none;
  for (const auto& t : r.report["tools"])
    if (t["name"] == name) return t;
  return none;
}

// Every category counted once: they add up to the calls the harness made to the tool.
void expect_exact_coverage(const HarnessRun& r) {
  for (const auto& t : r.report["tools"]) {
    SCOPED_TRACE(t["name"].get<std::string>());
    const auto& c = t["coverage"];
    ASSERT_TRUE(c.is_object());
    EXPECT_EQ(c["calls"], t["calls"]);
    EXPECT_EQ(c["calls"].get<int>(), c["data"].get<int>() + c["empty"].get<int>() + c["misses"].get<int>() +
                                          c["errors"].get<int>() + c["refusals"].get<int>() + c["no_answer"].get<int>());
    EXPECT_EQ(c["errors"], 0) << "the server answers every valid call";
    EXPECT_EQ(c["no_answer"], 0);
  }
}

TEST(Reach, DefaultRunFindsEveryDefectThatNeedsRealData) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_reach({});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(found(r), (std::set<std::string>{"POS-UTF16 find_references", "TR-COUNT get_callers",
                                             "TR-HINT search_text", "POS-BASE file_outline"}))
      << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 1);
  expect_exact_coverage(r);
  // blame is called before file_history, the only tool naming commits: its first pass reaches
  // nothing; the second pass, with file_history's commitIds, reaches its data.
  const auto& blame = tool(r, "blame");
  EXPECT_GT(blame["second_pass_calls"].get<int>(), 0) << blame.dump(2);
  EXPECT_GT(blame["coverage"]["data"].get<int>(), 0) << blame.dump(2);
  // search_text's calls that matched were repeated with `limit` driven small: that cut is the
  // TR-HINT.
  EXPECT_GT(tool(r, "search_text")["driven_calls"].get<int>(), 0);
  EXPECT_GT(tool(r, "search_text")["coverage"]["truncated"].get<int>(), 0);
  for (const auto& t : r.report["tools"]) EXPECT_GT(t["coverage"]["data"].get<int>(), 0) << t.dump(2);
  for (const auto& n : r.report["notes"]) EXPECT_EQ(n.get<std::string>().find("reached data"), std::string::npos) << n;
}

TEST(Reach, WithoutHarvestingTheLookupsReachNothingAndSaySo) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_reach({"--no-harvest"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  // Only the defect a schema hint reaches (file_outline's "e.g. 'src/app.ts'") is found.
  EXPECT_EQ(found(r), std::set<std::string>{"POS-BASE file_outline"}) << r.report["findings"].dump(2);
  expect_exact_coverage(r);
  for (const char* name : {"find_references", "get_callers", "blame", "file_history"}) {
    SCOPED_TRACE(name);
    const auto& c = tool(r, name)["coverage"];
    EXPECT_EQ(c["data"], 0) << c.dump();
    EXPECT_EQ(c["misses"].get<int>() + c["refusals"].get<int>(), c["calls"].get<int>()) << "every call a miss or refused";
    bool noted = false;
    for (const auto& n : r.report["notes"])
      if (n.get<std::string>().rfind(std::string("tool ") + name + ": 0/", 0) == 0) noted = true;
    EXPECT_TRUE(noted) << r.report["notes"].dump(2);
    // Every rule it left unobserved says why.
    for (const auto& [id, why] : tool(r, name)["not_observed"].items())
      EXPECT_NE(why.get<std::string>().find("calls reached data"), std::string::npos) << id << ": " << why;
  }
  const auto& search = tool(r, "search_text")["coverage"];
  EXPECT_EQ(search["data"], 0) << "random words match nothing";
  EXPECT_EQ(search["empty"].get<int>() + search["refusals"].get<int>(), search["calls"].get<int>());
  EXPECT_EQ(tool(r, "search_text")["driven_calls"], 0) << "nothing reached data, so nothing to drive";
  EXPECT_EQ(tool(r, "blame")["second_pass_calls"], 0);
}

TEST(Reach, TheConformantTwinHasNoFinding) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_reach({}, true);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(found(r).empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  expect_exact_coverage(r);
}

// Exact numbers on answers known in advance: list_files takes no argument, so its calls are the
// empty call (data), the E-STABLE repeat (data), and refused invalid ones; with --calls 4 and no
// shrinking the harness makes a fixed set of calls.
TEST(Reach, CoverageIsExactOnKnownAnswers) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_reach({"--tools", "list_files,blame", "--calls", "4", "--no-shrink"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  expect_exact_coverage(r);
  const auto& files = tool(r, "list_files")["coverage"];
  EXPECT_EQ(files["misses"], 0);
  EXPECT_EQ(files["data"].get<int>() + files["refusals"].get<int>(), files["calls"].get<int>()) << files.dump();
  EXPECT_GE(files["data"].get<int>(), 1);
  EXPECT_EQ(files["largest_bytes"], 188) << "the whole file list, {files:[3 files], _meta}";
  // blame without file_history: every valid call misses, and no second pass can help.
  const auto& blame = tool(r, "blame")["coverage"];
  EXPECT_EQ(blame["data"], 0);
  EXPECT_EQ(blame["misses"].get<int>() + blame["refusals"].get<int>(), blame["calls"].get<int>()) << blame.dump();
}

}  // namespace
}  // namespace ctxo::test
