// SPDX-License-Identifier: MIT
// Hand-built RunReports for the Markdown and HTML writer tests: a passing run, a failing run
// (two tools, a server-level finding, a warning, a baselined finding, stale baseline entries),
// a run error, and a run full of hostile text.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../../support/report_check.h"
#include "engine/report.h"

namespace ctxo::test {

using nlohmann::json;

inline engine::ToolSummary tool(const std::string& name, std::size_t calls, std::vector<std::string> invariants) {
  engine::ToolSummary t;
  t.name = name;
  t.read_only = true;
  t.calls = calls;
  t.elapsed = std::chrono::milliseconds(120);
  t.invariants = std::move(invariants);
  return t;
}

inline json call_request(int id, const std::string& tool_name, json arguments) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
          {"params", {{"name", tool_name}, {"arguments", std::move(arguments)}}}};
}

inline engine::ReportedFinding finding(const std::string& inv, const std::string& tool_name, Severity sev,
                                       json request, const std::string& excerpt, const std::string& diagnosis,
                                       std::size_t count = 1, bool baselined = false) {
  engine::ReportedFinding rf;
  rf.finding.invariant = inv;
  rf.finding.tool = tool_name;
  rf.finding.severity = sev;
  rf.finding.request = std::move(request);
  rf.finding.response_excerpt = excerpt;
  rf.finding.diagnosis = diagnosis;
  rf.finding.replay = "ctxo-conform replay case-" + inv + ".json";
  rf.count = count;
  rf.baselined = baselined;
  return rf;
}

inline engine::RunReport base_report() {
  engine::RunReport r;
  r.seed = 42;
  r.command = {"./fixture-server", "--stdio"};
  r.server_name = "fixture-server";
  r.server_version = "1.0.0";
  r.protocol_version = "2025-11-25";
  r.era = "legacy";
  r.profile = "auto";
  r.profiles_detected = {{"ctxo", 12}};
  r.calls = 17;
  r.duration = std::chrono::milliseconds(3200);
  r.started_at = "2025-01-01T00:00:00Z";
  r.server_invariants = {"T-SHUTDOWN", "P-INIT", "P-LIST"};
  r.invariants_checked = {"T-SHUTDOWN", "P-INIT", "P-LIST", "P-RESULT", "TR-HINT", "TR-COUNT"};
  r.tools = {tool("search", 9, {"P-RESULT", "P-ACCEPT", "TR-HINT", "TR-COUNT"}),
             tool("read_file", 8, {"P-RESULT", "TR-HINT", "TR-COUNT"})};
  r.tools.push_back(tool("delete_file", 0, {}));
  r.tools.back().selected = false;
  r.tools.back().read_only = false;
  return r;
}

inline engine::RunReport passing_report() {
  engine::RunReport r = base_report();
  r.notes = {"2 tools are not annotated readOnlyHint: delete_file"};
  return as_written(std::move(r));
}

/// 3 errors (TR-HINT on search x3, P-RESULT on read_file, P-LIST server-level), 1 warning
/// (P-ACCEPT on search), 1 baselined error (TR-COUNT on read_file), 2 stale baseline entries.
inline engine::RunReport failing_report() {
  engine::RunReport r = base_report();
  r.verdict = engine::Verdict::kFail;
  r.exit_code = 1;
  r.findings.push_back(finding("P-ACCEPT", "search", Severity::kWarning, call_request(3, "search", {{"query", "é"}}),
                               R"({"jsonrpc":"2.0","id":3,"result":{"isError":true}})",
                               "a schema-valid call was rejected as invalid input"));
  r.findings.push_back(finding("TR-HINT", "search", Severity::kError,
                               call_request(7, "search", {{"query", "a"}, {"limit", 1}}),
                               R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"…"}]}})",
                               "_meta.truncated is true but _meta.hint is missing", 3));
  r.findings.push_back(finding("P-RESULT", "read_file", Severity::kError, call_request(9, "read_file", {{"path", "x"}}),
                               R"({"jsonrpc":"2.0","id":9,"result":{"content":[{"text":"a"}]}})",
                               "content[0] has no \"type\""));
  r.findings.push_back(finding("P-LIST", "", Severity::kError, nullptr, R"({"tools":[{"name":"search"},{"name":"search"}]})",
                               "tools/list names \"search\" twice"));
  r.findings.back().finding.replay.clear();
  r.findings.push_back(finding("TR-COUNT", "read_file", Severity::kError, call_request(11, "read_file", {{"path", "y"}}),
                               "{\"returnedItems\":3", "returnedItems is 3 but the array has 2 items", 2, true));
  r.baseline_stale = {{"E-MISS", "search"}, {"T-SHUTDOWN", ""}};
  r.restarts = 1;
  r.stderr_tail = "server: warning: slow disk\n";
  return as_written(std::move(r));
}

/// passing_report() as checks report it: per tool statuses with not-observed reasons, the profile
/// each tool was judged by (search and read_file differ), successes.
inline engine::RunReport judged_report() {
  engine::RunReport r = base_report();
  using checks::Status;
  r.server_outcomes = {{"T-SHUTDOWN", Status::kPassed}, {"P-INIT", Status::kPassed}, {"P-LIST", Status::kPassed}};
  auto& search = r.tools[0];
  search.outcomes = {{"P-RESULT", Status::kPassed},    {"P-ACCEPT", Status::kPassed},  {"TR-HINT", Status::kNotObserved},
                     {"TR-PREFIX", Status::kNotObserved}, {"TR-CAP", Status::kNotObserved}, {"TR-COUNT", Status::kPassed},
                     {"B-USED", Status::kNotApplicable}};
  search.not_observed = {{"TR-HINT", "no answer was truncated"},
                         {"TR-PREFIX", "no answer was truncated"},
                         {"TR-CAP", "no call set a limit"}};
  search.invariants = {"P-RESULT", "P-ACCEPT", "TR-COUNT"};
  search.profile = "ctxo";
  search.profile_reason = "detected from its answers";
  search.successes = 9;
  auto& read = r.tools[1];
  read.outcomes = {{"P-RESULT", Status::kPassed}, {"TR-HINT", Status::kPassed}, {"TR-COUNT", Status::kPassed}};
  read.profile = "";
  read.profile_reason = "no answer matched a profile";
  read.successes = 8;
  r.successes = 17;
  return as_written(std::move(r));
}

/// Every call answered with an error: verdict untested, exit code 4.
inline engine::RunReport untested_report() {
  engine::RunReport r = base_report();
  r.verdict = engine::Verdict::kUntested;
  r.exit_code = 4;
  r.successes = 0;
  return as_written(std::move(r));
}

inline engine::RunReport error_report() {
  engine::RunReport r;
  r.verdict = engine::Verdict::kError;
  r.exit_code = 3;
  r.seed = 5;
  r.command = {"./missing-server"};
  r.error = Error{"spawn", "cannot start './missing-server': No such file or directory"};
  r.notes = {"nothing was called"};
  return as_written(std::move(r));
}

// Text a server could send that must never reach HTML or Markdown unescaped.
inline const std::string kScriptTag = "<script>alert(1)</script>";
inline const std::string kImgTag = "<img src=x onerror=\"document.body.dataset.pwned='1'\">";
inline const std::string kHostileTool = "evil|tool`x`" + kScriptTag;
inline const std::string kHostileDiagnosis = std::string("diag ") + kScriptTag + " a|b ``` c\n## not a heading\n" +
                                             kImgTag + " bad\xff\xfe utf8 \x1b[31mred " + std::string(1, '\0') +
                                             " nul \xe2\x80\xae rtl & <b>bold</b> https://evil.example/x.js";
inline const std::string kHostileExcerpt = "{\"text\":\"```` four\n```\nfence</script><script>alert(1)</script>"
                                           "\xc0\xaf\x07<link href=\"//evil.example/a.css\">";

/// failing_report() plus findings and names full of markup, pipes, backticks, newlines,
/// invalid UTF-8 and control characters.
inline engine::RunReport hostile_report() {
  engine::RunReport r = failing_report();
  r.server_name = kScriptTag + "|srv`";
  r.server_version = "1.0\n<i>x</i>";
  r.notes.push_back("note " + kScriptTag + "\n- list?");
  r.tools.push_back(tool(kHostileTool, 2, {"P-RESULT"}));
  r.tools.back().outcomes = {{"P-RESULT", checks::Status::kFailed}, {"TR-HINT", checks::Status::kNotObserved}};
  r.tools.back().not_observed = {{"TR-HINT", "reason " + kScriptTag + " a|b `x`\n- item"}};
  r.tools.back().coverage.calls = 2;
  r.tools.back().coverage.refusals = 2;
  r.tools.back().profile = kImgTag + "|p`";
  r.tools.back().profile_reason = "why " + kScriptTag + "\"'";
  json args = {{"q", "</script><script>alert(1)</script>"}, {"raw", std::string("\xff\xfe")}};
  r.findings.push_back(finding("P-RESULT", kHostileTool, Severity::kError, call_request(13, kHostileTool, args),
                               kHostileExcerpt, kHostileDiagnosis, 2));
  r.findings.back().finding.replay = "ctxo-conform replay '" + kScriptTag + "`x`'";
  r.stderr_tail = kScriptTag + "\n\x1b[0m tail";
  r.error = std::nullopt;
  return as_written(std::move(r));
}

}  // namespace ctxo::test
