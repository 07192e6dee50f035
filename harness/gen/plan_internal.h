// SPDX-License-Identifier: MIT
// Internal to the plan (plan*.cpp), not part of gen's API: the seed mixer and the schema reader its
// files share, and the property-name words (plan_names.cpp) that the ToolPlan's harvested calls
// (plan_harvested.cpp) read too.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "gen/plan.h"

namespace ctxo::gen::detail {

std::uint64_t mix(std::uint64_t a, std::uint64_t b);

// A schema's `properties` object (an empty one when it has none), not copied.
const json& properties_of(const json& schema);

// The path of a harvested string that is a `path:line[:col]` anchor, whole (plan_harvest.cpp;
// core/anchor.h's parse_anchor, no other form): a path with a '/' or a '.', no blank or ':'.
std::optional<std::string> value_anchor_path(const std::string& s);

// ---- property-name words (plan_names.cpp): on harvest_key()s ----

bool ends_with(const std::string& s, std::string_view suf);

bool one_of(const std::string& k, std::initializer_list<std::string_view> words);

// A directory other paths are resolved against (lsmcp's and typescript-mcp's `root`): a call
// whose `filePath` names a workspace file reaches it only with the workspace root here.
bool anchor_word(const std::string& k);

bool query_word(const std::string& k);

bool regex_word(const std::string& k);

bool code_word(const std::string& key);
/// `args` with `property` set to `value` (or `[value]`, or an integer's decimal text) when that
/// keeps the call valid for `v`; nullopt otherwise (plan_harvested.cpp).
std::optional<json> with_value(const profile::SchemaValidator& v, const json& args, const std::string& property,
                               const json& value);
bool language_word(const std::string& key);

}  // namespace ctxo::gen::detail
