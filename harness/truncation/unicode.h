// SPDX-License-Identifier: MIT
// Unicode measures and position mapping for the truncation core: UTF-8/UTF-16/code point lengths
// and (line, column) <-> byte offset. No I/O; invalid UTF-8 has one defined meaning everywhere.
//
// Invalid UTF-8 is decoded as the WHATWG Encoding Standard (and so Node's Buffer#toString and
// TextDecoder) decodes it: each *maximal subpart* of an ill-formed sequence becomes one U+FFFD
// (3 UTF-8 bytes, 1 UTF-16 unit, 1 code point). Example: "\xE2\x82" is one U+FFFD, "\xFF\xFF" two.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/result.h"

namespace ctxo::truncation {

/// One decoded step of a UTF-8 string.
struct Utf8Step {
  char32_t code_point = 0;  ///< The scalar value, or U+FFFD for an ill-formed subpart.
  std::uint8_t length = 0;  ///< Bytes consumed (1..4); 0 only at end of input.
  bool valid = false;       ///< False when this step is a replacement for ill-formed bytes.
};

/// Decodes the character starting at byte `offset` of `text` (WHATWG maximal-subpart rule).
/// Precondition: offset < text.size(); at or past the end returns {0, 0, false}.
Utf8Step decode_utf8(std::string_view text, std::size_t offset);

/// UTF-8 bytes of `text` after replacing each ill-formed subpart by U+FFFD (what Node would send).
/// Equal to text.size() for valid UTF-8.
std::size_t utf8_length(std::string_view text);

/// UTF-16 code units of `text` as a JavaScript string would count them (String#length).
std::size_t utf16_length(std::string_view text);

/// Unicode code points of `text` (each ill-formed subpart counts as one U+FFFD).
std::size_t code_points(std::string_view text);

/// UTF-16 code units of one code point: 2 above U+FFFF, else 1.
inline std::size_t utf16_units(char32_t cp) { return cp > 0xFFFF ? 2 : 1; }

/// The unit a column is counted in.
enum class ColumnUnit {
  kUtf16,       ///< UTF-16 code units (LSP / MCP convention; the default).
  kUtf8Bytes,   ///< UTF-8 bytes (a common server bug).
  kCodePoints,  ///< Unicode code points (Python-style str indices).
};

/// A 1-based (line, column) position.
struct Position {
  std::size_t line = 1;    ///< 1-based line; lines are split on '\n'.
  std::size_t column = 1;  ///< 1-based column in the chosen ColumnUnit.
  friend bool operator==(const Position&, const Position&) = default;
};

/// Byte offset of the 1-based (`line`, `column`) in `text`, columns counted in `unit`.
/// Lines are split on '\n'; a '\r' right before '\n' belongs to the line ending, not the line.
/// Column len+1 (len = the line's length in `unit`) is the end of the line (offset of its ending).
/// Errors: "position" when line or column is 0, the line does not exist, the column is past the
/// end of the line, or (kUtf16/kUtf8Bytes) the column falls inside a character.
Result<std::size_t> position_to_offset(std::string_view text, std::size_t line, std::size_t column,
                                       ColumnUnit unit = ColumnUnit::kUtf16);

/// The 1-based position of byte `offset` in `text` (0 <= offset <= text.size()).
/// An offset inside a multi-byte character maps to that character's position; an offset on the
/// '\n' of a "\r\n" maps to the end of its line (same as the '\r').
/// Error: "position" when offset > text.size().
Result<Position> offset_to_position(std::string_view text, std::size_t offset,
                                    ColumnUnit unit = ColumnUnit::kUtf16);

/// True when `offset` is a position boundary: the start of a decoded character (not inside one,
/// not the '\n' of a "\r\n") or text.size(). For these offsets
/// position_to_offset(offset_to_position(offset)) == offset, in every ColumnUnit.
bool is_position_boundary(std::string_view text, std::size_t offset);

/// 1-based column of `offset` on its line counted in UTF-8 bytes (error as offset_to_position).
Result<std::size_t> column_in_bytes(std::string_view text, std::size_t offset);

/// 1-based column of `offset` on its line counted in code points (error as offset_to_position).
Result<std::size_t> column_in_code_points(std::string_view text, std::size_t offset);

/// 1-based column of `offset` on its line counted in UTF-16 units (error as offset_to_position).
Result<std::size_t> column_in_utf16(std::string_view text, std::size_t offset);

}  // namespace ctxo::truncation
