// SPDX-License-Identifier: MIT
// A deterministic handful of argument objects per tool, built directly from its inputSchema:
// required properties, enum values, bounds. The seam for the property-based generator: the
// engine asks a CaseSource for cases and knows nothing of how they were made.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctxo::gen {

using nlohmann::json;

/// One call to make: arguments for tools/call and a label saying what the case is.
struct CallCase {
  json arguments;     ///< The `arguments` object (never null).
  std::string label;  ///< e.g. "required only", "lower bounds".
};

/// Where the engine gets the calls for a tool.
class CaseSource {
 public:
  virtual ~CaseSource() = default;
  /// Up to `n` cases for a tool with this inputSchema. Deterministic for (schema, n, seed).
  virtual std::vector<CallCase> cases(const json& input_schema, std::size_t n, std::uint64_t seed) = 0;
};

/// The simple source: case 0 = required properties with typical values, 1 = every property at
/// lower bounds, 2 = every property at upper bounds, then rotations through enum values and
/// alternative strings. Identical cases are dropped. Values aim to be schema-valid but are not
/// guaranteed (patterns, exotic keywords): callers validate before treating a case as valid.
class SimpleSource : public CaseSource {
 public:
  std::vector<CallCase> cases(const json& input_schema, std::size_t n, std::uint64_t seed) override;
};

/// Arguments for a lookup of something that cannot exist: the typical case with every
/// identifier-like string property (id, *Id, *_id, name, symbol*, file, path, node*, uri) set to a
/// value no server has. nullopt when the schema has no such property (E-MISS does not apply).
std::optional<json> absent_lookup(const json& input_schema, std::uint64_t seed);

/// True when a property name says "identifier" (see absent_lookup).
bool identifier_like(const std::string& property);

/// One value for `schema` (resolved against `root` for local $ref), for variant `variant`.
json simple_value(const json& schema, const json& root, std::size_t variant, std::uint64_t seed);

}  // namespace ctxo::gen
