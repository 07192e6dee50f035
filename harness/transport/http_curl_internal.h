// SPDX-License-Identifier: MIT
// Internal to the Streamable HTTP transport (http_curl*.cpp), not part of transport's API: what one
// POSTed message is, and the HttpTransport, whose members the files split by concern: the Transport
// it is and the session's end (http_curl.cpp), the HTTP requests made with libcurl
// (http_curl_exchange.cpp), and the answers read, delivered and judged (http_curl_answer.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "transport/curl_api.h"
#include "transport/http_headers.h"
#include "transport/sse.h"
#include "transport/transport.h"

namespace ctxo::transport::detail {

using nlohmann::json;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;


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
  HttpTransport(const CurlApi& curl, HttpOptions o, std::unique_ptr<Transport> child);
  ~HttpTransport() override;

  const char* kind() const override { return "http"; }

  // --- the Transport (http_curl.cpp) ------------------------------------------------------
  Result<void> send(std::string_view line) override;
  ReadResult receive(milliseconds timeout) override;
  std::optional<ExitStatus> exit_status() override;
  std::string stderr_tail() const override;
  ExitStatus close(milliseconds grace) override;
  std::vector<Violation> take_violations() override;
  void handshake_done() override;
  std::vector<std::string> take_notes() override;
  std::vector<std::string> exercised() const override;
  std::string failure() const override;
  std::string refused() const override;

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
  // --- libcurl's callbacks (http_curl_exchange.cpp) ---------------------------------------
  static void lock_cb(CURL*, curl_lock_data data, curl_lock_access, void* user);
  static void unlock_cb(CURL*, curl_lock_data data, void* user);
  static int progress_cb(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
  static size_t header_cb(char* buf, size_t size, size_t n, void* user);
  static size_t write_cb(char* buf, size_t size, size_t n, void* user);
  static size_t plain_write_cb(char* buf, size_t size, size_t n, void* user);

  static constexpr std::size_t kShareLocks = 8;

  // --- SSE and delivery (http_curl_answer.cpp) --------------------------------------------
  void feed_sse(Reading& r, std::string_view b);
  void deliver(Reading& r, Frame f);
  void take_session(const Reading& r);
  void answer_for(const Outgoing& out, int code, const std::string& message, bool judged, long status,
                  const std::string& body);
  void violate(const char* id, std::map<std::string, std::string> cause, std::string diagnosis,
               const std::string& received, const std::string& request, bool warning = false);

  // --- HTTP (http_curl_exchange.cpp) ------------------------------------------------------
  curl_slist* headers_for(const std::string& sid, bool json_body, const std::string& last_event_id,
                          const Outgoing* out = nullptr);
  CURL* handle(const std::string& method, curl_slist* headers, long limit_ms);
  Exchange exchange(const std::string& method, const std::string& body, const std::string& sid, bool json_body,
                    milliseconds limit, const std::string& version = "");
  std::pair<CURLcode, std::string> perform(CURL* c, Reading& r, curl_write_callback write);
  void post(Outgoing out);
  void run(Outgoing& out, int reinits);
  bool reinitialise(Outgoing& out, int reinits);

  // --- the answer judged (http_curl_answer.cpp) -------------------------------------------
  void finish(Outgoing& out, Reading& r, CURLcode code, const std::string& why, int reinits);
  static std::string what_of(const Outgoing& out);
  void unreadable(const Outgoing& out, long st, const std::string& what, const std::string& body = "");
  void session_refused(const Outgoing& out, const Reading&);

  // --- the session's end and the POSTs' threads (http_curl.cpp) ---------------------------
  void end_session(const std::string& sid, milliseconds grace);
  void drain_child();
  void join_workers();
  void reap_workers();

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

}  // namespace ctxo::transport::detail
