// SPDX-License-Identifier: MIT
#include "checks/judge.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "checks/envelope_util.h"
#include "checks/judge_state.h"
#include "checks/reach.h"
#include "checks/sample.h"
#include "core/json_bounded.h"
#include "core/text.h"

namespace ctxo::checks {

using mcp::Reply;

Judge::Judge(JudgeSetup setup) : s_(std::make_unique<State>()) {
  s_->own_setup = std::move(setup);
  for (const auto& t : s_->own_setup.tools)
    if (t.is_object() && t.contains("name") && t["name"].is_string()) s_->by_name.emplace(t["name"].get<std::string>(), &t);
  if (!s_->own_setup.hosts.empty()) s_->meter = std::make_unique<HostMeter>(std::move(s_->own_setup.hosts));
  s_->generic_pos = std::make_unique<GenericPositions>(s_->setup().workspace ? s_->setup().workspace : s_->setup().root);
}

Outcomes Judge::listing(const std::string& name) {
  if (!s_->meter || !s_->listed.insert(name).second) return {};
  const json* t = s_->tool_json(name);
  return t ? check_listing(s_->meter->hosts(), *t, s_->setup().server_name ? &*s_->setup().server_name : nullptr) : Outcomes{};
}

const std::map<std::string, LargestAnswer>& Judge::largest() const {
  static const std::map<std::string, LargestAnswer> kNone;
  return s_->meter ? s_->meter->largest() : kNone;
}
const HostMeter* Judge::host_meter() const { return s_->meter.get(); }
Judge::~Judge() = default;

Outcomes Judge::transport(const Reply& reply) {
  Outcomes o;
  o.pass("T-FRAMING");
  o.pass("T-ID");
  if (reply.kind == Reply::Kind::kResult || reply.kind == Reply::Kind::kError) {
    o.pass("T-HANG");
    o.pass("T-CRASH");
  } else if (reply.kind == Reply::Kind::kClosed) {
    o.pass("T-HANG");
  } else {
    o.pass("T-CRASH");
  }
  return o;
}

const ToolValidators& Judge::validators(const std::string& name) { return s_->validators_of(name); }

const std::vector<json>& Judge::tools() const { return s_->setup().tools; }

const profile::Profile* Judge::profile_of(const std::string& name) const {
  if (s_->setup().forced) return s_->setup().forced;
  auto it = s_->tools.find(name);
  if (it != s_->tools.end()) return it->second.profile;
  if (s_->parent)
    if (auto p = s_->parent->tools.find(name); p != s_->parent->tools.end()) return p->second.profile;
  return nullptr;
}

Judged Judge::call(const Exchange& x) {
  Judged j;
  try {
    if (!x.reply) return j;
    // Over the checks' budget, every check reads the sample; the host limits the answer itself.
    if (auto sample = sample_reply(*x.reply)) {
      j.sample = std::make_shared<const Reply>(std::move(*sample));
      s_->sampled.insert(x.tool);
    }
    const Reply& whole = *x.reply;
    const Reply& r = j.sample ? *j.sample : whole;
    // The answer read once: every check below and the harvest (Judged::read) take it.
    auto read = std::make_shared<const mcp::Answer>(r);
    j.read = read;
    const mcp::Answer& a = *read;
    Read rd{a, std::nullopt};
    std::optional<mcp::Answer> whole_read;  // the host limits measure the answer itself
    if (j.sample) whole_read.emplace(whole);
    const mcp::Answer& whole_answer = j.sample ? *whole_read : a;
    const std::size_t text_bytes = whole_answer.text_bytes();
    const json* tool = s_->tool_json(x.tool);
    ToolValidators& v = s_->validators_of(x.tool);
    CallContext ctx = v.context(tool, x.arguments, s_->setup().era);
    ctx.strict_error_output = s_->setup().strict_error_output;
    // An answer the transport could not read (reported as T-HTTP-*) is no answer of the server's.
    if (!r.transport_failure.empty()) {
      s_->count(x, rd, j.envelope, Reach::kNoAnswer, text_bytes);
      return j;
    }
    j.outcomes.merge(check_call(ctx, r));
    if (r.kind == Reply::Kind::kResult) j.outcomes.merge(check_split_characters(a));
    if (r.kind != Reply::Kind::kResult && r.kind != Reply::Kind::kError) {
      s_->count(x, rd, j.envelope, Reach::kNoAnswer, text_bytes);
      return j;
    }
    if (s_->meter && r.kind == Reply::Kind::kResult) {
      // Sized as the server answers when configured as the user runs it: the limit sweep's
      // answers under other limits say nothing about what a host will be sent.
      if (!s_->sized_env) s_->sized_env = x.env;
      if (x.env == *s_->sized_env) s_->meter->observe(x.tool, tool, whole_answer, x.before);
    }
    const State::Intent intended = s_->intent(x, ctx, v);
    // A call to a tool the server does not list has no envelope contract.
    if (!tool && s_->setup().tools_known) {
      j.outcomes.merge(check_acceptance(ctx, a, intended.broken, std::nullopt));
      j.reach = reach_of(a, j.envelope, intended.valid);
      s_->count(x, rd, j.envelope, j.reach, text_bytes);
      return j;
    }
    auto& st = s_->tool(x.tool);
    const profile::Profile* p = x.profile ? x.profile : s_->setup().forced;
    ParsedEnvelope probe;
    if (!p && r.kind == Reply::Kind::kResult && !r.is_error_result() && s_->setup().candidates) {
      // Detection on this answer's own shape (profile::detect).
      probe = extract_envelope(s_->input(x, a, nullptr, tool));
      // Detection rules name a profile's distinctive fields (at least two), so a match in any form
      // (a budget error carries tokenBudget) tells the tool's profile.
      if (probe.profile) {
        p = probe.profile;
        st.seen[p->name]++;
        if (!st.profile) st.profile = p;
      }
    }
    if (r.kind == Reply::Kind::kResult && !r.is_error_result()) {
      st.results++;
      if (a.exact_object()) st.json_results++;
    }
    if (!p) p = st.profile;
    if (!p && !s_->settled && !s_->setup().forced && s_->setup().candidates && !s_->setup().candidates->empty()) {
      // Not known yet: kept until settle(), when the tool's or the server's profile is.
      // A first reading, under the profile the server's other tools were seen to speak most.
      const profile::Profile* guess = s_->most_seen();
      const json unlisted = json{{"name", x.tool}, {"inputSchema", {{"type", "object"}}}};
      j.reach = guess ? reach_of(a, extract_envelope(s_->input(x, a, guess, tool ? tool : &unlisted)), intended.valid)
                      : s_->unprofiled_reach(x, a, intended.valid);
      // What the kept answer takes in memory, not its text: its parsed tree is about 7 times the
      // text (nlohmann), and the request, the arguments and the bookkeeping about 1.5 KB more
      // (counted as text, 20,000 small answers held 26 MB against a 64 MiB bound that said 7 MB).
      const std::size_t bytes = 8 * (r.raw.size() + (r.sampled ? kSampleAboveBytes : 0)) + 1536;
      if (st.pending.size() < State::kMaxPending &&
          s_->keep_pending(bytes, st.pending.empty())) {
        Pending pd{x, r, text_bytes, j.reach};
        st.pending.push_back(std::move(pd));
      } else {
        // Past the bound the answer is not judged at all (a refusal cannot be told from a success
        // without the envelope's error form).
        if (!r.is_error_result()) s_->unprofiled++;
      }
      s_->count(x, rd, {}, j.reach, text_bytes);
      j.deferred = true;
      return j;
    }
    s_->judge_under(x, rd, p, ctx, intended, &probe, j);
    j.reach = reach_of(a, j.envelope, intended.valid);
    s_->count(x, rd, j.envelope, j.reach, text_bytes);
  } catch (...) {
    // Never throws: what was judged so far stands.
  }
  return j;
}

ParsedEnvelope Judge::parse(const Exchange& x, const profile::Profile* profile) const {
  if (!x.reply) return {};
  const profile::Profile* p = profile ? profile : profile_of(x.tool);
  if (!p) return {};
  const std::optional<Reply> sample = sample_reply(*x.reply);  // read as call() read it
  const Reply& r = sample ? *sample : *x.reply;
  const mcp::Answer a(r);
  if (r.is_error_result() && !a.exact_object()) {
    ParsedEnvelope pe;
    pe.profile = p;
    pe.request = r.request;
    pe.text = a.text();
    return pe;
  }
  const json* tool = s_->tool_json(x.tool);
  const json empty_tool = json{{"name", x.tool}, {"inputSchema", {{"type", "object"}}}};
  auto in = s_->input(x, a, p, tool ? tool : &empty_tool);
  return extract_envelope(in);
}

Outcomes Judge::stable(const ParsedEnvelope& first, const ParsedEnvelope& second) const {
  return check_stable(first, second);
}

Outcomes Judge::miss(const std::string& tool, const ParsedEnvelope& env, const Reply& reply) const {
  const profile::Profile* p = env.profile ? env.profile : profile_of(tool);
  if (!p) return {};
  if (!p->has_graceful_miss()) return {};
  return check_miss(env, reply);
}

Outcomes Judge::sweep(const std::vector<SweepPoint>& points, const std::vector<std::size_t>& answers) {
  std::vector<Superseded> gone;
  Outcomes out = check_sweep(points, &gone);
  for (std::size_t i = 0; i < points.size() && i < answers.size(); ++i) {
    if (answers[i] >= s_->held.size()) continue;
    auto& h = s_->held[answers[i]];
    if (h.settled) continue;
    h.settled = true;
    for (auto& f : h.findings) {
      bool superseded = std::any_of(gone.begin(), gone.end(), [&](const Superseded& g) {
        return g.limit == points[i].limit && g.invariant == f.invariant;
      });
      if (superseded && f.invariant == "TR-BYTES") s_->silent_drop.insert(h.tool);
      if (superseded && f.invariant == "TR-CAP") s_->env_ignored.insert({h.tool, points[i].limit});
      // A TR-CAP under a limit this tool is found to ignore on another call is that TR-ENV too:
      // settled at finish(), when every call of the tool has been swept.
      if (!superseded && f.invariant == "TR-CAP")
        s_->released.push_back(State::Released{points[i].limit, points[i].is_default, std::move(f)});
      else if (!superseded) out.fail(std::move(f));
    }
    h.findings.clear();
  }
  return out;
}

Outcomes Judge::resume(const std::vector<ParsedEnvelope>& pages, const json* full) const {
  return check_resume(pages, full);
}

std::map<std::string, Outcomes> Judge::settle() {
  std::map<std::string, Outcomes> out;
  if (s_->settled) return out;
  s_->settled = true;
  // The server's profile: the one most of its tools with results speak (at least two of them).
  std::map<const profile::Profile*, std::size_t> speakers;
  std::size_t with_results = 0;
  // Tools that answer in JSON objects are the ones an envelope design covers: a tool whose answers
  // are plain text does not vote against the server's profile (it is still held to it).
  for (const auto& [name, t] : s_->tools)
    if (t.profile) speakers[t.profile]++;
  const profile::Profile* server = nullptr;
  std::size_t votes = 0;
  for (const auto& [p, n] : speakers)
    if (n > votes) server = p, votes = n;
  // A tool whose JSON answers all read as that profile's miss or error form (a lookup that only
  // ever said "not found") does not speak against it.
  auto consistent = [&](const std::string& name, const State::Tool& t) {
    if (!server || t.pending.empty()) return false;
    for (const auto& pd : t.pending) {
      const mcp::Answer a(pd.reply);
      if (!a.exact_object()) continue;
      const json* tj = s_->tool_json(name);
      const json unlisted = json{{"name", name}, {"inputSchema", {{"type", "object"}}}};
      ParsedEnvelope e = extract_envelope(s_->input(pd.x, a, server, tj ? tj : &unlisted));
      if (!e.profile || !e.form || *e.form == profile::FormKind::kSuccess) return false;
    }
    return true;
  };
  for (const auto& [name, t] : s_->tools)
    if (t.profile || (t.json_results > 0 && !consistent(name, t))) ++with_results;
  if (!(votes >= 2 && votes * 2 > with_results)) server = nullptr;

  for (auto& [name, t] : s_->tools) {
    const profile::Profile* p = t.profile;
    if (s_->setup().forced) {
      t.reason = "forced by --profile";
    } else if (p) {
      std::size_t n = t.seen[p->name], all = 0;
      for (const auto& [k, c] : t.seen) all += c;
      t.reason = "its success answers are " + p->name + " envelopes (" + std::to_string(n) + " of " +
                 std::to_string(t.results) + " results" + (all != n ? ", some of another profile" : "") + ")";
    } else if (server && !t.pending.empty()) {
      p = server;
      t.reason = "held to " + server->name + ", the envelope " + std::to_string(votes) + " of the server's " +
                 std::to_string(with_results) + " tools answering in JSON speak; none of its own answers is one";
    } else {
      t.reason = "no answer matched an envelope profile";
    }
    for (auto& pd : t.pending) {
      Judged j;
      pd.x.reply = &pd.reply;
      pd.x.hold = false;
      const ToolValidators& v = s_->validators_of(name);
      CallContext ctx = v.context(s_->tool_json(name), pd.x.arguments, s_->setup().era);
      ctx.strict_error_output = s_->setup().strict_error_output;
      const State::Intent intended = s_->intent(pd.x, ctx, v);
      const mcp::Answer a(pd.reply);
      Read rd{a, std::nullopt};
      s_->judge_under(pd.x, rd, p, ctx, intended, nullptr, j);
      out[name].merge(std::move(j.outcomes));
      // Counted again under the profile it was judged by.
      s_->coverage[name].remove(pd.provisional, pd.x.self_made);
      s_->count(pd.x, rd, j.envelope, p ? reach_of(a, j.envelope, intended.valid) : s_->unprofiled_reach(pd.x, a, intended.valid),
                pd.text_bytes);
    }
    t.pending.clear();
    if (p && !t.profile && !s_->setup().forced) t.profile = p;
  }
  return out;
}

std::map<std::string, Outcomes> Judge::finish() {
  std::map<std::string, Outcomes> out;
  if (s_->meter)
    for (auto& [tool, o] : s_->meter->finish()) out[tool].merge(std::move(o));
  for (auto& r : s_->released) {
    Finding& f = r.finding;
    const std::string tool = f.request.is_object() && f.request.contains("params") && f.request["params"].is_object()
                                 ? f.request["params"].value("name", "")
                                 : "";
    // A server shown to ignore its limit variable (TR-ENV) answers every sweep limit as it does the
    // default: a TR-CAP under a limit the sweep set is that TR-ENV, not a second defect.
    if (!r.is_default && !s_->env_ignored.empty()) continue;
    out[tool].fail(std::move(f));
  }
  s_->released.clear();
  for (auto& [tool, o] : settle()) out[tool].merge(std::move(o));
  for (auto& [tool, o] : s_->generic_pos->finish()) out[tool].merge(std::move(o));
  for (auto& h : s_->held) {
    if (h.settled) continue;
    h.settled = true;
    // A tool that silently drops items reports the full payload's size on its cut answers: that
    // TR-BYTES is the TR-COUNT the sweep reported, on calls the sweep did not replay.
    for (auto& f : h.findings)
      if (!(f.invariant == "TR-BYTES" && s_->silent_drop.count(h.tool))) out[h.tool].fail(std::move(f));
    h.findings.clear();
  }
  // After the kept answers were judged: P-ISERROR per tool, or once for the server ("").
  for (auto& [tool, o] : s_->inband.finish()) out[tool].merge(std::move(o));
  return out;
}

std::map<std::string, ToolProfile> Judge::tool_profiles() const {
  std::map<std::string, ToolProfile> out;
  for (const auto& [name, t] : s_->tools) out[name] = ToolProfile{s_->setup().forced ? s_->setup().forced : t.profile, t.reason};
  return out;
}

void Judge::unanswered(const std::string& tool) { s_->coverage[tool].add(Reach::kNoAnswer); }

void Judge::answered_unjudged(const std::string& tool) { s_->coverage[tool].add(Reach::kError); }

const std::map<std::string, Coverage>& Judge::coverage() const { return s_->coverage; }

const std::map<std::string, std::size_t>& Judge::profiles_detected() const { return s_->detected; }

std::size_t Judge::unprofiled() const { return s_->unprofiled; }

const std::map<std::string, std::size_t>& Judge::generic_readings() const { return s_->generic.readings(); }

const std::set<std::string>& Judge::sampled() const { return s_->sampled; }

}  // namespace ctxo::checks
