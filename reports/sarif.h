// SPDX-License-Identifier: MIT
// The SARIF 2.1.0 log of a run (GitHub code scanning, IDE viewers): one run whose rules are the
// whole invariant registry and whose results are the findings. Valid against the OASIS schema
// vendored in schemas/sarif-2.1.0.schema.json. It renders a finished RunReport; it decides nothing.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/report.h"

namespace ctxo::reports {

/// Where the SARIF log says more about the tool (tool.driver.informationUri).
inline constexpr const char* kInformationUri = "https://github.com/ctxo/ctxo-conform";

/// The SARIF 2.1.0 log of a run (see docs/REPORTS.md):
/// - tool.driver.rules: every registry invariant in registry order (then any unknown id a finding
///   names), with summary, spec reference, fix advice (`help`), default level and family tag;
/// - one result per ReportedFinding: ruleId/ruleIndex, level from its severity, the diagnosis as
///   message, a logical location (the tool as a "function" named "<server>/<tool>", or the server
///   as a "module"), a physical location when the finding names a workspace file (uriBaseId
///   "ROOT", defined in originalUriBaseIds when report.root is set), a partialFingerprint over
///   invariant, tool and diagnosis, and the request, response excerpt, replay and count as
///   properties. A finding accepted by --baseline keeps its level and gets an external
///   suppression;
/// - invocations[0]: executionSuccessful (no report.error), exitCode, the run error and notes as
///   notifications.
/// Every string is valid UTF-8 (invalid bytes become U+FFFD), so dump() never throws.
nlohmann::json to_sarif(const engine::RunReport& report, const std::string& version);

/// The rule name SARIF shows for an invariant id: "TR-HINT" -> "TrHint".
std::string sarif_rule_name(std::string_view id);

}  // namespace ctxo::reports
