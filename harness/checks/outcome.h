// SPDX-License-Identifier: MIT
// What a check says about what it was given: for each invariant it judged, a status (passed,
// failed, not observed), and the findings behind every failure. Checks report their own status
// here; "which invariants were applied" is derived from it, never kept by hand elsewhere.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace ctxo::checks {

/// Ordered: merging keeps the strongest (a failure anywhere is a failure).
enum class Status {
  kNotApplicable,  ///< Nothing to judge: the profile or the answer gives the rule no subject.
  kNotObserved,    ///< The rule applies, but no answer exercised it (e.g. TR-HINT, nothing truncated).
  kPassed,         ///< Exercised and held.
  kFailed,         ///< Exercised and broken: at least one finding.
};

/// "not_applicable", "not_observed", "passed", "failed" (the JSON report's words).
const char* to_string(Status s);
/// The inverse of to_string; kNotApplicable for an unknown word.
Status status_from_string(std::string_view s);

/// What one tools/call answer reached (the coverage report's categories, mutually exclusive).
enum class Reach {
  kNoAnswer,  ///< Timed out or the server closed the pipe.
  kData,      ///< A success answer with something in it (its cut array non-empty, or no array known).
  kEmpty,     ///< A success answer with an empty result array (a search that matched nothing).
  kMiss,      ///< A graceful miss (the profile's miss form): "not found".
  kError,     ///< An error (JSON-RPC error, isError, the error form) to a call meant to be valid.
  kRefusal,   ///< An error to a call generated invalid: the expected refusal.
  kLeak,      ///< A success answer printing a JavaScript non-value ("schema: undefined", "[object Object]").
};

/// "no_answer", "data", "empty", "miss", "error", "refusal", "leak".
const char* to_string(Reach r);

/// Per tool: what its calls reached, so a report can say what could never be exercised
/// ("0/41 calls reached data"). Counted by the judge over every tools/call answer of the tool
/// (generated, shrink candidates, repeats, the limit sweep's and hint following's replays).
struct Coverage {
  std::size_t calls = 0;  ///< Every category (data ... no_answer, and leaks), summed.
  std::size_t data = 0, empty = 0, misses = 0, errors = 0, refusals = 0, no_answer = 0;
  std::size_t largest_bytes = 0;  ///< Bytes of the largest answer's text (UTF-8).
  std::size_t truncated = 0;      ///< Success answers whose envelope said it was truncated.
  std::size_t leaks = 0;          ///< A category, last so positional initialisers stay valid.
  /// A category: success answers carrying data about what the run itself wrote earlier (the call
  /// carried a value the run made up and gave a tool that writes: Exchange::self_made), not the
  /// server's own data: not counted in `data`, so a tool whose only data is this reached none.
  std::size_t self_made = 0;
  /// Counts one call that reached `r`; data about what the run itself wrote (`self_made`) is
  /// counted as self_made, not data.
  void add(Reach r, bool self_made = false);
  void remove(Reach r, bool self_made = false);  ///< Undoes add() (a provisional category judged again at finish).
  /// "0/41 calls reached data (37 graceful misses, 4 refusals)": data out of calls, and the
  /// other categories that are not zero (leaks: "2 leaks"; self_made: "3 self-made").
  std::string summary() const;
  Coverage& operator+=(const Coverage& o);
  bool operator==(const Coverage&) const = default;
};

/// The statuses and findings of one or more checks.
class Outcomes {
 public:
  /// `id` was exercised and held (a failure recorded before or after wins).
  void pass(std::string_view id);
  /// `id` applies, but this answer gave it nothing to judge; `why` says what was missing.
  void unobserved(std::string_view id, std::string why);
  /// A finding: its invariant failed.
  void fail(Finding f);
  /// fail(): lets check code written against std::vector<Finding> read the same.
  void push_back(Finding f) { fail(std::move(f)); }
  /// Adds everything `other` says.
  void merge(const Outcomes& other);
  void merge(Outcomes&& other);
  /// Raises `id` to `s` (kept when it is already stronger); `why` for kNotObserved.
  void raise(std::string_view id, Status s, const std::string& why = "");

  Status status(std::string_view id) const;
  const std::map<std::string, Status, std::less<>>& statuses() const { return status_; }
  /// Why each not-observed invariant was not observed.
  const std::map<std::string, std::string, std::less<>>& reasons() const { return why_; }
  const std::vector<Finding>& findings() const { return findings_; }
  std::vector<Finding> take_findings() { return std::move(findings_); }

  // The findings read as a container, so callers and tests that want only them need not care.
  bool empty() const { return findings_.empty(); }
  std::size_t size() const { return findings_.size(); }
  const Finding& operator[](std::size_t i) const { return findings_[i]; }
  Finding& operator[](std::size_t i) { return findings_[i]; }
  const Finding& front() const { return findings_.front(); }
  std::vector<Finding>::iterator begin() { return findings_.begin(); }
  std::vector<Finding>::iterator end() { return findings_.end(); }
  std::vector<Finding>::const_iterator begin() const { return findings_.begin(); }
  std::vector<Finding>::const_iterator end() const { return findings_.end(); }

 private:
  void merge_statuses(const Outcomes& other);

  std::map<std::string, Status, std::less<>> status_;
  std::map<std::string, std::string, std::less<>> why_;
  std::vector<Finding> findings_;
};

}  // namespace ctxo::checks
