// SPDX-License-Identifier: MIT
// What the two files of the generic position rules share (generic_anchors.cpp and
// generic_positions.cpp), internal to them: not part of checks/generic_positions.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ctxo::checks::generic {

inline constexpr std::uintmax_t kMaxFileBytes = 8u * 1024u * 1024u;
inline constexpr std::size_t kMaxFiles = 64;  ///< Files kept read per run.
/// The arguments a call names its identifier in.
inline constexpr const char* kArgNameKeys[] = {"symbol", "symbolName", "symbol_name", "name", "identifier", "query"};

/// An integer (or a float with no fraction); nullopt otherwise.
std::optional<std::int64_t> int_of(const nlohmann::json* j);
/// The identifier a name stands for: `runTask`, or the last segment of `Scheduler.start` /
/// `a::b`; "" when it is not one (a path, a sentence, a file's name).
std::string identifier_of(std::string_view s);
/// `s` without the characters of `ws` at either end.
std::string trim_ws(std::string_view s, const char* ws = " \t\r\n");

}  // namespace ctxo::checks::generic
