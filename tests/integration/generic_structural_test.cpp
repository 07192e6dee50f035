// SPDX-License-Identifier: MIT
// Ranges of {line, column} points beside a path (issue 42): tests/npm/fixtures/dialects/
// structural.mjs answers as ast-grep prints matches, 0-based lines and code-point columns said
// nowhere: POS-BASE (error) on structural_search, nothing on match_count (no position).
// STRUCTURAL_CONFORMANT=1 (the twin) answers 1-based lines and UTF-16 columns: nothing, and the
// position rules passed (the range was read).
#include <gtest/gtest.h>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string server() { return dialect_server("structural"); }
std::string workspace() { return reach_workspace(); }

HarnessRun run(bool conformant) {
  return run_harness({"--seed", "1", "--calls", "10", "--no-cases", "--root", workspace(), "--cwd", workspace(), "--env",
                      conformant ? "STRUCTURAL_CONFORMANT=1" : "STRUCTURAL_CONFORMANT=0", "--", "node", server()});
}

TEST(GenericStructural, AstGrepPointsPassedOnAreFound) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(false);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  ASSERT_EQ(r.report["findings"].size(), 1u) << r.report["findings"].dump(2);
  const auto& f = r.report["findings"][0];
  EXPECT_EQ(f["invariant"], "POS-BASE");
  EXPECT_EQ(f["tool"], "structural_search");
  EXPECT_EQ(f["severity"], "error");
  EXPECT_EQ(f["cause"]["facts"].value("anchor", ""), "/*/range") << f.dump(2);
  EXPECT_EQ(r.exit_code, 1);
}

TEST(GenericStructural, TheConformantTwinHasNoFindingAndItsRangesWereRead) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(true);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.outcomes("POS-BASE")["structural_search"], "passed");
  EXPECT_EQ(r.outcomes("POS-UTF16")["structural_search"], "passed");
}

}  // namespace
}  // namespace ctxo::test
