// SPDX-License-Identifier: MIT
// Inside the run loop (not installed, not included outside harness/engine): the Runner, its
// sessions and its workers' context. The run is split by concern, one file each:
//   engine.cpp     the outline of a run (options in, report out) and the tools' phases
//   session.cpp    a server instance: start, handshake, end, restart, crash
//   workers.cpp    --jobs: the workers, a phase's tools shared among them, their outputs merged
//   calls.cpp      one tool's calls: the plan, driven budgets, E-STABLE, E-MISS, a call's outcome
//   shrink.cpp     shrinking a failing call
//   sweep.cpp      the limit sweep and following truncation hints (TR-RESUME)
//   poison_run.cpp T-POISON: a server every tool of which fails the same way after one call
//   annotations.cpp P-ANNOTATION's answer form: annotated tools held to what read-only tools answer
//   lists.cpp      the lists besides tools/list, an invalid cursor, tools/list asked again (P-LIST, P-RELIST)
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "checks/concurrent.h"
#include "core/memory.h"
#include "checks/generic.h"
#include "checks/judge.h"
#include "checks/lists.h"
#include "engine/changes.h"
#include "engine/engine.h"
#include "engine/poison.h"
#include "engine/profiles.h"
#include "engine/replay_command.h"
#include "engine/self_made.h"
#include "engine/sink.h"
#include "engine/transcript.h"
#include "gen/plan.h"
#include "mcp/client.h"
#include "transport/sandbox.h"
#include "transport/transport.h"

namespace ctxo::engine::detail {

using Clock = std::chrono::steady_clock;
using mcp::Reply;

/// One server process and the MCP session on it. The run has one (the main session); --jobs N
/// gives each of the N workers its own.
struct Session {
  std::unique_ptr<transport::Transport> transport;
  std::unique_ptr<mcp::Client> client;
  std::map<std::string, std::string> env;          ///< Environment of the current (or next) server process.
  std::map<std::string, std::string> started_env;  ///< Environment the running server got.
  /// tools/call requests made on the running server instance (a T-SHUTDOWN case replays them).
  std::vector<json> calls;
  bool wrote = false;  ///< A tool not annotated read-only was called on this instance.
  bool alive = true;   ///< False once the server could not be (re)started.
  bool main = true;    ///< The run's first session: it probes (HTTP) and starts the --url command.
  /// Its sandbox slot (transport::Sandbox::prefix(slot)): every server this session starts,
  /// restarts included, has the same /tmp, and no other session's. 0: the first session's.
  std::size_t tmp_slot = 0;
  /// Strings the run made up and gave this server's tools that write (self-made data). Kept across
  /// restarts: a server's store may outlive its process.
  MadeUp made;
  /// T-POISON's watch over the answered calls (engine/poison.h); fresh_instance() at each start.
  PoisonWatch poison;
};

/// A finding held for shrinking when its phase ends.
struct PendingShrink {
  rc::Shrinkable<json> arguments;
  std::size_t finding;  ///< Index in ToolOut::findings of the finding to shrink.
  std::string broken;
};

/// A success answer of a profile with a limit variable: replayed by the limit sweep.
struct SweepCall {
  const json* tool;
  json args;
  const profile::Profile* profile;
  checks::ParsedEnvelope main;
  std::size_t answer;  ///< The judge's id of the main answer (its held findings).
};

/// What one piece of parallel work (a tool's work in a phase, a limit's server run) gives the
/// run. Kept apart while the work runs and merged in a fixed order when the phase ends, so the
/// report, the notes and the values later tools are fed do not depend on which worker finished
/// first (as libFuzzer's fork mode merges each job's outputs).
struct ToolOut {
  std::vector<Finding> findings;
  std::vector<std::string> notes;
  std::vector<PendingShrink> shrinks;
  std::vector<SweepCall> sweep_calls;
  gen::Harvest harvest;  ///< The phase's harvest at its start, plus what this work's answers gave.
  /// In a phase of several tools, the judge's shard this work judges into, without the workers'
  /// lock (checks::Judge::fork); absorbed with the rest when the phase ends. Null: the run's judge.
  std::unique_ptr<checks::Judge> judge;
};

/// A worker's context, passed to everything that talks to a server: the session it talks to,
/// and the work under way on it.
struct Worker {
  explicit Worker(Session& session) : s(session) {}
  Session& s;
  std::vector<Finding>* capture = nullptr;  ///< Where findings go during an attempt (Runner::add).
  bool shrinking = false;
  bool probing = false;    ///< Making asked_to_wait's quick call (no probe of the probe).
  ToolOut* out = nullptr;  ///< The work this is for (nullptr: report directly).
  std::unique_lock<std::mutex>* lock = nullptr;  ///< The hold on the workers' lock (nullptr: no workers).
};

/// The work under way on `w` gives `out` until the scope ends, however it ends.
struct WorkingFor {
  Worker& w;
  WorkingFor(Worker& worker, ToolOut& out) : w(worker) { w.out = &out; }
  ~WorkingFor() { w.out = nullptr; }
  WorkingFor(const WorkingFor&) = delete;
  WorkingFor& operator=(const WorkingFor&) = delete;
};

/// Lets the other workers run while this one waits on its server (--jobs): every use of the
/// run's shared state is made holding the workers' lock (for_each_worker), and only waiting on a
/// server is done without it.
struct Unlocked {
  std::unique_lock<std::mutex>* lock;
  explicit Unlocked(const Worker& w) : lock(w.lock && w.lock->owns_lock() ? w.lock : nullptr) {
    if (lock) lock->unlock();
  }
  ~Unlocked() {
    if (lock) lock->lock();
  }
  Unlocked(const Unlocked&) = delete;
  Unlocked& operator=(const Unlocked&) = delete;
};

/// What one tools/call came to: its reply, whether it was trouble (a hang or a crash, after
/// which the server was restarted), and whether the server is lost (it could not be restarted).
struct Called {
  Reply reply;
  std::size_t troubles = 0;
  bool lost = false;
};

/// One tool's calls across the run's passes.
struct ToolRun {
  std::string name;
  const json* tool = nullptr;
  const checks::ToolValidators* validators = nullptr;
  std::optional<gen::ToolPlan> plan;
  std::size_t troubles = 0;
  std::size_t slow = 0;           ///< Calls answered (or still working) after --timeout.
  std::set<std::string> shrunk;   ///< Invariants already shrunk on this tool.
  bool repeated = false;          ///< E-STABLE made on this tool.
  std::optional<std::pair<json, checks::ParsedEnvelope>> stable_fallback;  ///< A hintless candidate.
  /// Calls that reached data (args, label), at most kDataCallsKept, first seen first; drive()
  /// repeats the kDrivenSources with the largest answers (`data_sizes`, bytes of the answer line).
  std::vector<std::pair<json, std::string>> data_calls;
  /// A call reached the server's own data (data_calls may hold only self-made data: the tool still
  /// gets the second pass).
  bool reached = false;
  std::vector<std::size_t> data_sizes;
  /// The calls that reached data with an answer no envelope profile read, and what each said
  /// about its list (the generic reading), at most checks::kListedKept: TR-COUNT's silent omission, TR-RESUME.
  std::vector<checks::ListedCall> listed;
  std::set<std::string> omissions_reported;  ///< Their groups already reported.
  std::set<std::string> resumes_reported;    ///< TR-RESUME groups already reported.
  std::set<std::string> caps_reported;       ///< Generic TR-PREFIX / TR-MAXIMAL forms already reported.
  std::size_t driven_from = 0;    ///< data_calls already repeated with a budget parameter driven small.
  bool several_asked = false;     ///< The call naming several items (ToolPlan::several) made.
  bool needs_identifier = false;  ///< A required property names an identifier: it runs in the second phase.
  /// Its first call that reached data joins other tools' P-CONCURRENT batches: it has one, and
  /// its own calls were not stopped (budget, slowness, crashes) when the phase began.
  bool partner = false;
  std::optional<json> first_args;  ///< Its first call's arguments (P-ANNOTATION confirms with it).
  std::size_t annotation_tries = 0;  ///< Windows of its calls in which P-ANNOTATION was confirmed or not.
  bool annotation_found = false;     ///< P-ANNOTATION reported on it.
  /// Its first valid calls answered without an error (distinct arguments, at most kGoodCallsKept):
  /// P-ANNOTATION's answer form calls one again, as the tool under test or as a witness.
  std::vector<json> good_calls;
  ToolOut out;                    ///< What its work in the current phase gave, merged when the phase ends.
};

/// A generated call and every per-call check on its answer; the findings are returned, not
/// reported (the caller decides: shrinking).
struct Attempt {
  Called called;
  checks::ParsedEnvelope envelope;
  std::vector<Finding> findings;
  checks::Reach reach = checks::Reach::kNoAnswer;  ///< What the answer reached (the judge's reading).
  bool sampled = false;  ///< The judge checked it on a sample (checks/sample.h): not compared across calls.
  bool self_made = false;  ///< Its data is what the run itself wrote (checks::Exchange::self_made).
  /// A main call's answer no profile read, as TR-COUNT and TR-RESUME compare it across calls,
  /// made from the judge's reading (Judged::read) while its reply is where the judge read it.
  std::optional<checks::ListedCall> listed;
};

/// A fresh instance of the (stdio) server a probe started (T-SHUTDOWN, H-SIZE's minimal case),
/// initialized and sent the calls the probe asked for. Nothing it does is judged.
struct Probe {
  /// Its /tmp in the sandbox, fresh and its own, released after the server (declared first).
  transport::SandboxSlot tmp;
  std::unique_ptr<transport::Transport> transport;
  std::unique_ptr<mcp::Client> client;  ///< On `transport` (destroyed first).
};

/// How Runner::fewest_calls tries and cuts: `holds` says which of several candidate call
/// sequences (best first) still reproduce the case (1 where one does); it may stop at the first
/// that does, or when it has spent its tries or time (those it did not try: 0). T-SHUTDOWN's tries
/// them all, kProbesAtOnce at a time; H-SIZE's one at a time, stopping at the first that holds.
struct FewestCalls {
  std::function<std::vector<char>(const std::vector<std::vector<json>>&)> holds;
  std::size_t parts = 2;     ///< A sequence is cut in this many parts (2: halves).
  std::size_t singles = 0;   ///< Tools that write whose first call is tried alone first, at most.
  bool writes_first = true;  ///< The calls to tools that write tried before the parts (else after).
  Clock::time_point deadline;  ///< No round is started after it (the first two excepted).
};

/// What shrinking a call came to: the smallest failing value found, and the smaller values that
/// still failed on the way to it.
struct Shrunk {
  rc::Shrinkable<json> value;
  std::size_t steps = 0;
  bool out_of_time = false;  ///< Stopped by --shrink-budget.
};

/// How a server instance ends. T-SHUTDOWN applies to an idle server: at the normal end of the
/// run and when it is replaced (the limit sweep's restarts with another environment), not to one
/// that crashed, hung in a call, or is stopped by a signal.
enum class End { kFinal, kReplaced, kAbandoned };

/// The arguments of a call that asked the tool to wait (a positive number under a name such as
/// duration, delay, sleep, wait, timeout, seconds, ms), with that number at the smallest the
/// tool's inputSchema allows (0, else 1). nullopt when the call asked no such thing.
struct AskedToWait {
  std::string property, what;
  json args;
};
std::optional<AskedToWait> asked_to_wait(checks::Judge* judge, const std::string& tool, const json& args);

/// A finding one call decides, so a smaller call can reproduce it (not a wire-level observation,
/// nor a late answer).
bool shrinkable(const Finding& f);

class Runner {
 public:
  Runner(const RunOptions& o, Listener& l);
  RunReport run();

 private:
  // --- engine.cpp: the outline, findings, notes ------------------------------------------
  void body(Worker& w);
  void add(Worker& w, Finding f);
  void take(Worker& w, const std::string& tool, checks::Outcomes o);
  void note(Worker& w, std::string n);
  void settle_judge(Worker& w);
  void publish_reach(Worker& w);
  std::string replay_of(const json& request, const std::map<std::string, std::string>& env,
                        const json& sequence = json()) const;
  bool http() const { return !o_.url.empty(); }
  gen::Harvest& harvest(Worker& w) { return w.out ? w.out->harvest : harvest_; }
  /// The judge `w`'s work judges with: its shard (--jobs), else the run's.
  checks::Judge& judge(Worker& w) { return w.out && w.out->judge ? *w.out->judge : *judge_; }
  /// judge(w).call(x); on a shard, without holding the workers' lock (nothing it reads changes
  /// while a phase runs, and nothing it writes is another worker's).
  checks::Judged judged(Worker& w, const checks::Exchange& x);
  /// True past --time-budget (counted from `t0`) or --memory-budget; throws core::Interrupted
  /// once a signal asked the run to stop. Every loop of the run asks here.
  bool over_budget(Clock::time_point t0);
  /// True past --memory-budget; the first time, records the phase it was reached in.
  bool over_memory();
  /// The bounds of the tools/list walk: --time-budget's end and --memory-budget.
  mcp::Client::ListBounds list_bounds();
  /// What the run says of a listing it cut (tools not kept, time or memory ran out), if anything.
  std::optional<std::string> listing_note(const mcp::Client::ToolsListing& listing) const;

  // --- lists.cpp: P-LIST beyond tools/list, P-RELIST --------------------------------------------
  /// After tools/list (`tools`, its walk): an invalid cursor sent to it when it paginated, then
  /// resources/list, resources/templates/list and prompts/list, each when the handshake declared
  /// its capability, walked, checked and probed the same way. Keeps `tools` as P-RELIST's baseline.
  void list_others(Worker& w, const mcp::Client::Listing& tools);
  /// P-RELIST: tools/list asked again on the main session after `after_what`, compared with the
  /// listing before it on the same server instance; the new listing becomes the baseline.
  void relist(Worker& w, const std::string& after_what);
  /// A list request that got no answer (T-HANG) or lost the server (T-CRASH): reported, the server
  /// started again. True when it was such a request.
  bool list_trouble(Worker& w, const Reply& page);
  /// tools/list as last seen on one server instance (P-RELIST's baseline).
  struct Listed {
    bool valid = false;  ///< The walk reached its end: a listing to compare with.
    std::vector<checks::ToolPrint> tools;
    std::uint64_t client = 0;  ///< The Client (server instance) it was made on.
    /// Every session's notifications/tools/list_changed count then, by Client serial.
    std::map<std::uint64_t, std::size_t> notices;
  };
  Listed listed_;
  Listed listed_now(Worker& w, const mcp::Client::Listing& listing) const;
  /// The phase under way, for an interrupted report (RunReport::phase); published at once.
  void enter_phase(const char* phase);
  bool tool_over_budget(Worker& w, ToolSummary& ts);
  bool invariant_wanted(std::string_view id) const { return o_.selection.enabled(id); }
  bool envelope_wanted() const;
  void record(Worker& w, const Reply& reply);
  ToolSummary* summary_of(const std::string& name);
  void run_phases(Worker& w, const std::vector<const json*>& selected);
  void seed_workspace(Worker& w);
  void snapshot(bool force);
  /// The project's changes since the last look, added to `tool`'s row ("" = to the run's other
  /// changes); none without a watch.
  FileChanges look_for_changes(const std::string& tool);
  /// P-ANNOTATION: a tool annotated readOnlyHint: true whose own calls just changed `window` is
  /// called again alone (its calls that reached data, else its first call, at most 3), at once,
  /// before other tools change the project; a call that changes one of the same files is the
  /// finding. Else a note, and the outcome not observed.
  void confirm_read_only(Worker& w, ToolRun& tr, const FileChanges& window);
  /// P-ANNOTATION's outcome on the read-only tools that were not found changing files.
  void settle_annotations(Worker& w, const std::vector<std::unique_ptr<ToolRun>>& runs);
  /// Whether `tool` may be fed harvested and workspace values (always in a sandbox; outside
  /// one only a tool that reads).
  bool feeds_harvest(const json& tool) const;

  // --- session.cpp ---------------------------------------------------------------------------
  transport::SpawnOptions spawn_options(const std::map<std::string, std::string>& env, std::size_t tmp_slot) const;
  Result<void> start(Worker& w, const std::string& forced, bool first);
  void finish_session(Worker& w, End end);
  /// `counted`: the restart counts toward --max-restarts (T-POISON's restarts are bounded apart).
  bool restart(Worker& w, bool counted = true);
  /// A fresh instance under `env`, initialized and sent `calls` (each awaited at most
  /// kProbeTimeout); nullopt when it could not be started or `deadline` came first.
  std::optional<Probe> probe(Worker& w, const std::map<std::string, std::string>& env, const std::vector<json>& calls,
                             Clock::time_point deadline);
  std::optional<Probe> probe_unlocked(const std::map<std::string, std::string>& env, const std::vector<json>& calls,
                                      Clock::time_point deadline) const;
  std::optional<bool> stays_up(const std::map<std::string, std::string>& env, const std::vector<json>& calls,
                               Clock::time_point deadline) const;
  /// The fewest of `calls` after which the case still holds (T-SHUTDOWN's and H-SIZE's, each
  /// try a fresh instance: `how`); nullopt when `calls` themselves no longer do.
  std::optional<std::vector<json>> fewest_calls(const std::vector<json>& calls, const FewestCalls& how);
  std::optional<std::vector<json>> shutdown_calls(Worker& w, const std::map<std::string, std::string>& env,
                                                  const std::vector<json>& calls);
  /// `batch`: the requests in flight together when they were made (a T-ID carries it).
  void take_observations(Worker& w, const json& batch = json());
  /// T-LEFTOVER: the processes carrying this run's marker still alive once every server is
  /// stopped (ended with --kill-leftovers).
  void leftovers(Worker& w);
  /// True when the worker's server refused us as a client after initialize (HTTP 401/403): the
  /// run's error is set (exit 3) and no more calls are made.
  bool refused(Worker& w);
  /// `batch`: the requests in flight with it (none: null), carried by the finding.
  void crash_finding(Worker& w, const Reply& reply, const std::string& what, const json& batch = json());

  // --- workers.cpp -----------------------------------------------------------------------------
  void run_phase(Worker& w, const std::vector<ToolRun*>& phase, const std::function<void(Worker&, ToolRun&)>& work,
                 const std::function<void(ToolRun&)>& skip);
  void merge_phase(const std::vector<ToolRun*>& phase);
  void merge_out(ToolOut& from);
  void for_each_worker(Worker& w, std::size_t n, const std::function<void(Worker&, std::size_t)>& task,
                       bool start_sessions = true);
  void finish_workers(End end);

  // --- calls.cpp ----------------------------------------------------------------------------------
  void tool_calls(Worker& w, ToolRun& tr, Clock::time_point t0, std::size_t& started, std::size_t total);
  void miss(Worker& w, ToolRun& tr, ToolSummary& ts, const json& input_schema, Clock::time_point t0);
  void second_pass(Worker& w, ToolRun& tr, Clock::time_point t0);
  void make_call(Worker& w, ToolRun& tr, ToolSummary& ts, gen::PlannedCall pc, Clock::time_point t0);
  void drive(Worker& w, ToolRun& tr, ToolSummary& ts, Clock::time_point t0);
  std::size_t repeat(Worker& w, ToolSummary& ts, const json& args, const std::string& broken,
                     const checks::ParsedEnvelope& first);
  checks::Exchange exchange(Worker& w, const std::string& tool, const json& args, const Reply& reply,
                            const std::string& broken, const profile::Profile* prof, bool hold) const;
  /// `other`: a call of another tool made for `ts`'s work (a partner in its P-CONCURRENT
  /// batches): its time counts in `ts`'s budget, its ids come from `ts`'s range.
  /// `id_range`: the key of tool_ids_ its id comes from, when not `ts`'s (T-POISON's witnesses).
  Called do_call(Worker& w, ToolSummary& ts, const json& args, const std::string* other = nullptr,
                 const std::string* id_range = nullptr);
  /// `args` with an optional argument the server would fill with a remote URL pointed at
  /// loopback (in `storage`), or `args` itself.
  const json& pinned_arguments(Worker& w, const std::string& tool, const json& args, json& storage);
  Attempt attempt(Worker& w, ToolSummary& ts, const ToolRun& tr, const json& args, const std::string& broken, bool main);

  // --- poison_run.cpp: T-POISON ------------------------------------------------------------------
  /// After a planned call of `tr` (`valid`: generated valid): T-POISON's watch sees it (its request
  /// is moved out of `a`). A suspicion is checked with witnesses on the same server, then confirmed
  /// on fresh instances (stdio) and reported, and the server restarted.
  void watch_poison(Worker& w, ToolRun& tr, ToolSummary& ts, Attempt& a, bool valid);
  /// The suspicion the session's watch raised, checked: up to two witnesses (tools that answered
  /// normally before) sent again must fail the same way.
  void check_poison(Worker& w, ToolRun& tr, ToolSummary& ts);
  /// The checked case on fresh instances: `probe_call` (a witness's request) alone must not fail
  /// the same way, and after the suspect call it must; the suspect then shrunk, reported, the
  /// streak's own findings withdrawn, and the server restarted.
  void confirm_poison(Worker& w, ToolRun& tr, const json& probe_call, const std::vector<std::string>& failing,
                      const std::string& said);
  /// A restart after a poisoning (not counted toward --max-restarts; at most kMaxPoisonRestarts).
  bool poison_restart(Worker& w);
  /// Any call's answer (do_call) failing the way a confirmed case left the server: the server was
  /// broken again (by the same call, or one like it, a shrink's candidate included): restarted at
  /// once, so the next call (the next candidate) meets a fresh server. `c.lost` when it could not be.
  void poisoned_again(Worker& w, Called& c);

  // --- concurrent.cpp -------------------------------------------------------------------------
  /// P-CONCURRENT's phase for one tool: its calls that reached data, alone (twice: stable), then
  /// in batches with themselves and with `tools`' calls, as hosts send them.
  void concurrent(Worker& w, ToolRun& tr, const std::vector<ToolRun*>& tools, Clock::time_point t0);
  /// What the calls answer alone, each twice; those that answered the same both times.
  std::vector<checks::BatchAnswer> alone(Worker& w, ToolSummary& ts, const std::vector<std::pair<std::string, json>>& calls,
                                         Clock::time_point t0, bool& trouble);
  /// Sends `calls` together; liveness (T-HANG, T-CRASH with the batch) handled, the server restarted.
  /// Fills each answer's `together` and `request`; false on trouble (no comparison then).
  bool together(Worker& w, ToolSummary& ts, std::vector<checks::BatchAnswer>& calls, json& batch);
  json form_of(Worker& w, const std::string& tool, const json& args, const Reply& reply);
  /// One call asked alone (`alone`'s, and again after a batch in which it answered otherwise):
  /// its request and its answer's stable form, or nullopt when the budget is spent, the call failed
  /// in its transport, or the server was lost or troubled (then `trouble` is set: no batch follows).
  std::optional<checks::BatchAnswer> asked_alone(Worker& w, ToolSummary& ts, const std::string& tool, const json& args,
                                                 Clock::time_point t0, bool& trouble);

  // --- annotations.cpp: P-ANNOTATION's answer form ---------------------------------------------
  /// A tool annotated readOnlyHint or idempotentHint: one of its good calls made again (twice for
  /// idempotentHint) between calls of `tools`' read-only tools that answer the same twice in a
  /// row (witnesses), whose answers must not change; a change confirmed by the sequence once more.
  void annotations(Worker& w, ToolRun& tr, const std::vector<ToolRun*>& tools, Clock::time_point t0);

  // --- shrink.cpp -----------------------------------------------------------------------------
  Finding shrink(Worker& w, ToolSummary& ts, const ToolRun& tr, rc::Shrinkable<json> current, Finding found,
                 const std::string& broken, Clock::time_point t0);
  /// One root cause, one shrink: false when `f`'s cause (its finding_key without the tool) was
  /// already shrunk on another tool (counted for the run's note), else true (and remembered).
  bool first_shrink_of_cause(const Finding& f, const std::string& tool);
  /// The judge's settle(): the answers it kept until their tool's profile was known are judged,
  /// and what that finds is shrunk now, while the server still runs (as the phases shrink
  /// theirs), then reported.
  void settle_and_shrink(Worker& w, const std::vector<ToolRun*>& runs, Clock::time_point t0);
  /// The smallest of `current`'s shrinks that `fails` (true: still fails; nullopt: stop), among
  /// those `admit` lets through; within --shrink-budget and --max-shrink-calls tries.
  /// `smallest_first`: candidates by size (a hang's each try costs a timeout), else by size bands in turn.
  Shrunk smallest(rc::Shrinkable<json> current, const std::function<bool(const json&)>& admit,
                  const std::function<std::optional<bool>(const json&)>& fails, bool smallest_first);
  /// H-SIZE or H-DECLARED `f`'s case made minimal on fresh instances (stdio): the smallest call
  /// of its tool whose answer still crosses the same host limit (or declared ceiling), after the
  /// fewest earlier calls it needs.
  void minimal_size_case(Worker& w, Finding& f);

  // --- sweep.cpp ------------------------------------------------------------------------------
  void sweep(Worker& w);
  void resume(Worker& w);
  std::map<std::string, std::string> env_for(const std::string& var, const checks::SweepPoint& pt) const;

  const RunOptions& o_;
  Listener& l_;
  RunReport rep_;
  FindingSink sink_;
  ReplayTarget target_;              ///< The server a replay line reaches.
  std::vector<std::string> prelude_;
  std::string negotiated_;
  /// transport::kRunMarkerVar's value in every server this run spawns (T-LEFTOVER).
  std::string marker_;
  bool budget_hit_ = false;
  core::MemoryBudget memory_;        ///< --memory-budget.
  std::string memory_phase_;         ///< The phase the memory budget was reached in ("" = not reached).
  std::mutex memory_mutex_;          ///< Guards memory_phase_ (workers ask over_budget at once).
  std::size_t jobs_ = 1;             ///< --jobs, resolved.
  std::vector<std::unique_ptr<Session>> sessions_;  ///< [0]: the run's; then the --jobs workers'.
  bool dead_ = false;                ///< A server could not be (re)started: no more tools are started.
  Clock::time_point run_t0_;         ///< When the tools' calls began (--time-budget).
  std::set<std::string> printed_;    ///< Root causes (finding_key) already shown to the listener.
  /// Tool -> the id its next tools/call gets: each tool has its own range, so its requests (and
  /// the reports quoting them) do not depend on which session made them, nor after which calls.
  std::map<std::string, std::int64_t> tool_ids_;
  static constexpr std::int64_t kIdsPerTool = 1000000;
  /// The tool_ids_ key of T-POISON's witness calls: a range of their own, so a witness call moves
  /// no tool's ids (the same calls whatever --jobs).
  const std::string witness_ids_ = "\x1eT-POISON witnesses";
  std::map<std::string, std::string> shrunk_causes_;    ///< Cause (finding_key without the tool) -> tool shrunk on.
  std::map<std::string, std::size_t> shrinks_shared_;   ///< Tool shrunk on -> findings elsewhere not shrunk for it.
  Judging judging_;                          ///< --profile and --host, loaded.
  const profile::Profile* forced_ = nullptr; ///< --profile NAME|FILE (in judging_).
  /// Input schemas naming a host other than loopback, for pinning remote URL defaults (none with
  /// --allow-remote-urls).
  std::map<std::string, json> input_schemas_;
  std::set<std::string> pinned_noted_;       ///< Tools whose pinned defaults were noted.
  std::unique_ptr<checks::Judge> judge_;     ///< Made once tools/list is known.
  static constexpr std::size_t kSecondPassCalls = 8;  ///< Per tool that reached no data, per round.
  static constexpr std::size_t kSecondPassRounds = 3; ///< Rounds of the second pass at most.
  /// A tool's calls stop after this many answered (or still working) after --timeout: each can
  /// cost a minute (a tool that does the long work an argument asks for), and more say nothing new.
  static constexpr std::size_t kMaxSlowCalls = 4;
  static constexpr std::size_t kDrivenSources = 3;    ///< Calls that reached data, driven per tool.
  static constexpr std::size_t kDataCallsKept = 16;   ///< Calls that reached data kept to choose from.
  static constexpr std::size_t kGoodCallsKept = 4;    ///< ToolRun::good_calls kept.
  static constexpr std::size_t kMaxSweepCalls = 200;
  static constexpr std::size_t kMaxSweepCallsPerTool = 16;  ///< The first successes of each tool.
  std::map<std::string, std::size_t> sweep_per_tool_;
  std::vector<SweepCall> sweep_calls_;
  std::map<std::size_t, json> full_arrays_;  ///< sweep call -> its complete array (largest limit)
  struct ResumeStart {
    std::map<std::string, std::string> env;  ///< The environment the first page was cut under.
    checks::ParsedEnvelope first_page;
  };
  std::map<std::size_t, ResumeStart> resume_starts_;
  static constexpr std::size_t kMaxResumeChains = 8;
  static constexpr std::size_t kMaxResumePages = 50;
  std::optional<Recorder> recorder_;
  std::unique_ptr<ChangeWatch> watch_;  ///< The project as the server sees it (null: not watched).
  /// The phase under way calls only each tool's own calls (not P-CONCURRENT's mixed batches): the
  /// changes seen after a tool's work are its own.
  bool own_calls_phase_ = true;
  Clock::time_point started_;                 ///< When the run began.
  Clock::time_point next_snapshot_;           ///< The earliest a call publishes the report again (RunOptions::snapshot).
  Clock::time_point next_forced_snapshot_;    ///< The earliest a finding or a phase's end does.
  std::vector<ToolRun*> current_phase_;       ///< The tools of the phase under way (their findings are pending).
  std::unordered_map<std::string, std::size_t> row_index_;  ///< Tool name -> its row in rep_.tools (summary_of).
  gen::Harvest harvest_;                      ///< Identifiers from answers, fed to later calls.
  std::size_t main_restarts_ = 0;             ///< Restarts outside shrinking (--max-restarts).
  static constexpr std::size_t kShrinkCandidates = 1024;  ///< Shrinks of one value considered per step.
  static constexpr std::size_t kShrinkExamined = 8192;    ///< Shrinks looked at per step, kept or skipped.
  /// The tools that write (not gen::reading_tool), as make_call meets them: the strings their
  /// calls made up are remembered (Session::made), and their own answers are never self-made.
  std::set<std::string> writers_;
  std::vector<std::string> shrinks_cut_;  ///< Shrinks stopped by --shrink-budget ("INV on tool").
  /// T-POISON: failure hashes (engine/poison.h) of confirmed cases (met again: restarted at once),
  /// and of suspicions not to check again (a fresh server failed too, not reproduced, or HTTP).
  std::set<std::uint64_t> poison_confirmed_, poison_dismissed_;
  std::size_t poison_restarts_ = 0;  ///< Restarts after a poisoning.
  std::size_t poison_again_ = 0;     ///< Of those, for a confirmed case met again.
  static constexpr std::size_t kMaxPoisonRestarts = 20;
  static constexpr std::size_t kMaxSessionCalls = 1000;
  /// Fresh instances started, one at a time, to find the fewest calls an H-SIZE (or H-DECLARED)
  /// case needs (T-SHUTDOWN's probes, run at once, are bounded by --shrink-budget alone).
  static constexpr std::size_t kProbeTries = 12;
  /// T-SHUTDOWN's probes: the parts a sequence is cut in, probed at once (shutdown_calls), and the
  /// tools that write whose first call is probed alone.
  static constexpr std::size_t kShutdownSplit = 4;
  static constexpr std::size_t kProbesAtOnce = 4;  ///< T-SHUTDOWN's probes running at once.
  static constexpr std::chrono::milliseconds kProbeTimeout{2000};  ///< A probe's wait for each answer.
  /// What an instance started again (a restart, a worker's, a probe's) gets to answer initialize
  /// when --timeout is shorter.
  static constexpr std::chrono::milliseconds kStartAgain{10000};
};

}  // namespace ctxo::engine::detail
