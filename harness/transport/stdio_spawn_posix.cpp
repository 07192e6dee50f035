// SPDX-License-Identifier: MIT
// Starting a stdio server (POSIX): its command looked up on PATH and its environment and argv
// built before fork(), the child between fork() and exec (async-signal-safe calls only), and why
// it could not start, read back over a report pipe. The running child is stdio_process_posix.cpp.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "core/text.h"
#include "transport/stdio_process_internal.h"
#include "transport/transport.h"

extern char** environ;  // NOLINT: POSIX

namespace ctxo::transport {
namespace {

using detail::Fd;
using detail::ignore_sigpipe;
using detail::register_group;
using detail::SignalBlock;
using detail::unregister_group;

std::string errno_text(int err) { return std::generic_category().message(err); }

// ---------------------------------------------------------------------------------------------
// Small fd helpers (the Fd itself is in stdio_process_internal.h).

bool make_pipe(Fd& read_end, Fd& write_end) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return false;
  read_end.reset(p[0]);
  write_end.reset(p[1]);
  return true;
}

void set_nonblocking(int fd) {
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0) ::fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

// ---------------------------------------------------------------------------------------------
// The child between fork() and exec: async-signal-safe calls only, everything prepared before.

enum Stage : int { kStageSetup = 1, kStageChdir = 2, kStageExec = 3 };
struct ChildFailure {
  int stage;
  int err;
};

[[noreturn]] void child_fail(int fd, int stage) {
  ChildFailure f{stage, errno};
  const ssize_t n = ::write(fd, &f, sizeof f);
  (void)n;
  ::_exit(127);
}

#ifndef CLOSE_RANGE_CLOEXEC
#define CTXO_CLOSE_RANGE_CLOEXEC (1U << 2)
#else
#define CTXO_CLOSE_RANGE_CLOEXEC CLOSE_RANGE_CLOEXEC
#endif

[[noreturn]] void run_child(int in, int out, int err, int report, const char* cwd, const char* path,
                            char* const* argv, char* const* envp, bool new_session) {
  // Our handlers and ignored signals (SIGPIPE!) must not leak into the server.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);  // EINVAL for glibc-internal ones
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  // setsid() also makes the child the leader of a new process group whose id is its pid.
  if (new_session ? ::setsid() < 0 : ::setpgid(0, 0) != 0) child_fail(report, kStageSetup);
  // Move the pipe ends above 2 first, so dup2 onto 0/1/2 cannot clobber one of them.
  const int fds[3] = {::fcntl(in, F_DUPFD_CLOEXEC, 3), ::fcntl(out, F_DUPFD_CLOEXEC, 3),
                      ::fcntl(err, F_DUPFD_CLOEXEC, 3)};
  for (int i = 0; i < 3; ++i) {
    if (fds[i] < 0 || ::dup2(fds[i], i) != i) child_fail(report, kStageSetup);
  }
#if defined(SYS_close_range)
  // Belt and braces: descriptors someone opened without O_CLOEXEC do not reach the server.
  ::syscall(SYS_close_range, 3U, ~0U, CTXO_CLOSE_RANGE_CLOEXEC);
#endif
  if (cwd != nullptr && ::chdir(cwd) != 0) child_fail(report, kStageChdir);
  ::execve(path, argv, envp);
  child_fail(report, kStageExec);
}

// ---------------------------------------------------------------------------------------------
// Spawn preparation (parent side).

std::map<std::string, std::string> child_environment(const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    const auto eq = kv.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  for (const auto& [k, v] : extra) env[k] = v;
  return env;
}

bool is_executable_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// Looks `name` up in `path_var` like execvp does. Relative PATH entries are taken relative to the
// child's working directory. Returns the path, or an errno (ENOENT / EACCES) on failure.
std::string search_path(const std::string& name, const std::string& path_var, const std::string& cwd,
                        int& err) {
  err = ENOENT;
  std::size_t start = 0;
  while (start <= path_var.size()) {
    std::size_t end = path_var.find(':', start);
    if (end == std::string::npos) end = path_var.size();
    std::string dir = path_var.substr(start, end - start);
    start = end + 1;
    if (dir.empty()) dir = ".";
    if (dir.front() != '/' && !cwd.empty()) dir = cwd + "/" + dir;
    const std::string candidate = dir + "/" + name;
    if (is_executable_file(candidate)) return candidate;
    if (::access(candidate.c_str(), F_OK) == 0) {
      struct stat st {};
      if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) err = EACCES;
    }
  }
  return {};
}

// 'name' for messages (always quoted, so an empty or odd name is still visible).
std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

Error spawn_error(const std::string& cmd, const std::string& cwd, int stage, int err) {
  const std::string what = "cannot start " + quoted(cmd) + ": ";
  if (stage == kStageChdir)
    return make_error("spawn", what + "working directory " + quoted(cwd) + ": " +
                                   errno_text(err) + " (check the --cwd directory exists and is accessible)");
  std::string hint;
  switch (err) {
    case ENOENT:
      hint = cmd.find('/') != std::string::npos
                 ? " (is the path right? use -- CMD ARGS for commands on PATH)"
                 : " (not found in PATH; check the spelling, or give a path such as ./" + cmd + ")";
      break;
    case EACCES:
      hint = " (is it an executable file? try: chmod +x " + ctxo::shell_quote(cmd) + ")";
      break;
    case ENOEXEC:
      hint = " (not a binary this system can run; a script needs a '#!' first line)";
      break;
    case ENOTDIR:
      hint = " (a component of the path is not a directory)";
      break;
    default:
      break;
  }
  return make_error("spawn", what + errno_text(err) + hint);
}

}  // namespace

Result<std::unique_ptr<Transport>> spawn_stdio(const SpawnOptions& opts) {
  if (opts.argv.empty() || opts.argv[0].empty())
    return make_error("spawn", "no server command given (use ./server or -- CMD ARGS)");
  ignore_sigpipe();

  const std::string& cmd = opts.argv[0];
  auto env = child_environment(opts.env);
  std::string path = cmd;
  if (cmd.find('/') == std::string::npos) {
    const auto it = env.find("PATH");
    const std::string path_var = it != env.end() ? it->second : "/usr/local/bin:/usr/bin:/bin";
    int err = 0;
    path = search_path(cmd, path_var, opts.cwd, err);
    if (path.empty()) return spawn_error(cmd, opts.cwd, kStageExec, err);
  }

  // Everything the child needs, built before fork(): it may only make async-signal-safe calls.
  std::vector<std::string> env_strings;
  env_strings.reserve(env.size());
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings;
  if (!opts.wrapper.empty()) {
    // The server's command, resolved here (a missing one is our clear error, not the wrapper's),
    // run by the wrapper.
    argv_strings = opts.wrapper;
    std::string resolved = path;
    if (!resolved.empty() && resolved.front() != '/') {
      std::string base = opts.cwd;
      if (base.empty() || base.front() != '/') {
        char here[PATH_MAX];
        if (::getcwd(here, sizeof here) != nullptr) base = std::string(here) + (base.empty() ? "" : "/" + base);
      }
      resolved = base + "/" + resolved;
    }
    struct stat st {};
    if (::stat(resolved.c_str(), &st) != 0) return spawn_error(cmd, opts.cwd, kStageExec, errno);
    if (!S_ISREG(st.st_mode) || ::access(resolved.c_str(), X_OK) != 0) return spawn_error(cmd, opts.cwd, kStageExec, EACCES);
    argv_strings.push_back(resolved);
    argv_strings.insert(argv_strings.end(), opts.argv.begin() + 1, opts.argv.end());
    path = opts.wrapper.front();
  } else {
    argv_strings.assign(opts.argv.begin(), opts.argv.end());
  }
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const char* cwd = opts.cwd.empty() ? nullptr : opts.cwd.c_str();

  Fd in_r, in_w, out_r, out_w, err_r, err_w, rep_r, rep_w;
  if (!make_pipe(in_r, in_w) || !make_pipe(out_r, out_w) || !make_pipe(err_r, err_w) ||
      !make_pipe(rep_r, rep_w))
    return make_error("spawn", "cannot start " + quoted(cmd) + ": pipe: " + errno_text(errno));

  pid_t pid;
  {
    SignalBlock block;
    pid = ::fork();
    if (pid == 0)
      run_child(in_r.get(), out_w.get(), err_w.get(), rep_w.get(), cwd, path.c_str(), argv.data(),
                envp.data(), opts.new_session);
    if (pid < 0)
      return make_error("spawn", "cannot start " + quoted(cmd) + ": fork: " + errno_text(errno));
    // Also from the parent, so the group exists before anyone signals it (EACCES once it exec'd).
    // Not for a new session: setsid() fails in a process that already leads a group.
    if (!opts.new_session) ::setpgid(pid, pid);
    register_group(pid);
  }
  in_r.reset();
  out_w.reset();
  err_w.reset();
  rep_w.reset();

  // The report pipe closes on a successful exec (O_CLOEXEC), or carries why the child failed.
  ChildFailure failure{};
  std::size_t got = 0;
  while (got < sizeof failure) {
    const ssize_t n = ::read(rep_r.get(), reinterpret_cast<char*>(&failure) + got, sizeof failure - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > 0) {
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    unregister_group(pid);
    if (got < sizeof failure) failure = ChildFailure{kStageSetup, EIO};
    return spawn_error(cmd, opts.cwd, failure.stage, failure.err);
  }

  set_nonblocking(in_w.get());
  set_nonblocking(out_r.get());
  set_nonblocking(err_r.get());
  return detail::make_stdio_process(pid, std::move(in_w), std::move(out_r), std::move(err_r), opts);
}

}  // namespace ctxo::transport
