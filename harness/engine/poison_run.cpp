// SPDX-License-Identifier: MIT
// T-POISON (issue 43, "a server broken by one call"): after one call, every call of every tool
// fails the same way, and the process keeps running (no T-CRASH, no T-HANG: only the answers say
// it). The session's watch (engine/poison.h) raises a suspicion after a few valid calls in a row
// failed with the same text; the run checks it on the same server with witnesses (calls of other
// tools that answered normally before, sent again: they must fail the same way too), then on
// fresh instances of a stdio server: the witness alone must not fail that way (else nothing the run
// sent did it: a backend gone, a limit), and after the suspect call it must. The suspect is shrunk
// on fresh instances, reported once per cause, the streak's own findings withdrawn, and the server
// restarted so the run goes on on a healthy one. An HTTP server cannot be started afresh: a
// suspicion its witnesses back is a note, and the server is not restarted.
#include <algorithm>

#include "core/interrupt.h"
#include "core/text.h"
#include "engine/runner.h"
#include "gen/plan.h"

namespace ctxo::engine::detail {

namespace {

// What a failed answer said: an isError result's first text part (its content as JSON without
// one), or a JSON-RPC error's message. False when the answer is not a failure.
bool failure_text(const Reply& r, std::string_view& text, std::string& storage) {
  if (r.kind == Reply::Kind::kError) {
    const auto it = r.error.is_object() ? r.error.find("message") : r.error.end();
    text = it != r.error.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>()) : std::string_view();
    return true;
  }
  if (!r.is_error_result()) return false;
  for (const std::string* part : r.text_parts())
    if (!trim_space(*part).empty()) {
      text = *part;
      return true;
    }
  storage = r.result.contains("content") ? r.result["content"].dump() : std::string();
  text = storage;
  return true;
}

// The failure hash of an answer (an error's and an isError result's kept apart), nullopt when it
// did not fail.
std::optional<std::uint64_t> failure_of(const Reply& r, std::string* said = nullptr) {
  std::string_view text;
  std::string storage;
  if ((r.kind != Reply::Kind::kResult && r.kind != Reply::Kind::kError) || !r.transport_failure.empty() ||
      !failure_text(r, text, storage))
    return std::nullopt;
  if (said) *said = excerpt(trim_space(text), kFailureChars);
  const std::uint64_t h = failure_hash(text);
  return r.kind == Reply::Kind::kError ? h ^ 0x9e3779b97f4a7c15ull : h;
}

const json& params_of(const json& request) {
  static const json kNone = json::object();
  const auto it = request.find("params");
  return it != request.end() && it->is_object() ? *it : kNone;
}

std::string name_of(const json& request) {
  const json name = params_of(request).value("name", json());
  return name.is_string() ? name.get<std::string>() : std::string();
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 8; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 8) out += " and " + std::to_string(names.size() - 8) + " more";
  return out;
}

}  // namespace

void Runner::watch_poison(Worker& w, ToolRun& tr, ToolSummary& ts, Attempt& a, bool valid) {
  if (o_.replay || w.shrinking || w.probing || !w.s.alive || !w.s.client || !invariant_wanted("T-POISON")) return;
  Reply& r = a.called.reply;
  // A hang or a crash is T-HANG's or T-CRASH's (and restarted the server); the transport's own
  // failures are not answers.
  if ((r.kind != Reply::Kind::kResult && r.kind != Reply::Kind::kError) || !r.transport_failure.empty() ||
      a.called.troubles > 0)
    return;
  const std::optional<std::uint64_t> failure = failure_of(r);
  // The failure a confirmed case left the server in: do_call restarted the server (poisoned_again).
  if (failure && poison_confirmed_.count(*failure)) return;
  PoisonWatch::Seen seen{tr.name, valid, failure.has_value(), failure.value_or(0), rep_.calls};
  if (!w.s.poison.see(seen, std::move(r.request))) return;
  w.s.poison.checked();
  if (poison_dismissed_.count(w.s.poison.failure())) return;
  check_poison(w, tr, ts);
}

void Runner::check_poison(Worker& w, ToolRun& tr, ToolSummary& ts) {
  const PoisonWatch& pw = w.s.poison;
  const std::uint64_t failure = pw.failure();
  std::vector<std::string> failing = pw.tools();
  std::size_t worked = static_cast<std::size_t>(
      std::count_if(failing.begin(), failing.end(), [&](const std::string& t) { return pw.worked(t); }));
  // Up to two witnesses: the latest tools not in the streak that answered a valid call normally.
  std::vector<PoisonWatch::Witness> picks;
  for (auto it = pw.witnesses().rbegin(); it != pw.witnesses().rend() && picks.size() < 2; ++it)
    if (std::find(failing.begin(), failing.end(), it->tool) == failing.end()) picks.push_back(*it);
  if (picks.empty()) return;
  json probe_call;
  std::string said;
  // Their ids from a range of their own, after every tool's (tool_ids_ holds one per tool).
  tool_ids_.emplace(witness_ids_, kIdsPerTool * static_cast<std::int64_t>(tool_ids_.size() + 1));
  for (const auto& pick : picks) {
    const json args = params_of(pick.request).value("arguments", json::object());
    // A call of another tool made for this tool's work (its time counts in this tool's budget).
    Called c = do_call(w, ts, args, &pick.tool, &witness_ids_);
    if (c.lost) w.s.alive = false;
    if (c.lost || c.troubles > 0) return;  // a crash or a hang: its own finding, and a restart
    std::string text;
    const std::optional<std::uint64_t> f = failure_of(c.reply, &text);
    if (!f || *f != failure) return;  // the server still answers that tool: it is not broken for all
    failing.push_back(pick.tool);
    ++worked;
    if (probe_call.is_null()) {
      probe_call = c.reply.request;
      said = text;
    }
  }
  // Two tools at least that had answered normally fail the same way now.
  if (failing.size() < 2 || worked < 2) return;
  if (http()) {
    poison_dismissed_.insert(failure);
    note(w, "every tool failed the same way (`" + said + "`) from call " + std::to_string(pw.number()) +
                " of the run on (" + listed(failing) + ", tools that had answered normally before): the call before "
                "it may have broken the server; not confirmed as T-POISON and not restarted (an HTTP server cannot be "
                "started afresh by the run)");
    return;
  }
  confirm_poison(w, tr, probe_call, failing, said);
}

void Runner::confirm_poison(Worker& w, ToolRun& tr, const json& probe_call, const std::vector<std::string>& failing,
                            const std::string& said) {
  const PoisonWatch& pw = w.s.poison;
  const std::uint64_t failure = pw.failure();
  const std::size_t at = pw.at(), streak = pw.length();
  const std::size_t run_call = pw.number();  // the streak's first call, counted over the run
  const std::vector<std::int64_t> streak_ids = pw.ids();
  std::vector<json> suspects;  // the streak's first call (it may have failed breaking the server), the call before it
  for (const json* s : {&pw.first(), &pw.before()})
    if (s->is_object() && s->value("method", "") == "tools/call") suspects.push_back(*s);
  const std::map<std::string, std::string> env = w.s.started_env;
  const auto deadline = Clock::now() + o_.shrink_budget;
  const json& probe_params = params_of(probe_call);
  const std::string probe_tool = name_of(probe_call);
  // On a fresh instance sent `before`: does the probe call fail the same way? nullopt: no answer
  // (the instance could not be started, the budget ran out, a signal).
  auto fails_after = [&](const std::vector<json>& before) -> std::optional<bool> {
    if (core::interrupt_signal() != 0 || Clock::now() > deadline) return std::nullopt;
    rep_.shrink_calls += before.size() + 1;
    std::optional<Probe> p = probe(w, env, before, deadline);
    if (!p || p->client->closed() || p->transport->exit_status()) return std::nullopt;
    Unlocked waiting(w);
    const Reply r = p->client->request("tools/call", probe_params, false);
    (void)p->transport->close(std::chrono::milliseconds(0));
    if (r.kind != Reply::Kind::kResult && r.kind != Reply::Kind::kError) return std::nullopt;
    const std::optional<std::uint64_t> f = failure_of(r);
    return f && *f == failure;
  };
  poison_dismissed_.insert(failure);  // checked once, whatever comes of it
  const std::string what = "every tool failed the same way (`" + said + "`) from call " + std::to_string(at) +
                           " of the server instance on (" + listed(failing) + ")";
  const std::optional<bool> alone = fails_after({});
  if (!alone) {
    note(w, what + ", but a fresh server could not be asked in time: not confirmed as T-POISON");
    return;
  }
  if (*alone) {
    note(w, what + ", and a fresh server's first call of " + probe_tool +
                " failed the same way: nothing the run sent did it (a backend gone, a limit), not reported as T-POISON");
    return;
  }
  std::optional<json> suspect;
  for (const json& s : suspects)
    if (fails_after({s}).value_or(false)) {
      suspect = s;
      break;
    }
  if (!suspect) {
    note(w, what + "; a fresh server answered " + probe_tool + " normally, but not after the call(s) before the "
                "failures either: no one call was found to break it (not reported as T-POISON); the server was restarted");
    (void)poison_restart(w);
    return;
  }
  const std::string suspect_tool = name_of(*suspect);
  for (const auto& t : judge_->tools())
    if (t.is_object() && t.value("name", json()) == suspect_tool && t.contains("annotations") &&
        t["annotations"].is_object() && t["annotations"].value("destructiveHint", json()) == json(true)) {
      // A tool that says it destroys (drop, reset, clear): the failures after it may be its purpose.
      poison_confirmed_.insert(failure);
      note(w, what + ", after a call of " + suspect_tool + " (reproduced on fresh servers); it is annotated "
                  "destructiveHint: true, so the failures may be what it is for: not reported as T-POISON; the server "
                  "was restarted");
      (void)poison_restart(w);
      return;
    }
  poison_confirmed_.insert(failure);
  // The suspect made minimal on fresh instances: its smallest arguments after which the probe
  // still fails the same way.
  const json original = *suspect;
  const std::string tool = name_of(original);
  json args = params_of(original).value("arguments", json::object());
  Shrunk s{gen::shrinkable_json(args), 0, false};
  if (o_.shrink && args.is_object() && !args.empty()) {
    const json* listing = nullptr;
    for (const auto& t : judge_->tools())
      if (t.is_object() && t.value("name", json()) == tool) listing = &t;
    const checks::ToolValidators& validators = judge(w).validators(tool);
    const bool keep_valid = validators.context(listing, args, rep_.era).schema_valid;
    auto admit = [&](const json& a) { return !keep_valid || validators.context(listing, a, rep_.era).schema_valid; };
    auto holds = [&](const json& a) -> std::optional<bool> {
      json candidate = original;
      candidate["params"]["arguments"] = a;
      return fails_after({candidate});
    };
    // Big steps first, each try a fresh server: every property left out, else at the simplest
    // value of its kind (0, then 1 or -1 keeping its sign; "", [], {}, false), kept when the case
    // still holds. Halving a large number down to -1 would take dozens of fresh servers.
    std::size_t quick = 0;
    const json given = args;
    for (const auto& item : given.items()) {
      // (named copies: a lambda may not capture a structured binding in clang 14)
      const std::string key = item.key();
      const json& value = item.value();
      std::vector<json> tries;
      json without = args;
      without.erase(key);
      tries.push_back(std::move(without));
      auto with = [&](json v) {
        if (v == value) return;
        json a = args;
        a[key] = std::move(v);
        tries.push_back(std::move(a));
      };
      if (value.is_number()) {
        with(0);
        const double d = value.get<double>();
        if (d > 1) with(1);
        if (d < -1) with(-1);
      } else if (value.is_string()) {
        with("");
      } else if (value.is_array()) {
        with(json::array());
      } else if (value.is_object()) {
        with(json::object());
      } else if (value.is_boolean()) {
        with(false);
      }
      for (const json& t : tries) {
        if (!admit(t)) continue;
        const std::optional<bool> held = holds(t);
        if (!held) break;
        if (*held) {
          args = t;
          ++quick;
          break;
        }
      }
    }
    s = smallest(gen::shrinkable_json(args), admit, holds, false);
    s.steps += quick;
    if (s.out_of_time) shrinks_cut_.push_back("T-POISON on " + tool);
  }
  Finding f;
  f.invariant = "T-POISON";
  f.tool = tool;
  f.severity = Severity::kError;
  f.request = original;
  f.request["params"]["arguments"] = s.value.value();
  f.shrink_steps = s.steps;
  if (s.steps > 0) f.original_request = original;
  f.response_excerpt = said;
  f.env = env;
  f.cause = {{"form", "broken-by-call"}};
  // The streak's calls after the suspect answered what this finding says: their own findings (a
  // JSON-RPC error on every valid call: P-NO-THROW) are withdrawn from the tool's work under way.
  const auto suspect_id = original.find("id");
  std::size_t withdrawn = 0;
  if (w.out && w.out == &tr.out) {
    std::vector<Finding> kept;
    std::vector<std::size_t> moved(w.out->findings.size(), static_cast<std::size_t>(-1));
    for (std::size_t i = 0; i < w.out->findings.size(); ++i) {
      Finding& g = w.out->findings[i];
      const auto id = g.request.is_object() ? g.request.find("id") : g.request.end();
      const bool in_streak = id != g.request.end() && id->is_number_integer() &&
                             (suspect_id == original.end() || *id != *suspect_id) &&
                             std::find(streak_ids.begin(), streak_ids.end(), id->get<std::int64_t>()) != streak_ids.end();
      if (in_streak && g.invariant != "T-POISON") {
        ++withdrawn;
        continue;
      }
      moved[i] = kept.size();
      kept.push_back(std::move(g));
    }
    std::vector<PendingShrink> shrinks;
    for (auto& p : w.out->shrinks) {
      if (moved[p.finding] == static_cast<std::size_t>(-1)) {
        tr.shrunk.erase(w.out->findings[p.finding].invariant);  // a later finding of it may be shrunk
        continue;
      }
      p.finding = moved[p.finding];
      shrinks.push_back(std::move(p));
    }
    w.out->findings = std::move(kept);
    w.out->shrinks = std::move(shrinks);
  }
  const bool before = suspects.size() > 1 && *suspect == suspects.back();
  std::vector<std::string> had_worked;
  for (const auto& t : failing)
    if (pw.worked(t)) had_worked.push_back(t);
  f.diagnosis = "after this call" + (before ? std::string(" (answered normally itself)") : std::string()) +
                ", the server answered every later call of every tool with the same failure (`" + said +
                "`) and kept running: from call " + std::to_string(run_call) + " of the run (call " + std::to_string(at) + " of that server instance) on, " + std::to_string(streak) +
                " valid calls in a row failed so; " + listed(had_worked) +
                " had answered normally before it and failed the same way after it (a call that had worked, sent "
                "again). A fresh server answered " +
                probe_tool + "'s call normally; a fresh server sent this call first failed it the same way. A host "
                "keeps the server running: one such call leaves every tool useless until it is restarted. The run "
                "restarted the server and went on on a fresh one";
  if (withdrawn > 0)
    f.diagnosis += " (the " + std::to_string(withdrawn) + " finding(s) of the failing calls after it are this one)";
  f.replay = replay_of(probe_call, env, json::array({f.request}));
  add(w, std::move(f));
  (void)poison_restart(w);
}

void Runner::poisoned_again(Worker& w, Called& c) {
  if (o_.replay || !w.s.alive || !w.s.client) return;
  const std::optional<std::uint64_t> failure = failure_of(c.reply);
  if (!failure || !poison_confirmed_.count(*failure)) return;
  ++poison_again_;
  if (!poison_restart(w) && !w.s.alive) c.lost = true;
}

// A shrink's candidates that break the server again each restart it (as a crash's do): bounded by
// the shrink's own call limit, not by kMaxPoisonRestarts.
bool Runner::poison_restart(Worker& w) {
  if (!w.shrinking && poison_restarts_ >= kMaxPoisonRestarts) {
    if (poison_restarts_++ == kMaxPoisonRestarts)
      note(w, "stopped restarting the server after " + std::to_string(kMaxPoisonRestarts) +
                  " restarts of a server broken by one call (T-POISON): the rest of the run met it broken");
    return false;
  }
  if (!w.shrinking) ++poison_restarts_;
  if (!restart(w, false)) {
    w.s.alive = false;
    return false;
  }
  return true;
}

}  // namespace ctxo::engine::detail
