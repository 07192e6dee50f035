// SPDX-License-Identifier: MIT
// The run's memory budget (--memory-budget): what a server sends (a listing that never ends, an
// answer of millions of items, thousands of tools) must not decide how much memory the harness
// takes. Each phase bounds what it keeps; the budget is the backstop every phase looks at where
// it looks at the time budget: past it, no new call is made and the run writes its reports.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace ctxo::core {

/// The most memory the process has held resident so far, in bytes (VmHWM of /proc/self/status); 0
/// where it cannot be read.
std::size_t peak_resident_bytes();

/// A budget of resident bytes, looked at most once per `every` (a look reads /proc). It is held to
/// the peak, not the current size: a huge answer freed before the next look (its blocks given
/// back at once) still took that memory. Safe to ask from several threads; once over, it stays over.
class MemoryBudget {
 public:
  explicit MemoryBudget(std::size_t limit_bytes = 0,
                        std::chrono::milliseconds every = std::chrono::milliseconds(20))
      : limit_(limit_bytes), every_(every) {}
  MemoryBudget(const MemoryBudget& o) : MemoryBudget(o.limit_, o.every_) {}
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  /// True once the resident memory was seen above the limit (never with a limit of 0).
  bool over();
  std::size_t limit() const { return limit_; }
  /// The resident bytes seen when it went over (0 while it has not).
  std::size_t seen() const { return seen_.load(); }

 private:
  std::size_t limit_;
  std::chrono::milliseconds every_;
  std::atomic<std::int64_t> next_look_{0};  ///< steady_clock ticks
  std::atomic<std::size_t> seen_{0};
};

}  // namespace ctxo::core
