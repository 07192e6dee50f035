// SPDX-License-Identifier: MIT
// Inside the judge (not installed; included by checks/judge.cpp and checks/judge_shard.cpp only):
// its state, and the pieces of one answer's judging that both files use.
#pragma once

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "checks/envelope_util.h"
#include "checks/generic.h"
#include "checks/generic_positions.h"
#include "checks/inband.h"
#include "checks/judge.h"
#include "checks/judge_detail.h"

namespace ctxo::checks {

namespace judge_detail {

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

inline Finding finding(const char* id, const Reply& r, std::map<std::string, std::string> cause, std::string diagnosis) {
  Finding f = detail::reply_finding(id, r, std::move(diagnosis));
  f.cause = std::move(cause);
  return f;
}

struct Pending {
  Exchange x;
  Reply reply;  ///< Owned copy (the sample of a huge answer): the caller's reply is gone by finish().
  std::size_t text_bytes = 0;  ///< The text_bytes() of the answer itself (not of its sample).
  Reach provisional = Reach::kData;  ///< Counted in coverage until finish() judges it.
};

}  // namespace judge_detail

using judge_detail::finding;
using judge_detail::Pending;
using judge_detail::quote;
using judge_detail::Read;
using judge_detail::reach_of;
using judge_detail::refusal_cause;
using judge_detail::refusal_diagnosis;

struct Judge::State {
  using Reply = mcp::Reply;
  JudgeSetup own_setup;
  const JudgeSetup* sp = &own_setup;  ///< The run's (a shard's: its parent's).
  const JudgeSetup& setup() const { return *sp; }
  /// A shard's (Judge::fork): the judge it was forked from, read and never changed while the
  /// shard lives (the tools' profiles, the profiles detected, the compiled schemas, the listing).
  const State* parent = nullptr;
  /// Schemas a shard compiled for a tool another shard compiled too (their tools' runs may
  /// still point at them): kept, not destroyed, when the shards are absorbed.
  std::vector<std::unique_ptr<ToolValidators>> retired;
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
  /// text): what a run holds stays bounded whatever the server sends. Shared with the shards
  /// (fork), which keep answers at the same time: one bound for them all.
  std::shared_ptr<std::atomic<std::size_t>> pending_bytes = std::make_shared<std::atomic<std::size_t>>(0);
  static constexpr std::size_t kMaxPendingBytes = 64u << 20;
  /// Counts `bytes` more kept when they fit the bound (or `always`); false when they did not.
  bool keep_pending(std::size_t bytes, bool always) {
    std::size_t now = pending_bytes->load();
    do {
      if (!always && now + bytes > kMaxPendingBytes) return false;
    } while (!pending_bytes->compare_exchange_weak(now, now + bytes));
    return true;
  }
  bool settled = false;  ///< settle() ran: every answer since is judged at once.

  const json* tool_json(const std::string& name) const {
    if (parent) return parent->tool_json(name);
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : it->second;
  }
  /// Each listed name's first entry in setup().tools (a lookup per answer: a listing of 50,000
  /// tools must not make it a scan).
  std::unordered_map<std::string, const json*> by_name;

  ToolValidators& validators_of(const std::string& name) {
    auto it = validators.find(name);
    if (it != validators.end()) return *it->second;
    if (parent)
      if (auto p = parent->validators.find(name); p != parent->validators.end()) return *p->second;
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
    in.candidates = setup().candidates;
    in.tool = tool;
    in.tools = &setup().tools;
    in.arguments = x.arguments;
    in.env = x.env;
    in.root = setup().root;
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
    if (!setup().candidates) return nullptr;
    const profile::Profile* best = nullptr;
    std::size_t most = 0;
    for (const auto& p : *setup().candidates) {
      std::size_t n = 0;
      if (auto it = detected.find(p.name); it != detected.end()) n += it->second;
      if (parent)
        if (auto it = parent->detected.find(p.name); it != parent->detected.end()) n += it->second;
      if (n > most) best = &p, most = n;
    }
    return best;
  }

  /// Tool `name`'s state (a shard's starts with the profile its parent knows for it).
  Tool& tool(const std::string& name) {
    auto [it, fresh] = tools.try_emplace(name);
    if (fresh && parent)
      if (auto p = parent->tools.find(name); p != parent->tools.end()) it->second.profile = p->second.profile;
    return it->second;
  }

  /// What an answer judged by no profile reached, read for coverage only: the miss or error form
  /// of a candidate profile that reads it as one (a lookup's `{found:false}`), else its shape.
  Reach unprofiled_reach(const Exchange& x, const mcp::Answer& a, bool valid) const {
    const Reply& r = a.reply();
    if (r.kind == Reply::Kind::kResult && !r.is_error_result() && setup().candidates && a.exact_object()) {
      const json* tj = tool_json(x.tool);
      const json unlisted = json{{"name", x.tool}, {"inputSchema", {{"type", "object"}}}};
      for (const auto& p : *setup().candidates) {
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

}  // namespace ctxo::checks
