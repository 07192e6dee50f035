// SPDX-License-Identifier: MIT
// Test support for runs stopped by a signal: start ctxo-conform in the background, signal it,
// wait for it to end (bounded), and check that a server it started is gone.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace ctxo::test {

/// Starts `args` (args[0] a path) with stdout and stderr written to the files named; -1 on failure.
inline pid_t spawn_logged(std::vector<std::string> args, const std::string& out, const std::string& err) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

/// How a signalled process ended.
struct Stopped {
  bool in_time = false;  ///< It ended within 30 s (else it was killed with SIGKILL).
  int status = 0;        ///< Its wait status.
  double seconds = 0;    ///< From the signal to its end.
};

/// Sends `sig` to `pid` and reaps it, waiting at most 30 s before killing it.
inline Stopped signal_and_reap(pid_t pid, int sig) {
  Stopped s;
  ::kill(pid, sig);
  const auto signalled = std::chrono::steady_clock::now();
  pid_t done = 0;
  while ((done = ::waitpid(pid, &s.status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() - signalled < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  s.in_time = done == pid;
  if (!s.in_time) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &s.status, 0);
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  return s;
}

/// True when process `pid` is gone within 2 s; one still there is killed (and false returned).
inline bool gone_or_killed(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    if (::kill(pid, 0) != 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  return false;
}

}  // namespace ctxo::test
