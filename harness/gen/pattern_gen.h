// SPDX-License-Identifier: MIT
// Strings matching a JSON Schema `pattern`, for the regex subset tool schemas use: literals,
// classes ([a-z0-9_-], [^...], \d \w \s and negations, .), anchors at the ends of alternatives,
// groups ((...), (?:...), (?<name>...)), alternation and the quantifiers ? * + {m} {m,} {m,n}.
#pragma once

#include <optional>
#include <string>

#include <rapidcheck.h>

namespace ctxo::gen {

/// A generator of UTF-8 strings that fully match `pattern` (so they also match it as a search),
/// or nullopt with `why` set when the pattern uses something outside the subset (lookaround,
/// backreferences, \b, \p{...}, anchors in the middle). Unbounded repeats stop `spread` past
/// their minimum.
std::optional<rc::Gen<std::string>> pattern_gen(const std::string& pattern, std::string& why, int spread = 8);

/// Appends the UTF-8 encoding of code point `cp` to `out`.
void append_utf8(std::string& out, char32_t cp);

}  // namespace ctxo::gen
