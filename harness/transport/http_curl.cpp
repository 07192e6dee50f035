// SPDX-License-Identifier: MIT
// The Streamable HTTP transport on libcurl (MCP basic/transports §Streamable HTTP): every message
// the client sends is POSTed on a thread of its own; the answer (a JSON body, or an SSE stream of
// messages) is parsed into frames for the MCP client, which handles them exactly as lines read
// from a stdio server. Mcp-Session-Id and MCP-Protocol-Version are kept and sent; the session is
// DELETEd at the end. What breaks the transport's rules (status codes, content types, sessions,
// streams) is collected as Violations (T-HTTP-*). Here: the Transport the client drives, the probes
// after the handshake, the session's end and connect_http; the HTTP requests are
// http_curl_exchange.cpp, what their answers mean http_curl_answer.cpp.
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "transport/curl_api.h"
#include "transport/http_curl_internal.h"
#include "transport/transport.h"

namespace ctxo::transport {

namespace {

using detail::Clock;
using detail::HttpTransport;
using std::chrono::milliseconds;

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

}  // namespace

namespace detail {

HttpTransport::HttpTransport(const CurlApi& curl, HttpOptions o, std::unique_ptr<Transport> child)
    : curl_(curl), o_(std::move(o)), child_(std::move(child)) {
  share_ = curl_.share_init();
  curl_.share_setopt(share_, CURLSHOPT_LOCKFUNC, &HttpTransport::lock_cb);
  curl_.share_setopt(share_, CURLSHOPT_UNLOCKFUNC, &HttpTransport::unlock_cb);
  curl_.share_setopt(share_, CURLSHOPT_USERDATA, this);
  curl_.share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
  curl_.share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
}

HttpTransport::~HttpTransport() {
  close(milliseconds(0));
  if (share_) curl_.share_cleanup(share_);
}

Result<void> HttpTransport::send(std::string_view line) {
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

ReadResult HttpTransport::receive(milliseconds timeout) {
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

std::optional<ExitStatus> HttpTransport::exit_status() {
  if (child_) return child_->exit_status();
  return std::nullopt;
}

std::string HttpTransport::stderr_tail() const { return child_ ? child_->stderr_tail() : std::string(); }

ExitStatus HttpTransport::close(milliseconds grace) {
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

std::vector<Violation> HttpTransport::take_violations() {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<Violation> out;
  out.swap(violations_);
  return out;
}

void HttpTransport::handshake_done() {
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

std::vector<std::string> HttpTransport::take_notes() {
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

std::vector<std::string> HttpTransport::exercised() const {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<std::string> ids;
  if (answered_any_) ids.insert(ids.end(), {"T-HTTP-STATUS", "T-HTTP-TYPE"});
  if (!session_id_.empty() || session_refused_) ids.push_back("T-HTTP-SESSION");
  if (streamed_) ids.push_back("T-HTTP-STREAM");
  return ids;
}

std::string HttpTransport::failure() const {
  std::lock_guard<std::mutex> lk(mu_);
  return failure_;
}

std::string HttpTransport::refused() const {
  std::lock_guard<std::mutex> lk(mu_);
  return refused_;
}

void HttpTransport::end_session(const std::string& sid, milliseconds grace) {
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

void HttpTransport::drain_child() {
  if (!child_) return;
  for (int i = 0; i < 64; ++i) {
    auto rr = child_->receive(milliseconds(0));
    if (rr.status != ReadStatus::kFrame) break;  // its stdout means nothing over HTTP
  }
}

void HttpTransport::join_workers() {
  std::list<Worker> ws;
  {
    std::lock_guard<std::mutex> lk(mu_);
    ws.swap(workers_);
  }
  for (auto& w : ws)
    if (w.thread.joinable()) w.thread.join();
}

/// Joins the POSTs that are over (a run makes thousands: their threads are not kept).
void HttpTransport::reap_workers() {
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

}  // namespace detail

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
