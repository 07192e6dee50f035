// SPDX-License-Identifier: MIT
// Fuzz target: Unicode measures and (line, column) <-> offset mapping on arbitrary bytes: lengths
// agree with the U+FFFD-repaired text, and positions round-trip in every column unit.
#include <algorithm>
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "truncation/js_json.h"
#include "truncation/unicode.h"

namespace {

using ctxo::fuzz::require;
namespace tr = ctxo::truncation;

void check_offset(std::string_view text, std::size_t off, tr::ColumnUnit unit) {
  auto p = tr::offset_to_position(text, off, unit);
  require(p.ok(), "offset_to_position failed on a valid offset");
  if (!tr::is_position_boundary(text, off)) return;
  auto back = tr::position_to_offset(text, p->line, p->column, unit);
  require(back.ok() && *back == off, "offset -> position -> offset does not round-trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto unit = static_cast<tr::ColumnUnit>(data[0] % 3);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  // Lengths agree with the repaired text (each ill-formed subpart -> U+FFFD).
  std::string repaired;
  std::size_t steps = 0;
  for (std::size_t i = 0; i < text.size();) {
    const tr::Utf8Step s = tr::decode_utf8(text, i);
    require(s.length >= 1 && s.length <= 4 && i + s.length <= text.size(), "bad step length");
    repaired += s.valid ? std::string(text.substr(i, s.length)) : std::string("\xEF\xBF\xBD");
    i += s.length;
    ++steps;
  }
  require(tr::utf8_length(text) == repaired.size(), "utf8_length");
  require(tr::code_points(text) == steps && tr::code_points(repaired) == steps, "code_points");
  require(tr::utf16_length(text) == tr::utf16_length(repaired), "utf16_length");
  require(tr::utf8_length(repaired) == repaired.size(), "repaired text is not well-formed");
  const std::string literal = tr::to_js_json(nlohmann::json(std::string(text)));
  require(literal.size() == tr::js_string_measure(text, tr::Measure::kUtf8Bytes), "string literal size");

  // Offsets: all of them for short inputs, a strided sample otherwise (the walk is linear).
  const std::size_t stride = text.size() <= 256 ? 1 : text.size() / 64;
  for (std::size_t off = 0; off <= text.size(); off += stride) check_offset(text, off, unit);
  check_offset(text, text.size(), unit);
  require(!tr::offset_to_position(text, text.size() + 1, unit).ok(), "offset past the end accepted");

  // Positions: every column of the first few lines maps to a boundary that maps back.
  const std::size_t lines = 1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  for (std::size_t line = 1; line <= std::min<std::size_t>(lines, 8); ++line) {
    for (std::size_t col = 1; col < 600; ++col) {
      auto off = tr::position_to_offset(text, line, col, unit);
      if (!off) {
        if (off.error().message.find("past the end") != std::string::npos) break;
        continue;
      }
      require(tr::is_position_boundary(text, *off), "position maps inside a character");
      auto p = tr::offset_to_position(text, *off, unit);
      require(p.ok() && p->line == line && p->column == col, "position -> offset -> position does not round-trip");
    }
  }
  require(!tr::position_to_offset(text, lines + 1, 1, unit).ok(), "line past the end accepted");
  return 0;
}
