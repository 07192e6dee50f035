// SPDX-License-Identifier: MIT
// The truncation core: for each built-in profile (seeds 000, 001, 003, 004) the envelope a
// conformant server must send for a payload and a limit, computed exactly, plus the plain
// binary-search-over-serialisation algorithm the seeds describe, kept as a second implementation.
// Leaf library: no I/O, no globals, deterministic; includes nothing from harness/ but core/result.h.
//
// Common rules (every profile):
//  - Sizes are of to_js_json(envelope, indent) (JSON.stringify, see js_json.h) in the profile's
//    measure; a limit is met with <=.
//  - The array that is cut is the truncatable field present in the payload as an array with the
//    most items; ties go to the field listed first in the options. Fields that are absent or not
//    arrays are ignored. Only that one array is cut; everything else is sent whole.
//  - "Largest prefix": the largest k such that the envelope holding items [0, k) fits. It is
//    computed in O(total size) from per-item sizes (array size = sum of item sizes + separators +
//    the fixed rest), never by re-serialising per probe; the *_naive functions do re-serialise and
//    binary-search, and must agree with the exact ones (differential tests and fuzzers check it).
//    The exact functions check their predicted size against the text they produce and return
//    Error{"internal"} on a mismatch (never seen; it would be a bug).
//  - `fits` is false only when no envelope can meet the limit (the fixed part alone is too big);
//    the smallest envelope is then returned, so a caller can still send something defined.
//  - Errors (never exceptions): "invalid_payload" (wrong JSON type), "invalid_limit" (limit 0),
//    "invalid_options" (e.g. min > max), "too_deep" (nesting beyond max_depth; the
//    serialiser itself has no depth limit, but envelopes copy values recursively), "internal".
//  - Key order: nlohmann::json keeps object keys sorted, so `_meta` may come first in `text`
//    where a JavaScript server puts it last. Sizes do not depend on key order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "truncation/js_json.h"

namespace ctxo::truncation {

/// Default cap on payload nesting accepted by the profile functions.
inline constexpr std::size_t kDefaultMaxDepth = 1000;

/// Largest k in [0, item_sizes.size()] with
///   fixed_size + sum(item_sizes[0..k)) + separator_size * max(k - 1, 0) <= limit,
/// or nullopt when even k = 0 does not fit (fixed_size > limit). Linear in k. The generic form
/// of what every profile does: for a compact JSON array, fixed_size counts "[]" and everything
/// around the array, and separator_size is 1 (the comma).
std::optional<std::size_t> largest_prefix_exact(std::span<const std::size_t> item_sizes, std::size_t fixed_size,
                                                std::size_t separator_size, std::size_t limit);

/// Largest k in [0, n] with fits(k), found by binary search (fits is assumed monotone: true up to
/// some k, false after), or nullopt when fits(0) is false. O(log n) calls of fits. The seeds'
/// algorithm when fits(k) serialises the candidate envelope and measures it.
std::optional<std::size_t> largest_prefix_naive(std::size_t n, const std::function<bool(std::size_t)>& fits);

/// What every profile reports beside its envelope.
struct Envelope {
  nlohmann::json json;          ///< The envelope value.
  std::string text;             ///< to_js_json(json, indent): the exact text part to send.
  std::size_t text_size = 0;    ///< Size of `text` in the profile's measure.
  std::string field;            ///< Name of the array (or string) that was cut; "" when none qualified.
  std::size_t total_items = 0;  ///< Items in that array before truncation (0 when none).
  std::size_t returned_items = 0;  ///< Items kept (a prefix).
  bool truncated = false;       ///< What the envelope's truncation flag says.
  bool fits = true;             ///< False only when no envelope can meet the limit (see above).
};

// ---------------------------------------------------------------------------------------------
// ctxo (seed 000). Payload object + `_meta{totalItems, returnedItems, truncated, totalBytes, hint?}`.
// ---------------------------------------------------------------------------------------------

/// The truncatable fields of seed 000, in tie-break order.
std::vector<std::string> default_ctxo_fields();

/// Default `_meta.hint` used when truncating.
inline constexpr const char* kDefaultCtxoHint =
    "Response truncated to fit CTXO_RESPONSE_LIMIT. Narrow the query or raise CTXO_RESPONSE_LIMIT.";

/// Options of truncate_ctxo.
struct CtxoOptions {
  std::vector<std::string> truncatable_fields = default_ctxo_fields();  ///< Candidate arrays.
  std::size_t limit = 8192;         ///< Byte limit (CTXO_RESPONSE_LIMIT); must be > 0.
  std::string hint = kDefaultCtxoHint;  ///< `_meta.hint` when truncated; empty = no hint member.
  int indent = -1;                  ///< JSON.stringify indent of the text part (<= 0 compact).
  std::size_t max_depth = kDefaultMaxDepth;
};

/// Result of truncate_ctxo; text_size is in UTF-8 bytes.
struct CtxoEnvelope : Envelope {
  std::size_t total_bytes = 0;  ///< `_meta.totalBytes`: UTF-8 size of the full payload without `_meta`.
};

/// The ctxo envelope of `payload` (an object). Contract (seed 000 + SPEC §2):
///  - Any `_meta` in the payload is replaced; its other members (e.g. `workspace`) are kept, and
///    totalItems/returnedItems/truncated/totalBytes/hint are ours.
///  - totalBytes = UTF-8 bytes of the payload without `_meta`, serialised with `indent`.
///  - No truncatable array: the payload whole, totalItems = returnedItems = 0, truncated false,
///    whatever its size (fits then says whether it happens to meet the limit).
///  - The whole envelope (payload + `_meta`, no hint) fits: verbatim, truncated false,
///    returnedItems = totalItems.
///  - Otherwise: the largest prefix k < totalItems whose envelope with truncated true and the hint
///    fits; if even k = 0 does not fit, k = 0 and fits = false.
/// Errors: "invalid_payload" (not an object), "invalid_limit" (0), "too_deep", "internal".
Result<CtxoEnvelope> truncate_ctxo(const nlohmann::json& payload, const CtxoOptions& options);

/// Same contract, by binary search over full serialisations (seed 000's algorithm).
Result<CtxoEnvelope> truncate_ctxo_naive(const nlohmann::json& payload, const CtxoOptions& options);

// ---------------------------------------------------------------------------------------------
// budget (seed 001). {ok, data, tokenBudget{requested, used, max}, truncated, dropped?, warnings}.
// ---------------------------------------------------------------------------------------------

/// Options of truncate_budget. Placeholders in templates: {count}, {kind}, {requested}.
struct BudgetOptions {
  std::optional<std::int64_t> token_budget;  ///< The call's tokenBudget argument; nullopt = absent.
  std::int64_t min_budget = 100;             ///< Clamp bounds and default (profile data).
  std::int64_t max_budget = 10000;
  std::int64_t default_budget = 2000;
  std::vector<std::string> list_fields = {"references", "neighbors", "results", "matches", "symbols",
                                          "items", "files", "edges", "nodes"};  ///< Lists in `data`.
  std::string kind;  ///< dropped.kind; empty = the name of the cut list.
  std::string note_template = "Dropped {count} {kind} to fit tokenBudget={requested}. Narrow the query or raise tokenBudget.";
  std::vector<std::string> warnings;       ///< Sent in `warnings` as given.
  std::string snippet_key = "snippet";     ///< Members elided as a last resort; empty disables.
  std::string snippet_kind = "snippets";   ///< dropped.kind when only snippets were dropped.
  std::string snippet_warning = "Elided {count} snippet field(s) to fit tokenBudget={requested}.";
  int indent = -1;
  std::size_t max_depth = kDefaultMaxDepth;
};

/// Result of truncate_budget; text_size is in UTF-16 code units.
struct BudgetEnvelope : Envelope {
  std::int64_t requested = 0;        ///< clamp(token_budget or default, min, max).
  std::size_t used = 0;              ///< ceil(text_size / 4), exactly (self-consistent).
  std::size_t dropped_count = 0;     ///< dropped.count (0 when no `dropped`).
  std::size_t snippets_elided = 0;   ///< Members named snippet_key removed (0 = none).
};

/// The budget envelope around `data` (any JSON; lists are looked for when it is an object).
/// Contract (seed 001 + SPEC §2): requested = clamp(token_budget.value_or(default), min, max);
/// used = ceil(utf16_length(text) / 4) of the final text (a fixed point: used's own digits are
/// counted); used <= requested by construction whenever fits. Steps:
///  1. Whole data fits: verbatim, truncated false, no `dropped`.
///  2. Else the largest list (rule above) is cut to the largest prefix k < n that fits with
///     truncated true and dropped{kind, count = n - k, note} in the envelope while measuring.
///  3. Last resort, when step 2 keeps no item (or there is no list to cut): every member named
///     snippet_key anywhere in data is removed, a snippet warning is appended to `warnings`, and
///     steps 1-2 are redone; this is kept only if it fits and keeps more than step 2 did. When
///     only snippets were dropped, dropped = {snippet_kind, number of snippets, note}.
///  4. Nothing fits: fits = false, the smallest envelope found.
/// Errors: "invalid_options" (min < 1, min > max), "too_deep", "internal".
Result<BudgetEnvelope> truncate_budget(const nlohmann::json& data, const BudgetOptions& options);

/// Same contract, by binary search over full serialisations.
Result<BudgetEnvelope> truncate_budget_naive(const nlohmann::json& data, const BudgetOptions& options);

// ---------------------------------------------------------------------------------------------
// meta (seed 003). {ok, data, error, warnings, meta{truncated, total_count, returned_count, truncation_hint?}}.
// ---------------------------------------------------------------------------------------------

/// Options of truncate_meta. Placeholders in hint_template: {returned}, {total}.
struct MetaOptions {
  std::size_t limit = 1048576;  ///< Byte cap (TOOL_MAX_OUTPUT_BYTES); must be > 0.
  std::string hint_template = "Output truncated to {returned} of {total} items by TOOL_MAX_OUTPUT_BYTES. Pass --cursor {returned} to fetch the rest.";
  int indent = -1;
  std::size_t max_depth = kDefaultMaxDepth;
};

/// Result of truncate_meta; text_size is in UTF-8 bytes.
struct MetaEnvelope : Envelope {};

/// The meta envelope for `response` (an object with a `data` member; `ok`, `error`, `warnings`
/// are added as true, null, [] when absent; any `meta` is replaced, keeping its other members).
/// `data` an array: items are cut (field "data"). `data` a string: the string is cut to a prefix
/// of whole characters and counts are code points (an ill-formed UTF-8 subpart is one character,
/// sent as U+FFFD). Anything else: never cut, counts 0. Verbatim when the whole envelope fits
/// (meta{truncated:false, total_count, returned_count}, no hint); else the largest prefix
/// k < total with meta.truncated true and truncation_hint; k = 0 and fits = false when nothing fits.
/// Errors: "invalid_payload" (not an object, or no `data`), "invalid_limit", "too_deep", "internal".
Result<MetaEnvelope> truncate_meta(const nlohmann::json& response, const MetaOptions& options);

/// Same contract, by binary search over full serialisations.
Result<MetaEnvelope> truncate_meta_naive(const nlohmann::json& response, const MetaOptions& options);

// ---------------------------------------------------------------------------------------------
// truncation-info (seed 004). {results, total_count, returned_count, truncated, truncation_info{...}}.
// ---------------------------------------------------------------------------------------------

/// Options of truncate_truncation_info.
struct TruncationInfoOptions {
  std::string results_field = "results";    ///< The array that is cut (result boundaries).
  std::size_t character_limit = 100000;     ///< CHARACTER_LIMIT.
  unsigned margin_percent = 80;             ///< TRUNCATION_MARGIN: effective = limit * margin / 100.
  Measure measure = Measure::kUtf16Units;   ///< What a "character" is (JS string length by default).
  int indent = -1;
  std::size_t max_depth = kDefaultMaxDepth;
};

/// Result of truncate_truncation_info; text_size is in options.measure.
struct TruncationInfoEnvelope : Envelope {
  std::string reason;               ///< "" (null), "character_limit" or "single_result_too_large".
  std::size_t estimated_chars = 0;  ///< truncation_info.estimated_chars == text_size (fixed point).
  std::size_t limit_chars = 0;      ///< The effective limit.
};

/// The seed-004 envelope for `payload` (an object). Results keep their given order (sort by
/// similarity before calling). Sets total_count, returned_count, truncated, truncation_info
/// {reason, original_count, returned_count, estimated_chars, limit_chars, estimated_tokens =
/// estimated_chars / 4 (floor), limit_tokens = limit_chars / 4}, where estimated_chars is the
/// exact size of the returned text (its own digits included). Rules:
///  - whole response fits the effective limit: verbatim, reason null, truncated false;
///  - else the largest k in [1, n) that fits: reason "character_limit", truncated true;
///  - else (not even one result fits): the first result anyway, reason
///    "single_result_too_large", truncated true (as the seed does, even when n == 1), fits false.
///  - no results array (absent or not an array): nothing cut, counts 0, reason null.
/// Errors: "invalid_payload", "invalid_limit" (effective limit 0), "too_deep", "internal".
Result<TruncationInfoEnvelope> truncate_truncation_info(const nlohmann::json& payload,
                                                        const TruncationInfoOptions& options);

/// Same contract, by binary search over full serialisations.
Result<TruncationInfoEnvelope> truncate_truncation_info_naive(const nlohmann::json& payload,
                                                              const TruncationInfoOptions& options);

}  // namespace ctxo::truncation
