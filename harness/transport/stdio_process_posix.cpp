// SPDX-License-Identifier: MIT
// StdioProcess (POSIX): a server child in its own process group behind three non-blocking pipes,
// driven by poll(); plus the signal-time cleanup registry. It frames bytes but never parses JSON.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "core/interrupt.h"
#include "core/text.h"
#include "transport/transport.h"

extern char** environ;  // NOLINT: POSIX

namespace ctxo::transport {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string errno_text(int err) { return std::generic_category().message(err); }

// ---------------------------------------------------------------------------------------------
// Registry of live process groups, read by the signal handler. Fixed size and lock-free atomics
// only, because a signal handler may not allocate or lock.

constexpr std::size_t kMaxChildren = 256;
std::array<std::atomic<pid_t>, kMaxChildren> g_groups{};
static_assert(std::atomic<pid_t>::is_always_lock_free, "the signal handler needs lock-free atomics");

void register_group(pid_t pgid) {
  for (auto& slot : g_groups) {
    pid_t expected = 0;
    if (slot.compare_exchange_strong(expected, pgid)) return;
  }
  // Full: more than kMaxChildren live servers. Their cleanup then relies on close() only.
}

void unregister_group(pid_t pgid) {
  for (auto& slot : g_groups) {
    pid_t expected = pgid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

constexpr std::array<int, 3> kCleanupSignals = {SIGINT, SIGTERM, SIGHUP};

void kill_groups() {
  for (auto& slot : g_groups) {
    const pid_t g = slot.load();
    if (g > 0) ::kill(-g, SIGKILL);
  }
}

// The first SIGINT/SIGTERM/SIGHUP is recorded and the run winds down by itself (reports written);
// a second one, or the watchdog's SIGALRM, ends the process now, with the first signal.
void cleanup_handler(int sig) {
  const int saved = errno;
  int none = 0;
  if (sig != SIGALRM && core::g_interrupt.compare_exchange_strong(none, sig)) {
    static constexpr char kSaid[] = "\nctxo-conform: stopping; writing the reports (signal again to stop at once)\n";
    ssize_t ignored = ::write(STDERR_FILENO, kSaid, sizeof kSaid - 1);  // async-signal-safe
    (void)ignored;
    ::alarm(kInterruptGraceSeconds);
    errno = saved;
    return;
  }
  kill_groups();
  const int first = core::g_interrupt.load() != 0 ? core::g_interrupt.load() : sig;
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  ::sigaction(first, &sa, nullptr);
  errno = saved;
  // Still blocked while this handler runs: delivered with the default action once it returns.
  ::raise(first);
}

// Blocks the cleanup signals for the lifetime of the object, so that a Ctrl-C between fork() and
// register_group() cannot leave an unregistered child behind.
class SignalBlock {
 public:
  SignalBlock() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : kCleanupSignals) sigaddset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~SignalBlock() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

 private:
  sigset_t old_;
};

// A broken stdin pipe must show up as EPIPE, not kill the harness. SIGPIPE has no per-write opt-out
// for pipes (MSG_NOSIGNAL is for sockets), so it is ignored process-wide, once, unless someone
// installed a handler. Children get SIG_DFL back before exec.
void ignore_sigpipe() {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return;
  struct sigaction old {};
  if (::sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGPIPE, &sa, nullptr);
  }
}

// ---------------------------------------------------------------------------------------------
// Small fd helpers.

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

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

std::chrono::milliseconds::rep ceil_ms(Clock::duration d) {
  if (d <= Clock::duration::zero()) return 0;
  return std::chrono::ceil<milliseconds>(d).count();
}

constexpr int kSliceMs = 200;  // longest poll() while waiting for a frame

int poll_ms(Clock::duration d) {
  return static_cast<int>(std::min<std::chrono::milliseconds::rep>(ceil_ms(d), INT_MAX));
}

ExitStatus decode(int st) {
  ExitStatus s;
  if (WIFEXITED(st)) {
    s.how = ExitStatus::How::kExited;
    s.code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    s.how = ExitStatus::How::kSignaled;
    s.code = WTERMSIG(st);
  }
  return s;
}

bool is_subreaper() {
#if defined(__linux__) && defined(PR_GET_CHILD_SUBREAPER)
  int v = 0;
  return ::prctl(PR_GET_CHILD_SUBREAPER, &v) == 0 && v != 0;
#else
  return false;
#endif
}

// ---------------------------------------------------------------------------------------------

class StdioProcess final : public Transport {
 public:
  StdioProcess(pid_t pid, Fd in, Fd out, Fd err, const SpawnOptions& opts)
      : pid_(pid),
        in_(std::move(in)),
        out_(std::move(out)),
        err_(std::move(err)),
        framer_(opts.max_line_bytes),
        tail_max_(opts.stderr_tail_bytes),
        terminate_on_close_(opts.terminate_on_close),
        wrapped_(!opts.wrapper.empty()) {}

  ~StdioProcess() override {
    if (!closed_) close(milliseconds(100));
  }

  StdioProcess(const StdioProcess&) = delete;
  StdioProcess& operator=(const StdioProcess&) = delete;

  pid_t pid() const { return pid_; }

  Result<void> send(std::string_view line) override {
    if (!in_.open()) return closed_error();
    queue_.append(line);
    queue_.push_back('\n');
    if (!flush_stdin()) return closed_error();
    return {};
  }

  ReadResult receive(milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    bool polled = false;
    for (;;) {
      if (auto f = framer_.next()) return {ReadStatus::kFrame, std::move(*f)};
      if (stdout_eof_) {
        if (!finished_) {
          finished_ = true;
          if (auto f = framer_.finish()) return {ReadStatus::kFrame, std::move(*f)};
        }
        drain_stderr();
        return {ReadStatus::kEof, {}};
      }
      if (polled && (Clock::now() >= deadline || core::interrupt_signal() != 0)) return {ReadStatus::kTimeout, {}};
      // In slices: a signal that lands just before poll() is seen within kSliceMs all the same.
      pump(std::min(poll_ms(deadline - Clock::now()), kSliceMs), true);
      polled = true;
    }
  }

  std::optional<ExitStatus> exit_status() override {
    if (status_) return status_;
    int st = 0;
    pid_t r;
    do r = ::waitpid(pid_, &st, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == 0) return std::nullopt;
    if (r == pid_) {
      status_ = unwrapped(decode(st));
    } else {
      // ECHILD: someone else reaped it (e.g. SIGCHLD set to SIG_IGN). It is gone; how is unknown.
      status_ = ExitStatus{ExitStatus::How::kExited, -1};
    }
    return status_;
  }

  std::size_t unsent_bytes() const override { return in_.open() ? queue_.size() - queue_off_ : 0; }

  std::string stderr_tail() const override {
    if (tail_.size() <= tail_max_) return tail_;
    return tail_.substr(tail_.size() - tail_max_);
  }

  ExitStatus close(milliseconds grace) override {
    if (closed_) return *status_;
    closed_ = true;
    const bool dead_before = exit_status().has_value();
    if (in_.open()) {
      flush_stdin();
      in_.reset();
    }
    queue_.clear();
    queue_off_ = 0;
    // What the server writes between its end-of-file and its exit is kept (bounded) for receive():
    // the client reads it after close (late answers, stray lines) instead of waiting before it.
    closing_ = true;
    if (!dead_before) {
      if (!terminate_on_close_ && wait_exit(grace)) {
        status_->after_eof = true;
      } else {
        ::kill(-pid_, SIGTERM);
        if (!wait_exit(grace)) {
          ::kill(-pid_, SIGKILL);
          int st = 0;
          pid_t r;
          do r = ::waitpid(pid_, &st, 0);
          while (r < 0 && errno == EINTR);
          status_ = r == pid_ ? unwrapped(decode(st)) : ExitStatus{ExitStatus::How::kExited, -1};
        }
        status_->we_signaled = true;
      }
    }
    kill_group_remnants();
    // Everyone who could write is gone: keep what is left on stderr (often the crash message).
    drain_stderr();
    out_.reset();
    err_.reset();
    stdout_eof_ = true;
    finished_ = true;
    unregister_group(pid_);
    return *status_;
  }

 private:
  static Error closed_error() {
    return make_error("closed", "the server's stdin is closed (it exited or closed its input)");
  }

  // Writes queued stdin bytes until the pipe is full. False when stdin is gone (EPIPE or error).
  bool flush_stdin() {
    while (in_.open() && queue_off_ < queue_.size()) {
      const ssize_t n = ::write(in_.get(), queue_.data() + queue_off_, queue_.size() - queue_off_);
      if (n > 0) {
        queue_off_ += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      in_.reset();  // EPIPE (the reader is gone) or another error: this direction is over.
      queue_.clear();
      queue_off_ = 0;
      return false;
    }
    if (queue_off_ == queue_.size()) {
      queue_.clear();
      queue_off_ = 0;
    } else if (queue_off_ > (1u << 20) && queue_off_ > queue_.size() / 2) {
      queue_.erase(0, queue_off_);
      queue_off_ = 0;
    }
    return in_.open();
  }

  // One poll() round of at most `ms`: reads what stdout and stderr have (stdout into the framer if
  // `keep_stdout`, else discarded) and writes what stdin takes.
  void pump(int ms, bool keep_stdout) {
    std::array<pollfd, 3> fds{};
    nfds_t n = 0;
    int i_out = -1, i_err = -1, i_in = -1;
    if (out_.open()) { i_out = static_cast<int>(n); fds[n++] = pollfd{out_.get(), POLLIN, 0}; }
    if (err_.open()) { i_err = static_cast<int>(n); fds[n++] = pollfd{err_.get(), POLLIN, 0}; }
    if (in_.open() && queue_off_ < queue_.size()) {
      i_in = static_cast<int>(n);
      fds[n++] = pollfd{in_.get(), POLLOUT, 0};
    }
    const int r = ::poll(fds.data(), n, ms);
    if (r <= 0) return;  // timeout, or EINTR: the caller loops with its own deadline
    if (i_out >= 0 && fds[i_out].revents != 0) read_stdout(keep_stdout);
    if (i_err >= 0 && fds[i_err].revents != 0) read_stderr();
    if (i_in >= 0 && fds[i_in].revents != 0) flush_stdin();
  }

  // Reads a bounded amount so a flooding server cannot keep us here forever.
  void read_stdout(bool keep) {
    char buf[65536];
    for (int round = 0; round < 32 && out_.open(); ++round) {
      const ssize_t n = ::read(out_.get(), buf, sizeof buf);
      if (n > 0) {
        if (keep) framer_.feed(std::string_view(buf, static_cast<std::size_t>(n)));
        if (keep && closing_) kept_closing_ += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      out_.reset();  // EOF or error
      stdout_eof_ = true;
    }
  }

  void read_stderr(int max_rounds = 32) {
    char buf[65536];
    for (int round = 0; round < max_rounds && err_.open(); ++round) {
      const ssize_t n = ::read(err_.get(), buf, sizeof buf);
      if (n > 0) {
        append_tail(std::string_view(buf, static_cast<std::size_t>(n)));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      err_.reset();
    }
  }

  // Non-blocking: whatever stderr holds right now (bounded, in case a writer is still alive).
  void drain_stderr() { read_stderr(1024); }

  void append_tail(std::string_view bytes) {
    if (tail_max_ == 0) return;
    if (bytes.size() >= tail_max_) {
      tail_.assign(bytes.substr(bytes.size() - tail_max_));
      return;
    }
    tail_.append(bytes);
    // Trim in batches: amortized O(1) per byte, memory at most twice the tail.
    if (tail_.size() > 2 * tail_max_) tail_.erase(0, tail_.size() - tail_max_);
  }

  // Waits up to `d` for the child to exit, draining its output meanwhile. True if it exited.
  bool wait_exit(milliseconds d) {
    const auto deadline = Clock::now() + d;
    for (;;) {
      if (exit_status()) return true;
      const auto now = Clock::now();
      if (now >= deadline) return false;
      // No fd tells us about the exit itself: look again at least every 10 ms.
      // With both pipes closed, poll() on no fds is a plain sleep.
      pump(std::min(poll_ms(deadline - now), 10), closing_ && kept_closing_ < kKeptClosingBytes);
    }
  }

  // The server may have left children in its group (grandchildren): kill them, and reap those
  // that were reparented to us (see adopt_orphans()).
  void kill_group_remnants() {
    if (wrapped_) {
      kill_wrapped_remnants();
      return;
    }
    if (::kill(-pid_, SIGKILL) != 0 && errno == ESRCH) return;
    // Zombies still count as group members; only their parent can remove them. If that is us
    // (subreaper) they go at once; otherwise init reaps them and we do not wait long for it.
    const auto deadline = Clock::now() + (is_subreaper() ? milliseconds(2000) : milliseconds(100));
    while (Clock::now() < deadline) {
      while (::waitpid(-pid_, nullptr, WNOHANG) > 0) {
      }
      if (::kill(-pid_, 0) != 0 && errno == ESRCH) return;
      std::this_thread::sleep_for(milliseconds(2));
    }
  }

  // Under the sandbox the group also holds bwrap's own init (its PID namespace's pid 1), which
  // lives as long as anything the server left in the namespace: killing it would kill them all
  // at once, so T-LEFTOVER could never see a process the server leaves behind outside a sandbox.
  // The group's other members are killed, and a bwrap with no live child (a sandbox still being
  // set up, whose server would start after this: killed before it can) too; an init keeping
  // what the server left ends by itself when its last child does.
  void kill_wrapped_remnants() {
    const auto deadline = Clock::now() + (is_subreaper() ? milliseconds(2000) : milliseconds(100));
    for (;;) {
      const auto doomed = group_remnants(pid_);
      for (pid_t p : doomed) ::kill(p, SIGKILL);
      while (::waitpid(-pid_, nullptr, WNOHANG) > 0) {
      }
      if (doomed.empty() || Clock::now() >= deadline) return;
      std::this_thread::sleep_for(milliseconds(2));
    }
  }

  struct ProcStat {
    pid_t pid = 0, ppid = 0, pgrp = 0;
    char state = 0;
    bool bwrap = false;
  };

  // Every process's pid, parent, group, state and whether it is bwrap (Linux /proc; empty elsewhere).
  static std::vector<ProcStat> processes() {
    std::vector<ProcStat> out;
    DIR* d = ::opendir("/proc");
    if (d == nullptr) return out;
    while (const dirent* e = ::readdir(d)) {
      char* end = nullptr;
      const long p = std::strtol(e->d_name, &end, 10);
      if (end == e->d_name || *end != '\0' || p <= 0) continue;
      char path[64];
      std::snprintf(path, sizeof path, "/proc/%ld/stat", p);
      const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char buf[512];
      const ssize_t n = ::read(fd, buf, sizeof buf - 1);
      ::close(fd);
      if (n <= 0) continue;
      buf[n] = '\0';
      // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so from the last ')'.
      const char* open_paren = std::strchr(buf, '(');
      const char* close_paren = std::strrchr(buf, ')');
      if (open_paren == nullptr || close_paren == nullptr || close_paren < open_paren) continue;
      ProcStat ps;
      ps.pid = static_cast<pid_t>(p);
      ps.bwrap = std::string_view(open_paren + 1, static_cast<std::size_t>(close_paren - open_paren - 1)) == "bwrap";
      long ppid = 0, pgrp = 0;
      if (std::sscanf(close_paren + 1, " %c %ld %ld", &ps.state, &ppid, &pgrp) != 3) continue;
      ps.ppid = static_cast<pid_t>(ppid);
      ps.pgrp = static_cast<pid_t>(pgrp);
      out.push_back(ps);
    }
    ::closedir(d);
    return out;
  }

  // The live members of process group `pgid` to kill: all but a bwrap with a live child.
  static std::vector<pid_t> group_remnants(pid_t pgid) {
    const auto all = processes();
    std::vector<pid_t> out;
    for (const auto& m : all) {
      if (m.pgrp != pgid || m.state == 'Z' || m.state == 'X') continue;
      if (m.bwrap) {
        const bool keeps = std::any_of(all.begin(), all.end(), [&](const ProcStat& c) {
          return c.ppid == m.pid && c.state != 'Z' && c.state != 'X';
        });
        if (keeps) continue;
      }
      out.push_back(m.pid);
    }
    return out;
  }

  pid_t pid_;
  Fd in_, out_, err_;
  Framer framer_;
  std::string queue_;           // bytes waiting for the server's stdin
  std::size_t queue_off_ = 0;   // how much of queue_ was written already
  std::string tail_;            // the last stderr bytes (up to 2 * tail_max_ before a trim)
  std::size_t tail_max_;
  bool terminate_on_close_ = false;  // SIGTERM at once (SpawnOptions::terminate_on_close)
  bool stdout_eof_ = false;
  bool finished_ = false;
  bool closed_ = false;
  bool closing_ = false;          ///< close() is waiting for the exit: stdout is kept, up to the bound.
  std::size_t kept_closing_ = 0;  ///< Bytes of stdout kept since close() began.
  static constexpr std::size_t kKeptClosingBytes = 1u << 20;
  std::optional<ExitStatus> status_;
  bool wrapped_ = false;  ///< Started under a wrapper (the sandbox), which reports a signal N as exit 128+N.
  // The server's own status under the sandbox: bwrap exits 128+N when its command is killed by
  // signal N (our own signals to the group reach bwrap itself, and are reported as they are).
  ExitStatus unwrapped(ExitStatus s) const {
    if (wrapped_ && s.how == ExitStatus::How::kExited && s.code > 128 && s.code < 128 + 65) {
      s.how = ExitStatus::How::kSignaled;
      s.code -= 128;
    }
    return s;
  }
};

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
  return std::unique_ptr<Transport>(
      std::make_unique<StdioProcess>(pid, std::move(in_w), std::move(out_r), std::move(err_r), opts));
}

int child_pid(const Transport& t) {
  const auto* p = dynamic_cast<const StdioProcess*>(&t);
  return p != nullptr ? static_cast<int>(p->pid()) : -1;
}

bool adopt_orphans() {
#if defined(__linux__) && defined(PR_SET_CHILD_SUBREAPER)
  return ::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
#else
  return false;
#endif
}

void kill_children() { kill_groups(); }

void install_signal_cleanup() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  for (int sig : kCleanupSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;  // e.g. nohup
    struct sigaction sa {};
    sa.sa_handler = cleanup_handler;
    sigemptyset(&sa.sa_mask);
    for (int s : kCleanupSignals) sigaddset(&sa.sa_mask, s);
    sa.sa_flags = SA_RESTART;  // poll() still returns EINTR; other calls need not see it
    ::sigaction(sig, &sa, nullptr);
  }
  // The watchdog armed by the first signal (alarm()): nothing else here uses SIGALRM.
  struct sigaction sa {};
  sa.sa_handler = cleanup_handler;
  sigemptyset(&sa.sa_mask);
  for (int s : kCleanupSignals) sigaddset(&sa.sa_mask, s);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGALRM, &sa, nullptr);
}

}  // namespace ctxo::transport
