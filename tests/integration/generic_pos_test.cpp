// SPDX-License-Identifier: MIT
// Positions anywhere, judged against the workspace (issue 29): tests/npm/fixtures/dialects/
// positions.mjs answers in real dialects (LSP Locations, {file, line, column}, path:line:col in
// Markdown, a quoted context) over tests/npm/fixtures/reach/workspace, whose lines hold an emoji or
// CJK text before a symbol. No envelope profile matches, so only the generic reading can judge
// them. Its defects, each one generic id on one tool:
//   find_definition, find_references  0-based LSP positions, declared   POS-BASE (warning)
//   get_context                        0-based lines, declared           POS-BASE (warning)
//   get_context                        the content drops the emoji       TR-VERBATIM
//   find_symbol                        columns in UTF-8 bytes            POS-UTF16
//   search_code                        0-based path:line:col, undeclared POS-BASE
//   grep_code                          search_code's 0-based positions   POS-BASE
//   grep_code                          `path:line:col - line` drops it   TR-VERBATIM (prose quotes)
// DIALECTS_CONFORMANT=1 (the twin) turns every one off: no finding at all.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string server() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/dialects/positions.mjs"; }
std::string workspace() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/reach/workspace"; }

HarnessRun run(bool conformant) {
  std::vector<std::string> args = {"--seed", "1", "--calls", "6", "--no-cases", "--root", workspace(), "--cwd", workspace()};
  if (conformant) args.insert(args.end(), {"--env", "DIALECTS_CONFORMANT=1"});
  args.insert(args.end(), {"--", "node", server()});
  return run_harness(args);
}

using Key = std::tuple<std::string, std::string, std::string>;  // invariant, tool, severity

TEST(GenericPositions, EachDialectDefectIsItsGenericId) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(false);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  std::set<Key> got;
  for (const auto& f : r.report["findings"]) {
    got.insert({f["invariant"].get<std::string>(), f["tool"].get<std::string>(), f["severity"].get<std::string>()});
    EXPECT_EQ(f.value("profile", ""), "generic") << f.dump(2);
    // Every generic finding points at the workspace file and line it is about.
    EXPECT_TRUE(f.contains("location") && f["location"].contains("file")) << f.dump(2);
  }
  const std::set<Key> want = {
      {"POS-BASE", "find_definition", "warning"}, {"POS-BASE", "find_references", "warning"},
      {"POS-BASE", "get_context", "warning"},     {"TR-VERBATIM", "get_context", "error"},
      {"POS-UTF16", "find_symbol", "error"},      {"POS-BASE", "search_code", "error"},
      {"POS-BASE", "grep_code", "error"},         {"TR-VERBATIM", "grep_code", "error"},
  };
  EXPECT_EQ(got, want) << r.report["findings"].dump(2);
  EXPECT_NE(r.exit_code, 0);

  // The diagnoses say how the server counted and what it dropped.
  for (const auto& f : r.report["findings"]) {
    const std::string d = f["diagnosis"].get<std::string>();
    if (f["invariant"] == "POS-UTF16") {
      EXPECT_NE(d.find("UTF-8 bytes"), std::string::npos) << d;
    }
    if (f["invariant"] == "TR-VERBATIM") {
      EXPECT_NE(d.find("U+1F"), std::string::npos) << d;
    }
    if (f["tool"] == "search_code") {
      EXPECT_NE(d.find("0-based lines and columns"), std::string::npos) << d;
    }
  }
  // Per tool, the rules were applied: failed where a finding is, else passed.
  for (const auto& t : r.report["tools"]) {
    const std::string name = t["name"].get<std::string>();
    SCOPED_TRACE(name);
    const auto& o = t["outcomes"];
    EXPECT_EQ(o.value("POS-UTF16", ""), name == "find_symbol" ? "failed" : "passed") << o.dump();
    EXPECT_EQ(o.value("POS-BASE", ""), name == "find_symbol" ? "passed" : "failed") << o.dump();
    EXPECT_EQ(o.value("TR-VERBATIM", ""), name == "get_context" || name == "grep_code" ? "failed" : "not_observed")
        << o.dump();
  }
}

TEST(GenericPositions, TheConformantTwinHasNoFinding) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(true);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // The same positions and quotes were judged, and held.
  for (const auto& t : r.report["tools"]) {
    const std::string name = t["name"].get<std::string>();
    SCOPED_TRACE(name);
    const auto& o = t["outcomes"];
    EXPECT_EQ(o.value("POS-BASE", ""), "passed") << o.dump();
    EXPECT_EQ(o.value("POS-UTF16", ""), "passed") << o.dump();
    if (name == "get_context" || name == "grep_code") {
      EXPECT_EQ(o.value("TR-VERBATIM", ""), "passed") << o.dump();
    }
  }
}

}  // namespace
}  // namespace ctxo::test
