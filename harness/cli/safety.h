// SPDX-License-Identifier: MIT
// The run's safety, from the command line: --sandbox, --no-sandbox and --allow-destructive, the
// sandbox made before the server starts (run and replay alike), and the line that says so.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/result.h"
#include "engine/options.h"
#include "engine/report.h"

namespace ctxo::cli {

struct SafetyFlags {
  std::string sandbox = "auto";  ///< auto | require | offline
  bool no_sandbox = false;
  std::vector<std::string> allow_destructive;
};

/// Adds --sandbox, --no-sandbox and --allow-destructive to `app`.
void add_safety_options(CLI::App& app, SafetyFlags& flags);

/// Makes the sandbox `o`'s server will run in (o.sandbox), or says why there is none
/// (o.no_sandbox), from the flags and o.command/cwd/root/url. Errors ("usage"): a bad flag
/// value, or a sandbox required (require, offline) that cannot be made.
Result<void> apply_safety(const SafetyFlags& flags, engine::RunOptions& o);

/// One line for the console before the server starts: the sandbox in use, or that there is none
/// and what that means ("" when the run starts no server).
std::string safety_banner(const engine::RunOptions& o);

/// The note naming the tools a run without a sandbox did not call and how to call them, for a
/// quiet console (-q prints no notes): "" when none was skipped. -q quiets the run's progress,
/// not what it left untested for safety.
std::string quiet_safety_note(const engine::RunReport& report);

}  // namespace ctxo::cli
