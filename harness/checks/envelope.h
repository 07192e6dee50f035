// SPDX-License-Identifier: MIT
// Envelope, truncation, budget and position checks (E-*, TR-*, B-*, POS-*), as pure functions
// over parsed answers. docs/ENVELOPE-CHECKS.md is their exact contract. The truncation core is
// the oracle for sizes; profiles (data) say where every field lives.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/outcome.h"
#include "core/finding.h"
#include "mcp/answer.h"
#include "mcp/client.h"
#include "profile/profile.h"

namespace ctxo::checks {

using nlohmann::json;

/// What the engine knows about one answered tools/call.
struct EnvelopeInput {
  const profile::Profile* forced = nullptr;                   ///< --profile NAME|FILE; nullptr = auto.
  const std::vector<profile::Profile>* candidates = nullptr;  ///< Profiles --profile auto chooses from.
  const json* tool = nullptr;                                 ///< tools/list entry of the called tool.
  const std::vector<json>* tools = nullptr;                   ///< Every tool listed (E-HINT-REF).
  json arguments = json::object();                            ///< The call's arguments.
  std::map<std::string, std::string> env;                     ///< Server environment overrides in effect.
  std::optional<std::string> root;                            ///< --root DIR (POS-UTF16).
  const mcp::Reply* reply = nullptr;                          ///< The answer (kind kResult to apply).
  const mcp::Answer* answer = nullptr;  ///< `reply` read (nullptr: extract_envelope reads it).
};

/// The envelope found in an answer.
struct ParsedEnvelope {
  const profile::Profile* profile = nullptr;  ///< nullptr: not an envelope of any profile (no checks).
  json envelope;                              ///< The parsed JSON object.
  std::string text;                           ///< Its text part exactly as sent.
  int indent = -1;                            ///< The server's JSON.stringify indent (-1 compact).
  std::optional<profile::FormKind> form;      ///< success / miss / error.
  std::optional<std::int64_t> limit;          ///< The limit in effect (env override or default).
  json request;                               ///< The request that produced it.
  /// An E-PARSE problem: which one (the finding's cause: "no-text-part", "no-json-object",
  /// "text-around-object", "several-text-parts") and what was seen.
  struct ParseProblem {
    std::string form;
    std::string text;
  };
  /// E-PARSE problems found while extracting (e.g. a text part before the JSON part).
  std::vector<ParseProblem> parse_problems;
};

/// Finds the envelope in `in.reply` and its profile (forced or detected). Never throws.
ParsedEnvelope extract_envelope(const EnvelopeInput& in);

/// Per-response checks: E-PARSE, E-SCHEMA, E-ERROR, E-HINT-REF, TR-HINT, TR-COUNT, TR-CAP,
/// TR-BYTES (untruncated), B-USED, B-CLAMP, B-ESTIMATE, POS-BASE, POS-PATH, POS-UTF16.
Outcomes check_envelope(const EnvelopeInput& in, const ParsedEnvelope& env);

/// E-STABLE: the same call answered twice.
Outcomes check_stable(const ParsedEnvelope& first, const ParsedEnvelope& second);

/// What E-STABLE compares of an answer, for comparing answers to the same call (P-CONCURRENT):
/// under a profile (`pe`), its envelope without hints, warnings and keys whose values change from
/// call to call (timings, clocks, request ids); else the result without `_meta`, text parts that
/// are JSON read as JSON, without those keys; a JSON-RPC error's code and message; an unanswered
/// call as such. Equal forms are the same answer.
json stable_form(const mcp::Reply& reply, const ParsedEnvelope& pe);

/// E-MISS: `env` answers a lookup of an identifier that cannot exist (`reply` is its answer, for
/// the isError / non-envelope cases).
Outcomes check_miss(const ParsedEnvelope& env, const mcp::Reply& reply);

/// One answer of the limit sweep: the same call under one limit.
struct SweepPoint {
  std::int64_t limit = 0;
  bool is_default = false;  ///< The main run's answer (limit not overridden).
  ParsedEnvelope env;
};

/// A per-answer finding the sweep found the root cause of: drop `invariant` of the answer at `limit`.
struct Superseded {
  std::int64_t limit = 0;
  std::string invariant;
};

/// TR-ENV, TR-PREFIX, TR-MAXIMAL, TR-VERBATIM, TR-BYTES and TR-COUNT (silent omission) across the
/// answers to one call under different limits. The point with the largest limit is the full
/// payload; when it is itself truncated, only TR-ENV is checked. `superseded` receives the
/// per-answer findings a sweep finding explains (TR-CAP of an answer reported as TR-ENV; TR-BYTES
/// of an answer that silently dropped items).
Outcomes check_sweep(const std::vector<SweepPoint>& points, std::vector<Superseded>* superseded);

/// TR-RESUME: the arguments that fetch the page after the truncated answer `env` to `tool`,
/// read from a cursor field of the envelope (nextCursor, next_cursor, cursor) or from the
/// `--name value` pairs of a command hint, mapped onto the tool's input-schema properties (names
/// compared without case, `_` and `-`). nullopt when the answer is not truncated, names no way to
/// resume on the same tool, or the arguments would not change.
std::optional<json> resume_arguments(const ParsedEnvelope& env, const json& tool, const json& arguments);

/// TR-RESUME: `pages[0]` is a truncated answer and each next page was fetched with
/// resume_arguments() of the one before. The pages' cut arrays, concatenated, must continue each
/// other with no gap and no overlap and, when `full` (the complete array, e.g. from the
/// large-limit answer) is given, rebuild it.
Outcomes check_resume(const std::vector<ParsedEnvelope>& pages, const json* full);

/// The items of the array an answer cut (its truncatable array whose length is the returned count,
/// else the largest); nullptr when it has none.
const json* cut_items(const ParsedEnvelope& env);

/// Anchors (objects with a file and a line) anywhere in `payload`, as JSON pointers.
std::vector<std::string> find_anchors(const json& payload);

}  // namespace ctxo::checks
