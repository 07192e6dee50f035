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
  r.verdict = "pass";
  std::ostringstream out;
  ConsoleStyle style;
  style.verbosity = 0;
  print_summary(out, r, style);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_EQ(text.rfind("PASS", 0), 0u) << text;
}

}  // namespace
}  // namespace ctxo::reports
