// SPDX-License-Identifier: MIT
// P-ANNOTATION's answer form (issue 44): a tool annotated readOnlyHint or idempotentHint held to
// what other read-only tools answer around its calls (tests/npm/fixtures/safety/annotations.mjs,
// official SDK). add_note (read-only and idempotent, yet appends) and touch_counter (idempotent,
// yet counts) are reported, each once, with its annotation; the clock tool `now` is no witness and
// no finding; the conformant twin (ANNOTATIONS_CONFORMANT=1) and a real server whose idempotent
// deletes really are (server-memory) have none.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string fixture() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/safety/annotations.mjs"; }

fs::path scratch(const std::string& name) {
  const fs::path d = fs::path(CTXO_BINARY_DIR) / "test-tmp" / ("annotations-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// tool -> the P-ANNOTATION finding on it.
std::map<std::string, json> annotation_findings(const HarnessRun& r) {
  std::map<std::string, json> out;
  for (const auto& f : r.report["findings"])
    if (f["invariant"] == "P-ANNOTATION") out[f.value("tool", std::string())] = f;
  return out;
}

TEST(Annotations, StateChangingReadOnlyAndIdempotentToolsAreReported) {
  REQUIRE_NPM(sdk_dir());
  const fs::path dir = scratch("violator");
  HarnessRun r = run_harness({"--seed", "1", "--calls", "8", "--cases", (dir / "cases").string(), "--cwd", dir.string(),
                              "--", "node", fixture()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
  auto found = annotation_findings(r);
  ASSERT_EQ(found.size(), 2u) << r.report["findings"].dump(2);
  ASSERT_TRUE(found.count("add_note")) << r.out;
  ASSERT_TRUE(found.count("touch_counter")) << r.out;
  // add_note breaks both hints: one finding, its readOnlyHint, witnessed by list_notes.
  const json& note = found["add_note"];
  EXPECT_EQ(note["cause"]["facts"], (json{{"annotation", "readOnlyHint"}, {"effect", "answers"}})) << note.dump(2);
  const std::string nd = note["diagnosis"];
  EXPECT_NE(nd.find("read-only tool list_notes"), std::string::npos) << nd;
  EXPECT_NE(nd.find("changed it again"), std::string::npos) << nd;
  EXPECT_NE(nd.find("plan mode"), std::string::npos) << nd;
  EXPECT_EQ(note["severity"], "error");
  // touch_counter may change stats once, not again: its idempotentHint, witnessed by stats.
  const json& touch = found["touch_counter"];
  EXPECT_EQ(touch["cause"]["facts"], (json{{"annotation", "idempotentHint"}, {"effect", "answers"}})) << touch.dump(2);
  EXPECT_NE(touch["diagnosis"].get<std::string>().find("read-only tool stats"), std::string::npos) << touch["diagnosis"];
  for (const auto& [tool, f] : found) EXPECT_EQ(f["diagnosis"].get<std::string>().find("tool now"), std::string::npos);
  // The honest read-only tools, the clock among them, pass.
  auto outcomes = r.outcomes("P-ANNOTATION");
  for (const char* tool : {"list_notes", "stats", "now"}) EXPECT_EQ(outcomes[tool], "passed") << tool;
  // The case replays the calls in order, and still fails.
  ASSERT_TRUE(touch.contains("case_file")) << touch.dump(2);
  HarnessRun again = run_harness({"replay", touch["case_file"].get<std::string>()}, false);
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE(again.out.find("still fails: P-ANNOTATION on touch_counter"), std::string::npos) << again.out;
}

TEST(Annotations, TheConformantTwinHasNone) {
  REQUIRE_NPM(sdk_dir());
  const fs::path dir = scratch("twin");
  HarnessRun r = run_harness({"--seed", "1", "--calls", "8", "--no-cases", "--cwd", dir.string(), "--env",
                              "ANNOTATIONS_CONFORMANT=1", "--", "node", fixture()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(annotation_findings(r).empty()) << r.report["findings"].dump(2);
  auto outcomes = r.outcomes("P-ANNOTATION");
  for (const char* tool : {"add_note", "touch_counter", "list_notes", "stats", "now"})
    EXPECT_EQ(outcomes[tool], "passed") << tool;
}

// A witness that moves with time alone (list_sessions: a runtime in whole seconds, as
// desktop-commander's list_searches prints it) answers the same twice in a row, then differs across
// get_config's 1.05 s call: asked again twice with a pause between, it differs with nothing
// between, so nothing is reported, and the run says why (the field table's false finding on
// desktop-commander 0.2.52 before this).
TEST(Annotations, AWitnessThatMovesWithTimeAloneBlamesNoTool) {
  REQUIRE_NPM(sdk_dir());
  const fs::path dir = scratch("clock");
  HarnessRun r = run_harness({"--seed", "1", "--calls", "2", "--no-cases", "--concurrency", "0", "--only",
                              "P-ANNOTATION", "--cwd", dir.string(), "--env", "ANNOTATIONS_CLOCK=1", "--", "node",
                              fixture()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(annotation_findings(r).empty()) << r.report["findings"].dump(2);
  bool said = false;
  for (const auto& n : r.report["notes"])
    said = said || n.get<std::string>().find("changes with time alone too") != std::string::npos;
  EXPECT_TRUE(said) << r.report["notes"].dump(2);
}

// server-memory annotates delete_entities, delete_observations and delete_relations
// idempotentHint: true (dist/index.js), and a second identical delete does change nothing more:
// read_graph, open_nodes and search_nodes witness it. No finding.
TEST(Annotations, ServerMemorysIdempotentDeletesPass) {
  const std::string bin = npm_bin("mcp-server-memory");
  REQUIRE_NPM(bin);
  const fs::path dir = scratch("memory");
  HarnessRun r = run_harness({"--seed", "1", "--calls", "6", "--no-cases", "--only", "P-ANNOTATION", "--cwd",
                              dir.string(), "--env", "MEMORY_FILE_PATH=" + (dir / "memory.jsonl").string(), "--",
                              "node", bin});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(annotation_findings(r).empty()) << r.report["findings"].dump(2);
  auto outcomes = r.outcomes("P-ANNOTATION");
  for (const char* tool : {"delete_entities", "delete_observations", "delete_relations", "read_graph"})
    EXPECT_EQ(outcomes[tool], "passed") << tool;
}

}  // namespace
}  // namespace ctxo::test
