// SPDX-License-Identifier: MIT
// Memory bounded in every phase (issue 45, item 1), and reports kept whatever phase a signal
// stops (item 2). A listing is the server's to size: one that never stops paging (it took 6 GB
// and never ended), cursors of a megabyte (5 GB), more tools than anyone tests. The walk is
// bounded in pages, kept tools, cursor bytes, time and --memory-budget; a walk that does not end
// is a P-LIST finding; the run ends by itself with a schema-valid report.
#include <signal.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "../support/run_harness.h"
#include "../support/signals.h"

extern char** environ;

namespace ctxo::test {
namespace {

std::string bomb() { return std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/list_bomb_server.py"; }

const nlohmann::json* finding(const HarnessRun& r, const std::string& invariant, const std::string& text) {
  for (const auto& f : r.report["findings"])
    if (f["invariant"] == invariant && f["diagnosis"].get<std::string>().find(text) != std::string::npos) return &f;
  return nullptr;
}

bool noted(const HarnessRun& r, const std::string& text) {
  for (const auto& n : r.report["notes"])
    if (n.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

long peak_kib() {
  rusage usage{};
  return getrusage(RUSAGE_CHILDREN, &usage) == 0 ? usage.ru_maxrss : -1;
}

// Pages of 10 tools, each with a new nextCursor, forever: the walk stops at 200 pages and says
// pagination does not terminate (an error: a client following it never gets its tools). Only one
// tool is called (--tools): the subject is the walk.
TEST(Listing, AListingThatNeverEndsIsAPListErrorAndTheRunEnds) {
  const auto start = std::chrono::steady_clock::now();
  auto r = run_harness({"--seed", "1", "--calls", "2", "--no-cases", "--tools", "tool_0", "--", "python3", bomb(), "endless", "10"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.report.is_object()) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.out;
  const auto* f = finding(r, "P-LIST", "returned a nextCursor on 200 pages in a row");
  ASSERT_NE(f, nullptr) << r.report["findings"].dump(2);
  EXPECT_EQ((*f)["severity"], "error");
  EXPECT_EQ(r.report["tools"].size(), 2000u);  // what the 200 pages listed, within the bound of kept tools
  EXPECT_LT(seconds, 60.0);
  EXPECT_LT(peak_kib(), 300L * 1024L) << "peak resident set of a child";
}

// A nextCursor of a megabyte is not followed (each page would cost its size again, and the
// server can grow it without end): a P-LIST warning naming its size, one page read.
TEST(Listing, ACursorOfAMegabyteIsAWarningAndIsNotFollowed) {
  auto r = run_harness({"--seed", "1", "--calls", "2", "--no-cases", "--", "python3", bomb(), "cursors", "1048576"});
  ASSERT_TRUE(r.report.is_object()) << r.out << r.err;
  const auto* f = finding(r, "P-LIST", "returned a nextCursor of 1048578 bytes on page 1");
  ASSERT_NE(f, nullptr) << r.report["findings"].dump(2);
  EXPECT_EQ((*f)["severity"], "warning");
  EXPECT_EQ(r.report["tools"].size(), 1u);
  EXPECT_LT(peak_kib(), 300L * 1024L);
}

// The same walk under --time-budget: pages that take a second each are followed until the budget,
// then the tools listed by then are tested, and the run says the listing was cut.
TEST(Listing, ASlowListingStopsAtTheTimeBudgetAndSaysSo) {
  auto r = run_harness({"--seed", "1", "--calls", "1", "--no-cases", "--time-budget", "3", "--env", "PAGE_SECONDS=1", "--", "python3",
                        bomb(), "endless", "2"});
  ASSERT_TRUE(r.report.is_object()) << r.out << r.err;
  EXPECT_TRUE(noted(r, "--time-budget ran out while tools/list was still paging")) << r.report["notes"].dump(2);
  EXPECT_EQ(finding(r, "P-LIST", "pages in a row"), nullptr) << "a cut walk is not a finding";
  EXPECT_GE(r.report["tools"].size(), 2u);
  EXPECT_LE(r.report["tools"].size(), 10u);
}

// A signal while the listing is walked: the reports are written by the run itself (the walk looks
// at the signal between pages), marked interrupted, naming the phase it stopped.
TEST(Listing, ASignalWhileTheToolsAreListedKeepsTheReportsAndNamesThePhase) {
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/signal-listing";
  std::filesystem::create_directories(dir);
  const std::string json_path = dir + "/r.json";
  std::filesystem::remove(json_path);
  const pid_t pid = spawn_logged({harness_binary(), "--json", json_path, "--no-cases", "--env", "PAGE_SECONDS=0.2", "--", "python3",
                                  bomb(), "endless", "5"},
                                 dir + "/out", dir + "/err");
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // started, and some pages in
  const Stopped stopped = signal_and_reap(pid, SIGTERM);
  ASSERT_TRUE(stopped.in_time);
  ASSERT_TRUE(WIFEXITED(stopped.status)) << slurp(dir + "/err");
  EXPECT_EQ(WEXITSTATUS(stopped.status), 128 + SIGTERM);
  const auto report = nlohmann::json::parse(slurp(json_path), nullptr, false);
  ASSERT_TRUE(report.is_object()) << slurp(dir + "/err");
  EXPECT_TRUE(report_schema_violations(report).empty()) << report_schema_violations(report).front();
  EXPECT_EQ(report.value("interrupted", false), true);
  EXPECT_EQ(report.value("interrupted_during", ""), "listing the tools") << report.dump(2);
  EXPECT_NE(slurp(dir + "/out").find("stopped by SIGTERM during listing the tools"), std::string::npos) << slurp(dir + "/out");
}

// 2,000 read-only tools (each one P-CONCURRENT's candidate): every tool's work in a phase had a
// copy of the run's harvest, 16,384 scores each, made when the phase began: 3.1 GB, and copying
// them took twice the time budget. Now a tool keeps what it gathered, and the scores are shared.
TEST(MemoryBudget, TwoThousandReadOnlyToolsCostMegabytesNotGigabytes) {
  const auto start = std::chrono::steady_clock::now();
  auto r = run_harness({"--seed", "1", "--no-cases", "--memory-budget", "0", "--time-budget", "8", "--", "python3", bomb(), "readonly",
                        "2000"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.report.is_object()) << r.out << r.err;
  EXPECT_EQ(r.report["tools"].size(), 2000u);
  EXPECT_GT(r.report["stats"]["calls"].get<int>(), 2000);
  EXPECT_LT(peak_kib(), 500L * 1024L) << "peak resident set of a child";
  EXPECT_LT(seconds, 40.0) << "generous: 12 s here; 35 s before";
}

// --memory-budget: an answer of a million keys (a 31 MB message) takes the harness past 64 MiB:
// no further call is made, the run says so and where, and its reports are written. A budget
// below what the harness needs to start is refused.
TEST(MemoryBudget, PastTheBudgetNoFurtherCallIsMadeAndTheRunSaysSo) {
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/huge_answer_server.py";
  auto r = run_harness({"--seed", "1", "--calls", "4", "--no-cases", "--host", "none", "--memory-budget", "64", "--", "python3", server,
                        "keys", "1000000"});
  ASSERT_TRUE(r.report.is_object()) << r.out << r.err;
  EXPECT_TRUE(noted(r, "--memory-budget 64 MiB reached during calling the tools")) << r.report["notes"].dump(2);
  EXPECT_LE(r.report["stats"]["calls"].get<int>(), 2) << "no call after the one that took the run past its budget";
  auto bad = run_harness({"--memory-budget", "10", "--", "true"}, false);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--memory-budget must be at least 64 MiB"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ctxo::test
