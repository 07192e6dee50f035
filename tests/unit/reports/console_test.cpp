// SPDX-License-Identifier: MIT
// The console: a progress line redrawn in place on a TTY (tools done, calls, findings, elapsed),
// nothing of it otherwise; -q prints only the summary line.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "reports/json_report.h"

namespace ctxo::reports {
namespace {

void drive(ConsoleListener& l) {
  engine::ToolSummary a;
  a.name = "search";
  engine::ToolSummary b;
  b.name = "read";
  l.on_tool(a, 0, 2);
  l.on_call(a, 1);
  Finding f;
  f.invariant = "TR-HINT";
  f.tool = "search";
  l.on_finding(f);
  l.on_tool(b, 1, 2);
  l.on_call(b, 2);
  l.clear_line();
}

TEST(Console, ProgressLineOnATerminal) {
  std::ostringstream out;
  ConsoleStyle style;
  style.progress = true;
  ConsoleListener l(out, style);
  drive(l);
  const std::string s = out.str();
  EXPECT_NE(s.find("\r\x1b[2K"), std::string::npos);
  EXPECT_NE(s.find("0/2 tools done, now search"), std::string::npos) << s;
  EXPECT_NE(s.find("1/2 tools done, now read"), std::string::npos) << s;
  EXPECT_NE(s.find("1 finding"), std::string::npos) << s;
  EXPECT_TRUE(std::regex_search(s, std::regex(R"(findings?, [0-9]+\.[0-9]s)"))) << s;  // elapsed time
}

TEST(Console, NoProgressWhenNotATerminalOrQuiet) {
  for (int verbosity : {0, 1}) {
    std::ostringstream out;
    ConsoleStyle style;
    style.progress = verbosity == 0;  // quiet wins even on a terminal
    style.verbosity = verbosity;
    ConsoleListener l(out, style);
    drive(l);
    EXPECT_EQ(out.str().find('\r'), std::string::npos) << verbosity;
    EXPECT_EQ(out.str().find("tools done"), std::string::npos) << verbosity;
  }
}

TEST(Console, QuietSummaryIsOneLine) {
  engine::RunReport r;
  r.seed = 3;
  r.verdict = engine::Verdict::kPass;
  std::ostringstream out;
  ConsoleStyle style;
  style.verbosity = 0;
  print_summary(out, r, style);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_EQ(text.rfind("PASS", 0), 0u) << text;
}

engine::RunReport judged() {
  engine::RunReport r;
  r.seed = 5;
  r.verdict = engine::Verdict::kPass;
  r.calls = 6;
  r.successes = 6;
  engine::ToolSummary a;
  a.name = "search";
  a.calls = 4;
  a.successes = 4;
  a.profile = "ctxo-envelope";
  a.profile_reason = "detected";
  a.outcomes = {{"P-RESULT", checks::Status::kPassed},
                {"TR-HINT", checks::Status::kNotObserved},
                {"TR-PREFIX", checks::Status::kNotObserved},
                {"TR-CAP", checks::Status::kNotObserved}};
  a.not_observed = {{"TR-HINT", "no answer was truncated"},
                    {"TR-PREFIX", "no answer was truncated"},
                    {"TR-CAP", "no call set a limit"}};
  engine::ToolSummary b;
  b.name = "read";
  b.calls = 2;
  b.successes = 2;
  b.profile = "ctxo-envelope";
  b.profile_reason = "detected";
  b.outcomes = {{"P-RESULT", checks::Status::kPassed}};
  r.tools = {a, b};
  return r;
}

TEST(Console, NotObservedGroupedByReason) {
  std::ostringstream out;
  print_summary(out, judged(), ConsoleStyle{});
  const std::string s = out.str();
  EXPECT_NE(s.find("  search: TR-HINT, TR-PREFIX not observed (no answer was truncated)\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  search: TR-CAP not observed (no call set a limit)\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("  read:"), std::string::npos) << "nothing unobserved on read: " << s;
  EXPECT_EQ(s.find("judged by profile"), std::string::npos) << "one profile for all, not verbose: " << s;
}

TEST(Console, ProfilesShownWhenTheyDifferOrVerbose) {
  auto r = judged();
  std::ostringstream verbose;
  ConsoleStyle v;
  v.verbosity = 2;
  print_summary(verbose, r, v);
  EXPECT_NE(verbose.str().find("  search: ctxo-envelope (detected)\n"), std::string::npos) << verbose.str();
  r.tools[1].profile = "";
  r.tools[1].profile_reason = "no answer matched a profile";
  std::ostringstream out;
  print_summary(out, r, ConsoleStyle{});
  EXPECT_NE(out.str().find("judged by profile:\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("  read: none (no answer matched a profile)\n"), std::string::npos) << out.str();
}

TEST(Console, SaysWhichToolsReachedNoData) {
  auto r = judged();
  // calls, data, empty, misses, errors, refusals, no_answer, largest_bytes, truncated
  r.tools[0].coverage = {41, 0, 0, 37, 0, 4, 0, 0, 0};
  r.tools[1].coverage = {6, 6, 0, 0, 0, 0, 0, 900, 0};
  r.tools[1].driven_calls = 2;
  std::ostringstream out;
  print_summary(out, r, ConsoleStyle{});
  const std::string s = out.str();
  EXPECT_NE(s.find("data reached: by 1 of 2 called tools; none by search (0/41) (their success answers were never "
                   "checked)\n"),
            std::string::npos)
      << s;
  // One reason for every rule the tool left unobserved: it never reached data.
  EXPECT_NE(s.find("  search: TR-HINT, TR-CAP, TR-PREFIX not observed (0/41 calls reached data (37 graceful misses, 4 "
                   "refusals))\n"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("no call set a limit"), std::string::npos) << "said once, for one cause: " << s;
  EXPECT_EQ(s.find("largest answer"), std::string::npos) << "per-tool lines only with -v: " << s;
  ConsoleStyle v;
  v.verbosity = 2;
  std::ostringstream verbose;
  print_summary(verbose, r, v);
  EXPECT_NE(verbose.str().find("  read: 6/6 calls reached data; largest answer 900 B; 0 truncated; 2 with a limit "
                               "driven small\n"),
            std::string::npos)
      << verbose.str();
  r.tools[0].coverage = r.tools[1].coverage;
  std::ostringstream all;
  print_summary(all, r, ConsoleStyle{});
  EXPECT_NE(all.str().find("data reached: by all 2 called tools\n"), std::string::npos) << all.str();
}

// Text the server chose never reaches the terminal (or a CI log that renders it) as escape
// sequences: clear screen, colours, OSC 52 clipboard writes, OSC 8 links become visible escapes.
TEST(Console, ServerTextCannotDriveTheTerminal) {
  const std::string hostile = "evil\x1b[2J\x1b]52;c;SGVsbG8=\x07\x1b]8;;https://x.example\x07tool\r\xc2\x9b";
  auto r = judged();
  r.server_name = hostile;
  r.tools[0].name = hostile;
  r.tools[0].coverage = {3, 0, 0, 3, 0, 0, 0, 10, 0};
  Finding f;
  f.invariant = "P-RESULT";
  f.tool = hostile;
  f.diagnosis = "diag " + hostile;
  f.response_excerpt = hostile;
  f.request = {{"name", hostile}};
  r.findings.push_back(engine::ReportedFinding{f, 1, false, "", {}, {}});
  ConsoleStyle v;
  v.verbosity = 2;
  std::ostringstream out;
  print_summary(out, r, v);
  ConsoleListener l(out, v);
  l.on_started(r);
  l.on_note("note " + hostile);
  l.on_tool(r.tools[0], 0, 1);
  l.on_finding(f);
  const std::string s = out.str();
  EXPECT_EQ(s.find('\x1b'), std::string::npos) << s;
  EXPECT_EQ(s.find('\x07'), std::string::npos) << s;
  EXPECT_EQ(s.find('\r'), std::string::npos) << s;
  EXPECT_EQ(s.find("\xc2\x9b"), std::string::npos) << s;
  EXPECT_NE(s.find("evil\\x1B[2J"), std::string::npos) << "shown, as a visible escape: " << s;
}

TEST(Console, UntestedSaysWhy) {
  engine::RunReport r;
  r.verdict = engine::Verdict::kUntested;
  r.exit_code = 4;
  r.calls = 3;
  std::ostringstream out;
  print_summary(out, r, ConsoleStyle{});
  const std::string s = out.str();
  EXPECT_EQ(s.rfind("UNTESTED: no call reached the server's tools", 0), 0u) << s;
  EXPECT_NE(s.find("all 3 calls were answered with an error"), std::string::npos) << s;
  EXPECT_NE(s.find("exit code 4"), std::string::npos) << s;
  r.calls = 0;
  std::ostringstream none;
  print_summary(none, r, ConsoleStyle{});
  EXPECT_NE(none.str().find("no tool was called"), std::string::npos) << none.str();
}

// A call that timed out was never answered: the summary does not call it "answered with an error"
// (issue 45), and says how many of each when both happened.
TEST(Console, UntestedTellsNeverAnsweredFromAnsweredWithAnError) {
  engine::RunReport r;
  r.verdict = engine::Verdict::kUntested;
  r.exit_code = 4;
  r.calls = 3;
  engine::ToolSummary t;
  t.name = "slow";
  t.calls = 3;
  for (int i = 0; i < 3; ++i) t.coverage.add(checks::Reach::kNoAnswer);
  r.tools = {t};
  auto summary = [&] {
    std::ostringstream out;
    print_summary(out, r, ConsoleStyle{});
    return out.str();
  };
  std::string s = summary();
  EXPECT_NE(s.find("all 3 calls were never answered (timed out, or the server closed the connection)"),
            std::string::npos) << s;
  EXPECT_EQ(s.find("answered with an error"), std::string::npos) << s;
  r.tools[0].coverage = checks::Coverage{};
  r.tools[0].coverage.add(checks::Reach::kNoAnswer);
  r.tools[0].coverage.add(checks::Reach::kError);
  r.tools[0].coverage.add(checks::Reach::kError);
  s = summary();
  EXPECT_NE(s.find("of 3 calls, 2 were answered with an error (a JSON-RPC error or isError: true) and 1 was never "
                   "answered"),
            std::string::npos) << s;
  r.calls = 1;
  r.tools[0].coverage = checks::Coverage{};
  r.tools[0].coverage.add(checks::Reach::kNoAnswer);
  s = summary();
  EXPECT_NE(s.find("the only call was never answered"), std::string::npos) << s;
}

}  // namespace
}  // namespace ctxo::reports
