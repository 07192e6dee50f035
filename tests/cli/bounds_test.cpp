// SPDX-License-Identifier: MIT
// Bounded by design (issue 27): what a server does cannot cost the harness memory or CPU without
// end. A server that floods requests of its own and never reads its stdin gets one T-FRAMING
// finding, not our memory (our answers waiting for it are bounded by mcp::kMaxUnsentBytes); an
// outputSchema pattern that backtracks exponentially under std::regex is matched by RE2 in linear
// time. Each run ends by itself with a schema-valid report, its server reaped.
#include <sys/resource.h>

#include <chrono>
#include <string>

#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string script(const char* name) { return std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/" + name; }

bool has_finding(const HarnessRun& r, const std::string& invariant, const std::string& text) {
  for (const auto& f : r.report["findings"])
    if (f["invariant"] == invariant && f["diagnosis"].get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// At its first tools/call the server stops reading and writes requests as fast as it can. Before
// the bound, every ping got an answer queued for a stdin nobody read: hundreds of MB in a minute.
TEST(Bounds, AServerThatFloodsRequestsAndNeverReadsGetsAFindingNotOurMemory) {
  for (const char* method : {"ping", "sampling/createMessage"}) {
    SCOPED_TRACE(method);
    const auto start = std::chrono::steady_clock::now();
    auto r = run_harness({"--calls", "1", "--no-cases", "--timeout", "1500", "--grace", "500", "--time-budget", "10",
                          "--shrink-budget", "2",
                          "--env", std::string("FLOOD_METHOD=") + method, "--env", "FLOOD_SECONDS=60", "--", "python3",
                          script("flood_server.py")});
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(r.report.is_object()) << r.out << r.err;
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(has_finding(r, "T-FRAMING", "does not read its stdin")) << r.report["findings"].dump(2);
    EXPECT_LT(seconds, 90.0) << "the run took " << seconds << " s";
  }
  // The largest resident set of the runs (and their servers): a few MiB of answers at most, plus
  // the harness itself (about 20 MB); without the bound this grew by about 17 MB a second, so
  // past 100 MB within each 10-second run.
  rusage usage{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &usage), 0);
  EXPECT_LT(usage.ru_maxrss, 100L * 1024L) << "peak resident set " << usage.ru_maxrss << " KiB";
}

// The tool's outputSchema has "pattern": "^(a+)+$" and every answer's structuredContent is 34 a's
// and a 'b': std::regex would take about 2^34 steps on each (the run never ended). With RE2 the
// run ends at once, the answer judged not to match its outputSchema.
TEST(Bounds, AnOutputSchemaPatternThatBacktracksEndsWithinTheBudget) {
  const auto start = std::chrono::steady_clock::now();
  // A fixed seed: with --calls 5 some seeds make only 4 distinct calls (a random draw repeats a
  // boundary call and is given up), which made this test fail one run in six.
  auto r = run_harness({"--seed", "1", "--calls", "5", "--no-cases", "--time-budget", "30", "--", "python3",
                        script("redos_output_server.py")});
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.report.is_object()) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_GE(r.report["stats"]["calls"].get<int>(), 4) << r.out;  // every answer was checked, not the first alone
  bool schema_finding = false;
  for (const auto& f : r.report["findings"]) schema_finding = schema_finding || f["diagnosis"].dump().find("/s") != std::string::npos;
  EXPECT_TRUE(schema_finding) << r.report["findings"].dump(2);
  EXPECT_LT(seconds, 30.0) << "the run took " << seconds << " s";
}

}  // namespace
}  // namespace ctxo::test
