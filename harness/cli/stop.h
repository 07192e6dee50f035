// SPDX-License-Identifier: MIT
// A stop that cannot wait for the run. The first SIGINT/SIGTERM/SIGHUP asks the run to wind down
// and write its reports; a run busy where it does not look (a call stuck in a transfer, a
// validation, a listing of 50,000 tools) would be killed by the signal watchdog with nothing
// written. StopWriter watches: when the run has not returned `grace` after the signal, it writes
// the reports itself from the run's latest snapshot (engine::Snapshot), marked interrupted,
// kills the servers' process groups and exits 128 + the signal, from its own thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "engine/report.h"
#include "engine/snapshot.h"

namespace ctxo::cli {

class StopWriter {
 public:
  /// `write` writes every report of `report` and returns the exit code (the run's finish());
  /// `fallback` is written when the run published no snapshot yet (it knows the command, the
  /// seed and the server).
  using Write = std::function<int(engine::RunReport& report)>;
  StopWriter(std::shared_ptr<engine::Snapshot> snapshot, engine::RunReport fallback, Write write,
             std::chrono::milliseconds grace = std::chrono::milliseconds(3000));
  ~StopWriter();
  StopWriter(const StopWriter&) = delete;
  StopWriter& operator=(const StopWriter&) = delete;

  /// The run returned: true when its reports are the caller's to write. False when the stop
  /// writer is writing them: it exits the process when done, so the caller only waits.
  bool claim();

  /// The note a report written by the stop writer carries.
  static std::string note(std::chrono::milliseconds grace);

  /// The time the reports of an interrupted run are given to be written before the signal
  /// watchdog ends the process anyway (a second signal still ends it at once).
  static constexpr unsigned kWriteSeconds = 30;

 private:
  void watch();

  std::shared_ptr<engine::Snapshot> snapshot_;
  engine::RunReport fallback_;
  Write write_;
  std::chrono::milliseconds grace_;
  std::atomic<int> state_{0};  ///< 0: running; 1: the run returned; 2: the stop writer writes.
  std::mutex wake_mutex_;
  std::condition_variable wake_;  ///< Wakes the watcher when the run returns.
  std::thread thread_;
};

}  // namespace ctxo::cli
