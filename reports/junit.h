// SPDX-License-Identifier: MIT
// The JUnit XML report: one <testsuite> per row of the tool x invariant matrix (the server, then
// each called tool), one <testcase> per invariant applied there. Valid against the Jenkins xunit
// plugin's junit-10.xsd (schemas/junit/). It renders a finished RunReport; it decides nothing.
#pragma once

#include <string>
#include <string_view>

#include "engine/report.h"

namespace ctxo::reports {

/// The JUnit XML report of a run (UTF-8, XML 1.0, see docs/REPORTS.md):
/// - `<testsuites name="ctxo-conform">` with tests/failures/errors/time totals (junit-10.xsd has
///   no `skipped` on the root; each suite carries its own);
/// - a suite per matrix row: "(server)" (handshake, tools/list, shutdown) and each called tool,
///   with `<properties>` (version, seed, server, protocol, profile, verdict, exit code);
/// - a `<testcase name="INVARIANT" classname="ctxo-conform.TOOL">` per invariant applied to
///   that row. Error findings make it a `<failure type="INVARIANT">` whose text has, for each
///   finding, the diagnosis, request, response excerpt and replay command. Warnings and findings
///   accepted by the baseline do not fail the run, so their test cases pass and carry the
///   evidence in `<system-out>`;
/// - a selected tool that was never called: a suite with one `<skipped>` test case saying why.
///   Tools the user did not select (--tools, --read-only, another shard) are left out;
/// - a run error (report.error): a "(run)" suite whose test case is an `<error>`.
/// Server text that XML 1.0 cannot hold is made safe with xml_text().
std::string to_junit(const engine::RunReport& report, const std::string& version);

/// `s` as text any XML 1.0 document can hold: valid UTF-8 is kept, except control characters
/// other than tab, LF and CR, DEL and C1 controls, which become `\xNN` / `\uNNNN`; invalid UTF-8
/// bytes become `\xNN`; U+FFFE and U+FFFF become U+FFFD. Markup characters are left alone (the
/// XML writer escapes them).
std::string xml_text(std::string_view s);

}  // namespace ctxo::reports
