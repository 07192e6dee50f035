// SPDX-License-Identifier: MIT
// Case files: every finding of a run written as one JSON file that `ctxo-conform replay` re-runs
// against the server (schemas/case.schema.json). A case holds the (shrunk) request, the call as
// first generated, and what is needed to start the same server the same way.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/redact.h"
#include "core/result.h"
#include "engine/options.h"
#include "engine/report.h"

namespace ctxo::engine {

/// A case file, read back.
struct Case {
  nlohmann::json doc;    ///< The whole file.
  std::string invariant, tool, diagnosis;
  RunOptions options;    ///< Ready to run: command, env, cwd, protocol, profile, timeout, root, seed, replay.
};

/// The case document of one finding of `report`, made by a run with `options`; with a
/// `redactor`, every string of it scrubbed (the run's env and command come from `options`).
nlohmann::json case_json(const ReportedFinding& finding, const RunReport& report, const RunOptions& options,
                         const core::Redactor* redactor = nullptr);

/// The file name of a finding's case: INVARIANT-TOOL-HASH.json (the hash of invariant, tool and
/// diagnosis, so a run with the same findings writes the same names). With a `redactor`, a name
/// that would still hold a secret names the tool "tool".
std::string case_file_name(const Finding& finding, const core::Redactor* redactor = nullptr);

/// Writes a case file per finding into `dir` (created when missing) and records each path in
/// ReportedFinding::case_file. With a `redactor`, no secret is in a file or its name (pass the
/// report already scrubbed: the names come from its tools and diagnoses). Error "io" naming the path.
Result<void> write_cases(RunReport& report, const RunOptions& options, const std::string& dir,
                         const core::Redactor* redactor = nullptr);

/// Reads and validates a case file. Errors: "usage" (unreadable, not JSON, not a case file).
Result<Case> load_case(const std::string& path);

}  // namespace ctxo::engine
