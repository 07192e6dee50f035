// SPDX-License-Identifier: MIT
// SchemaValidator: compile a JSON Schema once, validate many documents; the one place valijson's
// exceptions are caught. Knows nothing about profiles or envelopes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace ctxo::profile {

/// One reason a document does not satisfy a schema.
struct Violation {
  std::string pointer;  ///< JSON Pointer (RFC 6901) of the offending value; "" is the document root.
  std::string message;  ///< What is wrong there, as valijson words it.
};

/// Renders a violation for people: `at /a/b: message` (`at (root): message` for the root).
std::string to_string(const Violation& v);

/// Deepest nesting accepted in schemas and validated documents. Deeper input is refused (compile)
/// or reported as a violation (validate) instead of risking the stack.
inline constexpr int kMaxJsonDepth = 200;

/// A compiled JSON Schema. Draft-07 is the base (draft-04 and draft-03 when `$schema` says so);
/// of 2019-09/2020-12 what valijson supports applies, and unknown keywords are ignored. `$ref`
/// may point into the same document (`#/definitions/...`, `#/$defs/...`, `#`); remote
/// references are refused at compile time.
///
/// Copies are cheap and share the compiled schema; validating is const and thread-compatible
/// (each call uses its own valijson validator). A default-constructed SchemaValidator is the
/// schema `true`: everything is valid.
class SchemaValidator {
 public:
  /// The always-valid schema `true`.
  SchemaValidator();

  /// Compiles `schema`. Errors (code "schema"): not an object or boolean, nested deeper than
  /// kMaxJsonDepth, a cyclic chain of `$ref`s, a remote or unresolvable `$ref`, a `pattern` RE2
  /// cannot express that std::regex (ECMAScript) rejects or that pattern_problem() refuses (e.g.
  /// nesting groups deeper than 32), or any keyword valijson rejects (wrong value type,
  /// unsupported combination). Never throws.
  [[nodiscard]] static Result<SchemaValidator> compile(const nlohmann::json& schema);
  /// As compile(), without a copy of `schema` (a listing's schema can be megabytes): the caller
  /// keeps `schema` alive, unchanged, for as long as the validator and its copies (schema()
  /// returns it).
  [[nodiscard]] static Result<SchemaValidator> compile_borrowed(const nlohmann::json& schema);

  /// All violations of `instance`, empty when valid. A document nested deeper than kMaxJsonDepth
  /// yields one violation at the root; an error valijson raises while validating becomes a
  /// violation at the root, too. `pattern` and `patternProperties` are matched by RE2 (linear in
  /// the subject, never backtracking) when RE2 can express the pattern, else by std::regex (see
  /// pattern_engine()). When the instance holds a string (or key) longer than 2000 bytes,
  /// `pattern` and `format` are not checked anywhere in it (std::regex would overflow the stack).
  /// Never throws.
  std::vector<Violation> check(const nlohmann::json& instance) const;

  /// check() rendered with to_string(): human-readable errors with JSON-pointer paths.
  std::vector<std::string> validate(const nlohmann::json& instance) const;

  /// True when check() would return no violation (stops at the first failure, so it is cheaper).
  bool is_valid(const nlohmann::json& instance) const;

  /// The schema document this validator was compiled from.
  const nlohmann::json& schema() const;

 private:
  struct Impl;
  explicit SchemaValidator(std::shared_ptr<const Impl> impl);
  static Result<SchemaValidator> compile_into(std::shared_ptr<Impl> impl, const nlohmann::json& schema);
  std::shared_ptr<const Impl> impl_;
};

/// Parses JSON text without throwing (`allow_comments`: accept // and /* */ comments). Errors
/// (code "parse"): syntax errors (the message gives the line and column), or nesting deeper than
/// kMaxJsonDepth.
[[nodiscard]] Result<nlohmann::json> parse_json_text(std::string_view text, bool allow_comments = false);

/// Depth of the deepest nested array/object in `doc` (a scalar is 0), computed without recursion.
int json_depth(const nlohmann::json& doc);

/// Resolves an RFC 6901 JSON Pointer in `doc` without throwing; nullptr when the pointer is
/// malformed or names nothing. "" is `doc` itself.
const nlohmann::json* resolve_pointer(const nlohmann::json& doc, std::string_view pointer);

/// Strings longer than this are never matched against a `pattern`: libstdc++'s std::regex recurses
/// once per character and would overflow the stack on long subjects.
inline constexpr std::size_t kMaxPatternSubject = 2000;

/// Why `pattern` must not be given to std::regex (longer, more nested or more repeated than its
/// recursive engine survives, or no regex it accepts), or nullopt when it is safe to compile.
std::optional<std::string> pattern_problem(const std::string& pattern);

/// Which engine matches `pattern` (an ECMA-262 regex, as JSON Schema's `pattern` and
/// `patternProperties` are) when a document is validated: "re2" when RE2 accepts it (after
/// `\uXXXX` and `(?<name>` are spelled its way; linear time whatever the pattern and subject), else
/// "std::regex": what RE2 lacks (lookahead, lookbehind, backreferences, `\cX`, `[^]`...) keeps
/// the guarded std::regex path (pattern_problem, kMaxPatternSubject), whose backtracking is not
/// bounded in time.
std::string_view pattern_engine(const std::string& pattern);

/// Escapes one reference token for a JSON Pointer (`~` -> `~0`, `/` -> `~1`).
std::string escape_pointer_token(std::string_view token);

}  // namespace ctxo::profile
