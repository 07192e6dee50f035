// SPDX-License-Identifier: MIT
#include "core/anchor.h"

#include "core/text.h"

namespace ctxo {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!digit(c)) return false;
  return true;
}

std::size_t digits_end(std::string_view s, std::size_t from) {
  while (from < s.size() && digit(s[from])) ++from;
  return from;
}

}  // namespace

std::optional<LineColumn> line_column_at(std::string_view s, std::size_t colon) {
  if (colon >= s.size() || s[colon] != ':' || colon + 1 >= s.size() || !digit(s[colon + 1])) return std::nullopt;
  LineColumn lc;
  std::size_t j = digits_end(s, colon + 1);
  lc.line = s.substr(colon + 1, j - colon - 1);
  if (j + 1 < s.size() && s[j] == ':' && digit(s[j + 1])) {
    const std::size_t e = digits_end(s, j + 1);
    lc.column = s.substr(j + 1, e - j - 1);
    j = e;
  }
  lc.end = j;
  return lc;
}

std::optional<AnchorParts> parse_anchor(std::string_view t, AnchorForms forms) {
  if (forms.trailing_colons)
    while (!t.empty() && t.back() == ':') t.remove_suffix(1);
  if (forms.parenthesised && !t.empty() && t.back() == ')') {
    const std::size_t open = t.rfind('(');
    if (open == std::string_view::npos || open == 0) return std::nullopt;
    const std::string_view inner = t.substr(open + 1, t.size() - open - 2);
    const std::size_t comma = inner.find(',');
    AnchorParts p{t.substr(0, open), inner.substr(0, comma), {}};
    if (comma != std::string_view::npos) p.column = trim_space(inner.substr(comma + 1));
    if (!all_digits(p.line) || (comma != std::string_view::npos && !all_digits(p.column))) return std::nullopt;
    return p;
  }
  if (forms.github_line)
    if (const std::size_t hash = t.rfind("#L"); hash != std::string_view::npos && hash > 0) {
      const std::string_view rest = t.substr(hash + 2);
      AnchorParts p{t.substr(0, hash), rest.substr(0, rest.find('-')), {}};
      if (!all_digits(p.line)) return std::nullopt;
      return p;
    }
  // `:line:col` from the last colon but one, else `:line` from the last: the first of them that
  // ends the token (a colon at 0 separates nothing).
  const std::size_t last = t.rfind(':');
  if (last == std::string_view::npos || last == 0) return std::nullopt;
  const std::size_t before = t.rfind(':', last - 1);
  for (std::size_t colon : {before, last}) {
    if (colon == std::string_view::npos || colon == 0) continue;
    if (auto lc = line_column_at(t, colon); lc && lc->end == t.size()) return AnchorParts{t.substr(0, colon), lc->line, lc->column};
  }
  return std::nullopt;
}

std::optional<long long> anchor_number(std::string_view digits) {
  long long n = 0;
  std::size_t i = 0;
  while (i < digits.size() && n < 100000000) n = n * 10 + (digits[i++] - '0');
  if (i < digits.size()) return std::nullopt;
  return n;
}

}  // namespace ctxo
