// SPDX-License-Identifier: MIT
#include "checks/annotations.h"

#include <algorithm>

#include "core/text.h"

namespace ctxo::checks {

using nlohmann::json;

json effect_form(const mcp::Reply& reply) {
  if (!reply.transport_failure.empty()) return nullptr;
  if (reply.kind == mcp::Reply::Kind::kError) {
    if (!reply.error.is_object()) return json{{"error", reply.error}};
    return json{{"error", {{"code", reply.error.value("code", json())}, {"message", reply.error.value("message", json())}}}};
  }
  if (reply.kind != mcp::Reply::Kind::kResult) return nullptr;
  if (!reply.result.is_object()) return json{{"result", reply.result}};
  json out = json::object();
  for (const char* key : {"content", "structuredContent", "isError"})
    if (reply.result.contains(key)) out[key] = reply.result[key];
  return out;
}

namespace {

/// A form as a person reads it: an answer of text parts alone, its text; else its JSON.
std::string shown(const json& form) {
  if (form.is_object() && form.size() == 1 && form.contains("content") && form["content"].is_array()) {
    std::string text;
    for (const auto& part : form["content"]) {
      if (!part.is_object() || part.value("type", "") != "text" || !part.contains("text") || !part["text"].is_string())
        return form.dump(-1, ' ', false, json::error_handler_t::replace);
      text += (text.empty() ? "" : "\n") + part["text"].get<std::string>();
    }
    return text;
  }
  return form.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::pair<std::string, std::string> changed_excerpts(const json& before, const json& after, std::size_t width) {
  const std::string a = shown(before);
  const std::string b = shown(after);
  std::size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
  // A little context before the first difference, on a UTF-8 boundary.
  std::size_t from = at > width / 4 ? at - width / 4 : 0;
  while (from > 0 && (static_cast<unsigned char>(a[from]) & 0xC0) == 0x80) --from;
  auto part = [&](const std::string& s) {
    if (from >= s.size()) return std::string(from > 0 ? "…" : "");
    return (from > 0 ? "…" : "") + excerpt(std::string_view(s).substr(from), width);
  };
  return {part(a), part(b)};
}

Finding annotation_effect(const std::string& tool, const AnswerChange& change) {
  const json& params = change.call.contains("params") ? change.call["params"] : json();
  const json& wparams = change.witness.contains("params") ? change.witness["params"] : json();
  const std::string args = excerpt(params.value("arguments", json::object()).dump(), 160);
  const std::string witness = wparams.value("name", "");
  const std::string wargs = excerpt(wparams.value("arguments", json::object()).dump(), 160);
  const auto [before, after] = changed_excerpts(change.before, change.after);
  Finding f;
  f.invariant = "P-ANNOTATION";
  f.tool = tool;
  f.severity = Severity::kError;
  f.request = change.call;
  f.cause = {{"annotation", change.annotation}, {"effect", "answers"}};
  f.response_excerpt = excerpt(change.after.dump(-1, ' ', false, json::error_handler_t::replace), 300);
  if (change.annotation == "readOnlyHint") {
    f.diagnosis = "tool " + tool + " is annotated readOnlyHint: true, but its call " + tool + " " + args +
                  " changed what read-only tool " + witness + " " + wargs + " answers (before: " + before +
                  "; after: " + after + ")" +
                  (change.also_idempotent ? ", and the same call made again changed it again" : "") +
                  "; seen twice, and " + witness +
                  " answered the same when called twice with nothing between: hosts run read-only tools without "
                  "asking (VS Code), admit only them in plan mode (Claude Code) and call them in parallel; drop "
                  "readOnlyHint (and idempotentHint) from a tool that changes state, or make it not change any";
  } else {
    f.diagnosis = "tool " + tool + " is annotated idempotentHint: true, but the same call " + tool + " " + args +
                  " made a second time changed what read-only tool " + witness + " " + wargs +
                  " answers again (after the first call: " + before + "; after the second: " + after +
                  "); seen twice, and " + witness +
                  " answered the same when called twice with nothing between: hosts retry and parallelise calls "
                  "of idempotent tools, trusting a repeated call to have no additional effect; drop idempotentHint, "
                  "or make a repeated call change nothing more";
  }
  return f;
}

}  // namespace ctxo::checks
