// SPDX-License-Identifier: MIT
#include "engine/engine.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <set>
#include <exception>
#include <mutex>
#include <thread>

#include "checks/envelope.h"
#include "checks/judge.h"
#include "checks/protocol.h"
#include "core/interrupt.h"
#include "core/text.h"
#include "gen/plan.h"
#include "gen/simple.h"
#include "mcp/client.h"
#include "profile/profile.h"
#include "profile/schema_validator.h"
#include "engine/gate.h"
#include "engine/transcript.h"
#include "transport/transport.h"

namespace ctxo::engine {

namespace {

using Clock = std::chrono::steady_clock;
using mcp::Reply;

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string tool_of(const json& request) {
  if (request.is_object() && request.value("method", "") == "tools/call" && request.contains("params") &&
      request["params"].is_object())
    return request["params"].value("name", "");
  return "";
}

bool annotated_read_only(const json& tool) {
  return tool.contains("annotations") && tool["annotations"].is_object() &&
         tool["annotations"].value("readOnlyHint", false) == true;
}

// True when a required property of the tool's inputSchema names an identifier (gen::identifier_like).
bool needs_identifier(const json& tool) {
  if (!tool.contains("inputSchema") || !tool["inputSchema"].is_object()) return false;
  const json& schema = tool["inputSchema"];
  if (!schema.contains("required") || !schema["required"].is_array()) return false;
  for (const auto& r : schema["required"])
    if (r.is_string() && gen::identifier_like(r.get<std::string>())) return true;
  return false;
}

class Runner {
  // One server process and the MCP session on it. The run has one (sessions_[0]); --jobs N gives
  // each of the N workers its own.
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
  };

  // What one tool's work in a phase gives the run. Kept apart while the tools of a phase run (in
  // parallel with --jobs) and merged in tool order when the phase ends, so the report, the notes
  // and the values later tools are fed do not depend on which worker finished first.
  struct PendingShrink {
    rc::Shrinkable<json> arguments;
    std::size_t finding;  ///< Index in ToolOut::findings of the finding to shrink.
    std::string broken;
  };
  struct SweepCall {
    const json* tool;
    json args;
    const profile::Profile* profile;
    checks::ParsedEnvelope main;
    std::size_t answer;  ///< The judge's id of the main answer (its held findings).
  };
  struct ToolOut {
    std::vector<Finding> findings;
    std::vector<std::string> notes;
    std::vector<PendingShrink> shrinks;
    std::vector<SweepCall> sweep_calls;
    gen::Harvest harvest;  ///< The phase's harvest at its start, plus what this tool's answers gave.
  };

  // The thread's context: the session it talks to, and the work under way on it.
  struct Ctx {
    Session* session = nullptr;
    std::vector<Finding>* capture = nullptr;  ///< Where add() puts findings during an attempt.
    bool shrinking = false;
    bool probing = false;  ///< Making asked_to_wait's quick call (no probe of the probe).
    ToolOut* out = nullptr;  ///< The tool whose work this is (nullptr: report directly).
    std::unique_lock<std::mutex>* lock = nullptr;  ///< This worker's hold on the workers' lock (nullptr: no workers).
  };
  static inline thread_local Ctx* tl_ = nullptr;
  Ctx& cx() const { return *tl_; }
  Session& S() const { return *tl_->session; }

  // The work under way on this thread gives `out` (Ctx::out) until the scope ends, however it ends.
  struct WorkingFor {
    Ctx& c;
    WorkingFor(Ctx& ctx, ToolOut& out) : c(ctx) { c.out = &out; }
    ~WorkingFor() { c.out = nullptr; }
    WorkingFor(const WorkingFor&) = delete;
    WorkingFor& operator=(const WorkingFor&) = delete;
  };

  // Lets the other workers run while this one waits on its server (--jobs): every use of the
  // run's shared state is made holding the workers' lock (for_each_worker), and only waiting on a
  // server is done without it.
  struct Unlocked {
    std::unique_lock<std::mutex>* lock;
    explicit Unlocked(const Ctx& c) : lock(c.lock && c.lock->owns_lock() ? c.lock : nullptr) {
      if (lock) lock->unlock();
    }
    ~Unlocked() {
      if (lock) lock->lock();
    }
    Unlocked(const Unlocked&) = delete;
    Unlocked& operator=(const Unlocked&) = delete;
  };

 public:
  Runner(const RunOptions& o, Listener& l) : o_(o), l_(l) {}

  RunReport run() {
    const auto t0 = Clock::now();
    rep_.seed = o_.seed;
    rep_.command = o_.command;
    rep_.url = o_.url;
    for (const auto& h : o_.headers) rep_.header_names.push_back(h.first);
    rep_.env = o_.env;
    rep_.cwd = o_.cwd;
    rep_.profile = o_.profile;
    rep_.started_at = iso_now();
    rep_.root = o_.root;
    for (const auto& inv : checks::registry())
      if (inv.implemented && o_.selection.enabled(inv.id)) rep_.invariants_checked.push_back(inv.id);
    transport::install_signal_cleanup();
    jobs_ = o_.replay ? 1 : std::max<std::size_t>(1, o_.jobs);
    sessions_.push_back(std::make_unique<Session>());
    Ctx main_ctx;
    main_ctx.session = sessions_[0].get();
    struct Current {
      Ctx* old;
      explicit Current(Ctx* c) : old(tl_) { tl_ = c; }
      ~Current() { tl_ = old; }
    } current(&main_ctx);
    S().env = o_.env;
    if (!o_.record_path.empty()) {
      auto r = Recorder::open(o_.record_path, o_.redactor);
      if (!r.ok()) {
        rep_.error = r.error();
        rep_.exit_code = 2;
        rep_.verdict = "error";
        return std::move(rep_);
      }
      recorder_.emplace(std::move(r.value()));
      if (http()) recorder_->set_server({{"url", o_.url}});
    }
    if (!load_profiles()) {
      rep_.exit_code = 2;
      rep_.verdict = "error";
      return std::move(rep_);
    }
    try {
      body();
    } catch (const core::Interrupted& stop) {
      // Whatever was under way (an attempt, a shrink, a probe) is abandoned; what it found so far
      // was reported (shrink() keeps its smallest reproduction).
      cx().capture = nullptr;
      cx().shrinking = cx().probing = false;
      cx().out = nullptr;
      rep_.interrupted = stop.signal;  // the reports say so (reports::interrupted_reason)
    }
    // An interrupted run stops its servers at once; their shutdown is not judged.
    finish_workers(rep_.interrupted == 0 ? End::kFinal : End::kAbandoned);
    finish_session(rep_.interrupted == 0 ? End::kFinal : End::kAbandoned);
    // A transcript asked for and not written is a failed run (exit 2), whatever was found.
    if (recorder_ && !recorder_->error().empty() && !rep_.error) {
      rep_.error = Error{"io", recorder_->error()};
      rep_.exit_code = 2;
      rep_.verdict = "error";
    }
    settle_judge();
    publish_outcomes(rep_, outcomes_, o_.selection);
    publish_reach();
    rep_.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
    settle_verdict(rep_);
    return std::move(rep_);
  }

 private:
  // --- findings -------------------------------------------------------------------------
  // Reports `f`, or hands it to the attempt being made (see attempt()).
  void add(Finding f) {
    if (!o_.selection.enabled(f.invariant)) return;
    // A rule of the HTTP transport is the server's, whichever call showed it: one finding.
    if (f.tool.empty() && !http_rule(f.invariant)) f.tool = tool_of(f.request);
    if (f.replay.empty()) {
      // The judge stamps the environment an answer was given under; other findings are the
      // current server's.
      if (f.env.empty()) f.env = S().env;
      // A finding that depends on the server's state: the calls that made it, then its own.
      f.replay = replay_command(f.request, f.env, f.sequence);
    }
    if (cx().capture) {
      cx().capture->push_back(std::move(f));
      return;
    }
    // Shown as it is found, once per root cause; a tool's findings join the report when its phase
    // ends (merge_phase), in tool order.
    if (printed_.insert(finding_key(f)).second) l_.on_finding(f);
    if (cx().out) {
      cx().out->findings.push_back(std::move(f));
      return;
    }
    merge_finding(rep_, index_, std::move(f));
  }

  void add_all(std::vector<Finding> fs) {
    for (auto& f : fs) add(std::move(f));
  }

  // What checks said about `tool` ("" = the server): statuses kept, findings reported.
  void take(const std::string& tool, checks::Outcomes o) {
    std::vector<Finding> fs = o.take_findings();
    for (auto& f : fs)
      if (f.tool.empty() && !tool.empty()) f.tool = tool;
    outcomes_[tool].merge(std::move(o));
    add_all(std::move(fs));
  }

  // The judge's answers for what it kept until the end (answers of tools whose profile was not
  // known yet, findings no sweep settled), and the profile each tool was judged by.
  void settle_judge() {
    if (!judge_) return;
    for (auto& [tool, o] : judge_->finish()) take(tool, std::move(o));
    for (const auto& [name, tp] : judge_->tool_profiles()) {
      ToolSummary* ts = summary_of(name);
      ts->profile = tp.profile ? tp.profile->name : "";
      ts->profile_reason = tp.reason;
    }
    for (const auto& [name, big] : judge_->largest()) summary_of(name)->largest = big;
    for (const auto& [name, n] : judge_->profiles_detected()) rep_.profiles_detected[name] = n;
    rep_.unprofiled_results = judge_->unprofiled();
    if (!forced_ && !profiles_.empty() && rep_.unprofiled_results > 0)
      note(std::to_string(rep_.unprofiled_results) +
           " tool result(s) matched no envelope profile; only transport and protocol checks applied to them");
  }

  // Each tool's coverage from the judge, and a note for each tool whose calls reached no data.
  void publish_reach() {
    if (!judge_) return;
    for (auto& n : publish_coverage(rep_, judge_->coverage(),
                                    o_.harvest ? "no generated, schema-suggested or harvested value reached anything it has"
                                               : "values from other tools' answers were not tried (--no-harvest)"))
      note(std::move(n));
  }

  void take_observations() {
    if (!S().client) return;
    for (auto& ob : S().client->take_observations()) {
      Finding f;
      f.invariant = ob.invariant;
      f.severity = ob.warning ? Severity::kWarning : Severity::kError;
      f.request = ob.related_request;
      f.response_excerpt = ob.excerpt;
      f.diagnosis = ob.diagnosis;
      add(std::move(f));
    }
  }

  void note(std::string n) {
    l_.on_note(n);
    if (cx().out) cx().out->notes.push_back(std::move(n));
    else rep_.notes.push_back(std::move(n));
  }

  // The exact bytes to send, then the server command: runs anywhere a POSIX shell does.
  // `sequence` (a state-carrying finding's earlier calls: an array, or null) is sent before the request.
  std::string replay_command(const json& request, const std::map<std::string, std::string>& env,
                             const json& sequence = json()) const {
    std::vector<std::string> lines = prelude_;
    if (sequence.is_array())
      for (const auto& r : sequence) lines.push_back(r.dump());
    if (!request.is_null()) lines.push_back(request.dump());
    if (http()) return curl_command(lines, env);
    return pipe_command(lines, env);
  }

  bool http() const { return !o_.url.empty(); }

  // `lines` POSTed in order to the URL with curl, the session id the first answer gives sent with
  // the others (and the negotiated version after the handshake); the server command, when the run
  // started one, first. --header values are printed as <redacted>.
  std::string curl_command(const std::vector<std::string>& lines, const std::map<std::string, std::string>& env) const {
    std::string c = "c() { curl -sS -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'";
    for (const auto& [k, v] : o_.headers) c += " -H " + shell_quote(k + ": <redacted>");
    c += " ${s:+-H \"Mcp-Session-Id: $s\"} ${v:+-H \"MCP-Protocol-Version: $v\"} \"$@\" " + shell_quote(o_.url) +
         "; echo; }; s=; v=; ";
    std::string cmd;
    if (!o_.command.empty()) cmd += "(" + launch(env) + ") & p=$!; sleep 2; ";
    cmd += c;
    const bool legacy = !prelude_.empty();
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (legacy && i == 0) {
        cmd += "s=$(c -D - -o /dev/null --data-binary " + shell_quote(lines[i]) +
               " | tr -d '\\r' | sed -n 's/^[Mm][Cc][Pp]-[Ss][Ee][Ss][Ss][Ii][Oo][Nn]-[Ii][Dd]: *//p'); v=" +
               shell_quote(negotiated_) + "; ";
        continue;
      }
      cmd += "c --data-binary " + shell_quote(lines[i]) + "; ";
    }
    if (!o_.command.empty()) cmd += "kill $p";
    else if (!cmd.empty() && cmd.back() == ' ') cmd.erase(cmd.size() - 2);
    return cmd;
  }

  // The server command with `env`, in its working directory.
  std::string launch(const std::map<std::string, std::string>& env) const {
    std::string cmd;
    if (!o_.cwd.empty()) cmd += "(cd " + shell_quote(o_.cwd) + " && ";
    if (!env.empty()) {
      cmd += "env";
      for (const auto& [k, v] : env) cmd += " " + shell_quote(k + "=" + v);
      cmd += " ";
    }
    cmd += shell_join(o_.command);
    if (!o_.cwd.empty()) cmd += ")";
    return cmd;
  }

  // `lines` sent one per line, then two seconds of waiting, to the server command.
  std::string pipe_command(const std::vector<std::string>& lines, const std::map<std::string, std::string>& env) const {
    std::string cmd = "{ printf '%s\\n'";
    for (const auto& l : lines) cmd += " " + shell_quote(l);
    cmd += "; sleep 2; } | " + launch(env);
    return cmd;
  }

  // --- sessions -------------------------------------------------------------------------
  Result<void> start(const std::string& forced, bool first) {
    transport::SpawnOptions so;
    so.argv = o_.command;
    so.env = S().env;
    so.cwd = o_.cwd;
    so.max_line_bytes = o_.max_message_bytes;
    Result<std::unique_ptr<transport::Transport>> t = make_error("spawn", "no transport");
    if (http()) {
      transport::HttpOptions ho;
      ho.url = o_.url;
      ho.headers = o_.headers;
      ho.connect_timeout = o_.timeout;
      ho.max_message_bytes = o_.max_message_bytes;
      // One server process, however many sessions: a worker's session only connects to it.
      if (!o_.command.empty() && S().main) ho.server = so;
      ho.probe = first;  // the session probes once per run
      Unlocked waiting(cx());
      t = transport::connect_http(ho);
    } else {
      Unlocked waiting(cx());
      t = transport::spawn_stdio(so);
    }
    if (!t.ok()) return t.error();
    S().transport = std::move(t.value());
    mcp::ClientOptions co;
    co.timeout = o_.timeout;
    co.client_version = CTXO_VERSION;
    S().client = std::make_unique<mcp::Client>(*S().transport, co);
    std::vector<Reply> attempts;
    auto info = [&] {
      Unlocked waiting(cx());
      return S().client->handshake(forced, &attempts);
    }();
    if (!info.ok() && info.error().code == "init-probe") {
      // The server died on the server/discover probe: a legacy server that cannot take an
      // unknown method. Start it again and speak the legacy era from the first line.
      finish_session(End::kAbandoned);
      auto again = start("legacy", first);
      if (!again.ok()) return again;
      return {};
    }
    // Not reached, or refused as a client (HTTP 401): nothing the server said is to be judged.
    const std::string unreachable = info.ok() ? std::string() : S().transport->failure();
    if (!info.ok() && !unreachable.empty()) {
      take_observations();
      rep_.stderr_tail = S().transport->stderr_tail();
      S().transport->close(std::chrono::milliseconds(300));
      S().client.reset();
      S().transport.reset();
      return make_error("init", unreachable);
    }
    if (!info.ok()) {
      if (first) {
        for (const auto& a : attempts) {
          if (a.request.value("method", "") == "server/discover") continue;
          if (a.kind == Reply::Kind::kTimeout && !a.oversize) {
            Finding f;
            f.invariant = "T-HANG";
            f.request = a.request;
            f.diagnosis = "no answer to initialize within " + std::to_string(o_.timeout.count()) + " ms";
            add(std::move(f));
          }
        }
        take("", checks::check_failed_init(attempts));
      }
      take_observations();
      std::string msg = info.error().message;
      auto status = S().transport->close(std::chrono::milliseconds(300));
      if (status.how != transport::ExitStatus::How::kRunning && !status.we_signaled && msg.find("exit") == std::string::npos)
        msg += " (" + status.describe() + ")";
      std::string tail = S().transport->stderr_tail();
      if (!tail.empty()) msg += "; its stderr ended with: " + excerpt(tail.substr(tail.size() > 300 ? tail.size() - 300 : 0), 300);
      rep_.stderr_tail = tail;
      S().client.reset();
      S().transport.reset();
      return make_error("init", msg);
    }
    // A case replays the handshake of the run's first session, whichever session found it.
    if (first) prelude_ = S().client->replay_prelude();
    S().started_env = S().env;
    if (first) {
      if (recorder_) {
        Reply init;
        init.kind = Reply::Kind::kResult;
        init.request = info->init_request;
        init.result = info->init_result;
        record(init);
      }
      rep_.server_name = info->name;
      rep_.server_version = info->version;
      rep_.protocol_version = info->protocol_version;
      rep_.era = info->era;
      checks::Outcomes init = checks::check_init(*info);
      for (const char* id : {"T-FRAMING", "T-ID", "T-HANG", "T-CRASH"}) init.pass(id);
      take("", std::move(init));
    }
    negotiated_ = info->era == "modern" ? mcp::kModernVersion : info->protocol_version;
    S().transport->handshake_done();
    take_observations();
    return {};
  }

  // How a server instance ends. T-SHUTDOWN applies to an idle server: at the normal end of the run
  // and when it is replaced (the limit sweep's restarts with another environment), not to one
  // that crashed, hung in a call, or is stopped by a signal.
  enum class End { kFinal, kReplaced, kAbandoned };

  // Ends the current server.
  void finish_session(End end) {
    if (!S().transport) return;
    const bool final = end != End::kAbandoned;
    // A stdio server's late lines (a late answer, a stray line) are read from what it writes
    // until it exits, after its end-of-file (see close()); an HTTP server gets a moment first.
    if (S().client && http()) {
      {
        Unlocked waiting(cx());
        S().client->drain(std::chrono::milliseconds(final ? 100 : 0));
      }
      take_observations();
    }
    auto before = S().transport->exit_status();
    auto status = [&] {
      Unlocked waiting(cx());
      return S().transport->close(final ? o_.grace : std::chrono::milliseconds(300));
    }();
    if (S().client) {
      if (final && !http()) {
        Unlocked waiting(cx());
        S().client->drain(std::chrono::milliseconds(10));  // what close() kept: no waiting
      }
      rep_.notifications += S().client->traffic().notifications;
      rep_.server_requests += S().client->traffic().server_requests;
    }
    take_observations();  // what ending the session showed (HTTP: the session used after DELETE)
    // The transport's own rules it had a subject for (HTTP: a session, a stream) held, unless a
    // finding says otherwise; the others stay not applicable.
    for (const auto& id : S().transport->exercised()) outcomes_[""].pass(id);
    for (auto& n : S().transport->take_notes()) note(std::move(n));
    // T-SHUTDOWN is stdio's rule (exit when stdin closes): an HTTP server is stopped by a signal.
    if (final && !http()) outcomes_[""].pass("T-SHUTDOWN");
    const char* which = end == End::kReplaced ? " (an instance the run replaced to restart it with another environment)" : "";
    if (final && !http() && !before && !status.after_eof) {
      Finding f;
      f.invariant = "T-SHUTDOWN";
      f.diagnosis = "the server did not exit within " + std::to_string(o_.grace.count()) +
                    " ms after its stdin was closed" + which +
                    (S().calls.empty() ? std::string()
                                            : " (after the " + std::to_string(S().calls.size()) +
                                                  " tool calls made on it, which its case replays first)") +
                    "; it had to be stopped with a signal (" + status.describe() +
                    "). A stdio server must exit when stdin reaches end-of-file";
      // Its state may be why: the calls made on this instance are part of the case.
      if (!S().calls.empty()) f.sequence = json(S().calls);
      f.replay = replay_command(json(), S().started_env, f.sequence);
      add(std::move(f));
    }
    S().calls.clear();
    S().wrote = false;
    rep_.stderr_tail = S().transport->stderr_tail();
    S().client.reset();
    S().transport.reset();
  }

  // Shrinking a crash restarts the server once per reproducing candidate; those restarts are
  // bounded by the shrink's own call limit, not by --max-restarts.
  bool restart() {
    if (!cx().shrinking && main_restarts_ >= o_.max_restarts) {
      note("stopped restarting the server after " + std::to_string(main_restarts_) + " restarts");
      return false;
    }
    if (!cx().shrinking) main_restarts_++;
    rep_.restarts++;
    finish_session(End::kAbandoned);
    auto r = start(negotiated_, false);
    if (!r.ok()) {
      note("the server could not be restarted: " + r.error().message);
      return false;
    }
    return true;
  }

  // --- the run --------------------------------------------------------------------------
  void body() {
    auto s = start(o_.protocol, true);
    if (!s.ok()) {
      rep_.error = s.error();
      rep_.exit_code = 3;
      return;
    }
    l_.on_started(rep_);

    auto listing = S().client->list_tools();
    for (const auto& page : listing.pages) record(page);
    take("", checks::check_tools_list(listing, rep_.era));
    for (const auto& page : listing.pages) {
      if (page.kind == Reply::Kind::kTimeout && !page.stray_seen && !page.oversize) {
        Finding f;
        f.invariant = "T-HANG";
        f.request = page.request;
        f.diagnosis = "no answer to tools/list within " + std::to_string(o_.timeout.count()) + " ms";
        add(std::move(f));
      } else if (page.kind == Reply::Kind::kClosed) {
        crash_finding(page, "tools/list");
      }
    }
    take_observations();
    if (listing.failed && listing.tools.empty()) {
      note("tools/list did not return a list of tools, so no tool was called");
      return;
    }
    all_tools_ = listing.tools;
    {
      checks::JudgeSetup js;
      js.forced = forced_ ? &*forced_ : nullptr;
      js.candidates = &profiles_;
      js.tools = all_tools_;
      js.root = o_.root;
      js.era = rep_.era;
      js.hosts = hosts_;
      judge_ = std::make_unique<checks::Judge>(std::move(js));
    }
    std::vector<const json*> tools;
    std::set<std::string> names;
    for (const auto& t : all_tools_) {
      if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
      if (!names.insert(t["name"].get<std::string>()).second) continue;
      tools.push_back(&t);
    }
    std::sort(tools.begin(), tools.end(),
              [](const json* a, const json* b) { return (*a)["name"].get<std::string>() < (*b)["name"].get<std::string>(); });
    // Selection: globs, read-only, shard (deterministic: sorted names, i mod N).
    std::vector<const json*> selected;
    std::size_t eligible = 0;
    for (const json* t : tools) {
      ToolSummary ts;
      ts.name = (*t)["name"].get<std::string>();
      ts.read_only = annotated_read_only(*t);
      bool in = o_.tool_globs.empty();
      for (const auto& g : o_.tool_globs) in = in || glob_match(g, ts.name);
      for (const auto& g : o_.exclude_globs)
        if (glob_match(g, ts.name)) in = false;
      if (o_.replay) in = ts.name == o_.replay->tool;
      if (in && o_.read_only && !ts.read_only) {
        in = false;
        ts.skipped = "not annotated readOnlyHint:true (--read-only)";
      }
      if (in) {
        if (static_cast<int>(eligible % static_cast<std::size_t>(o_.shard_count)) != o_.shard_index) {
          in = false;
          ts.skipped = "in another shard";
        }
        ++eligible;
      } else if (ts.skipped.empty()) {
        ts.skipped = o_.replay ? "not the replayed case's tool" : "not selected (--tools / --exclude-tools)";
      }
      ts.selected = in;
      rep_.tools.push_back(ts);
      if (in) {
        selected.push_back(t);
        take(ts.name, judge_->listing(ts.name));
      }
    }
    if (o_.replay && !o_.replay->tool.empty() && selected.empty())
      note("the case's tool '" + o_.replay->tool + "' is not in the server's tools/list any more");
    std::vector<std::string> writers;
    for (const auto& ts : rep_.tools)
      if (ts.selected && !ts.read_only) writers.push_back(ts.name);
    if (!writers.empty()) {
      std::string list;
      for (const auto& w : writers) list += (list.empty() ? "" : ", ") + w;
      note("calling tools not annotated readOnlyHint:true (they may write, move or delete): " + list +
           " (use --read-only to skip them, and run the server in a throwaway directory)");
    }
    l_.on_tools(rep_.tools);

    // Tools that need no identifier go first: their answers (lists, searches) are where the names,
    // paths and identifiers the other tools take are harvested from. Shards still split by sorted
    // name.
    std::stable_partition(selected.begin(), selected.end(), [](const json* t) { return !needs_identifier(*t); });
    const auto t0 = run_t0_ = Clock::now();
    // A state-carrying case (T-SHUTDOWN): the calls that were made on the failing instance, first,
    // in order, on this one. Their own answers are not the case.
    if (o_.replay && !o_.replay->sequence.empty()) {
      std::size_t troubles = 0;
      for (const auto& [tool, args] : o_.replay->sequence) {
        if (!S().alive || troubles > 0) break;
        (void)over_budget(t0);  // a signal stops the sequence too
        (void)do_call(*summary_of(tool), args, troubles, S().alive);
      }
    }
    std::vector<std::unique_ptr<ToolRun>> runs;
    for (const json* tool : selected) {
      auto run = std::make_unique<ToolRun>();
      run->name = (*tool)["name"].get<std::string>();
      run->tc.tool = tool;
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
      run_phase(*phase, [&](ToolRun& tr) { tool_calls(tr, t0, started, selected.size()); },
                [&](ToolRun& tr) {
                  summary_of(tr.name)->skipped = "the server could not be restarted";
                });
    // The second pass: tools whose calls reached no data, again, with what every tool's answers
    // have put in the pools since their turn.
    if (o_.harvest && !o_.replay) {
      std::vector<ToolRun*> again;
      for (auto& r : runs)
        if (r->plan && r->troubles < 2 && r->slow < kMaxSlowCalls && r->data_calls.empty()) again.push_back(r.get());
      run_phase(again, [&](ToolRun& tr) {
        if (over_budget(t0)) return;
        ToolSummary* ts = summary_of(tr.name);
        for (auto& pc : tr.plan->second_pass(harvest(), kSecondPassCalls)) {
          if (!S().alive || tr.troubles >= 2 || tr.slow >= kMaxSlowCalls || over_budget(t0) || tool_over_budget(*ts)) break;
          ts->second_pass_calls++;
          make_call(tr, *ts, std::move(pc), t0, S().alive);
        }
        drive(tr, *ts, t0, S().alive);
      }, [](ToolRun&) {});
    }
    S().alive = S().alive && !dead_;
    const bool alive = S().alive;
    rep_.harvested = harvest_.size();
    if (alive && !over_budget(t0) && envelope_wanted()) {
      sweep();
      if (!over_budget(t0)) resume();
    }
    else if (!sweep_calls_.empty()) note("the limit sweep was skipped (time budget reached or the server died)");
    if (budget_hit_) note("--time-budget reached: some generated calls were not made");
    if (!shrinks_shared_.empty()) {
      std::size_t n = 0;
      std::string which;
      for (const auto& [tool, count] : shrinks_shared_) {
        n += count;
        which += (which.empty() ? "" : ", ") + tool;
      }
      note(std::to_string(n) + " finding(s) on other tools were not shrunk: the same invariant with the same diagnosis was "
           "shrunk once, on " + which + " (one root cause, one shrink)");
    }
    if (!shrinks_cut_.empty()) {
      std::string which;
      for (const auto& w : shrinks_cut_) which += (which.empty() ? "" : ", ") + w;
      note(std::to_string(shrinks_cut_.size()) + " shrink(s) stopped at --shrink-budget (" + which +
           "): their findings are the smallest reproduction found in time");
    }
  }

  struct ToolCtx {
    const json* tool;
    const checks::ToolValidators* validators;
  };
  // One tool's calls across the run's passes.
  struct ToolRun {
    std::string name;
    ToolCtx tc{nullptr, nullptr};
    std::optional<gen::ToolPlan> plan;
    std::size_t troubles = 0;
    std::size_t slow = 0;           ///< Calls answered (or still working) after --timeout.
    std::set<std::string> shrunk;  ///< Invariants already shrunk on this tool.
    bool repeated = false;          ///< E-STABLE made on this tool.
    std::optional<std::pair<json, checks::ParsedEnvelope>> stable_fallback;  ///< A hintless candidate.
    std::vector<std::pair<json, std::string>> data_calls;  ///< Calls that reached data (args, label).
    std::size_t driven_from = 0;  ///< data_calls already repeated with a budget parameter driven small.
    bool needs_identifier = false;  ///< A required property names an identifier: it runs in the second phase.
    ToolOut out;                    ///< What its work in the current phase gave, merged when the phase ends.
  };

  // The values a call of the current tool may be fed: the phase's harvest plus its own answers'.
  gen::Harvest& harvest() { return cx().out ? cx().out->harvest : harvest_; }

  // Runs `work` for each tool of a phase: in order on this thread, or with --jobs N on N workers,
  // each with its own server (started at its first tool, kept for the next phases). A tool none
  // could run (its worker's server could not be restarted) gets `skip`. When the phase ends, the
  // findings it holds for shrinking are shrunk, once per root cause, and what every tool gave is
  // merged in tool order (merge_phase).
  void run_phase(const std::vector<ToolRun*>& phase, const std::function<void(ToolRun&)>& work,
                 const std::function<void(ToolRun&)>& skip) {
    for (ToolRun* tr : phase) {
      tr->out = ToolOut{};
      tr->out.harvest = harvest_;
    }
    std::vector<bool> done(phase.size(), false);
    // One tool: its work, with what it gives kept apart from the run's.
    auto one = [&](std::size_t i) {
      ToolRun& tr = *phase[i];
      done[i] = true;
      WorkingFor working(cx(), tr.out);
      work(tr);
    };
    try {
      for_each_worker(phase.size(), one);
      for (std::size_t i = 0; i < phase.size(); ++i)
        if (!done[i]) skip(*phase[i]);
      std::vector<std::pair<ToolRun*, std::size_t>> shrinks;  // (tool, its pending shrink)
      for (ToolRun* tr : phase) {
        for (std::size_t k = 0; k < tr->out.shrinks.size(); ++k) {
          // One root cause, one shrink: the same invariant and diagnosis (numbers aside) already
          // shrunk on an earlier tool is reported as generated.
          Finding cause = tr->out.findings[tr->out.shrinks[k].finding];
          cause.tool.clear();
          const std::string key = finding_key(cause);
          if (auto it = shrunk_causes_.find(key); it != shrunk_causes_.end() && it->second != tr->name) {
            shrinks_shared_[it->second]++;
            continue;
          }
          shrunk_causes_.emplace(key, tr->name);
          shrinks.emplace_back(tr, k);
        }
      }
      std::vector<ToolRun*> shrinking;
      for (const auto& [tr, k] : shrinks)
        if (shrinking.empty() || shrinking.back() != tr) shrinking.push_back(tr);
      for_each_worker(shrinking.size(), [&](std::size_t i) {
        ToolRun& tr = *shrinking[i];
        WorkingFor working(cx(), tr.out);
        ToolSummary* ts = summary_of(tr.name);
        for (const auto& [owner, k] : shrinks) {
          if (owner != &tr || !S().alive) continue;
          const PendingShrink p = tr.out.shrinks[k];  // (a copy: the shrink may add to the tool's lists)
          Finding shrunk = shrink(*ts, tr.tc, p.arguments, tr.out.findings[p.finding], p.broken, run_t0_, S().alive);
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
  void merge_phase(const std::vector<ToolRun*>& phase) {
    for (ToolRun* tr : phase) merge_out(tr->out);
  }

  // What one piece of parallel work gave, into the run (it is left empty).
  void merge_out(ToolOut& from) {
    ToolOut out = std::move(from);
    from = ToolOut{};
    for (auto& f : out.findings) merge_finding(rep_, index_, std::move(f));
    for (auto& n : out.notes) rep_.notes.push_back(std::move(n));
    for (auto& sc : out.sweep_calls)
      if (sweep_calls_.size() < kMaxSweepCalls) sweep_calls_.push_back(std::move(sc));
    harvest_.absorb(out.harvest);
  }

  // Calls task(i) for i in [0, n): on this thread when --jobs is 1, else on up to --jobs workers,
  // each on its own session. Only waiting on a server is done without holding their lock (Unlocked).
  // A worker whose server cannot be restarted takes no more tasks, and none is started after the
  // first such worker (as a run of one worker stops there). The first exception (a signal) stops
  // the others and is thrown here once they are done.
  // `start_sessions` false: the tasks start their own servers (the limit sweep: another environment).
  void for_each_worker(std::size_t n, const std::function<void(std::size_t)>& task, bool start_sessions = true) {
    const std::size_t workers = std::min<std::size_t>(jobs_, n);
    if (workers <= 1) {
      for (std::size_t i = 0; i < n && S().alive && !dead_; ++i) task(i);
      dead_ = dead_ || !S().alive;
      return;
    }
    while (sessions_.size() < workers) {
      sessions_.push_back(std::make_unique<Session>());
      sessions_.back()->main = false;
      sessions_.back()->env = o_.env;
    }
    std::mutex gil;
    std::size_t next = 0;
    std::exception_ptr failure;
    auto worker = [&](std::size_t w) {
      Ctx ctx;
      ctx.session = sessions_[w].get();
      std::unique_lock<std::mutex> lock(gil);
      ctx.lock = &lock;
      Ctx* old = tl_;
      tl_ = &ctx;
      try {
        while (next < n && !failure && !dead_) {
          if (start_sessions && S().alive && !S().transport) {
            auto st = start(negotiated_, false);
            if (!st.ok()) {
              note("a --jobs worker could not start the server: " + st.error().message);
              S().alive = false;
            }
          }
          if (!S().alive) {
            dead_ = true;
            break;
          }
          // Starting the server let the others run: they may have taken the rest.
          if (next >= n || failure || dead_) break;
          task(next++);
          if (!S().alive) dead_ = true;
        }
      } catch (...) {
        if (!failure) failure = std::current_exception();
      }
      tl_ = old;
    };
    std::vector<std::thread> threads;
    for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(worker, w);
    worker(0);
    for (auto& t : threads) t.join();
    if (failure) std::rethrow_exception(failure);
  }

  // Ends the workers' sessions (all but the first).
  void finish_workers(End end) {
    for (std::size_t w = 1; w < sessions_.size(); ++w) {
      Ctx ctx;
      ctx.session = sessions_[w].get();
      Ctx* old = tl_;
      tl_ = &ctx;
      finish_session(end);
      tl_ = old;
    }
  }

  // One tool's generated calls (the plan, budget parameters driven small, E-STABLE, E-MISS).
  void tool_calls(ToolRun& tr, Clock::time_point t0, std::size_t& started, std::size_t total) {
    const std::string& name = tr.name;
    const json* tool = tr.tc.tool;
    ToolSummary* ts = summary_of(name);
    l_.on_tool(*ts, started++, total);
    bool& alive = S().alive;
    const json input_schema = tool->contains("inputSchema") && (*tool)["inputSchema"].is_object()
                                  ? (*tool)["inputSchema"]
                                  : json{{"type", "object"}};
    const checks::ToolValidators& validators = judge_->validators(name);
    tr.tc.validators = &validators;
    if (!validators.input_problem().empty())
      note("cannot validate the inputSchema of tool " + name + " (" + validators.input_problem() +
           "); its calls are not held to P-NO-THROW");
    if (!validators.output_problem().empty())
      note("cannot compile the outputSchema of tool " + name + ": " + validators.output_problem());
    // Only a schema naming another host somewhere can have a default to pin: the others' calls
    // are sent without a copy (do_call).
    if (!o_.allow_remote_urls && !gen::stays_local(input_schema)) input_schemas_[name] = input_schema;
    if (!o_.replay) {
      gen::GenOptions go;
      go.allow_remote_urls = o_.allow_remote_urls;
      tr.plan.emplace(input_schema, o_.calls_per_tool, o_.seed ^ fnv1a(name), std::move(go));
    }
    for (std::size_t i = 0; alive && tr.troubles < 2; ++i) {
      if (over_budget(t0)) {
        ts->skipped = "time budget reached";
        break;
      }
      if (tr.slow >= kMaxSlowCalls) {
        ts->skipped = "stopped after " + std::to_string(kMaxSlowCalls) + " calls slower than --timeout";
        break;
      }
      if (!o_.replay && tool_over_budget(*ts)) break;
      std::optional<gen::PlannedCall> pc;
      if (tr.plan) pc = tr.plan->next(harvest());
      else if (i == 0 && !o_.replay->as_miss) pc = gen::PlannedCall{gen::Phase::kBoundary, "replayed case", gen::shrinkable_json(o_.replay->arguments)};
      if (!pc) break;
      make_call(tr, *ts, std::move(*pc), t0, alive);
    }
    if (tr.plan && ts->calls == 0 && ts->skipped.empty() && !tr.plan->cannot_generate().empty())
      ts->skipped = "no schema-valid arguments could be generated: " + tr.plan->cannot_generate();
    drive(tr, *ts, t0, alive);
    if (!tr.repeated && tr.stable_fallback && alive && tr.troubles < 2 && !over_budget(t0) && !tool_over_budget(*ts))
      repeat(*ts, tr.stable_fallback->first, "", tr.stable_fallback->second, tr.troubles, alive);
    if (tr.plan)
      for (const auto& p : tr.plan->problems())
        if ((ts->calls > 0 || p != tr.plan->cannot_generate()) &&  // else said once, as the reason it was not called
            !(pinned_noted_.count(name) && p.rfind(gen::kRemoteUrlProblem, 0) == 0))  // said with the pin
          note("generating calls for tool " + name + ": " + p);
    if (tr.troubles >= 2) ts->skipped = "stopped after 2 crashes or hangs";
    // E-MISS: a lookup of an identifier that cannot exist, answered by a tool whose envelope
    // profile is known (forced, or seen on its answers) and has a graceful-miss form (or miss codes).
    const profile::Profile* miss_profile = judge_->profile_of(name);
    if (miss_profile && !miss_profile->has_graceful_miss()) miss_profile = nullptr;
    std::optional<json> absent;
    if (o_.replay && o_.replay->as_miss) absent = o_.replay->arguments;
    else if (!o_.replay && ts->calls > 0) absent = gen::absent_lookup(input_schema, o_.seed ^ fnv1a(name), o_.allow_remote_urls);
    // A replayed lookup has no earlier answers: its own answer tells the profile.
    const bool replay_miss = o_.replay && o_.replay->as_miss;
    if (absent && alive && tr.troubles < 2 && (miss_profile || replay_miss) && !over_budget(t0) &&
        invariant_wanted("E-MISS")) {
      std::vector<Finding> found;
      cx().capture = &found;
      Reply reply = do_call(*ts, *absent, tr.troubles, alive);
      checks::Judged j = judge_->call(exchange(name, *absent, reply, "", miss_profile, false));
      checks::Outcomes missed;
      if (reply.kind == Reply::Kind::kResult) {
        const checks::ParsedEnvelope pe = j.envelope.profile ? j.envelope : judge_->parse(exchange(name, *absent, reply, "", miss_profile, false));
        missed = judge_->miss(name, pe, reply);
      }
      // A lookup answered with an error is one E-MISS, not also an E-ERROR about its shape.
      if (missed.status("E-MISS") == checks::Status::kFailed) {
        checks::Outcomes kept;
        for (auto& f : j.outcomes.take_findings())
          if (f.invariant != "E-ERROR") kept.fail(std::move(f));
        j.outcomes.merge(std::move(kept));
      }
      take(name, std::move(j.outcomes));
      take(name, std::move(missed));
      cx().capture = nullptr;
      for (auto& f : found) {
        f.phase = "miss";
        f.case_label = "lookup of an identifier that cannot exist";
        add(std::move(f));
      }
    }
  }

  // Makes one planned call of `tr` and reports what it found (shrunk), remembering the first
  // calls that reached data (for drive()) and the E-STABLE repeat.
  void make_call(ToolRun& tr, ToolSummary& ts, gen::PlannedCall pc, Clock::time_point t0, bool& alive) {
    const json args = pc.arguments.value();
    const std::string broken = pc.phase == gen::Phase::kInvalid ? pc.label : "";
    Attempt a = attempt(ts, tr.tc, args, broken, true, tr.troubles, alive);
    if (a.reply.elapsed > o_.timeout) ++tr.slow;
    for (auto& f : a.findings) {
      f.phase = tr.plan ? gen::phase_name(pc.phase) : "";
      f.case_label = pc.label;
      // Shrunk when the phase ends (run_phase), once per root cause.
      if (tr.plan && o_.shrink && alive && cx().out && shrinkable(f) && tr.shrunk.insert(f.invariant).second)
        cx().out->shrinks.push_back(PendingShrink{pc.arguments, cx().out->findings.size(), broken});
      add(std::move(f));
    }
    if (a.reply.kind != Reply::Kind::kResult) return;
    if (a.reach == checks::Reach::kData && tr.data_calls.size() < kDrivenSources)
      tr.data_calls.emplace_back(args, pc.label);
    const checks::ParsedEnvelope& pe = a.envelope;
    // E-STABLE: the first call whose envelope carries a hint (else the first with an envelope,
    // after the plan), again, straight away.
    if (!tr.repeated && pe.profile && o_.envelope_repeat && invariant_wanted("E-STABLE")) {
      if (has_hint(pe)) {
        tr.repeated = true;
        repeat(ts, args, broken, pe, tr.troubles, alive);
      } else if (!tr.stable_fallback) {
        tr.stable_fallback = std::make_pair(args, pe);
      }
    }
  }

  // Budget and limit parameters driven small: the calls that reached data, again, with each
  // limit/maxResults/tokenBudget parameter at its smallest valid value (and four times that), so
  // truncation is seen on every tool that can truncate.
  void drive(ToolRun& tr, ToolSummary& ts, Clock::time_point t0, bool& alive) {
    if (!tr.plan) return;
    for (; tr.driven_from < tr.data_calls.size(); ++tr.driven_from) {
      const auto [args, label] = tr.data_calls[tr.driven_from];
      for (auto& pc : tr.plan->driven(args, "after " + label)) {
        if (!alive || tr.troubles >= 2 || tr.slow >= kMaxSlowCalls || over_budget(t0) || tool_over_budget(ts)) return;
        ts.driven_calls++;
        make_call(tr, ts, std::move(pc), t0, alive);
      }
    }
  }

  // E-STABLE: `args` again; its answer compared with `first`.
  void repeat(ToolSummary& ts, const json& args, const std::string& broken, const checks::ParsedEnvelope& first,
              std::size_t& troubles, bool& alive) {
    Reply again = do_call(ts, args, troubles, alive);
    checks::Judged j2 = judge_->call(exchange(ts.name, args, again, broken, first.profile, true));
    take(ts.name, std::move(j2.outcomes));
    if (j2.envelope.profile) take(ts.name, judge_->stable(first, j2.envelope));
  }

  // True when an envelope carries a non-empty hint (its profile's hint, or its form's).
  static bool has_hint(const checks::ParsedEnvelope& pe) {
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

  // A finding one call decides, so a smaller call can reproduce it: not the wire-level
  // observations (a log line on stdout, a stray id), nor a late answer (only slow).
  static bool http_rule(const std::string& id) { return id.rfind("T-HTTP-", 0) == 0; }

  static bool shrinkable(const Finding& f) {
    if (f.invariant == "T-FRAMING" || f.invariant == "T-ID" || http_rule(f.invariant)) return false;
    return !(f.invariant == "T-HANG" && f.severity == Severity::kWarning);
  }

  // A tools/call for the judge. `broken`: what the call was generated to break ("" = generated
  // valid); the judge decides by the tool's schema when it compiled.
  checks::Exchange exchange(const std::string& tool, const json& args, const Reply& reply, const std::string& broken,
                            const profile::Profile* prof, bool hold) const {
    checks::Exchange x;
    x.tool = tool;
    x.arguments = args;
    x.reply = &reply;
    x.env = S().env;
    x.profile = prof;
    x.hold = hold;
    x.validity = broken.empty() ? checks::Validity::kValid : checks::Validity::kInvalid;
    x.broken = broken;
    // The calls before it on this instance, when one of them may have written (its answer may
    // depend on them: a host-limit finding's case replays them).
    if (S().wrote) x.before = &S().calls;
    return x;
  }

  bool over_budget(Clock::time_point t0) {
    core::stop_if_interrupted();  // every loop of the run asks here: a signal ends it (see run())
    if (o_.time_budget_s && std::chrono::duration<double>(Clock::now() - t0).count() > *o_.time_budget_s) {
      budget_hit_ = true;
      return true;
    }
    return false;
  }

  // --tool-budget: true once `ts`'s calls have taken the tool's time; its remaining generated
  // calls are not made (said once, in its skip reason and a note).
  bool tool_over_budget(ToolSummary& ts) {
    if (o_.tool_budget.count() <= 0 || ts.elapsed <= o_.tool_budget) return false;
    if (ts.skipped.empty()) {
      char secs_text[32];
      std::snprintf(secs_text, sizeof secs_text, "%g", static_cast<double>(o_.tool_budget.count()) / 1000.0);
      const std::string secs = secs_text;
      ts.skipped = "its calls took their --tool-budget of " + secs + " s";
      note("tool " + ts.name + ": its " + std::to_string(ts.calls) + " calls took " +
           std::to_string(ts.elapsed.count() / 1000) + " s, past --tool-budget " + secs +
           " s: its remaining generated calls were not made (raise --tool-budget, or 0 for no limit)");
    }
    return true;
  }

  bool invariant_wanted(std::string_view id) const { return o_.selection.enabled(id); }

  // The limit sweep and hint following only judge envelopes: not needed when only transport and
  // protocol invariants are selected (e.g. a replayed T-CRASH case).
  bool envelope_wanted() const {
    for (const auto& inv : checks::registry())
      if (inv.family != "transport" && inv.family != "protocol" && inv.family != "host" && invariant_wanted(inv.id))
        return true;
    return false;
  }

  // One tools/call with the transport-level outcomes handled: T-HANG and T-CRASH are reported and
  // the server restarted; `alive` turns false when it cannot be restarted.
  void record(const Reply& reply) {
    if (!recorder_ || (reply.kind != Reply::Kind::kResult && reply.kind != Reply::Kind::kError) ||
        !reply.transport_failure.empty())
      return;
    json response = {{"jsonrpc", "2.0"}, {"id", reply.request.value("id", json())}};
    if (reply.kind == Reply::Kind::kResult) response["result"] = reply.result;
    else response["error"] = reply.error;
    recorder_->record(reply.request, response, S().env);
  }

  // The arguments of a call that asked the tool to wait (a positive number under a name such as
  // duration, delay, sleep, wait, timeout, seconds, ms), with that number at the smallest the
  // tool's inputSchema allows (0, else 1). nullopt when the call asked no such thing.
  struct AskedToWait {
    std::string property, what;
    json args;
  };
  std::optional<AskedToWait> asked_to_wait(const std::string& tool, const json& args) {
    if (!args.is_object() || !judge_) return std::nullopt;
    const checks::ToolValidators& v = judge_->validators(tool);
    for (auto it = args.begin(); it != args.end(); ++it) {
      if (!it.value().is_number() || !(it.value().get<double>() > 0)) continue;
      const std::string k = gen::harvest_key(it.key());
      bool timed = k == "ms" || k == "s" || k == "secs" || k == "time" || k == "seconds" || k == "millis";
      for (const char* w : {"duration", "delay", "sleep", "wait", "timeout", "seconds", "millis", "interval"})
        timed = timed || k.find(w) != std::string::npos;
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

  Reply do_call(ToolSummary& ts, const json& args, std::size_t& troubles, bool& alive) {
    // An optional argument the server would fill with a remote URL default is sent pointed at loopback.
    json pinned_args;
    const json* sent = &args;
    if (auto schema = input_schemas_.find(ts.name); schema != input_schemas_.end()) {
      pinned_args = args;
      std::vector<std::string> pinned;
      if (gen::pin_local_defaults(schema->second, pinned_args, &pinned)) {
        sent = &pinned_args;
        if (pinned_noted_.insert(ts.name).second) {
          std::string names;
          for (const auto& p : pinned) names += (names.empty() ? "" : ", ") + p;
          note("tool " + ts.name + ": optional " + names +
               " names a host other than loopback: never sent as it is nor left to the server, every call "
               "sends it pointed at 127.0.0.1:9 (--allow-remote-urls sends the schema's URLs)");
        }
      }
    }
    // A silent call is confirmed as a hang under a longer bound before it is called one, except
    // while shrinking a confirmed hang (each reproduction would cost the whole bound).
    // The tool's own request ids (tool_ids_), whichever session makes the call.
    auto ids = tool_ids_.find(ts.name);
    const std::int64_t session_next = ids != tool_ids_.end() ? S().client->set_next_id(ids->second) : 0;
    Reply reply = [&] {
      Unlocked waiting(cx());
      return S().client->call_tool(ts.name, *sent, !cx().shrinking);
    }();
    if (ids != tool_ids_.end() && S().client) ids->second = S().client->set_next_id(session_next);
    record(reply);
    if (S().calls.size() < kMaxSessionCalls) S().calls.push_back(reply.request);
    if (!ts.read_only) S().wrote = true;
    ts.elapsed += reply.elapsed;
    rep_.calls++;
    ts.calls++;
    if (reply.kind == Reply::Kind::kResult && !reply.is_error_result()) {
      ts.successes++;
      rep_.successes++;
    }
    take(ts.name, checks::Judge::transport(reply));
    if (judge_ && ((reply.kind != Reply::Kind::kResult && reply.kind != Reply::Kind::kError) || !reply.transport_failure.empty()))
      judge_->unanswered(ts.name);
    l_.on_call(ts, rep_.calls);
    take_observations();
    // Slow is not hung: a T-HANG warning about latency, with the time it took.
    auto slow = [&](std::string diagnosis) {
      Finding f;
      f.invariant = "T-HANG";
      f.severity = Severity::kWarning;
      f.request = reply.request;
      f.diagnosis = std::move(diagnosis);
      add(std::move(f));
    };
    if (reply.late && !reply.progressed && (reply.kind == Reply::Kind::kResult || reply.kind == Reply::Kind::kError))
      slow("the answer came after " + std::to_string(reply.elapsed.count()) + " ms, over --timeout " +
           std::to_string(o_.timeout.count()) +
           " ms, with no progress notification meanwhile: the tool is slow, not hung. Send notifications/progress "
           "while working, or raise --timeout if this is expected");
    if (reply.kind == Reply::Kind::kTimeout && reply.progressed && !reply.stray_seen && !reply.oversize) {
      // Progress notifications are liveness whatever their interval: a call that reported progress
      // and was still working when we stopped waiting is slow, not hung (and the server is alive).
      slow("still working after " + std::to_string(reply.elapsed.count()) +
           " ms, reporting progress, when the run stopped waiting: the tool is slow, not hung. Bound the work an "
           "argument can ask for (a maximum in the input schema), or raise --timeout");
    } else if (reply.kind == Reply::Kind::kTimeout) {
      // An answer too long to read is T-FRAMING (already observed), not a hang: the server is
      // alive and its stream goes on.
      if (!reply.stray_seen && !reply.oversize) {
        Finding f;
        f.invariant = "T-HANG";
        f.request = reply.request;
        f.diagnosis = "no answer to tools/call within " + std::to_string(reply.elapsed.count()) + " ms (--timeout " +
                      std::to_string(o_.timeout.count()) +
                      " ms, then as long again as it took to confirm the hang); raise --timeout if the tool is "
                      "legitimately this slow";
        ++troubles;
        alive = restart();
        // A call that asked the tool to wait (duration, delay, sleep, timeout...) is asked again
        // for the shortest wait: answered now, the tool did the long work it was asked for, and
        // the server is slow on request, not hung.
        if (alive && !cx().shrinking && !cx().probing)
          if (auto asked = asked_to_wait(ts.name, args)) {
            cx().probing = true;
            std::size_t probe_troubles = 0;
            Reply quick = do_call(ts, asked->args, probe_troubles, alive);
            cx().probing = false;
            if (quick.kind == Reply::Kind::kResult || quick.kind == Reply::Kind::kError) {
              take(ts.name, judge_->call(exchange(ts.name, asked->args, quick, "", nullptr, false)).outcomes);
              f.severity = Severity::kWarning;
              f.diagnosis = "no answer within " + std::to_string(reply.elapsed.count()) + " ms to a call asking for " +
                            asked->what + ", but the same call with " + asked->property + "=" +
                            asked->args[asked->property].dump() + " was answered in " +
                            std::to_string(quick.elapsed.count()) +
                            " ms: the tool does the long work it is asked for, it is not hung. Give '" + asked->property +
                            "' a maximum in the input schema, or report progress while working";
            }
          }
        add(std::move(f));
      }
    } else if (reply.kind == Reply::Kind::kClosed) {
      crash_finding(reply, "this tools/call");
      ++troubles;
      alive = restart();
    }
    return reply;
  }

  // --- generated calls ----------------------------------------------------------------------
  struct Attempt {
    Reply reply;
    checks::ParsedEnvelope envelope;
    std::vector<Finding> findings;  ///< Not reported yet: the caller decides (shrinking).
    checks::Reach reach = checks::Reach::kNoAnswer;  ///< What the answer reached (the judge's reading).
  };

  // One generated call and every per-call check on its answer; the findings are returned, not
  // reported. `broken`: what an invalid call broke ("" = generated valid). `main`: a call of the
  // plan (harvested, kept for the limit sweep), not a shrink candidate.
  Attempt attempt(ToolSummary& ts, const ToolCtx& tc, const json& args, const std::string& broken, bool main,
                  std::size_t& troubles, bool& alive) {
    Attempt a;
    std::vector<Finding>* outer = cx().capture;
    cx().capture = &a.findings;
    // Put back however this ends: an interrupt unwinds through here (see run()).
    struct PutBack {
      std::vector<Finding>*& slot;
      std::vector<Finding>* old;
      ~PutBack() { slot = old; }
    } put_back{cx().capture, outer};
    a.reply = do_call(ts, args, troubles, alive);
    // An answer the transport could not read (HTTP) was reported as such (T-HTTP-*): not judged.
    if ((a.reply.kind == Reply::Kind::kResult || a.reply.kind == Reply::Kind::kError) && a.reply.transport_failure.empty()) {
      if (main && o_.harvest && a.reply.kind == Reply::Kind::kResult && !a.reply.is_error_result())
        harvest().take_result(a.reply.result);
      checks::Judged j = judge_->call(exchange(ts.name, args, a.reply, broken, nullptr, main));
      a.envelope = j.envelope;
      a.reach = j.reach;
      take(ts.name, std::move(j.outcomes));
      // Success answers of a profile with a limit variable are replayed by the limit sweep.
      if (main && j.answer && sweep_per_tool_[ts.name]++ < kMaxSweepCallsPerTool) {
        SweepCall sc{tc.tool, args, j.envelope.profile, j.envelope, *j.answer};
        if (cx().out) cx().out->sweep_calls.push_back(std::move(sc));
        else if (sweep_calls_.size() < kMaxSweepCalls) sweep_calls_.push_back(std::move(sc));
      }
    }
    return a;
  }

  // Shrinks the call behind `found` with RapidCheck shrink trees: each candidate is called on
  // the server (restarted after a crash or hang) and kept when it breaks the same invariant, until
  // no candidate does, or the shrink's call or time limit is reached. A call generated valid only
  // shrinks to valid calls. Returns the finding of the smallest failing call, with the original
  // request attached.
  Finding shrink(ToolSummary& ts, const ToolCtx& tc, rc::Shrinkable<json> current, Finding found,
                 const std::string& broken, Clock::time_point t0, bool& alive) {
    const json original = found.request;
    const std::string phase = found.phase, label = found.case_label;
    const bool keep_valid = tc.validators->context(tc.tool, current.value(), rep_.era).schema_valid;
    // A confirmed hang is shrunk without confirming each reproduction again (client call_tool).
    const auto started = Clock::now();
    std::size_t tries = 0, steps = 0, troubles = 0;
    bool out_of_time = false;
    cx().shrinking = true;
    bool done = false;
    try {
      while (!done && alive) {
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
            if (keep_valid && !tc.validators->context(tc.tool, args, rep_.era).schema_valid) continue;
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
          Attempt a = attempt(ts, tc, args, broken, false, troubles, alive);
          auto hit = std::find_if(a.findings.begin(), a.findings.end(),
                                  [&](const Finding& f) { return f.invariant == found.invariant; });
          if (hit != a.findings.end()) {
            found = std::move(*hit);
            current = candidate;
            ++steps;
            done = false;
            break;
          }
          if (!alive) break;
        }
      }
    } catch (const core::Interrupted&) {
      // Stopped by a signal: the smallest reproduction so far is the finding. The run notices the
      // signal again at its next wait (see run()).
    }
    cx().shrinking = false;
    if (out_of_time) shrinks_cut_.push_back(found.invariant + " on " + ts.name);
    found.phase = phase;
    found.case_label = label;
    found.shrink_steps = steps;
    if (steps > 0) found.original_request = original;
    return found;
  }

  // --- envelopes --------------------------------------------------------------------------
  bool load_profiles() {
    auto set = load_profile_set(o_.profile);
    if (!set.ok()) {
      rep_.error = set.error();
      return false;
    }
    if (!set->problem.empty()) note("envelope checks are off: " + set->problem);
    profiles_ = std::move(set->candidates);
    forced_ = std::move(set->forced);
    auto hosts = profile::load_hosts(o_.host);
    if (!hosts.ok()) {
      rep_.error = hosts.error();
      return false;
    }
    hosts_ = std::move(*hosts);
    if (hosts_.empty() && (o_.host.empty() || o_.host == "default")) {
      auto dir = profile::schemas_dir();
      note("host checks (H-*) are off: " +
           (dir ? "no host profile in " + *dir + "/hosts is marked default" : dir.error().message));
    }
    return true;
  }

  // The limit sweep (docs/ENVELOPE-CHECKS.md): every recorded call again under the other limits.
  void sweep() {
    // Other limits mean the server's environment changes: only a server this run started can be
    // started again with another one.
    if (http() && o_.command.empty()) {
      if (!sweep_calls_.empty())
        note("the limit sweep was skipped: the server at " + o_.url +
             " was not started by this run, so it cannot be restarted under other limits (give the command that "
             "starts it after --url URL --)");
      return;
    }
    std::map<const profile::Profile*, std::vector<std::size_t>> by_profile;
    for (std::size_t i = 0; i < sweep_calls_.size(); ++i) by_profile[sweep_calls_[i].profile].push_back(i);
    for (const auto& by : by_profile) {
      // Named, not structured bindings: the workers' lambda below captures them (clang 14 cannot).
      const profile::Profile* prof = by.first;
      const std::vector<std::size_t>& idx = by.second;
      const auto& lim = *prof->limit;
      // Each call's limits depend only on its own tool's answers, so a sharded run sweeps a tool
      // exactly as the unsharded run does.
      std::vector<std::vector<std::int64_t>> call_limits(idx.size());
      std::map<std::string, std::size_t> largest_answer;  // tool -> its largest answer
      for (std::size_t i : idx) {
        auto& l = largest_answer[(*sweep_calls_[i].tool)["name"].get<std::string>()];
        l = std::max(l, sweep_calls_[i].main.text.size());
      }
      for (std::size_t k = 0; k < idx.size(); ++k) {
        if (!o_.limits.empty()) {
          call_limits[k] = o_.limits;
        } else if (lim.sweep) {
          // The small limit must really cut the tool's answers: when even its largest answer fits
          // the profile's small value, sweep a power of two below two thirds of that answer (few
          // distinct values, so tools share the extra server runs).
          std::int64_t small = lim.sweep->small;
          const auto big = static_cast<std::int64_t>(largest_answer[(*sweep_calls_[idx[k]].tool)["name"].get<std::string>()]);
          if (lim.kind != profile::LimitKind::kTokens && big > 0 && big <= small) {
            std::int64_t target = std::max<std::int64_t>(big * 2 / 3, 1), p2 = 1;
            while (p2 * 2 <= target) p2 *= 2;
            small = p2;
          }
          call_limits[k] = {small, lim.sweep->large};
        }
      }
      std::vector<std::vector<checks::SweepPoint>> points(idx.size());
      std::vector<std::vector<std::size_t>> answers(idx.size());  // the judge's answer id per point
      for (std::size_t k = 0; k < idx.size(); ++k) {
        const auto& sc = sweep_calls_[idx[k]];
        points[k].push_back(checks::SweepPoint{sc.main.limit.value_or(0), true, sc.main});
        answers[k].push_back(sc.answer);
      }
      const std::int64_t main_limit = points.empty() ? 0 : points[0][0].limit;
      std::set<std::int64_t> all_limits;
      for (const auto& ls : call_limits) all_limits.insert(ls.begin(), ls.end());
      // One server run per other limit, on the --jobs workers; their answers are put in order of
      // limit, and what they found merged in that order, so N does not change the sweep.
      std::vector<std::int64_t> runs;
      for (std::int64_t limit : all_limits)
        if (limit != main_limit && limit > 0) runs.push_back(limit);
      struct LimitRun {
        std::vector<std::optional<std::pair<checks::SweepPoint, std::size_t>>> got;  ///< Per call: its point and answer id.
        ToolOut out;
      };
      std::vector<LimitRun> limit_runs(runs.size());
      for (auto& lr : limit_runs) lr.got.resize(idx.size());
      try {
        for_each_worker(runs.size(), [&](std::size_t li) {
          const std::int64_t limit = runs[li];
          LimitRun& lr = limit_runs[li];
          WorkingFor working(cx(), lr.out);
          S().env = o_.env;
          S().env[*lim.env] = std::to_string(limit);
          finish_session(End::kReplaced);
          rep_.sweep_runs++;
          auto started = start(negotiated_, false);
          if (!started.ok()) {
            note("the limit sweep could not start the server with " + *lim.env + "=" + std::to_string(limit) + ": " +
                 started.error().message);
            return;
          }
          bool alive = true;
          for (std::size_t k = 0; k < idx.size() && alive; ++k) {
            if (std::find(call_limits[k].begin(), call_limits[k].end(), limit) == call_limits[k].end()) continue;
            const auto& sc = sweep_calls_[idx[k]];
            ToolSummary* ts = summary_of((*sc.tool)["name"].get<std::string>());
            std::size_t troubles = 0;
            Reply reply = do_call(*ts, sc.args, troubles, alive);
            if (reply.kind != Reply::Kind::kResult && reply.kind != Reply::Kind::kError) continue;
            checks::Judged j = judge_->call(exchange(ts->name, sc.args, reply, "", prof, true));
            take(ts->name, std::move(j.outcomes));
            if (reply.kind != Reply::Kind::kResult || !j.envelope.profile) continue;
            checks::ParsedEnvelope pe = std::move(j.envelope);
            pe.limit = limit;
            lr.got[k].emplace(checks::SweepPoint{limit, false, std::move(pe)}, j.answer.value_or(SIZE_MAX));
          }
        }, false);
      } catch (...) {
        for (auto& lr : limit_runs) merge_out(lr.out);
        throw;
      }
      for (auto& lr : limit_runs) {
        merge_out(lr.out);
        for (std::size_t k = 0; k < idx.size(); ++k)
          if (lr.got[k]) {
            points[k].push_back(std::move(lr.got[k]->first));
            answers[k].push_back(lr.got[k]->second);
          }
      }
      S().env = o_.env;  // findings the judge held carry the environment they were answered under
      for (std::size_t k = 0; k < idx.size(); ++k) {
        // The largest limit's answer, when complete, is the full array TR-RESUME rebuilds.
        const checks::SweepPoint* largest = nullptr;
        for (const auto& pt : points[k])
          if (!largest || pt.limit > largest->limit) largest = &pt;
        if (largest && largest->env.profile) {
          auto t = checks::resume_arguments(largest->env, *sweep_calls_[idx[k]].tool, sweep_calls_[idx[k]].args);
          const json* items = checks::cut_items(largest->env);
          if (!t && items) full_arrays_[idx[k]] = *items;
        }
        // Where to start following hints: the main answer if it was cut, else the answer cut
        // under the smallest limit (the server resumes under that same limit).
        const checks::SweepPoint* start_point = nullptr;
        for (const auto& pt : points[k]) {
          if (!checks::resume_arguments(pt.env, *sweep_calls_[idx[k]].tool, sweep_calls_[idx[k]].args)) continue;
          if (pt.is_default) {
            start_point = &pt;
            break;
          }
          if (!start_point || pt.limit < start_point->limit) start_point = &pt;
        }
        if (start_point)
          resume_starts_[idx[k]] = ResumeStart{env_for(*lim.env, *start_point), start_point->env};
        checks::Outcomes swept = judge_->sweep(points[k], answers[k]);
        for (auto& f : swept)
          for (const auto& pt : points[k])
            if (f.replay.empty() && f.env.empty() && pt.env.request == f.request) {
              f.env = env_for(*lim.env, pt);
              f.replay = replay_command(f.request, f.env);
            }
        take((*sweep_calls_[idx[k]].tool)["name"].get<std::string>(), std::move(swept));
      }
    }
    S().env = o_.env;
  }

  // TR-RESUME: for each recorded truncated answer that says how to fetch the rest, follow it page
  // by page (under the main run's environment) and compare with the full array when known.
  void resume() {
    if (!invariant_wanted("TR-RESUME")) return;
    std::size_t chains = 0;
    // Without a sweep (no limit variable), the main answers are the starting points.
    for (std::size_t i = 0; i < sweep_calls_.size(); ++i)
      if (!resume_starts_.count(i) && checks::resume_arguments(sweep_calls_[i].main, *sweep_calls_[i].tool,
                                                               sweep_calls_[i].args))
        resume_starts_[i] = ResumeStart{o_.env, sweep_calls_[i].main};
    for (const auto& [i, rs] : resume_starts_) {
      if (chains >= kMaxResumeChains) break;
      const auto& sc = sweep_calls_[i];
      auto next = checks::resume_arguments(rs.first_page, *sc.tool, sc.args);
      if (!next) continue;
      if (S().started_env != rs.env || !S().client) {
        S().env = rs.env;
        finish_session(End::kReplaced);
        rep_.sweep_runs++;
        if (auto st = start(negotiated_, false); !st.ok()) {
          note("could not restart the server to follow truncation hints: " + st.error().message);
          return;
        }
      }
      ++chains;
      std::vector<checks::ParsedEnvelope> pages = {rs.first_page};
      ToolSummary* ts = summary_of((*sc.tool)["name"].get<std::string>());
      bool alive = true;
      std::size_t troubles = 0;
      for (std::size_t k = 0; k < kMaxResumePages && next && alive; ++k) {
        Reply reply = do_call(*ts, *next, troubles, alive);
        if (reply.kind != Reply::Kind::kResult && reply.kind != Reply::Kind::kError) break;
        checks::Judged j = judge_->call(exchange(ts->name, *next, reply, "", sc.profile, false));
        take(ts->name, std::move(j.outcomes));
        if (reply.kind != Reply::Kind::kResult) break;
        checks::ParsedEnvelope pe = std::move(j.envelope);
        if (!pe.profile) break;
        pages.push_back(pe);
        next = checks::resume_arguments(pe, *sc.tool, *next);
      }
      auto full = full_arrays_.find(i);
      take(ts->name, judge_->resume(pages, full != full_arrays_.end() ? &full->second : nullptr));
      if (!alive) break;
    }
    S().env = o_.env;
  }

  std::map<std::string, std::string> env_for(const std::string& var, const checks::SweepPoint& pt) const {
    auto env = o_.env;
    if (!pt.is_default) env[var] = std::to_string(pt.limit);
    return env;
  }

  ToolSummary* summary_of(const std::string& name) {
    for (auto& t : rep_.tools)
      if (t.name == name) return &t;
    ToolSummary t;
    t.name = name;
    rep_.tools.push_back(t);
    return &rep_.tools.back();
  }

  void crash_finding(const Reply& reply, const char* what) {
    // The process closed stdout; give it a moment to be reaped so the status is known.
    // receive() returns at once after EOF, so sleep between polls: an aborting process (core
    // dump) can take a while to be reapable. At most about 2 s.
    std::optional<transport::ExitStatus> st = S().transport->exit_status();
    const bool ours = !http() || !o_.command.empty();  // a process of ours to learn the status of
    for (int i = 0; ours && i < 200 && !st; ++i) {
      {
        Unlocked waiting(cx());
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      st = S().transport->exit_status();
    }
    std::string tail = S().transport->stderr_tail();
    Finding f;
    f.invariant = "T-CRASH";
    f.request = reply.request;
    std::string how = st ? st->describe() : std::string("closed its stdout");
    if (http() && !st) how = "went away (" + S().transport->failure() + ")";
    f.diagnosis = std::string("the server ") + how + " while handling " + what + "; it must stay alive whatever it is sent";
    f.response_excerpt = tail.empty() ? std::string("(no stderr output)")
                                      : "stderr: " + excerpt(tail.substr(tail.size() > 400 ? tail.size() - 400 : 0), 400);
    add(std::move(f));
  }

  const RunOptions& o_;
  Listener& l_;
  RunReport rep_;
  std::map<std::string, std::size_t> index_;
  std::vector<std::string> prelude_;
  std::string negotiated_;
  bool budget_hit_ = false;
  std::size_t jobs_ = 1;             ///< --jobs, resolved.
  std::vector<std::unique_ptr<Session>> sessions_;  ///< [0]: the run's; then the --jobs workers'.
  bool dead_ = false;                ///< A server could not be (re)started: no more tools are started.
  Clock::time_point run_t0_;         ///< When the tools' calls began (--time-budget).
  std::set<std::string> printed_;    ///< Root causes (finding_key) already shown to the listener.
  /// Tool -> the id its next tools/call gets: each tool has its own range, so its requests (and
  /// the reports quoting them) do not depend on which session made them, nor after which calls.
  std::map<std::string, std::int64_t> tool_ids_;
  static constexpr std::int64_t kIdsPerTool = 1000000;
  std::map<std::string, std::string> shrunk_causes_;    ///< Cause (finding_key without the tool) -> tool shrunk on.
  std::map<std::string, std::size_t> shrinks_shared_;   ///< Tool shrunk on -> findings elsewhere not shrunk for it.
  std::vector<profile::Profile> profiles_;   ///< Candidates for --profile auto.
  std::optional<profile::Profile> forced_;   ///< --profile NAME|FILE.
  std::vector<profile::Host> hosts_;         ///< --host.
  std::vector<json> all_tools_;              ///< tools/list, as listed (E-HINT-REF).
  /// Input schemas naming a host other than loopback, for pinning remote URL defaults (none with
  /// --allow-remote-urls).
  std::map<std::string, json> input_schemas_;
  std::set<std::string> pinned_noted_;       ///< Tools whose pinned defaults were noted.
  std::map<std::string, checks::Outcomes> outcomes_;  ///< Tool -> what its checks said ("" = server).
  std::unique_ptr<checks::Judge> judge_;     ///< Made once tools/list is known.
  static constexpr std::size_t kSecondPassCalls = 8;  ///< Per tool that reached no data.
  /// A tool's calls stop after this many answered (or still working) after --timeout: each can
  /// cost a minute (a tool that does the long work an argument asks for), and more say nothing new.
  static constexpr std::size_t kMaxSlowCalls = 4;
  static constexpr std::size_t kDrivenSources = 3;    ///< Calls that reached data, driven per tool.
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
  gen::Harvest harvest_;                      ///< Identifiers from answers, fed to later calls.
  std::size_t main_restarts_ = 0;             ///< Restarts outside shrinking (--max-restarts).
  static constexpr std::size_t kShrinkCandidates = 1024;  ///< Shrinks of one value considered per step.
  static constexpr std::size_t kShrinkExamined = 8192;    ///< Shrinks looked at per step, kept or skipped.
  std::vector<std::string> shrinks_cut_;  ///< Shrinks stopped by --shrink-budget ("INV on tool").
  static constexpr std::size_t kMaxSessionCalls = 1000;
};

}  // namespace

Result<ProfileSet> load_profile_set(const std::string& value) {
  ProfileSet set;
  if (value == "none") return set;
  if (value == "auto") {
    auto all = profile::load_builtins();
    if (!all.ok()) {
      set.problem = all.error().message;
      return set;
    }
    for (auto& p : all.value())
      if (p.location != profile::Location::kNone) set.candidates.push_back(std::move(p));
    return set;
  }
  auto names = profile::builtin_names();
  bool builtin = std::find(names.begin(), names.end(), value) != names.end();
  auto loaded = builtin ? profile::load_builtin(value) : profile::load_file(value);
  if (!loaded.ok()) return make_error("usage", "--profile " + value + ": " + loaded.error().message);
  if (loaded->location != profile::Location::kNone) set.forced.emplace(std::move(loaded.value()));
  return set;
}

std::string finding_key(const Finding& f) {
  std::string shape;
  shape.reserve(f.diagnosis.size());
  static constexpr std::string_view kThisCall = "(this call: ";
  for (std::size_t i = 0; i < f.diagnosis.size(); ++i) {
    char c = f.diagnosis[i];
    if (std::string_view(f.diagnosis).substr(i, kThisCall.size()) == kThisCall) {
      // "(this call: ...)" says what differs between calls with one cause: not part of the cause.
      while (!shape.empty() && shape.back() == ' ') shape.pop_back();
      int depth = 0;
      for (; i < f.diagnosis.size(); ++i) {
        if (f.diagnosis[i] == '(') ++depth;
        else if (f.diagnosis[i] == ')' && --depth == 0) break;
      }
      continue;
    }
    if (c >= '0' && c <= '9') {
      // A number, thousands separators and decimals included, is one '#'.
      while (i + 1 < f.diagnosis.size() &&
             ((f.diagnosis[i + 1] >= '0' && f.diagnosis[i + 1] <= '9') ||
              ((f.diagnosis[i + 1] == ',' || f.diagnosis[i + 1] == '.') && i + 2 < f.diagnosis.size() &&
               f.diagnosis[i + 2] >= '0' && f.diagnosis[i + 2] <= '9')))
        ++i;
      shape += '#';
    } else {
      shape += c;
    }
  }
  return f.invariant + "\x1f" + f.tool + "\x1f" + shape;
}

void publish_outcomes(RunReport& report, const std::map<std::string, checks::Outcomes>& outcomes,
                      const checks::Selection& selection) {
  auto publish = [&](const std::string& tool, std::map<std::string, checks::Status>& statuses,
                     std::map<std::string, std::string>* reasons, std::vector<std::string>& exercised) {
    statuses.clear();
    exercised.clear();
    if (reasons) reasons->clear();
    if (auto it = outcomes.find(tool); it != outcomes.end()) {
      for (const auto& [id, st] : it->second.statuses()) {
        if (!selection.enabled(id)) continue;
        statuses[id] = st == checks::Status::kFailed ? checks::Status::kPassed : st;
        if (st == checks::Status::kNotObserved && reasons)
          if (auto w = it->second.reasons().find(id); w != it->second.reasons().end()) (*reasons)[id] = w->second;
      }
    }
    for (const auto& rf : report.findings)
      if (rf.finding.tool == tool && selection.enabled(rf.finding.invariant)) {
        statuses[rf.finding.invariant] = checks::Status::kFailed;
        if (reasons) reasons->erase(rf.finding.invariant);
      }
    std::set<std::string> ids;
    for (const auto& [id, st] : statuses)
      if (st == checks::Status::kPassed || st == checks::Status::kFailed) ids.insert(id);
    exercised = checks::in_registry_order(ids, selection);
  };
  for (auto& t : report.tools) publish(t.name, t.outcomes, &t.not_observed, t.invariants);
  publish("", report.server_outcomes, nullptr, report.server_invariants);
}

std::vector<std::string> publish_coverage(RunReport& report, const std::map<std::string, checks::Coverage>& coverage,
                                          const std::string& why_none) {
  std::vector<std::string> notes;
  for (auto& ts : report.tools) {
    if (auto it = coverage.find(ts.name); it != coverage.end()) ts.coverage = it->second;
    const checks::Coverage& c = ts.coverage;
    if (!ts.selected || c.calls == 0 || c.data > 0) continue;
    const std::string reached = "0/" + std::to_string(c.calls) + " calls reached data";
    for (auto& [id, why] : ts.not_observed) why += "; " + reached;
    notes.push_back("tool " + ts.name + ": " + c.summary() + ": " + why_none + ", so its success answers were never checked");
  }
  return notes;
}

bool merge_finding(RunReport& report, std::map<std::string, std::size_t>& index, Finding f) {
  const std::string key = finding_key(f);
  if (auto it = index.find(key); it != index.end()) {
    auto& rf = report.findings[it->second];
    rf.count++;
    if (rf.examples.size() < 3 && !f.request.is_null() && f.request != rf.finding.request &&
        std::find(rf.examples.begin(), rf.examples.end(), f.request) == rf.examples.end())
      rf.examples.push_back(std::move(f.request));
    return false;
  }
  index[key] = report.findings.size();
  for (auto& t : report.tools)
    if (t.name == f.tool) t.findings++;
  report.findings.push_back(ReportedFinding{std::move(f), 1, false, "", {}});
  return true;
}

std::size_t RunReport::error_count() const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(), [](const ReportedFinding& f) {
    return !f.baselined && f.finding.severity == Severity::kError;
  }));
}

std::size_t RunReport::warning_count() const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(), [](const ReportedFinding& f) {
    return !f.baselined && f.finding.severity == Severity::kWarning;
  }));
}

std::size_t RunReport::baselined_count() const {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(), [](const ReportedFinding& f) { return f.baselined; }));
}

bool glob_match(std::string_view p, std::string_view t) {
  std::size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi, ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

RunReport run(const RunOptions& options, Listener& listener) { return Runner(options, listener).run(); }

}  // namespace ctxo::engine
