// SPDX-License-Identifier: MIT
// Internal to js_json.cpp (the JSON.stringify writer) and js_json_measure.cpp (the sizer): the
// escape table, the number constants and the helpers both of them use. Not part of the public API.
#pragma once

#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace ctxo::truncation::detail {

// Bytes an ASCII byte takes inside a JSON string literal.
struct EscapeTable {
  std::uint8_t len[128];
  constexpr EscapeTable() : len() {
    for (int c = 0; c < 128; ++c) len[c] = c < 0x20 ? 6 : 1;
    len[static_cast<int>('"')] = 2;
    len[static_cast<int>('\\')] = 2;
    len[static_cast<int>('\b')] = 2;
    len[static_cast<int>('\f')] = 2;
    len[static_cast<int>('\n')] = 2;
    len[static_cast<int>('\r')] = 2;
    len[static_cast<int>('\t')] = 2;
  }
};
inline constexpr EscapeTable kEscape;

inline constexpr std::size_t kNumberBuffer = 48;
inline constexpr double kMaxSafeInteger = 9007199254740992.0;  // 2^53

// A binary value as {"bytes":[...],"subtype":n|null} (defined in js_json.cpp).
nlohmann::json binary_as_json(const nlohmann::json& v);

inline int clamp_indent(int indent) { return indent <= 0 ? 0 : indent > 10 ? 10 : indent; }

}  // namespace ctxo::truncation::detail
