// SPDX-License-Identifier: MIT
// A server instance and the MCP session on it: start (spawn or connect, handshake, the legacy
// retry), end (drain, close, T-SHUTDOWN), restart after a crash or hang, and what the client
// observed on the wire.
#include <algorithm>
#include <atomic>
#include <thread>

#include "checks/hosts.h"
#include "checks/liveness.h"
#include "checks/protocol.h"
#include "core/text.h"
#include "engine/runner.h"
#include "transport/sandbox.h"

namespace ctxo::engine::detail {

// How the server's command is started, under `env`, in sandbox slot `tmp_slot` (its /tmp): one
// place for a session's start and a T-SHUTDOWN probe's.
transport::SpawnOptions Runner::spawn_options(const std::map<std::string, std::string>& env,
                                              std::size_t tmp_slot) const {
  transport::SpawnOptions so;
  so.argv = o_.command;
  so.env = env;
  // Inherited by whatever the server starts: what is still running after the run is found by it.
  if (!marker_.empty()) so.env[transport::kRunMarkerVar] = marker_;
  so.cwd = o_.cwd;
  so.max_line_bytes = o_.max_message_bytes;
  if (o_.sandbox) {
    so.wrapper = o_.sandbox->prefix(tmp_slot);
    so.new_session = true;
    for (const auto& [k, v] : o_.sandbox->env()) so.env.emplace(k, v);  // --env wins
  }
  return so;
}

Result<void> Runner::start(Worker& w, const std::string& forced, bool first) {
  Session& s = w.s;
  const transport::SpawnOptions so = spawn_options(s.env, s.tmp_slot);
  Result<std::unique_ptr<transport::Transport>> t = make_error("spawn", "no transport");
  if (http()) {
    transport::HttpOptions ho;
    ho.url = o_.url;
    ho.headers = o_.headers;
    ho.connect_timeout = o_.timeout;
    ho.max_message_bytes = o_.max_message_bytes;
    // One server process, however many sessions: a worker's session only connects to it.
    if (!o_.command.empty() && s.main) ho.server = so;
    ho.probe = first;  // the session probes once per run
    Unlocked waiting(w);
    t = transport::connect_http(ho);
  } else {
    Unlocked waiting(w);
    t = transport::spawn_stdio(so);
  }
  if (!t.ok()) return t.error();
  s.transport = std::move(t.value());
  mcp::ClientOptions co;
  // The first start is held to --timeout (a server that does not answer is reported at once);
  // one that started before, started again, gets kStartAgain to answer initialize: a short
  // --timeout on a loaded machine must not lose a server that only starts slowly.
  co.timeout = o_.timeout;
  if (!first) co.handshake_timeout = std::max(o_.timeout, kStartAgain);
  co.client_version = CTXO_VERSION;
  s.client = std::make_unique<mcp::Client>(*s.transport, co);
  std::vector<Reply> attempts;
  // A copy: `forced` may be the run's negotiated_, which another worker's start sets meanwhile.
  const std::string version = forced;
  auto info = [&] {
    Unlocked waiting(w);
    return s.client->handshake(version, &attempts);
  }();
  if (!info.ok() && info.error().code == "init-probe") {
    // The server died on the server/discover probe: a legacy server that cannot take an
    // unknown method. Start it again and speak the legacy era from the first line.
    finish_session(w, End::kAbandoned);
    auto again = start(w, "legacy", first);
    if (!again.ok()) return again;
    return {};
  }
  // Not reached, or refused as a client (HTTP 401): nothing the server said is to be judged.
  const std::string unreachable = info.ok() ? std::string() : s.transport->failure();
  if (!info.ok() && !unreachable.empty()) {
    take_observations(w);
    rep_.stderr_tail = s.transport->stderr_tail();
    s.transport->close(std::chrono::milliseconds(300));
    s.client.reset();
    s.transport.reset();
    return make_error(errc::kInit, unreachable);
  }
  if (!info.ok()) {
    if (first) {
      for (const auto& a : attempts) {
        if (a.request.value("method", "") == "server/discover") continue;
        if (a.kind == Reply::Kind::kTimeout && !a.oversize) add(w, checks::no_answer(a.request, "initialize", o_.timeout));
      }
      take(w, "", checks::check_failed_init(attempts));
    }
    take_observations(w);
    std::string msg = info.error().message;
    auto status = s.transport->close(std::chrono::milliseconds(300));
    if (status.how != transport::ExitStatus::How::kRunning && !status.we_signaled && msg.find("exit") == std::string::npos)
      msg += " (" + status.describe() + ")";
    std::string tail = s.transport->stderr_tail();
    if (!tail.empty()) msg += "; its stderr ended with: " + excerpt(tail.substr(tail.size() > 300 ? tail.size() - 300 : 0), 300);
    rep_.stderr_tail = tail;
    s.client.reset();
    s.transport.reset();
    return make_error(errc::kInit, msg);
  }
  // A case replays the handshake of the run's first session, whichever session found it.
  if (first) prelude_ = s.client->replay_prelude();
  s.started_env = s.env;
  s.poison.fresh_instance();
  if (first) {
    if (recorder_) {
      Reply init;
      init.kind = Reply::Kind::kResult;
      init.request = info->init_request;
      init.result = info->init_result;
      record(w, init);
    }
    rep_.server_name = info->name;
    rep_.server_version = info->version;
    rep_.protocol_version = info->protocol_version;
    rep_.era = info->era;
    checks::Outcomes init = checks::check_init(*info);
    for (const char* id : {"T-FRAMING", "T-ID", "T-HANG", "T-CRASH"}) init.pass(id);
    take(w, "", std::move(init));
    take(w, "", checks::check_instructions(judging_.hosts, info->init_result));  // H-DESC
  }
  negotiated_ = info->era == "modern" ? mcp::kModernVersion : info->protocol_version;
  s.transport->handshake_done();
  take_observations(w);
  return {};
}

// Ends the worker's current server.
void Runner::finish_session(Worker& w, End end) {
  Session& s = w.s;
  if (!s.transport) return;
  const bool final = end != End::kAbandoned;
  // A stdio server's late lines (a late answer, a stray line) are read from what it writes
  // until it exits, after its end-of-file (see close()); an HTTP server gets a moment first.
  if (s.client && http()) {
    {
      Unlocked waiting(w);
      s.client->drain(std::chrono::milliseconds(final ? 100 : 0));
    }
    take_observations(w);
  }
  auto before = s.transport->exit_status();
  auto status = [&] {
    Unlocked waiting(w);
    return s.transport->close(final ? o_.grace : std::chrono::milliseconds(300));
  }();
  if (s.client) {
    if (final && !http()) {
      Unlocked waiting(w);
      s.client->drain(std::chrono::milliseconds(10));  // what close() kept: no waiting
    }
    rep_.notifications += s.client->traffic().notifications;
    rep_.server_requests += s.client->traffic().server_requests;
  }
  take_observations(w);  // what ending the session showed (HTTP: the session used after DELETE)
  // The transport's own rules it had a subject for (HTTP: a session, a stream) held, unless a
  // finding says otherwise; the others stay not applicable.
  for (const auto& id : s.transport->exercised()) sink_.pass("", id);
  for (auto& n : s.transport->take_notes()) note(w, std::move(n));
  // T-SHUTDOWN is stdio's rule (exit when stdin closes): an HTTP server is stopped by a signal.
  if (final && !http()) sink_.pass("", "T-SHUTDOWN");
  // T-POISON is confirmed on fresh instances: a stdio server's, outside a replayed case.
  if (final && !http() && !o_.replay) sink_.pass("", "T-POISON");
  if (final && !http() && !before && !status.after_eof) {
    // Its state may be why: the calls made on this instance, or the fewest of them a fresh
    // instance needs to stay up too, are part of the case.
    std::optional<std::vector<json>> needed;
    if (!s.calls.empty() && o_.shrink && !o_.replay) needed = shutdown_calls(w, s.started_env, s.calls);
    const std::vector<json>& calls = needed ? *needed : s.calls;
    Finding f = checks::no_exit_at_eof(o_.grace, end == End::kReplaced, s.calls.size(), status.describe(),
                                       needed ? std::optional<std::size_t>(needed->size()) : std::nullopt);
    if (!calls.empty()) f.sequence = json(calls);
    f.replay = replay_of(json(), s.started_env, f.sequence);
    add(w, std::move(f));
  }
  s.calls.clear();
  s.wrote = false;
  rep_.stderr_tail = s.transport->stderr_tail();
  s.client.reset();
  s.transport.reset();
}

// A fresh instance of the (stdio) server, initialized and sent `calls` (tools/call requests, each
// awaited at most kProbeTimeout: a slow call's state is made when it starts); nullopt when it
// could not be started or `deadline` came first. One place for every probe (T-SHUTDOWN, H-SIZE).
std::optional<Probe> Runner::probe(Worker& w, const std::map<std::string, std::string>& env,
                                   const std::vector<json>& calls, Clock::time_point deadline) {
  Unlocked waiting(w);
  return probe_unlocked(env, calls, deadline);
}

// probe()'s work, with the worker's lock not held: it reads only what the run set before it
// began (options, the negotiated version), so several can run at once (shutdown_calls). In a
// sandbox each probe has a fresh /tmp of its own, as a fresh instance would (and as the replay
// line's tmpfs is): not what the sessions or other probes left there.
std::optional<Probe> Runner::probe_unlocked(const std::map<std::string, std::string>& env, const std::vector<json>& calls,
                                            Clock::time_point deadline) const {
  transport::SandboxSlot tmp(o_.sandbox);
  auto t = transport::spawn_stdio(spawn_options(env, tmp.id()));
  if (!t.ok()) return std::nullopt;
  Probe p;
  p.tmp = std::move(tmp);
  p.transport = std::move(t.value());
  mcp::ClientOptions co;
  co.handshake_timeout = std::max(o_.timeout, kStartAgain);  // see start()
  co.timeout = std::min(o_.timeout, kProbeTimeout);
  co.client_version = CTXO_VERSION;
  p.client = std::make_unique<mcp::Client>(*p.transport, co);
  if (!p.client->handshake(negotiated_).ok()) {
    (void)p.transport->close(std::chrono::milliseconds(0));
    return std::nullopt;
  }
  p.transport->handshake_done();
  for (const auto& call : calls) {
    if (p.client->closed() || p.transport->exit_status()) break;
    if (Clock::now() > deadline) {
      (void)p.transport->close(std::chrono::milliseconds(0));
      return std::nullopt;
    }
    (void)p.client->request("tools/call", call.value("params", json::object()), false);
  }
  return p;
}

// Whether a fresh instance of the (stdio) server, sent `calls`, is still running `--grace` after
// its stdin closed; nullopt when it could not be started or `deadline` came first. The probe
// only answers T-SHUTDOWN's question. Called with no lock held.
std::optional<bool> Runner::stays_up(const std::map<std::string, std::string>& env, const std::vector<json>& calls,
                                     Clock::time_point deadline) const {
  std::optional<Probe> p = probe_unlocked(env, calls, deadline);
  if (!p) return std::nullopt;
  if (p->transport->exit_status()) {  // died on the way (a crash is another finding's business)
    (void)p->transport->close(std::chrono::milliseconds(0));
    return false;
  }
  return !p->transport->close(o_.grace).after_eof;
}

// The fewest of `calls` a case needs, in rounds of candidates, best first, the first that holds
// kept. The first round: no call, alone; then the first call of each of `how.singles` tools not
// annotated read-only, alone (a toggle called twice is off again: no part of the calls may hold
// where one call does), `calls` cut in `how.parts` parts, the latest first (the state a case needs
// is usually made last), and the calls to tools not annotated read-only (what can change the
// server's state) when fewer, before the parts or after them (`how.writes_first`). Later rounds cut
// the one that held again. When nothing of the first round held, `calls` themselves are tried
// (only all of them), and nullopt is returned when they do not hold either (a race: the case keeps
// every call). `how.holds` decides how the candidates are tried and when it has spent its tries.
std::optional<std::vector<json>> Runner::fewest_calls(const std::vector<json>& calls, const FewestCalls& how) {
  auto first_held = [&](const std::vector<std::vector<json>>& seqs) -> std::optional<std::size_t> {
    const std::vector<char> held = how.holds(seqs);
    for (std::size_t i = 0; i < seqs.size() && i < held.size(); ++i)
      if (held[i]) return i;
    return std::nullopt;
  };
  auto cut = [&](const std::vector<json>& seq) {  // the parts, the latest first
    std::vector<std::vector<json>> out;
    const std::size_t n = std::min(std::max<std::size_t>(how.parts, 2), seq.size());
    for (std::size_t i = n; i-- > 0;)
      out.emplace_back(seq.begin() + static_cast<std::ptrdiff_t>(seq.size() * i / n),
                       seq.begin() + static_cast<std::ptrdiff_t>(seq.size() * (i + 1) / n));
    return out;
  };
  // No call first, alone: a case that needs none makes every other try useless.
  if (first_held({{}})) return std::vector<json>{};
  std::vector<json> writes;
  for (const auto& c : calls) {
    const ToolSummary* ts = summary_of(c.value("params", json::object()).value("name", std::string()));
    if (!ts || !ts->read_only) writes.push_back(c);
  }
  std::vector<std::vector<json>> first;
  std::set<std::string> seen;
  for (const auto& c : writes)
    if (first.size() < how.singles && writes.size() > 1 &&
        seen.insert(c.value("params", json::object()).value("name", std::string())).second)
      first.push_back({c});
  const bool try_writes = !writes.empty() && writes.size() < calls.size();
  if (try_writes && how.writes_first) first.push_back(writes);
  for (auto& p : cut(calls)) first.push_back(std::move(p));
  if (try_writes && !how.writes_first) first.push_back(std::move(writes));
  std::optional<std::size_t> held = first_held(first);
  if (!held) {
    if (calls.size() > 1 && Clock::now() < how.deadline && first_held({calls})) return calls;
    return std::nullopt;
  }
  std::vector<json> seq = std::move(first[*held]);
  while (seq.size() > 1 && Clock::now() < how.deadline) {
    std::vector<std::vector<json>> parts = cut(seq);
    held = first_held(parts);
    if (!held) break;  // no part alone: the calls work together
    seq = std::move(parts[*held]);
  }
  return seq;
}

// T-SHUTDOWN's case made minimal: the fewest of `calls` after which a fresh instance stays up
// too, within --shrink-budget (fewest_calls, cutting in kShutdownSplit parts). Each probe that
// stays up costs --grace, so every candidate of a round is probed, each on its own instance,
// kProbesAtOnce at a time on threads of their own.
std::optional<std::vector<json>> Runner::shutdown_calls(Worker& w, const std::map<std::string, std::string>& env,
                                                        const std::vector<json>& calls) {
  FewestCalls how;
  how.parts = kShutdownSplit;
  how.singles = kShutdownSplit;
  how.writes_first = false;  // all are probed at once: a part is the smaller step
  how.deadline = Clock::now() + o_.shrink_budget;
  how.holds = [&](const std::vector<std::vector<json>>& seqs) {
    for (const auto& seq : seqs) rep_.shrink_calls += seq.size();
    std::vector<char> up(seqs.size(), 0);
    Unlocked waiting(w);
    // kProbesAtOnce at a time: a probe that stays up spends --grace waiting, not the CPU, but
    // many servers starting at once on a small machine miss the probe's handshake window.
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> probes;
    for (std::size_t k = 0; k < std::min(kProbesAtOnce, seqs.size()); ++k)
      probes.emplace_back([&] {
        for (std::size_t i; (i = next++) < seqs.size();) {
          const auto r = stays_up(env, seqs[i], how.deadline);
          up[i] = r && *r;
        }
      });
    for (auto& t : probes) t.join();
    return up;
  };
  return fewest_calls(calls, how);
}

// What the servers left running. Their process groups were killed when each session ended, so a
// marked process alive now left the group: a daemon in its own session, or a process that changed
// its group. An interrupted run reports nothing (its servers were abandoned), but still ends them
// when asked to.
void Runner::leftovers(Worker& w) {
  if (marker_.empty()) return;
  auto found = transport::settle_leftovers(marker_, std::chrono::milliseconds(500));
  // The sandbox's own init (bwrap, its PID namespace's pid 1) lives as long as what the server
  // left in it: the processes it keeps are the leftovers, not it.
  if (o_.sandbox && !o_.sandbox->prefix().empty()) {
    const std::string& bwrap = o_.sandbox->prefix().front();
    found.erase(std::remove_if(found.begin(), found.end(),
                               [&](const transport::Leftover& l) { return l.command.rfind(bwrap + " ", 0) == 0; }),
                found.end());
  }
  if (found.empty()) {
    if (rep_.interrupted == 0) sink_.pass("", "T-LEFTOVER");
    return;
  }
  std::vector<transport::Leftover> still;
  if (o_.kill_leftovers) still = transport::end_leftovers(marker_, found, std::chrono::milliseconds(2000));
  if (rep_.interrupted != 0) return;
  std::string listed, pids;
  std::size_t shown = 0;
  for (const auto& l : found) {
    pids += (pids.empty() ? "" : " ") + std::to_string(l.pid);
    if (++shown > 5) continue;
    std::string how = l.own_session ? "its own session" : "";
    if (l.parent == 1) how += std::string(how.empty() ? "" : ", ") + "parent 1";
    listed += (listed.empty() ? "" : "; ") + std::string("pid ") + std::to_string(l.pid) + " `" +
              excerpt(l.command, 200) + "`" + (how.empty() ? "" : " (" + how + ")");
  }
  if (found.size() > 5) listed += "; and " + std::to_string(found.size() - 5) + " more";
  Finding f;
  f.invariant = "T-LEFTOVER";
  f.cause = {{"form", "process-outlived-run"}};
  f.severity = Severity::kWarning;
  f.server_level = true;
  f.diagnosis = std::to_string(found.size()) + (found.size() == 1 ? " process" : " processes") +
                " the server started " + (found.size() == 1 ? "was" : "were") +
                " still running after the run had stopped the server and killed its process group: " + listed + ". ";
  if (!o_.kill_leftovers) f.diagnosis += "Still running: end them with --kill-leftovers, or kill " + pids + ".";
  else if (still.empty()) f.diagnosis += "Ended by --kill-leftovers.";
  else f.diagnosis += std::to_string(still.size()) + " could not be ended by --kill-leftovers.";
  for (const auto& l : found) f.response_excerpt += (f.response_excerpt.empty() ? "" : "\n") + l.command;
  f.response_excerpt = excerpt(f.response_excerpt, 600);
  f.replay = replay_of(json(), w.s.env, json());
  add(w, std::move(f));
}

// Shrinking a crash restarts the server once per reproducing candidate; those restarts are
// bounded by the shrink's own call limit, not by --max-restarts.
bool Runner::restart(Worker& w, bool counted) {
  if (counted && !w.shrinking && main_restarts_ >= o_.max_restarts) {
    note(w, "stopped restarting the server after " + std::to_string(main_restarts_) + " restarts");
    return false;
  }
  if (counted && !w.shrinking) main_restarts_++;
  rep_.restarts++;
  finish_session(w, End::kAbandoned);
  auto r = start(w, negotiated_, false);
  if (!r.ok()) {
    note(w, "the server could not be restarted: " + r.error().message);
    return false;
  }
  return true;
}

// HTTP 401/403 after initialize: the server refused us as a client; nothing else can be learnt,
// so the run ends as a 401 on initialize does (one error line, exit 3), with what was found so far.
bool Runner::refused(Worker& w) {
  if (!w.s.transport) return dead_ && rep_.error && rep_.error->code == errc::kRefused;
  const std::string why = w.s.transport->refused();
  if (why.empty()) return false;
  if (!rep_.error) {
    rep_.error = Error{errc::kRefused, why};
    rep_.exit_code = code(ExitCode::kServer);
  }
  w.s.alive = false;
  dead_ = true;
  return true;
}

// What the client saw on the wire (a log line on stdout, a stray id, an HTTP rule), as findings.
void Runner::take_observations(Worker& w, const json& batch) {
  if (!w.s.client) return;
  for (auto& ob : w.s.client->take_observations()) {
    Finding f;
    f.invariant = ob.invariant;
    f.severity = ob.warning ? Severity::kWarning : Severity::kError;
    f.request = ob.related_request;
    f.response_excerpt = ob.excerpt;
    f.diagnosis = ob.diagnosis;
    f.cause = std::move(ob.cause);
    f.server_level = ob.server_level;
    if (f.invariant == "T-ID") f.batch = batch;  // ids met with several requests in flight
    // A lone surrogate in an answer or a listing, with a host selected that cannot take one: said
    // once, as H-UNICODE (what the host does with it), in place of T-FRAMING.
    if (auto h = checks::unicode_finding(judging_.hosts, f)) f = std::move(*h);
    add(w, std::move(f));
  }
}

void Runner::crash_finding(Worker& w, const Reply& reply, const std::string& what, const json& batch) {
  // The process closed stdout; give it a moment to be reaped so the status is known.
  // receive() returns at once after EOF, so sleep between polls: an aborting process (core
  // dump) can take a while to be reapable. At most about 2 s.
  Session& s = w.s;
  std::optional<transport::ExitStatus> st = s.transport->exit_status();
  const bool ours = !http() || !o_.command.empty();  // a process of ours to learn the status of
  for (int i = 0; ours && i < 200 && !st; ++i) {
    {
      Unlocked waiting(w);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    st = s.transport->exit_status();
  }
  std::string how = st ? st->describe() : std::string("closed its stdout");
  if (http() && !st) how = "went away (" + s.transport->failure() + ")";
  Finding f = checks::crashed(reply.request, how, what, s.transport->stderr_tail());
  f.cause["ended"] = !st ? "closed" : st->how == transport::ExitStatus::How::kSignaled ? "signal" : "exit";
  f.batch = batch;
  add(w, std::move(f));
}

}  // namespace ctxo::engine::detail
