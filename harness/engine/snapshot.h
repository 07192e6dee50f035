// SPDX-License-Identifier: MIT
// The latest state of a run's report, kept as the run goes so that a stop (SIGINT, SIGTERM,
// SIGHUP) can write the reports without waiting for the run: a call stuck in a transfer, a
// validation or a listing of 50,000 tools does not look at the signal, and the process must not
// die with nothing written.
#pragma once

#include <mutex>
#include <optional>

#include "engine/report.h"

namespace ctxo::engine {

class Snapshot {
 public:
  /// The run's report as it stands (findings so far, rows, notes, counters).
  void publish(RunReport report) {
    std::lock_guard<std::mutex> hold(m_);
    latest_ = std::move(report);
  }
  /// A copy of the latest report published (nullopt: none yet).
  std::optional<RunReport> latest() const {
    std::lock_guard<std::mutex> hold(m_);
    return latest_;
  }

 private:
  mutable std::mutex m_;
  std::optional<RunReport> latest_;
};

}  // namespace ctxo::engine
