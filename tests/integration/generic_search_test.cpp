// SPDX-License-Identifier: MIT
// Completeness against the workspace (issue 42): tests/npm/fixtures/dialects/search.mjs searches
// tests/npm/fixtures/reach/workspace in the dialects real search servers use. Its defects, each one
// id on one tool: search_text keeps 2 lines per file and says its total is what it shows
// (TR-COUNT); grep keeps 2 lines per file and says nothing (TR-HINT). find_usages (a reference
// finder: no comments, rightly) and grep_context (context lines: not a search the rule can redo,
// though it cuts too) must draw nothing. SEARCH_CONFORMANT=1 (the twin) lists every line: no
// finding, and the rule passed where it judged.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string server() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/dialects/search.mjs"; }
std::string workspace() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/reach/workspace"; }

HarnessRun run(bool conformant) {
  std::vector<std::string> args = {"--seed", "1", "--calls", "10", "--no-cases", "--root", workspace(), "--cwd", workspace()};
  if (conformant) args.insert(args.end(), {"--env", "SEARCH_CONFORMANT=1"});
  args.insert(args.end(), {"--", "node", server()});
  return run_harness(args);
}

TEST(GenericSearch, LinesASearchLeftOutOfAFileAreFoundInTheWorkspace) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(false);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  std::set<std::tuple<std::string, std::string, std::string>> got;
  for (const auto& f : r.report["findings"]) {
    got.insert({f["invariant"].get<std::string>(), f["tool"].get<std::string>(), f["cause"]["facts"].value("claim", "")});
    EXPECT_EQ(f.value("profile", ""), "generic") << f.dump(2);
    EXPECT_EQ(f["cause"]["facts"].value("form", ""), "workspace-omission") << f.dump(2);
    // It names the file and the first line left out, and says which lines the workspace has.
    ASSERT_TRUE(f.contains("location")) << f.dump(2);
    const std::string file = f["location"].value("file", "");
    EXPECT_TRUE(file == "src/app.ts" || file == "src/jobs.ts" || file == "src/util.ts") << f.dump(2);
    EXPECT_NE(f["diagnosis"].get<std::string>().find("are missing"), std::string::npos) << f.dump(2);
    EXPECT_GT(f["location"].value("line", 0), 0) << f.dump(2);
  }
  const std::set<std::tuple<std::string, std::string, std::string>> want = {
      {"TR-COUNT", "search_text", "complete"}, {"TR-HINT", "grep", "silent"}};
  EXPECT_EQ(got, want) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 1);
}

TEST(GenericSearch, TheConformantTwinHasNoFindingAndTheRulePassedWhereItJudged) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(true);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const auto& t : r.report["tools"]) {
    const std::string name = t["name"].get<std::string>();
    SCOPED_TRACE(name);
    const auto& o = t["outcomes"];
    if (name == "grep" || name == "search_text") {
      EXPECT_EQ(o.value("TR-HINT", ""), "passed") << o.dump();
    } else {
      // A reference finder and a search with context lines: not judged.
      EXPECT_EQ(o.value("TR-HINT", ""), "not_observed") << o.dump();
    }
    if (name == "search_text") {
      EXPECT_EQ(o.value("TR-COUNT", ""), "passed") << o.dump();
    }
  }
}

}  // namespace
}  // namespace ctxo::test
