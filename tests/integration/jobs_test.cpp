// SPDX-License-Identifier: MIT
// --jobs N: N servers, each calling its share of a phase's tools. What a run reports must not
// depend on N: the reach suite (a code-intelligence server written with the official TypeScript
// SDK, whose defects show only when a call carries a value another tool's answer gave) gives the
// same report and the same case files with --jobs 1 and --jobs 3. The workers' calls really do
// run at once (slow-tools.mjs logs each call's start and end per process), and a signal stops
// every worker, writes the report and leaves no server behind. In the sandbox each worker's
// server has a /tmp of its own, kept across its restarts (tmp-slot.mjs).
#include <gtest/gtest.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "../support/npm.h"
#include "../support/run_harness.h"
#include "../support/sandbox.h"
#include "../support/signals.h"

namespace ctxo::test {
namespace {

std::string reach() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/reach"; }
std::string slow_tools() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/jobs/slow-tools.mjs"; }
std::string tmp_slot() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/jobs/tmp-slot.mjs"; }

std::string scratch(const std::string& name) {
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/jobs-" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The report without what timing decides (durations, the start time) and the server's own
// unsolicited traffic (each session gets its own), with the case directory left out of paths.
nlohmann::json comparable(nlohmann::json j, const std::string& cases) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [k, v] : j.items()) {
      if (k == "duration_ms" || k == "elapsed_ms" || k == "started_at" || k == "notifications" || k == "server_requests")
        continue;
      out[k] = comparable(v, cases);
    }
    return out;
  }
  if (j.is_array()) {
    for (auto& v : j) v = comparable(v, cases);
    return j;
  }
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    for (std::size_t at; (at = s.find(cases)) != std::string::npos;) s.replace(at, cases.size(), "CASES");
    return s;
  }
  return j;
}

std::map<std::string, std::string> files_in(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files[e.path().filename()] = slurp(e.path());
  return files;
}

TEST(Jobs, TheReportAndTheCaseFilesAreTheSameForAnyNumberOfJobs) {
  REQUIRE_NPM(sdk_dir());
  std::map<std::string, nlohmann::json> reports;
  std::map<std::string, std::map<std::string, std::string>> cases;
  for (const std::string jobs : {"1", "3"}) {
    SCOPED_TRACE("--jobs " + jobs);
    const std::string dir = scratch("reach-" + jobs);
    auto r = run_harness({"--seed", "1", "--jobs", jobs, "--cases", dir, "--root", reach() + "/workspace", "--",
                          "node", reach() + "/codeintel.mjs"});
    ASSERT_TRUE(r.report.is_object()) << r.err;
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    // Not a comparison of two empty runs: the suite's four defects, each behind a harvested value
    // or the second pass, and shrunk.
    std::set<std::string> found;
    for (const auto& f : r.report["findings"]) found.insert(f["invariant"].get<std::string>() + " " + f["tool"].get<std::string>());
    EXPECT_EQ(found, (std::set<std::string>{"POS-UTF16 find_references", "TR-COUNT get_callers", "TR-HINT search_text",
                                            "POS-BASE file_outline"}))
        << r.report["findings"].dump(2);
    EXPECT_GT(r.report["stats"]["shrink_calls"].get<int>(), 0);
    reports[jobs] = comparable(r.report, dir);
    cases[jobs] = files_in(dir);
    // One case per finding: four. find_references' column defect is one cause (columns counted
    // as the server counts them, at one place of its answers) however many symbols it misplaces
    // (runTask after the rocket in src/app.ts; formatName after the emoji in src/util.ts, reached
    // since the workspace's declared names are offered too): one finding with a count.
    EXPECT_EQ(cases[jobs].size(), 4u);
    for (const auto& f : r.report["findings"])
      if (f["invariant"] == "POS-UTF16") {
        EXPECT_GE(f["count"].get<int>(), 2) << f.dump(2);
      }
  }
  EXPECT_EQ(reports["1"], reports["3"]) << "--jobs 1:\n" << reports["1"].dump(1) << "\n--jobs 3:\n" << reports["3"].dump(1);
  EXPECT_EQ(cases["1"], cases["3"]);
}

// Two servers, and calls on one while the other is in a call of its own.
TEST(Jobs, TwoJobsAreTwoServersCallingAtTheSameTime) {
  REQUIRE_NPM(sdk_dir());
  const std::string log = scratch("overlap");
  // --no-sandbox: each server appends to a log of ours (CALL_LOG), which a sandbox keeps read-only.
  auto r = run_harness({"--seed", "1", "--jobs", "2", "--calls", "6", "--no-cases", "--no-sandbox", "--env", "CALL_LOG=" + log, "--env",
                        "TOOLS=4", "--env", "DELAY_MS=60", "--", "node", slow_tools()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.report["stats"]["restarts"], 0);
  std::vector<std::vector<std::pair<long long, long long>>> calls;  // per process: (start, end)
  for (const auto& [name, text] : files_in(log)) {
    std::istringstream in(text);
    std::string what;
    long long at = 0, started = 0;
    calls.emplace_back();
    while (in >> what >> at) {
      if (what == "start") started = at;
      else calls.back().emplace_back(started, at);
    }
  }
  ASSERT_EQ(calls.size(), 2u) << "one log per server process";
  std::size_t overlapping = 0;
  for (const auto& [a0, a1] : calls[0])
    for (const auto& [b0, b1] : calls[1]) overlapping += a0 < b1 && b0 < a1;
  EXPECT_GT(overlapping, 0u) << "the two servers never worked at the same time";
  // The same run with one job: one server, the same report.
  const std::string one = scratch("overlap-1");
  auto r1 = run_harness({"--seed", "1", "--jobs", "1", "--calls", "6", "--no-cases", "--no-sandbox", "--env", "CALL_LOG=" + one, "--env",
                         "TOOLS=4", "--env", "DELAY_MS=60", "--", "node", slow_tools()});
  ASSERT_TRUE(r1.report.is_object()) << r1.err;
  EXPECT_EQ(files_in(one).size(), 1u);
  EXPECT_EQ(comparable(r1.report, one), comparable(r.report, log));
}

// Sandboxed, the two servers of --jobs 2 are the same pid, each in its own PID namespace, and
// tmp-slot.mjs names its scratch file by its pid: each still has its file to itself (a /tmp of
// its own: with one /tmp, the second server started took over the first one's file), and the
// server load_index stopped, started again by its worker, finds the file the one before it left
// (its /tmp kept across the restart). The answers are read from --record.
TEST(Jobs, EachSandboxedServerHasATmpOfItsOwnKeptAcrossItsRestarts) {
  REQUIRE_NPM(sdk_dir());
  REQUIRE_SANDBOX();
  const std::string dir = scratch("tmp-slot");
  const std::string transcript = dir + "/record.jsonl";
  auto r = run_harness({"--seed", "1", "--jobs", "2", "--calls", "6", "--no-cases", "--sandbox", "require", "--record",
                        transcript, "--", "node", tmp_slot()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_GE(r.report["stats"]["restarts"].get<int>(), 1) << r.out;
  std::set<std::string> slots;  // the first server of each /tmp (the first token of its histories)
  std::size_t answers = 0, restarted = 0;
  std::istringstream in(slurp(transcript));
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || j["request"].value("method", "") != "tools/call") continue;
    const auto result = j["response"].value("result", nlohmann::json::object());
    if (result.value("isError", false) || !result.contains("content")) continue;  // refused arguments
    const auto a = nlohmann::json::parse(result["content"][0].value("text", ""), nullptr, false);
    ASSERT_TRUE(a.is_object()) << line;
    ++answers;
    EXPECT_EQ(a["now"], a["history"]) << "another server wrote this one's file: " << line;
    const std::string history = a["history"];
    slots.insert(history.substr(0, history.find(' ')));
    if (j["request"]["params"]["name"] == "load_index") {
      EXPECT_NE(a["before"], "none") << line;
      ++restarted;
    }
  }
  EXPECT_GT(answers, 10u) << r.out;
  EXPECT_EQ(slots.size(), 2u) << "two servers at once, each starting with an empty /tmp";
  EXPECT_GT(restarted, 0u) << "load_index never answered on a server started again in its /tmp\n" << r.out;
}

TEST(Jobs, ABadValueIsAUsageError) {
  for (const std::string bad : {"0", "-1", "x", "2x", "65", ""}) {
    SCOPED_TRACE(bad);
    auto r = run_harness({"--jobs", bad, "--", "true"}, false);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("--jobs"), std::string::npos) << r.err;
  }
}

// A signal while both workers wait on a slow call: the run stops within seconds (not after
// --timeout), writes its report marked interrupted, and both servers are gone.
TEST(Jobs, ASignalStopsEveryWorkerAndLeavesNoServer) {
  REQUIRE_NPM(sdk_dir());
  const std::string log = scratch("signal");
  const std::string json_path = log + "/report.json";
  std::vector<std::string> args = {harness_binary(), "--json", json_path, "--jobs", "2", "--timeout", "60000", "--no-cases",
                                   "--no-sandbox", "--env", "CALL_LOG=" + log, "--env", "DELAY_MS=50000", "--env", "TOOLS=2", "--",
                                   "node", slow_tools()};
  const pid_t pid = spawn_logged(args, "/dev/null", log + ".err");
  ASSERT_GT(pid, 0);
  // Both servers inside a call: two logs.
  std::vector<pid_t> servers;
  const auto start = std::chrono::steady_clock::now();
  while (servers.size() < 2 && std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    servers.clear();
    for (const auto& e : std::filesystem::directory_iterator(log))
      if (e.path().extension() == ".log") servers.push_back(std::stoi(e.path().stem().string()));
  }
  if (servers.size() < 2) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    FAIL() << "the two servers were never both in a call\n" << slurp(log + ".err");
  }
  const Stopped stopped = signal_and_reap(pid, SIGINT);
  ASSERT_TRUE(stopped.in_time) << "still running 30 s after the signal";
  ASSERT_TRUE(WIFEXITED(stopped.status)) << "ended by signal " << WTERMSIG(stopped.status) << "\n" << slurp(log + ".err");
  EXPECT_EQ(WEXITSTATUS(stopped.status), 128 + SIGINT);
  EXPECT_LT(stopped.seconds, 5.0) << "a worker waited on its call instead of stopping";
  const auto report = nlohmann::json::parse(slurp(json_path), nullptr, false);
  ASSERT_TRUE(report.is_object()) << slurp(log + ".err");
  EXPECT_EQ(report.value("interrupted", false), true);
  for (pid_t server : servers) EXPECT_TRUE(gone_or_killed(server)) << "server " << server << " outlived the run";
}

}  // namespace
}  // namespace ctxo::test
