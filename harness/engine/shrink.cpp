// SPDX-License-Identifier: MIT
// Shrinking a failing generated call to a smaller one that still breaks the same invariant.
#include <algorithm>
#include <set>

#include "core/interrupt.h"
#include "engine/runner.h"
#include "gen/plan.h"

namespace ctxo::engine::detail {

// Shrinks the call behind `found` with RapidCheck shrink trees: each candidate is called on
// the server (restarted after a crash or hang) and kept when it breaks the same invariant, until
// no candidate does, or the shrink's call or time limit is reached. A call generated valid only
// shrinks to valid calls. Returns the finding of the smallest failing call, with the original
// request attached.
Finding Runner::shrink(Worker& w, ToolSummary& ts, const ToolRun& tr, rc::Shrinkable<json> current, Finding found,
                       const std::string& broken, Clock::time_point t0) {
  const json original = found.request;
  const std::string phase = found.phase, label = found.case_label;
  const bool keep_valid = tr.validators->context(tr.tool, current.value(), rep_.era).schema_valid;
  // A confirmed hang is shrunk without confirming each reproduction again (client call_tool).
  const auto started = Clock::now();
  std::size_t tries = 0, steps = 0;
  bool out_of_time = false;
  w.shrinking = true;
  bool done = false;
  try {
    while (!done && w.s.alive) {
      done = true;
      // The candidates: the generator's own shrinks, plus the structural ones of gen::shrink_json
      // (a property dropped, a chunk of a string or array removed), which a fixed-length
      // generated string has none of. Smallest first: a reproduction can cost a whole timeout (a
      // hang), so big steps are tried before small ones (one character simplified).
      std::vector<std::pair<std::size_t, rc::Shrinkable<json>>> candidates;
      std::set<std::size_t> seen;  // hashes of the texts: memory stays small whatever the value's size
      for (auto seq : {current.shrinks(), gen::shrinkable_json(current.value()).shrinks()}) {
        // Bounded in what is looked at, not only in what is kept: a fixed-length string's shrinks
        // are nearly all invalid (removeChunks of 5,000 characters offers millions).
        std::size_t examined = 0;
        for (std::size_t taken = 0; taken < kShrinkCandidates && examined < kShrinkExamined; ++examined) {
          if (Clock::now() - started > o_.shrink_budget) {
            out_of_time = true;
            break;
          }
          auto next = seq.next();
          if (!next) break;
          const json args = next->value();
          if (!args.is_object()) continue;
          const std::string text = args.dump();
          const std::size_t size = text.size();
          if (!seen.insert(std::hash<std::string>{}(text)).second) continue;
          if (keep_valid && !tr.validators->context(tr.tool, args, rep_.era).schema_valid) continue;
          candidates.emplace_back(size, std::move(*next));
          ++taken;
        }
      }
      std::stable_sort(candidates.begin(), candidates.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto& [size, candidate] : candidates) {
        if (Clock::now() - started > o_.shrink_budget) out_of_time = true;
        if (tries >= o_.max_shrink_calls || out_of_time || over_budget(t0)) break;
        const json args = candidate.value();
        ++tries;
        rep_.shrink_calls++;
        Attempt a = attempt(w, ts, tr, args, broken, false);
        if (a.called.lost) w.s.alive = false;
        auto hit = std::find_if(a.findings.begin(), a.findings.end(),
                                [&](const Finding& f) { return f.invariant == found.invariant; });
        if (hit != a.findings.end()) {
          found = std::move(*hit);
          current = candidate;
          ++steps;
          done = false;
          break;
        }
        if (!w.s.alive) break;
      }
    }
  } catch (const core::Interrupted&) {
    // Stopped by a signal: the smallest reproduction so far is the finding. The run notices the
    // signal again at its next wait (see run()).
  }
  w.shrinking = false;
  if (out_of_time) shrinks_cut_.push_back(found.invariant + " on " + ts.name);
  found.phase = phase;
  found.case_label = label;
  found.shrink_steps = steps;
  if (steps > 0) found.original_request = original;
  return found;
}

}  // namespace ctxo::engine::detail
