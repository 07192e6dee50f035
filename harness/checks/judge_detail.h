// SPDX-License-Identifier: MIT
// Inside the judge (not installed; included by checks/judge*.cpp only): how an answer is read for
// coverage, and how an invalid call's refusal is named, shared by the judge's files.
#pragma once

#include <map>
#include <string>

#include "checks/envelope.h"
#include "checks/outcome.h"
#include "mcp/answer.h"
#include "profile/profile.h"

namespace ctxo::checks::judge_detail {

inline std::string quote(const std::string& s) { return "`" + s + "`"; }

/// How an invalid call was refused outside the envelope, as a cause (one design choice, one
/// finding: the same on every tool, whatever the refusal's text quoted).
std::map<std::string, std::string> refusal_cause(const mcp::Answer& a);
/// How an invalid call was refused outside the envelope, said so the author can act on it.
std::string refusal_diagnosis(const mcp::Answer& a, const profile::Profile& p);
/// What an answer reached, from its envelope when it was judged as one, else from its shape.
Reach reach_of(const mcp::Answer& a, const ParsedEnvelope& env, bool valid);

}  // namespace ctxo::checks::judge_detail
