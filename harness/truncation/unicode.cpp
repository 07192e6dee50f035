// SPDX-License-Identifier: MIT
// Unicode measures and position mapping; the decoder follows the WHATWG UTF-8 decoder exactly so
// our counts match what a Node.js server sees after decoding the same bytes.
#include "truncation/unicode.h"

namespace ctxo::truncation {

Utf8Step decode_utf8(std::string_view text, std::size_t offset) {
  if (offset >= text.size()) return {0, 0, false};
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const unsigned char b = p[offset];
  if (b < 0x80) return {b, 1, true};
  std::size_t need = 0;
  unsigned lower = 0x80, upper = 0xBF;
  char32_t cp = 0;
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
    cp = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 2;
    cp = b & 0x0F;
    if (b == 0xE0) lower = 0xA0;  // no overlongs
    if (b == 0xED) upper = 0x9F;  // no surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3;
    cp = b & 0x07;
    if (b == 0xF0) lower = 0x90;  // no overlongs
    if (b == 0xF4) upper = 0x8F;  // nothing above U+10FFFF
  } else {
    return {0xFFFD, 1, false};
  }
  std::size_t j = offset + 1;
  for (std::size_t n = 0; n < need; ++n, ++j) {
    // A byte outside the allowed range ends the maximal subpart and is NOT consumed.
    if (j >= text.size() || p[j] < lower || p[j] > upper)
      return {0xFFFD, static_cast<std::uint8_t>(j - offset), false};
    lower = 0x80;
    upper = 0xBF;
    cp = (cp << 6) | (p[j] & 0x3F);
  }
  return {cp, static_cast<std::uint8_t>(need + 1), true};
}

namespace {

// Sums f(step) over the whole text, with a fast path for ASCII bytes.
template <typename F>
std::size_t sum_steps(std::string_view text, F f) {
  std::size_t total = 0, i = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  while (i < text.size()) {
    if (p[i] < 0x80) {
      ++total;
      ++i;
      continue;
    }
    const Utf8Step s = decode_utf8(text, i);
    total += f(s);
    i += s.length;
  }
  return total;
}

std::size_t unit_width(const Utf8Step& s, ColumnUnit unit) {
  switch (unit) {
    case ColumnUnit::kUtf16:
      return utf16_units(s.code_point);
    case ColumnUnit::kUtf8Bytes:
      return s.length;
    case ColumnUnit::kCodePoints:
      return 1;
  }
  return 1;
}

Error position_error(std::string message) { return make_error("position", std::move(message)); }

}  // namespace

std::size_t utf8_length(std::string_view text) {
  return sum_steps(text, [](const Utf8Step& s) -> std::size_t { return s.valid ? s.length : 3; });
}

std::size_t utf16_length(std::string_view text) {
  return sum_steps(text, [](const Utf8Step& s) { return utf16_units(s.code_point); });
}

std::size_t code_points(std::string_view text) {
  return sum_steps(text, [](const Utf8Step&) -> std::size_t { return 1; });
}

Result<std::size_t> position_to_offset(std::string_view text, std::size_t line, std::size_t column,
                                       ColumnUnit unit) {
  if (line == 0 || column == 0) return position_error("line and column are 1-based; got 0");
  std::size_t start = 0;
  for (std::size_t l = 1; l < line; ++l) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos)
      return position_error("line " + std::to_string(line) + " does not exist (text has " + std::to_string(l) +
                            " lines)");
    start = nl + 1;
  }
  std::size_t end = text.find('\n', start);
  if (end == std::string_view::npos) {
    end = text.size();
  } else if (end > start && text[end - 1] == '\r') {
    --end;  // CR of a CRLF belongs to the line ending
  }
  std::size_t pos = start, col = 1;
  while (col < column) {
    if (pos >= end)
      return position_error("column " + std::to_string(column) + " is past the end of line " + std::to_string(line) +
                            " (last column " + std::to_string(col) + ")");
    const Utf8Step s = decode_utf8(text, pos);
    const std::size_t w = unit_width(s, unit);
    if (col + w > column)
      return position_error("column " + std::to_string(column) + " of line " + std::to_string(line) +
                            " falls inside a character");
    col += w;
    pos += s.length;
  }
  return pos;
}

Result<Position> offset_to_position(std::string_view text, std::size_t offset, ColumnUnit unit) {
  if (offset > text.size())
    return position_error("offset " + std::to_string(offset) + " is past the end of the text (" +
                          std::to_string(text.size()) + " bytes)");
  Position p;
  std::size_t start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++p.line;
      start = i + 1;
    }
  }
  std::size_t pos = start;
  while (pos < offset) {
    if (text[pos] == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n') break;  // line ending
    const Utf8Step s = decode_utf8(text, pos);
    if (pos + s.length > offset) break;  // offset inside this character
    p.column += unit_width(s, unit);
    pos += s.length;
  }
  return p;
}

bool is_position_boundary(std::string_view text, std::size_t offset) {
  if (offset > text.size()) return false;
  if (offset == text.size()) return true;
  if (text[offset] == '\n' && offset > 0 && text[offset - 1] == '\r') return false;
  std::size_t pos = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  pos = (pos == std::string_view::npos || offset == 0) ? 0 : pos + 1;
  while (pos < offset) pos += decode_utf8(text, pos).length;
  return pos == offset;
}

Result<std::size_t> column_in_bytes(std::string_view text, std::size_t offset) {
  auto p = offset_to_position(text, offset, ColumnUnit::kUtf8Bytes);
  if (!p) return p.error();
  return p->column;
}

Result<std::size_t> column_in_code_points(std::string_view text, std::size_t offset) {
  auto p = offset_to_position(text, offset, ColumnUnit::kCodePoints);
  if (!p) return p.error();
  return p->column;
}

Result<std::size_t> column_in_utf16(std::string_view text, std::size_t offset) {
  auto p = offset_to_position(text, offset, ColumnUnit::kUtf16);
  if (!p) return p.error();
  return p->column;
}

}  // namespace ctxo::truncation
