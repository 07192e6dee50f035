// SPDX-License-Identifier: MIT
// The Markdown report (GitHub-flavoured, sized for $GITHUB_STEP_SUMMARY): verdict heading, run
// facts, the tool x invariant table, findings with collapsible evidence, the baseline's state.
#pragma once

#include <string>

#include "engine/report.h"

namespace ctxo::reports {

/// The Markdown report of a run. All server-provided text is escaped for where it lands (table
/// cell, code span, fenced block, HTML <summary>). The evidence blocks of later findings are
/// left out once the text nears GitHub's 1 MiB step-summary limit (the JSON report has them).
std::string to_markdown(const engine::RunReport& report, const std::string& version);

}  // namespace ctxo::reports
