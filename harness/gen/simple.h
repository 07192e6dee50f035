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
/// A schema `default` or `examples` URL is used only when it stays local (unless `remote_urls`).
std::optional<json> absent_lookup(const json& input_schema, std::uint64_t seed, bool remote_urls = false);

/// False for a string URL whose host is not loopback (localhost, 127.0.0.1, [::1]): a schema's
/// `default` or `examples` URL is never sent as it is unless the user allows it
/// (--allow-remote-urls), since a server that fetches what it is given would reach out. Every
/// other value (file://, relative, not a string) stays local.
bool stays_local(const json& v);

/// A server fills an omitted optional argument with its schema `default`: when that default is a
/// URL to a host other than loopback (server-everything's gzip-file-as-resource fetches a GitHub
/// URL), omitting the argument makes the server reach out. Sets each such omitted optional property
/// of `args` (nested objects present in `args` too) to the default with its URLs pointed at
/// 127.0.0.1:9; returns true when it did, naming the properties and their defaults in `pinned`
/// ("'opts.url' (default \"https://…\")").
bool pin_local_defaults(const json& input_schema, json& args, std::vector<std::string>* pinned = nullptr);

/// True when a property name says "identifier" (see absent_lookup).
bool identifier_like(const std::string& property);

/// One value for `schema` (resolved against `root` for local $ref), for variant `variant`.
json simple_value(const json& schema, const json& root, std::size_t variant, std::uint64_t seed,
                  bool remote_urls = false);

}  // namespace ctxo::gen
