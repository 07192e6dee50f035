// SPDX-License-Identifier: MIT
// Cause facts (Finding::cause): small helpers that turn where a defect is into a fact that is the
// same for one defect whatever values an answer held.
#pragma once

#include <string>
#include <string_view>

namespace ctxo {

/// A JSON pointer or field path as a cause fact: array indices ("/3", "[3]") become "*", so the
/// same field of every item is one cause ("/results/*/line").
inline std::string path_shape(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (std::size_t i = 0; i < path.size();) {
    const bool opens = path[i] == '/' || path[i] == '[';
    std::size_t j = i + (opens ? 1 : 0);
    while (j < path.size() && path[j] >= '0' && path[j] <= '9') ++j;
    const bool index = opens && j > i + 1 &&
                       (path[i] == '/' ? (j == path.size() || path[j] == '/') : (j < path.size() && path[j] == ']'));
    if (index) {
      out += path[i] == '/' ? "/*" : "[*]";
      i = path[i] == '/' ? j : j + 1;
    } else {
      out += path[i++];
    }
  }
  return out;
}

/// `text` (our own words about a rule) with every run of digits as one '#': a cause fact
/// without the counts and sizes that differ between answers.
inline std::string digits_blanked(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_digits = false;
  for (char c : text) {
    const bool d = c >= '0' && c <= '9';
    if (!d) out += c;
    else if (!in_digits) out += '#';
    in_digits = d;
  }
  return out;
}

}  // namespace ctxo
