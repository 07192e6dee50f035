// SPDX-License-Identifier: MIT
#include "checks/registry.h"

#include <algorithm>

namespace ctxo::checks {

const std::vector<InvariantInfo>& registry() {
  static const std::vector<InvariantInfo> kAll = {
      {"T-FRAMING", "transport", Severity::kError,
       "every stdout line is exactly one JSON-RPC 2.0 message, valid UTF-8, no embedded newline, nothing else on stdout",
       "MCP basic/transports §stdio", true},
      {"T-ID", "transport", Severity::kError, "one response per request, carrying the request's id",
       "JSON-RPC 2.0 §5; MCP basic/index", true},
      {"T-HANG", "transport", Severity::kError, "every request is answered within the timeout",
       "MCP basic/lifecycle §Timeouts", true},
      {"T-CRASH", "transport", Severity::kError, "the server stays alive whatever it is sent",
       "MCP basic/lifecycle", true},
      {"T-SHUTDOWN", "transport", Severity::kError, "the server exits after its stdin closes, within a grace period",
       "MCP basic/lifecycle §Shutdown", true},
      {"P-INIT", "protocol", Severity::kError,
       "well-formed initialize (or server/discover) result with a known protocol version",
       "MCP basic/lifecycle §Initialization", true},
      {"P-LIST", "protocol", Severity::kError,
       "tools/list well-formed: unique names, object input schemas, pagination terminates", "MCP server/tools", true},
      {"P-RESULT", "protocol", Severity::kError,
       "CallToolResult well-formed: typed content blocks, boolean isError, structuredContent valid against outputSchema",
       "MCP server/tools §Tool Result", true},
      {"P-NO-THROW", "protocol", Severity::kError,
       "a schema-valid call never gets a JSON-RPC error; no call gets -32603, a crash or a hang",
       "MCP server/tools §Error Handling", true},
      {"P-ACCEPT", "protocol", Severity::kWarning,
       "a schema-valid call is not answered with an input-validation error", "SPEC §3", false},
      {"P-REJECT", "protocol", Severity::kWarning, "a schema-invalid call is not answered with an ordinary success",
       "SPEC §3", false},
      {"E-PARSE", "envelope", Severity::kError, "the envelope is one JSON object in one text part", "SPEC §2", true},
      {"E-SCHEMA", "envelope", Severity::kError, "the envelope validates against the profile's schema", "SPEC §2",
       true},
      {"E-STABLE", "envelope", Severity::kError, "the same call twice gives the same hint strings and payload",
       "seed 000 §Truncation", true},
      {"E-MISS", "envelope", Severity::kError, "a lookup of something absent is a graceful miss, not an error",
       "seed 000 §Graceful miss", true},
      {"E-ERROR", "envelope", Severity::kError, "errors have the profile's shape and a stable code", "seed 001 §Errors",
       true},
      {"E-HINT-REF", "envelope", Severity::kError,
       "a hint names only tools, parameters and flags that exist", "SPEC §3", true},
      {"TR-HINT", "truncation", Severity::kError, "truncated implies a non-empty hint", "seeds 000/001/003/004",
       true},
      {"TR-COUNT", "truncation", Severity::kError,
       "counts tell the truth: returned = array length, total >= returned, truncated iff returned < total",
       "seeds 000/003/004", true},
      {"TR-CAP", "truncation", Severity::kError, "the serialised envelope fits the limit", "seeds 000/003/004", true},
      {"TR-BYTES", "truncation", Severity::kError, "reported sizes are UTF-8 byte counts of what they describe",
       "seed 000 §_meta", true},
      {"TR-ENV", "truncation", Severity::kError, "the limit override in the environment is honoured",
       "seeds 000/003", true},
      {"TR-PREFIX", "truncation", Severity::kError, "a truncated array is a prefix of the untruncated one",
       "seed 000 §Truncation", true},
      {"TR-MAXIMAL", "truncation", Severity::kError, "the truncated array is the largest prefix that fits",
       "seed 000 §Truncation", true},
      {"TR-VERBATIM", "truncation", Severity::kError, "under the limit the payload is complete and not truncated",
       "seed 000 §Truncation", true},
      {"TR-RESUME", "truncation", Severity::kError,
       "following the hint or cursor returns the items right after the prefix", "seed 003", true},
      {"B-USED", "budget", Severity::kError, "used <= requested", "seed 001 §Token budgets", true},
      {"B-CLAMP", "budget", Severity::kError, "requested = clamp(argument or default, min, max)",
       "seed 001 §Token budgets", true},
      {"B-ESTIMATE", "budget", Severity::kError, "used agrees with ceil(chars/4) within the tolerance",
       "seed 001 §Token budgets", true},
      {"POS-BASE", "positions", Severity::kError, "line >= 1, col >= 1, endLine >= line", "seed 001 §Positions",
       true},
      {"POS-PATH", "positions", Severity::kError, "file paths are repo-relative with / separators",
       "seed 001 §Positions", true},
      {"POS-UTF16", "positions", Severity::kError,
       "with --root: positions exist and columns count UTF-16 code units", "seed 001 §Positions", true},
  };
  return kAll;
}

const InvariantInfo* find_invariant(std::string_view id) {
  for (const auto& inv : registry())
    if (inv.id == id) return &inv;
  return nullptr;
}

Selection::Selection(std::vector<std::string> only, std::vector<std::string> skip)
    : only_(std::move(only)), skip_(std::move(skip)) {}

bool Selection::enabled(std::string_view id) const {
  if (std::find(skip_.begin(), skip_.end(), id) != skip_.end()) return false;
  return only_.empty() || std::find(only_.begin(), only_.end(), id) != only_.end();
}

}  // namespace ctxo::checks
