// SPDX-License-Identifier: MIT
// The invariant registry: every stable id of SPEC.md §3 with its severity, family, one-line
// summary, spec reference and fix advice. `--list-invariants`, `--only`/`--skip` and the reports
// read it.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace ctxo::checks {

struct InvariantInfo {
  std::string id;        ///< "T-FRAMING"; never reused.
  std::string family;    ///< "transport", "protocol", "envelope", "truncation", "budget", "positions", "host".
  Severity severity;     ///< Default severity of its findings.
  std::string summary;   ///< One line: what a conformant server does.
  std::string spec_ref;  ///< Where the rule comes from.
  bool implemented;      ///< False: listed for stability of ids, not checked by this version yet.
  std::string help;      ///< How to fix a server that breaks it: one to three plain sentences.
};

/// All invariants, in SPEC order.
const std::vector<InvariantInfo>& registry();
/// The entry for `id`, or nullptr.
const InvariantInfo* find_invariant(std::string_view id);

/// Which invariants a run reports (--only / --skip).
class Selection {
 public:
  /// Both lists hold ids; empty `only` means all. Unknown ids are the caller's to reject first.
  Selection(std::vector<std::string> only, std::vector<std::string> skip);
  Selection() = default;
  bool enabled(std::string_view id) const;

 private:
  std::vector<std::string> only_, skip_;
};

/// The ids of `ids` that the registry knows and `selection` enables, in registry (SPEC) order.
std::vector<std::string> in_registry_order(const std::set<std::string>& ids, const Selection& selection);

}  // namespace ctxo::checks
