// SPDX-License-Identifier: MIT
#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/redact.h"

namespace ctxo {

Utf8Char utf8_char_at(std::string_view s, std::size_t i) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned char c = p[i];
  if (c < 0x80) return {1, c};
  std::size_t len;
  char32_t cp;
  if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
  else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
  else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
  else return {};
  if (i + len > s.size()) return {};
  for (std::size_t k = 1; k < len; ++k) {
    if ((p[i + k] & 0xC0) != 0x80) return {};
    cp = (cp << 6) | (p[i + k] & 0x3F);
  }
  if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) return {};
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {};
  return {len, cp};
}

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_char_at(s, i).length;
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string sanitize_utf8(std::string_view s) {
  if (is_valid_utf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_char_at(s, i).length;
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::string excerpt(std::string_view s, std::size_t max_bytes) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size() && out.size() < max_bytes) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = utf8_char_at(s, i).length;
    if (len == 0 || (len == 1 && c < 0x20 && c != '\t')) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
      ++i;
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  if (i < s.size()) out += "…(" + std::to_string(s.size() - i) + " more bytes)";
  return out;
}

std::string shell_quote(std::string_view arg) {
  bool plain = !arg.empty();
  for (char c : arg) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/' || c == '=' ||
          c == ':' || c == ',' || c == '@' || c == '+')) {
      plain = false;
      break;
    }
  }
  if (plain) return std::string(arg);
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(a);
  }
  return out;
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

namespace {
// The code unit of a `\uXXXX` escape starting at `at` (the backslash), or -1.
long escape_unit(std::string_view s, std::size_t at) {
  if (at + 6 > s.size() || s[at] != '\\' || s[at + 1] != 'u') return -1;
  long v = 0;
  for (std::size_t k = at + 2; k < at + 6; ++k) {
    const char c = s[k];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}
}  // namespace

bool cut_marker_at(std::string_view s, std::size_t at) {
  // Blanks and line ends (raw, or escaped in JSON text) may stand between the cut and its marker.
  for (int k = 0; k < 8 && at < s.size(); ++k) {
    if (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r') ++at;
    else if (s[at] == '\\' && at + 1 < s.size() && (s[at + 1] == 'n' || s[at + 1] == 'r' || s[at + 1] == 't')) at += 2;
    else break;
  }
  const std::string_view t = s.substr(std::min(at, s.size()));
  if (t.rfind("\xE2\x80\xA6", 0) == 0 || t.rfind("\\u2026", 0) == 0 || t.rfind("...", 0) == 0) return true;
  if (t.empty() || (t[0] != '[' && t[0] != '(' && t[0] != '<')) return false;
  std::size_t i = 1;
  while (i < t.size() && i < 4 && (t[i] == ' ' || t[i] == '.' || t[i] == '+' || t[i] == '-')) ++i;
  if (i < t.size() && t[i] >= '0' && t[i] <= '9') return true;
  std::string word;
  for (; i < t.size() && word.size() < 6; ++i) {
    const char c = t[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) break;
    word += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  for (const char* w : {"trunc", "cut", "more", "omit", "elided", "clip"})
    if (word.rfind(w, 0) == 0) return true;
  return false;
}

std::vector<LoneSurrogate> lone_surrogate_escapes(std::string_view s, std::size_t max) {
  std::vector<LoneSurrogate> out;
  for (std::size_t i = 0; i < s.size() && out.size() < max;) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      ++i;
      continue;
    }
    const long unit = escape_unit(s, i);
    if (unit < 0xD800 || unit > 0xDFFF) {
      i += 2;
      continue;
    }
    const long next = unit <= 0xDBFF ? escape_unit(s, i + 6) : -1;
    if (next >= 0xDC00 && next <= 0xDFFF) {
      i += 12;
      continue;
    }
    LoneSurrogate l;
    l.at = i;
    l.unit = static_cast<unsigned>(unit);
    if (unit <= 0xDBFF) {
      // A string cut after the first half of a pair: the string ends, or a marker follows.
      const std::size_t after = i + 6;
      l.cut = (after < s.size() && s[after] == '"') || cut_marker_at(s, after);
    } else if (i > 0 && s[i - 1] == '"') {
      // A string that starts with the second half of a pair (the next page of a cut).
      std::size_t b = i - 1;
      while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\n' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
      l.cut = b > 0 && (s[b - 1] == ':' || s[b - 1] == '[' || s[b - 1] == ',');
    }
    out.push_back(l);
    i += 6;
  }
  return out;
}

std::string replace_lone_surrogate_escapes(std::string_view s, std::size_t* first) {
  // The same scan lone_surrogate_escapes makes; each lone escape is six bytes, as \uFFFD is.
  const auto lone = lone_surrogate_escapes(s, SIZE_MAX);
  if (first) *first = lone.empty() ? std::string_view::npos : lone.front().at;
  std::string out(s);
  for (const auto& l : lone) out.replace(l.at, 6, "\\uFFFD");
  return out;
}

std::string thousands(long long n) {
  const unsigned long long magnitude = n < 0 ? 0ULL - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
  const std::string digits = std::to_string(magnitude);
  std::string out = n < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string ascii_lower(std::string_view s) {
  std::string o(s);
  for (char& c : o)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return o;
}

std::string_view trim_space(std::string_view s) {
  constexpr std::string_view ws = " \t\r\n\f\v";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

std::optional<std::string_view> line_text(std::string_view text, std::int64_t line) {
  if (line < 1) return std::nullopt;
  std::size_t pos = 0;
  for (std::int64_t l = 1; l < line; ++l) {
    const auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) return std::nullopt;
    pos = nl + 1;
  }
  const auto nl = text.find('\n', pos);
  std::string_view lt = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
  if (!lt.empty() && lt.back() == '\r') lt.remove_suffix(1);
  return lt;
}

std::optional<std::string> file_uri_path(std::string_view uri) {
  if (uri.substr(0, 7) != "file://") return std::nullopt;
  std::string_view rest = uri.substr(7);
  if (rest.substr(0, 10) == "localhost/") rest.remove_prefix(9);
  if (rest.empty() || rest[0] != '/') return std::nullopt;
  return core::percent_decode(rest);  // the one %XX decoder (core/redact.h); '+' is a '+' in a path
}

std::string base64_encode(std::string_view s) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < s.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(s[i]) << 16 | static_cast<unsigned char>(s[i + 1]) << 8 |
                       static_cast<unsigned char>(s[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += alphabet[(v >> shift) & 63];
  }
  if (i < s.size()) {
    unsigned v = static_cast<unsigned char>(s[i]) << 16;
    if (i + 1 < s.size()) v |= static_cast<unsigned char>(s[i + 1]) << 8;
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += i + 1 < s.size() ? alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace ctxo
