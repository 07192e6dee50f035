// SPDX-License-Identifier: MIT
// Internal to the POSIX stdio child (stdio_*_posix.cpp), not part of transport's API: the owned
// descriptor, the registry of live process groups the signal handler kills and the signal block
// around fork() (stdio_signals_posix.cpp), and the StdioProcess spawn_stdio hands back
// (stdio_process_posix.cpp).
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <memory>
#include <utility>

#include "transport/transport.h"

namespace ctxo::transport::detail {

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

// ---------------------------------------------------------------------------------------------
// Registry of live process groups, read by the signal handler (stdio_signals_posix.cpp).

void register_group(pid_t pgid);
void unregister_group(pid_t pgid);

// Blocks the cleanup signals for the lifetime of the object, so that a Ctrl-C between fork() and
// register_group() cannot leave an unregistered child behind.
class SignalBlock {
 public:
  SignalBlock();
  ~SignalBlock();
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

 private:
  sigset_t old_;
};

// SIGPIPE ignored process-wide, once, unless someone installed a handler (a broken stdin pipe
// shows up as EPIPE).
void ignore_sigpipe();

// ---------------------------------------------------------------------------------------------
// The StdioProcess for a child just started (stdio_process_posix.cpp): it owns the child's pipes.
std::unique_ptr<Transport> make_stdio_process(pid_t pid, Fd in, Fd out, Fd err, const SpawnOptions& opts);

}  // namespace ctxo::transport::detail
