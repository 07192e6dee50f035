// SPDX-License-Identifier: MIT
// The command line as a user meets it: exit codes 0/1/2/3, one-line `error:` messages, the JSON
// report written even when the run fails, --help / --version / --list-invariants, and README's
// flag table in step with --help.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <thread>

#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

bool one_error_line(const std::string& err) {
  return err.rfind("error: ", 0) == 0 && std::count(err.begin(), err.end(), '\n') == 1;
}

TEST(Cli, VersionAndHelp) {
  auto v = run_harness({"--version"}, false);
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out.rfind("ctxo-conform ", 0), 0u) << v.out;
  auto h = run_harness({"--help"}, false);
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("Exit codes"), std::string::npos);
  EXPECT_NE(h.out.find("-- CMD"), std::string::npos);
}

TEST(Cli, ListInvariantsPrintsEveryId) {
  auto r = run_harness({"--list-invariants"}, false);
  EXPECT_EQ(r.exit_code, 0);
  for (const char* id : {"T-FRAMING", "T-ID", "T-HANG", "T-CRASH", "T-SHUTDOWN", "T-HTTP-STATUS", "T-HTTP-TYPE",
                         "T-HTTP-SESSION", "T-HTTP-STREAM", "P-INIT", "P-LIST", "P-RESULT", "P-NO-THROW", "TR-HINT",
                         "B-USED", "POS-UTF16"})
    EXPECT_NE(r.out.find(id), std::string::npos) << id;
}

TEST(Cli, UsageErrorsExitTwoWithOneErrorLine) {
  const std::vector<std::vector<std::string>> bad = {
      {"--bogus", "./x"},
      {},
      {"--shard", "3/2", "./x"},
      {"--shard", "x", "./x"},
      {"--only", "NOPE", "./x"},
      {"--env", "NOEQUALS", "./x"},
      {"--timeout", "0", "./x"},
      {"--protocol", "1999-01-01", "./x"},
      {"--profile", "no-such-profile", "./x"},
      {"--host", "claude", "./x"},
      {"--host", "none,claude-code", "./x"},
      {"--host", "/nonexistent/host.json", "./x"},
      {"--cwd", "/nonexistent/dir", "./x"},
      {"--limits", "10,abc", "./x"},
      {"--color", "sometimes", "./x"},
      // Numbers out of range: refused, never wrapped or overflowed (a negative count was once
      // read as about 2^64 calls; a huge timeout overflowed and blamed the server).
      {"--calls", "-5", "./x"},
      {"--calls", "0", "./x"},
      {"--calls", "99999999999", "./x"},
      {"--timeout", "9300000000000", "./x"},
      {"--grace", "-1", "./x"},
      {"--grace", "99999999999", "./x"},
      {"--time-budget", "-3", "./x"},
      {"--time-budget", "1e300", "./x"},
  };
  for (const auto& args : bad) {
    auto r = run_harness(args, false);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    EXPECT_EQ(r.exit_code, 2) << shown << "\n" << r.err;
    EXPECT_TRUE(one_error_line(r.err)) << shown << "\n[" << r.err << "]";
  }
}

// Without host profiles (a schemas directory that has none), the run goes on without H-* checks
// and says so once; a host named on the command line that cannot be found is a usage error.
TEST(Cli, NoHostProfilesIsANoteNotAFailure) {
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/schemas-without-hosts";
  std::filesystem::create_directories(dir + "/profiles");
  // The report schema, so this test's own check of the report still finds it.
  std::filesystem::copy_file(std::string(CTXO_SOURCE_DIR) + "/schemas/report.schema.json", dir + "/report.schema.json",
                             std::filesystem::copy_options::overwrite_existing);
  ::setenv("CTXO_SCHEMAS_DIR", dir.c_str(), 1);
  auto r = run_harness({"--calls", "1", "--no-cases", fixture_server()});
  auto named = run_harness({"--calls", "1", "--no-cases", "--host", "claude-code", fixture_server()}, false);
  ::unsetenv("CTXO_SCHEMAS_DIR");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("host checks (H-*) are off"), std::string::npos) << all;
  EXPECT_EQ(all.find("host checks (H-*) are off"), all.rfind("host checks (H-*) are off")) << all;
  EXPECT_EQ(named.exit_code, 2) << named.err;
}

TEST(Cli, RepeatableOptionsDoNotSwallowTheServerPath) {
  auto r = run_harness({"--env", "A=1", "--env", "B=2", "--tools", "echo", "--calls", "1", fixture_server()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.report.is_object());
  EXPECT_EQ(r.report["server"]["env"]["B"], "2");
}

TEST(Cli, ConfigurationErrorStillWritesTheJsonReport) {
  auto r = run_harness({"--cwd", "/nonexistent/dir", "./x"});
  EXPECT_EQ(r.exit_code, 2);
  ASSERT_TRUE(r.report.is_object());
  EXPECT_EQ(r.report["verdict"], "error");
  EXPECT_EQ(r.report["exit_code"], 2);
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
}

TEST(Cli, UnwritableReportPathIsAUsageError) {
  auto r = run_harness({"--json", "/nonexistent/dir/r.json", fixture_server()}, false);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(one_error_line(r.err)) << r.err;
}

TEST(Cli, MissingServerExitsThreeAndWritesTheReport) {
  auto r = run_harness({"./definitely-not-here"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(one_error_line(r.err)) << r.err;
  ASSERT_TRUE(r.report.is_object());
  EXPECT_EQ(r.report["verdict"], "error");
  EXPECT_EQ(r.report["exit_code"], 3);
  EXPECT_EQ(r.report["error"]["code"], "spawn");
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
}

TEST(Cli, NotExecutableExitsThree) {
  auto r = run_harness({std::string(CTXO_SOURCE_DIR) + "/README.md"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(one_error_line(r.err)) << r.err;
}

TEST(Cli, ServerThatExitsAtOnceExitsThree) {
  auto r = run_harness({"--", "/bin/sh", "-c", "echo 'config missing' >&2; exit 4"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(one_error_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("config missing"), std::string::npos) << r.err;
  ASSERT_TRUE(r.report.is_object());
  EXPECT_EQ(r.report["verdict"], "error");
}

// A report left by an earlier run is gone as soon as the new run starts, so a run stopped before
// it writes its own (killed, a cancelled CI job) leaves no stale verdict to publish.
TEST(Cli, AStaleReportIsRemovedWhenTheRunStarts) {
  const std::string path = std::string(CTXO_BINARY_DIR) + "/test-tmp/stale-report.json";
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << R"({"verdict": "pass", "stale": true})";
  bool gone_while_running = false;
  std::thread watcher([&] {
    for (int i = 0; i < 100 && !gone_while_running; ++i) {
      if (!std::filesystem::exists(path)) gone_while_running = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  // A server that never answers: the run takes its --timeout before it writes the report.
  auto r = run_harness({"--timeout", "1500", "--json", path, "--", "/bin/sh", "-c", "exec sleep 60"}, false);
  watcher.join();
  EXPECT_TRUE(gone_while_running) << "the stale report stayed while the run went on";
  EXPECT_EQ(r.exit_code, 3) << r.err;
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("\"stale\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"verdict\": \"error\""), std::string::npos) << text;
}

// A server that nests JSON a million levels deep, in a whole message (initialize, tools/list, a
// tools/call result) or in a text part: a T-FRAMING finding for a message, never a stack overflow.
TEST(Cli, AMillionNestedBracketsIsAFindingNotACrash) {
  const std::string script = std::string(CTXO_BINARY_DIR) + "/test-tmp/deep-server.py";
  std::filesystem::create_directories(std::filesystem::path(script).parent_path());
  std::ofstream(script) << R"PY(import sys, json, os
where = os.environ["WHERE"]
deep = "[" * 1000000 + "]" * 1000000
tool = {"name": "t", "inputSchema": {"type": "object", "properties": {}}}
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    meth = m.get("method")
    if meth == "initialize":
        r = json.dumps({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "deep", "version": "1"}})
        if where == "init":
            r = r[:-1] + ',"x":' + deep + "}"
    elif meth == "tools/list":
        r = json.dumps({"tools": [tool]})
        if where == "list":
            r = r[:-1] + ',"x":' + deep + "}"
    elif meth == "tools/call":
        r = '{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":' + deep + "}}" if where == "call" \
            else json.dumps({"content": [{"type": "text", "text": deep}]})
    else:
        r = "{}"
    sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (json.dumps(m["id"]), r))
    sys.stdout.flush()
)PY";
  for (const std::string where : {"init", "list", "call", "text"}) {
    SCOPED_TRACE(where);
    // --host none: the 2 MB text answer is also past Claude Desktop's 1 MB (H-SIZE), not this test's subject.
    auto r = run_harness({"--calls", "2", "--no-cases", "--host", "none", "--env", "WHERE=" + where, "--", "python3", script});
    ASSERT_TRUE(r.report.is_object()) << r.err;
    if (where == "text") {
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // a text part is not a message: nothing to report
    } else {
      EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
      EXPECT_EQ(r.error_ids(), std::set<std::string>{"T-FRAMING"}) << r.report["findings"].dump(2).substr(0, 2000);
    }
  }
}

TEST(Cli, ServerThatNeverAnswersInitializeExitsThreeWithoutHanging) {
  auto r = run_harness({"--timeout", "300", "--", "/bin/sh", "-c", "exec sleep 60"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  ASSERT_TRUE(r.report.is_object());
  EXPECT_EQ(r.error_ids(), std::set<std::string>{"T-HANG"});
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
}

TEST(Cli, GarbageOnStdoutIsAFindingNotACrash) {
  auto r = run_harness({"--timeout", "300", "--", "/bin/sh", "-c", "while read l; do echo 'not json'; done"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  ASSERT_TRUE(r.report.is_object());
  EXPECT_TRUE(r.error_ids().count("T-FRAMING")) << r.report.dump(2);
}

TEST(Cli, JsonReportOnStdoutMovesConsoleToStderr) {
  auto r = run_harness({"--json", "-", "--seed", "5", fixture_server()}, false);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["seed"], 5);
  EXPECT_NE(r.err.find("PASS"), std::string::npos);
}

TEST(Cli, OnlyAndSkipSelectInvariants) {
  auto only = run_harness({"--only", "T-ID", "--calls", "1", "--", fixture_server(), "--defect", "bad-content"});
  EXPECT_EQ(only.exit_code, 0);
  EXPECT_TRUE(only.all_ids().empty());
  auto skip = run_harness({"--skip", "P-RESULT", "--calls", "1", "--", fixture_server(), "--defect", "bad-content"});
  EXPECT_EQ(skip.exit_code, 0);
  auto none = run_harness({"--calls", "1", "--", fixture_server(), "--defect", "bad-content"});
  EXPECT_EQ(none.exit_code, 1);
}

TEST(Cli, ToolSelectionAndShards) {
  auto echo_only = run_harness({"--tools", "ec*", "--calls", "1", fixture_server()});
  ASSERT_TRUE(echo_only.report.is_object());
  for (const auto& t : echo_only.report["tools"])
    EXPECT_EQ(t["calls"].get<int>() > 0, t["name"] == "echo") << t.dump();
  auto s1 = run_harness({"--shard", "1/2", "--calls", "1", fixture_server()});
  auto s2 = run_harness({"--shard", "2/2", "--calls", "1", fixture_server()});
  ASSERT_TRUE(s1.report.is_object() && s2.report.is_object());
  std::set<std::string> a, b;
  for (const auto& t : s1.report["tools"])
    if (t["calls"].get<int>() > 0) a.insert(t["name"].get<std::string>());
  for (const auto& t : s2.report["tools"])
    if (t["calls"].get<int>() > 0) b.insert(t["name"].get<std::string>());
  EXPECT_FALSE(a.empty());
  EXPECT_FALSE(b.empty());
  for (const auto& n : a) EXPECT_EQ(b.count(n), 0u) << n;
}

TEST(Cli, EveryHelpFlagIsInTheFlagReferenceAndBack) {
  auto h = run_harness({"--help"}, false);
  std::string readme = slurp(std::string(CTXO_SOURCE_DIR) + "/docs/reference/flags.md");
  std::regex flag(R"((--[a-z][a-z-]+))");
  std::set<std::string> in_help, in_readme_table;
  for (std::sregex_iterator it(h.out.begin(), h.out.end(), flag), end; it != end; ++it) in_help.insert((*it)[1]);
  // The flag reference's table: lines starting with "| `--flag".
  std::regex row(R"(\n\| `(--[a-z][a-z-]+))");
  for (std::sregex_iterator it(readme.begin(), readme.end(), row), end; it != end; ++it)
    in_readme_table.insert((*it)[1]);
  in_help.erase("--help");
  for (const auto& f : in_help) EXPECT_TRUE(in_readme_table.count(f)) << f << " is in --help but not in docs/reference/flags.md";
  for (const auto& f : in_readme_table) EXPECT_TRUE(in_help.count(f)) << f << " is in docs/reference/flags.md but not in --help";
}


// --tool-budget and --shrink-budget (issue 17): a slow tool stops once its calls have taken its
// budget, the others run on, and a shrink stops at its own budget; each is said in a note.
std::string budget_server() {
  const std::string script = std::string(CTXO_BINARY_DIR) + "/test-tmp/budget_server.py";
  std::filesystem::create_directories(std::string(CTXO_BINARY_DIR) + "/test-tmp");
  // Written under another name and renamed into place: tests running at once never read it half written.
  const std::string part = script + "." + std::to_string(::getpid());
  std::ofstream(part) << R"PY(import sys, json, time
# slow: 0.3 s a call. fail: 0.1 s a call, a JSON-RPC -32603 when q has 12 characters or more; fail2 fails
# the same way (the same root cause in a second tool), without the wait.
tools = [{"name": n, "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "maxLength": 40}}},
          "annotations": {"readOnlyHint": True}} for n in ("fast", "fail", "fail2", "slow")]
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method, out = m.get("method"), {"jsonrpc": "2.0", "id": m["id"]}
    if method == "initialize":
        out["result"] = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "b", "version": "1"}}
    elif method == "tools/list":
        out["result"] = {"tools": tools}
    elif method == "tools/call":
        name, q = m["params"]["name"], m["params"].get("arguments", {}).get("q", "")
        if name == "slow":
            time.sleep(0.3)
        if name == "fail":
            time.sleep(0.1)
        if name in ("fail", "fail2") and isinstance(q, str) and len(q) >= 12:
            out["error"] = {"code": -32603, "message": "boom"}
        else:
            out["result"] = {"content": [{"type": "text", "text": "ok"}]}
    else:
        out["result"] = {}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
)PY";
  std::filesystem::rename(part, script);
  return script;
}

TEST(Budgets, ASlowToolStopsAtItsToolBudgetAndTheOthersRunOn) {
  auto r = run_harness({"--tools", "fast,slow", "--calls", "12", "--seed", "1", "--no-cases", "--tool-budget", "1",
                        "--", "python3", budget_server()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const auto& t : r.report["tools"]) {
    if (t["name"] == "slow") {
      EXPECT_LE(t["calls"].get<int>(), 6) << t.dump(2);  // 1 s of 0.3 s calls, and the one that crossed it
      EXPECT_GE(t["calls"].get<int>(), 3) << t.dump(2);
      EXPECT_NE(t.value("skipped", std::string()).find("--tool-budget of 1 s"), std::string::npos) << t.dump(2);
    }
    if (t["name"] == "fast") {
      EXPECT_GE(t["calls"].get<int>(), 9) << t.dump(2);  // its whole plan
      EXPECT_FALSE(t.contains("skipped")) << t.dump(2);
    }
  }
  std::size_t said = 0;
  for (const auto& n : r.report["notes"]) said += n.get<std::string>().find("past --tool-budget") != std::string::npos;
  EXPECT_EQ(said, 1u) << r.report["notes"].dump(2);
  // 0: no limit.
  auto all = run_harness({"--tools", "slow", "--calls", "8", "--seed", "1", "--no-cases", "--tool-budget", "0", "--",
                          "python3", budget_server()});
  ASSERT_TRUE(all.report.is_object()) << all.err;
  for (const auto& t : all.report["tools"]) {
    if (t["name"] == "slow") {
      EXPECT_GE(t["calls"].get<int>(), 7) << t.dump(2);
    }
  }
}

// Two tools that fail the same way (same invariant, same diagnosis) are one root cause: shrunk
// once, on the first; the other's finding is reported as generated, and the run says so.
TEST(Budgets, OneRootCauseIsShrunkOnce) {
  auto r = run_harness({"--tools", "fail,fail2", "--calls", "12", "--seed", "1", "--no-cases", "--", "python3",
                        budget_server()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  std::map<std::string, std::size_t> steps;
  for (const auto& f : r.report["findings"])
    if (f["invariant"] == "P-NO-THROW")  // (the valid calls' and the invalid calls' -32603 are two causes)
      steps[f["tool"].get<std::string>()] += f.value("shrink_steps", 0);
  ASSERT_EQ(steps.size(), 2u) << r.report["findings"].dump(2);
  EXPECT_GT(steps["fail"], 0u);
  EXPECT_EQ(steps["fail2"], 0u);
  bool said = false;
  for (const auto& n : r.report["notes"])
    said = said || n.get<std::string>().find("shrunk once, on fail (one root cause, one shrink)") != std::string::npos;
  EXPECT_TRUE(said) << r.report["notes"].dump(2);
}

// With --jobs 2 the two tools run on two servers at once, and the decision is the same: which
// tool's finding is shrunk is decided in tool order when the phase ends, not by which finished first.
TEST(Budgets, OneRootCauseIsShrunkOnceWhateverTheJobs) {
  std::map<std::string, nlohmann::json> findings;
  for (const std::string jobs : {"1", "2"}) {
    SCOPED_TRACE("--jobs " + jobs);
    auto r = run_harness({"--tools", "fail,fail2", "--calls", "12", "--seed", "1", "--no-cases", "--jobs", jobs, "--",
                          "python3", budget_server()});
    ASSERT_TRUE(r.report.is_object()) << r.err;
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& f : r.report["findings"])
      kept.push_back({f["invariant"], f["tool"], f["request"], f.value("shrink_steps", 0), f["count"], f["replay"]});
    findings[jobs] = kept;
    bool said = false;
    for (const auto& n : r.report["notes"])
      said = said || n.get<std::string>().find("shrunk once, on fail (one root cause, one shrink)") != std::string::npos;
    EXPECT_TRUE(said) << r.report["notes"].dump(2);
  }
  EXPECT_EQ(findings["1"], findings["2"]);
  EXPECT_GE(findings["1"].size(), 2u) << findings["1"].dump(2);
}

TEST(Budgets, AShrinkStopsAtItsShrinkBudgetAndSaysSo) {
  auto r = run_harness({"--tools", "fail", "--calls", "12", "--seed", "1", "--no-cases", "--shrink-budget", "0.5",
                        "--", "python3", budget_server()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.error_ids(), std::set<std::string>{"P-NO-THROW"}) << r.report["findings"].dump(2);
  bool said = false;
  for (const auto& n : r.report["notes"])
    said = said || n.get<std::string>().find("stopped at --shrink-budget (P-NO-THROW on fail)") != std::string::npos;
  EXPECT_TRUE(said) << r.report["notes"].dump(2);
  // The shrink's calls stopped near its budget: 0.5 s of 0.1 s calls, not the 200-call bound.
  EXPECT_LE(r.report["stats"]["shrink_calls"].get<int>(), 12) << r.report["stats"].dump(2);
}

}  // namespace
}  // namespace ctxo::test
