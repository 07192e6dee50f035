// SPDX-License-Identifier: MIT
// Shrinking a failing generated call to a smaller one that still breaks the same invariant, and
// H-SIZE's case made minimal on fresh server instances.
#include <algorithm>
#include <bit>
#include <map>
#include <set>

#include "core/interrupt.h"
#include "engine/runner.h"
#include "gen/plan.h"

namespace ctxo::engine::detail {

// The smallest failing value under `current` by RapidCheck shrink trees: each step tries the
// candidates (see below for the order) and moves to the first that `fails`, until none does,
// `fails` says stop (nullopt), or the call or time limit is reached. A signal stops it too: the
// smallest reproduction so far is the result (the run notices the signal again at its next wait).
Shrunk Runner::smallest(rc::Shrinkable<json> current, const std::function<bool(const json&)>& admit,
                        const std::function<std::optional<bool>(const json&)>& fails, bool smallest_first) {
  Shrunk out{current, 0, false};
  const auto started = Clock::now();
  std::size_t tries = 0;
  bool done = false, stop = false;
  try {
    while (!done && !stop) {
      done = true;
      // The candidates: the generator's own shrinks, plus the structural ones of gen::shrink_json
      // (a property dropped, a half ... a 64th of a long string or a chunk of a short one removed),
      // which a fixed-length generated string has none of.
      std::vector<std::pair<std::size_t, rc::Shrinkable<json>>> candidates;
      std::set<std::size_t> seen;  // hashes of the texts: memory stays small whatever the value's size
      for (auto seq : {out.value.shrinks(), gen::shrinkable_json(out.value.value()).shrinks()}) {
        // Bounded in what is looked at, not only in what is kept: a fixed-length string's shrinks
        // are nearly all invalid (removeChunks of 5,000 characters offers millions).
        std::size_t examined = 0;
        for (std::size_t taken = 0; taken < kShrinkCandidates && examined < kShrinkExamined; ++examined) {
          if (Clock::now() - started > o_.shrink_budget) {
            out.out_of_time = true;
            break;
          }
          auto next = seq.next();
          if (!next) break;
          const json args = next->value();
          if (!args.is_object()) continue;
          const std::string text = args.dump();
          const std::size_t size = text.size();
          if (!seen.insert(std::hash<std::string>{}(text)).second) continue;
          if (!admit(args)) continue;
          candidates.emplace_back(size, std::move(*next));
          ++taken;
        }
      }
      // `smallest_first` (a hang: each reproduction costs a whole timeout, so big steps first):
      // by size. Else smallest first within each band of sizes (a power of two apart), the bands
      // in turn: a failure that needs one part of a long string is not left behind hundreds of
      // tiny candidates that lost it: dropping a property or half the string comes within a few
      // tries.
      std::stable_sort(candidates.begin(), candidates.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      std::map<int, std::vector<std::size_t>> bands;
      for (std::size_t i = 0; i < candidates.size(); ++i)
        bands[smallest_first ? 0 : static_cast<int>(std::bit_width(candidates[i].first))].push_back(i);
      std::vector<std::size_t> order;
      for (std::size_t round = 0; order.size() < candidates.size(); ++round)
        for (const auto& [band, members] : bands)
          if (round < members.size()) order.push_back(members[round]);
      for (std::size_t i : order) {
        auto& candidate = candidates[i].second;
        if (Clock::now() - started > o_.shrink_budget) out.out_of_time = true;
        if (tries >= o_.max_shrink_calls || out.out_of_time) break;
        ++tries;
        const std::optional<bool> failed = fails(candidate.value());
        if (!failed) {
          stop = true;
          break;
        }
        if (*failed) {
          out.value = candidate;
          ++out.steps;
          done = false;
          break;
        }
      }
    }
  } catch (const core::Interrupted&) {
  }
  return out;
}

// Shrinks the call behind `found`: each candidate is called on the server (restarted after a
// crash or hang) and kept when it breaks the same invariant. A call generated valid only shrinks
// to valid calls. Returns the finding of the smallest failing call, with the original request
// attached.
Finding Runner::shrink(Worker& w, ToolSummary& ts, const ToolRun& tr, rc::Shrinkable<json> current, Finding found,
                       const std::string& broken, Clock::time_point t0) {
  const json original = found.request;
  const std::string phase = found.phase, label = found.case_label;
  const bool keep_valid = tr.validators->context(tr.tool, current.value(), rep_.era).schema_valid;
  // A confirmed hang is shrunk without confirming each reproduction again (client call_tool).
  w.shrinking = true;
  const Shrunk s = smallest(
      std::move(current),
      [&](const json& args) { return !keep_valid || tr.validators->context(tr.tool, args, rep_.era).schema_valid; },
      [&](const json& args) -> std::optional<bool> {
        if (!w.s.alive || over_budget(t0)) return std::nullopt;
        rep_.shrink_calls++;
        Attempt a = attempt(w, ts, tr, args, broken, false);
        if (a.called.lost) w.s.alive = false;
        auto hit = std::find_if(a.findings.begin(), a.findings.end(),
                                [&](const Finding& f) { return f.invariant == found.invariant; });
        if (hit == a.findings.end()) return w.s.alive ? std::optional<bool>(false) : std::nullopt;
        found = std::move(*hit);
        return true;
      },
      found.invariant == "T-HANG");
  w.shrinking = false;
  if (s.out_of_time) shrinks_cut_.push_back(found.invariant + " on " + ts.name);
  found.phase = phase;
  found.case_label = label;
  found.shrink_steps = s.steps;
  if (s.steps > 0) found.original_request = original;
  return found;
}

// H-SIZE (and H-DECLARED, an answer past the ceiling its tool declares) made minimal, as other
// findings are shrunk, on fresh instances (the run's servers are stopped when the host limits are
// settled): first the fewest of the calls made before it on its instance that a fresh one needs
// for the answer to still cross the limit (or ceiling) its evidence crossed
// (none, the writes alone, then halves: fewest_calls, one instance at a time); then the smallest call of the same tool
// whose answer, after those, still crosses it. Measured as the run measured it (quotes of long
// generated strings discounted: HostMeter::crosses). Everything within --shrink-budget; when a
// fresh instance does not reproduce it, the finding stays as the run saw it.
void Runner::minimal_size_case(Worker& w, Finding& f) {
  const checks::HostMeter* meter = judge_ ? judge_->host_meter() : nullptr;
  if (!meter || !f.request.is_object()) return;
  const auto deadline = Clock::now() + o_.shrink_budget;
  const std::map<std::string, std::string> env = f.env.empty() ? o_.env : f.env;
  const json generated = f.sequence;
  std::vector<json> before;
  if (generated.is_array()) before.assign(generated.begin(), generated.end());
  const json original = f.request;
  json args = original.value("params", json::object()).value("arguments", json::object());
  Reply answer;  // the last answer that still crossed
  std::int64_t size = 0;
  // One try: the call with `a` on `p` (a probe sent `seq`), measured; the probe is left running.
  auto crosses_on = [&](Probe& p, const std::vector<json>& seq, const json& a) {
    rep_.shrink_calls++;
    Reply r = [&] {
      Unlocked waiting(w);
      return p.client->request("tools/call", json{{"name", f.tool}, {"arguments", a}}, true);
    }();
    std::optional<std::int64_t> n = meter->crosses(f, r, &seq);
    if (n) answer = std::move(r), size = *n;
    return n.has_value();
  };
  // One try on a fresh instance sent `seq` first.
  auto crosses_after = [&](const std::vector<json>& seq, const json& a) {
    if (core::interrupt_signal() != 0) return false;
    rep_.shrink_calls += seq.size();
    std::optional<Probe> p = probe(w, env, seq, deadline);
    if (!p || p->client->closed() || p->transport->exit_status()) return false;
    const bool crossed = crosses_on(*p, seq, a);
    Unlocked waiting(w);
    (void)p->transport->close(std::chrono::milliseconds(0));
    return crossed;
  };
  // The earlier calls, one fresh instance at a time (each may take a while to answer), the first
  // that still crosses kept: at most kProbeTries instances (the first, with no call, always).
  FewestCalls how;
  how.deadline = deadline;
  std::size_t tries = 0;
  how.holds = [&](const std::vector<std::vector<json>>& seqs) {
    std::vector<char> held(seqs.size(), 0);
    for (std::size_t i = 0; i < seqs.size(); ++i) {
      if (tries > 0 && (tries >= kProbeTries || Clock::now() >= deadline)) break;
      ++tries;
      if (crosses_after(seqs[i], args)) {
        held[i] = 1;
        break;
      }
    }
    return held;
  };
  std::optional<std::vector<json>> needed =
      before.empty() ? std::optional<std::vector<json>>(std::vector<json>{}) : fewest_calls(before, how);
  auto not_in_time = [&] {
    note(w, "the " + f.invariant + " case of tool " + f.tool + " was not reproduced on a fresh server within --shrink-budget: "
            "it is the call and the calls before it as the run made them");
  };
  if (!needed) {  // not reproduced on a fresh instance: the case stays as the run saw it
    if (Clock::now() > deadline) not_in_time();
    return;
  }
  // The smallest call: on one fresh instance for them all when nothing before it is needed and
  // its tool only reads (its calls change nothing); else a fresh instance, sent `needed`, each.
  const ToolSummary* ts = summary_of(f.tool);
  const bool reuse = needed->empty() && ts && ts->read_only;
  std::optional<Probe> shared;
  const json* listing = nullptr;
  for (const auto& t : judge_->tools())
    if (t.is_object() && t.value("name", std::string()) == f.tool) listing = &t;
  const checks::ToolValidators& validators = judge_->validators(f.tool);
  const bool keep_valid = validators.context(listing, args, rep_.era).schema_valid;
  const Shrunk s = smallest(
      gen::shrinkable_json(args),
      [&](const json& a) { return !keep_valid || validators.context(listing, a, rep_.era).schema_valid; },
      [&](const json& a) -> std::optional<bool> {
        if (core::interrupt_signal() != 0 || Clock::now() > deadline) return std::nullopt;
        if (!reuse) return crosses_after(*needed, a);
        if (shared && (shared->client->closed() || shared->transport->exit_status())) shared.reset();
        if (!shared) shared = probe(w, env, {}, deadline);
        if (!shared) return std::nullopt;
        return crosses_on(*shared, {}, a);
      },
      false);
  if (shared) {
    Unlocked waiting(w);
    (void)shared->transport->close(std::chrono::milliseconds(0));
  }
  const bool cut = s.out_of_time || Clock::now() > deadline;
  // Nothing crossed on a fresh instance (a large answer it gave alone, but not again): as seen.
  if (answer.kind != Reply::Kind::kResult) {
    if (cut) not_in_time();
    return;
  }
  if (cut)
    note(w, "the " + f.invariant + " case of tool " + f.tool + " was made minimal until --shrink-budget: its call and the calls "
            "before it are the smallest reproduction found in time");
  f.request = original;
  f.request["params"]["arguments"] = s.value.value();
  f.shrink_steps = s.steps;
  if (s.steps > 0) f.original_request = original;
  std::size_t writes = 0;
  for (const auto& c : *needed) {
    const ToolSummary* row = summary_of(c.value("params", json::object()).value("name", std::string()));
    if (!row || !row->read_only) ++writes;
  }
  f.sequence = needed->empty() ? json() : json(*needed);
  meter->retell(f, generated, checks::SizeCase{&answer, size, needed->size(), writes});
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
// P-ISERROR is decided over the whole run (held until finish) and stays as found; H-SIZE's case
// is made minimal at settle_judge (minimal_size_case).
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
