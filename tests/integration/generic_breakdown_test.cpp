// SPDX-License-Identifier: MIT
// A breakdown that does not add up (issue 42): tests/npm/fixtures/dialects/breakdown.mjs answers
// summaries with a total, per-value counts and the list they describe. Its defects, each TR-COUNT
// breakdown-mismatch on one tool: task_summary's counts add up to less than its total;
// issue_stats's add up but swap two values against the list. tag_counts (tags are not a partition
// of the notes) and build_report (no list) must draw nothing. BREAKDOWN_CONFORMANT=1 (the twin)
// counts the list: no finding.
#include <gtest/gtest.h>

#include <set>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string server() { return dialect_server("breakdown"); }

HarnessRun run(bool conformant) {
  return run_harness({"--seed", "1", "--calls", "3", "--no-cases", "--env",
                      conformant ? "BREAKDOWN_CONFORMANT=1" : "BREAKDOWN_CONFORMANT=0", "--", "node", server()});
}

TEST(GenericBreakdown, CountsThatDisagreeWithTheirListOrTotalAreFound) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(false);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  const std::set<std::string> want = {"TR-COUNT task_summary breakdown-mismatch", "TR-COUNT issue_stats breakdown-mismatch"};
  EXPECT_EQ(r.found(), want) << r.report["findings"].dump(2);
  for (const auto& f : r.report["findings"]) {
    const std::string d = f["diagnosis"].get<std::string>();
    if (f["tool"] == "task_summary") {
      EXPECT_NE(d.find("(11 in all), but `total` is 12"), std::string::npos) << d;
      EXPECT_NE(d.find("pending 4"), std::string::npos) << d;  // what the list shows
    } else {
      EXPECT_NE(d.find("by `state` they are closed 2, open 5"), std::string::npos) << d;  // keys in JSON order (sorted)
    }
  }
  EXPECT_EQ(r.exit_code, 1);
}

TEST(GenericBreakdown, TheConformantTwinHasNoFinding) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(true);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

}  // namespace
}  // namespace ctxo::test
