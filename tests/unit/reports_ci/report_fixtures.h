// SPDX-License-Identifier: MIT
// Hand-built RunReports for the CI report writers' tests (JUnit, SARIF): a passing run, a failing
// run with every kind of finding, a run error, and text a hostile server could send. Also the
// external validators: xmllint against the vendored JUnit XSD.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "../../support/report_check.h"
#include "engine/report.h"

namespace ctxo::test {

using nlohmann::json;

/// Control characters, invalid UTF-8 (a lone continuation byte, a truncated sequence, an encoded
/// surrogate, 0xFF), a CDATA terminator, quotes, markup, U+FFFF, a C1 control and an emoji.
inline const std::string kHostile =
    std::string("bad \x01\x02\x1b[31mred\x1b[0m \x7f nul:") + std::string(1, '\0') +
    " \x80 \xC3 \xED\xA0\x80 \xFF ]]> <tag attr=\"v\"> 'q' & \xEF\xBF\xBF \xC2\x85 \xF0\x9F\x98\x80 end";

inline engine::ToolSummary tool(std::string name, std::vector<std::string> invariants, std::size_t calls = 3,
                                int elapsed_ms = 120) {
  engine::ToolSummary t;
  t.name = std::move(name);
  t.read_only = true;
  t.calls = calls;
  t.elapsed = std::chrono::milliseconds(elapsed_ms);
  t.invariants = std::move(invariants);
  return t;
}

inline engine::ReportedFinding finding(std::string inv, std::string tool_name, std::string diagnosis,
                                       Severity sev = Severity::kError, std::size_t count = 1) {
  engine::ReportedFinding rf;
  rf.finding.invariant = std::move(inv);
  rf.finding.tool = std::move(tool_name);
  rf.finding.severity = sev;
  rf.finding.diagnosis = std::move(diagnosis);
  rf.finding.request = {{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"},
                        {"params", {{"name", rf.finding.tool}, {"arguments", {{"q", "x"}}}}}};
  rf.finding.response_excerpt = R"({"jsonrpc":"2.0","id":7,"result":{"content":[]}})";
  rf.finding.replay = "printf '...' | ./server";
  rf.count = count;
  return rf;
}

inline engine::RunReport base_report() {
  engine::RunReport r;
  r.seed = 42;
  r.command = {"./server", "--stdio"};
  r.server_name = "demo-server";
  r.server_version = "1.2.3";
  r.protocol_version = "2025-11-25";
  r.era = "legacy";
  r.profile = "auto";
  r.started_at = "2025-01-02T03:04:05Z";
  r.duration = std::chrono::milliseconds(2500);
  r.server_invariants = {"T-FRAMING", "T-ID", "T-SHUTDOWN", "P-INIT", "P-LIST"};
  r.invariants_checked = {"T-FRAMING", "T-ID", "T-SHUTDOWN", "P-INIT", "P-LIST", "P-RESULT", "E-PARSE"};
  return r;
}

/// Two tools called, nothing found.
inline engine::RunReport passing_run() {
  engine::RunReport r = base_report();
  r.tools = {tool("search", {"T-HANG", "P-RESULT", "E-PARSE", "TR-HINT", "TR-COUNT"}),
             tool("fetch", {"T-HANG", "P-RESULT", "E-PARSE"}, 2, 80)};
  r.calls = 5;
  return as_written(std::move(r));
}

/// passing_run() as the checks report it: search leaves TR-HINT and TR-PREFIX not observed (one
/// reason), TR-CAP not observed (another), B-USED not applicable; fetch is judged by no profile.
inline engine::RunReport judged_run() {
  engine::RunReport r = passing_run();
  using checks::Status;
  for (const auto& id : r.server_invariants) r.server_outcomes[id] = Status::kPassed;
  auto& search = r.tools[0];
  search.invariants = {"T-HANG", "P-RESULT", "E-PARSE", "TR-COUNT"};
  for (const auto& id : search.invariants) search.outcomes[id] = Status::kPassed;
  search.outcomes["TR-HINT"] = search.outcomes["TR-PREFIX"] = search.outcomes["TR-CAP"] = Status::kNotObserved;
  search.outcomes["B-USED"] = Status::kNotApplicable;
  search.not_observed = {{"TR-HINT", "no answer was truncated"},
                         {"TR-PREFIX", "no answer was truncated"},
                         {"TR-CAP", "no call set a limit"}};
  search.profile = "ctxo";
  search.profile_reason = "detected from its answers";
  auto& fetch = r.tools[1];
  for (const auto& id : fetch.invariants) fetch.outcomes[id] = Status::kPassed;
  fetch.profile_reason = "no answer matched a profile";
  r.successes = 5;
  return as_written(std::move(r));
}

/// Every call answered with an error: nothing was exercised.
inline engine::RunReport untested_run() {
  engine::RunReport r = passing_run();
  r.verdict = engine::Verdict::kUntested;
  r.exit_code = 4;
  return as_written(std::move(r));
}

/// Errors of several invariants on two tools, a server-level T-SHUTDOWN (null request), a
/// warning, a baselined finding, a POS-UTF16 finding with file/line/column and --root, hostile
/// text, a tool stopped early, a selected tool never called and an unselected one.
inline engine::RunReport failing_run() {
  engine::RunReport r = base_report();
  r.root = "/work/ws dir";
  r.tools = {tool("search", {"T-HANG", "P-RESULT", "E-PARSE", "E-SCHEMA", "TR-HINT", "TR-COUNT", "POS-UTF16"}),
             tool("fetch", {"T-HANG", "P-RESULT", "E-PARSE"}, 4, 300),
             tool("slow", {}, 0, 0),
             tool("write_file", {}, 0, 0)};
  r.tools[1].skipped = "stopped after 2 crashes or hangs";
  r.tools[2].skipped = "time budget reached";
  r.tools[3].selected = false;
  r.tools[3].read_only = false;
  r.tools[3].skipped = "not annotated readOnlyHint:true (--read-only)";
  r.calls = 7;

  r.findings.push_back(
      finding("TR-HINT", "search", "truncated is true but the hint is empty\nsecond line", Severity::kError, 2));
  r.findings.push_back(finding("TR-COUNT", "search", "returnedItems is 5 but the array has 4 items"));
  r.findings.push_back(finding("TR-COUNT", "search", "totalItems 3 < returnedItems 4"));
  r.findings.push_back(finding("P-RESULT", "fetch", "content[0] has no \"type\""));
  r.findings.push_back(finding("E-PARSE", "fetch", kHostile));
  r.findings.back().finding.response_excerpt = kHostile;
  r.findings.back().finding.replay = "printf '" + kHostile + "'";
  r.findings.back().finding.request["params"]["arguments"]["q"] = kHostile;

  auto shutdown = finding("T-SHUTDOWN", "", "the server was still running 2000 ms after its stdin closed");
  shutdown.finding.request = nullptr;
  shutdown.finding.response_excerpt.clear();
  r.findings.push_back(shutdown);

  r.findings.push_back(finding("P-ACCEPT", "fetch", "a schema-valid call was refused as invalid input",
                               Severity::kWarning));
  auto baselined = finding("E-SCHEMA", "search", "at /_meta/totalItems: expected integer, got string");
  baselined.baselined = true;
  r.findings.push_back(baselined);

  auto pos = finding("POS-UTF16", "search", "column 9 counts UTF-8 bytes; in UTF-16 units it is 7");
  pos.finding.file = "src/main file#1.ts";
  pos.finding.line = 12;
  pos.finding.column = 7;
  r.findings.push_back(pos);

  r.notes = {"2 answers matched no envelope profile"};
  r.baseline_stale = {{"TR-CAP", "search"}};
  r.verdict = engine::Verdict::kFail;
  r.exit_code = 1;
  return as_written(std::move(r));
}

/// The server could not be started: exit 3, no tools.
inline engine::RunReport error_run() {
  engine::RunReport r = base_report();
  r.server_invariants.clear();
  r.server_name.clear();
  r.server_version.clear();
  r.protocol_version.clear();
  r.verdict = engine::Verdict::kError;
  r.exit_code = 3;
  r.error = Error{"spawn", "cannot start './server': No such file or directory\n(second line)"};
  r.stderr_tail = "boom \x01 at startup";
  return as_written(std::move(r));
}

/// Writes `text` to a fresh temporary file and returns its path.
inline std::filesystem::path temp_file(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() / ("ctxo-reports-ci-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

/// Runs a shell command; returns its exit status and puts stdout+stderr in `output`.
inline int run_command(const std::string& cmd, std::string& output) {
  output.clear();
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) output.append(buf.data(), n);
  int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// xmllint --schema on `xml` against schemas/junit/junit-10.xsd. Returns "" when valid, else
/// xmllint's complaint (or why it could not run).
inline std::string junit_xsd_problem(const std::string& xml, const std::string& name) {
  std::string out;
  if (run_command("command -v xmllint", out) != 0)
    return "xmllint not found (Debian package libxml2-utils; scripts/install-deps.sh installs it)";
  auto file = temp_file(name, xml);
  std::string xsd = std::string(CTXO_SOURCE_DIR) + "/schemas/junit/junit-10.xsd";
  int rc = run_command("xmllint --noout --schema '" + xsd + "' '" + file.string() + "'", out);
  std::error_code ec;
  std::filesystem::remove(file, ec);
  std::filesystem::remove(file.parent_path(), ec);  // only once empty
  return rc == 0 ? std::string() : "xmllint exit " + std::to_string(rc) + ": " + out;
}

}  // namespace ctxo::test
