// SPDX-License-Identifier: MIT
// JSON Schema -> RapidCheck generators for tool arguments: valid values biased to the edges,
// labelled invalid values, and the deterministic boundary phase. Built from RapidCheck's own
// combinators, so each value carries RapidCheck's shrink tree. ToolPlan (plan.h) puts them in phases.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "gen/simple.h"

namespace ctxo::profile {
class SchemaValidator;
}

namespace ctxo::gen {

using nlohmann::json;

/// What generation could not do exactly, each message once (an unsupported pattern, a remote
/// `$ref`, ...). Values are still generated; where a keyword is not understood they are filtered.
class Problems {
 public:
  Problems();
  /// Records `message` unless it was recorded before.
  void add(const std::string& message);
  /// Everything recorded, in order of first occurrence.
  std::vector<std::string> list() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// How a Problems entry about a schema URL that is not sent begins.
inline constexpr const char* kRemoteUrlProblem =
    "a URL from the schema (default, example or description) to a host other than loopback is not sent";

/// Knobs of the generators. The defaults keep one value well under 64 KiB.
struct GenOptions {
  int max_depth = 6;                     ///< Below this nesting, arrays take minItems and objects their required keys only.
  std::size_t max_items = 8;             ///< Extra array items beyond minItems when maxItems allows more.
  std::size_t long_string_min = 1024;    ///< "Very long" strings, in code points, clipped to maxLength.
  std::size_t long_string_max = 4096;
  std::size_t max_value_bytes = 64 * 1024;  ///< Values whose JSON text is longer are discarded.
  bool edge_bias = true;                 ///< Favour empty/long/unicode strings, bounds, 0, -1, +-2^53, empty/full arrays.
  bool nullable_allows_null = false;     ///< Honour OpenAPI `nullable: true` (JSON Schema and valijson ignore it).
  /// Send a schema's `default`, `examples` or quoted values even when they are URLs to a host other
  /// than loopback (--allow-remote-urls). Off: such values are left out and the plan notes it.
  bool allow_remote_urls = false;
  Problems problems;                     ///< Shared sink: copies of the options report to the same list.
  /// The root schema, compiled once by its caller (ToolPlan) and used by boundary_cases and
  /// invalid_value when they are given that root; null: they compile it themselves. A listing of
  /// large schemas (an enum of 100,000 objects) costs a compiled copy per use.
  std::shared_ptr<const profile::SchemaValidator> root_validator;
  /// The root schema, shared by its caller (ToolPlan): a generator given this very document as
  /// its root keeps this pointer instead of a copy of its own.
  std::shared_ptr<const nlohmann::json> root_schema;
  /// Offer the workspace's values (--root/--cwd: real paths, names, positions) to this tool's
  /// calls. Off for a tool that may write: a real file is never handed to a delete.
  bool workspace_values = true;
  /// The tool runs SQL (its name or description says so): its `query` parameters are offered SQL
  /// statements (Harvest::sql_statements) before names.
  bool sql = false;
  /// The language the tool runs code in, from its name or description (code_language in
  /// gen/plan.h; "" when it says none): its `code` parameter is offered a one-line program.
  std::string code_language;
};

/// Values valid for `schema`, whose local `$ref`s resolve against `root` (pass the schema itself
/// when it is the root). Keywords generated directly: type (also arrays of types, `nullable`),
/// enum, const, properties/required/additionalProperties, items/prefixItems/additionalItems,
/// minItems/maxItems/uniqueItems, minimum/maximum/exclusive* (draft-04 and draft-06+ forms),
/// multipleOf, minLength/maxLength (code points), pattern (a regex subset), format (date-time,
/// date, time, uri, email, uuid, ipv4, ipv6, hostname), anyOf, `$ref`, default. Filtered with the
/// schema validator: oneOf, allOf (merged first), not, and the rest. A schema that admits no
/// value yields a generator that throws rc::GenerationFailure.
rc::Gen<json> valid_value(const json& schema, const json& root, const GenOptions& options = {});

/// One schema-invalid value and what was broken, e.g. "missing required 'path'",
/// "wrong type at /limit (string instead of integer)", "out of range at /n (below minimum 1)",
/// "unknown property 'zz_ctxo_unknown'", "too long at /s (maxLength 10)".
struct InvalidCase {
  json value;
  std::string label;
};

/// Values that are NOT valid for `schema` (each checked with the validator), made by breaking one
/// thing in a valid value. When the root is an object schema, the root stays an object (tool
/// arguments must be one). Throws rc::GenerationFailure when nothing can be broken (see
/// admits_invalid).
rc::Gen<InvalidCase> invalid_value(const json& schema, const json& root, const GenOptions& options = {});

/// True when invalid_value can produce something for this schema (`{}`, `true` and objects
/// without constraints cannot). Decided by trying a fixed handful of seeds.
bool admits_invalid(const json& schema, const json& root, const GenOptions& options = {});

/// The deterministic boundary phase for a tool's inputSchema: required properties only, all
/// properties, each optional property present, and per top-level property each bound and bound+-1
/// on the valid side, the empty string/array, minLength/maxLength strings, min/max arrays, each
/// enum value, const, both booleans, null where allowed, the default (no padding strings for a
/// format the generator writes); then the same inside object properties, two levels down, at
/// their typical values. Only cases the validator accepts are kept (all of them when the schema
/// does not compile); duplicates are dropped.
/// A schema URL to a host other than loopback is left out unless options.allow_remote_urls (noted
/// in options.problems).
std::vector<CallCase> boundary_cases(const json& schema, const GenOptions& options = {});

/// Counts code points in UTF-8 text (what minLength/maxLength measure).
std::size_t code_points(const std::string& utf8);

}  // namespace ctxo::gen
