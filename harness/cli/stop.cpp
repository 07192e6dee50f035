// SPDX-License-Identifier: MIT
#include "cli/stop.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "core/interrupt.h"
#include "engine/gate.h"
#include "transport/transport.h"

namespace ctxo::cli {

StopWriter::StopWriter(std::shared_ptr<engine::Snapshot> snapshot, engine::RunReport fallback, Write write,
                       std::chrono::milliseconds grace)
    : snapshot_(std::move(snapshot)), fallback_(std::move(fallback)), write_(std::move(write)), grace_(grace) {
  thread_ = std::thread([this] { watch(); });
}

StopWriter::~StopWriter() {
  int running = 0;
  state_.compare_exchange_strong(running, 1);
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool StopWriter::claim() {
  int running = 0;
  const bool ours = state_.compare_exchange_strong(running, 1) || state_.load() == 1;
  wake_.notify_all();  // the watcher ends now, not at its next look
  if (ours) transport::extend_interrupt_grace(kWriteSeconds);  // an interrupted run's reports are written now
  return ours;
}

std::string StopWriter::note(std::chrono::milliseconds grace) {
  return "the run was still busy " + std::to_string(grace.count() / 1000) +
         " s after the signal (a call, a transfer or a check that does not look at it): these reports were written "
         "from what it had found by then, and its servers were killed";
}

void StopWriter::watch() {
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> asked;
  while (state_.load() == 0) {
    {
      // Every 50 ms, or at once when the run returns (claim, the destructor): a run's end does
      // not wait for the watcher's next look.
      std::unique_lock<std::mutex> hold(wake_mutex_);
      wake_.wait_for(hold, std::chrono::milliseconds(50), [this] { return state_.load() != 0; });
    }
    if (state_.load() != 0) return;
    const int sig = core::interrupt_signal();
    if (sig == 0) continue;
    if (!asked) asked = Clock::now();
    if (Clock::now() - *asked < grace_) continue;
    int running = 0;
    if (!state_.compare_exchange_strong(running, 2)) return;  // the run returned meanwhile
    engine::RunReport r = snapshot_ ? snapshot_->latest().value_or(fallback_) : fallback_;
    r.interrupted = sig;
    r.notes.push_back(note(grace_));
    engine::settle_verdict(r);
    transport::extend_interrupt_grace(kWriteSeconds);
    const int code = write_(r);
    transport::kill_children();
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    ::_exit(code);
  }
}

}  // namespace ctxo::cli
