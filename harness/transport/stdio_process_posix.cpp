// SPDX-License-Identifier: MIT
// StdioProcess (POSIX): a server child in its own process group behind three non-blocking pipes,
// driven by poll(), and its shutdown (what it left in its group killed). It frames bytes but never
// parses JSON. The child is started by stdio_spawn_posix.cpp; the signal-time cleanup is
// stdio_signals_posix.cpp.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "core/interrupt.h"
#include "transport/stdio_process_internal.h"
#include "transport/transport.h"

namespace ctxo::transport {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using detail::Fd;
using detail::unregister_group;

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

namespace detail {

std::unique_ptr<Transport> make_stdio_process(pid_t pid, Fd in, Fd out, Fd err, const SpawnOptions& opts) {
  return std::make_unique<StdioProcess>(pid, std::move(in), std::move(out), std::move(err), opts);
}

}  // namespace detail

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

}  // namespace ctxo::transport
