// SPDX-License-Identifier: MIT
// The signal-time cleanup of the stdio children (POSIX): the registry of their live process
// groups, the SIGINT/SIGTERM/SIGHUP handler that winds the run down or kills them all, the signal
// block around fork(), and SIGPIPE ignored once.
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>

#include "core/interrupt.h"
#include "transport/stdio_process_internal.h"
#include "transport/transport.h"

namespace ctxo::transport {
namespace {

// ---------------------------------------------------------------------------------------------
// Registry of live process groups, read by the signal handler. Fixed size and lock-free atomics
// only, because a signal handler may not allocate or lock.

constexpr std::size_t kMaxChildren = 256;
std::array<std::atomic<pid_t>, kMaxChildren> g_groups{};
static_assert(std::atomic<pid_t>::is_always_lock_free, "the signal handler needs lock-free atomics");

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

}  // namespace

namespace detail {

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

SignalBlock::SignalBlock() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kCleanupSignals) sigaddset(&set, s);
  pthread_sigmask(SIG_BLOCK, &set, &old_);
}
SignalBlock::~SignalBlock() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

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

}  // namespace detail

void kill_children() { kill_groups(); }

void extend_interrupt_grace(unsigned seconds) {
  if (core::g_interrupt.load() != 0) ::alarm(seconds);
}

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
