// SPDX-License-Identifier: MIT
// The outline of a run: options in, report out. A run starts the server, lists its tools,
// selects the ones to call, runs them in phases (calls.cpp, on the workers of workers.cpp),
// sweeps limits and follows hints (sweep.cpp), ends its sessions (session.cpp) and settles the
// report. Findings, statuses and notes reach the report here (add, take, note).
#include "engine/engine.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "checks/liveness.h"
#include "checks/protocol.h"
#include "checks/sample.h"
#include "core/interrupt.h"
#include "engine/gate.h"
#include "engine/runner.h"
#include "engine/selection.h"
#include "gen/prose.h"
#include "transport/sandbox.h"

namespace ctxo::engine {

namespace detail {

namespace {

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

Runner::Runner(const RunOptions& o, Listener& l)
    : o_(o), l_(l), sink_(rep_, o.selection), memory_(o.memory_budget_mb << 20) {
  target_.command = o.command;
  target_.cwd = o.cwd;
  target_.url = o.url;
  for (const auto& h : o.headers) target_.header_names.push_back(h.first);
  target_.sandboxed = o.sandbox != nullptr;
}

RunReport Runner::run() {
  const auto t0 = started_ = Clock::now();
  rep_.seed = o_.seed;
  rep_.command = o_.command;
  rep_.url = o_.url;
  rep_.header_names = target_.header_names;
  rep_.env = o_.env;
  rep_.cwd = o_.cwd;
  rep_.profile = o_.profile;
  rep_.started_at = iso_now();
  rep_.root = o_.root;
  rep_.invariants_checked = invariants_checked(o_.selection, true);
  if (!o_.command.empty()) {
    // What the server changes in the project is observed: the sandbox's copies, or without a
    // sandbox the project given (--root, --cwd) itself.
    std::vector<std::pair<std::string, std::string>> dirs;
    if (o_.sandbox) {
      rep_.sandbox = o_.sandbox->describe();
      std::size_t copies = 0;
      for (const auto& pr : o_.sandbox->projects()) copies += pr.view.empty() ? 0 : 1;
      for (const auto& pr : o_.sandbox->projects())
        if (!pr.view.empty()) dirs.emplace_back(pr.view, copies > 1 ? pr.real : std::string());
    } else {
      rep_.no_sandbox = o_.no_sandbox;
      std::set<std::string> seen;
      for (const std::string& d : {o_.root.value_or(std::string()), o_.cwd})
        if (!d.empty() && seen.insert(d).second) dirs.emplace_back(d, std::string());
      if (dirs.size() > 1) {
        for (auto& [dir, name] : dirs) name = dir;
      }
    }
    if (!dirs.empty()) watch_ = std::make_unique<ChangeWatch>(std::move(dirs));
  }
  transport::install_signal_cleanup();
  jobs_ = o_.replay ? 1 : std::max<std::size_t>(1, o_.jobs);
  if (!o_.command.empty()) marker_ = transport::new_run_marker();
  sessions_.push_back(std::make_unique<Session>());
  Worker w(*sessions_[0]);
  w.s.env = o_.env;
  auto fail = [&](Error e) {
    rep_.error = std::move(e);
    rep_.exit_code = code(ExitCode::kUsage);
    rep_.verdict = Verdict::kError;
    return std::move(rep_);
  };
  if (!o_.record_path.empty()) {
    auto r = Recorder::open(o_.record_path, o_.redactor);
    if (!r.ok()) return fail(r.error());
    recorder_.emplace(std::move(r.value()));
    if (http()) recorder_->set_server({{"url", o_.url}});
  }
  if (o_.judging) {
    judging_ = *o_.judging;
  } else {
    auto judging = load_judging(o_.profile, o_.host);
    if (!judging.ok()) return fail(judging.error());
    judging_ = std::move(judging.value());
  }
  forced_ = judging_.profiles.forced ? &*judging_.profiles.forced : nullptr;
  for (auto n : judging_.notes) note(w, std::move(n));
  try {
    enter_phase("starting the server");
    body(w);
  } catch (const core::Interrupted& stop) {
    // Whatever was under way (an attempt, a shrink, a probe) is abandoned; what it found so far
    // was reported (shrink() keeps its smallest reproduction).
    w.capture = nullptr;
    w.shrinking = w.probing = false;
    w.out = nullptr;
    rep_.interrupted = stop.signal;  // the reports say so (reports::interrupted_reason)
  }
  if (!memory_phase_.empty())
    note(w, "--memory-budget " + std::to_string(o_.memory_budget_mb) + " MiB reached during " + memory_phase_ + " (" +
                std::to_string(memory_.seen() >> 20) +
                " MiB resident): no further call was made (raise --memory-budget, or 0 for no limit)");
  // An interrupted run stops its servers at once; their shutdown is not judged.
  finish_workers(rep_.interrupted == 0 ? End::kFinal : End::kAbandoned);
  finish_session(w, rep_.interrupted == 0 ? End::kFinal : End::kAbandoned);
  (void)look_for_changes("");
  settle_judge(w);  // before leftovers: H-SIZE's minimal case starts fresh instances
  leftovers(w);
  // A transcript asked for and not written is a failed run (exit 2), whatever was found.
  if (recorder_ && !recorder_->error().empty() && !rep_.error) {
    rep_.error = Error{errc::kIo, recorder_->error()};
    rep_.exit_code = code(ExitCode::kUsage);
    rep_.verdict = Verdict::kError;
  }
  group_server_level(rep_);  // no finding is merged after this: the sink's index would be stale
  sink_.publish();
  publish_reach(w);
  rep_.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
  settle_verdict(rep_);
  return std::move(rep_);
}

// --- findings -----------------------------------------------------------------------------
// Reports `f`, or hands it to the attempt being made (see attempt()).
void Runner::add(Worker& w, Finding f) {
  if (!sink_.admit(f)) return;
  if (f.replay.empty()) {
    // The judge stamps the environment an answer was given under; other findings are the
    // current server's.
    if (f.env.empty()) f.env = w.s.env;
    // A finding that depends on the server's state: the calls that made it, then its own.
    // A batch's replay sends all its requests at once (a pipe writes them before any answer).
    const bool batch = f.batch.is_array() && !f.batch.empty();
    f.replay = replay_of(batch ? json() : f.request, f.env, batch ? f.batch : f.sequence);
  }
  if (w.capture) {
    w.capture->push_back(std::move(f));
    return;
  }
  // Shown as it is found, once per root cause; a tool's findings join the report when its phase
  // ends (merge_phase), in tool order.
  const bool shown = printed_.insert(finding_key(f)).second;
  if (shown) l_.on_finding(f);
  if (w.out) w.out->findings.push_back(std::move(f));
  else sink_.merge(std::move(f));
  if (shown) snapshot(true);
}

// The report as it stands, published for a stop that cannot wait for the run (RunOptions::
// snapshot): the findings merged so far and those the phase under way holds, the rows, notes,
// counters and statuses. At most every 200 ms (`force`: a new finding, a phase's end: sooner),
// and never more than a twentieth of the run's time: a report of thousands of rows takes a
// while to copy.
void Runner::snapshot(bool force) {
  if (!o_.snapshot) return;
  const auto now = Clock::now();
  if (now < (force ? next_forced_snapshot_ : next_snapshot_)) return;
  RunReport r = rep_;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < r.findings.size(); ++i) index.emplace(finding_key(r.findings[i].finding), i);
  for (const ToolRun* tr : current_phase_) {
    for (const auto& f : tr->out.findings) merge_finding(r, index, f);
    for (const auto& n : tr->out.notes) r.notes.push_back(n);
  }
  group_server_level(r);
  sink_.publish_into(r);
  r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(now - started_);
  o_.snapshot->publish(std::move(r));
  const auto cost = Clock::now() - now;
  next_forced_snapshot_ = now + cost * 20;
  next_snapshot_ = now + std::max<Clock::duration>(std::chrono::milliseconds(200), cost * 20);
}

// What checks said about `tool` ("" = the server): statuses kept, findings reported.
void Runner::take(Worker& w, const std::string& tool, checks::Outcomes o) {
  for (auto& f : sink_.take(tool, std::move(o))) add(w, std::move(f));
}

void Runner::note(Worker& w, std::string n) {
  l_.on_note(n);
  if (w.out) w.out->notes.push_back(std::move(n));
  else rep_.notes.push_back(std::move(n));
}

std::string Runner::replay_of(const json& request, const std::map<std::string, std::string>& env,
                              const json& sequence) const {
  return replay_command(target_, prelude_, negotiated_, request, env, sequence);
}

// The judge's answers for what it kept until the end (answers of tools whose profile was not
// known yet, findings no sweep settled), and the profile each tool was judged by.
void Runner::settle_judge(Worker& w) {
  if (!judge_) return;
  // H-SIZE and H-DECLARED are known only now, with every answer measured: their cases are made
  // minimal on fresh instances of a stdio server (an HTTP server's state cannot be started afresh).
  const bool minimal = o_.shrink && !o_.replay && !http() && !dead_;
  for (auto& [tool, o] : judge_->finish()) {
    for (Finding& f : o) {
      if (!minimal || rep_.interrupted != 0 || (f.invariant != "H-SIZE" && f.invariant != "H-DECLARED")) continue;
      try {
        minimal_size_case(w, f);
      } catch (const core::Interrupted& stop) {  // the finding stays as the run saw it
        rep_.interrupted = stop.signal;
      }
    }
    take(w, tool, std::move(o));
  }
  if (auto n = settle_rows(rep_, *judge_, forced_ != nullptr, !judging_.profiles.candidates.empty(), true))
    note(w, std::move(*n));
  for (const auto& tool : judge_->sampled()) note(w, checks::sampled_note(tool));
}

// Each tool's coverage from the judge, and a note for each tool whose calls reached no data.
void Runner::publish_reach(Worker& w) {
  if (!judge_) return;
  for (auto& n : publish_coverage(rep_, judge_->coverage(),
                                  o_.harvest ? "no generated, schema-suggested or harvested value reached anything it has"
                                             : "values from other tools' answers were not tried (--no-harvest)"))
    note(w, std::move(n));
}

// --- the run ------------------------------------------------------------------------------
void Runner::body(Worker& w) {
  auto s = start(w, o_.protocol, true);
  if (!s.ok()) {
    rep_.error = s.error();
    rep_.exit_code = code(ExitCode::kServer);
    return;
  }
  l_.on_started(rep_);
  snapshot(true);
  (void)look_for_changes("");  // what the server wrote as it started is its own, not a tool's

  enter_phase("listing the tools");
  auto listing = w.s.client->list_tools(list_bounds());
  if (refused(w)) return;  // HTTP 401/403 to tools/list: exit 3 with it
  if (auto n = listing_note(listing)) note(w, std::move(*n));
  for (const auto& page : listing.pages) record(w, page);
  take(w, "", checks::check_tools_list(listing, rep_.era));
  {
    // H-TOOLS: the tools listed against the hosts' caps on tools (and H-UNICODE marked checked).
    const checks::ConfigServers config{o_.config_path, o_.config_others};
    // A walk stopped early (a stuck or looping cursor, a repeated page, time or memory) counted
    // at least its tools, not all of them.
    take(w, "", checks::check_tool_count(judging_.hosts, listing.tool_count + listing.dropped, listing.complete(), &config));
  }
  for (const auto& page : listing.pages) {
    if (page.kind == Reply::Kind::kTimeout && !page.stray_seen && !page.oversize)
      add(w, checks::no_answer(page.request, "tools/list", o_.timeout));
    else if (page.kind == Reply::Kind::kClosed)
      crash_finding(w, page, "tools/list");
  }
  take_observations(w);
  if (listing.failed && listing.tool_count == 0) {
    note(w, "tools/list did not return a list of tools, so no tool was called");
    return;
  }
  list_others(w, listing);  // an invalid cursor, resources, templates, prompts (P-LIST); P-RELIST's baseline
  if (refused(w)) return;
  // The listing is kept once, in the judge: the pages' raw results are not needed past this
  // point (a listing of large schemas would otherwise be held three times for the whole run).
  std::vector<json> listed = listing.take_tools();
  listing = {};
  {
    checks::JudgeSetup js;
    js.forced = forced_;
    js.candidates = &judging_.profiles.candidates;
    js.tools = std::move(listed);
    js.root = o_.root;
    // The generic position rules read the workspace the server's paths are relative to.
    if (o_.root) js.workspace = o_.root;
    else if (!o_.cwd.empty()) js.workspace = o_.cwd;
    js.era = rep_.era;
    js.strict_error_output = o_.strict_error_output;
    js.hosts = judging_.hosts;
    // The name hosts prefix tool names with: the user's, else the server's own.
    if (!o_.config_name.empty()) js.server_name = checks::ServerName{o_.config_name, true};
    else if (!rep_.server_name.empty()) js.server_name = checks::ServerName{rep_.server_name, false};
    judge_ = std::make_unique<checks::Judge>(std::move(js));
  }
  ToolSelection sel = select_tools(judge_->tools(), o_);
  rep_.tools = std::move(sel.rows);
  for (const auto& ts : rep_.tools)
    if (ts.selected) take(w, ts.name, judge_->listing(ts.name));
  if (o_.replay && !o_.replay->tool.empty() && sel.selected.empty())
    note(w, "the case's tool '" + o_.replay->tool + "' is not in the server's tools/list any more");
  if (auto safety = safety_note(rep_.tools, o_.no_sandbox)) note(w, std::move(*safety));
  if (!o_.sandbox)
    if (auto writers = writers_note(rep_.tools)) note(w, std::move(*writers));
  l_.on_tools(rep_.tools);
  enter_phase("calling the tools");
  run_phases(w, sel.selected);
  if (budget_hit_) note(w, "--time-budget reached: some generated calls were not made");
  if (!shrinks_shared_.empty()) {
    std::size_t n = 0;
    std::string which;
    for (const auto& [tool, count] : shrinks_shared_) {
      n += count;
      which += (which.empty() ? "" : ", ") + tool;
    }
    note(w, std::to_string(n) + " finding(s) on other tools were not shrunk: the same invariant with the same diagnosis was "
         "shrunk once, on " + which + " (one root cause, one shrink)");
  }
  if (poison_again_ > 0)
    note(w, "the server was broken the same way " + std::to_string(poison_again_) + " more time(s) after its T-POISON case "
            "was confirmed: restarted each time");
  if (!shrinks_cut_.empty()) {
    std::string which;
    for (const auto& c : shrinks_cut_) which += (which.empty() ? "" : ", ") + c;
    note(w, std::to_string(shrinks_cut_.size()) + " shrink(s) stopped at --shrink-budget (" + which +
         "): their findings are the smallest reproduction found in time");
  }
}

// The tools' calls, phase by phase, then the limit sweep and hint following.
void Runner::run_phases(Worker& w, const std::vector<const json*>& chosen) {
  // Tools that need no identifier go first: their answers (lists, searches) are where the names,
  // paths and identifiers the other tools take are harvested from. Shards still split by sorted
  // name.
  std::vector<const json*> selected = chosen;
  std::stable_partition(selected.begin(), selected.end(), [](const json* t) { return !needs_identifier(*t); });
  // --time-budget counts from the start of the run: starting the server, listing and selecting
  // its tools are part of what a budget bounds.
  const auto t0 = run_t0_ = started_;
  // A state-carrying case (T-SHUTDOWN): the calls that were made on the failing instance, first,
  // in order, on this one. Their own answers are not the case.
  if (o_.replay && !o_.replay->sequence.empty()) {
    std::size_t troubles = 0;
    for (const auto& [tool, args] : o_.replay->sequence) {
      if (!w.s.alive || troubles > 0) break;
      (void)over_budget(t0);  // a signal stops the sequence too
      Called c = do_call(w, *summary_of(tool), args);
      troubles += c.troubles;
      if (c.lost) w.s.alive = false;
    }
  }
  if (o_.harvest && !o_.replay) seed_workspace(w);
  std::vector<std::unique_ptr<ToolRun>> runs;
  for (const json* tool : selected) {
    auto run = std::make_unique<ToolRun>();
    run->name = (*tool)["name"].get<std::string>();
    run->tool = tool;
    run->needs_identifier = needs_identifier(*tool);
    tool_ids_[run->name] = kIdsPerTool * static_cast<std::int64_t>(runs.size() + 1);
    runs.push_back(std::move(run));
  }
  // The phases. Each tool's calls are fed the values harvested by the phases before its own (and
  // by its own answers): first the tools that need no identifier (lists, searches: where names,
  // paths and identifiers come from), then the others. A phase's tools run in parallel with
  // --jobs N; what they give is merged in tool order when the phase ends, so any N gives the
  // same calls.
  std::vector<ToolRun*> first, second;
  for (auto& r : runs) (o_.harvest && r->needs_identifier ? second : first).push_back(r.get());
  std::size_t started = 0;
  for (auto* phase : {&first, &second})
    run_phase(w, *phase, [&](Worker& ww, ToolRun& tr) { tool_calls(ww, tr, t0, started, selected.size()); },
              [&](ToolRun& tr) { summary_of(tr.name)->skipped = "the server could not be restarted"; });
  // The second pass: tools whose calls reached no data (self-made data is none), again, with what every tool's answers
  // have put in the pools since their turn, the values that led to data and the hubs first. In
  // rounds, so a lookup two tools deep is fed by the one a round before it (round k uses what
  // rounds before k gave, for any --jobs), until a round brings no tool to data and no new value.
  if (o_.harvest && !o_.replay) {
    for (std::size_t round = 0; round < kSecondPassRounds && !dead_ && !over_budget(t0); ++round) {
      std::vector<ToolRun*> again;
      for (auto& r : runs)
        if (r->plan && r->troubles < 2 && r->slow < kMaxSlowCalls && !r->reached) again.push_back(r.get());
      if (again.empty()) break;
      const std::size_t pooled = harvest_.size();
      run_phase(w, again, [&](Worker& ww, ToolRun& tr) { second_pass(ww, tr, t0); }, [](ToolRun&) {});
      const bool reached = std::any_of(again.begin(), again.end(), [](const ToolRun* r) { return r->reached; });
      if (!reached && harvest_.size() == pooled) break;
    }
  }
  relist(w, "the tools' calls");  // P-RELIST: the listing the calls left
  // P-CONCURRENT: each tool's calls that reached data, in flight at once (after every tool's own
  // calls, so mixed batches have the others' calls; before the limit sweep, which restarts the
  // server under other environments).
  const bool batches = o_.replay ? !o_.replay->batch.empty() : invariant_wanted("P-CONCURRENT");
  if (o_.concurrency >= 2 && batches && !dead_) {
    std::vector<ToolRun*> parallel;
    for (auto& r : runs)
      if ((r->plan || o_.replay) && r->troubles < 2 && (o_.concurrency_all || annotated_parallel_safe(*r->tool))) {
        r->partner = !r->data_calls.empty() && r->troubles == 0 && r->slow == 0 && summary_of(r->name)->skipped.empty();
        parallel.push_back(r.get());
      }
    enter_phase("concurrent batches");
    own_calls_phase_ = false;  // mixed batches: what changes is no one tool's
    run_phase(w, parallel, [&](Worker& ww, ToolRun& tr) { concurrent(ww, tr, parallel, t0); }, [](ToolRun&) {});
    own_calls_phase_ = true;
    relist(w, "the concurrent batches");
  }
  // P-ANNOTATION's answer form: each annotated tool's effect on what read-only tools answer (after
  // the batches, so their restarts are behind it; before the limit sweep, which restarts the
  // server under other environments).
  if (invariant_wanted("P-ANNOTATION") && !dead_) {
    std::vector<ToolRun*> all, annotated;
    for (auto& r : runs) {
      all.push_back(r.get());
      if ((r->plan || o_.replay) && annotated_parallel_safe(*r->tool)) annotated.push_back(r.get());
    }
    enter_phase("annotations");
    own_calls_phase_ = false;  // the witnesses' calls too: what changes is no one tool's
    run_phase(w, annotated, [&](Worker& ww, ToolRun& tr) { annotations(ww, tr, all, t0); }, [](ToolRun&) {});
    own_calls_phase_ = true;
  }
  settle_annotations(w, runs);
  w.s.alive = w.s.alive && !dead_;
  rep_.harvested = harvest_.size();
  if (w.s.alive && !over_budget(t0) && envelope_wanted()) {
    enter_phase("the limit sweep");
    sweep(w);
    if (!over_budget(t0)) resume(w);
  } else if (!sweep_calls_.empty()) {
    note(w, "the limit sweep was skipped (time budget reached or the server died)");
  }
  std::vector<ToolRun*> all;
  for (auto& r : runs) all.push_back(r.get());
  enter_phase("settling and shrinking");
  settle_and_shrink(w, all, t0);
}

// The workspace (--root, else --cwd), scanned once: its paths, identifiers, positions and
// snippets are offered to every tool's calls by kind, next to the values harvested from answers.
void Runner::seed_workspace(Worker& w) {
  const std::string dir = o_.root ? *o_.root : o_.cwd;
  if (dir.empty()) return;
  auto ws = gen::scan_workspace(dir);
  if (!ws) {
    note(w, "workspace " + dir + " is not a readable directory: no value was taken from it");
    return;
  }
  WorkspaceSummary sum;
  sum.dir = ws->root;
  sum.files = ws->files.size();
  sum.directories = ws->dirs.size();
  sum.identifiers = ws->identifiers.size();
  sum.declared = ws->declared.size();
  sum.positions = ws->positions.size();
  sum.snippets = ws->snippets.size();
  sum.source = ws->source;
  rep_.workspace = sum;
  note(w, "workspace: " + ws->summary() + " in " + ws->root + ", offered to path, directory, module, name, query and line/column parameters");
  harvest_.set_workspace(std::make_shared<const gen::Workspace>(std::move(*ws)));
}

FileChanges Runner::look_for_changes(const std::string& tool) {
  if (!watch_) return {};
  FileChanges c = watch_->take();
  if (c.empty()) return c;
  if (tool.empty()) rep_.other_changes.add(c);
  else summary_of(tool)->changes.add(c);
  return c;
}

bool Runner::feeds_harvest(const json& tool) const { return o_.no_sandbox.empty() || gen::reading_tool(tool); }

void Runner::confirm_read_only(Worker& w, ToolRun& tr, const FileChanges& window) {
  if (!watch_ || !invariant_wanted("P-ANNOTATION") || tr.annotation_found || tr.annotation_tries >= 2) return;
  ++tr.annotation_tries;
  ToolSummary* ts = summary_of(tr.name);
  std::vector<const json*> candidates;
  for (const auto& d : tr.data_calls)
    if (candidates.size() < 3) candidates.push_back(&d.first);
  if (candidates.empty() && tr.first_args) candidates.push_back(&*tr.first_args);
  std::set<std::string> seen;
  for (const auto* l : {&window.created, &window.changed, &window.deleted}) seen.insert(l->begin(), l->end());
  for (const json* args : candidates) {
    if (!w.s.alive) break;
    (void)look_for_changes("");  // what was changed before this call is not its doing
    Called c = do_call(w, *ts, *args);
    if (c.lost) w.s.alive = false;
    const FileChanges mine = watch_->take();
    ts->changes.add(mine);
    bool same = false;
    for (const auto* l : {&mine.created, &mine.changed, &mine.deleted})
      for (const auto& p : *l) same = same || seen.count(p) > 0;
    if (!same) continue;
    Finding f;
    f.invariant = "P-ANNOTATION";
    f.tool = tr.name;
    f.severity = Severity::kError;
    f.request = c.reply.request;
    f.diagnosis = "tool " + tr.name + " is annotated readOnlyHint: true, but this call " + mine.describe() +
                  " in the project" + (o_.sandbox ? " (in the sandbox's copy)" : "") +
                  ": hosts run read-only tools without asking (VS Code), admit only them in plan mode (Claude "
                  "Code) and skip their permission prompts";
    f.cause = {{"annotation", "readOnlyHint"}, {"effect", "files"}};
    checks::Outcomes o;
    o.fail(std::move(f));
    take(w, tr.name, std::move(o));
    tr.annotation_found = true;
    return;
  }
  note(w, "tool " + tr.name + " is annotated readOnlyHint: true and files changed while its calls ran (" +
              window.describe(3) + "), but not when it was called again alone: not reported (P-ANNOTATION)");
}

void Runner::settle_annotations(Worker& w, const std::vector<std::unique_ptr<ToolRun>>& runs) {
  if (!invariant_wanted("P-ANNOTATION")) return;
  for (const auto& r : runs) {
    const ToolSummary* ts = summary_of(r->name);
    if (!ts->read_only || ts->calls == 0 || r->annotation_found) continue;
    checks::Outcomes o;
    if (!watch_) o.unobserved("P-ANNOTATION", "no project was watched (give --root or --cwd, or run in the sandbox)");
    else if (r->annotation_tries > 0)
      o.unobserved("P-ANNOTATION", "files changed while its calls ran, but not when it was called again alone");
    else o.pass("P-ANNOTATION");
    take(w, r->name, std::move(o));
  }
}

bool Runner::over_budget(Clock::time_point t0) {
  core::stop_if_interrupted();  // every loop of the run asks here: a signal ends it (see run())
  if (o_.time_budget_s && std::chrono::duration<double>(Clock::now() - t0).count() > *o_.time_budget_s) {
    budget_hit_ = true;
    return true;
  }
  return over_memory();
}

bool Runner::over_memory() {
  if (!memory_.over()) return false;
  std::lock_guard<std::mutex> hold(memory_mutex_);
  if (memory_phase_.empty()) memory_phase_ = rep_.phase.empty() ? "the run" : rep_.phase;
  return true;
}

mcp::Client::ListBounds Runner::list_bounds() {
  mcp::Client::ListBounds b;
  if (o_.time_budget_s)
    b.deadline = started_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*o_.time_budget_s));
  b.out_of_memory = [this] { return over_memory(); };  // the deadline is the walk's own bound
  return b;
}

std::optional<std::string> Runner::listing_note(const mcp::Client::ToolsListing& l) const {
  const std::string where = std::to_string(l.pages.size()) + " page" + (l.pages.size() == 1 ? "" : "s");
  std::string n;
  if (l.out_of_time) n = "--time-budget ran out while tools/list was still paging (" + where + ")";
  else if (l.out_of_memory) n = "--memory-budget was reached while tools/list was still paging (" + where + ")";
  if (l.dropped > 0)
    n += (n.empty() ? "" : "; ") + std::string("tools/list listed more than ") + std::to_string(l.tool_count) +
         " tools: the first " + std::to_string(l.tool_count) + " are tested, the " + std::to_string(l.dropped) +
         " after them were not kept";
  else if (!n.empty())
    n += ": the " + std::to_string(l.tool_count) + " tools listed by then are tested";
  if (n.empty()) return std::nullopt;
  return n;
}

void Runner::enter_phase(const char* phase) {
  rep_.phase = phase;
  snapshot(true);
}

// --tool-budget: true once `ts`'s calls have taken the tool's time; its remaining generated
// calls are not made (said once, in its skip reason and a note).
bool Runner::tool_over_budget(Worker& w, ToolSummary& ts) {
  if (o_.tool_budget.count() <= 0 || ts.elapsed <= o_.tool_budget) return false;
  if (ts.skipped.empty()) {
    char secs_text[32];
    std::snprintf(secs_text, sizeof secs_text, "%g", static_cast<double>(o_.tool_budget.count()) / 1000.0);
    const std::string secs = secs_text;
    ts.skipped = "its calls took their --tool-budget of " + secs + " s";
    note(w, "tool " + ts.name + ": its " + std::to_string(ts.calls) + " calls took " +
            std::to_string(ts.elapsed.count() / 1000) + " s, past --tool-budget " + secs +
            " s: its remaining generated calls were not made (raise --tool-budget, or 0 for no limit)");
  }
  return true;
}

// The limit sweep and hint following only judge envelopes: not needed when only transport and
// protocol invariants are selected (e.g. a replayed T-CRASH case).
bool Runner::envelope_wanted() const {
  for (const auto& inv : checks::registry())
    if (inv.family != "transport" && inv.family != "protocol" && inv.family != "host" && invariant_wanted(inv.id))
      return true;
  return false;
}

// The row of tool `name` (appended when it has none): a lookup per call, so not a scan of a
// listing of 50,000 tools.
ToolSummary* Runner::summary_of(const std::string& name) {
  auto indexed = [&]() -> ToolSummary* {
    auto it = row_index_.find(name);
    if (it != row_index_.end() && it->second < rep_.tools.size() && rep_.tools[it->second].name == name)
      return &rep_.tools[it->second];
    return nullptr;
  };
  if (ToolSummary* row = indexed()) return row;
  // The rows were set or grown since the index was made: index them all (first row of a name).
  row_index_.clear();
  for (std::size_t i = 0; i < rep_.tools.size(); ++i) row_index_.emplace(rep_.tools[i].name, i);
  if (ToolSummary* row = indexed()) return row;
  ToolSummary& row = row_of(rep_, name);
  row_index_[name] = static_cast<std::size_t>(&row - rep_.tools.data());
  return &row;
}

// An answered exchange, into the --record transcript.
void Runner::record(Worker& w, const Reply& reply) {
  if (!recorder_ || (reply.kind != Reply::Kind::kResult && reply.kind != Reply::Kind::kError) ||
      !reply.transport_failure.empty())
    return;
  json response = {{"jsonrpc", "2.0"}, {"id", reply.request.value("id", json())}};
  if (reply.kind == Reply::Kind::kResult) response["result"] = reply.result;
  else response["error"] = reply.error;
  recorder_->record(reply.request, response, w.s.env);
}

}  // namespace detail

RunReport run(const RunOptions& options, Listener& listener) { return detail::Runner(options, listener).run(); }

}  // namespace ctxo::engine
