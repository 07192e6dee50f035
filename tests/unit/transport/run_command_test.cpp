// SPDX-License-Identifier: MIT
// run_command (POSIX): exit codes and stdout, its working directory, and its bounds: a command
// past its time limit or its output limit is killed with its process group and reaped.
#include "transport/run_command.h"

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace ctxo::transport {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

CommandResult sh(const std::string& script, CommandOptions o = {}) { return run_command({"/bin/sh", "-c", script}, o); }

// Whether `pid` is gone (or only a zombie, waiting for its new parent to reap it), within 2 s.
bool gone(int pid) {
  for (int i = 0; i < 200; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!stat || !std::getline(stat, line)) return true;
    const auto close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z') return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

TEST(RunCommand, ItsExitCodeAndStdout) {
  const CommandResult r = sh("printf hello; echo oops >&2; exit 3");
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, "hello");  // stderr is not captured
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.too_long);
}

TEST(RunCommand, ItsStderrWithItsStdoutWhenAsked) {
  CommandOptions o;
  o.with_stderr = true;
  const CommandResult r = sh("printf out; printf err >&2; exit 1", o);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "outerr");
}

TEST(RunCommand, RunsInItsDirectory) {
  CommandOptions o;
  o.cwd = "/";
  EXPECT_EQ(sh("pwd", o).output, "/\n");
  o.cwd = "/nonexistent/ctxo";
  EXPECT_EQ(sh("pwd", o).exit_code, 127);
  EXPECT_EQ(run_command({"/nonexistent/ctxo-program"}, {}).exit_code, 127);
}

TEST(RunCommand, PastItsTimeLimitItsGroupIsKilled) {
  CommandOptions o;
  o.limit = 300ms;
  const auto t0 = Clock::now();
  const CommandResult r = sh("sleep 30 & echo $!; sleep 30", o);
  EXPECT_LT(Clock::now() - t0, 10s);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exit_code);
  ASSERT_FALSE(r.output.empty());
  EXPECT_TRUE(gone(std::stoi(r.output))) << "its background child was left running";
}

// Its stdout closed, it still has only its time limit to end.
TEST(RunCommand, StdoutClosedDoesNotExtendTheLimit) {
  CommandOptions o;
  o.limit = 300ms;
  const auto t0 = Clock::now();
  const CommandResult r = sh("exec >&-; sleep 30", o);
  EXPECT_LT(Clock::now() - t0, 10s);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exit_code);
}

TEST(RunCommand, PastItsOutputLimitItIsKilled) {
  CommandOptions o;
  o.max_output = 1000;
  o.limit = 20s;
  const auto t0 = Clock::now();
  const CommandResult r = sh("while :; do echo yyyyyyyyyyyyyyyy; done", o);
  EXPECT_LT(Clock::now() - t0, 10s);
  EXPECT_TRUE(r.too_long);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.exit_code);
  EXPECT_EQ(r.output.size(), 1000u);
}

}  // namespace
}  // namespace ctxo::transport
