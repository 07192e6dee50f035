// SPDX-License-Identifier: MIT
// One HTTP response's headers as the Streamable HTTP transport reads them, line by line as
// libcurl's header callback hands them over: the status, the media type, the Mcp-Session-Id to
// send back, and the WWW-Authenticate and Location a diagnosis names. Pure (no libcurl, no
// network) so it can be unit-tested and fuzzed (fuzz/fuzz_http_headers.cpp); bounded whatever the
// server sends: 100,000 header lines or a value of megabytes keep at most the caps below.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ctxo::transport {

/// The longest Mcp-Session-Id sent back (MCP sets no limit; common servers refuse request headers
/// past 8 to 16 KiB in all). A longer one is not kept: the session is not used.
inline constexpr std::size_t kMaxSessionIdBytes = 8192;
/// Bytes kept of a header value that is only shown (WWW-Authenticate, Location, Content-Type):
/// diagnoses quote at most a few hundred.
inline constexpr std::size_t kMaxHeaderTextBytes = 1024;
/// Bytes kept of a media type ("text/event-stream"): longer is no type the transport knows.
inline constexpr std::size_t kMaxMediaTypeBytes = 128;

/// A header value as kept: its first bytes, up to a cap (kMaxHeaderTextBytes, or
/// kMaxSessionIdBytes for the session id), and its full size.
struct HeaderText {
  std::string text;      ///< At most the cap (cut anywhere: may end mid-character).
  std::size_t size = 0;  ///< The whole value's size in bytes.
  bool empty() const { return size == 0; }
  /// The value for a diagnosis or console line: at most `max_bytes` of it, then "…(N more bytes)"
  /// counted on the whole value, escaped as server text is shown (core/display.h: no control,
  /// DEL, bidi control or invalid byte left).
  std::string shown(std::size_t max_bytes) const;
};

/// What is wrong with the Mcp-Session-Id a response carried.
enum class SessionIdProblem {
  kNone,             ///< None, or a valid one (kept).
  kNotVisibleAscii,  ///< A byte outside 0x21-0x7E (MCP: a finding, T-HTTP-SESSION); kept when it
                     ///< is still a legal header value (a space, UTF-8), not kept otherwise.
  kTooLong,          ///< Over kMaxSessionIdBytes: not kept.
};

class ResponseHeaders {
 public:
  /// Reads one line as CURLOPT_HEADERFUNCTION gives it (its CRLF or LF included, or not): a
  /// status line ("HTTP/1.1 200 OK", "HTTP/2 401") starts a new response and forgets what the
  /// previous one (a 1xx) said; "Name: value" keeps what the transport needs (the last of a
  /// repeated header wins); a line starting with a space or tab continues the previous header
  /// (obsolete line folding: appended after one space); anything else (the blank line ending the
  /// headers, a line with no colon) is ignored.
  void line(std::string_view line);

  /// The status code of the last status line (0: none, or not three digits).
  long status() const { return status_; }
  /// Its Content-Type as given (bounded), and its media type: lower case, without parameters or
  /// surrounding space ("" when none, or longer than kMaxMediaTypeBytes).
  const HeaderText& content_type() const { return content_type_; }
  const std::string& media_type() const { return media_type_; }
  /// A 2xx answer of Content-Type text/event-stream: an SSE stream.
  bool event_stream() const { return status_ >= 200 && status_ < 300 && media_type_ == "text/event-stream"; }
  const HeaderText& www_authenticate() const { return www_authenticate_; }
  const HeaderText& location() const { return location_; }

  /// The Mcp-Session-Id to send back on later requests: "" when none was given, or when it cannot
  /// be sent (over kMaxSessionIdBytes, or holding a byte no header value may hold: a control
  /// character other than tab, or DEL; a CR or NUL would cut or forge a header of ours).
  const std::string& session_id() const { return session_id_; }
  /// The Mcp-Session-Id as given (its first kMaxSessionIdBytes bytes), to be shown; empty when none.
  const HeaderText& session_id_given() const { return session_given_; }
  SessionIdProblem session_id_problem() const { return session_id_problem_; }

  /// Header lines read (status lines included), for diagnosis only.
  std::size_t lines() const { return lines_; }

 private:
  enum class Field { kNone, kContentType, kSessionId, kWwwAuthenticate, kLocation };
  /// Sets (or, for a folded line, extends) field `f` with `value`.
  void set(Field f, std::string_view value, bool append);

  long status_ = 0;
  HeaderText content_type_, www_authenticate_, location_, session_given_;
  std::string media_type_, session_id_;
  SessionIdProblem session_id_problem_ = SessionIdProblem::kNone;
  Field last_ = Field::kNone;  ///< The header a folded line continues.
  std::size_t lines_ = 0;
};

}  // namespace ctxo::transport
