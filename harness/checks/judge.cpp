// SPDX-License-Identifier: MIT
#include "checks/judge.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "checks/envelope_util.h"
#include "checks/inband.h"
#include "checks/generic.h"
#include "checks/generic_positions.h"
#include "checks/reach.h"
#include "checks/sample.h"
#include "core/json_bounded.h"
#include "core/text.h"

namespace ctxo::checks {

namespace {

using mcp::Reply;

/// An answer read once (mcp::Answer) and, when a check asks, its generic reading (made once).
struct Read {
  const mcp::Answer& a;
  std::optional<GenericAnswer> g;
  const GenericAnswer& generic() {
    if (!g) g = read_answer(a);
    return *g;
  }
  /// says_truncated(), on the generic reading when one was made.
  bool says_cut() const { return says_truncated(a, g ? &*g : nullptr); }
};

Finding finding(const char* id, const Reply& r, std::map<std::string, std::string> cause, std::string diagnosis) {
  Finding f = detail::reply_finding(id, r, std::move(diagnosis));
  f.cause = std::move(cause);
  return f;
}

std::string quote(const std::string& s) { return "`" + s + "`"; }

/// How an invalid call was refused outside the envelope, as a cause (one design choice, one
/// finding: the same on every tool, whatever the refusal's text quoted).
std::map<std::string, std::string> refusal_cause(const mcp::Answer& a) {
  const Reply& r = a.reply();
  if (r.kind == Reply::Kind::kError) {
    const json* code = r.error.is_object() && r.error.contains("code") ? &r.error["code"] : nullptr;
    return {{"form", "invalid-refused-with-jsonrpc-error"},
            {"code", code && code->is_number_integer() ? std::to_string(code->get<long long>()) : "0"}};
  }
  const std::string& text = a.text();
  if (text.find("Input validation error") != std::string::npos || text.rfind("MCP error -32602", 0) == 0)
    return {{"form", "invalid-refused-by-sdk-validation"}};
  return {{"form", "invalid-refused-with-plain-text"}};
}

/// How an invalid call was refused outside the envelope, said so the author can act on it.
std::string refusal_diagnosis(const mcp::Answer& a, const profile::Profile& p) {
  const Reply& r = a.reply();
  const std::string form = "profile " + quote(p.name) + "'s error envelope";
  if (r.kind == Reply::Kind::kError) {
    int code = r.error.is_object() && r.error.contains("code") && r.error["code"].is_number_integer()
                   ? r.error["code"].get<int>()
                   : 0;
    return "invalid arguments were refused with JSON-RPC error " + std::to_string(code) + " instead of " + form +
           ": an agent that reads every answer as the envelope gets a protocol error. Validate the arguments inside "
           "the handler and answer with the envelope's error form";
  }
  const std::string& text = a.text();
  if (text.find("Input validation error") != std::string::npos || text.rfind("MCP error -32602", 0) == 0)
    return "invalid arguments were refused with the MCP SDK's plain-text validation error (isError:true) instead "
           "of " + form + ": the SDK checked the arguments against the tool's schema before the handler ran, so an "
           "agent that parses every answer as JSON gets text. Validate inside the handler (or map the SDK's "
           "validation error into the envelope's error form)";
  return "invalid arguments were refused with a plain-text isError result instead of " + form +
         ": an agent that parses every answer as JSON gets text. Answer invalid input with the envelope's error form";
}

struct Pending {
  Exchange x;
  Reply reply;  ///< Owned copy (the sample of a huge answer): the caller's reply is gone by finish().
  std::size_t text_bytes = 0;  ///< The text_bytes() of the answer itself (not of its sample).
  Reach provisional = Reach::kData;  ///< Counted in coverage until finish() judges it.
};

/// What an answer reached, from its envelope when it was judged as one, else from its shape.
Reach reach_of(const mcp::Answer& a, const ParsedEnvelope& env, bool valid) {
  const Reply& r = a.reply();
  const Reach failed = valid ? Reach::kError : Reach::kRefusal;
  if (r.kind == Reply::Kind::kError) return failed;
  if (r.kind != Reply::Kind::kResult) return Reach::kNoAnswer;
  if (env.profile && env.form) {
    switch (*env.form) {
      case profile::FormKind::kError: return failed;
      case profile::FormKind::kMiss: return Reach::kMiss;
      case profile::FormKind::kSuccess: break;
    }
  }
  if (r.is_error_result()) return failed;
  if (env.profile) {
    // An array cut to nothing still had data: only an uncut empty result is empty.
    const json* items = cut_items(env);
    const bool cut = detail::truncated_flag(*env.profile, env.envelope).value_or(false);
    return items && items->empty() && !cut ? Reach::kEmpty : Reach::kData;
  }
  // No envelope: what it carries says (checks/reach.h: error prose, a miss, an empty shape, a
  // leaked `undefined`, or data). Coverage here; the in-band rules (checks/inband.h) read it too.
  const json* structured = a.structured();
  // An image, audio or resource is data, though no text (only blanks and section rules) says so.
  if (!structured && a.non_text_content() && a.sections().find_first_not_of(" \t\r\n-") == std::string::npos)
    return Reach::kData;
  const Reach reach = content_reach(a);
  return reach == Reach::kError ? failed : reach;
}

}  // namespace

struct Judge::State {
  JudgeSetup setup;
  std::map<std::string, std::unique_ptr<ToolValidators>> validators;
  struct Tool {
    const profile::Profile* profile = nullptr;  ///< First profile its success answers were seen to be.
    std::map<std::string, std::size_t> seen;    ///< Profile name -> success answers detected as it.
    std::size_t results = 0;                    ///< Answers that were results, not isError.
    std::size_t json_results = 0;               ///< Of those, answers whose text is one JSON object.
    std::vector<Pending> pending;               ///< Answers kept until its profile is known.
    std::string reason;
  };
  std::map<std::string, Tool> tools;
  std::map<std::string, Coverage> coverage;
  std::map<std::string, std::size_t> detected;
  std::size_t unprofiled = 0;
  GenericJudge generic;  ///< The answers no profile matched, read generically.
  struct Held {
    std::string tool;
    std::vector<Finding> findings;  ///< TR-CAP and TR-BYTES, settled by the sweep.
    bool settled = false;
  };
  std::vector<Held> held;
  std::set<std::string> silent_drop;  ///< Tools whose sweep found items silently dropped.
  std::set<std::pair<std::string, std::int64_t>> env_ignored;  ///< (tool, limit) reported as TR-ENV.
  struct Released {
    std::int64_t limit;
    bool is_default;  ///< The main run's answer (not a limit the sweep set).
    Finding finding;
  };
  std::vector<Released> released;  ///< Held TR-CAP the sweep let stand, settled at finish().
  std::unique_ptr<HostMeter> meter;  ///< Null when no host is selected.
  Inband inband;                     ///< P-ISERROR, P-LEAK, internal errors (checks/inband.h).
  /// Positions and quoted text of the answers no profile judged (profile "generic").
  std::unique_ptr<GenericPositions> generic_pos;
  std::optional<std::map<std::string, std::string>> sized_env;  ///< The environment answers are sized under.
  std::set<std::string> listed;  ///< Tools whose listing was checked.
  std::set<std::string> sampled;  ///< Tools some of whose answers were checked on a sample.
  static constexpr std::size_t kMaxPending = 64;
  /// Memory the answers kept until finish() take, all tools together (their trees, not their
  /// text): what a run holds stays bounded whatever the server sends.
  std::size_t pending_bytes = 0;
  static constexpr std::size_t kMaxPendingBytes = 64u << 20;
  bool settled = false;  ///< settle() ran: every answer since is judged at once.

  const json* tool_json(const std::string& name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : it->second;
  }
  /// Each listed name's first entry in setup.tools (a lookup per answer: a listing of 50,000
  /// tools must not make it a scan).
  std::unordered_map<std::string, const json*> by_name;

  ToolValidators& validators_of(const std::string& name) {
    auto it = validators.find(name);
    if (it != validators.end()) return *it->second;
    // A listed tool without an object inputSchema (a P-LIST finding) takes objects; a tool that is
    // not listed has no schema to judge by.
    static const json kUnknown, kAnyObject = json{{"type", "object"}};
    const json* t = tool_json(name);
    const auto in = t ? t->find("inputSchema") : json::const_iterator();
    const json& schema = !t ? kUnknown : in != t->end() && in->is_object() ? *in : kAnyObject;  // not copied
    auto v = std::make_unique<ToolValidators>(schema, t);
    return *validators.emplace(name, std::move(v)).first->second;
  }

  EnvelopeInput input(const Exchange& x, const mcp::Answer& a, const profile::Profile* p, const json* tool) const {
    EnvelopeInput in;
    in.forced = p;
    in.candidates = setup.candidates;
    in.tool = tool;
    in.tools = &setup.tools;
    in.arguments = x.arguments;
    in.env = x.env;
    in.root = setup.root;
    in.reply = &a.reply();
    in.answer = &a;
    return in;
  }

  /// What a call was meant to be, decided in one place: the tool's compiled inputSchema says when
  /// there is one, else the caller's word (a recorded call with no schema to judge it counts as not
  /// valid, with nothing known to be broken).
  struct Intent {
    bool valid = false;
    std::string broken;  ///< For an invalid call: what it breaks ("" = not held to P-REJECT).
  };
  Intent intent(const Exchange& x, const CallContext& ctx, const ToolValidators& v) const {
    Intent i;
    i.valid = v.validates_input() ? ctx.schema_valid : x.validity == Validity::kValid;
    if (i.valid) return i;
    // What a shrunk invalid call breaks may differ from what its original broke: say the former.
    i.broken = v.validates_input() ? v.input_violation(x.arguments) : x.broken;
    // An unknown property is not held to P-REJECT: zod and pydantic strip unknown keys by design.
    if (x.broken.rfind("unknown property", 0) == 0 || i.broken.find("additionalProperties") != std::string::npos)
      i.broken.clear();
    return i;
  }

  /// The candidate profile detected on the most answers so far (nullptr: none).
  const profile::Profile* most_seen() const {
    if (!setup.candidates) return nullptr;
    const profile::Profile* best = nullptr;
    std::size_t most = 0;
    for (const auto& p : *setup.candidates)
      if (auto it = detected.find(p.name); it != detected.end() && it->second > most) best = &p, most = it->second;
    return best;
  }

  /// What an answer judged by no profile reached, read for coverage only: the miss or error form
  /// of a candidate profile that reads it as one (a lookup's `{found:false}`), else its shape.
  Reach unprofiled_reach(const Exchange& x, const mcp::Answer& a, bool valid) const {
    const Reply& r = a.reply();
    if (r.kind == Reply::Kind::kResult && !r.is_error_result() && setup.candidates && a.exact_object()) {
      const json* tj = tool_json(x.tool);
      const json unlisted = json{{"name", x.tool}, {"inputSchema", {{"type", "object"}}}};
      for (const auto& p : *setup.candidates) {
        ParsedEnvelope e = extract_envelope(input(x, a, &p, tj ? tj : &unlisted));
        if (e.profile && e.form && *e.form != profile::FormKind::kSuccess) return reach_of(a, e, valid);
      }
    }
    return reach_of(a, {}, valid);
  }

  /// Counts what one answer reached (and its size, and whether its envelope said it was cut).
  /// `text_bytes`: the size of the answer's text (text_bytes() of the answer, not of its sample).
  void count(const Exchange& x, Read& rd, const ParsedEnvelope& env, Reach reach, std::size_t text_bytes) {
    Coverage& c = coverage[x.tool];
    c.add(reach, x.self_made);
    c.largest_bytes = std::max(c.largest_bytes, text_bytes);
    if (reach == Reach::kData && (env.profile ? detail::truncated_flag(*env.profile, env.envelope).value_or(false)
                                              : rd.says_cut()))
      ++c.truncated;
  }

  // Everything past the protocol checks, under profile `p` (nullptr: not an envelope). `probe`: the
  // envelope detection already extracted from this answer, reused when it is of profile `p`.
  void judge_under(const Exchange& x, Read& rd, const profile::Profile* p, const CallContext& ctx,
                   const Intent& intended, const ParsedEnvelope* probe, Judged& j) {
    const mcp::Answer& a = rd.a;
    const Reply& r = a.reply();
    const bool valid = intended.valid;
    const std::string& broken = intended.broken;
    const json empty_tool = json{{"name", x.tool}, {"inputSchema", {{"type", "object"}}}};
    const json* tool = tool_json(x.tool);
    if (!tool) tool = &empty_tool;
    std::optional<std::string> envelope_error;
    if (p && r.kind == Reply::Kind::kError) {
      // A protocol error is right for an invalid call in any profile (P-*), but where the profile's
      // error form covers invalid input, the envelope is what the agent was promised.
      const profile::Form* ef = p->form(profile::FormKind::kError);
      if (!valid && !broken.empty() && ef && ef->covers_invalid_input) {
        j.outcomes.pass("E-ERROR");
        j.outcomes.fail(finding("E-ERROR", r, refusal_cause(a), refusal_diagnosis(a, *p)));
      }
      return;
    }
    if (r.kind != Reply::Kind::kResult) return;
    const bool is_error = r.is_error_result();
    if (p && is_error && !a.exact_object()) {
      // An isError answer that is not an envelope is never judged as a success envelope.
      const profile::Form* ef = p->form(profile::FormKind::kError);
      j.outcomes.pass("E-ERROR");
      if (!valid && !broken.empty()) {
        if (ef && ef->covers_invalid_input)
          j.outcomes.fail(finding("E-ERROR", r, refusal_cause(a), refusal_diagnosis(a, *p)));
      } else if (valid && reads_as_input_rejection(a.text())) {
        // A valid call refused as invalid: P-ACCEPT (below) is the root cause.
      } else if (!p->is_error_text) {
        j.outcomes.fail(finding("E-ERROR", r, {{"form", "plain-text-error"}},
                                "the result has isError:true with plain text, but profile " + quote(p->name) +
                                    " says errors are envelopes"));
      }
      p = nullptr;
    }
    if (p) {
      auto in = input(x, a, p, tool);
      j.envelope = probe && probe->profile == p ? *probe : extract_envelope(in);
      if (j.envelope.profile) {
        detected[j.envelope.profile->name]++;
        if (is_error && j.envelope.form == profile::FormKind::kSuccess) {
          // isError:true around what reads as a success envelope: not the error form.
          j.outcomes.fail(finding("E-ERROR", r, {{"form", "iserror-on-success-envelope"}},
                                  "the result has isError:true but its envelope is not profile " + quote(p->name) +
                                      "'s error form"));
          j.envelope = {};
        } else {
          Outcomes checked = check_envelope(in, j.envelope);
          for (Finding& f : checked) f.profile = p->name;
          // A sample is not swept: the sweep compares items and sizes across answers.
          const bool sweepable = x.hold && !r.sampled && j.envelope.form == profile::FormKind::kSuccess && p->limit && p->limit->env;
          if (sweepable) {
            Held h;
            h.tool = x.tool;
            Outcomes kept;
            for (auto& f : checked.take_findings()) {
              if (f.invariant == "TR-CAP" || f.invariant == "TR-BYTES") h.findings.push_back(std::move(f));
              else kept.fail(std::move(f));
            }
            Outcomes statuses = std::move(checked);
            j.outcomes.merge(std::move(statuses));
            j.outcomes.merge(std::move(kept));
            j.answer = held.size();
            held.push_back(std::move(h));
          } else {
            j.outcomes.merge(std::move(checked));
          }
          if (j.envelope.form == profile::FormKind::kError) {
            std::string said;
            if (const profile::Form* ef = p->form(profile::FormKind::kError)) {
              for (const auto& ptr : {ef->code_pointer, ef->message_pointer})
                if (ptr)
                  if (const json* v = profile::resolve_pointer(j.envelope.envelope, *ptr))
                    said += (said.empty() ? "" : " ") + (v->is_string() ? v->get<std::string>() : v->dump());
            }
            envelope_error = said.empty() ? std::string("error") : said;
          }
        }
      } else {
        unprofiled++;
        j.outcomes.merge(generic_pos->check(x.tool, tool_json(x.tool), x.arguments, a));
        // No profile matched: the generic reading (checks/generic.h), of success answers only.
        if (!is_error) generic.judge(a, rd.generic(), j.outcomes);
      }
    } else if (!is_error) {
      unprofiled++;
      j.outcomes.merge(generic_pos->check(x.tool, tool_json(x.tool), x.arguments, a));
      generic.judge(a, rd.generic(), j.outcomes);
    }
    // In-band failures (checks/inband.h): P-ISERROR (held until finish), P-LEAK and internal errors
    // as P-NO-THROW, on answers no envelope profile judged (a profile has its own error forms).
    if (!j.envelope.profile) j.outcomes.merge(inband.judge(x.tool, tool_json(x.tool), x.arguments, a, valid, x.env));
    j.outcomes.merge(check_acceptance(ctx, a, broken, envelope_error));
    if (r.sampled) drop_sample_findings(j.outcomes);
  }

  /// A sample's counts and sizes are not the answer's: what they would say is not said. The rules
  /// stay passed (what else they check held on the sample).
  static void drop_sample_findings(Outcomes& o) {
    Outcomes kept;
    for (auto& f : o.take_findings())
      if (f.invariant != "TR-COUNT" && f.invariant != "TR-BYTES") kept.fail(std::move(f));
    for (const auto& [id, st] : o.statuses()) {
      const auto why = o.reasons().find(id);
      kept.raise(id, st == Status::kFailed ? Status::kPassed : st, why == o.reasons().end() ? "" : why->second);
    }
    o = std::move(kept);
  }
};

Judge::Judge(JudgeSetup setup) : s_(std::make_unique<State>()) {
  s_->setup = std::move(setup);
  for (const auto& t : s_->setup.tools)
    if (t.is_object() && t.contains("name") && t["name"].is_string()) s_->by_name.emplace(t["name"].get<std::string>(), &t);
  if (!s_->setup.hosts.empty()) s_->meter = std::make_unique<HostMeter>(std::move(s_->setup.hosts));
  s_->generic_pos = std::make_unique<GenericPositions>(s_->setup.workspace ? s_->setup.workspace : s_->setup.root);
}

Outcomes Judge::listing(const std::string& name) {
  if (!s_->meter || !s_->listed.insert(name).second) return {};
  const json* t = s_->tool_json(name);
  return t ? check_listing(s_->meter->hosts(), *t, s_->setup.server_name ? &*s_->setup.server_name : nullptr) : Outcomes{};
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

const std::vector<json>& Judge::tools() const { return s_->setup.tools; }

const profile::Profile* Judge::profile_of(const std::string& name) const {
  if (s_->setup.forced) return s_->setup.forced;
  auto it = s_->tools.find(name);
  return it == s_->tools.end() ? nullptr : it->second.profile;
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
    CallContext ctx = v.context(tool, x.arguments, s_->setup.era);
    ctx.strict_error_output = s_->setup.strict_error_output;
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
    if (!tool && s_->setup.tools_known) {
      j.outcomes.merge(check_acceptance(ctx, a, intended.broken, std::nullopt));
      j.reach = reach_of(a, j.envelope, intended.valid);
      s_->count(x, rd, j.envelope, j.reach, text_bytes);
      return j;
    }
    auto& st = s_->tools[x.tool];
    const profile::Profile* p = x.profile ? x.profile : s_->setup.forced;
    ParsedEnvelope probe;
    if (!p && r.kind == Reply::Kind::kResult && !r.is_error_result() && s_->setup.candidates) {
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
    if (!p && !s_->settled && !s_->setup.forced && s_->setup.candidates && !s_->setup.candidates->empty()) {
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
          (s_->pending_bytes + bytes <= State::kMaxPendingBytes || st.pending.empty())) {
        s_->pending_bytes += bytes;
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
    if (s_->setup.forced) {
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
      CallContext ctx = v.context(s_->tool_json(name), pd.x.arguments, s_->setup.era);
      ctx.strict_error_output = s_->setup.strict_error_output;
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
    if (p && !t.profile && !s_->setup.forced) t.profile = p;
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
  for (const auto& [name, t] : s_->tools) out[name] = ToolProfile{s_->setup.forced ? s_->setup.forced : t.profile, t.reason};
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
