// SPDX-License-Identifier: MIT
// Case files: every finding of a run written as one JSON file that `ctxo-conform replay` re-runs
// against the server (schemas/case.schema.json). A case holds the (shrunk) request, the call as
// first generated, and what is needed to start the same server the same way.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

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

/// The case document of one finding of `report`, made by a run with `options`.
nlohmann::json case_json(const ReportedFinding& finding, const RunReport& report, const RunOptions& options);

/// The file name of a finding's case: INVARIANT-TOOL-HASH.json (the hash of invariant, tool and
/// diagnosis, so a run with the same findings writes the same names).
std::string case_file_name(const Finding& finding);

/// Writes a case file per finding into `dir` (created when missing) and records each path in
/// ReportedFinding::case_file. Error "io" naming the path.
Result<void> write_cases(RunReport& report, const RunOptions& options, const std::string& dir);

/// Reads and validates a case file. Errors: "usage" (unreadable, not JSON, not a case file).
Result<Case> load_case(const std::string& path);

}  // namespace ctxo::engine
