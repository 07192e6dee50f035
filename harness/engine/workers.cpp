// SPDX-License-Identifier: MIT
// --jobs: a phase's tools shared among N workers, each with its own server; what each tool gives
// (ToolOut) kept apart and merged in tool order when the phase ends, after its findings are
// shrunk once per root cause. With one worker everything runs on the caller's thread.
#include <exception>
#include <thread>

#include "engine/runner.h"
#include "engine/selection.h"

namespace ctxo::engine::detail {

// Runs `work` for each tool of a phase: in order on this thread, or with --jobs N on N workers,
// each with its own server (started at its first tool, kept for the next phases). A tool none
// could run (its worker's server could not be restarted) gets `skip`. When the phase ends, the
// findings it holds for shrinking are shrunk, once per root cause, and what every tool gave is
// merged in tool order (merge_phase).
void Runner::run_phase(Worker& w, const std::vector<ToolRun*>& phase, const std::function<void(Worker&, ToolRun&)>& work,
                       const std::function<void(ToolRun&)>& skip) {
  for (ToolRun* tr : phase) tr->out = ToolOut{};
  harvest_.share_scores();  // each tool's fork shares them, not copies them
  current_phase_ = phase;
  std::vector<bool> done(phase.size(), false);
  // Every tool of a phase of several judges on a shard, whatever --jobs: what a tool's answers are
  // judged against (another tool's profile, the profiles detected) is what the run knew when the
  // phase began, so one worker and several judge alike.
  const checks::Judge* shards = phase.size() > 1 ? judge_.get() : nullptr;
  // A tool works on a copy of the run's harvest (unchanged until the phase ends), made when its
  // work starts; what it gathered is all it keeps after (gen::Harvest::gathered), so a phase holds
  // one copy per worker, not one per tool.
  // Its answers are judged on a shard of the run's judge (the same shard for its shrinks),
  // absorbed when the phase ends.
  struct Forked {
    ToolOut& out;
    const gen::Harvest& parent;
    Forked(ToolOut& o, const gen::Harvest& p, const checks::Judge* judge) : out(o), parent(p) {
      gen::Harvest copy = parent.fork();
      copy.absorb(out.harvest);  // what its earlier work in the phase gathered (before a shrink)
      out.harvest = std::move(copy);
      if (judge && !out.judge) out.judge = judge->fork();
    }
    ~Forked() { out.harvest = out.harvest.gathered(parent); }
  };
  // One tool: its work, with what it gives kept apart from the run's.
  auto one = [&](Worker& ww, std::size_t i) {
    ToolRun& tr = *phase[i];
    done[i] = true;
    WorkingFor working(ww, tr.out);
    Forked forked(tr.out, harvest_, shards);
    work(ww, tr);
    if (!own_calls_phase_) {
      (void)look_for_changes("");
      return;
    }
    const FileChanges changed = look_for_changes(tr.name);
    if (!changed.empty() && ww.s.alive && annotated_read_only(*tr.tool)) confirm_read_only(ww, tr, changed);
  };
  try {
    for_each_worker(w, phase.size(), one);
    for (std::size_t i = 0; i < phase.size(); ++i)
      if (!done[i]) skip(*phase[i]);
    std::vector<std::pair<ToolRun*, std::size_t>> shrinks;  // (tool, its pending shrink)
    for (ToolRun* tr : phase) {
      for (std::size_t k = 0; k < tr->out.shrinks.size(); ++k) {
        // One root cause, one shrink: the same invariant and diagnosis (numbers aside) already
        // shrunk on an earlier tool is reported as generated.
        if (first_shrink_of_cause(tr->out.findings[tr->out.shrinks[k].finding], tr->name)) shrinks.emplace_back(tr, k);
      }
    }
    std::vector<ToolRun*> shrinking;
    for (const auto& [tr, k] : shrinks)
      if (shrinking.empty() || shrinking.back() != tr) shrinking.push_back(tr);
    for_each_worker(w, shrinking.size(), [&](Worker& ww, std::size_t i) {
      ToolRun& tr = *shrinking[i];
      WorkingFor working(ww, tr.out);
      Forked forked(tr.out, harvest_, shards);
      ToolSummary* ts = summary_of(tr.name);
      for (const auto& [owner, k] : shrinks) {
        if (owner != &tr || !ww.s.alive) continue;
        const PendingShrink p = tr.out.shrinks[k];  // (a copy: the shrink may add to the tool's lists)
        Finding shrunk = shrink(ww, *ts, tr, p.arguments, tr.out.findings[p.finding], p.broken, run_t0_);
        tr.out.findings[p.finding] = std::move(shrunk);
      }
    });
  } catch (...) {
    merge_phase(phase);  // what was found before the signal is reported
    throw;
  }
  merge_phase(phase);
}

// What the tools of a phase gave, into the run, in tool order.
void Runner::merge_phase(const std::vector<ToolRun*>& phase) {
  current_phase_.clear();
  for (ToolRun* tr : phase) merge_out(tr->out);
  snapshot(true);
}

// What one piece of parallel work gave, into the run (it is left empty).
void Runner::merge_out(ToolOut& from) {
  ToolOut out = std::move(from);
  from = ToolOut{};
  if (out.judge) {
    // Its answers' ids (the limit sweep's) are the run's judge's from now on.
    const std::size_t offset = judge_->absorb(*out.judge);
    for (auto& sc : out.sweep_calls) sc.answer += offset;
    out.judge.reset();
  }
  for (auto& f : out.findings) sink_.merge(std::move(f));
  for (auto& n : out.notes) rep_.notes.push_back(std::move(n));
  for (auto& sc : out.sweep_calls)
    if (sweep_calls_.size() < kMaxSweepCalls) sweep_calls_.push_back(std::move(sc));
  harvest_.absorb(out.harvest);
}

// Calls task(worker, i) for i in [0, n): on `w` when --jobs is 1, else on up to --jobs workers,
// each on its own session (`w`'s is the first). Only waiting on a server is done without
// holding their lock (Unlocked), and judging an answer on a judge's shard (Runner::judged). A worker whose server cannot be restarted takes no more tasks,
// and none is started after the first such worker (as a run of one worker stops there). The
// first exception (a signal) stops the others and is thrown here once they are done.
// `start_sessions` false: the tasks start their own servers (the limit sweep: another environment).
void Runner::for_each_worker(Worker& w, std::size_t n, const std::function<void(Worker&, std::size_t)>& task,
                             bool start_sessions) {
  const std::size_t workers = std::min<std::size_t>(jobs_, n);
  if (workers <= 1) {
    for (std::size_t i = 0; i < n && w.s.alive && !dead_; ++i) task(w, i);
    dead_ = dead_ || !w.s.alive;
    return;
  }
  while (sessions_.size() < workers) {
    sessions_.push_back(std::make_unique<Session>());
    sessions_.back()->main = false;
    sessions_.back()->env = o_.env;
    if (o_.sandbox) sessions_.back()->tmp_slot = o_.sandbox->new_slot();  // a /tmp of its own
  }
  std::mutex gil;
  std::size_t next = 0;
  std::exception_ptr failure;
  auto worker = [&](std::size_t k) {
    Worker ww(*sessions_[k]);
    std::unique_lock<std::mutex> lock(gil);
    ww.lock = &lock;
    try {
      while (next < n && !failure && !dead_) {
        if (start_sessions && ww.s.alive && !ww.s.transport) {
          auto st = start(ww, negotiated_, false);
          if (!st.ok()) {
            note(ww, "a --jobs worker could not start the server: " + st.error().message);
            ww.s.alive = false;
          }
        }
        if (!ww.s.alive) {
          dead_ = true;
          break;
        }
        // Starting the server let the others run: they may have taken the rest.
        if (next >= n || failure || dead_) break;
        task(ww, next++);
        if (!ww.s.alive) dead_ = true;
      }
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t k = 1; k < workers; ++k) threads.emplace_back(worker, k);
  worker(0);
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

checks::Judged Runner::judged(Worker& w, const checks::Exchange& x) {
  if (!(w.out && w.out->judge)) return judge_->call(x);
  Unlocked judging(w);
  return w.out->judge->call(x);
}

// Ends the workers' sessions (all but the first).
void Runner::finish_workers(End end) {
  for (std::size_t k = 1; k < sessions_.size(); ++k) {
    Worker ww(*sessions_[k]);
    finish_session(ww, end);
  }
}

}  // namespace ctxo::engine::detail
