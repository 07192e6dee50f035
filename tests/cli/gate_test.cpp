// SPDX-License-Identifier: MIT
// The CI-gate features as a user meets them: --shard plus `merge` gives the unsharded run's
// findings, --baseline accepts known failures and reports entries that no longer fail,
// --config reads an mcpServers file; every bad input is one `error:` line and exit 2 before the
// server is started.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <tuple>

#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

namespace fs = std::filesystem;

using Key = std::tuple<std::string, std::string, std::string>;

std::multiset<Key> finding_keys(const nlohmann::json& report) {
  std::multiset<Key> out;
  for (const auto& f : report["findings"])
    out.insert(Key(f["invariant"].get<std::string>(), f["tool"].get<std::string>(), f["diagnosis"].get<std::string>()));
  return out;
}

bool one_error_line(const std::string& err) {
  return err.rfind("error: ", 0) == 0 && std::count(err.begin(), err.end(), '\n') == 1;
}

// A scratch folder of this test's own, removed at the end.
class Scratch {
 public:
  Scratch() {
    dir_ = fs::path(CTXO_BINARY_DIR) / "test-tmp" / ("gate-" + std::to_string(::getpid()) + "-" + std::to_string(n_++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }

 private:
  static inline int n_ = 0;
  fs::path dir_;
};

// A server command that leaves a marker file when it starts: proves a bad input stopped the run
// before any server was spawned.
std::vector<std::string> marking_server(const std::string& marker) {
  return {"--", "sh", "-c", "touch " + quote(marker) + "; exec " + quote(fixture_server())};
}

TEST(Gate, ShardsMergedGiveTheUnshardedFindings) {
  Scratch s;
  const std::vector<std::string> server = {"--", reference_server(), "--profile", "ctxo", "--defect", "not-maximal"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), server.begin(), server.end());
    return args;
  };
  auto full = run_harness(with({"--seed", "11", "-q"}));
  ASSERT_EQ(full.exit_code, 1) << full.err;
  ASSERT_FALSE(full.report["findings"].empty());
  std::vector<std::string> merge_args = {"merge", "-q"};
  std::size_t shard_calls = 0;
  for (int k = 1; k <= 3; ++k) {
    std::string path = s.path("shard" + std::to_string(k) + ".json");
    auto r = run_harness(with({"--seed", "11", "-q", "--shard", std::to_string(k) + "/3", "--json", path}), false);
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    auto doc = nlohmann::json::parse(slurp(path));
    shard_calls += doc["stats"]["calls"].get<std::size_t>();
    merge_args.push_back(path);
  }
  merge_args.insert(merge_args.end(), {"--junit", s.path("m.xml"), "--sarif", s.path("m.sarif"), "--markdown",
                                       s.path("m.md"), "--html", s.path("m.html")});
  auto merged = run_harness(merge_args);
  EXPECT_EQ(merged.exit_code, full.exit_code) << merged.err;
  ASSERT_TRUE(merged.report.is_object()) << merged.err;
  EXPECT_TRUE(merged.schema_violations.empty()) << merged.schema_violations.front();
  EXPECT_EQ(finding_keys(merged.report), finding_keys(full.report));
  EXPECT_EQ(merged.report["seed"], 11);
  EXPECT_EQ(merged.report["stats"]["calls"].get<std::size_t>(), shard_calls);
  // Every tool is reported once, by the shard that called it.
  std::set<std::string> tools;
  for (const auto& t : merged.report["tools"]) {
    EXPECT_TRUE(tools.insert(t["name"].get<std::string>()).second) << t["name"];
    EXPECT_TRUE(t["selected"].get<bool>()) << t["name"];
    EXPECT_GT(t["calls"].get<int>(), 0) << t["name"];
  }
  EXPECT_EQ(tools.size(), full.report["tools"].size());
  for (const char* f : {"m.xml", "m.sarif", "m.md", "m.html"})
    EXPECT_GT(fs::file_size(s.path(f)), 100u) << f;
}

TEST(Gate, ServerLevelFindingsAreMergedOnce) {
  Scratch s;
  std::vector<std::string> paths;
  for (int k = 1; k <= 2; ++k) {
    paths.push_back(s.path("s" + std::to_string(k) + ".json"));
    auto r = run_harness({"--seed", "3", "-q", "--grace", "300", "--shard", std::to_string(k) + "/2", "--json",
                          paths.back(), "--", fixture_server(), "--defect", "no-shutdown"},
                         false);
    ASSERT_EQ(r.exit_code, 1) << r.err;
  }
  auto merged = run_harness({"merge", "-q", paths[0], paths[1]});
  EXPECT_EQ(merged.exit_code, 1);
  std::size_t shutdowns = 0;
  for (const auto& f : merged.report["findings"]) shutdowns += f["invariant"] == "T-SHUTDOWN";
  EXPECT_EQ(shutdowns, 1u);
}

TEST(Gate, MergeRefusesReportsOfDifferentRuns) {
  Scratch s;
  std::vector<std::string> paths;
  for (const char* seed : {"1", "2"}) {
    paths.push_back(s.path(std::string("seed") + seed + ".json"));
    auto r = run_harness({"--seed", seed, "-q", "--calls", "1", "--json", paths.back(), fixture_server()}, false);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto r = run_harness({"merge", paths[0], paths[1]}, false);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(one_error_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("seed"), std::string::npos) << r.err;
  auto not_report = run_harness({"merge", s.write("x.json", "{\"hello\": 1}")}, false);
  EXPECT_EQ(not_report.exit_code, 2);
  EXPECT_TRUE(one_error_line(not_report.err)) << not_report.err;
  auto missing = run_harness({"merge", s.path("missing.json")}, false);
  EXPECT_EQ(missing.exit_code, 2);
}

// A report given twice (the same path, a copy) or two reports that tested the same tool would
// count those calls and findings twice: merge refuses them with one line naming both files
// (issue 45), and the shards themselves still merge.
TEST(Gate, MergeRefusesTheSameReportTwice) {
  Scratch s;
  std::vector<std::string> paths;
  for (int k = 1; k <= 2; ++k) {
    paths.push_back(s.path("s" + std::to_string(k) + ".json"));
    auto r = run_harness({"--seed", "5", "-q", "--calls", "1", "--shard", std::to_string(k) + "/2", "--json",
                          paths.back(), fixture_server()},
                         false);
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  }
  const std::string copy = s.write("copy.json", slurp(paths[0]));
  for (const auto& args : std::vector<std::vector<std::string>>{{"merge", paths[0], paths[1], paths[0]},
                                                                 {"merge", paths[0], copy, paths[1]}}) {
    auto r = run_harness(args, false);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_TRUE(one_error_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("are the same report"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("'" + paths[0] + "'"), std::string::npos) << r.err;
  }
  // An earlier merge given with the shards: it tested their tools too.
  const std::string merged = s.path("merged.json");
  auto once = run_harness({"merge", "-q", paths[0], paths[1], "--json", merged}, false);
  ASSERT_TRUE(once.exit_code == 0 || once.exit_code == 1) << once.err;
  auto again = run_harness({"merge", paths[0], paths[1], merged}, false);
  EXPECT_EQ(again.exit_code, 2) << again.out << again.err;
  EXPECT_TRUE(one_error_line(again.err)) << again.err;
  EXPECT_NE(again.err.find("both tested tool '"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("'" + merged + "'"), std::string::npos) << again.err;
}

TEST(Gate, BaselineAcceptsKnownFailuresAndReportsStaleEntries) {
  Scratch s;
  const std::vector<std::string> server = {"--", reference_server(), "--profile", "ctxo", "--defect", "not-maximal"};
  auto first = run_harness({"--seed", "5", "-q", "--", reference_server(), "--profile", "ctxo", "--defect", "not-maximal"});
  ASSERT_EQ(first.exit_code, 1);
  ASSERT_TRUE(first.error_ids().count("TR-MAXIMAL"));
  // Accept every TR-MAXIMAL finding (globbed tools), plus an entry that cannot fail here.
  std::string base = s.write("baseline.json", R"({"accepted": [
      {"invariant": "TR-MAXIMAL", "tool": "*", "reason": "tracked upstream"},
      {"invariant": "TR-HINT", "tool": "search_code"}]})");
  auto accepted = run_harness({"--seed", "5", "-q", "--baseline", base, "--", reference_server(), "--profile", "ctxo",
                               "--defect", "not-maximal"});
  EXPECT_EQ(accepted.exit_code, 0) << accepted.out << accepted.err;
  EXPECT_TRUE(accepted.schema_violations.empty()) << accepted.schema_violations.front();
  EXPECT_EQ(accepted.report["verdict"], "pass");
  std::size_t maximal = 0;
  for (const auto& f : first.report["findings"]) maximal += f["invariant"] == "TR-MAXIMAL";
  EXPECT_EQ(accepted.report["stats"]["baselined"], maximal);
  EXPECT_EQ(accepted.report["stats"]["errors"], 0);
  ASSERT_EQ(accepted.report["baseline_stale"].size(), 1u);
  EXPECT_EQ(accepted.report["baseline_stale"][0]["invariant"], "TR-HINT");
  EXPECT_NE(accepted.out.find("no longer fails"), std::string::npos) << accepted.out;
  // An earlier JSON report is a baseline too.
  auto again = run_harness({"--seed", "5", "-q", "--baseline", s.write("prev.json", first.report.dump()), "--",
                            reference_server(), "--profile", "ctxo", "--defect", "not-maximal"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  // A baseline for another invariant does not hide these failures.
  auto other = run_harness({"--seed", "5", "-q", "--baseline",
                            s.write("other.json", R"({"accepted": [{"invariant": "TR-HINT", "tool": "*"}]})"), "--",
                            reference_server(), "--profile", "ctxo", "--defect", "not-maximal"});
  EXPECT_EQ(other.exit_code, 1);
}

TEST(Gate, ConfigFileGivesServerAndOptionsAndFlagsOverrideIt) {
  Scratch s;
  nlohmann::json cfg = {
      {"mcpServers",
       {{"fixture", {{"command", fixture_server()}, {"args", nlohmann::json::array()}, {"env", {{"FROM_CONFIG", "1"}}}}},
        {"remote", {{"url", "https://example.invalid/mcp"}}}}},
      {"ctxo-conform", {{"calls", 1}, {"seed", 42}, {"tools", nlohmann::json::array({"echo"})}}}};
  std::string path = s.write("mcp.json", cfg.dump(2));
  auto r = run_harness({"--config", path, "--server", "fixture", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.report["seed"], 42);
  EXPECT_EQ(r.report["server"]["env"]["FROM_CONFIG"], "1");
  EXPECT_EQ(r.report["server"]["command"][0], fixture_server());
  std::size_t called = 0;
  for (const auto& t : r.report["tools"]) called += t["calls"].get<int>() > 0;
  EXPECT_EQ(called, 1u);
  auto flags = run_harness({"--config", path, "--server", "fixture", "-q", "--seed", "7", "--env", "FROM_CONFIG=2"});
  EXPECT_EQ(flags.exit_code, 0) << flags.err;
  EXPECT_EQ(flags.report["seed"], 7);
  EXPECT_EQ(flags.report["server"]["env"]["FROM_CONFIG"], "2");
}

TEST(Gate, BadGateInputIsOneErrorLineAndNoServerStarts) {
  Scratch s;
  const std::string marker = s.path("started");
  nlohmann::json cfg = {{"mcpServers", {{"a", {{"command", "sh"}, {"args", {"-c", "touch " + quote(marker)}}}},
                                        {"b", {{"command", "sh"}}}}}};
  const std::string config = s.write("mcp.json", cfg.dump());
  const std::string bad_option = s.write(
      "bad-option.json", nlohmann::json({{"mcpServers", {{"a", {{"command", "sh"}}}}}, {"ctxo-conform", {{"bogus", 1}}}}).dump());
  std::vector<std::vector<std::string>> cases = {
      {"--config", config, "--server", "nope"},
      {"--config", config},  // two servers, none chosen
      {"--config", s.write("broken.json", "{\"mcpServers\": ")},
      {"--config", s.write("noservers.json", "{}")},
      {"--config", s.path("missing.json")},
      {"--config", bad_option},
      {"--server", "a"},
      {"--config", config, "--server", "a", "--shard", "3/2"},
      {"--config", config, "--server", "a", "--baseline", s.write("bad-base.json", "[1, 2]")},
      {"--config", config, "--server", "a", "--baseline", s.write("bad-id.json", R"({"accepted": [{"invariant": "NOPE"}]})")},
      {"--config", config, "--server", "a", "--junit", s.path("no/such/dir/r.xml")},
      {"--config", config, "--server", "a", "--sarif", "-", "--markdown", "-"},
  };
  for (const auto& args : cases) {
    auto r = run_harness(args, false);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    EXPECT_EQ(r.exit_code, 2) << shown << "\n" << r.err;
    EXPECT_TRUE(one_error_line(r.err)) << shown << "\n[" << r.err << "]";
    EXPECT_FALSE(fs::exists(marker)) << shown;
  }
  // The same checks with a server on the command line.
  auto m = marking_server(marker);
  std::vector<std::string> args = {"--baseline", s.write("bad.json", "not json")};
  args.insert(args.end(), m.begin(), m.end());
  auto r = run_harness(args, false);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(fs::exists(marker));
}

}  // namespace
}  // namespace ctxo::test

namespace ctxo::test {
namespace {

struct ScriptRun {
  int exit_code = -1;
  std::string summary, output, err;
};

// Runs scripts/action-run.sh (the GitHub Action's run step) as the runner would.
/// `bin`: the binary the action built (from-source), "" for the npm package (npx on `path`).
ScriptRun run_action(const Scratch& s, const std::vector<std::pair<std::string, std::string>>& inputs,
                     const std::string& bin = harness_binary(), const std::string& path = "/usr/bin:/bin") {
  std::string cmd = "env -i PATH=" + quote(path) + (bin.empty() ? std::string() : " CTXO_CONFORM_BIN=" + quote(bin)) +
                    " GITHUB_STEP_SUMMARY=" + quote(s.path("summary.md")) + " GITHUB_OUTPUT=" + quote(s.path("output"));
  for (const auto& [k, v] : inputs) cmd += " " + k + "=" + quote(v);
  cmd += " bash " + quote(std::string(CTXO_SOURCE_DIR) + "/scripts/action-run.sh") + " > /dev/null 2> " +
         quote(s.path("err"));
  ScriptRun r;
  int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.summary = slurp(s.path("summary.md"));
  r.output = slurp(s.path("output"));
  r.err = slurp(s.path("err"));
  return r;
}

TEST(Action, RunStepGatesAndWritesTheJobSummary) {
  {
    Scratch s;
    auto ok = run_action(s, {{"INPUT_SERVER", fixture_server()}, {"INPUT_ARGS", "--calls 1 --seed 4"},
                             {"INPUT_JSON", s.path("r.json")}});
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_NE(ok.output.find("exit-code=0"), std::string::npos) << ok.output;
    EXPECT_NE(ok.summary.find("ctxo-conform"), std::string::npos) << ok.summary;
    EXPECT_EQ(nlohmann::json::parse(slurp(s.path("r.json")))["seed"], 4);
  }
  {
    Scratch s;
    auto bad = run_action(s, {{"INPUT_SERVER", fixture_server() + " --defect bad-content"}, {"INPUT_ARGS", "--calls 1"}});
    EXPECT_EQ(bad.exit_code, 1) << bad.err;
    EXPECT_NE(bad.output.find("exit-code=1"), std::string::npos);
    EXPECT_NE(bad.summary.find("P-RESULT"), std::string::npos) << bad.summary;
  }
  {
    Scratch s;
    auto none = run_action(s, {});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("error:"), std::string::npos);
  }
}

// By default the run step runs the npm package, `npx -y ctxo-conform@VERSION`, at the action's own
// version (CMakeLists.txt's project()) unless the `version` input names one.
TEST(Action, RunsTheNpmPackageAtTheActionsVersion) {
  const std::string cmake = slurp(std::string(CTXO_SOURCE_DIR) + "/CMakeLists.txt");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(cmake, m, std::regex(R"(project\(ctxo_conform VERSION ([0-9.]+))")));
  const std::string version = m[1];
  for (const std::string& asked : {std::string(), std::string("1.2.3")}) {
    SCOPED_TRACE(asked);
    Scratch s;
    // An npx that records its arguments and runs the built binary, as the package would.
    const std::string npx = s.write("npx", "#!/bin/sh\necho \"$@\" > " + quote(s.path("npx-args")) + "\nshift 2\nexec " +
                                               quote(harness_binary()) + " \"$@\"\n");
    fs::permissions(npx, fs::perms::owner_all);
    std::vector<std::pair<std::string, std::string>> inputs = {{"INPUT_SERVER", fixture_server()},
                                                               {"INPUT_ARGS", "--calls 1 --seed 4"}};
    if (!asked.empty()) inputs.emplace_back("INPUT_VERSION", asked);
    auto r = run_action(s, inputs, "", s.path("") + ":/usr/bin:/bin");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // npx's arguments: the package at its version, then the run's own (the summary's --markdown too).
    const std::string args = slurp(s.path("npx-args"));
    const std::string head = "-y ctxo-conform@" + (asked.empty() ? version : asked) + " --calls 1 --seed 4 ";
    const std::string tail = " -- " + fixture_server() + "\n";
    EXPECT_EQ(args.rfind(head, 0), 0u) << args;
    EXPECT_TRUE(args.size() > tail.size() && args.compare(args.size() - tail.size(), tail.size(), tail) == 0) << args;
    EXPECT_NE(r.output.find("exit-code=0"), std::string::npos) << r.output;
  }
}

TEST(Action, EveryInputOfTheActionReachesTheRunStep) {
  std::string yml = slurp(std::string(CTXO_SOURCE_DIR) + "/action.yml");
  std::string script = slurp(std::string(CTXO_SOURCE_DIR) + "/scripts/action-run.sh");
  std::regex var(R"(INPUT_[A-Z_]+)");
  std::set<std::string> used;
  for (std::sregex_iterator it(script.begin(), script.end(), var), end; it != end; ++it) used.insert(it->str());
  ASSERT_FALSE(used.empty());
  for (const auto& v : used) {
    EXPECT_NE(yml.find(v + ": ${{ inputs."), std::string::npos) << v << " is read by action-run.sh but not set in action.yml";
  }
}

}  // namespace
}  // namespace ctxo::test

namespace ctxo::test {
namespace {

// The real binary on a server that breaks POS-UTF16, every report format at once: JUnit valid
// against the vendored XSD with the failure in the right suite, SARIF valid against the official
// schema with a physical location under --root, Markdown and HTML naming the finding.
TEST(Reports, EveryFormatFromOneRealRun) {
  Scratch s;
  const std::string root = std::string(CTXO_SOURCE_DIR) + "/corpus/workspace";
  auto r = run_harness({"--seed", "5", "-q", "--root", root, "--junit", s.path("r.xml"), "--sarif", s.path("r.sarif"),
                        "--markdown", s.path("r.md"), "--html", s.path("r.html"), "--", reference_server(), "--profile",
                        "budget", "--defect", "byte-cols"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  ASSERT_TRUE(r.error_ids().count("POS-UTF16"));

  std::string xsd = std::string(CTXO_SOURCE_DIR) + "/schemas/junit/junit-10.xsd";
  std::string cmd = "xmllint --noout --schema " + quote(xsd) + " " + quote(s.path("r.xml")) + " 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(s.path("r.xml"));
  std::string xml = slurp(s.path("r.xml"));
  std::regex suite(R"re(<testsuite name="map_search"[^>]*failures="([0-9]+)")re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(xml, m, suite)) << xml.substr(0, 2000);
  EXPECT_GE(std::stoi(m[1]), 1);
  EXPECT_NE(xml.find("type=\"POS-UTF16\""), std::string::npos);

  auto sarif = nlohmann::json::parse(slurp(s.path("r.sarif")));
  auto schema = profile::SchemaValidator::compile(
      nlohmann::json::parse(slurp(std::string(CTXO_SOURCE_DIR) + "/schemas/sarif-2.1.0.schema.json")));
  ASSERT_TRUE(schema.ok()) << schema.error().message;
  auto problems = schema->validate(sarif);
  EXPECT_TRUE(problems.empty()) << problems.front();
  bool located = false;
  for (const auto& res : sarif["runs"][0]["results"]) {
    if (res["ruleId"] != "POS-UTF16") continue;
    for (const auto& loc : res["locations"])
      if (loc.contains("physicalLocation") && loc["physicalLocation"]["artifactLocation"]["uri"] == "data/words.txt" &&
          loc["physicalLocation"]["region"]["startLine"].get<int>() >= 1)
        located = true;
  }
  EXPECT_TRUE(located) << sarif["runs"][0]["results"].dump().substr(0, 2000);
  EXPECT_NE(sarif["runs"][0]["originalUriBaseIds"]["ROOT"]["uri"].get<std::string>().find("corpus/workspace"),
            std::string::npos);

  EXPECT_NE(slurp(s.path("r.md")).find("POS-UTF16"), std::string::npos);
  EXPECT_NE(slurp(s.path("r.html")).find("data-invariant=\"POS-UTF16\""), std::string::npos);
}

}  // namespace
}  // namespace ctxo::test
