// SPDX-License-Identifier: MIT
// A short-lived helper command run to its end (Universal Ctags for the workspace scan; git and
// bwrap for the sandbox): its stdout captured, bounded in size and in time, the child always
// reaped.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ctxo::transport {

struct CommandOptions {
  std::string cwd;                     ///< Where it runs ("": here).
  std::chrono::milliseconds limit{5000};  ///< Killed (its process group) past this long in all.
  std::size_t max_output = 1u << 20;   ///< Killed once its stdout is longer than this.
  bool with_stderr = false;            ///< Its stderr captured with its stdout (else /dev/null).
};

/// What running a command came to.
struct CommandResult {
  bool started = false;          ///< It was forked (false: no pipe or no fork).
  std::optional<int> exit_code;  ///< Its exit code when it exited by itself (not killed, not signalled).
  bool timed_out = false;        ///< Killed at CommandOptions::limit.
  bool too_long = false;         ///< Killed for writing more than CommandOptions::max_output.
  std::string output;            ///< Its stdout (cut at max_output when too_long).
};

/// Runs `argv` (argv[0] a path: not looked up on PATH) in a process group of its own, stdin
/// /dev/null, its stdout captured (and its stderr, `with_stderr`; else /dev/null); past `o.limit`, or once it has written more than
/// `o.max_output` bytes, its process group is killed. The child is reaped before this returns,
/// whatever happens. An exec that fails (or a `cwd` it cannot enter) is exit code 127.
CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& o);

}  // namespace ctxo::transport
