// SPDX-License-Identifier: MIT
// The run loop: spawn, handshake, list, call, check, restart after a crash or hang, shut down.
// It emits events to a Listener and returns a RunReport; it knows no report format.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/hosts.h"
#include "checks/outcome.h"
#include "checks/registry.h"
#include "core/finding.h"
#include "core/redact.h"
#include "core/result.h"
#include "profile/profile.h"

namespace ctxo::engine {

using nlohmann::json;

/// `ctxo-conform replay`: one recorded call instead of generated ones.
struct ReplayCall {
  std::string tool;
  json arguments = json::object();
  bool as_miss = false;  ///< The call is an E-MISS lookup (judged as a graceful miss).
  /// Calls made first, in order, on the same server instance (a state-carrying case: T-SHUTDOWN).
  std::vector<std::pair<std::string, json>> sequence;  ///< (tool, arguments)
};

/// Everything a run needs; filled from the command line.
struct RunOptions {
  std::vector<std::string> command;           ///< argv of the server (with `url`: the command that starts it, or empty).
  /// --url: a Streamable HTTP server ("" = the command is a stdio server). Without a command the
  /// server is not ours to restart: a crash is the server going away, and the limit sweep (other
  /// environments) is skipped.
  std::string url;
  /// --header K:V: sent with every HTTP request (credentials); reports print "<redacted>" for their values.
  std::vector<std::pair<std::string, std::string>> headers;
  std::map<std::string, std::string> env;     ///< Extra environment.
  std::string cwd;                            ///< Server working directory ("" = ours).
  std::string protocol;                       ///< Forced protocol version ("" = negotiate).
  std::string profile = "auto";
  std::chrono::milliseconds timeout{10000};   ///< Per request.
  std::chrono::milliseconds grace{2000};      ///< Shutdown grace after closing stdin.
  std::uint64_t seed = 0;
  std::size_t calls_per_tool = 0;             ///< 0 = sized per tool (gen::phase_sizes).
  bool shrink = true;                         ///< Shrink each failing generated call.
  std::size_t max_shrink_calls = 200;         ///< Candidate calls per shrink.
  /// --shrink-budget: the time one shrink may take; past it the smallest reproduction found so far
  /// is the finding, and the run says so.
  std::chrono::milliseconds shrink_budget{60000};
  /// --tool-budget: the time one tool's calls may take (0 = no limit); past it the tool's
  /// remaining generated calls are not made, and the run says so.
  std::chrono::milliseconds tool_budget{60000};
  std::optional<ReplayCall> replay;           ///< Set by `replay`: make only this call.
  std::optional<double> time_budget_s;        ///< Stop generating calls after this many seconds.
  checks::Selection selection;
  std::vector<std::string> tool_globs, exclude_globs;
  bool read_only = false;
  std::size_t max_message_bytes = 64u << 20;
  int shard_index = 0, shard_count = 1;       ///< 0-based shard of shard_count.
  /// --jobs: servers run at once, each calling its share of a phase's tools (at most one per
  /// tool). The calls, findings and reports are the same for any value with the same seed.
  std::size_t jobs = 1;
  std::size_t max_restarts = 20;
  std::optional<std::string> root;            ///< --root: workspace for POS-UTF16.
  std::vector<std::int64_t> limits;           ///< --limits: sweep limits (empty = the profile's).
  bool envelope_repeat = true;                ///< E-STABLE: call each tool's first case twice.
  /// Feed values harvested from answers to later calls, and make the second pass (--no-harvest:
  /// false; schema hints and budget parameters driven small stay).
  bool harvest = true;
  std::string record_path;                    ///< --record: write every exchange as a transcript.
  /// --allow-remote-urls: send a schema's default/example URLs to hosts other than loopback.
  bool allow_remote_urls = false;
  /// --host: the host profiles for H-* checks ("" = the defaults, "none" = none; see profile::load_hosts).
  std::string host;
  /// The credentials to scrub from what the run writes itself while it runs (the --record
  /// transcript); null = none. The CLI scrubs the report, the console and case files with it.
  std::shared_ptr<const core::Redactor> redactor;
};

/// Per-tool outcome.
struct ToolSummary {
  std::string name;
  bool read_only = false;
  bool selected = true;
  std::size_t calls = 0;
  std::size_t findings = 0;
  std::chrono::milliseconds elapsed{0};  ///< Time spent in this tool's calls.
  std::string skipped;  ///< Why calls stopped early ("" = all made).
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

/// A finding plus how often it recurred: one root cause (same invariant, tool and diagnosis
/// template, see finding_key) is one finding.
struct ReportedFinding {
  Finding finding;
  std::size_t count = 1;
  bool baselined = false;  ///< Listed in --baseline: reported, but does not fail the gate.
  std::string case_file;   ///< The case file written for it ("" = none).
  std::vector<nlohmann::json> examples;  ///< A few other requests with the same cause (at most 3).
};

/// A --baseline entry (invariant + tool; tool "" = server-level).
struct BaselineEntry {
  std::string invariant;
  std::string tool;
};

/// What a run found. verdict: "pass" | "fail" | "untested" (no call was made, or every call was
/// answered with an error: nothing was exercised) | "error" | "interrupted" (stopped by a signal
/// before any error was found; a run stopped after one is "fail").
struct RunReport {
  std::string verdict = "pass";
  int interrupted = 0;             ///< The signal that stopped the run (SIGINT, SIGTERM, SIGHUP); 0 = none.
  std::optional<Error> error;      ///< Set when the run could not be completed (exit 2/3).
  int exit_code = 0;
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
  std::map<std::string, std::size_t> profiles_detected;  ///< Envelope profile -> answers seen.
  std::size_t unprofiled_results = 0;                    ///< Results that matched no profile.
  std::size_t calls = 0, restarts = 0, notifications = 0, server_requests = 0;
  std::size_t shrink_calls = 0;  ///< Calls made while shrinking findings (included in `calls`).
  std::size_t harvested = 0;     ///< Values harvested from answers and pooled for later calls.
  std::size_t sweep_runs = 0;  ///< Server starts for the limit sweep and hint following (not restarts).
  std::chrono::milliseconds duration{0};
  std::string stderr_tail;
  std::string started_at;  ///< ISO 8601 UTC.
  std::size_t error_count() const;    ///< Error findings not accepted by the baseline.
  std::size_t warning_count() const;  ///< Warning findings not accepted by the baseline.
  std::size_t baselined_count() const;
};

/// Receives progress as the run goes. All methods have empty defaults.
class Listener {
 public:
  virtual ~Listener() = default;
  virtual void on_started(const RunReport& report) {}
  virtual void on_tools(const std::vector<ToolSummary>& tools) {}
  virtual void on_tool(const ToolSummary& tool, std::size_t index, std::size_t total) {}
  virtual void on_call(const ToolSummary& tool, std::size_t calls_total) {}
  virtual void on_finding(const Finding& finding) {}
  virtual void on_note(const std::string& note) {}
};

/// The envelope profiles a run uses: --profile auto gives every built-in envelope profile as a
/// candidate; a name or file gives one forced profile; "none" gives neither.
struct ProfileSet {
  std::vector<profile::Profile> candidates;
  std::optional<profile::Profile> forced;
  std::string problem;  ///< Set when auto could not load the built-ins (envelope checks off).
};

/// Loads the profiles for `--profile VALUE`. Errors ("usage"): an unknown name or a bad file.
Result<ProfileSet> load_profile_set(const std::string& value);

/// What makes two findings the same one: invariant, tool and diagnosis template (the diagnosis
/// with its numbers left out: one defect measured on answers of many sizes is one finding).
std::string finding_key(const Finding& f);

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

/// Runs the whole pipeline. Never throws; a harness problem is in report.error.
RunReport run(const RunOptions& options, Listener& listener);

/// Shell-style glob match ('*' and '?').
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace ctxo::engine
