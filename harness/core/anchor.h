// SPDX-License-Identifier: MIT
// `path:line[:col]` anchors, as compilers, grep, ripgrep and code tools print a place: the one
// reader of their numbers, for the check that judges the places an answer names
// (checks/generic_anchors.cpp, text_anchors) and the generator that harvests their paths
// (gen/prose.cpp, gen/plan_harvest.cpp). It says where the path ends and what the numbers are;
// whether the text before them is a path is the caller's rule (a check and a generator ask
// different things of it: a check reads `C:\x.ts:3` in running text, the harvest offers only
// what a tool could take back), and so is what may follow an anchor in running text.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace ctxo {

/// The `:line` or `:line:col` at `colon` of `s` (s[colon] == ':'), read forward: the digits after
/// the colon, then, when a ':' and a digit follow them, the column's digits. nullopt when no digit
/// follows the colon. ASCII digits only.
struct LineColumn {
  std::string_view line;    ///< Its digits (never empty), into `s`.
  std::string_view column;  ///< Its digits; empty when there is none.
  std::size_t end = 0;      ///< Just past the last digit read.
};
std::optional<LineColumn> line_column_at(std::string_view s, std::size_t colon);

/// The forms a whole-token anchor may take besides `path:line[:col]` (parse_anchor).
struct AnchorForms {
  /// `src/a.ts:12:5:` (ripgrep --vimgrep, compilers, before the quoted line): every ':' at the
  /// end dropped first, whatever the form.
  bool trailing_colons = false;
  /// `src/a.ts(12)`, `src/a.ts(12,5)`, `src/a.ts(12, 5)` (MSBuild, tsc): a token ending in ')'
  /// is this form or no anchor.
  bool parenthesised = false;
  /// `src/a.ts#L12`, `src/a.ts#L12-L20` (a GitHub link's line): a token with "#L" after its
  /// first character is this form or no anchor.
  bool github_line = false;
};

/// A token that is one anchor, whole.
struct AnchorParts {
  std::string_view path;    ///< Before the numbers (never empty), into the token; not judged.
  std::string_view line;    ///< The line's digits (never empty).
  std::string_view column;  ///< The column's digits; empty when none (`#L12-L20`'s end is not one).
};

/// `token` read as one anchor: the path, then `:line` or `:line:col` ending the token (the last
/// one or two `:digits` groups: `a:1:2:3` is path `a:1`, line 2, column 3; a colon at the
/// token's start is no separator), or one of `forms`. The forms are tried in the order of
/// AnchorForms' fields. nullopt: not an anchor in any of them.
std::optional<AnchorParts> parse_anchor(std::string_view token, AnchorForms forms = {});

/// `digits` (ASCII, as line_column_at gives them) as a line or column number below 10^9: read
/// digit by digit until the value reaches 10^8, nullopt when digits are left then (an absurd
/// number is no position; leading zeros are read).
std::optional<long long> anchor_number(std::string_view digits);

}  // namespace ctxo
