// SPDX-License-Identifier: MIT
// The CI-gate side of a finished run: a known-failures baseline (accepted findings do not fail
// the gate; entries that no longer fail are reported) and the merge of shard reports into one.
// Pure functions over RunReport; no process, no file format beyond the baseline file.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "engine/report.h"

namespace ctxo::engine {

/// Reads a baseline: either `{"accepted": [{"invariant": "TR-HINT", "tool": "search",
/// "cause": "0123456789abcdef", "reason": "..."}]}` (tool "" = server-level, "*" and "?" globs
/// allowed; cause optional, a finding's cause id) or a ctxo-conform JSON report, whose findings
/// become the entries (with their causes). Errors ("usage"): unreadable, not JSON, neither
/// shape, or an entry naming an unknown invariant id.
Result<std::vector<BaselineEntry>> load_baseline(const std::string& path);

/// Marks the findings a baseline entry matches as baselined (same invariant and, when the entry
/// names one, the same cause; tool matching the entry's glob, or listed by a server-level finding:
/// with a cause, one listed tool is enough; without, every listed tool must be accepted), lists in baseline_stale the entries that matched nothing although their tool was
/// called in this run (or, for tool "", the server was), and settles the verdict again.
void apply_baseline(RunReport& report, const std::vector<BaselineEntry>& baseline);

/// verdict and exit_code from error / error_count(): "error" keeps its exit code (2 or 3),
/// otherwise 1 when an error finding is not baselined, else 0.
void settle_verdict(RunReport& report);

/// Merges shard reports of one run (same seed and server command) into the report the unsharded
/// run would give: tools from the shard that ran them, findings de-duplicated (server-level ones
/// are seen by every shard), counters summed, duration the longest shard's. Errors ("usage"):
/// no report, or reports of different seeds or servers.
Result<RunReport> merge_reports(const std::vector<RunReport>& shards);

}  // namespace ctxo::engine
