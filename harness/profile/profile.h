// SPDX-License-Identifier: MIT
// Envelope profiles as data: the typed Profile model, the loader for profile files (built-in or
// the user's own), `--profile auto` detection and envelope-form validation. Knows nothing about
// processes, MCP or the truncation core; the invariants that use these fields live in checks/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "profile/schema_validator.h"

namespace ctxo::profile {

/// Where a tool response's envelope lives.
enum class Location {
  kTextJson,  ///< One JSON object serialised in the single text content part.
  kNone,      ///< No envelope: plain MCP results.
};

/// The three shapes an envelope can take.
enum class FormKind { kSuccess, kMiss, kError };

/// "success", "miss" or "error".
std::string_view form_name(FormKind kind);

/// One test on a parsed envelope (profile JSON: `{pointer, absent?, type?, equals?}`).
struct Condition {
  std::string pointer;                  ///< JSON Pointer into the envelope.
  bool absent = false;                  ///< True: the pointer must NOT resolve (type/equals unused).
  std::vector<std::string> types;       ///< Allowed JSON types; empty = any. "integer" = whole number.
  std::optional<nlohmann::json> equals; ///< The value must equal this.
};

/// True when `cond` holds on `envelope`.
bool holds(const Condition& cond, const nlohmann::json& envelope);

/// True when every condition holds (an empty list always holds).
bool holds_all(const std::vector<Condition>& conds, const nlohmann::json& envelope);

/// One envelope shape: its schema and where its fields are.
struct Form {
  std::string schema_path;         ///< Resolved file path, or "" when the schema was inline.
  nlohmann::json schema_document;  ///< The parsed schema.
  SchemaValidator validator;       ///< schema_document, compiled.
  std::vector<Condition> when;     ///< The envelope is of this form when all hold (empty: always).
  std::optional<std::string> message_pointer;  ///< Error/miss message.
  std::optional<std::string> code_pointer;     ///< Error code.
  std::optional<std::string> hint_pointer;     ///< Miss hint or error hint.
  std::vector<std::string> codes;       ///< Stable error codes; empty: not constrained.
  std::vector<std::string> miss_codes;  ///< Error codes that mean "absent" (the profile's miss).
  /// Error form only (profile `invalidInput`, default false): the server answers invalid
  /// arguments (input validation) with this form, so such an answer is this envelope, not a
  /// protocol error or plain isError text. Always false on success and miss forms.
  bool covers_invalid_input = false;
};

/// How truncatable arrays are chosen.
enum class Selection {
  kLargest,    ///< The largest named array present is the one cut; counts describe it.
  kAny,        ///< Any named array (or any array, with any_array) may be cut.
  kContainer,  ///< The container itself is the array that is cut.
};

/// Which arrays a server may cut.
struct Truncation {
  std::string container;            ///< Pointer to the object holding the arrays, or to the array.
  std::vector<std::string> fields;  ///< Named truncatable members of the container.
  Selection selection = Selection::kLargest;
  bool any_array = false;            ///< With kAny: unnamed arrays may be cut too.
  bool string_values = false;        ///< A string value may be cut as well (boundary item-or-string).
  bool verbatim_under_limit = true;  ///< Under the limit: payload complete, truncated false.
  bool no_array_means_full = false;  ///< No truncatable array: returned in full regardless of size.
};

/// What a limit counts: bytes, estimated tokens or characters.
enum class LimitKind { kBytes, kTokens, kChars };
/// What one character is: a UTF-8 byte, a UTF-16 code unit (JS length) or a code point (Python len).
enum class CountUnit { kUtf8, kUtf16, kCodePoint };
/// What a limit is measured on.
enum class Measure {
  kText,      ///< The whole text part as sent.
  kEnvelope,  ///< The serialised envelope.
};

/// Limits the harness runs the server under (small, default, very large).
struct Sweep {
  std::int64_t small = 0;
  std::int64_t normal = 0;  ///< "default" in the profile file.
  std::int64_t large = 0;
};

/// The size limit an envelope must respect.
struct Limit {
  LimitKind kind = LimitKind::kBytes;
  CountUnit unit = CountUnit::kUtf8;
  Measure measure = Measure::kText;
  std::optional<std::string> env;            ///< Environment variable that overrides it.
  std::optional<std::int64_t> default_value; ///< The limit when not overridden.
  double margin = 1.0;                       ///< Fraction of the limit the server aims for.
  std::optional<std::int64_t> chars_per_token;
  bool round_up = true;                      ///< tokens = ceil (true) or floor of chars/charsPerToken.
  std::optional<Sweep> sweep;
};

/// A per-call budget argument (e.g. tokenBudget).
struct Budget {
  std::string parameter;
  std::int64_t default_value = 0;
  std::int64_t min = 0;
  std::int64_t max = 0;
  double tolerance = 0.2;  ///< Allowed relative error of the reported use.
  std::string requested_pointer;
  std::string used_pointer;
  std::string max_pointer;
};

/// Where the truncation indicators live in the success form (all optional).
struct Fields {
  std::optional<std::string> ok;
  std::optional<std::string> truncated;
  bool truncated_may_be_absent = false;  ///< An absent flag means false.
  std::optional<std::string> total_count;
  std::optional<std::string> returned_count;
  std::optional<std::string> total_bytes;
  std::optional<std::string> hint;
  std::optional<std::string> dropped_count;
  std::optional<std::string> dropped_kind;
  std::optional<std::string> warnings;
};

/// What a truncation hint is: a free-text next step, a note on what was cut, a command fetching
/// the next page, or a reason code from Hint::values.
enum class HintKind { kSuggestion, kNote, kCommand, kReason };

/// What the truncation hint is.
struct Hint {
  HintKind kind = HintKind::kSuggestion;
  bool stable = false;                    ///< Safe to pattern-match on (E-STABLE applies strictly).
  std::vector<std::string> must_mention;  ///< Substrings a command hint needs (e.g. "--cursor").
  std::vector<std::string> values;        ///< For kReason: the allowed values.
};

/// One detection rule: matches when all its conditions hold. The loader refuses a rule with
/// fewer than kMinDetectionFields conditions that require a field to be present.
struct DetectionRule {
  std::string name;  ///< The rule's `name` in the profile file, or "" when it has none.
  std::vector<Condition> all;
};

/// A detection rule must require at least this many fields (distinct, non-root pointers without
/// `absent`) to be present: one generic key such as "error" or "found" is not distinctive.
inline constexpr int kMinDetectionFields = 2;

/// How `--profile auto` recognises the profile.
struct Detection {
  int priority = 0;  ///< Breaks ties between equally specific matches; higher wins.
  std::vector<DetectionRule> any_of;
};

/// A loaded, validated profile. Every field of the profile file in typed form.
struct Profile {
  std::string name;
  std::string title;
  std::string description;
  std::string source;
  std::vector<std::string> notes;
  std::string origin;  ///< File the profile came from, or "<json>".
  Location location = Location::kTextJson;
  bool is_error_text = false;  ///< An isError result with non-JSON text is an acceptable error.
  std::optional<Form> success;
  std::optional<Form> miss;    ///< Absent: the profile has no graceful-miss form.
  std::optional<Form> error;
  std::optional<Truncation> truncation;
  std::optional<Limit> limit;
  std::optional<Budget> budget;
  Fields fields;
  std::optional<Hint> hint;
  Detection detection;
  nlohmann::json document;  ///< The profile file as loaded.

  /// The form of `kind`, or nullptr when the profile has none.
  const Form* form(FormKind kind) const;
  /// True when a lookup of something absent has an answer of its own here: a graceful-miss form,
  /// or error codes that mean "absent" (E-MISS applies only then).
  bool has_graceful_miss() const;
};

/// Reads and parses a JSON file of at most 16 MiB (`allow_comments`: accept // and /* */, as
/// .mcp.json files may have). Errors: "io" (missing, not a regular file, too large, unreadable;
/// the message names the path), "parse" (the message gives the line and column).
[[nodiscard]] Result<nlohmann::json> read_json_file(const std::string& path, bool allow_comments = false);

/// Finds the schemas directory: env CTXO_SCHEMAS_DIR if set (an error if it is not a schemas
/// directory), else `<exe dir>/../share/ctxo-conform/schemas` (an installed binary), else the
/// source tree's, compiled in from CMake (a build-tree binary).
/// A schemas directory is one that contains `profiles/`. Error code "config" when none is found.
[[nodiscard]] Result<std::string> schemas_dir();

/// Compiles `<schemas_dir>/<file>` (e.g. "report.schema.json"), a schema the harness ships.
[[nodiscard]] Result<SchemaValidator> compile_bundled_schema(const std::string& file);

/// Names of the built-in profiles (`<schemas_dir>/profiles/*.json`), sorted; empty when the
/// schemas directory cannot be found.
std::vector<std::string> builtin_names();

/// The stems of the `*.json` files in `<schemas_dir>/<subdir>` (built-in profiles, hosts), sorted;
/// empty when the schemas directory cannot be found.
std::vector<std::string> bundled_names(std::string_view subdir);

/// True for a name a built-in file can have: 1 to 64 of a-z 0-9 - _ . and no "..".
bool well_formed_builtin_name(std::string_view name);

/// Loads built-in profile `name` from `<schemas_dir>/profiles/<name>.json`.
/// Errors: "config" (no schemas directory), "usage" (unknown or malformed name), or any load_file error.
[[nodiscard]] Result<Profile> load_builtin(std::string_view name);

/// Loads every built-in profile, sorted by name; the first failure is returned as the error.
[[nodiscard]] Result<std::vector<Profile>> load_builtins();

/// Loads a profile file. Relative schema paths resolve against the file's directory.
/// Errors: "io" (unreadable), "parse" (not JSON), "profile" (breaks schemas/profile.schema.json
/// or is inconsistent; the message names the file, the JSON Pointer and the problem), "schema"
/// (a form's schema cannot be read, parsed or compiled).
[[nodiscard]] Result<Profile> load_file(const std::string& path);

/// Loads a profile from JSON text; `origin` names it in messages, `base_dir` anchors relative
/// schema paths ("" = the current directory). Same errors as load_file.
[[nodiscard]] Result<Profile> load_text(std::string_view text, std::string_view origin = "<text>",
                                        const std::string& base_dir = "");

/// Loads a profile from a parsed document (validated against schemas/profile.schema.json, which
/// is compiled into the library). `base_dir` anchors relative schema paths. Never throws.
[[nodiscard]] Result<Profile> load_json(const nlohmann::json& doc, const std::string& base_dir = "");

/// The profile whose detection rules match `envelope` best: among profiles with a matching rule,
/// the one whose matching rule has the most conditions; ties go to the higher priority, then to the
/// earlier profile. nullptr when none matches (the caller falls back to "none").
/// Rules describe success answers only: an error or miss envelope is not detected by itself.
const Profile* detect(const nlohmann::json& envelope, const std::vector<Profile>& profiles);

/// detect(), also saying why: returns the rule that matched (an element of the chosen profile's
/// `detection.any_of`, so it lives as long as `profiles`) and sets `*out` (when `out` is not
/// nullptr) to detect()'s profile. nullptr, and `*out` nullptr, when nothing matches.
const DetectionRule* detect_rule(const nlohmann::json& envelope, const std::vector<Profile>& profiles,
                                 const Profile** out);

/// The most specific rule of `profile` that matches `envelope` (the most conditions; the first
/// such rule on a tie), or nullptr when no rule matches.
const DetectionRule* matching_rule(const Profile& profile, const nlohmann::json& envelope);

/// The number of conditions of matching_rule(), or 0 when no rule matches.
int detection_score(const Profile& profile, const nlohmann::json& envelope);

/// Which form an envelope claims to be: the first of error, miss whose `when` holds, else success.
/// nullopt when the profile has no applicable form (e.g. "none").
std::optional<FormKind> classify(const Profile& profile, const nlohmann::json& envelope);

/// Outcome of validating one envelope against its profile.
struct EnvelopeCheck {
  std::optional<FormKind> form;       ///< The form it was validated as (nullopt: no form applies).
  std::vector<Violation> violations;  ///< Empty when valid.
  bool ok() const { return violations.empty(); }
};

/// classify() then validate against that form's schema.
EnvelopeCheck validate_envelope(const Profile& profile, const nlohmann::json& envelope);

}  // namespace ctxo::profile
