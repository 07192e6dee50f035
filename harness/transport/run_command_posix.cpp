// SPDX-License-Identifier: MIT
// run_command (run_command.h), POSIX: fork, exec, the child's stdout read until it ends, killed
// (its process group) past its time or output limit, always reaped.
#include "transport/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace ctxo::transport {

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& o) {
  using Clock = std::chrono::steady_clock;
  CommandResult res;
  if (argv.empty()) return res;
  // Everything the child needs, made before fork(): it makes async-signal-safe calls only.
  std::vector<std::string> args(argv);
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const char* cwd = o.cwd.empty() ? nullptr : o.cwd.c_str();
  const bool with_stderr = o.with_stderr;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return res;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out[0]);
    ::close(out[1]);
    return res;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull >= 0) {
      ::dup2(devnull, 0);
      ::dup2(devnull, 2);
    }
    ::dup2(out[1], 1);
    if (with_stderr) ::dup2(out[1], 2);
    if (cwd && ::chdir(cwd) != 0) ::_exit(127);
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  res.started = true;
  ::setpgid(pid, pid);  // as the child does: a kill before it got there still reaches the group
  ::close(out[1]);
  const auto deadline = Clock::now() + o.limit;
  auto left = [&] {
    return std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
  };
  bool kill_it = false;
  char buf[65536];
  for (;;) {
    if (left() <= 0) {
      res.timed_out = kill_it = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      kill_it = true;
      break;
    }
    if (r == 0) continue;
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // its stdout closed: it is ending
    res.output.append(buf, static_cast<std::size_t>(n));
    if (res.output.size() > o.max_output) {
      res.output.resize(o.max_output);
      res.too_long = kill_it = true;
      break;
    }
  }
  ::close(out[0]);
  int status = 0;
  bool reaped = false;
  // Its stdout closed, it still gets until the deadline to exit.
  while (!kill_it) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) {
      reaped = w == pid;
      break;
    }
    if (left() <= 0) {
      res.timed_out = kill_it = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (kill_it) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  }
  if (!reaped)
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  if (!kill_it && WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  return res;
}

}  // namespace ctxo::transport
