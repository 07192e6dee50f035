// SPDX-License-Identifier: MIT
// The answers of the Streamable HTTP transport: each message of a POST's answer (a JSON body or an
// SSE stream) read, checked and queued as a frame for the MCP client; the session id and version
// the handshake gives; and, once a POST is over, the transport's rules its answer broke (T-HTTP-*)
// and the made-up answer a request gets when the server gave none.
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/display.h"
#include "core/json_bounded.h"
#include "core/text.h"
#include "transport/curl_api.h"
#include "transport/http_curl_internal.h"
#include "transport/http_headers.h"
#include "transport/sse.h"
#include "transport/transport.h"

namespace ctxo::transport::detail {

// --- SSE --------------------------------------------------------------------------------
void HttpTransport::feed_sse(Reading& r, std::string_view b) {
  r.events.feed(b, [&](SseEvent ev) {
    if (ev.type.empty() || ev.type == "message") deliver(r, std::move(ev.data));
    return !r.answered;  // the answer is in: the rest of the stream is not read
  });
}

// --- delivery ---------------------------------------------------------------------------
/// One message of an answer: checked for what the transport needs (the response's id, the
/// initialize result's version), and queued for the client.
void HttpTransport::deliver(Reading& r, Frame f) {
  ++r.messages;
  if (!f.oversize) {
    // Read as the client reads it (bounded nesting; bad UTF-8 and lone surrogate escapes are the
    // client's T-FRAMING findings, not a reason to drop the message).
    // (A number out of a double's range too: read as null, the client names it.)
    std::string text = f.valid_utf8 ? std::string() : sanitize_utf8(f.body);
    MessageFacts facts;
    json m = parse_message(f.valid_utf8 ? std::string_view(f.body) : std::string_view(text), facts);
    if (m.is_discarded() && f.body.find("\\u") != std::string::npos)
      m = parse_message(replace_lone_surrogate_escapes(f.valid_utf8 ? f.body : text), facts);
    if (m.is_discarded()) {
      violate("T-HTTP-TYPE", {{"form", "not-json"}, {"body", r.sse ? "sse-event" : "json"}},
              std::string(r.sse ? "an SSE event's data" : "a body sent as application/json") +
                  " is not a JSON-RPC message (not JSON): each event's data, or the JSON body, must be one JSON-RPC "
                  "message",
              f.body, r.out->line);
      return;
    }
    if (m.is_object() && !m.contains("method") && (m.contains("result") || m.contains("error"))) {
      const json id = m.contains("id") ? m["id"] : json();
      if (r.out->request() && (id == r.out->id || (id.is_null() && m.contains("error") && !r.sse))) {
        r.answered = true;
        // An error answer that could not name the request (id null) is the answer to this POST.
        // An error sent with an HTTP 5xx carries the status (error.data.httpStatus), so the
        // server failing is told from a refusal: a failed initialize is T-HTTP-STATUS, not P-INIT.
        const bool mark_status = r.headers.status() >= 500 && m.contains("error") && m["error"].is_object() &&
                                 (!m["error"].contains("data") || m["error"]["data"].is_object());
        if (mark_status) m["error"]["data"]["httpStatus"] = r.headers.status();
        if (id.is_null()) m["id"] = r.out->id;
        if (id.is_null() || mark_status) {
          f.body = m.dump(-1, ' ', false, json::error_handler_t::replace);
          f.valid_utf8 = true;
        }
        // The session and version the handshake gives hold before the client sees its answer
        // (it sends the next message at once).
        if (r.out->id == initialize_id_ && m.contains("result")) take_session(r);
        std::lock_guard<std::mutex> lk(mu_);
        if (r.out->id == initialize_id_ && m.contains("result") && m["result"].is_object() &&
            m["result"].contains("protocolVersion") && m["result"]["protocolVersion"].is_string())
          protocol_version_ = m["result"]["protocolVersion"].get<std::string>();
      }
    }
  } else if (r.out->request()) {
    r.answered = true;  // too big to read: the client reports it (T-FRAMING) and stops waiting
  }
  std::lock_guard<std::mutex> lk(mu_);
  frames_.push_back(std::move(f));
  cv_.notify_all();
}

/// The Mcp-Session-Id of the initialize answer being read, kept for every later message when
/// it can be sent back (ResponseHeaders::session_id).
void HttpTransport::take_session(const Reading& r) {
  const HeaderText& given = r.headers.session_id_given();
  if (given.empty()) return;
  const std::string& sid = r.headers.session_id();
  const std::string kept =
      sid.empty() ? "; it is not sent back (a control character in a header value would cut or forge one of ours), "
                    "so no session is used"
                  : std::string();
  switch (r.headers.session_id_problem()) {
    case SessionIdProblem::kNone: break;
    case SessionIdProblem::kNotVisibleAscii:
      violate("T-HTTP-SESSION", {{"form", "session-id-not-visible-ascii"}},
              "the Mcp-Session-Id the server issued contains characters outside visible ASCII (0x21 to 0x7E); a "
              "session ID MUST only contain visible ASCII characters" + kept,
              given.text, r.out->line);
      break;
    case SessionIdProblem::kTooLong: {
      std::lock_guard<std::mutex> lk(mu_);
      notes_.push_back("the Mcp-Session-Id the server issued is " + thousands(static_cast<long long>(given.size)) +
                       " bytes, over the " + thousands(static_cast<long long>(kMaxSessionIdBytes)) +
                       " ctxo-conform sends back: no session is used (requests go without Mcp-Session-Id)");
      break;
    }
  }
  if (sid.empty()) return;
  std::lock_guard<std::mutex> lk(mu_);
  session_id_ = sid;
}

/// The answer to `out` (a request) the server did not give: a JSON-RPC error made up for it, so
/// the client stops waiting. `judged`: an answer the checks may judge as the server's (an HTTP
/// 5xx: the call failed inside the server); otherwise it is marked as the transport's, and not
/// judged (the T-HTTP finding says what happened).
void HttpTransport::answer_for(const Outgoing& out, int code, const std::string& message, bool judged,
                               long status, const std::string& body) {
  json err = {{"code", code}, {"message", message}};
  json data = {{"httpStatus", status}};
  if (!body.empty()) data["body"] = excerpt(body, 300);
  if (!judged) data[kTransportMark] = message;
  err["data"] = std::move(data);
  json m = {{"jsonrpc", "2.0"}, {"id", out.id}, {"error", std::move(err)}};
  Frame f;
  f.body = m.dump();
  f.size = f.body.size();
  std::lock_guard<std::mutex> lk(mu_);
  frames_.push_back(std::move(f));
  cv_.notify_all();
}

// `cause`: which rule and the HTTP status (Finding::cause); never a session id or body text.
void HttpTransport::violate(const char* id, std::map<std::string, std::string> cause, std::string diagnosis,
                            const std::string& received, const std::string& request, bool warning) {
  std::lock_guard<std::mutex> lk(mu_);
  violations_.push_back(Violation{id, std::move(diagnosis), excerpt(received, 300), request, warning, std::move(cause)});
}

/// After a POST's transfer: the transport rules its answer broke, and a made-up error when a
/// request got no JSON-RPC answer at all (so the client stops waiting).
void HttpTransport::finish(Outgoing& out, Reading& r, CURLcode code, const std::string& why, int reinits) {
  if (closed_.load()) return;
  const bool stopped_by_us = code == CURLE_WRITE_ERROR && r.answered;
  if (code != CURLE_OK && !stopped_by_us && r.headers.status() == 0) {
    // No HTTP answer at all: the server is not there (refused, reset, TLS, DNS, timeout).
    std::lock_guard<std::mutex> lk(mu_);
    if (failure_.empty()) failure_ = "could not reach " + o_.url + ": " + why;
    dead_ = true;
    cv_.notify_all();
    return;
  }
  if (code == CURLE_OPERATION_TIMEDOUT && !r.answered) return;  // the client has long given up: T-HANG
  if (code != CURLE_OK && code != CURLE_PARTIAL_FILE && !stopped_by_us && !r.answered) {
    // libcurl refused the answer (too many or too long header lines, a NUL in a header, a bad
    // chunk, a reset): what the server meant cannot be known, and nothing of it is judged.
    unreadable(out, r.headers.status(),
               "libcurl could not read the answer to " + what_of(out) + " (HTTP " + std::to_string(r.headers.status()) +
                   " began): " + excerpt(why, 300));
    return;
  }
  const std::string& mt = r.headers.media_type();
  if (!r.decided) r.sse = r.headers.event_stream();  // an empty stream
  const long st = r.headers.status();
  {
    std::lock_guard<std::mutex> lk(mu_);
    answered_any_ = true;
    streamed_ = streamed_ || (r.sse && out.request());
  }
  if (st == 401 || st == 403) {
    // Refused as a client: nothing else can be learnt; the run stops with this (exit 3).
    std::string said;
    const json m = parse_bounded(sanitize_utf8(r.body.text()));
    if (m.is_object() && m.contains("error") && m["error"].is_object() && m["error"].contains("message"))
      said = m["error"]["message"].is_string() ? m["error"]["message"].get<std::string>()
                                               : m["error"]["message"].dump(-1, ' ', false, json::error_handler_t::replace);
    const std::string what =
        "HTTP " + std::to_string(st) + (st == 401 ? " Unauthorized" : " Forbidden") + " from " + o_.url +
        (out.method == "initialize" ? std::string() : " to " + what_of(out) + ", after initialize") +
        (said.empty() ? std::string() : " (\"" + excerpt(said, 120) + "\")") +
        (r.headers.www_authenticate().empty() ? std::string()
                                             : ", WWW-Authenticate: " + r.headers.www_authenticate().shown(120));
    {
      std::lock_guard<std::mutex> lk(mu_);
      const std::string line =
          what + ": give the credentials it needs with --header (e.g. --header 'Authorization: Bearer TOKEN')";
      if (failure_.empty()) failure_ = line;
      if (refused_.empty()) refused_ = line;
    }
    if (out.request()) answer_for(out, -32600, what, false, st, r.body.text());
    return;
  }
  if (st >= 300 && st < 400) {
    // A redirect is never followed (a credential must not go elsewhere): named, with where to.
    const std::string to = !r.redirect_url.empty() ? display_text(excerpt(r.redirect_url, 300), false)
                                                   : r.headers.location().shown(300);
    unreadable(out, st,
               "the server answered HTTP " + std::to_string(st) + " to " + what_of(out) +
                   (to.empty() ? std::string(" with no Location")
                               : " redirecting to " + to + "; ctxo-conform does not follow redirects: give --url " + to),
               r.body.text());
    return;
  }
  if (st == 404 && !r.sent_sid.empty() && out.request() && session_worked_.load() && reinitialise(out, reinits)) return;
  if (st >= 200 && st < 300 && !r.sent_sid.empty()) session_worked_ = true;
  if (!out.request()) {
    // A notification or a response: 202 Accepted with no body when accepted.
    if (st >= 200 && st < 300 && st != 202)
      violate("T-HTTP-STATUS",
              {{"form", "not-202-for-accepted"},
               {"message", out.method.empty() ? "response" : "notification"},
               {"status", std::to_string(st)}},
              "a POSTed " + std::string(out.method.empty() ? "JSON-RPC response" : "notification") +
                  " was answered HTTP " + std::to_string(st) +
                  ": when the server accepts a notification or response it MUST answer 202 Accepted with no body",
              r.body.text(), out.line);
    if (st == 404 && !r.sent_sid.empty()) session_refused(out, r);
    return;
  }
  if (r.answered) {
    if (st >= 200 && st < 300 && !r.sse && mt != "application/json")
      violate("T-HTTP-TYPE", {{"form", "wrong-content-type"}},
              "a request's answer was sent with Content-Type '" + r.headers.content_type().shown(200) +
                  "': it MUST be Content-Type application/json (one JSON object) or text/event-stream (an SSE stream)",
              r.body.text(), out.line);
    return;
  }
  if (st >= 200 && st < 300 && !r.sse) {
    if (st == 202 || st == 204 || r.body.size() == 0) {
      violate("T-HTTP-STATUS", {{"form", "request-without-answer"}, {"status", std::to_string(st)}},
              "a request was answered HTTP " + std::to_string(st) +
                  " with no body: the server MUST answer a request with Content-Type application/json (the "
                  "response) or text/event-stream (a stream that carries it); 202 is for notifications and responses",
              "", out.line);
      answer_for(out, -32603, "HTTP " + std::to_string(st) + " with no body: the request was not answered", false, st, "");
      return;
    }
    if (mt != "application/json")
      violate("T-HTTP-TYPE", {{"form", "wrong-content-type"}},
              "a request's answer was sent with Content-Type '" + r.headers.content_type().shown(200) +
                  "': it MUST be Content-Type application/json (one JSON object) or text/event-stream (an SSE stream)",
              r.body.text(), out.line);
    deliver(r, r.body.take());  // parsed as JSON whatever its label: T-HTTP-TYPE when it is not
    if (!r.answered)
      answer_for(out, -32603, "HTTP " + std::to_string(st) + " without a readable answer", false, st, "");
    return;
  }
  if (r.sse) {
    if (code == CURLE_OPERATION_TIMEDOUT) return;
    const std::string inside =
        r.events.pending_oversize()
            ? ", inside an event of " + std::to_string(r.events.pending_bytes()) +
                  " bytes of data, over --max-message-bytes (" + std::to_string(o_.max_message_bytes) +
                  ": only its first and last bytes were kept) and never ended by a blank line,"
            : std::string();
    violate("T-HTTP-STREAM",
            {{"form", "stream-ended-without-response"}, {"resumed", r.resumed_from.empty() ? "no" : "yes"}},
            "the SSE stream opened for a request ended after " + std::to_string(r.messages) + " message(s)" + inside +
                " without the response" +
                (r.resumed_from.empty() ? std::string(" and without an event id to resume from")
                                        : std::string(", and resuming it from event id '") + r.resumed_from +
                                               "' (GET with Last-Event-ID) did not bring it") +
                ": the stream for a request must eventually carry its JSON-RPC response",
            "", out.line);
    answer_for(out, -32603,
               inside.empty() ? std::string("the SSE stream ended without the response")
                              : "the SSE stream ended inside an event of " + std::to_string(r.events.pending_bytes()) +
                                    " bytes, over --max-message-bytes (" + std::to_string(o_.max_message_bytes) + ")",
               false, st, "");
    return;
  }
  // An HTTP error status. Its body may be the JSON-RPC error (id null is this request's).
  if (st == 404 && !r.sent_sid.empty()) {
    session_refused(out, r);
    answer_for(out, -32600, "HTTP 404: the session was not found", false, st, r.body.text());
    return;
  }
  if (!r.body.text().empty()) {
    deliver(r, r.body.take());
    if (r.answered) return;
  }
  // A 5xx is the call failing inside the server (judged as an internal error); a 4xx is the
  // server refusing the request as HTTP (not judged as a tool's answer).
  const bool server_error = st >= 500;
  answer_for(out, server_error ? -32603 : -32600,
             "HTTP " + std::to_string(st) + " with no JSON-RPC response in the body", server_error, st, r.body.text());
}

/// What `out` is, in a message: its method ("initialize", "tools/call"), or "a JSON-RPC response".
std::string HttpTransport::what_of(const Outgoing& out) {
  if (!out.method.empty()) return out.method;
  return "a JSON-RPC response";
}

/// An answer that cannot be read as the server's (libcurl refused it, a redirect): the
/// transport's failure, never judged. On initialize it is why the server cannot be reached (the
/// run ends, exit 3); a later request gets it as its made-up answer (Reply::transport_failure,
/// not judged), and the run says it once as a note (take_notes).
void HttpTransport::unreadable(const Outgoing& out, long st, const std::string& what, const std::string& body) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (out.method == "initialize") {
      if (failure_.empty()) failure_ = what;
    } else if (noted_.size() < 8 && noted_.insert(what).second) {
      notes_.push_back(what + " (the transport's failure, not judged as the server's answer)");
    }
  }
  if (out.request()) answer_for(out, -32603, what, false, st, body);
}

/// A 404 to a message carrying the session id the server issued, before we ended the session:
/// the session was not honoured.
void HttpTransport::session_refused(const Outgoing& out, const Reading&) {
  std::string sid;
  {
    std::lock_guard<std::mutex> lk(mu_);
    sid = session_id_;
    if (sid.empty() || session_refused_) return;
    session_refused_ = true;
  }
  violate("T-HTTP-SESSION", {{"form", "live-session-404"}},
          "the server answered HTTP 404 to " + (out.method.empty() ? std::string("a response") : out.method) +
              " carrying the Mcp-Session-Id it issued ('" + excerpt(sid, 80) +
              "') while the session was live: 404 means the session was terminated; a server MUST honour the "
              "session ids it issues (or terminate the session, after which the client starts a new one)",
          "", out.line);
}

}  // namespace ctxo::transport::detail
