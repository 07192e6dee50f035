// SPDX-License-Identifier: MIT
// The judge: every check of one answered tools/call, in one place, called the same way by the
// live run (engine) and the offline one (`ctxo-conform check`), so their verdicts cannot drift.
// It knows what the call was meant to be (valid, invalid, unknown), decides which envelope
// profile each tool speaks (forced, seen on its own success answers, or held to the profile most
// of the server's tools speak), and keeps the answers it cannot judge yet until finish().
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/envelope.h"
#include "checks/hosts.h"
#include "checks/outcome.h"
#include "checks/protocol.h"
#include "mcp/answer.h"
#include "mcp/client.h"
#include "profile/profile.h"

namespace ctxo::checks {

using nlohmann::json;

/// What the caller meant a call to be. The tool's compiled inputSchema has the last word; this is
/// used only when there is none to judge by.
enum class Validity {
  kValid,    ///< Generated valid for the tool's inputSchema.
  kInvalid,  ///< Generated to break it (Exchange::broken says how).
  kUnknown,  ///< Recorded elsewhere (offline): counts as not valid when no schema can say.
};

/// What the judge is told once per run.
struct JudgeSetup {
  const profile::Profile* forced = nullptr;                   ///< --profile NAME|FILE; nullptr = auto.
  const std::vector<profile::Profile>* candidates = nullptr;  ///< --profile auto: the built-ins.
  std::vector<json> tools;                                    ///< tools/list, as listed.
  /// True when `tools` is the server's whole list, so a call to a tool not in it has no envelope
  /// contract (offline: a transcript without tools/list leaves it false).
  bool tools_known = true;
  std::optional<std::string> root;  ///< --root DIR (POS-UTF16).
  /// The directory the generic position rules read (--root, else --cwd); unset: `root`.
  std::optional<std::string> workspace;
  std::string era = "legacy";
  /// --strict-error-output (CallContext::strict_error_output).
  bool strict_error_output = false;
  /// --host: the host profiles H-* checks judge by (empty: none). Answers count for H-SIZE and
  /// H-DECLARED only under the environment of the first call judged (the server as configured),
  /// not under the limit sweep's.
  std::vector<profile::Host> hosts;
  /// The server's name for host rules on prefixed tool names (mcp__<server>__<tool>); unset or
  /// empty: those rules are not checked.
  std::optional<ServerName> server_name;
};

/// One answered (or not) tools/call.
struct Exchange {
  std::string tool;  ///< The tool called.
  json arguments = json::object();
  const mcp::Reply* reply = nullptr;
  std::map<std::string, std::string> env;  ///< The server's environment overrides when it answered.
  Validity validity = Validity::kUnknown;
  /// kInvalid: the generator's label of what the call breaks ("unknown property ..." is not held to
  /// P-REJECT: SDKs strip unknown keys by design). The schema's own violation is named instead
  /// when the schema compiled.
  std::string broken;
  /// Judge under this profile whatever the answer looks like (the limit sweep's); nullptr = the
  /// forced one, else the tool's.
  const profile::Profile* profile = nullptr;
  /// A call whose answer the limit sweep will pair (a main call): its TR-CAP and TR-BYTES findings
  /// are held for sweep(), which knows whether a sweep finding is their root cause. Shrink
  /// candidates and repeats are not held: their findings come back at once.
  bool hold = false;
  /// The tools/call requests made on the same server instance before this one (this one may be
  /// last), when any of them may have changed the server's state; nullptr otherwise. A host-limit
  /// finding on this answer carries them (Finding::sequence), so its case replays them first.
  const std::vector<json>* before = nullptr;
  /// The call carries a value the run made up and gave a tool that writes, and no value the run
  /// knows from elsewhere (engine/self_made.h): its data is counted as Coverage::self_made.
  bool self_made = false;
};

/// What the judge said about one exchange now.
struct Judged {
  Outcomes outcomes;        ///< Statuses and findings decided now.
  ParsedEnvelope envelope;  ///< The envelope, when the answer was judged as one (profile set).
  bool deferred = false;    ///< Kept until finish(): the tool's profile is not known yet.
  /// Set when `envelope` is a success envelope whose profile has a limit variable: the id to
  /// give sweep() for this answer (its held findings are settled there).
  std::optional<std::size_t> answer;
  /// What the answer reached (for an answer kept until finish(), a first reading from its shape:
  /// success with text is data; finish() counts it again under the profile it is judged by).
  Reach reach = Reach::kNoAnswer;
  /// The sample the answer was checked on when it was over the checks' budget (checks/sample.h;
  /// null otherwise): what else reads the answer (the harvest) reads the same sample.
  std::shared_ptr<const mcp::Reply> sample;
  /// The answer as the checks read it (of `sample` when there is one, else of the caller's reply,
  /// which must outlive it): what else reads the answer (the harvest) reads it from here.
  std::shared_ptr<const mcp::Answer> read;
};

/// The profile a tool was judged by, and why.
struct ToolProfile {
  const profile::Profile* profile = nullptr;  ///< nullptr: no envelope profile.
  std::string reason;
};

class Judge {
 public:
  explicit Judge(JudgeSetup setup);
  ~Judge();
  Judge(const Judge&) = delete;
  Judge& operator=(const Judge&) = delete;

  /// Transport statuses of one tools/call (T-FRAMING, T-ID, T-HANG, T-CRASH are exercised by every
  /// request; a timeout or a closed pipe leaves the engine to report the failure).
  static Outcomes transport(const mcp::Reply& reply);

  /// Every per-answer check of `x`: P-RESULT, P-NO-THROW, P-ACCEPT, P-REJECT, and the envelope
  /// checks under the tool's profile; on an answer no profile judged, the in-band rules
  /// (checks/inband.h: P-LEAK, internal errors as P-NO-THROW; P-ISERROR held until finish()).
  /// Never throws.
  Judged call(const Exchange& x);

  /// The envelope of `reply` under `profile` (nullptr: the tool's), with no checks run (for the
  /// cross-response checks: E-STABLE, E-MISS, the sweep, hint following).
  ParsedEnvelope parse(const Exchange& x, const profile::Profile* profile = nullptr) const;

  /// The profile tool `name` is judged by now (forced, or seen on its success answers).
  const profile::Profile* profile_of(const std::string& name) const;

  /// The compiled schemas of tool `name` (empty validators for an unknown tool).
  const ToolValidators& validators(const std::string& name);
  /// The listing it was given (JudgeSetup::tools), kept here once for the whole run.
  const std::vector<json>& tools() const;

  /// E-STABLE on two answers to the same call.
  Outcomes stable(const ParsedEnvelope& first, const ParsedEnvelope& second) const;
  /// E-MISS on the answer to a lookup of an identifier that cannot exist. Not applicable to a
  /// profile without a graceful-miss form or miss codes.
  Outcomes miss(const std::string& tool, const ParsedEnvelope& env, const mcp::Reply& reply) const;
  /// The limit sweep of one call: `points` are its answers under several limits; `answers` the
  /// Judged::answer ids of those points that came through call() (their held findings are
  /// released here, or dropped when the sweep found their root cause). Returns the sweep's
  /// outcomes and the per-point findings it lets stand.
  Outcomes sweep(const std::vector<SweepPoint>& points, const std::vector<std::size_t>& answers);
  /// TR-RESUME over followed pages.
  Outcomes resume(const std::vector<ParsedEnvelope>& pages, const json* full) const;

  /// Judges the answers kept because their tool's profile was unknown when they came, by the
  /// tool's profile, or by the profile most of the server's tools speak, or by none (the generic
  /// reading and the in-band rules); every answer after it is judged at once, as it comes (so a
  /// finding it gives can still be shrunk on a live server). Once; finish() calls it if no one
  /// did. Per tool name.
  std::map<std::string, Outcomes> settle();

  /// Settles what was kept: settle() if not done yet; held findings that no sweep settled are
  /// released; P-ISERROR per tool, or under "" once for the server (a Finding::server_level) when
  /// no tool sets isError on its failures. Per tool name.
  std::map<std::string, Outcomes> finish();

  /// H-NAME, H-SCHEMA and H-DECLARED on tool `name`'s tools/list entry, once per tool (later calls
  /// return nothing); nothing for a tool not listed or when no host is selected.
  Outcomes listing(const std::string& name);
  /// Per tool: its largest answer and the hosts' headroom on it (complete after finish()).
  const std::map<std::string, LargestAnswer>& largest() const;
  /// What the host limits were measured with (H-SIZE's cases are made minimal by it after
  /// finish()); nullptr when no host is selected.
  const HostMeter* host_meter() const;

  /// A tools/call to `tool` that got no answer (timeout, closed pipe): coverage only.
  void unanswered(const std::string& tool);
  /// A tools/call to `tool` answered by a message that is not judged as the tool's answer (both
  /// result and error): coverage only, counted as an error (the call was answered).
  void answered_unjudged(const std::string& tool);
  /// Per tool: what its answers reached (final after finish()).
  const std::map<std::string, Coverage>& coverage() const;

  /// Per tool: the profile it was judged by and why (after finish()).
  std::map<std::string, ToolProfile> tool_profiles() const;
  /// Answers seen per detected profile, and answers judged by no profile.
  const std::map<std::string, std::size_t>& profiles_detected() const;
  std::size_t unprofiled() const;
  /// Of those, answers per generic reading ("json", "json+markdown", "fenced-json", "markdown",
  /// "prose"; checks/generic.h).
  const std::map<std::string, std::size_t>& generic_readings() const;
  /// Tools some of whose answers were checked on a sample (checks/sample.h).
  const std::set<std::string>& sampled() const;

  /// A shard of this judge for one piece of parallel work (--jobs: a tool's work in a phase,
  /// engine/workers.cpp): it judges answers as this judge would, reading what this judge knows
  /// (the listing, the compiled schemas, each tool's profile, the profiles detected), which must
  /// not change while the shard lives; what it learns stays in the shard until absorb(). Its
  /// call(), parse(), profile_of(), validators(), stable(), miss(), unanswered() and
  /// answered_unjudged() may run on another thread than its parent's, at the same time as other
  /// shards'; settle(), finish(), sweep() and the reports are the parent's.
  std::unique_ptr<Judge> fork() const;
  /// Adds what `shard` judged, as if this judge had judged it after its own answers (shards are
  /// absorbed in a fixed order: the tools' order). Returns what to add to the Judged::answer ids
  /// the shard gave (its answers' held findings are now this judge's).
  std::size_t absorb(Judge& shard);

 private:
  struct State;
  explicit Judge(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace ctxo::checks
