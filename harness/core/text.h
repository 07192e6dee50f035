// SPDX-License-Identifier: MIT
// Small text helpers shared by every module: excerpts, UTF-8 validity, shell quoting, a stable hash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctxo {

/// One step through UTF-8 text: the well-formed sequence starting at byte `i` of `s` (no
/// overlongs, no surrogates, <= U+10FFFF). `length` is 1-4, or 0 when the byte at `i` starts no
/// well-formed sequence (callers then handle that single byte and go on after it).
struct Utf8Char {
  std::size_t length = 0;
  char32_t code_point = 0;
};
/// Precondition: i < s.size().
Utf8Char utf8_char_at(std::string_view s, std::size_t i);

/// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view s);

/// `s` with each byte that starts no well-formed sequence replaced by U+FFFD (as Node's
/// Buffer.toString('utf8') does for a lone bad byte); valid input comes back unchanged.
std::string sanitize_utf8(std::string_view s);

/// JSON text with every `\uXXXX` escape of a lone UTF-16 surrogate (a high one not followed by a
/// low one, or a low one alone) replaced by `\uFFFD`, as JavaScript's TextEncoder would; pairs are
/// kept. `first`, when given, is set to the byte offset of the first one replaced (npos: none).
std::string replace_lone_surrogate_escapes(std::string_view json_text, std::size_t* first = nullptr);

/// A lone surrogate escape of JSON text, and whether it is where a cut fell.
struct LoneSurrogate {
  std::size_t at = 0;    ///< Byte offset of its backslash.
  unsigned unit = 0;     ///< The code unit (0xD800-0xDFFF).
  /// A cut split a character here: a high surrogate that ends its string or stands right before a
  /// cut marker (an ellipsis, "[truncated", "(cut"...), or a low surrogate that starts its string.
  bool cut = false;
};
/// The lone UTF-16 surrogate escapes of JSON text (as replace_lone_surrogate_escapes finds them),
/// at most `max`, in order.
std::vector<LoneSurrogate> lone_surrogate_escapes(std::string_view json_text, std::size_t max = 8);

/// A cut marker starts at `at` in (decoded or JSON) text, blanks before it aside: "…" (or its
/// escape \u2026), "...", or a bracket or parenthesis opening a word of cutting (truncated, cut,
/// more, omitted, elided) or a count ("[+12 chars]").
bool cut_marker_at(std::string_view s, std::size_t at);

/// At most `max_bytes` of `s`, cut on a UTF-8 boundary, with "…(N more bytes)" appended when cut.
/// Invalid bytes and control characters are shown as \xNN so the excerpt is printable.
std::string excerpt(std::string_view s, std::size_t max_bytes = 400);

/// Quotes one argument for a POSIX shell (single quotes, ' escaped).
std::string shell_quote(std::string_view arg);

/// A 64-bit FNV-1a style hash of `s` (stable across runs and platforms: seeds and file names
/// derive from it, so it must never change).
std::uint64_t fnv1a(std::string_view s);

/// An integer with thousands separators: 1234567 -> "1,234,567".
std::string thousands(long long n);

/// `s` with ASCII letters lowered (other bytes as they are).
std::string ascii_lower(std::string_view s);

/// `s` without leading and trailing ASCII whitespace (space, \t, \r, \n, \f, \v).
std::string_view trim_space(std::string_view s);

/// The text of 1-based `line` of `text` (without its ending, "\r" dropped), or nullopt below 1
/// or past the end.
std::optional<std::string_view> line_text(std::string_view text, std::int64_t line);

/// The one identifier rule (a symbol's name in an answer, a hint's parameter, a name in prose):
/// ASCII letters, '_' and '$', and any byte of a non-ASCII UTF-8 character (Unicode letters, as
/// JavaScript, Python, Go and Rust allow them), then digits too.
inline bool ident_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}
inline bool ident_char(unsigned char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

/// The local path a `file://` URI names, `%XX` decoded: "file:///w/a%20b.ts" and
/// "file://localhost/w/a.ts" give "/w/a b.ts" and "/w/a.ts"; nullopt for any other text, a URI
/// without a path, or one naming another host (not a file of this machine's).
std::optional<std::string> file_uri_path(std::string_view uri);

/// Joins argv into a copy-pasteable command line.
std::string shell_join(const std::vector<std::string>& argv);

/// Standard base64 with padding (RFC 4648): an HTTP client's Basic authorization, an Mcp-Name
/// header that is not plain ASCII.
std::string base64_encode(std::string_view s);

}  // namespace ctxo
