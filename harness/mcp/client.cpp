// SPDX-License-Identifier: MIT
// Client: the JSON-RPC exchange over a transport: ids, sending, waiting for the answer to one
// request (await) or to a batch of tools/call (call_tools), settling requests, draining. What
// arrives is read in client_incoming.cpp; the handshake and tools/* in client_methods.cpp.
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

void Client::take_response(json& m, Reply& reply) {
  if (m.contains("error") && m.contains("result")) {
    // Neither member can be believed: the transport's finding, not an answer to judge.
    observe("T-FRAMING", {{"form", "result-and-error"}},
            "a response holds both \"result\" and \"error\": JSON-RPC 2.0 allows exactly one, so a client cannot "
            "tell whether the call succeeded. It was not judged as the tool's answer",
            excerpt(m.dump(-1, ' ', false, json::error_handler_t::replace), 300));
    observations_.back().related_request = reply.request;
    reply.error = std::move(m["error"]);
    reply.kind = Reply::Kind::kError;
    reply.transport_failure = "the response held both result and error (T-FRAMING result-and-error)";
    return;
  }
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
