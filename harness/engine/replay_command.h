// SPDX-License-Identifier: MIT
// The one-line command that replays a finding: the exact bytes to send, then the server command,
// for any POSIX shell: a pipe into a stdio server, or curl POSTs to a Streamable HTTP server.
// Pure functions of what the run knows; golden-tested (tests/unit/engine/replay_command_test.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctxo::engine {

/// The server a replay reaches.
struct ReplayTarget {
  std::vector<std::string> command;       ///< argv of the server (with `url`: the command that starts it, or empty).
  std::string cwd;                        ///< Its working directory ("" = the caller's).
  std::string url;                        ///< A Streamable HTTP server's URL ("" = stdio).
  std::vector<std::string> header_names;  ///< --header names: sent with the value "<redacted>".
  /// The run's server ran in the sandbox: the line runs it under bwrap too, in its own PID
  /// namespace with the whole file system read-only (its writes fail; `ctxo-conform replay`
  /// gives it the run's sandbox, with a copy of the project).
  bool sandboxed = false;
};

/// The bwrap prefix of a sandboxed replay line, up to and including "--".
inline constexpr const char* kReplaySandbox =
    "bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-pid --unshare-ipc --die-with-parent --";

/// The server command with `env`, in its working directory.
std::string launch_command(const ReplayTarget& target, const std::map<std::string, std::string>& env);

/// The replay of `request` (null: none, only the prelude and `sequence`) under `env`:
/// `prelude` (the handshake's lines, exact), then `sequence` (a state-carrying finding's earlier
/// calls: an array, or null), then the request. Over HTTP the session id the first answer gives
/// is sent with the others, and `negotiated` (the protocol version) after the handshake.
std::string replay_command(const ReplayTarget& target, const std::vector<std::string>& prelude,
                           const std::string& negotiated, const nlohmann::json& request,
                           const std::map<std::string, std::string>& env,
                           const nlohmann::json& sequence = nlohmann::json());

}  // namespace ctxo::engine
