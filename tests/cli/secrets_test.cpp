// SPDX-License-Identifier: MIT
// Secrets never leave (issue 27): a hostile server (tests/servers/scripts/echo_secret_server.py)
// echoes the credential it is given (over Streamable HTTP the Authorization header, over stdio
// an env value) into serverInfo, a tool name, descriptions, content, an isError message, a
// JSON-RPC error message, stderr and (stdio) a stdout log line. With every output on (console,
// --json, --junit, --sarif, --markdown, --html, --record, case files), the secret occurs 0 times
// in stdout, stderr, every file written and every file name; the same server with a variable
// whose name does not look secret shows it (the fixture does echo: this test can fail). `replay`
// of a case whose env value was redacted takes it from the environment, or says which variable
// to set. The URL's userinfo and query values are secrets too (issue 45). Every server is local (127.0.0.1, or a pipe), started and stopped by the run.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "../support/net.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

const std::string kSecret = "SECRET123";

std::string server_script() { return std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/echo_secret_server.py"; }

std::size_t count(const std::string& text, const std::string& needle = kSecret) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

struct Outputs {
  std::string dir;
  HarnessRun run;
  /// Every file the run wrote (reports, transcript, case files): path -> text.
  std::map<std::string, std::string> files;
  std::vector<std::string> case_files;
};

// A run with every output on, into a fresh directory; `markdown_to_stdout` sends the Markdown
// report to stdout (the console then goes to stderr).
Outputs run_all(const std::string& name, std::vector<std::string> args, bool markdown_to_stdout = false) {
  Outputs o;
  o.dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/secrets-" + name + "-" + std::to_string(::getpid());
  std::filesystem::remove_all(o.dir);
  std::filesystem::create_directories(o.dir);
  std::vector<std::string> all = {"--seed", "1", "--calls", "4", "--timeout", "3000", "-v", "--color", "always",
                                  "--json", o.dir + "/report.json", "--junit", o.dir + "/report.xml",
                                  "--sarif", o.dir + "/report.sarif", "--markdown",
                                  markdown_to_stdout ? "-" : o.dir + "/report.md", "--html", o.dir + "/report.html",
                                  "--record", o.dir + "/transcript.jsonl", "--cases", o.dir + "/cases"};
  all.insert(all.end(), args.begin(), args.end());
  o.run = run_harness(all, false);
  o.run.report = nlohmann::json::parse(slurp(o.dir + "/report.json"), nullptr, false);
  if (o.run.report.is_discarded()) o.run.report = nullptr;
  if (o.run.report.is_object()) o.run.schema_violations = report_schema_violations(o.run.report);
  for (const auto& e : std::filesystem::recursive_directory_iterator(o.dir)) {
    if (!e.is_regular_file()) continue;
    o.files[e.path().string()] = slurp(e.path().string());
    if (e.path().parent_path().filename() == "cases") o.case_files.push_back(e.path().string());
  }
  return o;
}

// The secret appears nowhere: stdout, stderr, every file and every file name; and the server did
// echo it (the places it went show "<redacted>").
void expect_no_secret(const Outputs& o) {
  EXPECT_EQ(o.run.exit_code, 1) << o.run.out << o.run.err;
  ASSERT_TRUE(o.run.report.is_object()) << o.run.err;
  EXPECT_TRUE(o.run.schema_violations.empty()) << o.run.schema_violations.front();
  EXPECT_EQ(count(o.run.out), 0u) << o.run.out;
  EXPECT_EQ(count(o.run.err), 0u) << o.run.err;
  for (const char* f : {"report.json", "report.xml", "report.sarif", "report.html", "transcript.jsonl"})
    EXPECT_TRUE(o.files.count(o.dir + "/" + f)) << f << " was not written";
  for (const auto& [path, text] : o.files) {
    EXPECT_EQ(count(path), 0u) << "a file name holds the secret: " << path;
    EXPECT_EQ(count(text), 0u) << path << " holds the secret " << count(text) << " time(s):\n" << text.substr(0, 4000);
  }
  // What the server echoed into arrived, redacted.
  const auto& rep = o.run.report;
  EXPECT_EQ(rep["server"].value("name", std::string()), "echo <redacted>") << rep["server"].dump();
  EXPECT_EQ(rep["server"].value("version", std::string()), "1.0 <redacted>") << rep["server"].dump();
  EXPECT_NE(rep.value("stderr_tail", std::string()).find("<redacted>"), std::string::npos) << rep.dump(2).substr(0, 3000);
  bool token_tool = false;
  for (const auto& t : rep["tools"]) token_tool = token_tool || t.value("name", std::string()) == "token <redacted>";
  EXPECT_TRUE(token_tool) << rep["tools"].dump();
  std::set<std::string> ids;
  for (const auto& f : rep["findings"]) ids.insert(f.value("invariant", std::string()));
  EXPECT_TRUE(ids.count("P-NO-THROW") && ids.count("H-NAME")) << rep["findings"].dump(2).substr(0, 3000);
  EXPECT_GE(o.case_files.size(), 3u);
  bool named = false;  // the H-NAME case is named after the tool, redacted
  for (const auto& c : o.case_files) named = named || c.find("H-NAME-token__redacted_-") != std::string::npos;
  EXPECT_TRUE(named) << ::testing::PrintToString(o.case_files);
  const std::string& transcript = o.files.at(o.dir + "/transcript.jsonl");
  EXPECT_GT(count(transcript, "<redacted>"), 3u) << transcript.substr(0, 2000);
  EXPECT_GT(count(o.run.out + o.run.err, "<redacted>"), 3u) << o.run.out << o.run.err;
}

TEST(Secrets, StdioEnvValueEchoedEverywhereIsRedactedEverywhere) {
  Outputs o = run_all("stdio", {"--env", "API_TOKEN=" + kSecret, "--", "python3", server_script()});
  expect_no_secret(o);
  // The stdout log line is a T-FRAMING finding quoting it, redacted.
  EXPECT_NE(o.run.report.dump().find("debug: auth=<redacted>"), std::string::npos);
  EXPECT_EQ(o.run.report["server"]["env"]["API_TOKEN"], "<redacted>");
  // Replay lines refer to the variable instead of holding its value.
  for (const auto& f : o.run.report["findings"]) {
    const std::string replay = f.value("replay", std::string());
    if (!replay.empty()) {
      EXPECT_NE(replay.find("env API_TOKEN=\"$API_TOKEN\""), std::string::npos) << replay;
    }
  }

  // replay: the redacted value comes from the environment, or the run says which to set.
  std::string no_throw;
  for (const auto& c : o.case_files)
    if (c.find("P-NO-THROW-fail-") != std::string::npos) no_throw = c;
  ASSERT_FALSE(no_throw.empty()) << ::testing::PrintToString(o.case_files);
  ::unsetenv("API_TOKEN");
  HarnessRun unset = run_harness({"replay", no_throw}, false);
  EXPECT_EQ(unset.exit_code, 2) << unset.out << unset.err;
  EXPECT_NE(unset.err.find("API_TOKEN"), std::string::npos) << unset.err;
  EXPECT_NE(unset.err.find("export API_TOKEN="), std::string::npos) << unset.err;
  ::setenv("API_TOKEN", kSecret.c_str(), 1);
  HarnessRun again = run_harness({"replay", no_throw, "-v"});
  ::unsetenv("API_TOKEN");
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE(again.out.find("still fails: P-NO-THROW"), std::string::npos) << again.out << again.err;
  EXPECT_NE(again.out.find("invalid token: <redacted>"), std::string::npos) << again.out;  // it was given the value
  EXPECT_EQ(count(again.out + again.err), 0u) << again.out << again.err;
  EXPECT_EQ(count(again.report.dump()), 0u);
}

TEST(Secrets, HttpHeaderEchoedEverywhereIsRedactedEverywhere) {
  const int port = free_port();
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
  Outputs o = run_all("http",
                      {"--env", "PORT=" + std::to_string(port), "--url", url, "--header", "Authorization: Bearer " + kSecret,
                       "--", "python3", server_script()},
                      true);
  expect_no_secret(o);
  // The Markdown report went to stdout, the console (banner, events, summary) to stderr.
  EXPECT_NE(o.run.out.find("P-NO-THROW"), std::string::npos) << o.run.out;
  EXPECT_NE(o.run.err.find("seed 1"), std::string::npos) << o.run.err;
  // The isError and JSON-RPC error messages quoted the header; the run shows them redacted.
  EXPECT_NE(o.run.report.dump().find("invalid token: <redacted>"), std::string::npos);

  // replay over HTTP with the header again: nothing echoed is printed either.
  std::string no_throw;
  for (const auto& c : o.case_files)
    if (c.find("P-NO-THROW-fail-") != std::string::npos) no_throw = c;
  ASSERT_FALSE(no_throw.empty()) << ::testing::PrintToString(o.case_files);
  HarnessRun again = run_harness({"replay", no_throw, "-v", "--header", "Authorization: Bearer " + kSecret});
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE(again.out.find("still fails: P-NO-THROW"), std::string::npos) << again.out << again.err;
  EXPECT_EQ(count(again.out + again.err), 0u) << again.out << again.err;
  EXPECT_EQ(count(again.report.dump()), 0u);
}

// The URL is a credential carrier (issue 45): its userinfo (user and password) and its query
// values are scrubbed like header values, whether the harness writes the URL (report, case
// files, transcript, replay lines, console) or the server echoes them (the query as sent and
// decoded, the Basic authorization curl makes of the userinfo). Replay lines read them from
// CTXO_URL_* variables, and `replay` takes them from there or says which to set.
TEST(Secrets, UrlUserinfoAndQueryValuesAreRedactedEverywhere) {
  const int port = free_port();
  const std::string base = "127.0.0.1:" + std::to_string(port) + "/mcp";
  const std::string url = "http://someuser:PASSW0RD_S3CRET@" + base + "?api_key=KEY_S3CRET%2B99&limit=10";
  // Every form a secret can take here: the user, the password, the key as written and decoded,
  // and "someuser:PASSW0RD_S3CRET" in base64 (Authorization: Basic).
  const std::vector<std::string> secrets = {"someuser", "PASSW0RD_S3CRET", "KEY_S3CRET%2B99", "KEY_S3CRET+99",
                                            "c29tZXVzZXI6UEFTU1cwUkRfUzNDUkVU"};
  Outputs o = run_all("url", {"--env", "PORT=" + std::to_string(port), "--env", "ECHO_URL=1", "--url", url, "--",
                              "python3", server_script()});
  EXPECT_EQ(o.run.exit_code, 1) << o.run.out << o.run.err;
  ASSERT_TRUE(o.run.report.is_object()) << o.run.err;
  EXPECT_TRUE(o.run.schema_violations.empty()) << o.run.schema_violations.front();
  for (const char* f : {"report.json", "report.xml", "report.sarif", "report.html", "report.md", "transcript.jsonl"})
    EXPECT_TRUE(o.files.count(o.dir + "/" + f)) << f << " was not written";
  EXPECT_GE(o.case_files.size(), 3u);
  for (const auto& secret : secrets) {
    EXPECT_EQ(count(o.run.out + o.run.err, secret), 0u) << secret << "\n" << o.run.out << o.run.err;
    for (const auto& [path, text] : o.files) {
      EXPECT_EQ(count(path, secret), 0u) << "a file name holds " << secret << ": " << path;
      EXPECT_EQ(count(text, secret), 0u) << path << " holds " << secret << ":\n" << text.substr(0, 3000);
    }
  }
  const auto& rep = o.run.report;
  EXPECT_EQ(rep["server"].value("url", std::string()),
            "http://<redacted>:<redacted>@" + base + "?api_key=<redacted>&limit=10");
  // The server echoed all three, redacted (the name is "echo " and what it was sent).
  EXPECT_EQ(rep["server"].value("name", std::string()),
            "echo Basic <redacted> api_key=<redacted>&limit=10 api_key=<redacted>&limit=10")
      << rep["server"].dump();
  // Replay lines name the variables; a shell that has them gets the URL back.
  std::size_t lines = 0;
  for (const auto& f : rep["findings"]) {
    const std::string replay = f.value("replay", std::string());
    if (replay.empty()) continue;
    ++lines;
    EXPECT_NE(replay.find("\"http://${CTXO_URL_USER}:${CTXO_URL_PASSWORD}@" + base +
                          "?api_key=${CTXO_URL_API_KEY}&limit=10\""),
              std::string::npos)
        << replay;
  }
  EXPECT_GT(lines, 0u) << rep["findings"].dump(2).substr(0, 3000);

  // replay: the redacted credentials come from CTXO_URL_*, or it says which to set.
  std::string no_throw;
  for (const auto& c : o.case_files)
    if (c.find("P-NO-THROW-fail-") != std::string::npos) no_throw = c;
  ASSERT_FALSE(no_throw.empty()) << ::testing::PrintToString(o.case_files);
  for (const char* v : {"CTXO_URL_USER", "CTXO_URL_PASSWORD", "CTXO_URL_API_KEY"}) ::unsetenv(v);
  HarnessRun unset = run_harness({"replay", no_throw}, false);
  EXPECT_EQ(unset.exit_code, 2) << unset.out << unset.err;
  EXPECT_NE(unset.err.find("CTXO_URL_USER, CTXO_URL_PASSWORD, CTXO_URL_API_KEY"), std::string::npos) << unset.err;
  ::setenv("CTXO_URL_USER", "someuser", 1);
  ::setenv("CTXO_URL_PASSWORD", "PASSW0RD_S3CRET", 1);
  ::setenv("CTXO_URL_API_KEY", "KEY_S3CRET%2B99", 1);
  HarnessRun again = run_harness({"replay", no_throw, "-v"});
  for (const char* v : {"CTXO_URL_USER", "CTXO_URL_PASSWORD", "CTXO_URL_API_KEY"}) ::unsetenv(v);
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE(again.out.find("still fails: P-NO-THROW"), std::string::npos) << again.out << again.err;
  // It was sent the credentials (the server echoed them, redacted).
  EXPECT_NE(again.out.find("invalid token: Basic <redacted> api_key=<redacted>"), std::string::npos) << again.out;
  for (const auto& secret : secrets) {
    EXPECT_EQ(count(again.out + again.err, secret), 0u) << secret << "\n" << again.out << again.err;
    EXPECT_EQ(count(again.report.dump(), secret), 0u) << secret;
  }
}

// The control: the same server echoing a variable whose name does not look secret. The value is
// not a credential by its name, so it is shown, everywhere this test looks for the secret.
TEST(Secrets, AValueNotNamedSecretIsShownSoTheTestCanFail) {
  Outputs o = run_all("control", {"--env", "ECHO_VAR=PLAIN_VALUE", "--env", "PLAIN_VALUE=" + kSecret, "--", "python3",
                                  server_script()});
  ASSERT_TRUE(o.run.report.is_object()) << o.run.err;
  EXPECT_GT(count(o.run.out), 0u);
  std::size_t files_with = 0, names_with = 0;
  for (const auto& [path, text] : o.files) {
    files_with += count(text) > 0;
    names_with += count(path) > 0;
  }
  EXPECT_EQ(files_with, o.files.size());
  EXPECT_GE(names_with, 1u);
}

}  // namespace
}  // namespace ctxo::test
