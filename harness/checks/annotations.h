// SPDX-License-Identifier: MIT
// P-ANNOTATION's answer form: a tool annotated readOnlyHint: true must leave what other tools
// answer as it was, and one annotated idempotentHint: true must change nothing more when the
// same call is made a second time. The engine makes the calls (engine/annotations.cpp) and holds
// read-only tools' answers (witnesses) before and after; this says what an answer is for that
// comparison and what a change found comes to, as data.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "mcp/client.h"

namespace ctxo::checks {

/// What a witness's answer says, compared as is: a result's content, structuredContent and
/// isError (not its _meta), a JSON-RPC error's code and message; null when nothing was answered
/// (a timeout, a closed pipe, the transport's failure): no comparison then.
nlohmann::json effect_form(const mcp::Reply& reply);

/// The two forms side by side where they first differ: "«…[\"a\"]»" then "«…[\"a\",\"a\"]»",
/// each at most about `width` bytes, printable (core's excerpt).
std::pair<std::string, std::string> changed_excerpts(const nlohmann::json& before, const nlohmann::json& after,
                                                     std::size_t width = 80);

/// What one annotated call did to one witness: the annotation it broke ("readOnlyHint": the
/// witness answered otherwise after the tool's call than before it; "idempotentHint": otherwise
/// after the same call made a second time than after the first), the tool's call, the witness's
/// request and its two answers' forms.
struct AnswerChange {
  std::string annotation;
  nlohmann::json call;     ///< The annotated tool's tools/call request (its second, for idempotentHint).
  nlohmann::json witness;  ///< The witness's tools/call request.
  nlohmann::json before, after;
  bool also_idempotent = false;  ///< readOnlyHint broken, and the second call changed the witness again.
};

/// P-ANNOTATION's answer form on `tool`: cause {"annotation": ..., "effect": "answers"}, the
/// diagnosis naming the tool, its call, the witness, what changed, and what hosts do with the hint.
Finding annotation_effect(const std::string& tool, const AnswerChange& change);

}  // namespace ctxo::checks
