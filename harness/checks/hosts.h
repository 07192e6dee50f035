// SPDX-License-Identifier: MIT
// Host limits (H-SIZE, H-NAME, H-SCHEMA, H-DECLARED, H-DESC): will the hosts that read this server's
// tools and answers take them as they are? Thresholds, what happens past them and the severity
// come from host profiles (profile/host.h); nothing about a particular host is written here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/outcome.h"
#include "mcp/answer.h"
#include "mcp/client.h"
#include "profile/host.h"

namespace ctxo::checks {

/// One answer's size as hosts measure it.
struct AnswerSize {
  std::int64_t chars = 0;         ///< UTF-16 code units of its text (text content blocks joined by "\n").
  std::int64_t bytes = 0;         ///< UTF-8 bytes of that text.
  /// Lines of that text, as a host splitting it on "\n" counts them (a final "\n" ends the last
  /// line rather than starting one).
  std::int64_t lines = 0;
  std::int64_t result_chars = 0;  ///< UTF-16 code units of the whole CallToolResult serialised.
  std::int64_t result_bytes = 0;  ///< UTF-8 bytes of it.
  bool is_error = false;          ///< An isError result.
  /// The largest image (audio) content block: the length of its base64 `data`, as sent.
  std::int64_t image_bytes = 0, audio_bytes = 0;
  /// How many times the answer quotes a long string the run generated (an argument of kEchoMin
  /// bytes or more, of this call or of a call that wrote before it on the same instance); its
  /// sizes above count each such quote as a realistic kEchoCounted-character value.
  std::int64_t echoes = 0;
};

/// A generated string at least this long (UTF-8 bytes) is no value an agent would send: harvested
/// values are at most 512 bytes, so only the generator's long strings (schema maxLength
/// boundaries, random text) are this long.
inline constexpr std::size_t kEchoMin = 1024;
/// What each quote of such a string is measured as.
inline constexpr std::int64_t kEchoCounted = 32;

/// `size` (of `reply`) with every quote of a long generated string, from the call's arguments or
/// from `before` (the calls made on the same instance before it), counted as kEchoCounted
/// characters and bytes: an answer large only because it echoes the run's own input is measured
/// as it would be with a realistic value. Quotes are found as sent and JSON-escaped.
AnswerSize without_echoes(AnswerSize size, const mcp::Reply& reply, const std::vector<nlohmann::json>* before);

/// The long generated strings of a sequence of calls (those kEchoMin or longer, as without_echoes
/// finds them), kept as the sequence grows: each call's arguments are walked once, not again for
/// every answer (a session's earlier calls are up to a thousand, and most hold no long string).
class EchoStrings {
 public:
  /// The first kEchoStrings distinct long strings of `calls`, in the order they come: `calls` is
  /// read from where the last call stopped when it only grew since (its last element seen then is
  /// still there), else from its start.
  const std::vector<std::string>& of(const std::vector<nlohmann::json>& calls);

 private:
  const std::vector<nlohmann::json>* calls_ = nullptr;
  std::size_t seen_ = 0;
  nlohmann::json last_;
  std::vector<std::string> strings_;
};

/// without_echoes with `before`'s long strings already gathered (`EchoStrings::of`).
AnswerSize without_echoes(AnswerSize size, const mcp::Reply& reply, const std::vector<std::string>& before_strings);
AnswerSize without_echoes(AnswerSize size, const mcp::Answer& answer, const std::vector<std::string>& before_strings);

/// Measures a tools/call result; the serialised result's UTF-16 length and UTF-8 size only when
/// asked (each is a pass over the whole answer).
AnswerSize measure_answer(const mcp::Answer& answer, bool result_chars, bool result_bytes);
AnswerSize measure_answer(const mcp::Reply& reply, bool result_chars, bool result_bytes);

/// How close one host limit came on a tool's largest answer.
struct Headroom {
  std::string host;   ///< Host title.
  std::string limit;  ///< Limit id.
  std::string unit;   ///< "tokens", "chars", "bytes".
  std::int64_t size = 0, max = 0;
};

/// The largest answer of one tool (by characters of text), whatever the verdict.
struct LargestAnswer {
  std::int64_t bytes = 0, chars = 0, tokens = 0;  ///< tokens: ceil(chars / 4).
  bool is_error = false;
  nlohmann::json request;  ///< The tools/call that produced it.
  std::vector<Headroom> headroom;  ///< Every selected host limit that applies to it.
};

/// The server's name, as a host that prefixes tool names with it would have it.
struct ServerName {
  std::string name;
  /// From the user's config (--config's mcpServers entry); false: the server's serverInfo.name,
  /// a guess (users name servers in their config), whose findings are warnings.
  bool configured = false;
};

/// H-NAME, H-SCHEMA, H-DESC and the declared ceiling's own value (H-DECLARED) of one tools/list
/// entry. `server`: the server's name, for name rules on the prefixed name a host sends
/// (mcp__<server>__<tool>); nullptr or empty: those rules are not checked.
Outcomes check_listing(const std::vector<profile::Host>& hosts, const nlohmann::json& tool,
                       const ServerName* server = nullptr);

/// H-DESC on the server's `instructions` (its initialize result), a finding for the server (tool "").
Outcomes check_instructions(const std::vector<profile::Host>& hosts, const nlohmann::json& init_result);

/// The user's config the server was started from (--config), as H-TOOLS names it.
struct ConfigServers {
  std::string path;         ///< The config file ("" = none: the server was given on the command line).
  std::size_t others = 0;   ///< Servers the config lists besides this one (not started).
};

/// H-TOOLS, for the server (tool ""): the number of tools it lists (`listed`; `complete` false:
/// the listing stopped early, so at least that many) against each selected host's cap on tools.
/// Also marks H-UNICODE checked when a selected host has a rule on lone surrogates.
Outcomes check_tool_count(const std::vector<profile::Host>& hosts, std::size_t listed, bool complete,
                          const ConfigServers* config = nullptr);

/// H-UNICODE in place of an observation the client made (`framing`, a T-FRAMING finding) when it
/// is a lone surrogate escape (form lone-surrogate-escape) in a tools/call answer or a tools/list
/// page and a selected host has a rule on lone surrogates: the same cause said once, as what that
/// host does with it. nullopt: `framing` stays as it is.
std::optional<Finding> unicode_finding(const std::vector<profile::Host>& hosts, const Finding& framing);

/// An H-SIZE or H-DECLARED case made minimal on fresh server instances (the engine's work,
/// after finish()): what its finding now carries and says.
struct SizeCase {
  const mcp::Reply* answer = nullptr;  ///< The smallest call's answer, which still crosses the limit.
  std::int64_t size = 0;               ///< Its size in that limit's (or ceiling's) unit (HostMeter::crosses).
  std::size_t before = 0;              ///< Earlier calls it needs (replayed first).
  std::size_t writes = 0;              ///< Of them, calls to tools not annotated read-only.
};

/// Follows one server's answers: the largest per tool, and every host limit crossed (H-SIZE) or
/// declared ceiling not honoured (H-DECLARED), reported once per tool at finish().
class HostMeter {
 public:
  explicit HostMeter(std::vector<profile::Host> hosts);
  ~HostMeter();
  HostMeter(const HostMeter&) = delete;
  HostMeter& operator=(const HostMeter&) = delete;

  /// One answered tools/call of `tool` (`listing`: its tools/list entry, nullptr when unlisted;
  /// `before`: the calls made on the same server instance first, when they may have changed its
  /// state: a finding on this answer carries them as its sequence).
  void observe(const std::string& tool, const nlohmann::json* listing, const mcp::Answer& answer,
               const std::vector<nlohmann::json>* before = nullptr);
  void observe(const std::string& tool, const nlohmann::json* listing, const mcp::Reply& reply,
               const std::vector<nlohmann::json>* before = nullptr);
  /// Per tool: H-SIZE and H-DECLARED statuses and findings (one finding per tool and invariant,
  /// at the answer that went furthest over).
  std::map<std::string, Outcomes> finish();

  /// A shard for one piece of parallel work (engine/workers.cpp): the same hosts (this meter must
  /// outlive it), nothing observed. absorb() adds what a shard observed, as if this meter had
  /// observed it after its own answers (the furthest past each limit kept, the first on a tie).
  std::unique_ptr<HostMeter> fork() const;
  void absorb(HostMeter& shard);
  /// Per tool: its largest answer.
  const std::map<std::string, LargestAnswer>& largest() const;

  /// For making the case of `f` (an H-SIZE or H-DECLARED finding from finish()) minimal: the
  /// size of `reply` (a call of `f.tool` made after `before` on the same instance) in the unit of
  /// the limit the finding's evidence crossed (H-DECLARED: the ceiling the tool declares for the
  /// host its cause names), when it still crosses it, measured as observe() measures (quotes of
  /// long generated strings discounted); nullopt when it does not.
  std::optional<std::int64_t> crosses(const Finding& f, const mcp::Reply& reply,
                                      const std::vector<nlohmann::json>* before) const;
  /// `f` (an H-SIZE or H-DECLARED finding from finish(), its request and sequence already set to
  /// the minimal case's) made to say what its case is: its answer's excerpt, and the smallest
  /// call found and the earlier calls it needs in place of "may have made it this large".
  void retell(Finding& f, const nlohmann::json& generated_sequence, const SizeCase& c) const;
  const std::vector<profile::Host>& hosts() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace ctxo::checks
