// SPDX-License-Identifier: MIT
// The judge's readings of one answer that need no judge state (checks/judge_detail.h).
#include "checks/judge_detail.h"

#include "checks/envelope_util.h"
#include "checks/reach.h"

namespace ctxo::checks::judge_detail {

using mcp::Reply;

/// How an invalid call was refused outside the envelope, as a cause (one design choice, one
/// finding: the same on every tool, whatever the refusal's text quoted).
std::map<std::string, std::string> refusal_cause(const mcp::Answer& a) {
  const Reply& r = a.reply();
  if (r.kind == Reply::Kind::kError) {
    const json* code = r.error.is_object() && r.error.contains("code") ? &r.error["code"] : nullptr;
    return {{"form", "invalid-refused-with-jsonrpc-error"},
            {"code", code && code->is_number_integer() ? std::to_string(code->get<long long>()) : "0"}};
  }
  const std::string& text = a.text();
  if (text.find("Input validation error") != std::string::npos || text.rfind("MCP error -32602", 0) == 0)
    return {{"form", "invalid-refused-by-sdk-validation"}};
  return {{"form", "invalid-refused-with-plain-text"}};
}

/// How an invalid call was refused outside the envelope, said so the author can act on it.
std::string refusal_diagnosis(const mcp::Answer& a, const profile::Profile& p) {
  const Reply& r = a.reply();
  const std::string form = "profile " + quote(p.name) + "'s error envelope";
  if (r.kind == Reply::Kind::kError) {
    int code = r.error.is_object() && r.error.contains("code") && r.error["code"].is_number_integer()
                   ? r.error["code"].get<int>()
                   : 0;
    return "invalid arguments were refused with JSON-RPC error " + std::to_string(code) + " instead of " + form +
           ": an agent that reads every answer as the envelope gets a protocol error. Validate the arguments inside "
           "the handler and answer with the envelope's error form";
  }
  const std::string& text = a.text();
  if (text.find("Input validation error") != std::string::npos || text.rfind("MCP error -32602", 0) == 0)
    return "invalid arguments were refused with the MCP SDK's plain-text validation error (isError:true) instead "
           "of " + form + ": the SDK checked the arguments against the tool's schema before the handler ran, so an "
           "agent that parses every answer as JSON gets text. Validate inside the handler (or map the SDK's "
           "validation error into the envelope's error form)";
  return "invalid arguments were refused with a plain-text isError result instead of " + form +
         ": an agent that parses every answer as JSON gets text. Answer invalid input with the envelope's error form";
}

/// What an answer reached, from its envelope when it was judged as one, else from its shape.
Reach reach_of(const mcp::Answer& a, const ParsedEnvelope& env, bool valid) {
  const Reply& r = a.reply();
  const Reach failed = valid ? Reach::kError : Reach::kRefusal;
  if (r.kind == Reply::Kind::kError) return failed;
  if (r.kind != Reply::Kind::kResult) return Reach::kNoAnswer;
  if (env.profile && env.form) {
    switch (*env.form) {
      case profile::FormKind::kError: return failed;
      case profile::FormKind::kMiss: return Reach::kMiss;
      case profile::FormKind::kSuccess: break;
    }
  }
  if (r.is_error_result()) return failed;
  if (env.profile) {
    // An array cut to nothing still had data: only an uncut empty result is empty.
    const json* items = cut_items(env);
    const bool cut = detail::truncated_flag(*env.profile, env.envelope).value_or(false);
    return items && items->empty() && !cut ? Reach::kEmpty : Reach::kData;
  }
  // No envelope: what it carries says (checks/reach.h: error prose, a miss, an empty shape, a
  // leaked `undefined`, or data). Coverage here; the in-band rules (checks/inband.h) read it too.
  const json* structured = a.structured();
  // An image, audio or resource is data, though no text (only blanks and section rules) says so.
  if (!structured && a.non_text_content() && a.sections().find_first_not_of(" \t\r\n-") == std::string::npos)
    return Reach::kData;
  const Reach reach = content_reach(a);
  return reach == Reach::kError ? failed : reach;
}

}  // namespace ctxo::checks::judge_detail
