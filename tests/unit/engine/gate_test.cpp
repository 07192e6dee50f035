// SPDX-License-Identifier: MIT
// The CI-gate functions over finished reports: baseline matching and staleness, verdicts, and
// the merge of shard reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/gate.h"

namespace ctxo::engine {
namespace {

Finding finding(std::string inv, std::string tool, std::string diag, Severity sev = Severity::kError) {
  Finding f;
  f.invariant = std::move(inv);
  f.tool = std::move(tool);
  f.diagnosis = std::move(diag);
  f.severity = sev;
  return f;
}

ToolSummary tool(std::string name, std::size_t calls, bool selected = true) {
  ToolSummary t;
  t.name = std::move(name);
  t.calls = calls;
  t.coverage.calls = calls;
  t.coverage.data = calls;  // every call reached data
  t.selected = selected;
  if (!selected) t.skipped = "in another shard";
  return t;
}

RunReport report_with(std::vector<Finding> fs) {
  RunReport r;
  r.seed = 9;
  r.command = {"./server"};
  r.server_invariants = {"T-SHUTDOWN", "P-INIT"};
  r.tools = {tool("search", 3), tool("read", 2), tool("write", 0, false)};
  r.calls = 5;
  r.successes = 4;
  for (auto& f : fs) r.findings.push_back(ReportedFinding{std::move(f), 1, false, "", {}, {}});
  settle_verdict(r);
  return r;
}

// Nothing exercised is not a pass: no call made, or every call answered with an error, is
// "untested" (exit 4); a finding still fails the run.
TEST(Verdict, NothingExercisedIsUntested) {
  RunReport r = report_with({});
  EXPECT_EQ(r.verdict, Verdict::kPass);
  r.successes = 0;
  settle_verdict(r);
  EXPECT_EQ(r.verdict, Verdict::kUntested);
  EXPECT_EQ(r.exit_code, 4);
  r.calls = 0;
  settle_verdict(r);
  EXPECT_EQ(r.exit_code, 4);
  r.findings.push_back(ReportedFinding{finding("P-LIST", "", "names twice"), 1, false, "", {}, {}});
  settle_verdict(r);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.exit_code, 1);
}

// Some selected tools reached no data: partial, exit 0, or 4 below --require-coverage. No tool
// reached data (answers that were only misses, errors or empty): untested.
TEST(Verdict, ToolsWithoutDataMakeAPartialRun) {
  RunReport r = report_with({});
  r.tools[1].coverage.data = 0;
  r.tools[1].coverage.misses = 2;
  settle_verdict(r);
  EXPECT_EQ(r.verdict, Verdict::kPartial);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.selected_count(), 2u);  // "write" is in another shard
  EXPECT_EQ(r.reached_count(), 1u);
  r.require_coverage = 50.0;
  settle_verdict(r);
  EXPECT_EQ(r.exit_code, 0);  // 50% reached data: enough
  r.require_coverage = 100.0;
  settle_verdict(r);
  EXPECT_EQ(r.verdict, Verdict::kPartial);
  EXPECT_EQ(r.exit_code, 4);
  r.tools[0].coverage.data = 0;
  settle_verdict(r);
  EXPECT_EQ(r.verdict, Verdict::kUntested);
  EXPECT_EQ(r.exit_code, 4);
  r.findings.push_back(ReportedFinding{finding("TR-HINT", "search", "no hint"), 1, false, "", {}, {}});
  settle_verdict(r);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(parse_verdict("partial"), Verdict::kPartial);
  EXPECT_STREQ(verdict_word(Verdict::kPartial), "PARTIAL");
}

TEST(Baseline, AcceptedFindingsDoNotFailAndStaleEntriesAreListed) {
  RunReport r = report_with({finding("TR-HINT", "search", "no hint"), finding("T-SHUTDOWN", "", "did not exit")});
  ASSERT_EQ(r.exit_code, 1);
  apply_baseline(r, {{"TR-HINT", "sea*"}, {"T-SHUTDOWN", ""}, {"B-USED", "read"}, {"B-USED", "write"}});
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.baselined_count(), 2u);
  EXPECT_EQ(r.error_count(), 0u);
  // "read" was called and B-USED did not fail there: stale. "write" was never called: unknown, not stale.
  ASSERT_EQ(r.baseline_stale.size(), 1u);
  EXPECT_EQ(r.baseline_stale[0].invariant, "B-USED");
  EXPECT_EQ(r.baseline_stale[0].tool, "read");
}

TEST(Baseline, OnlyTheSameInvariantAndToolAreAccepted) {
  RunReport r = report_with({finding("TR-HINT", "search", "no hint"), finding("TR-CAP", "search", "too big")});
  apply_baseline(r, {{"TR-HINT", "read"}, {"TR-CAP", ""}});
  EXPECT_EQ(r.baselined_count(), 0u);
  EXPECT_EQ(r.exit_code, 1);
  // An empty tool means the server itself, not every tool.
  EXPECT_EQ(r.baseline_stale.size(), 2u);
}

TEST(Baseline, ARunErrorStaysAnError) {
  RunReport r = report_with({});
  r.error = Error{"spawn", "no such file"};
  r.exit_code = 3;
  apply_baseline(r, {});
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_EQ(r.exit_code, 3);
}

TEST(Baseline, LoadsBothShapesAndRejectsBadFiles) {
  auto dir = std::filesystem::temp_directory_path() / ("ctxo-baseline-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const char* name, const char* text) {
    std::ofstream((dir / name).string()) << text;
    return (dir / name).string();
  };
  auto a = load_baseline(write("a.json", R"({"accepted": [{"invariant": "TR-HINT", "tool": "x"}, {"invariant": "T-SHUTDOWN"},
                                                           {"invariant": "TR-HINT", "tool": "x"}]})"));
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->size(), 2u);  // duplicates collapse
  EXPECT_EQ((*a)[1].tool, "");
  auto b = load_baseline(write("b.json", R"({"tool": "ctxo-conform", "findings": [{"invariant": "E-MISS", "tool": "y"}]})"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[0].invariant, "E-MISS");
  for (const char* bad : {"[]", "{\"accepted\": [{\"tool\": \"x\"}]}", "{\"accepted\": [{\"invariant\": \"NOPE\"}]}",
                          "{\"accepted\": [{\"invariant\": \"TR-HINT\", \"tool\": 3}]}", "not json"}) {
    auto r = load_baseline(write("bad.json", bad));
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, "usage");
    }
  }
  EXPECT_FALSE(load_baseline((dir / "missing.json").string()).ok());
  std::filesystem::remove_all(dir);
}

TEST(Merge, ShardsBecomeOneReport) {
  RunReport a = report_with({finding("TR-HINT", "search", "no hint"), finding("T-SHUTDOWN", "", "did not exit")});
  a.tools = {tool("read", 0, false), tool("search", 3)};
  a.calls = 3;
  a.duration = std::chrono::milliseconds(500);
  a.invariants_checked = {"T-SHUTDOWN", "TR-HINT"};
  RunReport b = report_with({finding("T-SHUTDOWN", "", "did not exit"), finding("B-USED", "read", "over", Severity::kWarning)});
  b.tools = {tool("read", 2), tool("search", 0, false)};
  b.calls = 2;
  b.duration = std::chrono::milliseconds(700);
  b.invariants_checked = {"B-USED", "T-SHUTDOWN"};
  auto m = merge_reports({a, b});
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->findings.size(), 3u);  // T-SHUTDOWN once
  EXPECT_EQ(m->calls, 5u);
  EXPECT_EQ(m->duration.count(), 700);
  ASSERT_EQ(m->tools.size(), 2u);
  for (const auto& t : m->tools) {
    EXPECT_TRUE(t.selected) << t.name;
    EXPECT_GT(t.calls, 0u) << t.name;
    EXPECT_EQ(t.findings, 1u) << t.name;
  }
  EXPECT_EQ(m->invariants_checked, (std::vector<std::string>{"T-SHUTDOWN", "TR-HINT", "B-USED"}));  // registry order
  EXPECT_EQ(m->verdict, Verdict::kFail);
  EXPECT_EQ(m->exit_code, 1);
}

TEST(Merge, StaleInOneShardButFailingInAnotherIsNotStale) {
  RunReport a = report_with({});
  a.baseline_stale = {{"TR-HINT", "search"}, {"B-USED", "read"}};
  RunReport b = report_with({finding("TR-HINT", "search", "no hint")});
  b.findings[0].baselined = true;
  settle_verdict(b);
  auto m = merge_reports({a, b});
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->baseline_stale.size(), 1u);
  EXPECT_EQ(m->baseline_stale[0].invariant, "B-USED");
  EXPECT_EQ(m->verdict, Verdict::kPass);
}

TEST(Merge, RefusesDifferentRuns) {
  RunReport a = report_with({}), b = report_with({});
  b.seed = 10;
  EXPECT_FALSE(merge_reports({a, b}).ok());
  b.seed = a.seed;
  b.command = {"./other"};
  EXPECT_FALSE(merge_reports({a, b}).ok());
  EXPECT_FALSE(merge_reports({}).ok());
  EXPECT_TRUE(merge_reports({a}).ok());
}

TEST(Merge, AShardThatCouldNotRunMakesTheMergedRunAnError) {
  RunReport a = report_with({}), b = report_with({});
  b.error = Error{"init", "server died"};
  b.exit_code = 3;
  b.verdict = Verdict::kError;
  auto m = merge_reports({a, b});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->verdict, Verdict::kError);
  EXPECT_EQ(m->exit_code, 3);
}

// One cause on most tools is the server's: the same cause (facts, whatever the text) on 4 of 4
// tools called is one server-level finding listing them; a cause on 2 of them stays per tool.
RunReport four_tools(std::vector<Finding> fs) {
  RunReport r = report_with({});
  r.tools = {tool("a", 2), tool("b", 2), tool("c", 2), tool("d", 2)};
  for (auto& f : fs) {
    ReportedFinding rf;
    rf.tools = {f.tool};
    rf.finding = std::move(f);
    r.findings.push_back(std::move(rf));
  }
  return r;
}

Finding thrown(const std::string& tool, const std::string& message) {
  Finding f = finding("P-NO-THROW", tool, "JSON-RPC error -32603 \"" + message + "\"");
  f.request = {{"method", "tools/call"}, {"params", {{"name", tool}, {"arguments", {{"id", message}}}}}};
  f.cause = {{"form", "jsonrpc-error"}, {"code", "-32603"}};
  return f;
}

TEST(Group, TheSameCauseOnMostToolsIsOneServerLevelFinding) {
  RunReport r = four_tools({thrown("a", "no a1"), thrown("b", "no b22"), finding("TR-HINT", "a", "no hint"),
                            thrown("c", "bad c"), thrown("d", "gone"), finding("TR-HINT", "b", "no hint")});
  group_server_level(r);
  ASSERT_EQ(r.findings.size(), 3u);
  const ReportedFinding& g = r.findings[0];  // the group takes its first member's place
  EXPECT_EQ(g.finding.invariant, "P-NO-THROW");
  EXPECT_EQ(g.finding.tool, "");
  EXPECT_EQ(g.tools, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(g.count, 4u);
  EXPECT_EQ(g.examples.size(), 3u);
  EXPECT_EQ(tools_phrase(g), "on 4 tools: a, b, c, d");
  // TR-HINT on 2 of 4 tools: the tools', one each.
  EXPECT_EQ(r.findings[1].finding.tool, "a");
  EXPECT_EQ(r.findings[2].finding.tool, "b");
  EXPECT_EQ(tools_phrase(r.findings[1]), "");
  for (const auto& t : r.tools) EXPECT_EQ(t.findings, t.name == "a" || t.name == "b" ? 2u : 1u) << t.name;
  // Idempotent (merge and check group again).
  group_server_level(r);
  EXPECT_EQ(r.findings.size(), 3u);
  // 3 tools of 8 called is not most of them.
  RunReport few = four_tools({thrown("a", "x"), thrown("b", "y"), thrown("c", "z")});
  for (const char* n : {"e", "f", "g", "h"}) few.tools.push_back(tool(n, 1));
  group_server_level(few);
  EXPECT_EQ(few.findings.size(), 3u);
}

// A baseline entry naming a cause accepts it on its tool, or in a group listing the tool; an entry
// without one (older baselines) accepts a group when entries accept every tool it lists.
TEST(Group, BaselinesAcceptAGroupByCauseOrByEveryTool) {
  RunReport r = four_tools({thrown("a", "1"), thrown("b", "2"), thrown("c", "3"), thrown("d", "4")});
  group_server_level(r);
  ASSERT_EQ(r.findings.size(), 1u);
  const std::string id = cause_id(r.findings[0].finding);
  EXPECT_EQ(id, cause_id(thrown("zz", "another text entirely")));
  EXPECT_NE(id, cause_id(finding("P-NO-THROW", "a", "x")));

  apply_baseline(r, {{"P-NO-THROW", "b", id}});
  EXPECT_EQ(r.baselined_count(), 1u);
  EXPECT_TRUE(r.baseline_stale.empty());
  apply_baseline(r, {{"P-NO-THROW", "b", "0000000000000000"}});
  EXPECT_EQ(r.baselined_count(), 0u);
  EXPECT_EQ(r.baseline_stale.size(), 1u);
  apply_baseline(r, {{"P-NO-THROW", "a"}, {"P-NO-THROW", "b"}, {"P-NO-THROW", "c"}});
  EXPECT_EQ(r.baselined_count(), 0u) << "d is not accepted";
  apply_baseline(r, {{"P-NO-THROW", "a"}, {"P-NO-THROW", "b"}, {"P-NO-THROW", "c"}, {"P-NO-THROW", "?"}});
  EXPECT_EQ(r.baselined_count(), 1u);
  EXPECT_TRUE(r.baseline_stale.empty());
}

}  // namespace
}  // namespace ctxo::engine
