// SPDX-License-Identifier: MIT
// A run stopped by a signal (SIGINT, SIGTERM, SIGHUP): the signal handler records which one, and
// every wait and loop of the run looks, so the run stops within a fraction of a second and still
// writes its reports (marked "interrupted") before it exits 128 + the signal's number.
#pragma once

#include <atomic>
#include <csignal>
#include <string_view>

namespace ctxo::core {

/// The signal that asked the run to stop, 0 while none has. Written by the signal handler
/// (transport::install_signal_cleanup): lock-free, so a handler may store to it.
inline std::atomic<int> g_interrupt{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler stores to g_interrupt");

inline int interrupt_signal() noexcept { return g_interrupt.load(std::memory_order_relaxed); }

/// "SIGINT", "SIGTERM", "SIGHUP" (the signals that stop a run), else "signal".
inline const char* interrupt_name(int sig) noexcept {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal";
  }
}

/// The number of a signal interrupt_name names; SIGINT for anything else.
inline int interrupt_number(std::string_view name) noexcept {
  if (name == "SIGTERM") return SIGTERM;
  if (name == "SIGHUP") return SIGHUP;
  return SIGINT;
}

/// What the run throws where it notices the signal; the engine catches it at the top of the run
/// and reports what was found before it.
struct Interrupted {
  int signal;
};

/// Throws Interrupted once a signal asked the run to stop.
inline void stop_if_interrupted() {
  if (const int s = interrupt_signal()) throw Interrupted{s};
}

}  // namespace ctxo::core
