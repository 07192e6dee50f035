// SPDX-License-Identifier: MIT
// The HTTP requests of the Streamable HTTP transport, made with libcurl: each message POSTed on a
// thread of its own (and its SSE stream resumed with GET and Last-Event-ID), the short exchanges of
// the probes and the DELETE, the headers they carry, libcurl's callbacks, and a session the server
// ended started again. What the answers mean is http_curl_answer.cpp.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>

#include "core/text.h"
#include "transport/curl_api.h"
#include "transport/http_curl_internal.h"
#include "transport/transport.h"

namespace ctxo::transport::detail {

void HttpTransport::lock_cb(CURL*, curl_lock_data data, curl_lock_access, void* user) {
  static_cast<HttpTransport*>(user)->share_mu_[data % kShareLocks].lock();
}

void HttpTransport::unlock_cb(CURL*, curl_lock_data data, void* user) {
  static_cast<HttpTransport*>(user)->share_mu_[data % kShareLocks].unlock();
}

int HttpTransport::progress_cb(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* self = static_cast<HttpTransport*>(user);
  return self->closed_.load() ? 1 : 0;
}

size_t HttpTransport::header_cb(char* buf, size_t size, size_t n, void* user) {
  static_cast<Reading*>(user)->headers.line(std::string_view(buf, size * n));
  return size * n;
}

size_t HttpTransport::write_cb(char* buf, size_t size, size_t n, void* user) {
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

// --- HTTP -------------------------------------------------------------------------------
curl_slist* HttpTransport::headers_for(const std::string& sid, bool json_body, const std::string& last_event_id,
                                       const Outgoing* out) {
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
      h = curl_.slist_append(h, ("Mcp-Name: " + (plain ? out->name : "=?base64?" + base64_encode(out->name) + "?=")).c_str());
    }
  }
  if (!version.empty()) h = curl_.slist_append(h, ("MCP-Protocol-Version: " + version).c_str());
  if (!last_event_id.empty()) h = curl_.slist_append(h, ("Last-Event-ID: " + last_event_id).c_str());
  for (const auto& [k, v] : o_.headers) h = curl_.slist_append(h, (k + ": " + v).c_str());
  h = curl_.slist_append(h, "Expect:");  // no 100-continue round trip for big bodies
  return h;
}

CURL* HttpTransport::handle(const std::string& method, curl_slist* headers, long limit_ms) {
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
HttpTransport::Exchange HttpTransport::exchange(const std::string& method, const std::string& body,
                                                const std::string& sid, bool json_body, milliseconds limit,
                                                const std::string& version) {
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
std::pair<CURLcode, std::string> HttpTransport::perform(CURL* c, Reading& r, curl_write_callback write) {
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

size_t HttpTransport::plain_write_cb(char* buf, size_t size, size_t n, void* user) {
  auto* r = static_cast<Reading*>(user);
  r->body.add(std::string_view(buf, size * n));
  return size * n;
}

void HttpTransport::post(Outgoing out) {
  run(out, 0);
  std::lock_guard<std::mutex> lk(mu_);
  --active_;
  cv_.notify_all();
}

/// One POST and the reading of its answer. `reinits`: sessions started again for it so far.
void HttpTransport::run(Outgoing& out, int reinits) {
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
bool HttpTransport::reinitialise(Outgoing& out, int reinits) {
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

}  // namespace ctxo::transport::detail
