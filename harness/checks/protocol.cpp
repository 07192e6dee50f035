// SPDX-License-Identifier: MIT
#include "checks/protocol.h"
#include "checks/lists.h"
#include "checks/reach.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/json_bounded.h"
#include "core/text.h"

namespace ctxo::checks {

namespace {

Finding make(const std::string& id, const json& request, const std::string& raw, std::string diagnosis,
             Severity sev = Severity::kError, std::map<std::string, std::string> cause = {}) {
  Finding f;
  f.invariant = id;
  f.cause = std::move(cause);
  f.severity = sev;
  f.request = request;
  f.response_excerpt = excerpt(raw, 400);
  f.diagnosis = std::move(diagnosis);
  return f;
}

std::string type_name(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    case json::value_t::number_float: return "number";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    default: return "value";
  }
}

bool is_base64(const std::string& s) {
  std::size_t n = 0, pad = 0;
  for (char c : s) {
    if (c == '=') {
      ++pad;
      continue;
    }
    if (pad) return false;
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/')) return false;
    ++n;
  }
  return pad <= 2 && (n + pad) % 4 == 0;
}

std::string raw_of(const mcp::Reply& r) { return r.raw.empty() ? r.result.dump() : r.raw; }

const std::vector<std::string>& known_versions() {
  static const std::vector<std::string> v = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
                                             "2026-07-28"};
  return v;
}

// Checks one content block; returns a problem or "".
std::string content_block_problem(const json& b, std::size_t i) {
  std::string at = "content[" + std::to_string(i) + "]";
  if (!b.is_object()) return at + " is a " + type_name(b) + ", not an object";
  if (!b.contains("type")) return at + " has no \"type\"";
  if (!b["type"].is_string()) return at + ".type is a " + type_name(b["type"]) + ", not a string";
  const std::string t = b["type"].get<std::string>();
  auto need_string = [&](const json& obj, const char* key, const std::string& where) -> std::string {
    if (!obj.contains(key)) return where + " (type \"" + t + "\") has no \"" + key + "\"";
    if (!obj[key].is_string()) return where + "." + key + " is a " + type_name(obj[key]) + ", not a string";
    return "";
  };
  if (t == "text") return need_string(b, "text", at);
  if (t == "image" || t == "audio") {
    if (auto p = need_string(b, "data", at); !p.empty()) return p;
    if (auto p = need_string(b, "mimeType", at); !p.empty()) return p;
    if (!is_base64(b["data"].get<std::string>())) return at + ".data is not base64";
    return "";
  }
  if (t == "resource_link") {
    if (auto p = need_string(b, "uri", at); !p.empty()) return p;
    return need_string(b, "name", at);
  }
  if (t == "resource") {
    if (!b.contains("resource") || !b["resource"].is_object()) return at + " (type \"resource\") has no resource object";
    const json& r = b["resource"];
    if (auto p = need_string(r, "uri", at + ".resource"); !p.empty()) return p;
    bool text = r.contains("text") && r["text"].is_string();
    bool blob = r.contains("blob") && r["blob"].is_string();
    if (!text && !blob) return at + ".resource has neither a string \"text\" nor a base64 \"blob\"";
    return "";
  }
  return at + ".type \"" + t + "\" is not a content type (text, image, audio, resource_link, resource)";
}

}  // namespace

bool valid_tool_name(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

Outcomes check_init(const mcp::ServerInfo& info) {
  Outcomes out;
  out.pass("P-INIT");
  const json& r = info.init_result;
  const std::string raw = r.dump();
  auto add = [&](std::string d, Severity s = Severity::kError) {
    out.push_back(make("P-INIT", info.init_request, raw, std::move(d), s));
  };
  if (!r.is_object()) {
    add("the handshake result is a " + type_name(r) + ", not an object");
    return out;
  }
  if (info.era == "modern") {
    if (!r.contains("supportedVersions") || !r["supportedVersions"].is_array())
      add("server/discover result has no supportedVersions array");
    if (!r.contains("capabilities") || !r["capabilities"].is_object())
      add("server/discover result has no capabilities object");
    else if (!r["capabilities"].contains("tools"))
      add("capabilities does not declare \"tools\", yet the server is being tested for tools");
    for (const char* k : {"ttlMs", "cacheScope"})
      if (!r.contains(k)) add(std::string("server/discover result lacks \"") + k + "\" (required in 2026-07-28)",
                              Severity::kWarning);
    return out;
  }
  if (!r.contains("protocolVersion") || !r["protocolVersion"].is_string()) {
    add("initialize result has no string protocolVersion");
  } else {
    auto v = r["protocolVersion"].get<std::string>();
    const auto& known = known_versions();
    if (std::find(known.begin(), known.end(), v) == known.end())
      add("initialize answered protocolVersion \"" + v + "\", which is not a published MCP version (" +
          "2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05); a server must answer a version it supports");
  }
  if (!r.contains("capabilities") || !r["capabilities"].is_object())
    add("initialize result has no capabilities object");
  else if (!r["capabilities"].contains("tools"))
    add("capabilities does not declare \"tools\": a server that offers tools must declare the tools capability");
  if (!r.contains("serverInfo") || !r["serverInfo"].is_object()) {
    add("initialize result has no serverInfo object ({name, version} is required)");
  } else {
    const json& si = r["serverInfo"];
    if (!si.contains("name") || !si["name"].is_string()) add("serverInfo.name is missing or not a string");
    if (!si.contains("version") || !si["version"].is_string()) add("serverInfo.version is missing or not a string");
  }
  if (r.contains("instructions") && !r["instructions"].is_string()) add("instructions is not a string");
  return out;
}

Outcomes check_failed_init(const std::vector<mcp::Reply>& attempts) {
  Outcomes out;
  for (const auto& a : attempts) {
    if (a.kind != mcp::Reply::Kind::kError) continue;
    std::string method = a.request.value("method", "");
    if (method == "server/discover") continue;  // legacy servers refuse the probe; that is allowed
    // Sent with an HTTP 5xx (the transport marks it): the server failed on a valid request, an
    // HTTP server error, not a version it refused.
    const json* http_status = a.error.is_object() && a.error.contains("data") && a.error["data"].is_object() &&
                                      a.error["data"].contains("httpStatus")
                                  ? &a.error["data"]["httpStatus"]
                                  : nullptr;
    if (http_status && http_status->is_number_integer() && http_status->get<long>() >= 500) {
      out.push_back(make("T-HTTP-STATUS", a.request, a.error.dump(),
                         method + " was answered HTTP " + std::to_string(http_status->get<long>()) + " (\"" +
                             excerpt(a.error.value("message", std::string()), 160) +
                             "\"): the server failed on a valid request, so no session could start",
                         Severity::kError,
                         {{"form", "server-error"}, {"method", method}, {"status", std::to_string(http_status->get<long>())}}));
      continue;
    }
    out.push_back(make("P-INIT", a.request, a.error.dump(),
                       method + " was answered with a JSON-RPC error for protocol version " +
                           a.request["params"].value("protocolVersion", std::string("?")) +
                           "; a server must answer initialize with a version it supports"));
  }
  return out;
}

Outcomes check_tools_list(const mcp::Client::ToolsListing& listing, const std::string& era) {
  Outcomes out;
  out.pass("P-LIST");
  std::map<std::string, std::size_t> seen;
  std::size_t index = 0;
  for (const auto& page : listing.pages) {
    seen.clear();  // a name an earlier page listed is check_pagination's (page-repeats-items)
    const std::string raw = raw_of(page);
    auto add = [&](std::string d, Severity s = Severity::kError) {
      out.push_back(make("P-LIST", page.request, raw, std::move(d), s));
    };
    if (!page.transport_failure.empty()) continue;  // reported by the transport (T-HTTP-*)
    if (page.kind == mcp::Reply::Kind::kError) {
      add("tools/list was answered with a JSON-RPC error: " + excerpt(page.error.dump(), 200));
      continue;
    }
    if (page.kind != mcp::Reply::Kind::kResult) continue;  // T-HANG / T-CRASH
    const json& r = page.result;
    if (!r.is_object() || !r.contains("tools") || !r["tools"].is_array()) {
      add("tools/list result has no \"tools\" array");
      continue;
    }
    if (r.contains("nextCursor") && !r["nextCursor"].is_string())
      add("nextCursor is a " + type_name(r["nextCursor"]) + "; cursors are opaque strings");
    for (const auto& t : r["tools"]) {
      std::string at = "tools[" + std::to_string(index++) + "]";
      if (!t.is_object()) {
        add(at + " is a " + type_name(t) + ", not an object");
        continue;
      }
      std::string name;
      if (!t.contains("name") || !t["name"].is_string() || t["name"].get<std::string>().empty()) {
        add(at + " has no non-empty string name");
      } else {
        name = t["name"].get<std::string>();
        at = "tool \"" + name + "\"";
        if (seen.count(name)) add("tool name \"" + name + "\" is listed twice; names must be unique");
        seen[name]++;
        if (!valid_tool_name(name))
          add(at + ": names should be 1-128 characters of A-Z a-z 0-9 _ - .", Severity::kWarning);
      }
      if (!t.contains("inputSchema")) {
        add(at + " has no inputSchema (required; use {\"type\":\"object\"} for a tool without arguments)");
      } else if (!t["inputSchema"].is_object()) {
        add(at + ": inputSchema is a " + type_name(t["inputSchema"]) + ", not a JSON Schema object");
      } else if (t["inputSchema"].value("type", json()) != "object") {
        add(at + ": inputSchema.type is " + t["inputSchema"].value("type", json()).dump() +
            "; tool input schemas must have type \"object\"");
      }
      if (t.contains("outputSchema")) {
        if (!t["outputSchema"].is_object()) add(at + ": outputSchema is not an object");
        else if (era != "modern" && t["outputSchema"].value("type", json()) != "object")
          add(at + ": outputSchema.type must be \"object\"");
      }
      if (t.contains("description") && !t["description"].is_string()) add(at + ": description is not a string");
      if (t.contains("annotations")) {
        if (!t["annotations"].is_object()) {
          add(at + ": annotations is not an object");
        } else {
          for (const char* h : {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})
            if (t["annotations"].contains(h) && !t["annotations"][h].is_boolean())
              add(at + ": annotations." + h + " is not a boolean");
        }
      }
    }
  }
  check_pagination(listing, out);  // cursors that do not advance, pages that repeat earlier ones
  return out;
}

ToolValidators::ToolValidators(const json& input_schema, const json* tool) {
  if (!input_schema.is_null()) {
    auto v = profile::SchemaValidator::compile_borrowed(input_schema);
    if (v.ok()) input_.emplace(std::move(v.value()));
    else input_problem_ = v.error().message;
  }
  if (tool && tool->is_object() && tool->contains("outputSchema") && (*tool)["outputSchema"].is_object()) {
    auto v = profile::SchemaValidator::compile_borrowed((*tool)["outputSchema"]);
    if (v.ok()) output_.emplace(std::move(v.value()));
    else output_problem_ = v.error().message;
  }
}

CallContext ToolValidators::context(const json* tool, const json& arguments, const std::string& era) const {
  CallContext ctx;
  ctx.tool = tool;
  ctx.era = era;
  // tools/call's arguments are an object (MCP CallToolRequest): anything else is no valid call,
  // whatever a schema without "type" admits.
  ctx.schema_valid = input_ && (arguments.is_null() || arguments.is_object()) && input_->validate(arguments).empty();
  if (output_) {
    const profile::SchemaValidator* ov = &*output_;  // lives as long as this ToolValidators
    ctx.output_validator = [ov](const json& v) { return ov->validate(v); };
  }
  return ctx;
}

std::string ToolValidators::input_violation(const json& arguments) const {
  if (!input_) return "";
  if (!arguments.is_null() && !arguments.is_object())
    return "the arguments are a " + type_name(arguments) + "; tools/call takes an object";
  auto problems = input_->validate(arguments);
  return problems.empty() ? "" : problems.front();
}

// Words that mark a refusal of the call's input: the SDKs' -32602 texts, zod's issue codes, and
// the argument-error codes envelope designs use (BAD_ARGS, INVALID_ARGUMENT).
bool reads_as_input_rejection(std::string_view text) {
  std::string lower;
  for (char c : text.substr(0, 4096)) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* marker : {"-32602", "invalid arguments", "invalid params", "input validation", "validation error",
                             "bad_args", "invalid_argument", "invalid_type", "too_big", "too_small"})
    if (lower.find(marker) != std::string::npos) return true;
  return false;
}

Outcomes check_acceptance(const CallContext& ctx, const mcp::Reply& reply, const std::string& broken,
                          const std::optional<std::string>& envelope_error) {
  return check_acceptance(ctx, mcp::Answer(reply), broken, envelope_error);
}

Outcomes check_acceptance(const CallContext& ctx, const mcp::Answer& answer, const std::string& broken,
                          const std::optional<std::string>& envelope_error) {
  Outcomes out;
  const mcp::Reply& reply = answer.reply();
  if (reply.kind != mcp::Reply::Kind::kResult || !reply.result.is_object()) return out;
  const bool is_error = reply.is_error_result();
  // The text parts, each ended by "\n" (read only where a refusal is looked for).
  const bool reads_text = ctx.schema_valid ? !envelope_error && is_error : !broken.empty();
  std::string text;
  if (reads_text)
    for (const std::string* part : answer.parts()) text += *part + "\n";
  if (ctx.schema_valid) {
    out.pass("P-ACCEPT");
    // The refusal may be a plain isError text or the profile's own error envelope (a handler that
    // validates with stricter rules than the schema it publishes).
    const std::string* said = envelope_error ? &*envelope_error : (is_error ? &text : nullptr);
    if (said && reads_as_input_rejection(*said))
      out.push_back(make("P-ACCEPT", reply.request, raw_of(reply),
                         std::string("arguments valid for the tool's inputSchema were rejected as invalid input") +
                             (envelope_error ? " in an error envelope" : "") +
                             ": the runtime validation is stricter than the schema the agent sees",
                         Severity::kWarning,
                         {{"validity", "valid"}, {"form", envelope_error ? "envelope-error" : "iserror-text"}}));
    // Never "no invalid call was made" when some were: an unknown property is exempt (SDKs strip
    // unknown keys by design), and coverage counts those calls' refusals.
    out.unobserved("P-REJECT", "no call broke the input schema other than by an unknown property, which is exempt");
  } else if (!broken.empty()) {
    out.pass("P-REJECT");
    // A JSON answer that says it failed ({"error": ...} or {"ok": false}) refused the call in its
    // payload, even where no envelope profile names that form.
    const json& payload = answer.whole();
    const bool refused_in_payload =
        payload.is_object() && ((payload.contains("error") && !payload["error"].is_null() && payload["error"] != false) ||
                                (payload.contains("ok") && payload["ok"] == false));
    if (!is_error && !envelope_error && !refused_in_payload) {
      // Which of the two happened: refused in words the agent is told are a success, or accepted.
      const bool refused_in_text = reads_as_input_rejection(text) || content_reach(text) == Reach::kError;
      out.push_back(make("P-REJECT", reply.request, raw_of(reply),
                         refused_in_text
                             ? "a call that breaks the tool's inputSchema was refused in text, but as an ordinary "
                               "result without isError: true (this call: " + broken +
                                   "): the agent is told its call succeeded"
                             : "a call that breaks the tool's inputSchema got an ordinary success (this call: " +
                                   broken + "): the tool accepted it without validating its input, so an agent's "
                                   "mistake goes unnoticed",
                         Severity::kWarning,
                         {{"validity", "invalid"},
                          {"form", refused_in_text ? "refused-without-iserror" : "accepted-without-validating"}}));
    }
  }
  return out;
}

Outcomes check_split_characters(const mcp::Answer& answer) {
  Outcomes out;
  // Only a part that holds a \\u escape can hold a lone surrogate: no parse for the others.
  const auto& parts = answer.parts();
  if (std::none_of(parts.begin(), parts.end(), [](const std::string* p) { return p->find("\\u") != std::string::npos; }))
    return out;
  const auto& read = answer.read();
  for (std::size_t i = 0; i < read.size(); ++i) {
    if (!read[i].lone_cut) continue;
    const LoneSurrogate& l = *read[i].lone_cut;
    const std::string where = read.size() == 1 ? std::string("the text part's JSON") : "the JSON of text part " + std::to_string(i + 1);
    const std::string_view t = *read[i].text;
    out.push_back(make("TR-VERBATIM", answer.reply().request, std::string(t.substr(l.at > 120 ? l.at - 120 : 0, 200)),
                       mcp::split_character_diagnosis(l, where, false), Severity::kError, {{"form", "cut-splits-character"}}));
    break;  // one per answer
  }
  return out;
}

Outcomes check_call(const CallContext& ctx, const mcp::Reply& reply) {
  Outcomes out;
  const std::string raw = raw_of(reply);
  if (reply.kind == mcp::Reply::Kind::kError || reply.kind == mcp::Reply::Kind::kResult) out.pass("P-NO-THROW");
  if (reply.kind == mcp::Reply::Kind::kError) {
    int code = reply.error.is_object() && reply.error.contains("code") && reply.error["code"].is_number_integer()
                   ? reply.error["code"].get<int>()
                   : 0;
    std::string msg = reply.error.is_object() ? reply.error.value("message", std::string()) : std::string();
    // One cause whatever the message says and whether the call was valid: the error code.
    std::map<std::string, std::string> cause = {{"form", "jsonrpc-error"}, {"code", std::to_string(code)}};
    if (ctx.schema_valid) {
      out.push_back(make("P-NO-THROW", reply.request, raw,
                         "a call whose arguments are valid for the tool's inputSchema got JSON-RPC error " +
                             std::to_string(code) + " \"" + excerpt(msg, 160) +
                             "\"; failures of a valid call must be results with isError:true (or the profile's "
                             "error envelope), not protocol errors",
                         Severity::kError, std::move(cause)));
    } else if (code == -32603) {
      out.push_back(make("P-NO-THROW", reply.request, raw,
                         "the call got -32603 (internal error): invalid input must be rejected with -32602 or an "
                         "isError result, never an internal error",
                         Severity::kError, std::move(cause)));
    }
    return out;
  }
  if (reply.kind != mcp::Reply::Kind::kResult) return out;
  out.pass("P-RESULT");
  const json& r = reply.result;
  // The cause: which member of the result breaks the shape (never its value).
  auto add = [&](const char* field, std::string d) {
    out.push_back(make("P-RESULT", reply.request, raw, std::move(d), Severity::kError, {{"field", field}}));
  };
  if (!r.is_object()) {
    add("result", "the tools/call result is a " + type_name(r) + ", not an object");
    return out;
  }
  if (ctx.era == "modern" && r.contains("resultType")) {
    const json& rt = r["resultType"];
    if (!(rt == "complete" || rt == "input_required"))
      add("resultType", "resultType is " + rt.dump() + "; it must be \"complete\" or \"input_required\"");
    if (rt == "input_required") return out;
  }
  if (!r.contains("content")) {
    add("content", "the result has no \"content\" array (required, may be empty)");
  } else if (!r["content"].is_array()) {
    add("content", "content is a " + type_name(r["content"]) + ", not an array");
  } else {
    for (std::size_t i = 0; i < r["content"].size(); ++i) {
      auto p = content_block_problem(r["content"][i], i);
      if (!p.empty()) {
        add("content[*]", p);
        break;
      }
    }
  }
  bool is_error = false;
  if (r.contains("isError")) {
    if (!r["isError"].is_boolean()) add("isError", "isError is a " + type_name(r["isError"]) + ", not a boolean");
    else is_error = r["isError"].get<bool>();
  }
  if (r.contains("_meta") && !r["_meta"].is_object()) add("_meta", "_meta is not an object");
  if (r.contains("structuredContent") && ctx.era != "modern" && !r["structuredContent"].is_object())
    add("structuredContent", "structuredContent is a " + type_name(r["structuredContent"]) + ", not an object");
  if (ctx.output_validator && is_error && ctx.strict_error_output && r.contains("structuredContent")) {
    // Strict clients validate an error result's structured content too, and fail the call before
    // the caller can read the error (typescript-sdk 1.x callTool: McpError -32602).
    auto errors = ctx.output_validator(r["structuredContent"]);
    if (!errors.empty())
      out.push_back(make("P-RESULT", reply.request, raw,
                         "an isError result carries structuredContent that does not match the tool's outputSchema: " +
                             errors.front() +
                             ". Strict clients (--strict-error-output; the TypeScript SDK's 1.x callTool) validate "
                             "error results too and throw -32602, so the agent never reads the error; leave "
                             "structuredContent out of error results, or make it match the schema",
                         Severity::kError, {{"field", "outputSchema"}, {"form", "error-result"}}));
  }
  if (ctx.output_validator && !is_error) {
    if (!r.contains("structuredContent")) {
      add("structuredContent", "the tool declares an outputSchema but the result has no structuredContent");
    } else {
      auto errors = ctx.output_validator(r["structuredContent"]);
      // A sample's arrays hold their first items only: too few items, or none matching
      // `contains`, says nothing of the answer itself (checks/sample.h).
      const bool from_cut = reply.sampled && std::any_of(errors.begin(), errors.end(), [](const std::string& e) {
        return e.find("Array should contain no fewer than") != std::string::npos || e.find("'contains'") != std::string::npos ||
               e.find("minContains") != std::string::npos;
      });
      if (!errors.empty() && !from_cut) {
        std::string d = "structuredContent does not match the tool's outputSchema: " + errors.front();
        if (errors.size() > 1) d += " (and " + std::to_string(errors.size() - 1) + " more)";
        add("outputSchema", d);
      }
    }
  }
  return out;
}

}  // namespace ctxo::checks
