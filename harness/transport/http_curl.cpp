// SPDX-License-Identifier: MIT
// The Streamable HTTP transport on libcurl (MCP basic/transports §Streamable HTTP): every message
// the client sends is POSTed on a thread of its own; the answer (a JSON body, or an SSE stream of
// messages) is parsed into frames for the MCP client, which handles them exactly as lines read
// from a stdio server. Mcp-Session-Id and MCP-Protocol-Version are kept and sent; the session is
// DELETEd at the end. What breaks the transport's rules (status codes, content types, sessions,
// streams) is collected as Violations (T-HTTP-*).
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

#include "core/display.h"
#include "core/json_bounded.h"
#include "core/text.h"
#include "transport/curl_api.h"
#include "transport/http_headers.h"
#include "transport/sse.h"
#include "transport/transport.h"

namespace ctxo::transport {

namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

std::string base64(std::string_view in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8 |
                       static_cast<unsigned char>(in[i + 2]);
    for (int sh : {18, 12, 6, 0}) out.push_back(k[(v >> sh) & 63]);
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out.push_back(k[(v >> 18) & 63]);
    out.push_back(k[(v >> 12) & 63]);
    out.push_back(i + 1 < in.size() ? k[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

/// The host and port of an http(s) URL ("" when it has none), for polling a server being started.
std::pair<std::string, std::string> host_port(const std::string& url) {
  const bool tls = url.rfind("https://", 0) == 0;
  std::string rest = url.substr(url.find("://") + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (auto at = rest.rfind('@'); at != std::string::npos) rest = rest.substr(at + 1);
  std::string host = rest, port = tls ? "443" : "80";
  if (!rest.empty() && rest[0] == '[') {  // [v6]:port
    auto close = rest.find(']');
    host = rest.substr(1, close == std::string::npos ? std::string::npos : close - 1);
    if (close != std::string::npos && close + 1 < rest.size() && rest[close + 1] == ':') port = rest.substr(close + 2);
  } else if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  return {host, port};
}

bool accepts_connections(const std::string& host, const std::string& port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0) return false;
  bool ok = false;
  for (addrinfo* a = res; a && !ok; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    ok = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0;
    ::close(fd);
  }
  ::freeaddrinfo(res);
  return ok;
}

/// What one POSTed message is, read from its JSON text.
struct Outgoing {
  std::string line;
  json id;            ///< null for a notification or response
  std::string method; ///< "" for a response
  std::string version;  ///< The protocol version its _meta names (2026-07-28: stateless, headers per request)
  std::string name;     ///< params.name or params.uri (the Mcp-Name header of 2026-07-28)
  bool request() const { return !id.is_null() && !method.empty(); }
};

class HttpTransport final : public Transport {
 public:
  HttpTransport(const CurlApi& curl, HttpOptions o, std::unique_ptr<Transport> child)
      : curl_(curl), o_(std::move(o)), child_(std::move(child)) {
    share_ = curl_.share_init();
    curl_.share_setopt(share_, CURLSHOPT_LOCKFUNC, &HttpTransport::lock_cb);
    curl_.share_setopt(share_, CURLSHOPT_UNLOCKFUNC, &HttpTransport::unlock_cb);
    curl_.share_setopt(share_, CURLSHOPT_USERDATA, this);
    curl_.share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_.share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  }

  ~HttpTransport() override {
    close(milliseconds(0));
    if (share_) curl_.share_cleanup(share_);
  }

  const char* kind() const override { return "http"; }

  Result<void> send(std::string_view line) override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (closed_ || dead_) return make_error("closed", failure_.empty() ? "the server cannot be reached" : failure_);
    }
    Outgoing out;
    out.line = std::string(line);
    try {
      json m = json::parse(out.line);
      if (m.is_object()) {
        if (m.contains("id")) out.id = m["id"];
        if (m.contains("method") && m["method"].is_string()) out.method = m["method"].get<std::string>();
        // The version a modern (stateless) request names in its _meta goes in its header too.
        if (m.contains("params") && m["params"].is_object() && m["params"].contains("_meta") &&
            m["params"]["_meta"].is_object()) {
          const json& meta = m["params"]["_meta"];
          auto v = meta.find("io.modelcontextprotocol/protocolVersion");
          if (v != meta.end() && v->is_string()) out.version = v->get<std::string>();
        }
        if (m.contains("params") && m["params"].is_object())
          for (const char* k : {"name", "uri"})
            if (m["params"].contains(k) && m["params"][k].is_string()) {
              out.name = m["params"][k].get<std::string>();
              break;
            }
      }
    } catch (const json::exception&) {
      // Sent as it is; the server's answer says what it made of it.
    }
    if (out.method == "initialize") {  // sent without a version header: it negotiates one
      std::lock_guard<std::mutex> lk(mu_);
      initialize_id_ = out.id;
      init_line_ = out.line;
      protocol_version_.clear();
    } else if (out.method == "notifications/initialized") {
      std::lock_guard<std::mutex> lk(mu_);
      initialized_line_ = out.line;
    }
    reap_workers();
    std::lock_guard<std::mutex> lk(mu_);
    ++active_;
    auto done = std::make_shared<std::atomic<bool>>(false);
    workers_.push_back(Worker{std::thread([this, done, out = std::move(out)]() mutable {
                                post(std::move(out));
                                done->store(true);
                              }),
                              done});
    return {};
  }

  ReadResult receive(milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    while (true) {
      drain_child();
      {
        std::unique_lock<std::mutex> lk(mu_);
        if (!frames_.empty()) {
          ReadResult r;
          r.status = ReadStatus::kFrame;
          r.frame = std::move(frames_.front());
          frames_.pop_front();
          return r;
        }
        if (closed_ || (dead_ && active_ == 0)) return ReadResult{ReadStatus::kEof, {}};
      }
      if (child_ && child_->exit_status()) {
        std::lock_guard<std::mutex> lk(mu_);
        if (failure_.empty()) failure_ = "the server process " + child_->exit_status()->describe();
        dead_ = true;
        if (active_ == 0 && frames_.empty()) return ReadResult{ReadStatus::kEof, {}};
      }
      const auto now = Clock::now();
      if (now >= deadline) return ReadResult{ReadStatus::kTimeout, {}};
      std::unique_lock<std::mutex> lk(mu_);
      // Short slices while a child is to be drained (its pipes must not fill up).
      const auto slice = child_ ? std::min<Clock::duration>(deadline - now, milliseconds(50)) : deadline - now;
      cv_.wait_for(lk, slice, [&] { return !frames_.empty() || closed_ || (dead_ && active_ == 0); });
    }
  }

  std::optional<ExitStatus> exit_status() override {
    if (child_) return child_->exit_status();
    return std::nullopt;
  }

  std::string stderr_tail() const override { return child_ ? child_->stderr_tail() : std::string(); }

  ExitStatus close(milliseconds grace) override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (finished_) return final_status_;
    }
    // The session ends with a DELETE (and, when probing, a check that it is gone).
    std::string sid;
    bool alive;
    {
      std::lock_guard<std::mutex> lk(mu_);
      sid = session_id_;
      alive = !dead_ && !closed_;
      closed_ = true;  // every transfer stops at its next callback
    }
    cv_.notify_all();
    join_workers();
    if (alive && !sid.empty()) end_session(sid, grace);
    ExitStatus st;
    if (child_) st = child_->close(grace);
    std::lock_guard<std::mutex> lk(mu_);
    finished_ = true;
    final_status_ = st;
    return st;
  }

  std::vector<Violation> take_violations() override {
    std::lock_guard<std::mutex> lk(mu_);
    std::vector<Violation> out;
    out.swap(violations_);
    return out;
  }

  void handshake_done() override {
    std::string sid;
    {
      std::lock_guard<std::mutex> lk(mu_);
      sid = session_id_;
      if (!o_.probe || probed_) return;
      probed_ = true;
    }
    // A body that is not JSON-RPC cannot be accepted: the server MUST answer with an HTTP error
    // status (§Sending Messages to the Server, 2).
    const std::string garbage = R"({"jsonrpc":"2.0","id":"ctxo-probe-malformed","method":)";
    Exchange bad = exchange("POST", garbage, sid, true, milliseconds(5000));
    if (bad.ok() && bad.status >= 200 && bad.status < 300)
      violate("T-HTTP-STATUS", {{"form", "malformed-body-accepted"}, {"status", std::to_string(bad.status)}},
              "a POST whose body is not a JSON-RPC message (cut-off JSON) was answered HTTP " + std::to_string(bad.status) +
                  ": a server that cannot accept the input MUST answer with an HTTP error status such as 400 Bad Request",
              bad.body, garbage);
    // A version that does not exist in MCP-Protocol-Version MUST be refused with 400 (since
    // 2025-06-18, the revision that added the header; §Protocol Version Header).
    std::string negotiated;
    {
      std::lock_guard<std::mutex> lk(mu_);
      negotiated = protocol_version_;
    }
    if (negotiated >= "2025-06-18" && negotiated < "2026-07-28") {
      const std::string ping = R"({"jsonrpc":"2.0","id":"ctxo-probe-version","method":"ping"})";
      Exchange odd = exchange("POST", ping, sid, true, milliseconds(5000), "1999-01-01");
      if (odd.ok() && odd.status >= 200 && odd.status < 300)
        violate("T-HTTP-STATUS", {{"form", "unknown-protocol-version-accepted"}, {"status", std::to_string(odd.status)}},
                "a request with MCP-Protocol-Version: 1999-01-01 (no such version) was answered HTTP " +
                    std::to_string(odd.status) +
                    ": a server MUST answer an invalid or unsupported MCP-Protocol-Version with 400 Bad Request",
                odd.body, ping);
    }
    if (sid.empty()) return;
    // A server that issued a session id SHOULD refuse requests without it (400 Bad Request).
    const std::string ping = R"({"jsonrpc":"2.0","id":"ctxo-probe-no-session","method":"ping"})";
    Exchange bare = exchange("POST", ping, "", true, milliseconds(5000));
    if (bare.ok() && bare.status >= 200 && bare.status < 300)
      violate("T-HTTP-SESSION", {{"form", "request-without-session-accepted"}, {"status", std::to_string(bare.status)}},
              "the server issued Mcp-Session-Id '" + excerpt(sid, 80) + "' but answered a request without it HTTP " +
                  std::to_string(bare.status) +
                  ": a server that requires a session SHOULD answer requests without Mcp-Session-Id (other than "
                  "initialize) with 400 Bad Request; one that does not need sessions should not issue an id",
              bare.body, ping, /*warning=*/true);
  }

  std::vector<std::string> take_notes() override {
    std::lock_guard<std::mutex> lk(mu_);
    std::vector<std::string> out;
    if (sessions_restarted_ > 0)
      out.push_back("the server ended " + std::to_string(sessions_restarted_) +
                    " session(s) in use (HTTP 404 to their Mcp-Session-Id); each was started again with initialize, as "
                    "a client must, and the request sent again: whatever the server kept per session was lost each time");
    sessions_restarted_ = 0;
    for (auto& n : notes_) out.push_back(std::move(n));
    notes_.clear();
    return out;
  }

  std::vector<std::string> exercised() const override {
    std::lock_guard<std::mutex> lk(mu_);
    std::vector<std::string> ids;
    if (answered_any_) ids.insert(ids.end(), {"T-HTTP-STATUS", "T-HTTP-TYPE"});
    if (!session_id_.empty() || session_refused_) ids.push_back("T-HTTP-SESSION");
    if (streamed_) ids.push_back("T-HTTP-STREAM");
    return ids;
  }

  std::string failure() const override {
    std::lock_guard<std::mutex> lk(mu_);
    return failure_;
  }

  std::string refused() const override {
    std::lock_guard<std::mutex> lk(mu_);
    return refused_;
  }

 private:
  /// One HTTP exchange's outcome.
  struct Exchange {
    CURLcode code = CURLE_OK;
    std::string curl_error;
    long status = 0;
    std::string session_id, body;  // the id only when it can be sent back (ResponseHeaders::session_id)
    bool ok() const { return code == CURLE_OK && status > 0; }
  };

  /// What one POST's answer is being read into.
  struct Reading {
    Reading(HttpTransport* s, Outgoing* o, std::size_t max) : self(s), out(o), body(max), events(max) {}
    HttpTransport* self;
    Outgoing* out;
    ResponseHeaders headers;   // status, media type, session id, WWW-Authenticate, Location (bounded)
    std::string redirect_url;  // where a 3xx pointed (CURLINFO_REDIRECT_URL: Location made absolute)
    bool sse = false, decided = false;
    BoundedMessage body;
    SseReader events;
    bool answered = false;  // the response to out->id arrived
    std::string sent_sid;   // the Mcp-Session-Id the POST carried
    std::string resumed_from;  // the last event id the stream (and its resumptions) gave
    std::size_t messages = 0;
  };

  static void lock_cb(CURL*, curl_lock_data data, curl_lock_access, void* user) {
    static_cast<HttpTransport*>(user)->share_mu_[data % kShareLocks].lock();
  }
  static void unlock_cb(CURL*, curl_lock_data data, void* user) {
    static_cast<HttpTransport*>(user)->share_mu_[data % kShareLocks].unlock();
  }

  static int progress_cb(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* self = static_cast<HttpTransport*>(user);
    return self->closed_.load() ? 1 : 0;
  }

  static size_t header_cb(char* buf, size_t size, size_t n, void* user) {
    static_cast<Reading*>(user)->headers.line(std::string_view(buf, size * n));
    return size * n;
  }

  static size_t write_cb(char* buf, size_t size, size_t n, void* user) {
    auto* r = static_cast<Reading*>(user);
    if (r->self->closed_.load()) return 0;
    std::string_view b(buf, size * n);
    if (!r->decided) {
      r->decided = true;
      r->sse = r->headers.event_stream();
    }
    if (!r->sse) {
      r->body.add(b);
      return size * n;
    }
    r->self->feed_sse(*r, b);
    // The answer is in: the server SHOULD close the stream now; stop reading it either way.
    if (r->answered) return 0;
    return size * n;
  }

  static constexpr std::size_t kShareLocks = 8;

  // --- SSE --------------------------------------------------------------------------------
  void feed_sse(Reading& r, std::string_view b) {
    r.events.feed(b, [&](SseEvent ev) {
      if (ev.type.empty() || ev.type == "message") deliver(r, std::move(ev.data));
      return !r.answered;  // the answer is in: the rest of the stream is not read
    });
  }

  // --- delivery ---------------------------------------------------------------------------
  /// One message of an answer: checked for what the transport needs (the response's id, the
  /// initialize result's version), and queued for the client.
  void deliver(Reading& r, Frame f) {
    ++r.messages;
    if (!f.oversize) {
      // Read as the client reads it (bounded nesting; bad UTF-8 and lone surrogate escapes are the
      // client's T-FRAMING findings, not a reason to drop the message).
      std::string text = f.valid_utf8 ? std::string() : sanitize_utf8(f.body);
      json m = parse_bounded(f.valid_utf8 ? std::string_view(f.body) : std::string_view(text));
      if (m.is_discarded() && f.body.find("\\u") != std::string::npos)
        m = parse_bounded(replace_lone_surrogate_escapes(f.valid_utf8 ? f.body : text));
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
  void take_session(const Reading& r) {
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
  void answer_for(const Outgoing& out, int code, const std::string& message, bool judged, long status,
                  const std::string& body) {
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
  void violate(const char* id, std::map<std::string, std::string> cause, std::string diagnosis,
               const std::string& received, const std::string& request, bool warning = false) {
    std::lock_guard<std::mutex> lk(mu_);
    violations_.push_back(Violation{id, std::move(diagnosis), excerpt(received, 300), request, warning, std::move(cause)});
  }

  // --- HTTP -------------------------------------------------------------------------------
  curl_slist* headers_for(const std::string& sid, bool json_body, const std::string& last_event_id,
                          const Outgoing* out = nullptr) {
    curl_slist* h = nullptr;
    if (json_body) h = curl_.slist_append(h, "Content-Type: application/json");
    h = curl_.slist_append(h, json_body ? "Accept: application/json, text/event-stream" : "Accept: text/event-stream");
    if (!sid.empty()) h = curl_.slist_append(h, ("Mcp-Session-Id: " + sid).c_str());
    std::string version;
    {
      std::lock_guard<std::mutex> lk(mu_);
      version = protocol_version_;
    }
    if (out && !out->version.empty()) {
      // 2026-07-28 (stateless): every request names its version, method and target in headers
      // that match its body.
      version = out->version;
      if (!out->method.empty()) h = curl_.slist_append(h, ("Mcp-Method: " + out->method).c_str());
      if (!out->name.empty()) {
        const bool plain = std::all_of(out->name.begin(), out->name.end(), [](char ch) { return ch >= 0x20 && ch <= 0x7e; }) &&
                           out->name.front() != ' ' && out->name.back() != ' ';
        h = curl_.slist_append(h, ("Mcp-Name: " + (plain ? out->name : "=?base64?" + base64(out->name) + "?=")).c_str());
      }
    }
    if (!version.empty()) h = curl_.slist_append(h, ("MCP-Protocol-Version: " + version).c_str());
    if (!last_event_id.empty()) h = curl_.slist_append(h, ("Last-Event-ID: " + last_event_id).c_str());
    for (const auto& [k, v] : o_.headers) h = curl_.slist_append(h, (k + ": " + v).c_str());
    h = curl_.slist_append(h, "Expect:");  // no 100-continue round trip for big bodies
    return h;
  }

  CURL* handle(const std::string& method, curl_slist* headers, long limit_ms) {
    CURL* c = curl_.easy_init();
    curl_.easy_setopt(c, CURLOPT_URL, o_.url.c_str());
    curl_.easy_setopt(c, CURLOPT_SHARE, share_);
    curl_.easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o_.connect_timeout.count()));
    curl_.easy_setopt(c, CURLOPT_TIMEOUT_MS, limit_ms);
    curl_.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &HttpTransport::progress_cb);
    curl_.easy_setopt(c, CURLOPT_XFERINFODATA, this);
    curl_.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    if (method == "DELETE") curl_.easy_setopt(c, CURLOPT_CUSTOMREQUEST, "DELETE");
    else if (method == "GET") curl_.easy_setopt(c, CURLOPT_HTTPGET, 1L);
    return c;
  }

  /// A short exchange made for a probe or the DELETE, on the calling thread, body kept whole
  /// (bounded).
  /// `version`: the MCP-Protocol-Version to send instead of the negotiated one ("" = that one).
  Exchange exchange(const std::string& method, const std::string& body, const std::string& sid, bool json_body,
                    milliseconds limit, const std::string& version = "") {
    Exchange x;
    Outgoing none;
    none.version = version;
    Reading r(this, &none, 1u << 20);
    r.decided = true;  // read whole, SSE or not
    curl_slist* h = headers_for(sid, json_body, "", version.empty() ? nullptr : &none);
    CURL* c = handle(method, h, static_cast<long>(limit.count()));
    if (method == "POST") {
      curl_.easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
      curl_.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    }
    // The probes run after close() began (the DELETE): they must not be cut by the closed flag.
    curl_.easy_setopt(c, CURLOPT_NOPROGRESS, 1L);
    std::tie(x.code, x.curl_error) = perform(c, r, &HttpTransport::plain_write_cb);
    x.status = r.headers.status();
    x.session_id = r.headers.session_id();
    x.body = r.body.text();
    curl_.slist_free_all(h);
    return x;
  }

  /// Runs the transfer `c` into `r` (headers, then the body through `write`) and cleans it up:
  /// its outcome and, when it failed, why.
  std::pair<CURLcode, std::string> perform(CURL* c, Reading& r, curl_write_callback write) {
    char err[CURL_ERROR_SIZE] = {0};
    curl_.easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    curl_.easy_setopt(c, CURLOPT_HEADERFUNCTION, &HttpTransport::header_cb);
    curl_.easy_setopt(c, CURLOPT_HEADERDATA, &r);
    curl_.easy_setopt(c, CURLOPT_WRITEFUNCTION, write);
    curl_.easy_setopt(c, CURLOPT_WRITEDATA, &r);
    const CURLcode code = curl_.easy_perform(c);
    std::string why = err[0] ? err : curl_.easy_strerror(code);
    if (r.headers.status() >= 300 && r.headers.status() < 400) {
      char* to = nullptr;  // never followed (CURLOPT_FOLLOWLOCATION is 0): only named
      if (curl_.easy_getinfo(c, CURLINFO_REDIRECT_URL, &to) == CURLE_OK && to) r.redirect_url = to;
    }
    curl_.easy_cleanup(c);
    return {code, std::move(why)};
  }

  static size_t plain_write_cb(char* buf, size_t size, size_t n, void* user) {
    auto* r = static_cast<Reading*>(user);
    r->body.add(std::string_view(buf, size * n));
    return size * n;
  }

  void post(Outgoing out) {
    run(out, 0);
    std::lock_guard<std::mutex> lk(mu_);
    --active_;
    cv_.notify_all();
  }

  /// One POST and the reading of its answer. `reinits`: sessions started again for it so far.
  void run(Outgoing& out, int reinits) {
    std::string sid;
    {
      std::lock_guard<std::mutex> lk(mu_);
      sid = session_id_;
    }
    Reading r(this, &out, o_.max_message_bytes);
    r.sent_sid = sid;
    curl_slist* h = headers_for(sid, true, "", &out);
    CURL* c = handle("POST", h, static_cast<long>(o_.transfer_limit.count()));
    curl_.easy_setopt(c, CURLOPT_POSTFIELDS, out.line.data());
    curl_.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(out.line.size()));
    auto [code, why] = perform(c, r, &HttpTransport::write_cb);
    curl_.slist_free_all(h);
    // A stream that ended in a resumable way is resumed (GET with Last-Event-ID), as a client
    // SHOULD (§Resumability and Redelivery); each resumption is a stream of its own.
    std::string last_id = r.events.last_event_id();
    long retry = r.events.retry_ms();
    for (int resumes = 0; r.sse && !r.answered && out.request() && !last_id.empty() && !closed_.load() &&
                          (code == CURLE_OK || code == CURLE_PARTIAL_FILE) && resumes < 5;
         ++resumes) {
      if (retry > 0) std::this_thread::sleep_for(milliseconds(std::min<long>(retry, 1000)));
      Reading again(this, &out, o_.max_message_bytes);
      again.sent_sid = sid;
      curl_slist* gh = headers_for(sid, false, last_id);
      CURL* g = handle("GET", gh, static_cast<long>(o_.transfer_limit.count()));
      code = perform(g, again, &HttpTransport::write_cb).first;
      curl_.slist_free_all(gh);
      if (again.headers.status() < 200 || again.headers.status() >= 300 || !again.sse) break;
      r.answered = again.answered;
      r.messages += again.messages;
      const std::string next_id = again.events.last_event_id();
      if ((next_id.empty() || next_id == last_id) && !again.answered && again.messages == 0) break;  // no progress
      if (!next_id.empty()) last_id = next_id;
      if (again.events.retry_ms() >= 0) retry = again.events.retry_ms();
    }
    r.resumed_from = last_id;
    finish(out, r, code, why, reinits);
  }

  /// The server ended a session that worked (a 404, which it MAY do at any time): a new one is
  /// started as a client MUST (initialize again, without the old id), and `out` is sent in it.
  /// False when that is not possible (no initialize seen, or too many times).
  bool reinitialise(Outgoing& out, int reinits) {
    std::string init, initialized;
    {
      std::lock_guard<std::mutex> lk(mu_);
      init = init_line_;
      initialized = initialized_line_;
    }
    if (init.empty() || reinits >= 3) return false;
    Exchange x = exchange("POST", init, "", true, std::max(o_.connect_timeout, milliseconds(5000)));
    if (!x.ok() || x.status < 200 || x.status >= 300 || x.session_id.empty()) return false;
    {
      std::lock_guard<std::mutex> lk(mu_);
      session_id_ = x.session_id;
      ++sessions_restarted_;
    }
    if (!initialized.empty()) (void)exchange("POST", initialized, x.session_id, true, milliseconds(5000));
    run(out, reinits + 1);
    return true;
  }

  /// After a POST's transfer: the transport rules its answer broke, and a made-up error when a
  /// request got no JSON-RPC answer at all (so the client stops waiting).
  void finish(Outgoing& out, Reading& r, CURLcode code, const std::string& why, int reinits) {
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
  static std::string what_of(const Outgoing& out) {
    if (!out.method.empty()) return out.method;
    return "a JSON-RPC response";
  }

  /// An answer that cannot be read as the server's (libcurl refused it, a redirect): the
  /// transport's failure, never judged. On initialize it is why the server cannot be reached (the
  /// run ends, exit 3); a later request gets it as its made-up answer (Reply::transport_failure,
  /// not judged), and the run says it once as a note (take_notes).
  void unreadable(const Outgoing& out, long st, const std::string& what, const std::string& body = "") {
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
  void session_refused(const Outgoing& out, const Reading&) {
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

  void end_session(const std::string& sid, milliseconds grace) {
    const milliseconds limit = std::clamp(grace, milliseconds(500), milliseconds(5000));
    Exchange del = exchange("DELETE", "", sid, false, limit);
    if (!o_.probe || !del.ok() || del.status < 200 || del.status >= 300) return;
    // The session is terminated: a request carrying its id MUST now get 404 Not Found.
    const std::string ping = R"({"jsonrpc":"2.0","id":"ctxo-probe-deleted","method":"ping"})";
    Exchange after = exchange("POST", ping, sid, true, limit);
    if (after.ok() && after.status != 404)
      violate("T-HTTP-SESSION", {{"form", "ended-session-honoured"}, {"status", std::to_string(after.status)}},
              "after the session was ended with DELETE (answered HTTP " + std::to_string(del.status) +
                  "), a request carrying its Mcp-Session-Id was answered HTTP " + std::to_string(after.status) +
                  ": once a session is terminated the server MUST answer requests with that session id with 404 Not "
                  "Found (or answer the DELETE with 405 when clients may not end sessions)",
              after.body, ping);
  }

  void drain_child() {
    if (!child_) return;
    for (int i = 0; i < 64; ++i) {
      auto rr = child_->receive(milliseconds(0));
      if (rr.status != ReadStatus::kFrame) break;  // its stdout means nothing over HTTP
    }
  }

  void join_workers() {
    std::list<Worker> ws;
    {
      std::lock_guard<std::mutex> lk(mu_);
      ws.swap(workers_);
    }
    for (auto& w : ws)
      if (w.thread.joinable()) w.thread.join();
  }

  /// Joins the POSTs that are over (a run makes thousands: their threads are not kept).
  void reap_workers() {
    std::list<Worker> over;
    {
      std::lock_guard<std::mutex> lk(mu_);
      for (auto it = workers_.begin(); it != workers_.end();) {
        auto next = std::next(it);
        if (it->done->load()) over.splice(over.end(), workers_, it);
        it = next;
      }
    }
    for (auto& w : over) w.thread.join();
  }

  const CurlApi& curl_;
  HttpOptions o_;
  std::unique_ptr<Transport> child_;
  CURLSH* share_ = nullptr;
  std::mutex share_mu_[kShareLocks];
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Frame> frames_;
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<Worker> workers_;
  std::vector<Violation> violations_;
  std::size_t active_ = 0;
  std::atomic<bool> closed_{false};
  bool dead_ = false, finished_ = false, probed_ = false, session_refused_ = false;
  std::atomic<bool> session_worked_{false};
  bool answered_any_ = false;  ///< Some POST got an HTTP answer (its status and type were judged).
  bool streamed_ = false;      ///< Some request was answered with an SSE stream.  ///< A message carrying the session id was accepted.
  std::size_t sessions_restarted_ = 0;       ///< Sessions the server ended that were started again.
  std::string init_line_, initialized_line_; ///< The handshake as sent (to start a new session).
  ExitStatus final_status_;
  std::string failure_, session_id_, protocol_version_;
  std::string refused_;              ///< HTTP 401/403 to some message: the run cannot go on (refused()).
  std::vector<std::string> notes_;   ///< For take_notes(): answers that could not be read (unreadable()).
  std::set<std::string> noted_;      ///< Each said once.
  json initialize_id_;
};

}  // namespace

std::string redact_headers(std::string value, const std::vector<std::pair<std::string, std::string>>& headers) {
  for (const auto& [k, v] : headers) {
    if (v.empty()) continue;
    for (std::size_t at = value.find(v); at != std::string::npos; at = value.find(v, at + 10))
      value.replace(at, v.size(), "<redacted>");
  }
  return value;
}

Result<void> http_available() {
  const auto& curl = curl_api();
  if (!curl.ok()) return curl.error();
  return {};
}

Result<std::unique_ptr<Transport>> connect_http(const HttpOptions& opts) {
  if (!is_http_url(opts.url))
    return make_error("usage", "--url must be an http:// or https:// URL, not '" + excerpt(opts.url, 200) + "'");
  const auto& curl = curl_api();
  if (!curl.ok()) return curl.error();
  std::unique_ptr<Transport> child;
  if (opts.server) {
    SpawnOptions so = *opts.server;
    so.terminate_on_close = true;
    auto t = spawn_stdio(so);
    if (!t.ok()) return t.error();
    child = std::move(t.value());
    const auto [host, port] = host_port(opts.url);
    const auto deadline = Clock::now() + opts.start_timeout;
    while (!accepts_connections(host, port)) {
      for (int i = 0; i < 64; ++i)
        if (child->receive(milliseconds(0)).status != ReadStatus::kFrame) break;
      if (auto st = child->exit_status()) {
        std::string tail = child->stderr_tail();
        child->close(milliseconds(0));
        return make_error("spawn", "the server command " + st->describe() + " before " + opts.url +
                                       " accepted a connection" +
                                       (tail.empty() ? std::string() : "; its stderr ended with: " + excerpt(tail.substr(tail.size() > 300 ? tail.size() - 300 : 0), 300)));
      }
      if (Clock::now() >= deadline) {
        child->close(milliseconds(500));
        return make_error("spawn", "the server command was started, but nothing accepted a connection on " + host + ":" +
                                       port + " within " + std::to_string(opts.start_timeout.count() / 1000) +
                                       " s (is --url the address it listens on?)");
      }
      std::this_thread::sleep_for(milliseconds(50));
    }
  }
  return std::unique_ptr<Transport>(new HttpTransport(**curl, opts, std::move(child)));
}

}  // namespace ctxo::transport
