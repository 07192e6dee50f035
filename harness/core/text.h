// SPDX-License-Identifier: MIT
// Small text helpers shared by every module: excerpts, UTF-8 validity, shell quoting.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ctxo {

/// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view s);

/// At most `max_bytes` of `s`, cut on a UTF-8 boundary, with "…(N more bytes)" appended when cut.
/// Invalid bytes and control characters are shown as \xNN so the excerpt is printable.
std::string excerpt(std::string_view s, std::size_t max_bytes = 400);

/// Quotes one argument for a POSIX shell (single quotes, ' escaped).
std::string shell_quote(std::string_view arg);

/// Joins argv into a copy-pasteable command line.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace ctxo
