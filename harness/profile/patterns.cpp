// SPDX-License-Identifier: MIT
// JSON Schema patterns (ECMA-262): compiled by RE2 after the spelling differences are rewritten
// (compile_re2, re2_search: pattern_re2.h), and for a pattern RE2 cannot express, the limits under
// which std::regex may run it (pattern_problem) and which engine a pattern gets (pattern_engine).
#include "profile/pattern_re2.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include <re2/re2.h>

#include "profile/schema_validator.h"

namespace ctxo::profile::detail {

// An ECMA-262 pattern in RE2's syntax where the two differ only in spelling: \uXXXX is \x{XXXX},
// a named group (?<name>...) is (?P<name>...). Everything else is left for RE2 to accept or refuse.
std::string ecma_to_re2(const std::string& p) {
  auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  std::string out;
  out.reserve(p.size() + 8);
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      if (p[i + 1] == 'u' && i + 5 < p.size() && hex(p[i + 2]) && hex(p[i + 3]) && hex(p[i + 4]) && hex(p[i + 5])) {
        out += "\\x{" + p.substr(i + 2, 4) + "}";
        i += 5;
      } else {
        out += c;
        out += p[++i];
      }
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(' && p.compare(i, 3, "(?<") == 0 && i + 3 < p.size() && p[i + 3] != '=' && p[i + 3] != '!') {
      out += "(?P<";
      i += 2;
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace ctxo::profile::detail

namespace ctxo::profile {

std::shared_ptr<const RE2> compile_re2(const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);  // a pattern RE2 cannot express goes to std::regex, silently
  auto re = std::make_shared<const RE2>(detail::ecma_to_re2(pattern), options);
  if (!re->ok()) return nullptr;
  return re;
}

bool re2_search(const RE2& re, const std::string& subject) { return RE2::PartialMatch(subject, re); }

namespace {

// Patterns are compiled by std::regex, whose parser recurses per nested group.
constexpr std::size_t kMaxPatternLength = 2000;
constexpr int kMaxPatternNesting = 32;
// std::regex copies a counted repetition's states {n} times: bound the product of all counts.
constexpr double kMaxPatternRepetition = 1e5;

}  // namespace

std::string_view pattern_engine(const std::string& pattern) {
  return compile_re2(pattern) ? "re2" : "std::regex";
}

std::optional<std::string> pattern_problem(const std::string& re) {
  if (re.size() > kMaxPatternLength) return "pattern longer than " + std::to_string(kMaxPatternLength) + " characters";
  int depth = 0, max_depth = 0;
  double repetition = 1;
  for (std::size_t i = 0; i < re.size(); ++i) {
    if (re[i] == '\\') {
      ++i;
    } else if (re[i] == '(') {
      max_depth = std::max(max_depth, ++depth);
    } else if (re[i] == ')') {
      --depth;
    } else if (re[i] == '{') {
      double bound = 0, count = 0;
      for (std::size_t j = i + 1; j < re.size() && re[j] != '}'; ++j) {
        if (re[j] >= '0' && re[j] <= '9') {
          count = std::min(count * 10 + (re[j] - '0'), 1e12);
          bound = std::max(bound, count);
        } else {
          count = 0;
        }
      }
      repetition = std::min(repetition * std::max(bound, 1.0), 1e12);
    }
  }
  if (repetition > kMaxPatternRepetition)
    return "pattern repeats more than " + std::to_string(static_cast<long>(kMaxPatternRepetition)) + " times in total";
  if (max_depth > kMaxPatternNesting) return "pattern nests groups deeper than " + std::to_string(kMaxPatternNesting);
  try {
    std::regex compiled(re);
    (void)compiled;
  } catch (const std::exception& e) {
    return "pattern '" + re + "' is not a regex std::regex accepts: " + e.what();
  }
  return std::nullopt;
}

}  // namespace ctxo::profile
