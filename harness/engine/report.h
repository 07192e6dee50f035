// SPDX-License-Identifier: MIT
// The report model: what a run (live, or `check` over a transcript) found, per tool and for the
// server, and the pure functions that build it (finding keys, merging one root cause, publishing
// statuses and coverage). Report writers, the gate, case files and transcripts include this, not
// the run loop.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/hosts.h"
#include "checks/outcome.h"
#include "checks/registry.h"
#include "core/finding.h"
#include "core/result.h"
#include "engine/changes.h"

namespace ctxo::engine {

/// Per-tool outcome.
struct ToolSummary {
  std::string name;
  bool read_only = false;
  bool selected = true;
  std::size_t calls = 0;
  std::size_t findings = 0;
  std::chrono::milliseconds elapsed{0};  ///< Time spent in this tool's calls.
  std::string skipped;  ///< Why calls stopped early ("" = all made).
  /// Its class when the run had no sandbox and it was not called for safety ("" = called, or a
  /// sandbox: engine/safety.h's danger_key).
  std::string skipped_for_safety;
  /// The files of the project its calls created, changed or deleted (in the sandbox's copy, or
  /// the project itself without one).
  FileChanges changes;
  /// Invariant ids exercised on this tool's answers (passed or failed), in registry order.
  /// Server-level ids (T-SHUTDOWN, P-INIT, P-LIST) are in RunReport::server_invariants.
  std::vector<std::string> invariants;
  /// Every selected invariant's status on this tool (absent = not applicable), as its checks
  /// reported it; failed exactly when a finding of that id names this tool.
  std::map<std::string, checks::Status> outcomes;
  /// Why each not-observed invariant was not observed ("no answer was truncated").
  std::map<std::string, std::string> not_observed;
  std::string profile;         ///< The envelope profile its answers were judged by ("" = none).
  std::string profile_reason;  ///< Why that one (forced, detected, held to the server's).
  std::size_t successes = 0;   ///< Calls answered with a result that is not isError.
  checks::Coverage coverage;   ///< What its calls reached (the judge's count).
  /// Calls made by the second pass (tools that reached no data on the first, called again with
  /// the values harvested since) and by driving a budget/limit parameter small.
  std::size_t second_pass_calls = 0, driven_calls = 0;
  /// Its largest answer and how close it came to each selected host's limits (none when no host
  /// is selected or no call was answered).
  std::optional<checks::LargestAnswer> largest;
};

/// A finding plus how often it recurred: one root cause (same invariant and cause, see cause_of,
/// on one tool) is one finding; the same cause on most tools is one server-level finding (tool "")
/// listing them (group_server_level).
struct ReportedFinding {
  Finding finding;
  std::size_t count = 1;
  bool baselined = false;  ///< Listed in --baseline: reported, but does not fail the gate.
  std::string case_file;   ///< The case file written for it ("" = none).
  std::vector<nlohmann::json> examples;  ///< A few other requests with the same cause (at most 3).
  /// The tools it was seen on, sorted: the finding's own, or for a server-level one those whose
  /// calls showed it (empty: none, e.g. the handshake).
  std::vector<std::string> tools;
};

/// A --baseline entry (invariant + tool; tool "" = server-level), optionally naming a cause
/// (cause_id): then it accepts that cause wherever it is reported (on the tool, or a server-level
/// finding listing the tool; tool "" = on any tool).
struct BaselineEntry {
  BaselineEntry() = default;
  BaselineEntry(std::string inv, std::string t, std::string c = "")
      : invariant(std::move(inv)), tool(std::move(t)), cause(std::move(c)) {}
  std::string invariant;
  std::string tool;
  std::string cause;  ///< A cause_id ("" = any cause of the invariant).
};

/// A run's verdict: pass (no error finding, and every selected tool reached data), partial (no
/// error finding, but some selected tools reached no data: what they promise was not tested),
/// fail, untested (no call was made, or no answer carried data: nothing was exercised), error
/// (the run could not complete), interrupted (stopped by a signal before any error was found; a
/// run stopped after one is fail).
enum class Verdict { kPass, kPartial, kFail, kUntested, kError, kInterrupted };

/// The readings of answers no envelope profile matched, most structured first, as every report
/// says them: "JSON 534 answers, JSON+Markdown 12, Markdown 39" ("" when there were none).
std::string generic_readings_text(const std::map<std::string, std::size_t>& readings);

/// The verdict as the reports spell it: "pass", "partial", "fail", "untested", "error", "interrupted".
const char* to_string(Verdict v);
/// The verdict as a heading shows it: "PASS", "FAIL", ...
const char* verdict_word(Verdict v);
/// The verdict a report's word names; nullopt for any other word.
std::optional<Verdict> parse_verdict(std::string_view word);

/// The exit codes of docs/reference/exit-codes.md. A run stopped by a signal exits 128 + its number.
enum class ExitCode : int {
  kPass = 0,      ///< Conformant: no error finding outside the baseline.
  kFail = 1,      ///< An error finding.
  kUsage = 2,     ///< A bad flag or configuration; a report we could not write.
  kServer = 3,    ///< The server could not be started or initialised.
  kUntested = 4,  ///< No tool reached data (or `partial` below --require-coverage).
};
constexpr int code(ExitCode c) { return static_cast<int>(c); }
constexpr int interrupted_exit_code(int signal) { return 128 + signal; }

/// What a run found.
/// The workspace scanned for values (--root DIR, else --cwd DIR; not with --no-harvest).
struct WorkspaceSummary {
  std::string dir;               ///< Absolute.
  std::size_t files = 0, directories = 0, identifiers = 0, declared = 0, positions = 0, snippets = 0;
  std::string source;            ///< Where the declared names came from: "ctags" or "tokenizer".
};

struct RunReport {
  Verdict verdict = Verdict::kPass;
  int interrupted = 0;             ///< The signal that stopped the run (SIGINT, SIGTERM, SIGHUP); 0 = none.
  /// What the run was doing when it was last seen ("starting the server", "listing the tools",
  /// "calling the tools", "concurrent batches", "annotations", "the limit sweep", "settling and
  /// shrinking"):
  /// an interrupted report says which phase the signal stopped.
  std::string phase;
  std::optional<Error> error;      ///< Set when the run could not be completed (exit 2/3).
  int exit_code = 0;               ///< An ExitCode, or interrupted_exit_code().
  std::uint64_t seed = 0;
  std::vector<std::string> command;
  std::string url;                  ///< The Streamable HTTP server's URL ("" = stdio).
  std::vector<std::string> header_names;  ///< --header names (values are never reported).
  std::map<std::string, std::string> env;
  std::string cwd;
  std::string server_name, server_version, protocol_version, era;
  std::string profile = "auto";
  std::vector<ToolSummary> tools;
  std::vector<ReportedFinding> findings;
  std::vector<std::string> notes;
  std::vector<std::string> invariants_checked;
  std::vector<std::string> server_invariants;  ///< Server-level ids checked (handshake, list, shutdown).
  std::map<std::string, checks::Status> server_outcomes;  ///< Their statuses.
  std::size_t successes = 0;  ///< tools/call answers that were results without isError.
  std::vector<BaselineEntry> baseline_stale;   ///< Baseline entries that no longer fail: remove them.
  std::optional<std::string> root;             ///< --root, when given.
  /// The sandbox the server ran in, in one line ("" = none: see `no_sandbox`).
  std::string sandbox;
  /// Why there was none ("" when there was one, or no server was started by the run).
  std::string no_sandbox;
  /// Files the server changed outside any tool's calls (when it started, between phases).
  FileChanges other_changes;
  std::optional<WorkspaceSummary> workspace;   ///< The workspace whose values calls were offered.
  std::map<std::string, std::size_t> profiles_detected;  ///< Envelope profile -> answers seen.
  std::size_t unprofiled_results = 0;                    ///< Results that matched no profile.
  /// Of those, results per generic reading ("json", "json+markdown", "fenced-json", "markdown", "prose").
  std::map<std::string, std::size_t> generic_readings;
  std::size_t calls = 0, restarts = 0, notifications = 0, server_requests = 0;
  std::size_t shrink_calls = 0;  ///< Calls made while shrinking findings (included in `calls`).
  std::size_t harvested = 0;     ///< Values harvested from answers and pooled for later calls.
  std::size_t sweep_runs = 0;  ///< Server starts for the limit sweep and hint following (not restarts).
  std::chrono::milliseconds duration{0};
  std::string stderr_tail;
  std::string started_at;  ///< ISO 8601 UTC.
  /// --require-coverage: the share of selected tools (percent, 100 = all) that must reach data;
  /// a `partial` run below it exits 4. Unset: `partial` exits 0.
  std::optional<double> require_coverage;
  std::size_t error_count() const;    ///< Error findings not accepted by the baseline.
  /// Selected tools, and those of them that reached data (an answer that carries data).
  std::size_t selected_count() const;
  std::size_t reached_count() const;
  std::size_t warning_count() const;  ///< Warning findings not accepted by the baseline.
  std::size_t baselined_count() const;
};

/// The facts that identify a finding's defect: the check's Finding::cause, else the diagnosis
/// normalised ("text": numbers, tokens with digits, the call's own argument values, quoted server
/// text of several words and "(this call: ...)" each left out as one mark; an HTTP status or a
/// JSON-RPC error code stays). Never the server's free text or our generated values.
std::map<std::string, std::string> cause_of(const Finding& f);

/// The cause as one string: invariant and cause_of's facts. Equal for one defect across seeds.
std::string cause_key(const Finding& f);

/// The cause as a short stable id: 16 hex digits of FNV-1a of cause_key (reports, baselines).
std::string cause_id(const Finding& f);

/// What makes two findings the same one: cause_key and tool (one defect on answers of many
/// sizes, or quoting many different inputs, is one finding).
std::string finding_key(const Finding& f);

/// "on 4 tools: a, b, c, d" for a finding seen on several tools or a server-level one listing its
/// tools ("" when it lists none, or only its own tool). At most 20 names, then "and N more".
std::string tools_phrase(const ReportedFinding& rf);

/// The same cause on most tools is the server's: findings with one cause_key on at least 3 tools
/// and at least half of the tools called become one server-level finding (tool ""), with their
/// counts summed, the tools listed and up to 3 examples; a server-level finding with that cause
/// absorbs the per-tool ones whatever their number. Keeps the report's order (the group takes its
/// first member's place) and recounts each row's findings. Idempotent.
void group_server_level(RunReport& report);

/// Copies per-tool outcomes ("" = the server itself) into ToolSummary::outcomes / invariants and
/// RunReport::server_outcomes / server_invariants, keeping only ids `selection` enables. A status
/// is failed exactly when a finding of that id names the tool; a check that reported a failure
/// whose finding was not kept (a shrink candidate's) counts as passed.
void publish_outcomes(RunReport& report, const std::map<std::string, checks::Outcomes>& outcomes,
                      const checks::Selection& selection);

/// Copies each tool's coverage into `report.tools`; for each selected tool that was called but
/// reached no data, appends "; 0/N calls reached data" to the reason of every invariant it left
/// not observed (call after publish_outcomes) and returns a note saying so, with `why_none`.
std::vector<std::string> publish_coverage(RunReport& report, const std::map<std::string, checks::Coverage>& coverage,
                                          const std::string& why_none);

/// Adds `f` to `report`, merging it into an earlier finding with the same key (its count grows,
/// its request joins the examples). Returns true when it was new.
bool merge_finding(RunReport& report, std::map<std::string, std::size_t>& index, Finding f);

}  // namespace ctxo::engine
