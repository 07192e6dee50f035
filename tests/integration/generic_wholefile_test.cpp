// SPDX-License-Identifier: MIT
// Whole-file answers against the workspace (issue 42): tests/npm/fixtures/dialects/wholefile.mjs
// blames and reads the files of tests/npm/fixtures/reach/workspace. Its defects, each one id on one
// tool: git_blame gives one line per commit and counts what it gave (TR-COUNT, it says it is
// complete); read_file leaves out the lines holding non-ASCII text and says nothing (TR-HINT).
// file_outline (an outline is not the file) and read_head (a count the call chose) must draw
// nothing. WHOLE_CONFORMANT=1 (the twin) gives every line: no finding, and the rule passed.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string server() { return dialect_server("wholefile"); }
std::string workspace() { return reach_workspace(); }

HarnessRun run(bool conformant) {
  return run_harness({"--seed", "1", "--calls", "10", "--no-cases", "--root", workspace(), "--cwd", workspace(), "--env",
                      conformant ? "WHOLE_CONFORMANT=1" : "WHOLE_CONFORMANT=0", "--", "node", server()});
}

TEST(GenericWholeFile, LinesAReadOrABlameLeftOutAreFoundInTheWorkspace) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(false);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  std::set<std::tuple<std::string, std::string, std::string>> got;
  for (const auto& f : r.report["findings"]) {
    const auto& facts = f["cause"]["facts"];
    got.insert({f["invariant"].get<std::string>(), f["tool"].get<std::string>(), facts.value("claim", "")});
    EXPECT_EQ(facts.value("form", ""), "workspace-omission") << f.dump(2);
    EXPECT_EQ(facts.value("kind", ""), "lines-asked") << f.dump(2);
    ASSERT_TRUE(f.contains("location")) << f.dump(2);
    EXPECT_GT(f["location"].value("line", 0), 1) << f.dump(2);
    EXPECT_NE(f["diagnosis"].get<std::string>().find("leaves out"), std::string::npos) << f.dump(2);
  }
  const std::set<std::tuple<std::string, std::string, std::string>> want = {{"TR-COUNT", "git_blame", "complete"},
                                                                            {"TR-HINT", "read_file", "silent"}};
  EXPECT_EQ(got, want) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 1);
}

TEST(GenericWholeFile, TheConformantTwinHasNoFindingAndTheRulePassedWhereItJudged) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(true);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto hint = r.outcomes("TR-HINT");
  EXPECT_EQ(hint.at("git_blame"), "passed");
  EXPECT_EQ(hint.at("read_file"), "passed");
  EXPECT_EQ(hint.at("file_outline"), "not_observed");  // not judged: an outline
  EXPECT_EQ(hint.at("read_head"), "not_observed");     // not judged: a count the call chose
  EXPECT_EQ(r.outcomes("TR-COUNT").at("git_blame"), "passed");
}

}  // namespace
}  // namespace ctxo::test
