// SPDX-License-Identifier: MIT
#include "mcp/client.h"

#include <algorithm>
#include <cstdio>
#include <regex>

#include "core/interrupt.h"
#include "core/json_bounded.h"
#include "core/text.h"

namespace ctxo::mcp {

namespace {

using Clock = std::chrono::steady_clock;

// The offset of the first byte that starts no well-formed UTF-8 sequence (s.size() if none).
std::size_t first_invalid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_char_at(s, i).length;
    if (len == 0) return i;
    i += len;
  }
  return s.size();
}

bool is_rpc_object(const json& j) { return j.is_object() && (j.contains("jsonrpc") || j.contains("id") || j.contains("method")); }

// The "id" of a JSON-RPC response cut short as an oversize line, from the bytes kept of it: a
// top-level "id" member in the prefix (the prefix holds no top-level "method"), or the object's
// last member(s) in the tail ({"result":...,"jsonrpc":"2.0","id":7}, the TypeScript SDK's
// order). Numbers and strings without escapes only; nullopt when unsure.
std::optional<std::string> oversize_response_id(const transport::Frame& frame) {
  const std::string& head = frame.body;
  std::optional<std::string> id;
  int depth = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    const char c = head[i];
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == '"') {
      std::size_t end = i + 1;
      while (end < head.size() && head[end] != '"') end += head[end] == '\\' ? 2 : 1;
      if (end >= head.size()) break;
      const std::string_view key(head.data() + i + 1, end - i - 1);
      std::size_t j = end + 1;
      while (j < head.size() && (head[j] == ' ' || head[j] == '\t')) ++j;
      const bool is_key = j < head.size() && head[j] == ':';
      if (depth == 1 && is_key && key == "method") return std::nullopt;  // a request or notification
      if (depth == 1 && is_key && key == "id" && !id) {
        ++j;
        while (j < head.size() && (head[j] == ' ' || head[j] == '\t')) ++j;
        std::size_t k = j;
        if (k < head.size() && head[k] == '"') {
          ++k;
          while (k < head.size() && head[k] != '"' && head[k] != '\\') ++k;
          if (k < head.size() && head[k] == '"') id = head.substr(j, k + 1 - j);
        } else {
          if (k < head.size() && head[k] == '-') ++k;
          while (k < head.size() && head[k] >= '0' && head[k] <= '9') ++k;
          if (k > j && k < head.size()) id = head.substr(j, k - j);
        }
      }
      i = end;
    }
  }
  if (id) return json::parse(*id, nullptr, false).dump();
  static const std::regex kTailId(
      R"re("id"\s*:\s*(-?[0-9]+|"[^"\\]*")\s*(,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$)re");
  std::smatch m;
  if (std::regex_search(frame.tail, m, kTailId)) return json::parse(m[1].str(), nullptr, false).dump();
  return std::nullopt;
}

constexpr std::size_t kMaxGarbageLines = 2000;
constexpr std::size_t kMaxGarbageBytes = 4u << 20;
/// How long the right id may still come after a stray response while no other request is in flight.
constexpr std::chrono::milliseconds kStrayGrace{500};

}  // namespace

std::chrono::milliseconds hang_confirm_bound(const ClientOptions& options) {
  if (options.hang_confirm) return std::max(*options.hang_confirm, std::chrono::milliseconds(0));
  return std::min(options.timeout * 5, kMaxHangConfirm);
}

Client::Client(transport::Transport& transport, ClientOptions options)
    : transport_(transport), options_(std::move(options)) {}

json Client::next_id() { return json(next_id_++); }

json Client::with_meta(json params) const {
  if (era_ != "modern") return params;
  if (!params.is_object()) params = json::object();
  auto& meta = params["_meta"];
  if (!meta.is_object()) meta = json::object();
  meta["io.modelcontextprotocol/protocolVersion"] = kModernVersion;
  meta["io.modelcontextprotocol/clientCapabilities"] = json::object();
  meta["io.modelcontextprotocol/clientInfo"] = {{"name", options_.client_name}, {"version", options_.client_version}};
  return params;
}

bool Client::send_json(const json& msg) {
  if (closed_) return false;
  auto r = transport_.send(msg.dump(-1, ' ', false, json::error_handler_t::replace));
  if (!r.ok()) {
    closed_ = true;
    return false;
  }
  return true;
}

void Client::observe(const std::string& inv, std::map<std::string, std::string> cause, std::string diagnosis,
                     std::string excerpt_text) {
  observations_.push_back(
      Observation{inv, std::move(diagnosis), std::move(excerpt_text), current_request_, false, false, std::move(cause)});
}

void Client::flush_garbage(const char* why) {
  if (garbage_.empty()) return;
  std::string joined;
  for (const auto& g : garbage_) {
    if (!joined.empty()) joined += "\n";
    joined += g;
    if (joined.size() > 600) break;
  }
  std::string diag = std::to_string(garbage_.size()) + " line(s) on stdout " + why +
                     ": MCP's stdio transport allows only JSON-RPC messages on stdout, one per line "
                     "(logs belong on stderr)";
  observe("T-FRAMING", {{"form", "not-json-rpc-on-stdout"}}, std::move(diag), excerpt(joined, 400));
  observations_.back().server_level = true;  // a log line on stdout is the server's, not a tool's
  garbage_.clear();
  garbage_bytes_ = 0;
}

std::optional<json> Client::accept_frame(transport::Frame& frame, std::string& raw_out) {
  if (frame.oversize) {
    flush_garbage("were not JSON-RPC messages");
    observe("T-FRAMING", {{"form", "over-max-message-size"}},
            std::string(http() ? "a message of " : "a stdout line of ") + std::to_string(frame.size) +
                " bytes exceeds the maximum message size; it was skipped (raise --max-message-bytes if it is legitimate)",
            excerpt(frame.body, 200));
    return std::nullopt;
  }
  // Moved, not copied, here and on: an answer may be tens of megabytes (--max-message-bytes).
  std::string body = std::move(frame.body);
  if (!frame.valid_utf8) {
    std::size_t at = first_invalid_utf8(body);
    char buf[64];
    std::snprintf(buf, sizeof buf, "0x%02X at byte %zu", at < body.size() ? static_cast<unsigned char>(body[at]) : 0u, at);
    observe("T-FRAMING", {{"form", "invalid-utf8"}}, std::string(http() ? "a message is not valid UTF-8 (invalid byte " : "a stdout line is not valid UTF-8 (invalid byte ") + buf +
                             "); JSON-RPC messages must be UTF-8",
            excerpt(body.substr(at > 60 ? at - 60 : 0, 160), 200));
    body = sanitize_utf8(body);
  }
  raw_out = std::move(body);
  const std::string& text = raw_out;
  bool too_deep = false;
  json msg = parse_bounded(text, &too_deep);
  if (too_deep)
    observe("T-FRAMING", {{"form", "nesting-too-deep"}},
            "a message nests JSON deeper than " + std::to_string(kMaxJsonNesting) +
                " levels; the values below that depth were dropped (no client can walk such a message safely)",
            excerpt(text, 200));
  if (msg.is_discarded() && text.find("\\u") != std::string::npos) {
    // A lone surrogate escape ("\udc00") is JSON's grammar but no Unicode: strict decoders
    // (serde_json, Go's encoding/json replaces it) reject or alter the message, JavaScript keeps it.
    // Read it with U+FFFD in its place, as the answer it is, and say so once.
    std::size_t at = std::string::npos;
    std::string repaired = replace_lone_surrogate_escapes(text, &at);
    if (at != std::string::npos) {
      json again = parse_bounded(repaired);
      if (!again.is_discarded()) {
        observe("T-FRAMING", {{"form", "lone-surrogate-escape"}},
                "a message holds a lone UTF-16 surrogate escape (" + text.substr(at, 6) + " at byte " +
                    std::to_string(at) +
                    "): it encodes no Unicode character, so clients that decode strictly reject the whole message. "
                    "Send a surrogate pair, or U+FFFD",
                excerpt(text.substr(at > 60 ? at - 60 : 0, 160), 200));
        msg = std::move(again);
      }
    }
  }
  if (http() && (msg.is_discarded() || !(is_rpc_object(msg) || msg.is_array()))) {
    // Over HTTP a message is a whole body or event (the transport dropped what is not JSON): there
    // are no lines to join, and one that is not JSON-RPC breaks the HTTP transport's rule.
    observe("T-HTTP-TYPE", {{"form", "not-json-rpc"}}, "an HTTP answer (body or SSE event data) is JSON but not a JSON-RPC message",
            excerpt(text, 300));
    return std::nullopt;
  }
  // stdio only from here: lines that are not messages, and a message split over lines, repaired.
  if (msg.is_discarded() || !(is_rpc_object(msg) || msg.is_array())) {
    if (garbage_.size() >= kMaxGarbageLines || garbage_bytes_ + text.size() > kMaxGarbageBytes)
      flush_garbage("were not JSON-RPC messages");
    garbage_.push_back(text);
    garbage_bytes_ += text.size();
    if (garbage_.size() > 1) {
      // A message pretty-printed over several lines: recover it, but report the split.
      std::string joined;
      for (const auto& g : garbage_) joined += g + "\n";
      json whole = parse_bounded(joined);
      if (!whole.is_discarded() && is_rpc_object(whole)) {
        observe("T-FRAMING", {{"form", "message-split-over-lines"}},
                "one JSON-RPC message was split over " + std::to_string(garbage_.size()) +
                    " lines: messages must not contain embedded newlines (serialise compactly)",
                excerpt(joined, 300));
        garbage_.clear();
        garbage_bytes_ = 0;
        raw_out = joined;
        return whole;
      }
    }
    return std::nullopt;
  }
  flush_garbage("were not JSON-RPC messages");
  if (msg.is_array()) {
    if (protocol_version_ != "2025-03-26")
      observe("T-FRAMING", {{"form", "batch"}}, "the server sent a JSON-RPC batch (array); batches exist only in protocol 2025-03-26",
              excerpt(text, 300));
    return msg;
  }
  if (!msg.contains("jsonrpc") || msg["jsonrpc"] != "2.0")
    observe("T-FRAMING", {{"form", "no-jsonrpc-2.0"}}, "message lacks \"jsonrpc\":\"2.0\"", excerpt(text, 300));
  return msg;
}

void Client::handle_other(const json& msg, const std::string& raw) {
  if (msg.contains("method")) {
    if (msg.contains("id") && !msg["id"].is_null()) {
      ++traffic_.server_requests;
      json reply = {{"jsonrpc", "2.0"}, {"id", msg["id"]}};
      const std::size_t unsent = transport_.unsent_bytes();
      if (unsent >= kMaxUnsentBytes) {
        // The server does not read what we write: an answer now would only wait in our memory.
        ++traffic_.unanswered;
        if (!backlog_seen_) {
          backlog_seen_ = true;
          observe("T-FRAMING", {{"form", "stdin-not-read"}},
                  "the server does not read its stdin while it keeps sending requests: " +
                      std::to_string(unsent >> 20) +
                      " MiB of our messages (answers to its requests) were still waiting to be written, so its "
                      "further requests were left unanswered. A stdio server must keep reading its input (JSON-RPC "
                      "is bidirectional; a server that floods without reading deadlocks its client)",
                  excerpt(raw, 300));
        }
        return;
      }
      if (msg["method"] == "ping") {
        reply["result"] = json::object();
        ++traffic_.pings_answered;
      } else {
        reply["error"] = {{"code", -32601}, {"message", "Method not found"}};
      }
      send_json(reply);
    } else {
      ++traffic_.notifications;
      if (msg["method"] == "notifications/progress" && !progress_tokens_.empty() && msg.contains("params") &&
          msg["params"].is_object() &&
          std::find(progress_tokens_.begin(), progress_tokens_.end(), msg["params"].value("progressToken", json())) !=
              progress_tokens_.end()) {
        ++traffic_.progress;
        progress_seen_ = true;
      }
    }
    return;
  }
  if (msg.contains("id") && (msg.contains("result") || msg.contains("error"))) {
    std::string key = msg["id"].dump();
    if (abandoned_.count(key)) return;  // a late answer to a request we gave up on
    if (completed_.count(key)) {
      json saved = current_request_;
      current_request_ = completed_[key];
      observe("T-ID", {{"form", "second-response"}}, "a second response arrived for request id " + key + ": each request gets exactly one response",
              excerpt(raw, 300));
      current_request_ = saved;
      return;
    }
    observe("T-ID", {{"form", "unknown-id"}}, "a response with id " + key + " matches no request in flight (ids must echo the request's id)",
            excerpt(raw, 300));
    // Ids are the server's JSON-RPC layer's, never a tool handler's: one cause for every tool.
    observations_.back().server_level = true;
    stray_seen_ = true;
    stray_at_ = Clock::now();
    return;
  }
  observe("T-FRAMING", {{"form", "not-a-message"}}, "a message that is neither a request, a notification nor a response", excerpt(raw, 300));
}

void Client::take_response(json& m, Reply& reply) {
  if (m.contains("error")) {
    reply.error = std::move(m["error"]);
    reply.kind = Reply::Kind::kError;
    if (reply.error.is_object() && reply.error.contains("data") && reply.error["data"].is_object() &&
        reply.error["data"].contains(transport::kTransportMark) && reply.error["data"][transport::kTransportMark].is_string())
      reply.transport_failure = reply.error["data"][transport::kTransportMark].get<std::string>();
  } else {
    reply.result = std::move(m["result"]);
    reply.kind = Reply::Kind::kResult;
  }
}

void Client::settle(Reply& reply, Reply::Kind kind, const std::string& key) {
  reply.kind = kind;
  inflight_.erase(key);
  if (kind == Reply::Kind::kResult || kind == Reply::Kind::kError) {
    if (completed_.insert_or_assign(key, reply.request).second) completed_order_.push_back(key);
    if (completed_order_.size() > kCompletedWindow) {
      completed_.erase(completed_order_.front());
      completed_order_.pop_front();
    }
  } else {
    abandoned_.insert(key);
  }
}

Reply Client::await(const json& id, json request, std::chrono::milliseconds confirm) {
  Reply reply;
  reply.request = std::move(request);
  const std::string key = id.dump();
  const auto start = Clock::now();
  // A silent request gets timeout + confirm; progress restarts that, up to max_total in all.
  const auto hard_deadline = start + std::max(options_.max_total, options_.timeout + confirm);
  auto live = start;  // the last sign of life: sending the request, or its latest progress
  auto deadline = std::min(live + options_.timeout + confirm, hard_deadline);
  bool past_window = false;  // a window of `timeout` passed in silence: only confirmation kept us waiting
  stray_seen_ = false;
  progress_seen_ = false;
  auto finish = [&](Reply::Kind kind) {
    reply.stray_seen = stray_seen_;
    reply.progressed = reply.progressed || progress_seen_;
    reply.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    if (kind == Reply::Kind::kResult || kind == Reply::Kind::kError) {
      strays_in_a_row_ = 0;
      reply.late = confirm.count() > 0 && (past_window || Clock::now() - live > options_.timeout);
    }
    settle(reply, kind, key);
    return std::move(reply);  // every caller returns at once: a copy would double a megabytes answer
  };
  while (true) {
    core::stop_if_interrupted();  // a signal stops the run here, mid-wait, not after the timeout
    if (closed_) return finish(Reply::Kind::kClosed);
    auto now = Clock::now();
    if (progress_seen_) {  // the spec lets a client restart its timeout on progress, up to a maximum
      if (now - live > options_.timeout) past_window = true;
      live = now;
      deadline = std::min(live + options_.timeout + confirm, hard_deadline);
      progress_seen_ = false;
      reply.progressed = true;
    }
    // A response with a foreign id arrived meanwhile: most likely this request's answer under the
    // wrong id (T-ID), so there is no hang to confirm. With no other request in flight it can be
    // nothing else: the right id gets a short grace, not the whole timeout (a server that answers
    // every call under a wrong id would otherwise cost a timeout per call).
    // Once the last requests all ended that way, the pattern is known: next to no grace.
    const auto grace = std::min<std::chrono::milliseconds>(
        options_.timeout, strays_in_a_row_ >= 2 ? std::chrono::milliseconds(20) : kStrayGrace);
    const auto stray_until = inflight_.size() <= 1 ? stray_at_ + grace : live + options_.timeout;
    const auto until = stray_seen_ ? std::min(deadline, stray_until) : deadline;
    if (now >= until) {
      flush_garbage("were not JSON-RPC messages");
      strays_in_a_row_ = stray_seen_ ? strays_in_a_row_ + 1 : 0;
      return finish(Reply::Kind::kTimeout);
    }
    auto rr = transport_.receive(std::chrono::duration_cast<std::chrono::milliseconds>(until - now));
    if (rr.status == transport::ReadStatus::kTimeout) continue;
    if (rr.status == transport::ReadStatus::kEof) {
      flush_garbage("were not JSON-RPC messages");
      closed_ = true;
      return finish(Reply::Kind::kClosed);
    }
    std::string raw;
    auto msg = accept_frame(rr.frame, raw);
    if (!msg) {
      // The answer was too long to read (reported as T-FRAMING): no use waiting for it.
      if (rr.frame.oversize && oversize_response_id(rr.frame) == key) {
        reply.oversize = true;
        return finish(Reply::Kind::kTimeout);
      }
      continue;
    }
    std::vector<json> items;
    if (msg->is_array()) items.assign(msg->begin(), msg->end());
    else items.push_back(std::move(*msg));
    bool done = false;
    for (auto& m : items) {
      if (!done && m.is_object() && !m.contains("method") && m.contains("id") && m["id"].dump() == key &&
          (m.contains("result") || m.contains("error"))) {
        if (items.size() == 1) reply.raw = std::move(raw);  // else the other items' findings quote it
        else reply.raw = raw;
        take_response(m, reply);
        done = true;
        continue;
      }
      handle_other(m, raw);
    }
    if (done) return finish(reply.kind);
  }
}

Reply Client::request(const std::string& method, json params, bool confirm_hang) {
  json id = next_id();
  json msg = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) msg["params"] = with_meta(std::move(params));
  else if (era_ == "modern") msg["params"] = with_meta(json::object());
  progress_tokens_.clear();
  if (method == "tools/call") {
    // Opt in to progress so a slow tool that reports progress is not mistaken for a hang.
    progress_tokens_.push_back("ctxo-" + id.dump());
    msg["params"]["_meta"]["progressToken"] = progress_tokens_.back();
  }
  current_request_ = msg;
  inflight_[id.dump()] = msg;
  if (!send_json(msg)) {
    Reply r;
    r.kind = Reply::Kind::kClosed;
    r.request = msg;
    inflight_.erase(id.dump());
    return r;
  }
  Reply r = await(id, msg, confirm_hang ? hang_confirm_bound(options_) : std::chrono::milliseconds(0));
  current_request_ = nullptr;
  progress_tokens_.clear();
  return r;
}

void Client::notify(const std::string& method, json params) {
  json msg = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) msg["params"] = std::move(params);
  send_json(msg);
}

void Client::drain(std::chrono::milliseconds wait) {
  const auto deadline = Clock::now() + wait;
  while (!closed_) {
    auto now = Clock::now();
    if (now >= deadline) break;
    auto rr = transport_.receive(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now));
    if (rr.status == transport::ReadStatus::kTimeout) break;
    if (rr.status == transport::ReadStatus::kEof) {
      closed_ = true;
      break;
    }
    std::string raw;
    auto msg = accept_frame(rr.frame, raw);
    if (!msg) continue;
    if (msg->is_array()) {
      for (auto& m : *msg) handle_other(m, raw);
    } else {
      handle_other(*msg, raw);
    }
  }
  flush_garbage("were not JSON-RPC messages");
}

std::vector<Observation> Client::take_observations() {
  std::vector<Observation> out;
  out.swap(observations_);
  for (auto& v : transport_.take_violations()) {
    Observation ob{std::move(v.invariant), std::move(v.diagnosis), std::move(v.excerpt), json(), v.warning, false,
                   std::move(v.cause)};
    if (!v.request.empty()) ob.related_request = json::parse(v.request, nullptr, false);
    if (ob.related_request.is_discarded()) ob.related_request = nullptr;
    out.push_back(std::move(ob));
  }
  return out;
}

Result<ServerInfo> Client::handshake(const std::string& forced, std::vector<Reply>* attempts) {
  auto keep = [&](const Reply& r) {
    if (attempts) attempts->push_back(r);
  };
  auto describe = [&](const Reply& r, const char* what) -> std::string {
    switch (r.kind) {
      case Reply::Kind::kTimeout:
        if (r.oversize) return std::string("the answer to ") + what + " was over the maximum message size";
        return std::string("no answer to ") + what + " within " + std::to_string(options_.timeout.count()) + " ms";
      case Reply::Kind::kClosed: {
        auto st = transport_.exit_status();
        return std::string("the server closed its stdout during ") + what +
               (st ? " (" + st->describe() + ")" : std::string());
      }
      case Reply::Kind::kError:
        return std::string(what) + " was answered with an error: " + excerpt(r.error.dump(), 300);
      default:
        return std::string(what) + " failed";
    }
  };

  // forced: "" = find out; "legacy" = negotiate among kLegacyVersions only (no probe);
  // a version = that version only.
  const bool specific = !forced.empty() && forced != "legacy";
  const bool want_modern = forced.empty() || forced == kModernVersion;
  if (want_modern) {
    era_ = "modern";
    auto saved = options_.timeout;
    if (forced.empty()) options_.timeout = std::min(options_.timeout, std::chrono::milliseconds(5000));
    Reply r = request("server/discover", json::object());
    options_.timeout = saved;
    keep(r);
    if (r.kind == Reply::Kind::kResult && r.result.is_object() && r.result.contains("supportedVersions") &&
        r.result["supportedVersions"].is_array() &&
        std::find(r.result["supportedVersions"].begin(), r.result["supportedVersions"].end(), kModernVersion) !=
            r.result["supportedVersions"].end()) {
      ServerInfo info;
      info.era = "modern";
      info.protocol_version = protocol_version_ = kModernVersion;
      info.init_result = r.result;
      info.init_request = r.request;
      const json* si = nullptr;
      if (r.result.contains("serverInfo")) si = &r.result["serverInfo"];
      else if (r.result.contains("_meta") && r.result["_meta"].is_object() &&
               r.result["_meta"].contains("io.modelcontextprotocol/serverInfo"))
        si = &r.result["_meta"]["io.modelcontextprotocol/serverInfo"];
      if (si && si->is_object()) {
        info.name = si->value("name", "");
        info.version = si->value("version", "");
      }
      prelude_.clear();
      return info;
    }
    era_ = "legacy";
    if (specific) return make_error("init", describe(r, "server/discover") + " (forced --protocol " + forced + ")");
    if (r.kind == Reply::Kind::kClosed) return make_error("init-probe", describe(r, "the server/discover probe"));
  }

  std::vector<std::string> versions = kLegacyVersions;
  if (specific) versions = {forced};
  std::string last_problem;
  std::set<std::string> tried;
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const std::string& v = versions[i];
    if (!tried.insert(v).second) continue;
    json params = {{"protocolVersion", v},
                   {"capabilities", json::object()},
                   {"clientInfo", {{"name", options_.client_name}, {"version", options_.client_version}}}};
    Reply r = request("initialize", params);
    keep(r);
    if (r.kind == Reply::Kind::kResult) {
      std::string answered;
      if (r.result.is_object() && r.result.contains("protocolVersion") && r.result["protocolVersion"].is_string())
        answered = r.result["protocolVersion"].get<std::string>();
      if (specific && answered != forced)
        return make_error("init", "the server answered protocol version '" + answered + "' to the forced --protocol " +
                                      forced);
      ServerInfo info;
      info.era = "legacy";
      bool known = std::find(kLegacyVersions.begin(), kLegacyVersions.end(), answered) != kLegacyVersions.end();
      info.protocol_version = protocol_version_ = known ? answered : v;
      info.init_result = r.result;
      info.init_request = r.request;
      if (r.result.is_object() && r.result.contains("serverInfo") && r.result["serverInfo"].is_object()) {
        info.name = r.result["serverInfo"].value("name", "");
        info.version = r.result["serverInfo"].value("version", "");
      }
      json initialized = {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};
      send_json(initialized);
      prelude_ = {r.request.dump(), initialized.dump()};
      return info;
    }
    last_problem = describe(r, "initialize");
    if (r.kind != Reply::Kind::kError) break;  // timeout or exit: stepping down will not help
    // An error may name the versions the server supports (spec example: data.supported).
    if (r.error.is_object() && r.error.contains("data") && r.error["data"].is_object() &&
        r.error["data"].contains("supported") && r.error["data"]["supported"].is_array() && !specific) {
      for (const auto& s : r.error["data"]["supported"]) {
        if (s.is_string() && std::find(kLegacyVersions.begin(), kLegacyVersions.end(), s.get<std::string>()) !=
                                 kLegacyVersions.end()) {
          versions.insert(versions.begin() + static_cast<long>(i) + 1, s.get<std::string>());
          break;
        }
      }
    }
  }
  return make_error("init", last_problem);
}

Client::ToolsListing Client::list_tools(std::size_t max_pages) {
  ToolsListing out;
  std::set<std::string> seen;
  json cursor;
  for (std::size_t page = 0; page < max_pages; ++page) {
    json params = json::object();
    if (!cursor.is_null()) params["cursor"] = cursor;
    out.pages.push_back(request("tools/list", params));  // moved in: a page can be megabytes
    const Reply& r = out.pages.back();
    if (r.kind != Reply::Kind::kResult || !r.result.is_object()) {
      out.failed = true;
      return out;
    }
    if (r.result.contains("tools") && r.result["tools"].is_array()) out.tool_count += r.result["tools"].size();
    if (!r.result.contains("nextCursor") || !r.result["nextCursor"].is_string()) return out;
    std::string next = r.result["nextCursor"].get<std::string>();
    if (!seen.insert(next).second) {
      out.cursor_loop = true;
      return out;
    }
    cursor = next;
  }
  out.page_limit = true;
  return out;
}

std::vector<json> Client::ToolsListing::take_tools() {
  std::vector<json> tools;
  tools.reserve(tool_count);
  for (auto& page : pages) {
    if (page.kind != Reply::Kind::kResult || !page.result.is_object()) continue;
    auto it = page.result.find("tools");
    if (it == page.result.end() || !it->is_array()) continue;
    for (auto& t : *it) tools.push_back(std::move(t));
  }
  return tools;
}

Reply Client::call_tool(const std::string& name, const json& arguments, bool confirm_hang) {
  json params = {{"name", name}};
  if (!arguments.is_null()) params["arguments"] = arguments;
  return request("tools/call", params, confirm_hang);
}

json Client::tools_call_message(const std::string& name, const json& arguments) {
  json params = {{"name", name}};
  if (!arguments.is_null()) params["arguments"] = arguments;
  json id = next_id();
  json msg = {{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", with_meta(std::move(params))}};
  progress_tokens_.push_back("ctxo-" + id.dump());
  msg["params"]["_meta"]["progressToken"] = progress_tokens_.back();
  return msg;
}

std::vector<Reply> Client::call_tools(const std::vector<BatchCall>& calls, bool confirm_hang) {
  std::vector<Reply> replies(calls.size());
  std::map<std::string, std::size_t> pending;  // id (dumped) -> index
  progress_tokens_.clear();
  const auto start = Clock::now();
  for (std::size_t i = 0; i < calls.size(); ++i) {
    replies[i].request = tools_call_message(calls[i].name, calls[i].arguments);
    const std::string key = replies[i].request["id"].dump();
    inflight_[key] = replies[i].request;
    if (!send_json(replies[i].request)) {
      settle(replies[i], Reply::Kind::kClosed, key);
      continue;
    }
    pending[key] = i;
  }
  if (!calls.empty()) current_request_ = replies.front().request;
  const auto confirm = confirm_hang ? hang_confirm_bound(options_) : std::chrono::milliseconds(0);
  const auto hard_deadline = start + std::max(options_.max_total, options_.timeout + confirm);
  auto live = start;
  bool past_window = false;
  stray_seen_ = false;
  progress_seen_ = false;
  // Every request still pending ends as `kind`; an answer ends one.
  auto end_all = [&](Reply::Kind kind) {
    for (const auto& [key, i] : pending) {
      replies[i].stray_seen = stray_seen_;
      replies[i].elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
      settle(replies[i], kind, key);
    }
    pending.clear();
  };
  while (!pending.empty()) {
    core::stop_if_interrupted();
    if (closed_) {
      end_all(Reply::Kind::kClosed);
      break;
    }
    auto now = Clock::now();
    if (progress_seen_) {
      if (now - live > options_.timeout) past_window = true;
      live = now;
      progress_seen_ = false;
      for (const auto& [key, i] : pending) replies[i].progressed = true;
    }
    // A stray response may be an answer of the batch under a wrong id (T-ID): the others still
    // get a window, but no hang confirmation.
    const auto deadline = std::min(live + options_.timeout + (stray_seen_ ? std::chrono::milliseconds(0) : confirm),
                                   hard_deadline);
    if (now >= deadline) {
      flush_garbage("were not JSON-RPC messages");
      end_all(Reply::Kind::kTimeout);
      break;
    }
    auto rr = transport_.receive(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now));
    if (rr.status == transport::ReadStatus::kTimeout) continue;
    if (rr.status == transport::ReadStatus::kEof) {
      flush_garbage("were not JSON-RPC messages");
      closed_ = true;
      end_all(Reply::Kind::kClosed);
      break;
    }
    std::string raw;
    auto msg = accept_frame(rr.frame, raw);
    if (!msg) {
      if (rr.frame.oversize)
        if (auto id = oversize_response_id(rr.frame); id && pending.count(*id)) {
          Reply& r = replies[pending[*id]];
          r.oversize = true;
          r.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
          settle(r, Reply::Kind::kTimeout, *id);
          pending.erase(*id);
        }
      continue;
    }
    std::vector<json> items;
    if (msg->is_array()) items.assign(msg->begin(), msg->end());
    else items.push_back(std::move(*msg));
    for (auto& m : items) {
      auto it = m.is_object() && !m.contains("method") && m.contains("id") && (m.contains("result") || m.contains("error"))
                    ? pending.find(m["id"].dump())
                    : pending.end();
      if (it == pending.end()) {
        handle_other(m, raw);
        continue;
      }
      Reply& r = replies[it->second];
      r.raw = raw;
      take_response(m, r);
      r.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
      r.late = confirm.count() > 0 && (past_window || Clock::now() - live > options_.timeout);
      r.stray_seen = stray_seen_;
      settle(r, r.kind, it->first);
      pending.erase(it);
    }
  }
  strays_in_a_row_ = 0;
  current_request_ = nullptr;
  progress_tokens_.clear();
  return replies;
}

}  // namespace ctxo::mcp
