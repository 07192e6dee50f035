// SPDX-License-Identifier: MIT
// Unit tests of spawn_stdio on POSIX: round trips, exit reporting, timeouts, shutdown escalation,
// no zombies or group leftovers, back-pressure and flood handling, spawn errors, signal cleanup.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "core/interrupt.h"
#include "transport/transport.h"

namespace ctxo::transport {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

// Grandchildren left behind by a server are reparented to this test process, so close() can reap
// them and the "nothing of the group remains" checks do not depend on how fast init reaps.
const bool kSubreaper = adopt_orphans();

constexpr milliseconds kArrive = 10s;  // generous: for things that must happen

std::unique_ptr<Transport> spawn_sh(const std::string& script, SpawnOptions opts = {}) {
  opts.argv = {"/bin/sh", "-c", script};
  auto r = spawn_stdio(opts);
  if (!r.ok()) {
    ADD_FAILURE() << r.error().code << ": " << r.error().message;
    return nullptr;
  }
  return std::move(r).value();
}

std::string expect_line(Transport& t) {
  auto r = t.receive(kArrive);
  EXPECT_EQ(r.status, ReadStatus::kFrame);
  return r.frame.body;
}

ExitStatus wait_for_exit(Transport& t) {
  const auto deadline = std::chrono::steady_clock::now() + kArrive;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto s = t.exit_status()) return *s;
    std::this_thread::sleep_for(2ms);
  }
  ADD_FAILURE() << "the process did not exit";
  return {};
}

bool proc_exists(int pid) { return ::access(("/proc/" + std::to_string(pid)).c_str(), F_OK) == 0; }

bool group_gone(int pgid) { return ::kill(-pgid, 0) == -1 && errno == ESRCH; }

void expect_nothing_left(int pid) {
  EXPECT_FALSE(proc_exists(pid)) << "pid " << pid << " still has a /proc entry (zombie or alive)";
  EXPECT_TRUE(group_gone(pid)) << "process group " << pid << " still has members";
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ctxo-tr-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

TEST(StdioProcess, EchoRoundTripThroughPath) {
  SpawnOptions opts;
  opts.argv = {"cat"};
  auto r = spawn_stdio(opts);
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto& t = **r;
  const int pid = child_pid(t);
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(t.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").ok());
  ASSERT_TRUE(t.send("second").ok());
  EXPECT_EQ(expect_line(t), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  EXPECT_EQ(expect_line(t), "second");
  EXPECT_FALSE(t.exit_status().has_value());
  const ExitStatus s = t.close(kArrive);
  EXPECT_EQ(s.how, ExitStatus::How::kExited);
  EXPECT_EQ(s.code, 0);
  EXPECT_TRUE(s.after_eof);
  EXPECT_FALSE(s.we_signaled);
  expect_nothing_left(pid);
  // Idempotent, and the channel is over.
  EXPECT_EQ(t.close(1ms).describe(), "exited with code 0");
  EXPECT_EQ(t.receive(1ms).status, ReadStatus::kEof);
  auto sent = t.send("late");
  ASSERT_FALSE(sent.ok());
  EXPECT_EQ(sent.error().code, "closed");
}

TEST(StdioProcess, CrashIsReportedAsSignal) {
  auto t = spawn_sh("ulimit -c 0; echo before; echo 'oops: about to crash' >&2; kill -SEGV $$");
  ASSERT_TRUE(t);
  EXPECT_EQ(expect_line(*t), "before");
  EXPECT_EQ(t->receive(kArrive).status, ReadStatus::kEof);
  const ExitStatus s = wait_for_exit(*t);
  EXPECT_EQ(s.how, ExitStatus::How::kSignaled);
  EXPECT_EQ(s.code, SIGSEGV);
  EXPECT_EQ(s.describe(), "killed by signal 11 (SIGSEGV)");
  const ExitStatus c = t->close(1s);
  EXPECT_EQ(c.how, ExitStatus::How::kSignaled);
  EXPECT_FALSE(c.after_eof);
  EXPECT_FALSE(c.we_signaled);
  EXPECT_NE(t->stderr_tail().find("oops: about to crash"), std::string::npos) << t->stderr_tail();
}

TEST(StdioProcess, ExitCodeIsReported) {
  auto t = spawn_sh("echo bye; exit 3");
  ASSERT_TRUE(t);
  EXPECT_EQ(expect_line(*t), "bye");
  EXPECT_EQ(t->receive(kArrive).status, ReadStatus::kEof);
  EXPECT_EQ(t->receive(kArrive).status, ReadStatus::kEof);  // stays at EOF
  const ExitStatus s = wait_for_exit(*t);
  EXPECT_EQ(s.how, ExitStatus::How::kExited);
  EXPECT_EQ(s.code, 3);
  const int pid = child_pid(*t);
  EXPECT_EQ(t->close(1s).code, 3);
  expect_nothing_left(pid);
}

TEST(StdioProcess, LastLineWithoutNewlineArrivesAtEof) {
  auto t = spawn_sh("printf 'one\\ntwo'");
  ASSERT_TRUE(t);
  EXPECT_EQ(expect_line(*t), "one");
  EXPECT_EQ(expect_line(*t), "two");
  EXPECT_EQ(t->receive(kArrive).status, ReadStatus::kEof);
}

TEST(StdioProcess, HangTimesOutThenSigtermStopsIt) {
  auto t = spawn_sh("echo ready; exec sleep 1000");
  ASSERT_TRUE(t);
  const int pid = child_pid(*t);
  EXPECT_EQ(expect_line(*t), "ready");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(t->receive(50ms).status, ReadStatus::kTimeout);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 50ms);  // never gives up early
  EXPECT_EQ(t->receive(0ms).status, ReadStatus::kTimeout);
  EXPECT_FALSE(t->exit_status().has_value());
  const ExitStatus s = t->close(100ms);
  EXPECT_EQ(s.how, ExitStatus::How::kSignaled);
  EXPECT_EQ(s.code, SIGTERM);
  EXPECT_TRUE(s.we_signaled);
  EXPECT_FALSE(s.after_eof);
  expect_nothing_left(pid);
}

TEST(StdioProcess, IgnoringEofAndSigtermEndsInSigkill) {
  auto t = spawn_sh("trap '' TERM; echo ready; exec sleep 1000");
  ASSERT_TRUE(t);
  const int pid = child_pid(*t);
  EXPECT_EQ(expect_line(*t), "ready");
  const ExitStatus s = t->close(100ms);
  EXPECT_EQ(s.how, ExitStatus::How::kSignaled);
  EXPECT_EQ(s.code, SIGKILL);
  EXPECT_TRUE(s.we_signaled);
  expect_nothing_left(pid);
}

TEST(StdioProcess, SigtermGoesToTheWholeGroup) {
  // The leader ignores stdin EOF; on SIGTERM it waits for its worker and reports how it ended.
  // The worker exits 42 on SIGTERM, which only happens if the signal went to the group.
  auto t = spawn_sh(
      "trap 'wait $w; echo \"worker exited $?\" >&2; exit 0' TERM\n"
      "sh -c 'trap \"exit 42\" TERM; echo ready; while :; do sleep 0.05; done' &\n"
      "w=$!\n"
      "wait\n");
  ASSERT_TRUE(t);
  const int pid = child_pid(*t);
  EXPECT_EQ(expect_line(*t), "ready");
  const ExitStatus s = t->close(1s);
  EXPECT_EQ(s.how, ExitStatus::How::kExited) << s.describe();
  EXPECT_EQ(s.code, 0);
  EXPECT_TRUE(s.we_signaled);
  EXPECT_FALSE(s.after_eof);
  EXPECT_NE(t->stderr_tail().find("worker exited 42"), std::string::npos) << t->stderr_tail();
  expect_nothing_left(pid);
}

TEST(StdioProcess, GrandchildIsKilledToo) {
  ASSERT_TRUE(kSubreaper) << "PR_SET_CHILD_SUBREAPER unavailable";
  // The server exits cleanly on stdin EOF but leaves a background child behind.
  auto t = spawn_sh("sleep 1000 & echo $!; read x; exit 0");
  ASSERT_TRUE(t);
  const int pid = child_pid(*t);
  const int grandchild = std::stoi(expect_line(*t));
  ASSERT_TRUE(proc_exists(grandchild));
  const ExitStatus s = t->close(kArrive);
  EXPECT_EQ(s.how, ExitStatus::How::kExited);
  EXPECT_TRUE(s.after_eof);
  EXPECT_FALSE(s.we_signaled);
  expect_nothing_left(pid);
  EXPECT_FALSE(proc_exists(grandchild));
}

TEST(StdioProcess, DestructorKillsAndReaps) {
  int pid = -1;
  {
    auto t = spawn_sh("trap '' TERM; echo ready; exec sleep 1000");
    ASSERT_TRUE(t);
    pid = child_pid(*t);
    EXPECT_EQ(expect_line(*t), "ready");
  }
  expect_nothing_left(pid);
}

TEST(StdioProcess, ServerThatNeverReadsDoesNotBlockSend) {
  auto t = spawn_sh("echo ready; exec sleep 1000");
  ASSERT_TRUE(t);
  const std::string big(10u << 20, 'a');
  EXPECT_TRUE(t->send(big).ok());  // returns: what the pipe cannot take stays queued
  EXPECT_TRUE(t->send("more").ok());
  EXPECT_EQ(expect_line(*t), "ready");
  EXPECT_EQ(t->receive(10ms).status, ReadStatus::kTimeout);
  t->close(100ms);
}

TEST(StdioProcess, TenMegabytesEchoBackWithoutDeadlock) {
  // cat writes back while we are still writing: only works if receive() drains while flushing.
  SpawnOptions opts;
  opts.argv = {"cat"};
  auto r = spawn_stdio(opts);
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::string big(10u << 20, 'b');
  big[12345] = 'c';
  ASSERT_TRUE((*r)->send(big).ok());
  ASSERT_TRUE((*r)->send("tail").ok());
  auto first = (*r)->receive(kArrive * 2);
  ASSERT_EQ(first.status, ReadStatus::kFrame);
  EXPECT_EQ(first.frame.size, big.size());
  EXPECT_TRUE(first.frame.body == big);
  EXPECT_EQ(expect_line(**r), "tail");
  EXPECT_TRUE((*r)->close(kArrive).after_eof);
}

TEST(StdioProcess, StderrFloodIsDrainedAndOnlyTheTailKept) {
  SpawnOptions opts;
  opts.stderr_tail_bytes = 1024;
  auto t = spawn_sh("head -c 50000000 /dev/zero | tr '\\0' x >&2; printf 'tail-marker' >&2; echo done",
                    opts);
  ASSERT_TRUE(t);
  auto r = t->receive(kArrive * 3);
  ASSERT_EQ(r.status, ReadStatus::kFrame);
  EXPECT_EQ(r.frame.body, "done");
  EXPECT_EQ(t->receive(kArrive).status, ReadStatus::kEof);
  t->close(kArrive);
  const std::string tail = t->stderr_tail();
  EXPECT_EQ(tail.size(), 1024u);
  ASSERT_GE(tail.size(), 11u);
  EXPECT_EQ(tail.substr(tail.size() - 11), "tail-marker");
  EXPECT_EQ(tail.substr(0, 10), std::string(10, 'x'));
}

TEST(StdioProcess, OversizeStdoutLineBecomesOneFrame) {
  SpawnOptions opts;
  opts.max_line_bytes = 1000;
  auto t = spawn_sh("head -c 300000 /dev/zero | tr '\\0' y; echo; echo next", opts);
  ASSERT_TRUE(t);
  auto r = t->receive(kArrive);
  ASSERT_EQ(r.status, ReadStatus::kFrame);
  EXPECT_TRUE(r.frame.oversize);
  EXPECT_EQ(r.frame.size, 300000u);
  EXPECT_EQ(expect_line(*t), "next");
}

TEST(StdioProcess, SendAfterServerClosedStdinFailsWithClosed) {
  auto t = spawn_sh("exec 0<&-; echo ready; exec sleep 1000");
  ASSERT_TRUE(t);
  EXPECT_EQ(expect_line(*t), "ready");
  auto s = t->send("hello");  // EPIPE, and SIGPIPE must not kill us
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "closed");
  t->close(100ms);
}

TEST(StdioProcess, NonexistentPathIsAClearError) {
  SpawnOptions opts;
  opts.argv = {"./definitely-not-here-ctxo"};
  auto r = spawn_stdio(opts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "spawn");
  EXPECT_EQ(r.error().message,
            "cannot start './definitely-not-here-ctxo': No such file or directory (is the path right? use -- "
            "CMD ARGS for commands on PATH)");
}

TEST(StdioProcess, CommandNotOnPathIsAClearError) {
  SpawnOptions opts;
  opts.argv = {"definitely-not-a-command-ctxo", "--flag"};
  auto r = spawn_stdio(opts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "spawn");
  EXPECT_NE(r.error().message.find("not found in PATH"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
}

TEST(StdioProcess, NonExecutableFileIsAClearError) {
  TempDir dir;
  const auto file = dir.path / "server.sh";
  std::ofstream(file) << "#!/bin/sh\necho hi\n";
  ::chmod(file.c_str(), 0644);
  SpawnOptions opts;
  opts.argv = {file.string()};
  auto r = spawn_stdio(opts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "spawn");
  EXPECT_NE(r.error().message.find("Permission denied"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("chmod +x"), std::string::npos) << r.error().message;
}

TEST(StdioProcess, MissingCwdIsAClearError) {
  SpawnOptions opts;
  opts.argv = {"/bin/true"};
  opts.cwd = "/nonexistent-ctxo-dir";
  auto r = spawn_stdio(opts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "spawn");
  EXPECT_NE(r.error().message.find("working directory '/nonexistent-ctxo-dir'"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("No such file or directory"), std::string::npos);
}

TEST(StdioProcess, EmptyArgvIsAnError) {
  auto r = spawn_stdio(SpawnOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "spawn");
}

TEST(StdioProcess, EnvAndCwdAreApplied) {
  TempDir dir;
  ::setenv("CTXO_TR_INHERITED", "inherited", 1);
  ::setenv("CTXO_TR_OVERRIDDEN", "old", 1);
  SpawnOptions opts;
  opts.env = {{"CTXO_TR_NEW", "new value"}, {"CTXO_TR_OVERRIDDEN", "new"}};
  opts.cwd = dir.path.string();
  auto t = spawn_sh("printf '%s|%s|%s\\n' \"$CTXO_TR_INHERITED\" \"$CTXO_TR_OVERRIDDEN\" \"$CTXO_TR_NEW\"; pwd -P",
                    opts);
  ASSERT_TRUE(t);
  EXPECT_EQ(expect_line(*t), "inherited|new|new value");
  EXPECT_EQ(expect_line(*t), std::filesystem::canonical(dir.path).string());
  t->close(kArrive);
}

TEST(StdioProcess, RelativeCommandIsResolvedInItsCwd) {
  TempDir dir;
  const auto file = dir.path / "srv.sh";
  std::ofstream(file) << "#!/bin/sh\necho from-script\n";
  ::chmod(file.c_str(), 0755);
  SpawnOptions opts;
  opts.argv = {"./srv.sh"};
  opts.cwd = dir.path.string();
  auto r = spawn_stdio(opts);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(expect_line(**r), "from-script");
}

TEST(StdioProcess, ChildStartsWithCleanSignalState) {
  // The harness ignores SIGPIPE and may block signals; none of that may reach the server.
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  auto t = spawn_sh("exec grep -E '^Sig(Blk|Ign):' /proc/self/status");
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ASSERT_TRUE(t);
  EXPECT_EQ(expect_line(*t), "SigBlk:\t0000000000000000");
  EXPECT_EQ(expect_line(*t), "SigIgn:\t0000000000000000");
}

TEST(StdioProcess, ChildIsGroupLeader) {
  auto t = spawn_sh("echo ready; exec sleep 1000");
  ASSERT_TRUE(t);
  const int pid = child_pid(*t);
  EXPECT_EQ(expect_line(*t), "ready");
  EXPECT_EQ(::getpgid(pid), pid);
  EXPECT_NE(::getpgid(pid), ::getpgrp());
  t->close(100ms);
}

// Runs in the death-test child: starts a server, records its pid, then gets SIGTERM like a
// harness whose CI job was cancelled. The first signal only asks the run to stop (it winds down
// and writes its reports: tests/cli/hostile_test.cpp); a second one, like a second Ctrl-C, kills
// the servers and ends the process with the signal at once.
[[noreturn]] void harness_dies_with_a_live_server(const std::string& pid_file) {
  install_signal_cleanup();
  install_signal_cleanup();  // idempotent
  SpawnOptions opts;
  opts.argv = {"/bin/sh", "-c", "echo $$; exec sleep 1000"};
  auto r = spawn_stdio(opts);
  if (!r.ok()) ::_exit(3);
  auto line = (*r)->receive(kArrive);
  if (line.status != ReadStatus::kFrame) {
    (*r)->close(std::chrono::milliseconds(100));
    ::_exit(4);
  }
  std::ofstream(pid_file) << line.frame.body;
  ::raise(SIGTERM);
  if (core::interrupt_signal() != SIGTERM) ::_exit(6);  // the first signal is recorded, not fatal
  // receive() notices it at once instead of waiting out its timeout.
  const auto before = std::chrono::steady_clock::now();
  (void)(*r)->receive(std::chrono::seconds(30));
  if (std::chrono::steady_clock::now() - before > std::chrono::seconds(5)) ::_exit(7);
  ::raise(SIGTERM);
  ::_exit(5);
}

TEST(SignalCleanupDeathTest, SigtermKillsLiveServers) {
  ASSERT_TRUE(kSubreaper) << "PR_SET_CHILD_SUBREAPER unavailable";
  TempDir dir;
  const std::string pid_file = (dir.path / "pid").string();
  EXPECT_EXIT(harness_dies_with_a_live_server(pid_file), testing::KilledBySignal(SIGTERM), "");
  int pid = 0;
  std::ifstream(pid_file) >> pid;
  ASSERT_GT(pid, 0);
  // The server was reparented to us (subreaper) when the harness died: reap it and see how it ended.
  int st = 0;
  pid_t r = 0;
  const auto deadline = std::chrono::steady_clock::now() + kArrive;
  while ((r = ::waitpid(pid, &st, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  if (r == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &st, 0);
    FAIL() << "the server survived the harness's SIGTERM";
  }
  ASSERT_EQ(r, pid);
  EXPECT_TRUE(WIFSIGNALED(st));
  EXPECT_EQ(WTERMSIG(st), SIGKILL);
}

}  // namespace
}  // namespace ctxo::transport
