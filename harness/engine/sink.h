// SPDX-License-Identifier: MIT
// The glue a live run (Runner) and an offline one (`check`, check_transcript) share between the
// judge and the report: which tool a request names, how a finding is attributed and selected,
// one root cause merged once, the statuses kept per tool, a tool's row counters, the judge's
// settling into the rows, and the ids a run says it checked.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/judge.h"
#include "checks/outcome.h"
#include "checks/registry.h"
#include "core/finding.h"
#include "engine/report.h"

namespace ctxo::engine {

/// The tool a tools/call request names ("" for any other message).
std::string tool_of(const nlohmann::json& request);

/// A rule of the Streamable HTTP transport (T-HTTP-*): the server's, whichever call showed it.
bool http_rule(const std::string& id);

/// The ids a run checks, in registry order: every implemented, selected invariant; offline
/// (`check`), the transport family is left out and T-ID (the one a transcript shows) comes last.
std::vector<std::string> invariants_checked(const checks::Selection& selection, bool live);

/// The row of tool `name` in `report` (appended when it has none).
ToolSummary& row_of(RunReport& report, const std::string& name);

/// One tools/call answered (or not) counted in the report and in its tool's row.
void count_call(RunReport& report, ToolSummary& row, bool success);

/// True when the server answered the call: a result or an error it sent, a message holding both
/// included (T-FRAMING result-and-error: answered, but not judged); not a timeout, a closed pipe
/// or an answer the transport made up (HTTP: marked in the error's data).
bool server_answered(const mcp::Reply& reply);

/// Where a run's findings and statuses go, live or offline.
class FindingSink {
 public:
  FindingSink(RunReport& report, const checks::Selection& selection) : report_(report), selection_(selection) {}

  /// Attributes `f` (the tool the check named, else `tool`, else the tool its request calls,
  /// except for a rule of the HTTP transport) and says whether its invariant is selected.
  bool admit(Finding& f, const std::string& tool = "") const;

  /// What checks said about `tool` ("" = the server): statuses kept, findings returned attributed
  /// (not yet filtered: pass each to admit()).
  std::vector<Finding> take(const std::string& tool, checks::Outcomes outcomes);

  /// A statused rule passed for `tool` (a transport's own rules, T-SHUTDOWN).
  void pass(const std::string& tool, const std::string& id) { outcomes_[tool].pass(id); }

  /// Merges `f` into the report, one root cause (finding_key) once. True when it is new.
  bool merge(Finding f) { return merge_finding(report_, index_, std::move(f)); }

  /// The statuses kept, into the report's rows and server statuses (publish_outcomes).
  void publish() const { publish_outcomes(report_, outcomes_, selection_); }
  /// The same, into a copy of the report (a snapshot of a run under way).
  void publish_into(RunReport& copy) const { publish_outcomes(copy, outcomes_, selection_); }

 private:
  RunReport& report_;
  const checks::Selection& selection_;
  std::map<std::string, std::size_t> index_;
  std::map<std::string, checks::Outcomes> outcomes_;
};

/// What the judge settled, into the report: each row's profile and reason, its largest answer,
/// the profiles detected and the results no profile matched. Returns the note to give when
/// results matched no profile (nullopt when none, or when a profile was forced or none was a
/// candidate). Call after Judge::finish().
std::optional<std::string> settle_rows(RunReport& report, const checks::Judge& judge, bool forced, bool candidates,
                                       bool live);

/// The note on the `unprofiled` results no profile matched, saying how they were read
/// ("generic reading of the 585 ...: JSON 534 answers, JSON+Markdown 12, Markdown 39").
std::string generic_note(std::size_t unprofiled, const std::map<std::string, std::size_t>& readings);

}  // namespace ctxo::engine
