// SPDX-License-Identifier: MIT
// JSON-RPC 2.0 / MCP client session over a Transport: request/response matching by id, the
// handshake of both protocol eras, tools/list pagination, and tolerance of interleaved traffic.
// It records what it saw on the wire that breaks the transport rules (Observations); it does not
// judge results: the checks module does.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "transport/transport.h"

namespace ctxo::mcp {

using nlohmann::json;

/// Protocol versions this client speaks, newest first. The first four use the initialize
/// handshake ("legacy" era); kModernVersion is stateless (server/discover, `_meta` per request).
inline const std::vector<std::string> kLegacyVersions = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                         "2024-11-05"};
inline const std::string kModernVersion = "2026-07-28";

/// Something seen on the wire that breaks a transport rule (T-FRAMING, T-ID).
struct Observation {
  std::string invariant;  ///< "T-FRAMING", "T-ID", or the transport's own ("T-HTTP-STATUS", ...).
  std::string diagnosis;  ///< What was wrong, in plain English.
  std::string excerpt;    ///< The offending bytes (bounded, printable).
  json related_request;   ///< The request it belongs to, when known (else null).
  bool warning = false;   ///< A SHOULD the server did not follow.
  /// The server's, whatever request was in flight (stdout pollution): one finding, not one per tool.
  bool server_level = false;
  /// What identifies the defect (Finding::cause): which framing or id rule, never the bytes seen.
  std::map<std::string, std::string> cause;
};

/// The outcome of one request.
struct Reply {
  enum class Kind { kResult, kError, kTimeout, kClosed };
  Kind kind = Kind::kTimeout;
  json request;               ///< Exactly what was sent.
  json result;                ///< kResult: the "result" member.
  json error;                 ///< kError: the "error" member.
  std::string raw;            ///< The response line as received (bounded excerpt source).
  bool stray_seen = false;    ///< A response with a non-matching id arrived while we waited.
  bool oversize = false;      ///< kTimeout because the answer was a line over the maximum message size (T-FRAMING).
  /// kResult/kError: the answer came after a timeout window had passed in silence, while the
  /// client was confirming the hang (ClientOptions::hang_confirm): the server is slow, not hung.
  bool late = false;
  bool progressed = false;    ///< A notifications/progress for this request arrived while we waited.
  /// The checks read a sample of this answer, not all of it (checks/sample.h): its arrays cut to
  /// their first items, a long text cut. A check whose verdict depends on what was cut (a count, a
  /// size, an array's length) does not accuse on it.
  bool sampled = false;
  std::chrono::milliseconds elapsed{0};  ///< From sending to the answer (or to giving up), confirmation included.
  /// kError made up by the transport because the server's answer could not be read as one (an
  /// HTTP 4xx or 202 with no JSON-RPC body, a body that is not JSON, an SSE stream that ended
  /// without the response): what happened. The transport reported it (T-HTTP-*); checks do not
  /// judge such a reply as the server's answer.
  std::string transport_failure;

  /// A result that says isError: true (the call was answered; the tool failed).
  bool is_error_result() const {
    return kind == Kind::kResult && result.is_object() && result.contains("isError") && result["isError"] == true;
  }
  /// The strings of the result's content blocks that carry one under "text", in order (pointers
  /// into `result`, not copies: an answer can be megabytes).
  std::vector<const std::string*> text_parts() const {
    std::vector<const std::string*> parts;
    if (result.is_object() && result.contains("content") && result["content"].is_array())
      for (const auto& part : result["content"])
        if (part.is_object() && part.contains("text") && part["text"].is_string())
          parts.push_back(&part["text"].get_ref<const std::string&>());
    return parts;
  }
};

/// What the handshake learned.
struct ServerInfo {
  std::string era;               ///< "legacy" or "modern".
  std::string protocol_version;  ///< Negotiated version.
  json init_result;              ///< initialize result, or server/discover result.
  json init_request;             ///< The initialize / discover request that succeeded.
  std::string name, version;     ///< serverInfo, when given.
};

struct ClientOptions {
  std::chrono::milliseconds timeout{10000};  ///< Per request, restarted by each progress notification.
  /// The handshake's instead (server/discover, initialize): an instance started again may be
  /// given longer to answer initialize than its calls get. nullopt: `timeout`.
  std::optional<std::chrono::milliseconds> handshake_timeout;
  /// A request that keeps reporting progress is still abandoned after this long in all.
  std::chrono::milliseconds max_total{120000};
  /// Hang confirmation: when a window of `timeout` passes in silence, a confirming request keeps
  /// waiting this much longer before it is a kTimeout; an answer meanwhile is returned with
  /// Reply::late. Progress for the request restarts the window, whatever its interval. A silent
  /// request is abandoned after timeout + hang_confirm, one that reports progress after
  /// max(max_total, timeout + hang_confirm). nullopt: 5 x timeout, at most kMaxHangConfirm;
  /// 0: no confirmation. See hang_confirm_bound().
  std::optional<std::chrono::milliseconds> hang_confirm;
  std::string client_name = "ctxo-conform";
  std::string client_version = "0";
};

/// The longest default hang confirmation: confirming never adds more than a minute.
inline constexpr std::chrono::milliseconds kMaxHangConfirm{60000};

/// The confirmation bound `options` give: hang_confirm when set (negative counts as 0), else
/// min(5 x timeout, kMaxHangConfirm).
std::chrono::milliseconds hang_confirm_bound(const ClientOptions& options);

/// The most bytes of ours that may wait for a server that does not read its stdin. Past it the
/// server's own requests (ping, sampling, ...) go unanswered and the session records one T-FRAMING
/// observation: a server that floods requests and never reads costs us at most this much, not
/// memory without end. Our own requests are one at a time (an unanswered one ends the session),
/// so they are still sent.
inline constexpr std::size_t kMaxUnsentBytes = 4u << 20;

/// Counters of interleaved traffic the client handled on its own.
struct TrafficStats {
  std::size_t notifications = 0;
  std::size_t server_requests = 0;  ///< Server -> client requests (ping answered, others refused).
  std::size_t pings_answered = 0;
  std::size_t unanswered = 0;  ///< Server requests left unanswered: kMaxUnsentBytes of ours were waiting.
  std::size_t progress = 0;  ///< notifications/progress for a request we were awaiting.
  /// notifications/<list>/list_changed received, per list ("tools", "resources", "prompts"): a
  /// listing asked again is judged against whether the server said it changed (P-RELIST).
  std::map<std::string, std::size_t> list_changed;
};

/// One MCP session over a borrowed transport. Not thread-safe.
class Client {
 public:
  Client(transport::Transport& transport, ClientOptions options);

  /// Sends a request and waits for its response, handling everything that arrives meanwhile.
  /// `confirm_hang`: confirm a silent timeout before giving up (ClientOptions::hang_confirm); off
  /// by default, so the handshake and tools/list give up after one window as before.
  Reply request(const std::string& method, json params, bool confirm_hang = false);
  /// Sends a notification (no response expected).
  void notify(const std::string& method, json params);

  /// Handshake. `forced`: a version to use without negotiating; "" = find out (probe
  /// server/discover, fall back to initialize, step down through kLegacyVersions); "legacy" =
  /// initialize only, stepping down through kLegacyVersions.
  /// Errors: "init-probe" when the server exited on the server/discover probe (retry with
  /// "legacy" on a fresh process); "init" with a message saying what the server did (no answer, an error, exited).
  /// `attempts` receives every handshake reply (for P-INIT checks of failed attempts).
  Result<ServerInfo> handshake(const std::string& forced, std::vector<Reply>* attempts = nullptr);

  /// What a list walk (tools/list, resources/list, resources/templates/list, prompts/list) may
  /// take: a listing is the server's to size, so the walk is bounded in pages, kept items, cursor
  /// length, time and the run's memory. Items past `max_tools` are counted (the walk goes on to
  /// see whether pagination ends) but not kept.
  struct ListBounds {
    std::size_t max_pages = 200;
    std::size_t max_tools = 10000;
    std::size_t max_cursor_bytes = 64 * 1024;
    std::optional<std::chrono::steady_clock::time_point> deadline;  ///< --time-budget's end.
    std::function<bool()> out_of_memory;  ///< True once the run is past its memory budget.
  };

  /// A list walk, following nextCursor (any string, "" included: an empty string is a live cursor,
  /// not the end) within `bounds`. Stops on a nextCursor equal to the cursor just sent (sets
  /// `cursor_stuck`) or to an earlier one (`cursor_loop`), on a page whose items all repeat earlier
  /// pages' (`repeated_page`: the walk is not advancing), at a bound (sets which), or on a page
  /// without a result. Each page's reply is kept for checks, with the items past `max_tools`
  /// dropped from it. The items are not copied out of the pages (a listing can be megabytes, and
  /// its tree several times that): take_tools() moves them out once the pages have been recorded
  /// and checked.
  struct ToolsListing {
    std::string method = "tools/list";  ///< The list asked: tools/list, resources/list, ...
    std::string key = "tools";          ///< The result's array: tools, resources, resourceTemplates, prompts.
    std::vector<Reply> pages;    ///< One reply per page requested.
    std::size_t tool_count = 0;  ///< How many items (tools, for tools/list) the pages kept, in all.
    std::size_t dropped = 0;     ///< Items listed past ListBounds::max_tools: not kept.
    bool paginated = false;      ///< Some page handed out a string nextCursor.
    bool cursor_stuck = false;   ///< A nextCursor equal to the cursor the page was asked with.
    bool cursor_loop = false;    ///< A nextCursor repeated an earlier one.
    bool repeated_page = false;  ///< Stopped after a page (not the first or last) that listed only items earlier pages had.
    bool page_limit = false;     ///< Stopped after max_pages.
    std::size_t long_cursor = 0; ///< Stopped at a nextCursor of this many bytes (> max_cursor_bytes).
    bool out_of_time = false;    ///< Stopped at the deadline with another page to fetch.
    bool out_of_memory = false;  ///< Stopped at the memory budget with another page to fetch.
    bool failed = false;         ///< A page got no result (error, timeout, closed).
    /// True when the walk reached the list's end (every page answered, the last without nextCursor)
    /// and kept every item.
    bool complete() const {
      return !failed && !cursor_stuck && !cursor_loop && !repeated_page && !page_limit && long_cursor == 0 &&
             !out_of_time && !out_of_memory && dropped == 0;
    }
    /// The pages' items, concatenated as received, moved out of the pages (whose arrays are left
    /// holding moved-from values: record and check the pages first).
    std::vector<json> take_tools();
  };
  using Listing = ToolsListing;
  /// What identifies an item of `key`'s list: a tool's or a prompt's name, a resource's uri, a
  /// template's uriTemplate ("" when the item has none).
  static std::string item_identity(const std::string& key, const json& item);
  /// The list `method` (its result's array is `key`), walked within `bounds`.
  Listing list(const std::string& method, const std::string& key, const ListBounds& bounds);
  ToolsListing list_tools(const ListBounds& bounds);
  ToolsListing list_tools();  ///< Within the default ListBounds.

  /// tools/call with the given arguments (null = omit `arguments`). Confirms a hang before
  /// reporting kTimeout unless `confirm_hang` is false (e.g. while shrinking a confirmed hang,
  /// where each reproduction would otherwise cost the confirmation again).
  Reply call_tool(const std::string& name, const json& arguments, bool confirm_hang = true);

  /// One tools/call of a batch: the tool and its arguments (null = omit `arguments`).
  struct BatchCall {
    std::string name;
    json arguments;
  };
  /// Several tools/call requests in flight at once, as hosts make them (P-CONCURRENT): all are
  /// sent, then every answer is awaited and matched by id, in whatever order it comes. One reply
  /// per call, in the calls' order, each as call_tool gives it (kResult, kError, kTimeout with
  /// stray_seen or oversize, kClosed). The batch shares one window: `timeout`, restarted by
  /// progress for any of its requests, plus the hang confirmation when `confirm_hang`. A response
  /// with an id outside the batch, a second one for a request of it, lines that are not JSON-RPC:
  /// the Observations call_tool makes, related to the batch's first request.
  std::vector<Reply> call_tools(const std::vector<BatchCall>& calls, bool confirm_hang = true);

  /// One request of the list `method` with `cursor`, a cursor the server never handed out: a
  /// server that paginates SHOULD answer -32602 (pagination §Error Handling).
  Reply list_with_cursor(const std::string& method, const std::string& cursor);

  /// The capabilities the handshake's result declared (initialize, or server/discover's), null
  /// before it or when none were given.
  const json& capabilities() const { return capabilities_; }
  /// A number no other Client of this process has: a server started again gets a new Client, so a
  /// listing made on another instance is told apart from this one's.
  std::uint64_t serial() const { return serial_; }

  /// Sets the id the next request gets and returns the one it would have got. Ids must stay
  /// unique within a session: a caller that moves them keeps ranges that never meet (the engine
  /// gives each tool its own, so a tool's requests are the same whichever session makes them).
  std::int64_t set_next_id(std::int64_t id) { return std::exchange(next_id_, id); }

  /// Reads whatever the server still sends within `wait` (late duplicates, stray lines).
  void drain(std::chrono::milliseconds wait);

  /// Transport observations collected since the last call.
  std::vector<Observation> take_observations();
  const TrafficStats& traffic() const { return traffic_; }
  /// True once the server's stdout closed or it exited.
  bool closed() const { return closed_; }
  const std::string& era() const { return era_; }
  const std::string& protocol_version() const { return protocol_version_; }
  /// The JSON-RPC lines a replay must send before `request` (handshake), compact.
  std::vector<std::string> replay_prelude() const { return prelude_; }

 private:
  json next_id();
  bool http() const { return std::string_view(transport_.kind()) == "http"; }
  json with_meta(json params) const;
  bool send_json(const json& msg);
  /// Waits for the response to `id`; returns it (or timeout/closed). `confirm`: how much longer
  /// than a silent window to wait (0 = give up when the window passes).
  Reply await(const json& id, json request, std::chrono::milliseconds confirm);
  /// Handles one parsed message that is not an awaited response.
  void handle_other(const json& msg, const std::string& raw);
  /// A tools/call request with the next id and a progress token (kept in progress_tokens_).
  json tools_call_message(const std::string& name, const json& arguments);
  /// Fills `reply` from the response `m` (moved from) whose raw line is `raw`.
  void take_response(json& m, Reply& reply);
  /// Settles `reply` as `kind` (the bookkeeping of ids: completed, abandoned, in flight).
  void settle(Reply& reply, Reply::Kind kind, const std::string& key);
  /// Parses a frame; collects framing problems; returns a message when one is complete.
  std::optional<json> accept_frame(transport::Frame& frame, std::string& raw_out);  ///< Takes frame.body.
  void flush_garbage(const char* why);
  void observe(const std::string& inv, std::map<std::string, std::string> cause, std::string diagnosis,
               std::string excerpt_text);

  transport::Transport& transport_;
  ClientOptions options_;
  std::int64_t next_id_ = 1;
  std::map<std::string, json> inflight_;   ///< id (dumped) -> request
  /// id (dumped) -> request, for duplicate detection: the latest kCompletedWindow answered
  /// requests (a run of 100,000 calls held every one). A second answer to an older one is still
  /// a T-ID finding, as an id that matches no request.
  std::map<std::string, json> completed_;
  std::deque<std::string> completed_order_;  ///< completed_'s keys, oldest first
  static constexpr std::size_t kCompletedWindow = 4096;
  std::set<std::string> abandoned_;        ///< ids we stopped waiting for (late answers are normal)
  bool stray_seen_ = false;
  std::chrono::steady_clock::time_point stray_at_{};  ///< When the latest stray response arrived.
  std::size_t strays_in_a_row_ = 0;  ///< Requests in a row that ended with only a stray response.
  std::vector<json> progress_tokens_;  ///< Tokens of the requests being awaited (tools/call only).
  bool progress_seen_ = false;
  std::vector<std::string> garbage_;       ///< Consecutive unparseable lines, joined on success.
  std::size_t garbage_bytes_ = 0;
  json current_request_;                   ///< Request being awaited, for attribution.
  std::vector<Observation> observations_;
  TrafficStats traffic_;
  bool closed_ = false;
  bool backlog_seen_ = false;              ///< The kMaxUnsentBytes observation was made (once a session).
  std::string era_ = "legacy";
  std::string protocol_version_;
  std::vector<std::string> prelude_;
  json capabilities_;
  std::uint64_t serial_ = next_serial();
  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> n{0};
    return ++n;
  }
};

}  // namespace ctxo::mcp
