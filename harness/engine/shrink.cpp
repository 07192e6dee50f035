// SPDX-License-Identifier: MIT
// Shrinking a failing generated call to a smaller one that still breaks the same invariant.
#include <algorithm>
#include <bit>
#include <map>
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
      // A hang: smallest first (each reproduction costs a whole timeout, big steps first). Else
      // smallest first within each band of sizes (a power of two apart), the bands in turn: a
      // failure that needs one part of a long string is not left behind hundreds of tiny
      // candidates that lost it: dropping a property or half the string comes within a few tries.
      std::stable_sort(candidates.begin(), candidates.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      std::map<int, std::vector<std::size_t>> bands;
      for (std::size_t i = 0; i < candidates.size(); ++i)
        bands[found.invariant == "T-HANG" ? 0 : static_cast<int>(std::bit_width(candidates[i].first))].push_back(i);
      std::vector<std::size_t> order;
      for (std::size_t round = 0; order.size() < candidates.size(); ++round)
        for (const auto& [band, members] : bands)
          if (round < members.size()) order.push_back(members[round]);
      for (std::size_t i : order) {
        auto& [size, candidate] = candidates[i];
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

bool Runner::first_shrink_of_cause(const Finding& f, const std::string& tool) {
  Finding cause = f;
  cause.tool.clear();
  const std::string key = finding_key(cause);
  if (auto it = shrunk_causes_.find(key); it != shrunk_causes_.end() && it->second != tool) {
    shrinks_shared_[it->second]++;
    return false;
  }
  shrunk_causes_.emplace(key, tool);
  return true;
}

// Most answers of a server no envelope profile reads are judged only once the run knows that no
// profile applies (Judge::settle): their findings (an exception in an answer, a leak) came after
// every phase, too late for the phases' shrinks. Settled here, before the sessions end, they are
// shrunk the same way: a valid call, once per tool and invariant and once per cause.
// P-ISERROR and H-SIZE are decided over the whole run (held until finish) and stay as found.
void Runner::settle_and_shrink(Worker& w, const std::vector<ToolRun*>& runs, Clock::time_point t0) {
  if (!judge_) return;
  std::vector<Finding> found;
  {
    std::vector<Finding>* outer = w.capture;
    w.capture = &found;
    for (auto& [tool, o] : judge_->settle()) take(w, tool, std::move(o));
    w.capture = outer;
  }
  auto report = [&] {
    for (auto& f : found) add(w, std::move(f));
    found.clear();
  };
  try {
    for (auto& f : found) {
      if (!o_.shrink || o_.replay || !w.s.alive || over_budget(t0)) break;
      if (!shrinkable(f) || f.server_level || f.invariant == "P-ISERROR" || f.invariant == "H-SIZE") continue;
      auto tr_it = std::find_if(runs.begin(), runs.end(), [&](const ToolRun* r) { return r->name == f.tool; });
      if (tr_it == runs.end() || !(*tr_it)->plan || !(*tr_it)->validators) continue;
      ToolRun& tr = **tr_it;
      ToolSummary* ts = summary_of(tr.name);
      const json* params = f.request.is_object() ? &f.request["params"] : nullptr;
      if (!ts || !params || !params->is_object() || !params->contains("arguments") ||
          !(*params)["arguments"].is_object())
        continue;
      const json args = (*params)["arguments"];
      if (!tr.validators->context(tr.tool, args, rep_.era).schema_valid) continue;
      if (tr.shrunk.count(f.invariant) || !first_shrink_of_cause(f, tr.name)) continue;
      tr.shrunk.insert(f.invariant);
      f = shrink(w, *ts, tr, gen::shrinkable_json(args), std::move(f), "", t0);
    }
  } catch (...) {
    report();  // a signal: what was found is reported as it stands
    throw;
  }
  report();
}

}  // namespace ctxo::engine::detail
