// SPDX-License-Identifier: MIT
// Fuzz target for transport::ResponseHeaders (the Streamable HTTP transport's response headers, as
// libcurl's header callback hands them over, one line at a time): arbitrary lines (NUL, CR without
// LF, non-ASCII, folded lines, repeated headers, status lines in between), some expanded to 100,000
// copies or a value of a megabyte. Checked against a plain reading of the same rules that keeps
// every value whole: the same status, media type and session id; each kept value is the whole
// value's first bytes, never over its cap; a session id is kept only when it is a header value
// that can be sent back and within kMaxSessionIdBytes; every shown() text is already escaped as
// the console and reports show server text (display_text leaves it as it is) and bounded. No
// network, no libcurl.
//
// Input: lines separated by '\n' (each fed with its '\n', as libcurl gives them; the last without).
// A line starting with 0xFF and a byte r is fed 2^(r % 18) times (without those two bytes); one
// starting with 0xFE and a byte r has its last byte repeated until it is 2^(r % 21) bytes long.
// At most 1 MiB is fed per input (100,000 short lines fit).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/display.h"
#include "core/text.h"
#include "fuzz_common.h"
#include "transport/http_headers.h"

namespace {

using ctxo::fuzz::require;
using namespace ctxo::transport;

constexpr std::size_t kMaxFed = std::size_t{1} << 20;

/// The rules, read plainly: every value kept whole.
struct Ref {
  long status = 0;
  std::string content_type, session_id, www_authenticate, location;
  std::string* last = nullptr;  // the value a folded line continues

  static std::string_view trim(std::string_view s) {
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    return s;
  }

  void line(std::string_view l) {
    if (l.substr(0, 5) == "HTTP/") {
      *this = Ref{};
      const std::size_t sp = l.find(' ');
      if (sp == std::string_view::npos || l.size() < sp + 4) return;
      const std::string_view code = l.substr(sp + 1, 3);
      const bool digits = std::all_of(code.begin(), code.end(), [](char c) { return c >= '0' && c <= '9'; });
      const bool ends = l.size() == sp + 4 || l[sp + 4] == ' ' || l[sp + 4] == '\r' || l[sp + 4] == '\n';
      if (digits && ends) status = std::stol(std::string(code));
      return;
    }
    if (!l.empty() && (l[0] == ' ' || l[0] == '\t')) {
      if (last && !trim(l).empty()) *last += " " + std::string(trim(l));
      return;
    }
    const std::size_t colon = l.find(':');
    last = nullptr;
    if (colon == std::string_view::npos) return;
    const std::string name = ctxo::ascii_lower(trim(l.substr(0, colon)));
    if (name == "content-type") last = &content_type;
    else if (name == "mcp-session-id") last = &session_id;
    else if (name == "www-authenticate") last = &www_authenticate;
    else if (name == "location") last = &location;
    if (last) *last = std::string(trim(l.substr(colon + 1)));
  }
};

bool control(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return (c < 0x20 && c != '\t') || c == 0x7f;
}

/// A kept value against the whole one: its first bytes up to `cap`, its size, and shown() safe.
void check_text(const HeaderText& got, const std::string& whole, std::size_t cap, const char* what) {
  require(got.size == whole.size(), what);
  require(got.text.size() <= cap, "a kept value is within its cap");
  require(got.text == std::string_view(whole).substr(0, cap), "a kept value is the whole value's first bytes");
  for (std::size_t max : {0u, 1u, 20u, 120u, 300u}) {
    const std::string shown = got.shown(max);
    require(ctxo::display_text(shown, false) == shown, "shown() text is already escaped for a console");
    // Up to `max` bytes of text, then at most "…(N more bytes)".
    require(shown.size() <= max + 40, "shown() text is bounded");
    const bool plain = whole.size() <= max && std::none_of(whole.begin(), whole.end(), [](char c) {
                         return control(c) || static_cast<unsigned char>(c) >= 0x80;
                       });
    if (plain) require(shown == whole, "a short printable value is shown as it is");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  ResponseHeaders h;
  Ref ref;
  std::size_t fed = 0;
  auto feed = [&](std::string_view l) {
    h.line(l);
    ref.line(l);
    fed += l.size() + 1;
  };
  std::size_t pos = 0;
  while (pos < in.size() && fed < kMaxFed) {
    std::size_t end = in.find('\n', pos);
    end = end == std::string_view::npos ? in.size() : end + 1;
    std::string_view l = in.substr(pos, end - pos);
    pos = end;
    if (l.size() >= 2 && static_cast<unsigned char>(l[0]) == 0xFF) {
      const std::size_t times = std::size_t{1} << (static_cast<unsigned char>(l[1]) % 18);
      l.remove_prefix(2);
      for (std::size_t i = 0; i < times && fed < kMaxFed; ++i) feed(l);
    } else if (l.size() >= 3 && static_cast<unsigned char>(l[0]) == 0xFE) {
      const std::size_t want = std::min(kMaxFed, std::size_t{1} << (static_cast<unsigned char>(l[1]) % 21));
      std::string grown(l.substr(2));
      const bool nl = grown.back() == '\n';
      if (nl) grown.pop_back();
      if (!grown.empty() && grown.size() < want) grown.append(want - grown.size(), grown.back());
      if (nl) grown += '\n';
      feed(grown);
    } else {
      feed(l);
    }
  }

  require(h.status() == ref.status, "status as the plain reading");
  check_text(h.content_type(), ref.content_type, kMaxHeaderTextBytes, "Content-Type's size");
  check_text(h.www_authenticate(), ref.www_authenticate, kMaxHeaderTextBytes, "WWW-Authenticate's size");
  check_text(h.location(), ref.location, kMaxHeaderTextBytes, "Location's size");
  check_text(h.session_id_given(), ref.session_id, kMaxSessionIdBytes, "Mcp-Session-Id's size");

  // The media type: the Content-Type before its parameters, lower case, or "" when too long.
  const std::string type(Ref::trim(std::string_view(ref.content_type).substr(0, ref.content_type.find(';'))));
  require(h.media_type() == (type.size() <= kMaxMediaTypeBytes ? ctxo::ascii_lower(type) : std::string()),
          "media type as the plain reading");
  require(h.event_stream() == (h.status() >= 200 && h.status() < 300 && h.media_type() == "text/event-stream"),
          "an event stream is a 2xx text/event-stream");

  // The session id: kept whole when it can be sent back, never otherwise.
  const std::string& sid = ref.session_id;
  const bool sendable = sid.size() <= kMaxSessionIdBytes && std::none_of(sid.begin(), sid.end(), control);
  require(h.session_id() == (sendable ? sid : std::string()), "a session id is kept exactly when it can be sent");
  require(std::none_of(h.session_id().begin(), h.session_id().end(), control), "a kept session id holds no control");
  const bool visible = std::all_of(sid.begin(), sid.end(), [](char c) { return c >= 0x21 && c <= 0x7e; });
  const SessionIdProblem want = sid.size() > kMaxSessionIdBytes ? SessionIdProblem::kTooLong
                                : !visible                      ? SessionIdProblem::kNotVisibleAscii
                                                                : SessionIdProblem::kNone;
  require(h.session_id_problem() == want, "the session id's problem as the plain reading");
  return 0;
}
