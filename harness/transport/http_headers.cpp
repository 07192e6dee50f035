// SPDX-License-Identifier: MIT
#include "transport/http_headers.h"

#include <algorithm>

#include "core/display.h"
#include "core/text.h"

namespace ctxo::transport {

namespace {

/// `s` without the optional white space (SP, HTAB) around a field value, and the line's CR/LF.
std::string_view trim_ows(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

/// Appends `v` to `t`, keeping at most `cap` bytes and counting them all.
void append(HeaderText& t, std::string_view v, std::size_t cap) {
  if (t.text.size() < cap) t.text.append(v.substr(0, cap - t.text.size()));
  t.size += v.size();
}

/// The status code of a status line: the three digits after its first space (0 when there are
/// none, or more than three).
long status_of(std::string_view line) {
  const std::size_t sp = line.find(' ');
  if (sp == std::string_view::npos) return 0;
  const std::string_view code = line.substr(sp + 1, 4);
  if (code.size() < 3) return 0;
  if (code.size() == 4 && code[3] != ' ' && code[3] != '\r' && code[3] != '\n') return 0;
  long st = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    if (code[i] < '0' || code[i] > '9') return 0;
    st = st * 10 + (code[i] - '0');
  }
  return st;
}

}  // namespace

std::string HeaderText::shown(std::size_t max_bytes) const {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t len = std::max<std::size_t>(1, utf8_char_at(text, i).length);
    const std::string one = display_text(std::string_view(text).substr(i, len), false);
    if (out.size() + one.size() > max_bytes) break;
    out += one;
    i += len;
  }
  if (i < size) out += "…(" + std::to_string(size - i) + " more bytes)";
  return out;
}

void ResponseHeaders::line(std::string_view line) {
  ++lines_;
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a 1xx, the real one)
    *this = ResponseHeaders{};
    lines_ = 1;  // counted per response, as everything else
    status_ = status_of(line);
    return;
  }
  if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) {
    const std::string_view more = trim_ows(line);
    if (!more.empty()) set(last_, more, true);
    return;
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    last_ = Field::kNone;  // the blank line, or no header at all
    return;
  }
  const std::string name = ascii_lower(trim_ows(line.substr(0, colon)));
  last_ = name == "content-type"       ? Field::kContentType
          : name == "mcp-session-id"   ? Field::kSessionId
          : name == "www-authenticate" ? Field::kWwwAuthenticate
          : name == "location"         ? Field::kLocation
                                       : Field::kNone;
  set(last_, trim_ows(line.substr(colon + 1)), false);
}

void ResponseHeaders::set(Field f, std::string_view value, bool append_to) {
  HeaderText* t = nullptr;
  std::size_t cap = kMaxHeaderTextBytes;
  switch (f) {
    case Field::kNone: return;
    case Field::kContentType: t = &content_type_; break;
    case Field::kWwwAuthenticate: t = &www_authenticate_; break;
    case Field::kLocation: t = &location_; break;
    case Field::kSessionId:
      t = &session_given_;
      cap = kMaxSessionIdBytes;
      break;
  }
  if (append_to) {
    append(*t, " ", cap);  // obsolete line folding: the fold is one space
  } else {
    *t = HeaderText{};
  }
  append(*t, value, cap);
  if (f == Field::kContentType) {
    const std::string_view kept = content_type_.text;
    const std::string_view type = trim_ows(kept.substr(0, kept.find(';')));
    // Cut short of its ';' by the cap, or long in itself: no media type the transport knows.
    const bool whole = kept.find(';') != std::string_view::npos || content_type_.size == kept.size();
    media_type_ = whole && type.size() <= kMaxMediaTypeBytes ? ascii_lower(type) : std::string();
  } else if (f == Field::kSessionId) {
    const std::string& s = session_given_.text;
    const bool visible = std::all_of(s.begin(), s.end(), [](char ch) { return ch >= 0x21 && ch <= 0x7e; });
    // A header value may hold visible ASCII, spaces, tabs and bytes over 0x7F (RFC 9110 §5.5).
    const bool sendable = std::none_of(s.begin(), s.end(), [](char ch) {
      const auto c = static_cast<unsigned char>(ch);
      return (c < 0x20 && c != '\t') || c == 0x7f;
    });
    const bool too_long = session_given_.size > kMaxSessionIdBytes;
    session_id_problem_ = too_long   ? SessionIdProblem::kTooLong
                          : !visible ? SessionIdProblem::kNotVisibleAscii
                                     : SessionIdProblem::kNone;
    session_id_ = !too_long && sendable ? s : std::string();
  }
}

}  // namespace ctxo::transport
