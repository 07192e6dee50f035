// SPDX-License-Identifier: MIT
// Parsing JSON a server sent, with its nesting bounded: every walk, dump and check downstream
// recurses once per level, so a message of a million nested `[` would overflow the stack.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace ctxo {

/// The deepest nesting kept from server-sent JSON; values below it are dropped while parsing.
inline constexpr int kMaxJsonNesting = 256;

/// json::parse(text, nullptr, false) (discarded when not JSON), except that values nested deeper
/// than kMaxJsonNesting are dropped; `too_deep`, when given, says whether any was. The parser
/// itself keeps its stacks on the heap, so any depth is read without recursion.
inline nlohmann::json parse_bounded(std::string_view text, bool* too_deep = nullptr) {
  bool deep = false;
  nlohmann::json::parser_callback_t keep = [&deep](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth <= kMaxJsonNesting) return true;
    deep = true;
    return false;
  };
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), keep, false);
  if (too_deep) *too_deep = deep;
  return j;
}

}  // namespace ctxo
