// SPDX-License-Identifier: MIT
// The report files a command writes (--json, --junit, --sarif, --markdown, --html): the options,
// their checks before anything runs, and writing them. Shared by the run, `check` and `merge`.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "core/redact.h"
#include "core/result.h"
#include "engine/report.h"

namespace ctxo::cli {

struct Outputs {
  std::string json, junit, sarif, markdown, html;  ///< Paths; "" = not written, "-" = stdout.

  /// Adds the five report options to `app`.
  void add_options(CLI::App& app);
  /// How many reports go to stdout (the console then moves to stderr).
  int to_stdout() const;
  /// Checked before a server starts: at most one '-', every path writable. Error "usage".
  Result<void> check() const;
  /// Removes the report files an earlier run left at these paths, so a run that stops before it
  /// writes its own (killed, interrupted) leaves no stale verdict for CI to publish. For a live run
  /// or replay only, after --baseline is read (`check` and `merge` may read the same paths).
  void remove_stale() const;
  /// Renders and writes every requested report. Error "io" naming the path. With a `redactor`
  /// (pass the report already scrubbed: cli::scrub_report), each rendered text is scrubbed once
  /// more as written: a secret that only rendering put together (text of two fields side by side)
  /// does not leave either.
  Result<void> write(const engine::RunReport& report, const std::string& version,
                     const core::Redactor* redactor = nullptr) const;
};

}  // namespace ctxo::cli
