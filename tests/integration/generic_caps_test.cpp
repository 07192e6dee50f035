// SPDX-License-Identifier: MIT
// Designs whose limit cannot be varied (issue 42): tests/npm/fixtures/dialects/capped.mjs caps
// every answer at a constant 20 items whatever the `limit` asked, and says so. The engine calls a
// cut answer again with `limit` 20 and 21. Its defects, one per tool:
//   list_logs    keeps the last 20 of what was asked when the cap cuts   -> TR-PREFIX cut-not-a-prefix
//   list_alerts  caps only without a limit or above 50: `limit: 21` returns 21
//                                                                         -> TR-MAXIMAL constant-cap-not-largest
// list_events (JSON) and search_notes (Markdown "Showing 20 of 57") are true constant caps: both
// rules pass on them. CAPPED_CONFORMANT=1 (the twin) keeps the first 20 everywhere: no finding,
// both rules passed on every tool. `ctxo-conform check` on the transcript agrees.
#include <gtest/gtest.h>

#include <set>
#include <unistd.h>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string server() { return dialect_server("capped"); }

HarnessRun run(bool conformant, const std::string& record = "") {
  std::vector<std::string> args = {"--seed", "1", "--calls", "3", "--no-cases", "--no-shrink", "--env",
                                   conformant ? "CAPPED_CONFORMANT=1" : "CAPPED_CONFORMANT=0"};
  if (!record.empty()) args.insert(args.end(), {"--record", record});
  args.insert(args.end(), {"--", "node", server()});
  return run_harness(args);
}

TEST(GenericCapsServer, ACutThatIsNotThePrefixOrNotTheLargestIsFound) {
  REQUIRE_NPM(sdk_dir());
  const std::string rec = std::string(CTXO_BINARY_DIR) + "/test-tmp/generic-caps-" + std::to_string(::getpid()) + ".jsonl";
  HarnessRun r = run(false, rec);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
  const std::set<std::string> want = {"TR-PREFIX list_logs cut-not-a-prefix", "TR-MAXIMAL list_alerts constant-cap-not-largest"};
  EXPECT_EQ(r.found(), want) << r.report["findings"].dump(2);
  for (const auto& f : r.report["findings"]) {
    EXPECT_EQ(f.value("profile", ""), "generic") << f.dump(2);
    EXPECT_EQ(f.value("phase", ""), "boundary") << f.dump(2);
    EXPECT_EQ(f["cause"]["facts"].value("argument", ""), "limit") << f.dump(2);
    const std::string d = f["diagnosis"].get<std::string>();
    EXPECT_NE(d.find("the cut came from a cap of the server"), std::string::npos) << d;
    if (f["invariant"] == "TR-PREFIX") {
      // The cut call, the call at limit 20, the first differing items (oldest kept vs newest).
      EXPECT_NE(d.find("the same call with `limit` 20"), std::string::npos) << d;
      EXPECT_NE(d.find("\"seq\":1}"), std::string::npos) << d;
      EXPECT_NE(d.find("\"seq\":38}"), std::string::npos) << d;
    } else {
      EXPECT_NE(d.find("the same call with `limit` 21"), std::string::npos) << d;
      EXPECT_NE(d.find("returned 21 items, the cut answer's 20 items and then {\"id\":\"AL-021\""), std::string::npos) << d;
      EXPECT_GT(f["request"]["params"]["arguments"].value("limit", 0), 50) << f.dump(2);  // the cut call
    }
  }
  const std::map<std::string, std::string> prefix = {
      {"list_events", "passed"}, {"list_logs", "failed"}, {"list_alerts", "passed"}, {"search_notes", "passed"}};
  const std::map<std::string, std::string> maximal = {
      {"list_events", "passed"}, {"list_logs", "not_observed"}, {"list_alerts", "failed"}, {"search_notes", "passed"}};
  EXPECT_EQ(r.outcomes("TR-PREFIX"), prefix);
  EXPECT_EQ(r.outcomes("TR-MAXIMAL"), maximal);
  EXPECT_EQ(r.exit_code, 1);

  // Offline: `check` pairs the transcript's calls the same way.
  HarnessRun offline = run_harness({"check", rec});
  ASSERT_TRUE(offline.report.is_object()) << offline.err;
  EXPECT_EQ(offline.found(), want) << offline.report["findings"].dump(2);
  EXPECT_EQ(offline.outcomes("TR-PREFIX"), prefix);
  EXPECT_EQ(offline.outcomes("TR-MAXIMAL"), maximal);
}

TEST(GenericCapsServer, TheConformantTwinHasNoFindingAndPassesBoth) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(true);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::map<std::string, std::string> passed = {
      {"list_events", "passed"}, {"list_logs", "passed"}, {"list_alerts", "passed"}, {"search_notes", "passed"}};
  EXPECT_EQ(r.outcomes("TR-PREFIX"), passed);
  EXPECT_EQ(r.outcomes("TR-MAXIMAL"), passed);
}

}  // namespace
}  // namespace ctxo::test
