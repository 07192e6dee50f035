// SPDX-License-Identifier: MIT
// P-ANNOTATION's answer form: hosts trust a tool's annotations (VS Code runs readOnlyHint tools
// without asking, Claude Code's plan mode admits only them, hosts call read-only and idempotent
// tools in parallel and retry them), so what a tool annotated readOnlyHint or idempotentHint does
// to the server's state is held to the hint through what other read-only tools answer: the
// witnesses, each with a call of its own that was answered without an error.
//
// A witness is used only when it answers the same twice in a row with nothing between (a clock,
// a counter, a random id does not: it is left out, nothing is normalised) and once more at the
// end of the sequence. Then, for a tool annotated
//   readOnlyHint: true    the witnesses before and after one of its known-good calls;
//   idempotentHint: true  the witnesses after that call and after the same call made again;
// must answer the same. A difference is confirmed by the whole sequence once more (reported only
// when the same witness changes the same way again), and a tool gets one finding at most.
//
// The tool's own answers are not a witness: a tool whose answer to the same call differs each time
// may be a clock (read-only) or a counter (not): ambiguous, so silent. Run after every tool's own
// calls and P-CONCURRENT's batches (engine.cpp, run_phases), through run_phase, so --jobs and the
// merge order come with it; a replayed case takes its witnesses from the case's sequence.
#include <algorithm>
#include <chrono>
#include <thread>

#include "checks/annotations.h"
#include "engine/runner.h"
#include "engine/selection.h"

namespace ctxo::engine::detail {

namespace {

constexpr std::size_t kCandidates = 4;  ///< Read-only tools tried as witnesses (each called twice).
constexpr std::size_t kWitnesses = 2;   ///< Witnesses kept (those that answered the same twice).

bool annotated_idempotent(const json& tool) {
  return tool.contains("annotations") && tool["annotations"].is_object() &&
         tool["annotations"].value("idempotentHint", false) == true;
}

/// A call's request and the form of its answer (checks::effect_form).
struct Asked {
  json request;
  json form;
};

/// One sequence: the witnesses' answers before the tool's call (readOnlyHint), after it, after the
/// same call made again (idempotentHint), and once more at the end, with the tool's requests.
struct Round {
  std::vector<Asked> before, after1, after2, end;
  json call1, call2;
};

}  // namespace

void Runner::annotations(Worker& w, ToolRun& tr, const std::vector<ToolRun*>& tools, Clock::time_point t0) {
  ToolSummary* ts = summary_of(tr.name);
  const bool ro = annotated_read_only(*tr.tool), idem = annotated_idempotent(*tr.tool);
  if (!ts || (!ro && !idem) || tr.annotation_found || !w.s.alive || tr.troubles >= 2) return;
  checks::Outcomes o;
  auto unobserved = [&](std::string why) {
    o.unobserved("P-ANNOTATION", std::move(why));
    take(w, tr.name, std::move(o));
  };
  if (tr.good_calls.empty()) return unobserved("no call of the tool was answered without an error");
  const json call = tr.good_calls.front();
  // The candidates: other read-only tools' first known-good calls (a replayed case's: the
  // read-only tools' calls of its sequence), those given the fewest arguments first (a listing,
  // a status: what shows the server's state as a whole), then in the run's order.
  std::vector<std::pair<std::string, json>> candidates;
  auto offer = [&](const std::string& tool, const json& args) {
    std::pair<std::string, json> c{tool, args};
    if (tool != tr.name && std::find(candidates.begin(), candidates.end(), c) == candidates.end())
      candidates.push_back(std::move(c));
  };
  if (o_.replay) {
    for (const auto& [tool, args] : o_.replay->sequence) {
      const ToolSummary* row = summary_of(tool);
      if (row && row->read_only) offer(tool, args);
    }
  } else {
    for (const ToolRun* r : tools) {
      if (r == &tr || !r->tool || !annotated_read_only(*r->tool) || r->good_calls.empty()) continue;
      // A tool whose calls took its --tool-budget is not called again to witness another's.
      if (ToolSummary* row = summary_of(r->name); row && tool_over_budget(w, *row)) continue;
      offer(r->name, r->good_calls.front());
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    return (a.second.is_object() ? a.second.size() : 1) < (b.second.is_object() ? b.second.size() : 1);
  });
  if (candidates.size() > kCandidates) candidates.resize(kCandidates);
  if (candidates.empty()) return unobserved("no other read-only tool was answered without an error, to witness its effect");
  bool trouble = false;
  // One call (the tool's own or a witness's), or nullopt: the budget spent, the server lost or
  // troubled, nothing answered (then `trouble`: no verdict).
  auto ask = [&](const std::string& tool, const json& args) -> std::optional<Asked> {
    if (!w.s.alive) trouble = true;
    ToolSummary* row = tool == tr.name ? ts : summary_of(tool);
    if (trouble || over_budget(t0) || tool_over_budget(w, *ts) || (row && tool_over_budget(w, *row))) {
      trouble = true;
      return std::nullopt;
    }
    Called c = do_call(w, *ts, args, tool == tr.name ? nullptr : &tool);
    if (c.lost) w.s.alive = false;
    // Judged and counted as P-CONCURRENT's answers are (form_of: coverage counts it, as `check`
    // counts the recorded call; its per-answer findings were the tool's own phase's).
    if (!c.lost) (void)form_of(w, tool, args, c.reply);
    json form = checks::effect_form(c.reply);
    if (c.troubles > 0 || c.lost || form.is_null()) {
      trouble = true;
      return std::nullopt;
    }
    return Asked{std::move(c.reply.request), std::move(form)};
  };
  // The candidates in turn, twice: those that answered the same both times are the witnesses (a
  // candidate whose own call changes another's answer leaves that one out too, whatever their
  // order), and their second answers are what they answered before the tool's first call.
  std::vector<json> first_pass;
  for (const auto& cand : candidates)
    if (std::optional<Asked> a = ask(cand.first, cand.second)) first_pass.push_back(std::move(a->form));
  std::vector<std::pair<std::string, json>> witnesses;
  std::vector<Asked> before;
  // (Stopped once enough are kept: a later candidate asked again after a witness's second answer
  // could change it before the tool's call; its first call came before that answer.)
  for (std::size_t k = 0; k < candidates.size() && !trouble && witnesses.size() < kWitnesses; ++k) {
    std::optional<Asked> b = ask(candidates[k].first, candidates[k].second);
    if (b && b->form == first_pass[k]) {
      witnesses.push_back(candidates[k]);
      before.push_back(std::move(*b));
    }
  }
  if (trouble) return unobserved("its time budget was spent, or the server was lost, before its effect was witnessed");
  if (witnesses.empty())
    return unobserved("no other read-only tool answered the same twice in a row (clocks, counters), to witness its effect");
  auto look = [&](std::vector<Asked>& into) {
    for (const auto& [tool, args] : witnesses) {
      std::optional<Asked> a = ask(tool, args);
      if (!a) return false;
      into.push_back(std::move(*a));
    }
    return true;
  };
  // `fresh`: the witnesses asked first (the confirmation); else their answers to the second pass.
  auto round = [&](Round& r, bool fresh) {
    if (ro && fresh && !look(r.before)) return false;
    if (ro && !fresh) r.before = before;
    std::optional<Asked> c1 = ask(tr.name, call);
    if (!c1 || !look(r.after1)) return false;
    r.call1 = std::move(c1->request);
    if (idem) {
      std::optional<Asked> c2 = ask(tr.name, call);
      if (!c2 || !look(r.after2)) return false;
      r.call2 = std::move(c2->request);
    }
    return look(r.end);
  };
  // The witness that changed in `r` (its index), and the annotation that says it should not have;
  // a witness that moved again with nothing between (its last answer against `end`) is not one.
  struct Changed {
    std::size_t witness;
    std::string annotation;
  };
  auto changed = [&](const Round& r, bool& compared) -> std::optional<Changed> {
    for (std::size_t i = 0; i < witnesses.size(); ++i) {
      const std::vector<Asked>& last = idem ? r.after2 : r.after1;
      if (last[i].form != r.end[i].form) continue;  // it moves on its own
      compared = true;
      if (ro && r.before[i].form != r.after1[i].form) return Changed{i, "readOnlyHint"};
      if (idem && r.after1[i].form != r.after2[i].form) return Changed{i, "idempotentHint"};
    }
    return std::nullopt;
  };
  Round first;
  bool compared = false;
  const auto round_start = Clock::now();
  if (!round(first, false)) return unobserved("its time budget was spent, or the server was lost, before its effect was witnessed");
  std::optional<Changed> found = changed(first, compared);
  if (!found) {
    if (compared) o.pass("P-ANNOTATION");
    else o.unobserved("P-ANNOTATION", "every witness moved on its own while the tool's calls were made");
    take(w, tr.name, std::move(o));
    return;
  }
  const std::string& witness = witnesses[found->witness].first;
  // A witness that moves with time alone ("Runtime: 0s" that reads "1s" once a second has passed)
  // answers the same twice in a row yet differs across the tool's calls: asked twice with nothing
  // between but as long a pause as the round took (at least 1.1 s, so a clock in seconds turns
  // over; at most 5 s), it must answer the same, or nothing is said.
  {
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - round_start);
    const auto pause = std::clamp(took, std::chrono::milliseconds(1100), std::chrono::milliseconds(5000));
    std::optional<Asked> a = ask(witness, witnesses[found->witness].second);
    if (a && !over_budget(t0)) {
      Unlocked waiting(w);
      std::this_thread::sleep_for(pause);
    }
    std::optional<Asked> b = a ? ask(witness, witnesses[found->witness].second) : std::nullopt;
    if (!a || !b) return unobserved("its time budget was spent, or the server was lost, before its effect was confirmed");
    if (a->form != b->form) {
      note(w, "tool " + tr.name + " is annotated " + found->annotation + ": true and what " + witness +
                  " answers changed around its call, but it changes with time alone too (asked twice " +
                  std::to_string(pause.count()) + " ms apart): not reported (P-ANNOTATION)");
      return unobserved("the witness whose answer changed around its call changes with time alone too");
    }
  }
  // Confirmed by the whole sequence once more: the same witness changed the same way.
  Round again;
  bool compared_again = false;
  std::optional<Changed> confirmed = round(again, true) ? changed(again, compared_again) : std::nullopt;
  if (!confirmed || confirmed->witness != found->witness || confirmed->annotation != found->annotation) {
    note(w, "tool " + tr.name + " is annotated " + found->annotation + ": true and what " + witness +
                " answers changed around its call once, but not when the sequence was made again: not reported "
                "(P-ANNOTATION)");
    return unobserved("what a witness answered changed once around its calls, but not again");
  }
  const std::size_t i = confirmed->witness;
  checks::AnswerChange change;
  change.annotation = confirmed->annotation;
  json sequence = json::array();
  json after;
  if (change.annotation == "readOnlyHint") {
    change.call = again.call1;
    change.before = again.before[i].form;
    change.after = again.after1[i].form;
    change.also_idempotent = idem && again.after1[i].form != again.after2[i].form;
    sequence.push_back(again.before[i].request);
    after = again.after1[i].request;
  } else {
    change.call = again.call2;
    change.before = again.after1[i].form;
    change.after = again.after2[i].form;
    sequence.push_back(again.call1);
    sequence.push_back(again.after1[i].request);
    after = again.after2[i].request;
  }
  change.witness = after;
  Finding f = checks::annotation_effect(tr.name, change);
  f.sequence = sequence;  // a case file replays them first, then the tool's call
  f.env = w.s.env;
  // The replay line: the calls in order, ending with the witness's answer that changed.
  json line = sequence;
  line.push_back(f.request);
  f.replay = replay_of(after, f.env, line);
  o.fail(std::move(f));
  tr.annotation_found = true;
  take(w, tr.name, std::move(o));
}

}  // namespace ctxo::engine::detail
