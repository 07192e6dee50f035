// SPDX-License-Identifier: MIT
// A JSON Schema `pattern` (ECMA-262) compiled by RE2: linear time in the subject, never
// backtracking. Shared by the validator (profile/schema_validator.cpp) and the generator's filter
// (gen/schema_gen.cpp), so that both read a pattern the same way.
#pragma once

#include <memory>
#include <string>

namespace re2 {
class RE2;
}

namespace ctxo::profile {

/// `pattern` compiled by RE2 (after `\uXXXX` and `(?<name>` are spelled RE2's way), or null when
/// RE2 cannot express it (lookahead, lookbehind, backreferences...): then std::regex, guarded by
/// pattern_problem(), is the fallback. See pattern_engine().
std::shared_ptr<const re2::RE2> compile_re2(const std::string& pattern);

/// RegExp.prototype.test: `re` matches somewhere in `subject`.
bool re2_search(const re2::RE2& re, const std::string& subject);

}  // namespace ctxo::profile
