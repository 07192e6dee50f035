// SPDX-License-Identifier: MIT
// The CLI's one scrubbing point (cli/scrub.h): a RunReport with the secret in every field a server
// or the user can fill is scrubbed so that no report format renders it (the formats are rendered
// without their last text pass, so a field scrub_report forgets shows here); the console listener
// passes scrubbed events on; case files and their names hold no secret; a replay line's secret env
// value becomes a reference to the variable; `replay` takes redacted env values from the
// environment.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/outputs.h"
#include "cli/scrub.h"
#include "core/text.h"
#include "engine/cases.h"
#include "reports/json_report.h"

namespace ctxo::cli {
namespace {

using nlohmann::json;

const std::string kSecret = "SECRET123";

std::size_t count(const std::string& text, const std::string& needle = kSecret) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

core::Redactor redactor() {
  return core::Redactor::for_run({{"Authorization", "Bearer " + kSecret}}, {{"API_TOKEN", "tok-" + kSecret}, {"PORT", "8080"}});
}

Finding planted_finding(const std::string& s) {
  Finding f;
  f.invariant = "P-NO-THROW";
  f.tool = "echo_" + s;
  f.request = {{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"},
               {"params", {{"name", "echo_" + s}, {"arguments", {{"q\"" + s, "x " + s + " \u00e9"}}}}}};
  f.original_request = f.request;
  f.response_excerpt = R"({"error":{"message":"invalid token: Bearer )" + s + R"("}})";
  f.diagnosis = "the server said 'invalid token: Bearer " + s + "'";
  f.replay = "printf '%s\\n' '{}' | env API_TOKEN=tok-" + s + " PORT=8080 ./server";
  f.file = "src/" + s + ".txt";
  f.env = {{"API_TOKEN", "tok-" + s}, {"PORT", "8080"}};
  f.case_label = "'q' = " + s;
  f.sequence = json::array({f.request});
  return f;
}

engine::RunReport planted_report(const std::string& s) {
  engine::RunReport r;
  r.verdict = engine::Verdict::kFail;
  r.exit_code = 1;
  r.seed = 7;
  r.command = {"./server", "--token", s};
  r.url = "http://127.0.0.1:9/mcp?k=" + s;
  r.header_names = {"Authorization"};
  r.env = {{"API_TOKEN", "tok-" + s}, {"PORT", "8080"}};
  r.cwd = "/tmp/" + s;
  r.server_name = "srv " + s;
  r.server_version = "Bearer " + s;
  r.protocol_version = "2025-06-18";
  r.era = "legacy";
  engine::ToolSummary t;
  t.name = "echo_" + s;
  t.calls = 3;
  t.skipped = "stopped: " + s;
  t.invariants = {"P-NO-THROW"};
  t.outcomes = {{"P-NO-THROW", checks::Status::kFailed}, {"TR-HINT", checks::Status::kNotObserved}};
  t.not_observed = {{"TR-HINT", "no answer of " + s + " was truncated"}};
  t.profile = "none";
  t.profile_reason = "held to " + s;
  t.largest = checks::LargestAnswer{10, 10, 3, false, json{{"name", s}}, {{"claude-code " + s, "chars", "chars", 10, 100}}};
  r.tools.push_back(t);
  engine::ReportedFinding rf;
  rf.finding = planted_finding(s);
  rf.examples = {json{{"params", {{"arguments", {{"x", s}}}}}}};
  r.findings.push_back(rf);
  r.notes = {"tool echo_" + s + " skipped", "stderr said " + s};
  r.invariants_checked = {"P-NO-THROW", "TR-HINT"};
  r.server_invariants = {"P-INIT"};
  r.server_outcomes = {{"P-INIT", checks::Status::kPassed}};
  r.baseline_stale = {{"P-LIST", "gone_" + s}};
  r.root = "/work/" + s;
  r.profiles_detected = {{"ctxo", 1}};
  r.calls = 3;
  r.stderr_tail = "auth failed for Bearer " + s + "\n";
  r.started_at = "2026-01-01T00:00:00Z";
  return r;
}

std::string temp_dir(const std::string& name) {
  const std::string d = std::string(CTXO_BINARY_DIR) + "/test-tmp/" + name + "-" + std::to_string(::getpid());
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// Every report format, rendered from the report as given (no last text pass).
std::map<std::string, std::string> render_all(const engine::RunReport& r, const std::string& dir) {
  Outputs o;
  o.json = dir + "/r.json";
  o.junit = dir + "/r.xml";
  o.sarif = dir + "/r.sarif";
  o.markdown = dir + "/r.md";
  o.html = dir + "/r.html";
  EXPECT_TRUE(o.write(r, "0.0.0").ok());
  std::map<std::string, std::string> out;
  for (const auto& p : {o.json, o.junit, o.sarif, o.markdown, o.html}) out[p] = slurp(p);
  std::ostringstream con;
  reports::ConsoleStyle style;
  style.verbosity = 2;
  reports::print_summary(con, r, style);
  out["console"] = con.str();
  return out;
}

TEST(ScrubReport, NoFormatRendersAPlantedSecret) {
  const std::string dir = temp_dir("scrub-report");
  // The planted report does show the secret everywhere when not scrubbed (the test can fail).
  for (const auto& [name, text] : render_all(planted_report(kSecret), dir)) EXPECT_GT(count(text), 0u) << name;
  engine::RunReport r = planted_report(kSecret);
  scrub_report(r, redactor());
  for (const auto& [name, text] : render_all(r, dir)) EXPECT_EQ(count(text), 0u) << name << ":\n" << text;
  EXPECT_EQ(r.server_version, "<redacted>");
  EXPECT_EQ(r.env["API_TOKEN"], "<redacted>");
  EXPECT_EQ(r.env["PORT"], "8080");
  EXPECT_EQ(r.tools[0].name, "echo_<redacted>");
  // The JSON report still reads back (the scrubbed strings are strings).
  auto back = reports::from_json(reports::to_json(r, "0.0.0"));
  EXPECT_TRUE(back.ok()) << (back.ok() ? "" : back.error().message);
}

TEST(ScrubReport, ReplayLinesReferToTheVariable) {
  engine::RunReport r = planted_report(kSecret);
  scrub_report(r, redactor());
  const std::string& replay = r.findings[0].finding.replay;
  EXPECT_NE(replay.find("env API_TOKEN=\"$API_TOKEN\" PORT=8080 ./server"), std::string::npos) << replay;
  // A value that needed quoting.
  core::Redactor q = core::Redactor::for_run({}, {{"DB_PASSWORD", "it's " + kSecret}});
  Finding f;
  f.env = {{"DB_PASSWORD", "it's " + kSecret}};
  f.replay = "printf x | env " + shell_quote("DB_PASSWORD=it's " + kSecret) + " ./server";
  scrub_finding(f, q);
  EXPECT_EQ(f.replay, "printf x | env DB_PASSWORD=\"$DB_PASSWORD\" ./server");
}

TEST(ScrubReport, ConsoleStreamScrubsLines) {
  const core::Redactor r = redactor();
  std::ostringstream raw;
  {
    ScrubbingStream con(raw, r);
    con << "tool echo_" << "SECRET" << "123 found\n" << "progress " << kSecret;
    con.flush();
    EXPECT_EQ(raw.str(), "tool echo_<redacted> found\nprogress <redacted>");
  }
}

struct Recording : engine::Listener {
  std::string text;
  void on_started(const engine::RunReport& r) override { text += r.server_name + r.server_version; }
  void on_tools(const std::vector<engine::ToolSummary>& tools) override {
    for (const auto& t : tools) text += t.name;
  }
  void on_tool(const engine::ToolSummary& t, std::size_t, std::size_t) override { text += t.name; }
  void on_call(const engine::ToolSummary& t, std::size_t) override { text += t.name; }
  void on_finding(const Finding& f) override { text += f.tool + f.diagnosis + f.response_excerpt + f.request.dump(); }
  void on_note(const std::string& n) override { text += n; }
};

TEST(ScrubReport, ListenerEventsAreScrubbed) {
  const core::Redactor r = redactor();
  Recording inner;
  ScrubbingListener l(inner, r);
  const engine::RunReport rep = planted_report(kSecret);
  l.on_started(rep);
  l.on_tools(rep.tools);
  l.on_tool(rep.tools[0], 0, 1);
  l.on_call(rep.tools[0], 1);
  l.on_finding(rep.findings[0].finding);
  l.on_note(rep.notes[0]);
  EXPECT_EQ(count(inner.text), 0u) << inner.text;
  EXPECT_GT(count(inner.text, "<redacted>"), 5u) << inner.text;
}

TEST(ScrubReport, CaseFilesAndTheirNames) {
  const std::string dir = temp_dir("scrub-cases");
  const core::Redactor r = redactor();
  engine::RunReport rep = planted_report(kSecret);
  scrub_report(rep, r);
  engine::RunOptions o;
  o.command = {"./server", "--token", kSecret};
  o.env = {{"API_TOKEN", "tok-" + kSecret}, {"PORT", "8080"}};
  o.url = "http://127.0.0.1:9/mcp";
  o.headers = {{"Authorization", "Bearer " + kSecret}};
  ASSERT_TRUE(engine::write_cases(rep, o, dir, &r).ok());
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(count(e.path().filename().string()), 0u) << e.path();
    const std::string text = slurp(e.path().string());
    EXPECT_EQ(count(text), 0u) << text;
    const auto doc = json::parse(text);
    EXPECT_EQ(doc["server"]["env"]["API_TOKEN"], "<redacted>");
  }
  EXPECT_EQ(files, 1u);
  // A tool name that is the secret, cut to 64 characters: no part of the name keeps it.
  Finding f;
  f.invariant = "T-CRASH";
  f.tool = std::string(58, 'x') + kSecret;
  EXPECT_EQ(count(engine::case_file_name(f, &r)), 0u) << engine::case_file_name(f, &r);
  EXPECT_EQ(count(engine::case_file_name(f, &r), "SECRET"), 0u) << engine::case_file_name(f, &r);
}

TEST(ScrubReport, ReplayTakesRedactedEnvFromTheEnvironment) {
  std::map<std::string, std::string> env = {{"CTXO_TEST_API_TOKEN", "<redacted>"}, {"PORT", "8080"},
                                            {"CTXO_TEST_UNSET_TOKEN", "<redacted>"}};
  ::setenv("CTXO_TEST_API_TOKEN", "real-value", 1);
  ::unsetenv("CTXO_TEST_UNSET_TOKEN");
  const auto missing = resolve_redacted_env(env);
  EXPECT_EQ(env["CTXO_TEST_API_TOKEN"], "real-value");
  EXPECT_EQ(env["PORT"], "8080");
  EXPECT_EQ(missing, std::vector<std::string>{"CTXO_TEST_UNSET_TOKEN"});
}

// A replay line's URL with credentials: each is an environment variable the line reads, and the
// line is still one shell word for curl (quoted for a shell, '!' outside double quotes).
TEST(ScrubReport, ReplayLinesReferToUrlVariables) {
  const std::string url = "http://alice42:hunter22@127.0.0.1:9/mcp?api_key=KEY%21S3CRET&limit=10&note=a!b$c";
  const core::Redactor r = core::Redactor::for_run({}, {}, url);
  Finding f;
  f.replay = "c() { curl -sS \"$@\" " + shell_quote(url) + "; echo; }; s=; v=; c --data-binary '{}'";
  scrub_finding(f, r);
  EXPECT_EQ(f.replay,
            "c() { curl -sS \"$@\" \"http://${CTXO_URL_USER}:${CTXO_URL_PASSWORD}@127.0.0.1:9/mcp?api_key=${CTXO_URL_API_KEY}"
            "&limit=10&note=${CTXO_URL_NOTE}\"; echo; }; s=; v=; c --data-binary '{}'");
  EXPECT_FALSE(r.contains(f.replay));
  // Run by a shell with the variables set, the word is the URL again.
  const std::string word = f.replay.substr(f.replay.find("\"http"), f.replay.find("; echo") - f.replay.find("\"http"));
  const std::string cmd = "CTXO_URL_USER=alice42 CTXO_URL_PASSWORD=hunter22 CTXO_URL_API_KEY='KEY%21S3CRET' "
                          "CTXO_URL_NOTE='a!b$c' sh -c 'printf %s " + [&] {
                            std::string q;
                            for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
                            return q;
                          }() + "'";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[512];
  const std::size_t n = std::fread(buf, 1, sizeof buf, p);
  ::pclose(p);
  EXPECT_EQ(std::string(buf, n), url);
  // A URL whose literal parts need escaping inside double quotes keeps them literal.
  const std::string odd = "http://h/m$x`y\"z!?token=abcdef99";
  const core::Redactor o = core::Redactor::for_run({}, {}, odd);
  Finding g;
  g.replay = "curl " + shell_quote(odd);
  scrub_finding(g, o);
  EXPECT_EQ(g.replay, "curl \"http://h/m\\$x\\`y\\\"z\"'!'\"?token=${CTXO_URL_TOKEN}\"");
}

TEST(ScrubReport, ReplayTakesRedactedUrlCredentialsFromTheEnvironment) {
  std::string url = "http://<redacted>:<redacted>@127.0.0.1:9/mcp?api_key=<redacted>&limit=10&ctxo_test_unset=<redacted>";
  ::setenv("CTXO_URL_USER", "alice42", 1);
  ::setenv("CTXO_URL_PASSWORD", "hunter22", 1);
  ::setenv("CTXO_URL_API_KEY", "KEY%21S3CRET", 1);
  ::unsetenv("CTXO_URL_CTXO_TEST_UNSET");
  const auto missing = resolve_redacted_url(url);
  EXPECT_EQ(missing, std::vector<std::string>{"CTXO_URL_CTXO_TEST_UNSET"});
  EXPECT_EQ(url, "http://alice42:hunter22@127.0.0.1:9/mcp?api_key=KEY%21S3CRET&limit=10&ctxo_test_unset=<redacted>");
  std::string plain = "http://127.0.0.1:9/mcp?limit=10";
  EXPECT_TRUE(resolve_redacted_url(plain).empty());
  EXPECT_EQ(plain, "http://127.0.0.1:9/mcp?limit=10");
  for (const char* v : {"CTXO_URL_USER", "CTXO_URL_PASSWORD", "CTXO_URL_API_KEY"}) ::unsetenv(v);
}

}  // namespace
}  // namespace ctxo::cli
