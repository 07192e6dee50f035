// SPDX-License-Identifier: MIT
// Client: what arrives from the server. Frames checked and parsed (T-FRAMING: oversize, invalid
// UTF-8, lines that are not JSON-RPC, split messages, batches), messages that answer no request of
// ours (server requests, notifications, stray responses: T-ID), and the observations made.
#include "mcp/client.h"

#include <algorithm>
#include <cstdio>

#include "core/json_bounded.h"
#include "mcp/answer.h"
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

// When the bytes at `at` are the start of a UTF-8 sequence cut short where its string ends (or
// before a cut marker): how many bytes the whole character takes (0 otherwise). `kept`: how many
// of them are there.
std::size_t cut_sequence_at(std::string_view s, std::size_t at, std::size_t& kept) {
  if (at >= s.size()) return 0;
  const auto b = static_cast<unsigned char>(s[at]);
  const std::size_t need = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
  if (!need) return 0;
  kept = 1;
  while (kept < need && at + kept < s.size() && (static_cast<unsigned char>(s[at + kept]) & 0xC0) == 0x80) ++kept;
  if (kept >= need) return 0;
  const std::size_t after = at + kept;
  return after < s.size() && (s[after] == '"' || cut_marker_at(s, after)) ? need : 0;
}

bool is_rpc_object(const json& j) { return j.is_object() && (j.contains("jsonrpc") || j.contains("id") || j.contains("method")); }

constexpr std::size_t kMaxGarbageLines = 2000;
constexpr std::size_t kMaxGarbageBytes = 4u << 20;

}  // namespace

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
  // A byte-order mark before the message: JSON.parse and strict decoders refuse it.
  if (body.rfind("\xEF\xBB\xBF", 0) == 0) {
    observe("T-FRAMING", {{"form", "byte-order-mark"}},
            std::string(http() ? "a message" : "a stdout line") +
                " starts with a UTF-8 byte-order mark (EF BB BF): JSON text exchanged between systems must not "
                "(RFC 8259 section 8.1), and JSON.parse refuses it; it was read without the mark",
            excerpt(body, 200));
    body.erase(0, 3);
  }
  if (!frame.valid_utf8) {
    const std::size_t at = first_invalid_utf8(body);
    std::size_t kept = 0;
    char lead[8];
    std::snprintf(lead, sizeof lead, "0x%02X", at < body.size() ? static_cast<unsigned char>(body[at]) : 0u);
    const std::string around = excerpt(body.substr(at > 60 ? at - 60 : 0, 160), 200);
    if (const std::size_t need = cut_sequence_at(body, at, kept)) {
      // A cut by bytes inside a character: the cutting code's defect, not the transport's.
      observe("TR-VERBATIM", {{"form", "cut-splits-character"}},
              "a cut split a character: in the message a string ends with " + std::to_string(kept) + " of the " +
                  std::to_string(need) + " bytes of a UTF-8 sequence (lead byte " + lead + " at byte " +
                  std::to_string(at) +
                  "): the text was cut by bytes inside a character, and the message is not valid UTF-8 (clients "
                  "reject it or read U+FFFD). Cut on a character boundary",
              around);
    } else {
      observe("T-FRAMING", {{"form", "invalid-utf8"}},
              std::string(http() ? "a message is not valid UTF-8 (invalid byte " : "a stdout line is not valid UTF-8 (invalid byte ") +
                  lead + " at byte " + std::to_string(at) + "); JSON-RPC messages must be UTF-8",
              around);
    }
    body = sanitize_utf8(body);
  }
  raw_out = std::move(body);
  const std::string& text = raw_out;
  MessageFacts facts;
  json msg = parse_message(text, facts);
  const bool too_deep = facts.too_deep;
  if (facts.overflow_at != std::string::npos)
    observe("T-FRAMING", {{"form", "number-out-of-range"}},
            "a message holds the number " + excerpt(facts.overflow, 40) +
                ", beyond what a double holds: JavaScript reads Infinity, strict decoders (nlohmann, serde_json) "
                "refuse the whole message. It was read as null; send a string, or a number in range",
            excerpt(text.substr(facts.overflow_at > 60 ? facts.overflow_at - 60 : 0, 160), 200));
  if (facts.duplicated) {
    observe("T-FRAMING", {{"form", "duplicate-key"}},
            "a message holds the key \"" + excerpt(facts.duplicate, 60) +
                "\" twice in one object: JSON readers disagree on which value counts (JavaScript keeps the last, "
                "others the first or refuse the message; RFC 8259 says names SHOULD be unique). The last was kept",
            excerpt(text, 200));
    observations_.back().warning = true;
  }
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
      const auto lone = lone_surrogate_escapes(text);
      // A string cut inside a character is the cutting code's defect (TR-VERBATIM), said once for
      // the message; a lone surrogate anywhere else is the message's (T-FRAMING).
      const auto cut = std::find_if(lone.begin(), lone.end(), [](const LoneSurrogate& l) { return l.cut; });
      if (!again.is_discarded() && cut != lone.end()) {
        observe("TR-VERBATIM", {{"form", "cut-splits-character"}}, split_character_diagnosis(*cut, "the message", true),
                excerpt(text.substr(cut->at > 60 ? cut->at - 60 : 0, 160), 200));
        // The answer's own call (several may be in flight), not the one awaited first.
        if (again.is_object() && again.contains("id"))
          if (auto it = inflight_.find(again["id"].dump()); it != inflight_.end())
            observations_.back().related_request = it->second;
        msg = std::move(again);
      } else if (!again.is_discarded()) {
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
      // notifications/tools/list_changed and its kin, counted per list: a listing asked again is
      // judged against whether the server said its list changed (P-RELIST).
      for (const char* list : {"tools", "resources", "prompts"})
        if (msg["method"] == std::string("notifications/") + list + "/list_changed") ++traffic_.list_changed[list];
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

}  // namespace ctxo::mcp
