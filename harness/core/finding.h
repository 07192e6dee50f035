// SPDX-License-Identifier: MIT
// Finding: one broken rule, with the evidence a person needs to reproduce and understand it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace ctxo {

enum class Severity { kError, kWarning };

inline const char* to_string(Severity s) { return s == Severity::kError ? "error" : "warning"; }

/// A server broke an invariant. Findings are data, never exceptions or Errors.
struct Finding {
  std::string invariant;         ///< Stable id from SPEC.md §3, e.g. "TR-HINT".
  std::string tool;              ///< Tool name, or "" for server-level findings (handshake, list).
  /// The server's cause, not one tool's (lines on stdout that are not JSON-RPC): reported once
  /// with tool "", never given the tool of the request it was seen during.
  bool server_level = false;
  Severity severity = Severity::kError;
  nlohmann::json request;        ///< The exact JSON-RPC request that triggered it (null if none).
  std::string response_excerpt;  ///< At most a few hundred bytes of what the server sent.
  std::string diagnosis;         ///< Plain English: what was promised and what happened.
  std::string replay;            ///< One-line command that re-runs this case (may be empty).
  /// A workspace file the finding points at (POS-* findings), relative to --root; "" = none.
  std::string file;
  std::int64_t line = 0;         ///< 1-based line in `file` (0 = unknown).
  std::int64_t column = 0;       ///< 1-based column in UTF-16 code units (0 = unknown).
  /// The server's environment overrides in effect when it answered (a limit sweep sets one).
  std::map<std::string, std::string> env;
  /// How the call was generated: "boundary", "random", "invalid", "miss" ("" = not a generated call).
  std::string phase;
  std::string case_label;        ///< What the generated call was, e.g. "'limit' maximum".
  /// The envelope profile the answer was judged by, when one was ("ctxo", ..., or "generic" for the
  /// generic reading of an answer no profile matched); "" = none (transport, protocol, host).
  std::string profile;
  /// The request as first generated, when shrinking found a smaller one (`request`); null otherwise.
  nlohmann::json original_request;
  std::size_t shrink_steps = 0;  ///< Smaller calls that still failed on the way to `request`.
  /// What identifies the defect, as facts that do not depend on the server's free text or on the
  /// values a seed generated: {"code": "-32603"}, {"form": "refused-without-iserror"}, {"host":
  /// "claude-code"}, {"validity": "invalid"}. Findings of one invariant with the same cause on
  /// one tool are one finding. Empty: the cause is read from the diagnosis, with numbers, the
  /// call's own values and quoted server text left out (engine::cause_of).
  std::map<std::string, std::string> cause;
  /// For a finding that depends on the server's state (T-SHUTDOWN): the tools/call requests made
  /// on that server instance before it, in order, which `replay` makes again first. Null = none.
  nlohmann::json sequence;
  /// For a finding made with several requests in flight at once (P-CONCURRENT, and a T-ID,
  /// T-HANG or T-CRASH met then): the tools/call requests sent together, in the order sent, which
  /// `replay` sends together again. Null = none.
  nlohmann::json batch;
};

}  // namespace ctxo
