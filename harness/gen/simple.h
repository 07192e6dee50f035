// SPDX-License-Identifier: MIT
// Plain deterministic values built directly from an inputSchema (typical, lower-bound and
// upper-bound variants), the arguments of E-MISS lookups, and the CallCase both the boundary phase
// and the lookups use.
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

/// Arguments for a lookup of something that cannot exist: the typical case with every
/// identifier-like string property (id, *Id, *_id, name, symbol*, file, path, node*, uri) set to a
/// value no server has. nullopt when the schema has no such property (E-MISS does not apply).
std::optional<json> absent_lookup(const json& input_schema, std::uint64_t seed);

/// True when a property name says "identifier" (see absent_lookup).
bool identifier_like(const std::string& property);

/// One value for `schema` (resolved against `root` for local $ref), for variant `variant`.
json simple_value(const json& schema, const json& root, std::size_t variant, std::uint64_t seed);

}  // namespace ctxo::gen
