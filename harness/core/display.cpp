// SPDX-License-Identifier: MIT
#include "core/display.h"

#include <cstdio>

#include "core/text.h"

namespace ctxo {

std::string display_text(std::string_view s, bool multiline) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  auto hex = [&](unsigned c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", c);
    out += buf;
  };
  std::size_t i = 0;
  while (i < n) {
    unsigned c = p[i];
    if (c < 0x80) {
      if (c == '\r' && multiline && i + 1 < n && p[i + 1] == '\n') {
        ++i;  // "\r\n" -> "\n"
        continue;
      }
      if ((c < 0x20 && c != '\t' && !(multiline && c == '\n')) || c == 0x7F) hex(c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    // Anything malformed shows its first byte and resyncs after it.
    const auto [len, cp] = utf8_char_at(s, i);
    if (len == 0) {
      hex(c);
      ++i;
      continue;
    }
    // C1 controls, line/paragraph separators and bidi embeddings/overrides/isolates can hide
    // or reorder text ("Trojan Source"); show them as escapes.
    if ((cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
        (cp >= 0x2066 && cp <= 0x2069)) {
      char buf[12];
      std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  return out;
}

}  // namespace ctxo
