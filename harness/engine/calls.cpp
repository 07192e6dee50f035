// SPDX-License-Identifier: MIT
// One tool's calls: its plan's generated calls, budget parameters driven small, the second
// pass, E-STABLE's repeat and E-MISS's lookup; and what one tools/call comes to (do_call: the
// hang, slowness and crash rules, the restart) and an attempt (a call and its checks).
#include "checks/generic_caps.h"
#include "checks/liveness.h"
#include "core/text.h"
#include "engine/runner.h"
#include "engine/safety.h"
#include "gen/prose.h"
#include "gen/simple.h"
#include "profile/schema_validator.h"

namespace ctxo::engine::detail {

namespace {

// True when an envelope carries a non-empty hint (its profile's hint, or its form's).
bool has_hint(const checks::ParsedEnvelope& pe) {
  if (!pe.profile || !pe.envelope.is_object()) return false;
  std::vector<std::string> ptrs;
  if (pe.profile->fields.hint) ptrs.push_back(*pe.profile->fields.hint);
  if (pe.form)
    if (const profile::Form* f = pe.profile->form(*pe.form); f && f->hint_pointer) ptrs.push_back(*f->hint_pointer);
  for (const auto& p : ptrs)
    if (const json* h = profile::resolve_pointer(pe.envelope, p); h && h->is_string() && !h->get<std::string>().empty())
      return true;
  return false;
}

}  // namespace

// A finding one call decides, so a smaller call can reproduce it: not the wire-level
// observations (a log line on stdout, a stray id), nor a late answer (only slow).
bool shrinkable(const Finding& f) {
  if (f.invariant == "T-FRAMING" || f.invariant == "T-ID" || http_rule(f.invariant)) return false;
  return !(f.invariant == "T-HANG" && f.severity == Severity::kWarning);
}

std::optional<AskedToWait> asked_to_wait(checks::Judge* judge, const std::string& tool, const json& args) {
  if (!args.is_object() || !judge) return std::nullopt;
  const checks::ToolValidators& v = judge->validators(tool);
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (!it.value().is_number() || !(it.value().get<double>() > 0)) continue;
    const std::string k = gen::harvest_key(it.key());
    bool timed = k == "ms" || k == "s" || k == "secs" || k == "time" || k == "seconds" || k == "millis";
    for (const char* word : {"duration", "delay", "sleep", "wait", "timeout", "seconds", "millis", "interval"})
      timed = timed || k.find(word) != std::string::npos;
    if (!timed) continue;
    for (int small : {0, 1}) {
      json quick = args;
      quick[it.key()] = small;
      if (quick == args) break;
      if (!v.validates_input() || v.input_violation(quick).empty())
        return AskedToWait{it.key(), it.key() + "=" + it.value().dump(), std::move(quick)};
    }
  }
  return std::nullopt;
}

// One tool's generated calls (the plan, budget parameters driven small, E-STABLE, E-MISS).
void Runner::tool_calls(Worker& w, ToolRun& tr, Clock::time_point t0, std::size_t& started, std::size_t total) {
  const std::string& name = tr.name;
  const json* tool = tr.tool;
  ToolSummary* ts = summary_of(name);
  l_.on_tool(*ts, started++, total);
  if (over_budget(t0)) {  // before its plan is built: thousands of tools past the budget cost nothing
    ts->skipped = "time budget reached";
    return;
  }
  static const json kAnyObject = json{{"type", "object"}};
  const auto schema_it = tool->find("inputSchema");
  const json& input_schema = schema_it != tool->end() && schema_it->is_object() ? *schema_it : kAnyObject;  // not copied
  const checks::ToolValidators& validators = judge(w).validators(name);
  tr.validators = &validators;
  if (!validators.input_problem().empty())
    note(w, "cannot validate the inputSchema of tool " + name + " (" + validators.input_problem() +
            "); its calls are not held to P-NO-THROW");
  if (!validators.output_problem().empty())
    note(w, "cannot compile the outputSchema of tool " + name + ": " + validators.output_problem());
  // Only a schema naming another host somewhere can have a default to pin: the others' calls
  // are sent without a copy (do_call).
  if (!o_.allow_remote_urls && !gen::stays_local(input_schema)) input_schemas_[name] = input_schema;
  if (!o_.replay) {
    gen::GenOptions go;
    go.allow_remote_urls = o_.allow_remote_urls;
    go.workspace_values = gen::reading_tool(*tool);  // a real file is never handed to a writer
    go.sql = gen::runs_sql(*tool);
    go.code_language = gen::code_language(*tool);
    // The listing's schema (held by the judge for the whole run) and the judge's compiled copy of
    // it are shared with the plan, not copied and compiled again: a listing of megabytes would
    // otherwise be held three more times.
    if (const auto* v = validators.input_validator()) go.root_validator = std::make_shared<const profile::SchemaValidator>(*v);
    // A schema without "type" (P-LIST says so) is generated as an object's: tools/call's arguments
    // are one, and a string or a number sent there is no valid call (a real server's schemas of
    // bare properties got "u" and -39, answered with errors that read as P-NO-THROW).
    std::shared_ptr<const json> schema(std::shared_ptr<const json>(), &input_schema);
    if (!input_schema.contains("type")) {
      json typed = input_schema;
      typed["type"] = "object";
      schema = std::make_shared<const json>(std::move(typed));
    }
    tr.plan.emplace(std::move(schema), o_.calls_per_tool, o_.seed ^ fnv1a(name), std::move(go));
  }
  for (std::size_t i = 0; w.s.alive && tr.troubles < 2; ++i) {
    if (over_budget(t0)) {
      ts->skipped = "time budget reached";
      break;
    }
    if (tr.slow >= kMaxSlowCalls) {
      ts->skipped = "stopped after " + std::to_string(kMaxSlowCalls) + " calls slower than --timeout";
      break;
    }
    if (!o_.replay && tool_over_budget(w, *ts)) break;
    std::optional<gen::PlannedCall> pc;
    static const gen::Harvest kNothing;
    if (tr.plan) pc = tr.plan->next(feeds_harvest(*tool) ? harvest(w) : kNothing);
    else if (i == 0 && !o_.replay->as_miss) pc = gen::PlannedCall{gen::Phase::kBoundary, "replayed case", gen::shrinkable_json(o_.replay->arguments)};
    if (!pc) break;
    make_call(w, tr, *ts, std::move(*pc), t0);
  }
  if (tr.plan && ts->calls == 0 && ts->skipped.empty() && !tr.plan->cannot_generate().empty())
    ts->skipped = "no schema-valid arguments could be generated: " + tr.plan->cannot_generate();
  drive(w, tr, *ts, t0);
  if (!tr.repeated && tr.stable_fallback && w.s.alive && tr.troubles < 2 && !over_budget(t0) && !tool_over_budget(w, *ts))
    tr.troubles += repeat(w, *ts, tr.stable_fallback->first, "", tr.stable_fallback->second);
  if (tr.plan)
    for (const auto& p : tr.plan->problems())
      if ((ts->calls > 0 || p != tr.plan->cannot_generate()) &&  // else said once, as the reason it was not called
          !(pinned_noted_.count(name) && p.rfind(gen::kRemoteUrlProblem, 0) == 0))  // said with the pin
        note(w, "generating calls for tool " + name + ": " + p);
  if (tr.troubles >= 2) ts->skipped = "stopped after 2 crashes or hangs";
  miss(w, tr, *ts, input_schema, t0);
}

// E-MISS: a lookup of an identifier that cannot exist, answered by a tool whose envelope
// profile is known (forced, or seen on its answers) and has a graceful-miss form (or miss codes).
void Runner::miss(Worker& w, ToolRun& tr, ToolSummary& ts, const json& input_schema, Clock::time_point t0) {
  const std::string& name = tr.name;
  const profile::Profile* miss_profile = judge(w).profile_of(name);
  if (miss_profile && !miss_profile->has_graceful_miss()) miss_profile = nullptr;
  std::optional<json> absent;
  if (o_.replay && o_.replay->as_miss) absent = o_.replay->arguments;
  else if (!o_.replay && ts.calls > 0) absent = gen::absent_lookup(input_schema, o_.seed ^ fnv1a(name), o_.allow_remote_urls);
  // A replayed lookup has no earlier answers: its own answer tells the profile.
  const bool replay_miss = o_.replay && o_.replay->as_miss;
  if (!absent || !w.s.alive || tr.troubles >= 2 || !(miss_profile || replay_miss) || over_budget(t0) ||
      !invariant_wanted("E-MISS"))
    return;
  std::vector<Finding> found;
  w.capture = &found;
  Called c = do_call(w, ts, *absent);
  tr.troubles += c.troubles;
  if (c.lost) w.s.alive = false;
  const Reply& reply = c.reply;
  checks::Judged j = judged(w, exchange(w, name, *absent, reply, "", miss_profile, false));
  checks::Outcomes missed;
  if (reply.kind == Reply::Kind::kResult) {
    const checks::ParsedEnvelope pe =
        j.envelope.profile ? j.envelope : judge(w).parse(exchange(w, name, *absent, reply, "", miss_profile, false));
    missed = judge(w).miss(name, pe, reply);
  }
  checks::miss_hides_error(j.outcomes, missed);
  take(w, name, std::move(j.outcomes));
  take(w, name, std::move(missed));
  w.capture = nullptr;
  for (auto& f : found) {
    f.phase = "miss";
    f.case_label = "lookup of an identifier that cannot exist";
    add(w, std::move(f));
  }
}

// The second pass: a tool whose calls reached no data, again, with the values harvested since.
void Runner::second_pass(Worker& w, ToolRun& tr, Clock::time_point t0) {
  if (over_budget(t0) || !feeds_harvest(*tr.tool)) return;
  ToolSummary* ts = summary_of(tr.name);
  for (auto& pc : tr.plan->second_pass(harvest(w), kSecondPassCalls)) {
    if (!w.s.alive || tr.troubles >= 2 || tr.slow >= kMaxSlowCalls || over_budget(t0) || tool_over_budget(w, *ts)) break;
    ts->second_pass_calls++;
    make_call(w, tr, *ts, std::move(pc), t0);
  }
  drive(w, tr, *ts, t0);
}

// Makes one planned call of `tr` and reports what it found (shrunk when its phase ends),
// remembering the first calls that reached data (for drive()) and the E-STABLE repeat.
void Runner::make_call(Worker& w, ToolRun& tr, ToolSummary& ts, gen::PlannedCall pc, Clock::time_point t0) {
  const json args = pc.arguments.value();
  if (!tr.first_args) tr.first_args = args;
  const std::string broken = pc.phase == gen::Phase::kInvalid ? pc.label : "";
  // Self-made data (engine/self_made.h): the strings a valid call gives a tool that writes, made
  // up by the run (asked before the call: its own answer may echo them); `exchange` marks the
  // later calls that carry them.
  std::vector<std::string> made;
  const bool writes = tr.tool && !gen::reading_tool(*tr.tool);
  if (writes) writers_.insert(tr.name);
  if (writes && broken.empty()) {
    static const json kNoSchema = json::object();
    const auto schema = tr.tool->find("inputSchema");
    made = w.s.made.fresh(args, schema != tr.tool->end() ? *schema : kNoSchema,
                          [&](const std::string& s) { return harvest(w).knows(json(s)); });
  }
  Attempt a = attempt(w, ts, tr, args, broken, true);
  tr.troubles += a.called.troubles;
  if (a.called.lost) w.s.alive = false;
  if (a.called.reply.elapsed > o_.timeout) ++tr.slow;
  for (auto& f : a.findings) {
    f.phase = tr.plan ? gen::phase_name(pc.phase) : "";
    f.case_label = pc.label;
    // Shrunk when the phase ends (run_phase), once per root cause.
    if (tr.plan && o_.shrink && w.s.alive && w.out && shrinkable(f) && tr.shrunk.insert(f.invariant).second)
      w.out->shrinks.push_back(PendingShrink{pc.arguments, w.out->findings.size(), broken});
    add(w, std::move(f));
  }
  // T-POISON's watch sees every planned call, last (its request is moved out of the attempt).
  if (a.called.reply.kind != Reply::Kind::kResult) return watch_poison(w, tr, ts, a, broken.empty());
  if (!made.empty() && !a.called.reply.is_error_result() && a.reach != checks::Reach::kError) {
    w.s.made.wrote(made);
    // Offered after the server's own values (scored as misses: a value the run made up leads to
    // nothing the server had), however often the answers echo them.
    if (o_.harvest) harvest(w).outcome(json(made), false);
  }
  if (broken.empty() && !a.called.reply.is_error_result() && tr.good_calls.size() < kGoodCallsKept &&
      std::find(tr.good_calls.begin(), tr.good_calls.end(), args) == tr.good_calls.end())
    tr.good_calls.push_back(args);
  if (a.reach == checks::Reach::kData && !a.self_made) tr.reached = true;
  if (a.reach == checks::Reach::kData && tr.data_calls.size() < kDataCallsKept) {
    tr.data_calls.emplace_back(args, pc.label);
    tr.data_sizes.push_back(a.called.reply.raw.size());
  }
  // What an answer no profile read says about its list: TR-COUNT's silent omission across calls.
  if (a.listed) tr.listed.push_back(std::move(*a.listed));
  const checks::ParsedEnvelope& pe = a.envelope;
  // E-STABLE: the first call whose envelope carries a hint (else the first with an envelope,
  // after the plan), again, straight away.
  if (!tr.repeated && pe.profile && o_.envelope_repeat && invariant_wanted("E-STABLE")) {
    if (has_hint(pe)) {
      tr.repeated = true;
      tr.troubles += repeat(w, ts, args, broken, pe);
    } else if (!tr.stable_fallback) {
      tr.stable_fallback = std::make_pair(args, pe);
    }
  }
  watch_poison(w, tr, ts, a, broken.empty());
}

// Budget and limit parameters driven small: the calls that reached data, again, with each
// limit/maxResults/tokenBudget parameter at its smallest valid value (and four times that), so
// truncation is seen on every tool that can truncate.
void Runner::drive(Worker& w, ToolRun& tr, ToolSummary& ts, Clock::time_point t0) {
  if (!tr.plan) return;
  // The largest answers first (an answer that can be cut is more likely one that is large), the
  // first seen first among equals; kDrivenSources of them over the tool's run.
  std::vector<std::size_t> order(tr.data_calls.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(std::min(tr.driven_from, order.size())), order.end(),
                   [&](std::size_t a, std::size_t b) { return tr.data_sizes[a] > tr.data_sizes[b]; });
  // A lookup asked for several items at once, one of them made up: each must come back or be said
  // to be missing (TR-COUNT, named-items-missing).
  if (!tr.several_asked && !tr.data_calls.empty() && invariant_wanted("TR-COUNT")) {
    tr.several_asked = true;
    if (auto pc = tr.plan->several(tr.data_calls.front().first, harvest(w), tr.name, "after " + tr.data_calls.front().second))
      if (w.s.alive && tr.troubles < 2 && tr.slow < kMaxSlowCalls && !over_budget(t0) && !tool_over_budget(w, ts)) {
        ts.driven_calls++;
        make_call(w, tr, ts, std::move(*pc), t0);
      }
  }
  [&] {
    for (; tr.driven_from < std::min(order.size(), kDrivenSources); ++tr.driven_from) {
      const auto [args, label] = tr.data_calls[order[tr.driven_from]];
      for (auto& pc : tr.plan->driven(args, "after " + label)) {
        if (!w.s.alive || tr.troubles >= 2 || tr.slow >= kMaxSlowCalls || over_budget(t0) || tool_over_budget(w, ts)) return;
        ts.driven_calls++;
        make_call(w, tr, ts, std::move(pc), t0);
      }
    }
  }();
  // TR-COUNT, silent omission: the answers that say there is no more against the same calls with
  // a larger limit (the driven ones above), each group reported once.
  if (invariant_wanted("TR-COUNT")) {
    checks::Outcomes o = checks::check_omissions(tr.listed, gen::budget_parameter, &tr.omissions_reported);
    for (Finding& f : o) f.phase = "random";
    take(w, ts.name, std::move(o));
  }
  // TR-RESUME (generic): the next page an answer names, fetched, and the same call with twice the
  // items; the page must go on where the answer ended.
  if (invariant_wanted("TR-RESUME") && !judge(w).profile_of(tr.name)) {
    static const json kNoSchema = json::object();
    const auto schema_it = tr.tool->find("inputSchema");
    for (json& args : checks::resume_calls(tr.listed, schema_it != tr.tool->end() ? *schema_it : kNoSchema,
                                           gen::budget_parameter)) {
      if (!w.s.alive || tr.troubles >= 2 || tr.slow >= kMaxSlowCalls || over_budget(t0) || tool_over_budget(w, ts)) break;
      ts.driven_calls++;
      make_call(w, tr, ts, gen::PlannedCall{gen::Phase::kBoundary, "the next page an answer named", gen::shrinkable_json(args)}, t0);
    }
    checks::Outcomes o = checks::check_resumes(tr.listed, gen::budget_parameter, &tr.resumes_reported);
    for (Finding& f : o) f.phase = "boundary";
    take(w, ts.name, std::move(o));
  }
  // TR-PREFIX / TR-MAXIMAL (generic) for a cap that is a constant of the server: an answer cut
  // below what its call asked for, again with the tool's own item-count limit at what it kept (k)
  // and at k+1; the cut must be the first k of the tool's order, and k+1 must not come back.
  if ((invariant_wanted("TR-PREFIX") || invariant_wanted("TR-MAXIMAL")) && !judge(w).profile_of(tr.name)) {
    static const json kNoSchema = json::object();
    const auto schema_it = tr.tool->find("inputSchema");
    const json& schema = schema_it != tr.tool->end() ? *schema_it : kNoSchema;
    for (json& args : checks::cap_calls(tr.listed, schema, gen::budget_parameter)) {
      if (!w.s.alive || tr.troubles >= 2 || tr.slow >= kMaxSlowCalls || over_budget(t0) || tool_over_budget(w, ts)) break;
      ts.driven_calls++;
      make_call(w, tr, ts, gen::PlannedCall{gen::Phase::kBoundary, "the item count a cut answer kept", gen::shrinkable_json(args)}, t0);
    }
    checks::Outcomes o = checks::check_caps(tr.listed, schema, gen::budget_parameter, &tr.caps_reported);
    for (Finding& f : o) f.phase = "boundary";
    take(w, ts.name, std::move(o));
  }
}

// E-STABLE: `args` again; its answer compared with `first`. Returns the troubles it met.
std::size_t Runner::repeat(Worker& w, ToolSummary& ts, const json& args, const std::string& broken,
                           const checks::ParsedEnvelope& first) {
  Called again = do_call(w, ts, args);
  if (again.lost) w.s.alive = false;
  checks::Judged j2 = judged(w, exchange(w, ts.name, args, again.reply, broken, first.profile, true));
  take(w, ts.name, std::move(j2.outcomes));
  if (j2.envelope.profile) take(w, ts.name, judge(w).stable(first, j2.envelope));
  return again.troubles;
}

// A tools/call for the judge. `broken`: what the call was generated to break ("" = generated
// valid); the judge decides by the tool's schema when it compiled.
checks::Exchange Runner::exchange(Worker& w, const std::string& tool, const json& args, const Reply& reply,
                                  const std::string& broken, const profile::Profile* prof, bool hold) const {
  checks::Exchange x;
  x.tool = tool;
  x.arguments = args;
  x.reply = &reply;
  x.env = w.s.env;
  x.profile = prof;
  x.hold = hold;
  x.validity = broken.empty() ? checks::Validity::kValid : checks::Validity::kInvalid;
  x.broken = broken;
  // The calls before it on this instance, when one of them may have written (its answer may
  // depend on them: a host-limit finding's case replays them).
  if (w.s.wrote) x.before = &w.s.calls;
  const gen::Harvest& pooled = w.out ? w.out->harvest : harvest_;
  x.self_made = !writers_.count(tool) && w.s.made.carries(args, [&](const std::string& s) { return pooled.knows(json(s)); });
  return x;
}

// One tools/call with the transport-level outcomes handled: T-HANG and T-CRASH are reported and
// the server restarted; the result says when it could not be.
const json& Runner::pinned_arguments(Worker& w, const std::string& tool, const json& args, json& storage) {
  auto schema = input_schemas_.find(tool);
  if (schema == input_schemas_.end()) return args;
  storage = args;
  std::vector<std::string> pinned;
  if (!gen::pin_local_defaults(schema->second, storage, &pinned)) return args;
  if (pinned_noted_.insert(tool).second) {
    std::string names;
    for (const auto& p : pinned) names += (names.empty() ? "" : ", ") + p;
    note(w, "tool " + tool + ": optional " + names +
            " names a host other than loopback: never sent as it is nor left to the server, every call "
            "sends it pointed at 127.0.0.1:9 (--allow-remote-urls sends the schema's URLs)");
  }
  return storage;
}

Called Runner::do_call(Worker& w, ToolSummary& ts, const json& args, const std::string* other,
                       const std::string* id_range) {
  Called c;
  const std::string& name = other ? *other : ts.name;
  // An optional argument the server would fill with a remote URL default is sent pointed at loopback.
  json pinned_args;
  const json* sent = &pinned_arguments(w, name, args, pinned_args);
  // Outside a sandbox no pid is made up: a kill tool's pid parameters name no process.
  json safe_args;
  if (!o_.no_sandbox.empty()) {
    safe_args = without_pids(*sent);
    if (safe_args != *sent) sent = &safe_args;
  }
  // A silent call is confirmed as a hang under a longer bound before it is called one, except
  // while shrinking a confirmed hang (each reproduction would cost the whole bound).
  // The tool's own request ids (tool_ids_), whichever session makes the call.
  auto ids = tool_ids_.find(id_range ? *id_range : ts.name);
  const std::int64_t session_next = ids != tool_ids_.end() ? w.s.client->set_next_id(ids->second) : 0;
  c.reply = [&] {
    Unlocked waiting(w);
    return w.s.client->call_tool(name, *sent, !w.shrinking);
  }();
  Reply& reply = c.reply;
  if (ids != tool_ids_.end() && w.s.client) ids->second = w.s.client->set_next_id(session_next);
  record(w, reply);
  if (w.s.calls.size() < kMaxSessionCalls) w.s.calls.push_back(reply.request);
  if (!ts.read_only) w.s.wrote = true;
  ts.elapsed += reply.elapsed;
  ToolSummary* row = other ? summary_of(*other) : &ts;  // a partner's call is counted on its own tool
  count_call(rep_, row ? *row : ts, reply.kind == Reply::Kind::kResult && !reply.is_error_result());
  if (refused(w)) {  // HTTP 401/403: the run ends (exit 3); this answer is not the tool's
    c.lost = true;
    return c;
  }
  take(w, name, checks::Judge::transport(reply));
  // A message holding both result and error was answered (coverage: an error), but not judged.
  if (judge_ && !server_answered(reply)) judge(w).unanswered(name);
  else if (judge_ && !reply.transport_failure.empty()) judge(w).answered_unjudged(name);
  l_.on_call(ts, rep_.calls);
  snapshot(false);
  take_observations(w);
  // Slow is not hung: a T-HANG warning about latency, with the time it took.
  if (reply.late && !reply.progressed && (reply.kind == Reply::Kind::kResult || reply.kind == Reply::Kind::kError))
    add(w, checks::slow_answer(reply.request, reply.elapsed, o_.timeout));
  if (reply.kind == Reply::Kind::kTimeout && reply.progressed && !reply.stray_seen && !reply.oversize) {
    // Progress notifications are liveness whatever their interval: a call that reported progress
    // and was still working when we stopped waiting is slow, not hung (and the server is alive).
    add(w, checks::slow_progressing(reply.request, reply.elapsed));
  } else if (reply.kind == Reply::Kind::kTimeout) {
    // An answer too long to read is T-FRAMING (already observed), not a hang: the server is
    // alive and its stream goes on.
    if (!reply.stray_seen && !reply.oversize) {
      Finding f = checks::call_hung(reply.request, reply.elapsed, o_.timeout);
      ++c.troubles;
      c.lost = !restart(w);
      // A call that asked the tool to wait (duration, delay, sleep, timeout...) is asked again
      // for the shortest wait: answered now, the tool did the long work it was asked for, and
      // the server is slow on request, not hung.
      if (!c.lost && !w.shrinking && !w.probing)
        if (auto asked = asked_to_wait(judge_ ? &judge(w) : nullptr, name, args)) {
          w.probing = true;
          Called quick = do_call(w, ts, asked->args, other);
          w.probing = false;
          if (quick.lost) c.lost = true;
          if (quick.reply.kind == Reply::Kind::kResult || quick.reply.kind == Reply::Kind::kError) {
            take(w, name, judged(w, exchange(w, name, asked->args, quick.reply, "", nullptr, false)).outcomes);
            checks::hung_on_request(f, reply.elapsed, asked->what, asked->property, asked->args[asked->property].dump(),
                                    quick.reply.elapsed);
          }
        }
      add(w, std::move(f));
    }
  } else if (reply.kind == Reply::Kind::kClosed) {
    crash_finding(w, reply, "this tools/call");
    ++c.troubles;
    c.lost = !restart(w);
  }
  // T-POISON: the failure a confirmed case left the server in, met again: restarted at once.
  if (!poison_confirmed_.empty() && !c.lost) poisoned_again(w, c);
  return c;
}

// One generated call and every per-call check on its answer; the findings are returned, not
// reported. `broken`: what an invalid call broke ("" = generated valid). `main`: a call of the
// plan (harvested, kept for the limit sweep), not a shrink candidate.
Attempt Runner::attempt(Worker& w, ToolSummary& ts, const ToolRun& tr, const json& args, const std::string& broken,
                        bool main) {
  Attempt a;
  std::vector<Finding>* outer = w.capture;
  w.capture = &a.findings;
  // Put back however this ends: an interrupt unwinds through here (see run()).
  struct PutBack {
    std::vector<Finding>*& slot;
    std::vector<Finding>* old;
    ~PutBack() { slot = old; }
  } put_back{w.capture, outer};
  a.called = do_call(w, ts, args);
  const Reply& reply = a.called.reply;
  // An answer the transport could not read (HTTP) was reported as such (T-HTTP-*): not judged.
  if ((reply.kind == Reply::Kind::kResult || reply.kind == Reply::Kind::kError) && reply.transport_failure.empty()) {
    const checks::Exchange x = exchange(w, ts.name, args, reply, broken, nullptr, main);
    // With --jobs, the answer is judged and harvested without the workers' lock: both are this
    // work's own (its shard of the judge, its fork of the harvest).
    const bool own = w.out && w.out->judge;
    checks::Judged j;
    {
      std::optional<Unlocked> unlocked;
      if (own) unlocked.emplace(w);
      j = own ? w.out->judge->call(x) : judge_->call(x);
      // Prose and Markdown answers are read only from tools that only read: a tool that writes
      // answers with what it was told ("Created file zzz"), and its own arguments are left out too
      // (from any tool's answer: the ids it names after a label, gen/prose.h labelled_values).
      // A huge answer is harvested from the sample it was checked on (checks/sample.h).
      if (main && o_.harvest && reply.kind == Reply::Kind::kResult && !reply.is_error_result()) {
        const bool prose = tr.tool && gen::reading_tool(*tr.tool);
        if (j.read) harvest(w).take_answer(*j.read, prose, gen::argument_strings(args));
      }
    }
    a.envelope = j.envelope;
    a.reach = j.reach;
    a.sampled = j.sample != nullptr;
    a.self_made = x.self_made;
    // What an answer no profile read says about its list (make_call keeps it), from the judge's
    // reading: the answer is not read again.
    if (main && j.read && j.reach == checks::Reach::kData && !j.sample && !j.envelope.profile &&
        !judge(w).profile_of(ts.name) && tr.listed.size() < checks::kListedKept)
      a.listed = checks::listed_call(*j.read, args);
    // What the call's values did steers the values the next calls are offered (Harvest::rank).
    // Self-made data led nowhere the server had: it counts as a miss, so the server's own values
    // are offered before the run's.
    if (main && o_.harvest && reply.kind == Reply::Kind::kResult && broken.empty()) {
      if (j.reach == checks::Reach::kData) harvest(w).outcome(args, !x.self_made);
      else if (j.reach == checks::Reach::kMiss) harvest(w).outcome(args, false);
    }
    take(w, ts.name, std::move(j.outcomes));
    // Success answers of a profile with a limit variable are replayed by the limit sweep.
    if (main && j.answer && sweep_per_tool_[ts.name]++ < kMaxSweepCallsPerTool) {
      SweepCall sc{tr.tool, args, j.envelope.profile, j.envelope, *j.answer};
      if (w.out) w.out->sweep_calls.push_back(std::move(sc));
      else if (sweep_calls_.size() < kMaxSweepCalls) sweep_calls_.push_back(std::move(sc));
    }
  }
  return a;
}

}  // namespace ctxo::engine::detail
