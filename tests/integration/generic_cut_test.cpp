// SPDX-License-Identifier: MIT
// Cuts that split a character (issue 42): tests/npm/fixtures/dialects/cutchars.mjs lists the lines
// of tests/npm/fixtures/reach/workspace that hold an emoji, each cut inside it, three ways:
// previews (prose, JavaScript's slice: the message holds a lone surrogate), previews_json (the
// same inside the part's own JSON) and snippets (cut by UTF-8 bytes, the half decoded as U+FFFD:
// valid Unicode, so only the workspace shows it). Each is TR-VERBATIM cut-splits-character, one
// root cause; escapes (source text spelling "\ud83d" as six characters) must draw nothing.
// CUT_CONFORMANT=1 (the twin) cuts after the whole character: nothing, and the rule passed.
#include <gtest/gtest.h>

#include <set>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string server() { return dialect_server("cutchars"); }
std::string workspace() { return reach_workspace(); }

HarnessRun run(bool conformant, bool root) {
  std::vector<std::string> args = {"--seed", "1", "--calls", "4", "--no-cases"};
  // Without --root and --cwd the run knows no workspace; the server is told where its files are.
  if (root) args.insert(args.end(), {"--root", workspace(), "--cwd", workspace()});
  else args.insert(args.end(), {"--env", "DIALECTS_ROOT=" + workspace()});
  args.insert(args.end(), {"--env", conformant ? "CUT_CONFORMANT=1" : "CUT_CONFORMANT=0", "--", "node", server()});
  return run_harness(args);
}

// Per tool, its TR-VERBATIM outcome; and every finding is TR-VERBATIM cut-splits-character.
std::map<std::string, std::string> verbatim(const HarnessRun& r) {
  for (const auto& f : r.report["findings"]) {
    EXPECT_EQ(f["invariant"], "TR-VERBATIM") << f.dump(2);
    EXPECT_EQ(f["cause"]["facts"].value("form", ""), "cut-splits-character") << f.dump(2);
    EXPECT_NE(f["diagnosis"].get<std::string>().find("a cut split a character"), std::string::npos) << f.dump(2);
  }
  return r.outcomes("TR-VERBATIM");
}

TEST(GenericCut, EachWayOfCuttingInsideACharacterIsFound) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(false, true);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  auto got = verbatim(r);
  EXPECT_EQ(got["previews"], "failed");
  EXPECT_EQ(got["previews_json"], "failed");
  EXPECT_EQ(got["snippets"], "failed");
  EXPECT_NE(got["escapes"], "failed");
  std::set<std::string> tools;
  for (const auto& f : r.report["findings"])
    for (const auto& t : f.value("tools", nlohmann::json::array({f["tool"]}))) tools.insert(t.get<std::string>());
  EXPECT_EQ(tools, (std::set<std::string>{"previews", "previews_json", "snippets"})) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 1);
}

TEST(GenericCut, WithoutTheWorkspaceOnlyTheLoneSurrogatesAreFound) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(false, false);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  auto got = verbatim(r);
  EXPECT_EQ(got["previews"], "failed");
  EXPECT_EQ(got["previews_json"], "failed");
  // U+FFFD is valid Unicode: without the file, a replaced half cannot be told from the text.
  EXPECT_NE(got["snippets"], "failed");
  EXPECT_NE(got["escapes"], "failed");
}

TEST(GenericCut, TheTwinThatCutsAfterTheCharacterHasNoFinding) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(true, true);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto got = verbatim(r);
  EXPECT_EQ(got["previews_json"], "passed");
  EXPECT_EQ(got["snippets"], "passed");
}

}  // namespace
}  // namespace ctxo::test
