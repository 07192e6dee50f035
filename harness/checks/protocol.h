// SPDX-License-Identifier: MIT
// Protocol-layer checks (P-INIT, P-LIST, P-RESULT, P-NO-THROW): pure functions from what the
// server answered to findings. They fill invariant, severity, request, excerpt and diagnosis;
// the engine adds the tool name and the replay command.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/outcome.h"
#include "core/finding.h"
#include "mcp/answer.h"
#include "mcp/client.h"
#include "profile/schema_validator.h"

namespace ctxo::checks {

using nlohmann::json;

/// Validates a JSON value against a schema; returns human-readable errors (empty = valid).
using ValueValidator = std::function<std::vector<std::string>(const json&)>;

/// P-INIT on the reply that completed the handshake.
Outcomes check_init(const mcp::ServerInfo& info);

/// P-INIT when no handshake attempt succeeded: explains each attempt that got a malformed or
/// error answer (timeouts and exits are T-HANG / T-CRASH, reported by the engine). An error the
/// HTTP transport marked as sent with a 5xx (error.data.httpStatus) is T-HTTP-STATUS instead:
/// the server failed, it did not refuse a version.
Outcomes check_failed_init(const std::vector<mcp::Reply>& attempts);

/// P-LIST over every page of tools/list.
Outcomes check_tools_list(const mcp::Client::ToolsListing& listing, const std::string& era);

/// What the checks of one tools/call need to know.
struct CallContext {
  const json* tool = nullptr;          ///< The tool's entry from tools/list.
  bool schema_valid = false;           ///< Arguments validate against the tool's inputSchema.
  ValueValidator output_validator;     ///< Set when the tool declares an outputSchema we could compile.
  std::string era = "legacy";
  /// --strict-error-output: an isError result's structuredContent is held to the outputSchema too,
  /// as strict clients hold it (the TypeScript SDK's 1.x `callTool`: modelcontextprotocol/
  /// typescript-sdk#2748); by default only a success result's is (the spec is silent: #569).
  bool strict_error_output = false;
};

/// A tool's input and output schemas, compiled once, from which the CallContext of each of its
/// calls is made. A schema that is absent or cannot be compiled gives no validator: calls are then
/// not held to P-NO-THROW (input) or checked against an outputSchema (output).
class ToolValidators {
 public:
  /// `input_schema`: the schema to judge arguments by (null = unknown, every call counts as not
  /// schema-valid); the outputSchema is read from `tool` (may be null). Neither is copied (a
  /// listing's schemas can be megabytes): both must outlive this ToolValidators.
  ToolValidators(const json& input_schema, const json* tool);
  /// The context for one call with `arguments`.
  CallContext context(const json* tool, const json& arguments, const std::string& era) const;
  /// True when an input schema was compiled, so it decides whether arguments are valid.
  bool validates_input() const { return input_.has_value(); }
  /// The first way `arguments` break the input schema ("" when they do not, or no schema compiled).
  std::string input_violation(const json& arguments) const;
  /// The compiled input schema (null when none was), for the call generator to share.
  const profile::SchemaValidator* input_validator() const { return input_ ? &*input_ : nullptr; }
  /// Why the input / output schema could not be compiled ("" when it was, or was absent).
  const std::string& input_problem() const { return input_problem_; }
  const std::string& output_problem() const { return output_problem_; }

 private:
  std::optional<profile::SchemaValidator> input_, output_;
  std::string input_problem_, output_problem_;
};

/// P-RESULT and P-NO-THROW for one answered tools/call (reply kind result or error).
Outcomes check_call(const CallContext& ctx, const mcp::Reply& reply);

/// TR-VERBATIM (form cut-splits-character) on an answer whose text part is JSON holding a string
/// cut inside a character (a lone surrogate escape where a string ends or a cut marker stands:
/// mcp::AnswerPart::lone_cut). The same cut in the message itself is the client's observation.
Outcomes check_split_characters(const mcp::Answer& answer);

/// P-ACCEPT and P-REJECT (warnings) for one answered tools/call. P-ACCEPT: a schema-valid call
/// answered with an isError result, or with the profile's error envelope, whose text reads as an
/// input-validation failure (-32602, "invalid arguments", "validation error", zod issue codes,
/// BAD_ARGS, ...). P-REJECT: a call generated invalid (`broken` says what was broken; "" = the call
/// was not generated invalid, or broke only additionalProperties, which SDKs ignore by design: zod
/// and pydantic strip unknown keys) answered with an ordinary success.
/// `envelope_error`: when the answer is the profile's error envelope, its code and message (a
/// rejection, not a success); nullopt otherwise.
Outcomes check_acceptance(const CallContext& ctx, const mcp::Answer& answer, const std::string& broken,
                          const std::optional<std::string>& envelope_error);
Outcomes check_acceptance(const CallContext& ctx, const mcp::Reply& reply, const std::string& broken,
                          const std::optional<std::string>& envelope_error);

/// True when `text` reads as a refusal of the call's input (see check_acceptance).
bool reads_as_input_rejection(std::string_view text);

/// Tool-name rule of SEP-986: 1..128 chars of [A-Za-z0-9_.-].
bool valid_tool_name(const std::string& name);

}  // namespace ctxo::checks
