// SPDX-License-Identifier: MIT
// Streamable HTTP (--url): the transport checks (T-HTTP-*) against a TypeScript-SDK server,
// tests/npm/fixtures/http/http.mjs (StreamableHTTPServerTransport; HTTP_CASE picks one defect),
// each case reporting exactly its id; server-everything over HTTP giving what its stdio run gives;
// the stdio reference servers reached through a small HTTP bridge giving the ids they give over
// stdio; credentials never printed; a server that cannot be reached is exit 3 with one error line.
// Every server is started by the run itself on a free port of 127.0.0.1, and stopped by it.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "../support/npm.h"
#include "../support/net.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string npm_dir() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm"; }
std::string sdk_dir() { return npm_dir() + "/node_modules/@modelcontextprotocol/sdk"; }
std::string http_fixture() { return npm_dir() + "/fixtures/http/http.mjs"; }
std::string bridge() { return npm_dir() + "/fixtures/http/stdio-bridge.mjs"; }
std::string everything() { return npm_dir() + "/node_modules/@modelcontextprotocol/server-everything/dist/index.js"; }

/// A TCP port of 127.0.0.1 nobody listens on now (the kernel's pick).
std::string url_of(int port) { return "http://127.0.0.1:" + std::to_string(port) + "/mcp"; }

/// ctxo-conform --url on the fixture, started by the run with HTTP_CASE=`name`.
HarnessRun run_fixture(const std::string& name, const std::vector<std::string>& flags = {}, int calls = 4) {
  const int port = free_port();
  std::vector<std::string> args = {"--seed", "1", "--calls", std::to_string(calls), "--no-cases",
                                   "--env", "PORT=" + std::to_string(port), "--env", "HTTP_CASE=" + name,
                                   "--url", url_of(port)};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "node", http_fixture()});
  return run_harness(args);
}

/// "ID (severity) xCOUNT-free", one per finding, sorted: what the report found.
std::set<std::string> findings(const HarnessRun& r) {
  std::set<std::string> out;
  if (!r.report.is_object()) return out;
  for (const auto& f : r.report["findings"])
    out.insert(f.value("invariant", std::string()) + " (" + f.value("severity", std::string()) + ")");
  return out;
}

std::string show(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? "-" : out;
}

struct HttpCase {
  std::string name;
  std::set<std::string> expected;  ///< Every finding of the run: "ID (severity)".
  std::vector<std::string> flags = {};
};
void PrintTo(const HttpCase& c, std::ostream* os) { *os << c.name; }

const std::vector<HttpCase>& http_cases() {
  static const std::vector<HttpCase> c = {
      {"conformant", {}},  // stateful, SSE answers, DELETE ends the session (then 404)
      {"json", {}},        // enableJsonResponse
      {"stateless", {}},   // no session id at all
      {"notify-200", {"T-HTTP-STATUS (error)"}},      // notifications answered 200 {} instead of 202
      {"request-202", {"T-HTTP-STATUS (error)"}},     // tools/call answered 202, no body
      {"wrong-type", {"T-HTTP-TYPE (error)"}},        // JSON answers labelled text/plain
      {"bad-json-body", {"T-HTTP-TYPE (error)"}},     // application/json that is not JSON
      {"session-forgotten", {"T-HTTP-SESSION (error)"}},  // the issued id answered 404 at once
      {"session-optional", {"T-HTTP-SESSION (warning)"}},  // requests without the id served (a SHOULD)
      {"delete-ignored", {"T-HTTP-SESSION (error)"}},  // the session still works after DELETE
      {"bad-session-id", {"T-HTTP-SESSION (error)"}},  // "sess <uuid>": a space is not visible ASCII
      {"stream-ends", {"T-HTTP-STREAM (error)"}},      // SSE closed without the response or an event id
      // The server ends sessions after 5 calls (it MAY): the client starts new ones, nothing to report.
      {"session-expires", {}},
      // An SSE stream of notifications that never brings echo's answer is a hang, read bounded.
      {"endless-stream", {"T-HANG (error)"}, {"--timeout", "500"}},
      // An answer over --max-message-bytes is read bounded and reported, as on stdio.
      {"huge", {"T-FRAMING (error)"}, {"--max-message-bytes", "65536"}},
      // MCP-Protocol-Version never read: a version that does not exist is served, not refused (400).
      {"version-ignored", {"T-HTTP-STATUS (error)"}},
  };
  return c;
}

class HttpFixture : public ::testing::TestWithParam<HttpCase> {};

TEST_P(HttpFixture, ReportsExactlyTheCasesId) {
  REQUIRE_NPM(sdk_dir());
  const HttpCase& c = GetParam();
  HarnessRun r = run_fixture(c.name, c.flags, c.name == "session-expires" ? 8 : 4);
  ASSERT_TRUE(r.report.is_object()) << c.name << ": " << r.err;
  EXPECT_EQ(show(findings(r)), show(c.expected)) << c.name << ": " << r.report["findings"].dump(2);
  bool error = false;
  for (const auto& e : c.expected) error = error || e.find("(error)") != std::string::npos;
  EXPECT_EQ(r.exit_code, error ? 1 : 0) << r.out << r.err;
  // The server was reached and its tools called, whatever the transport did wrong.
  EXPECT_EQ(r.report["server"].value("url", std::string()).rfind("http://127.0.0.1:", 0), 0u) << r.report["server"].dump();
  if (c.name != "session-forgotten") {  // there even tools/list is refused (404): nothing to call
    EXPECT_GT(r.report["stats"].value("calls", 0), 0) << r.out << r.err;
  }
  // Every finding names its cause as facts (the rule and the HTTP status), never its text (issue 30).
  for (const auto& t : r.text_caused()) ADD_FAILURE() << c.name << ": cause read from the text: " << t;
  // One transport defect is one finding, however many calls showed it.
  if (c.name != "huge" && c.name != "endless-stream") {  // those are the tool's (one finding per tool)
    EXPECT_EQ(r.report["findings"].size(), c.expected.size());
  }
  if (c.name == "session-expires") {  // more calls than one session takes were made and answered
    EXPECT_GE(r.report["stats"].value("successes", 0), 12) << r.report["stats"].dump();
    bool said = false;  // and the run says the server ended sessions in use
    for (const auto& n : r.report["notes"]) said = said || n.get<std::string>().find("session(s) in use (HTTP 404") != std::string::npos;
    EXPECT_TRUE(said) << r.report["notes"].dump(2);
  }
  // The T-HTTP-* statuses are the server's: failed on the defect's run, passed where the run had
  // a subject for them, not applicable (absent) where it had none: no session id issued
  // (stateless), no SSE stream (JSON answers only).
  const auto& so = r.report["server_outcomes"];
  const bool json_only = c.name == "json" || c.name == "wrong-type" || c.name == "bad-json-body";
  for (const std::string id : {"T-HTTP-STATUS", "T-HTTP-TYPE", "T-HTTP-SESSION", "T-HTTP-STREAM"}) {
    bool failed = false;
    for (const auto& e : c.expected) failed = failed || e.rfind(id + " ", 0) == 0;
    std::string want = failed ? "failed" : "passed";
    if (!failed && ((id == "T-HTTP-STREAM" && json_only) || (id == "T-HTTP-SESSION" && c.name == "stateless"))) want = "";
    EXPECT_EQ(so.value(id, std::string()), want) << id << ": " << so.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Sdk, HttpFixture, ::testing::ValuesIn(http_cases()), [](const auto& param_info) {
  std::string out;
  for (char ch : param_info.param.name) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out;
});

// A stdio run has no HTTP: the T-HTTP-* ids are not applicable there, not passed.
TEST(Http, StdioRunsDoNotClaimTheHttpChecks) {
  HarnessRun r = run_harness({"--seed", "1", "--calls", "2", "--no-cases", "--", example_server()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  for (const char* id : {"T-HTTP-STATUS", "T-HTTP-TYPE", "T-HTTP-SESSION", "T-HTTP-STREAM"})
    EXPECT_FALSE(r.report["server_outcomes"].contains(id)) << r.report["server_outcomes"].dump();
}

// --header sends a bearer token; the token appears nowhere the run writes (console, report,
// replay lines, case files); without it the run is exit 3 with one error line and a report.
TEST(Http, BearerTokenIsSentAndNeverPrinted) {
  REQUIRE_NPM(sdk_dir());
  const std::string cases = std::string(CTXO_BINARY_DIR) + "/test-tmp/http-bearer-cases-" + std::to_string(::getpid());
  std::filesystem::remove_all(cases);
  const int port = free_port();
  HarnessRun ok = run_harness({"--seed", "1", "--calls", "4", "--cases", cases, "--env", "PORT=" + std::to_string(port),
                               "--env", "HTTP_CASE=bearer", "--url", url_of(port), "--header",
                               "Authorization: Bearer s3cret", "-v", "--", "node", http_fixture()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  ASSERT_TRUE(ok.report.is_object()) << ok.err;
  EXPECT_EQ(ok.report["server"]["headers"], nlohmann::json::array({"Authorization"})) << ok.report["server"].dump();
  EXPECT_EQ(ok.report.dump().find("s3cret"), std::string::npos);
  EXPECT_EQ((ok.out + ok.err).find("s3cret"), std::string::npos);

  HarnessRun refused = run_fixture("bearer", {}, 4);
  EXPECT_EQ(refused.exit_code, 3) << refused.out << refused.err;
  ASSERT_TRUE(refused.report.is_object()) << refused.err;
  EXPECT_EQ(refused.report["verdict"], "error");
  EXPECT_NE(refused.report["error"].value("message", std::string()).find("HTTP 401 Unauthorized"), std::string::npos)
      << refused.report["error"].dump();
  EXPECT_NE(refused.report["error"].value("message", std::string()).find("--header"), std::string::npos);
  EXPECT_TRUE(refused.report["findings"].empty()) << refused.report["findings"].dump(2);  // nothing judged
}

// A case file of an HTTP run replays over HTTP (server started again by its command), and the
// replay line the report prints is a curl script with the header's value redacted.
TEST(Http, CaseFilesReplayOverHttpAndRedactHeaders) {
  REQUIRE_NPM(sdk_dir());
  const std::string cases = std::string(CTXO_BINARY_DIR) + "/test-tmp/http-cases-" + std::to_string(::getpid());
  std::filesystem::remove_all(cases);
  const int port = free_port();
  HarnessRun r = run_harness({"--seed", "1", "--calls", "4", "--cases", cases, "--env", "PORT=" + std::to_string(port),
                              "--env", "HTTP_CASE=delete-ignored", "--url", url_of(port), "--header",
                              "X-Api-Key: k3y-value", "--", "node", http_fixture()});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  ASSERT_EQ(r.report["findings"].size(), 1u) << r.report["findings"].dump(2);
  const auto& f = r.report["findings"][0];
  EXPECT_EQ(f["invariant"], "T-HTTP-SESSION");
  const std::string replay = f.value("replay", std::string());
  EXPECT_NE(replay.find("curl"), std::string::npos) << replay;
  EXPECT_NE(replay.find("X-Api-Key: <redacted>"), std::string::npos) << replay;
  EXPECT_EQ(replay.find("k3y-value"), std::string::npos) << replay;
  const std::string file = f.value("case_file", std::string());
  ASSERT_FALSE(file.empty()) << f.dump(2);
  const std::string text = slurp(file);
  EXPECT_EQ(text.find("k3y-value"), std::string::npos);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["server"]["url"], url_of(port));
  EXPECT_EQ(doc["server"]["headers"], nlohmann::json::array({"X-Api-Key"}));
  HarnessRun again = run_harness({"replay", file, "--header", "X-Api-Key: k3y-value"});
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE((again.out + again.err).find("still fails: T-HTTP-SESSION"), std::string::npos) << again.out << again.err;
}

// Nothing to talk to: one `error:` line naming the cause, exit 3, the report written.
TEST(Http, UnreachableServerIsExitThreeWithOneErrorLine) {
  const int port = free_port();  // closed: nobody listens there
  HarnessRun r = run_harness({"--seed", "1", "--no-cases", "--url", url_of(port)});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.report["verdict"], "error");
  const std::string msg = r.report["error"].value("message", std::string());
  EXPECT_NE(msg.find("could not reach " + url_of(port)), std::string::npos) << msg;
  std::size_t error_lines = 0;
  for (std::size_t at = r.err.find("error:"); at != std::string::npos; at = r.err.find("error:", at + 1)) ++error_lines;
  EXPECT_EQ(error_lines, 1u) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
}

// A server that fails every request after the first with HTTP 500 (and the SDK's JSON-RPC error
// body): initialize fails on each version, which is the server's HTTP failure (T-HTTP-STATUS,
// one finding, naming the status and its message), not a version it refused (P-INIT). Exit 3.
TEST(Http, AServerErrorOnInitializeIsTHttpStatusNotPInit) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_fixture("error-500");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(show(findings(r)), "T-HTTP-STATUS (error)") << r.report["findings"].dump(2);
  ASSERT_EQ(r.report["findings"].size(), 1u);
  const std::string d = r.report["findings"][0].value("diagnosis", std::string());
  EXPECT_NE(d.find("HTTP 500"), std::string::npos) << d;
  EXPECT_NE(d.find("Internal server error"), std::string::npos) << d;
}

TEST(Http, TlsToAPlainServerIsExitThree) {
  REQUIRE_NPM(sdk_dir());
  const int port = free_port();
  HarnessRun r = run_harness({"--seed", "1", "--no-cases", "--env", "PORT=" + std::to_string(port), "--url",
                              "https://127.0.0.1:" + std::to_string(port) + "/mcp", "--", "node", http_fixture()});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_NE(r.report["error"].value("message", std::string()).find("could not reach https://"), std::string::npos)
      << r.report["error"].dump();
}

TEST(Http, BadUrlAndHeaderAreUsageErrors) {
  HarnessRun url = run_harness({"--url", "ftp://127.0.0.1/mcp"});
  EXPECT_EQ(url.exit_code, 2) << url.err;
  EXPECT_NE(url.err.find("--url must be an http:// or https:// URL"), std::string::npos) << url.err;
  HarnessRun header = run_harness({"--url", "http://127.0.0.1:9/mcp", "--header", "no colon here"});
  EXPECT_EQ(header.exit_code, 2) << header.err;
  EXPECT_NE(header.err.find("--header expects NAME: VALUE"), std::string::npos) << header.err;
  HarnessRun stdio_header = run_harness({"--header", "A: b", "--", example_server()});
  EXPECT_EQ(stdio_header.exit_code, 2) << stdio_header.err;
}

// An mcpServers entry with "url" (and a command that starts it) is an HTTP server.
TEST(Http, ConfigEntryWithUrl) {
  REQUIRE_NPM(sdk_dir());
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/http-config-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const int port = free_port();
  nlohmann::json cfg = {{"mcpServers",
                         {{"remote",
                           {{"type", "http"},
                            {"url", url_of(port)},
                            {"headers", {{"Authorization", "Bearer s3cret"}}},
                            {"command", "node"},
                            {"args", {http_fixture()}},
                            {"env", {{"PORT", std::to_string(port)}, {"HTTP_CASE", "bearer"}}}}},
                          {"old", {{"type", "sse"}, {"url", "http://127.0.0.1:9/sse"}}}}}};
  const std::string path = dir + "/mcp.json";
  {
    std::ofstream(path) << cfg.dump(2);
  }
  HarnessRun r = run_harness({"--config", path, "--server", "remote", "--seed", "1", "--calls", "3", "--no-cases"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.report["server"]["url"], url_of(port));
  EXPECT_EQ(r.report.dump().find("s3cret"), std::string::npos);
  HarnessRun sse = run_harness({"--config", path, "--server", "old"});
  EXPECT_EQ(sse.exit_code, 2) << sse.err;
  EXPECT_NE(sse.err.find("HTTP+SSE"), std::string::npos) << sse.err;
}

/// Findings without the transport-only ones (T-SHUTDOWN is stdio's; T-HTTP-* are HTTP's):
/// "ID tool".
std::set<std::string> common_findings(const HarnessRun& r) {
  std::set<std::string> out;
  for (const auto& f : r.report["findings"]) {
    const std::string id = f.value("invariant", std::string());
    if (id == "T-SHUTDOWN" || id.rfind("T-HTTP-", 0) == 0) continue;
    out.insert(id + " " + f.value("tool", std::string()));
  }
  return out;
}

// server-everything's own Streamable HTTP server, started by the run: the same tools, calls,
// answers and findings as over stdio, apart from the transport's own. Its one HTTP finding is
// true: after DELETE it answers the ended session's id with 400 "No valid session ID provided",
// where the spec says a terminated session's id MUST get 404 (basic/transports §Session
// Management); its stdio run's T-SHUTDOWN is stdio's own rule.
TEST(Http, ServerEverythingOverHttpFindsWhatItsStdioRunFinds) {
  REQUIRE_NPM(everything());
  // trigger-long-running-operation spends its asked-for seconds whatever the transport: left out.
  // get-resource-reference and get-resource-links answer the wall clock ("created at 9:21:43 PM"):
  // when a second turns over during one of their batches, P-CONCURRENT asks again (the answer
  // moved on alone too: no race) and the two runs' call counts part. Left out of this comparison,
  // and so are batches (--concurrency 0): how often a batch is sent again depends on timing;
  // batches over HTTP have their own test (Concurrent.OverStreamableHttpTheBatchIsConcurrentPosts).
  const std::vector<std::string> common = {
      "--seed", "1", "--calls", "6", "--no-cases", "--read-only", "--concurrency", "0", "--exclude-tools",
      "trigger-long-running-operation,get-resource-reference,get-resource-links"};
  std::vector<std::string> stdio_args = common;
  stdio_args.insert(stdio_args.end(), {"--", "node", everything()});
  HarnessRun stdio = run_harness(stdio_args);
  const int port = free_port();
  std::vector<std::string> http_args = common;
  http_args.insert(http_args.end(), {"--env", "PORT=" + std::to_string(port), "--url", url_of(port), "--", "node",
                                     everything(), "streamableHttp"});
  HarnessRun http = run_harness(http_args);
  ASSERT_TRUE(stdio.report.is_object()) << stdio.err;
  ASSERT_TRUE(http.report.is_object()) << http.err;
  EXPECT_EQ(show(common_findings(http)), show(common_findings(stdio)));
  // The same calls to the same tools, with the same outcomes.
  ASSERT_EQ(http.report["tools"].size(), stdio.report["tools"].size());
  for (std::size_t i = 0; i < stdio.report["tools"].size(); ++i) {
    const auto& a = stdio.report["tools"][i];
    const auto& b = http.report["tools"][i];
    EXPECT_EQ(a["name"], b["name"]);
    EXPECT_EQ(a["calls"], b["calls"]) << a["name"];
    EXPECT_EQ(a["outcomes"], b["outcomes"]) << a["name"];
  }
  EXPECT_EQ(http.report["stats"]["successes"], stdio.report["stats"]["successes"]);
  // Its HTTP finding: the ended session is answered 400, not 404 (the DELETE itself was accepted).
  std::set<std::string> http_only;
  for (const auto& f : http.report["findings"])
    if (f["invariant"].get<std::string>().rfind("T-HTTP-", 0) == 0) {
      http_only.insert(f["invariant"].get<std::string>());
      EXPECT_NE(f.value("diagnosis", std::string()).find("ended with DELETE (answered HTTP 200)"), std::string::npos)
          << f.dump(2);
      EXPECT_NE(f.value("diagnosis", std::string()).find("answered HTTP 400"), std::string::npos) << f.dump(2);
    }
  EXPECT_EQ(http_only, (std::set<std::string>{"T-HTTP-SESSION"}));
}

// The envelope matrix's reference server behind a small HTTP bridge (stdio-bridge.mjs): the ids
// it gives over stdio, including a limit-sweep defect (the bridge is restarted with the other
// limit in its environment, which its child inherits).
TEST(Http, ReferenceServerOverHttpGivesItsStdioIds) {
  REQUIRE_NPM(sdk_dir());
  struct Ref {
    std::string profile, defect;
  };
  for (const Ref& c : std::vector<Ref>{{"ctxo", ""}, {"ctxo", "no-hint"}, {"ctxo", "ignore-env"}, {"budget", "used-over"}}) {
    std::vector<std::string> server = {reference_server(), "--profile", c.profile};
    if (!c.defect.empty()) server.insert(server.end(), {"--defect", c.defect});
    std::vector<std::string> stdio_args = {"--seed", "7", "--no-cases", "--"};
    stdio_args.insert(stdio_args.end(), server.begin(), server.end());
    HarnessRun stdio = run_harness(stdio_args);
    const int port = free_port();
    std::vector<std::string> http_args = {"--seed", "7", "--no-cases", "--env", "PORT=" + std::to_string(port),
                                          "--url", url_of(port), "--", "node", bridge(), "--"};
    http_args.insert(http_args.end(), server.begin(), server.end());
    HarnessRun http = run_harness(http_args);
    ASSERT_TRUE(stdio.report.is_object()) << stdio.err;
    ASSERT_TRUE(http.report.is_object()) << http.err;
    EXPECT_EQ(show(common_findings(http)), show(common_findings(stdio))) << c.profile << " " << c.defect << "\n" << http.out;
    EXPECT_EQ(http.exit_code, stdio.exit_code) << c.profile << " " << c.defect;
  }
}

// --record over HTTP: the transcript says where it was made, and `check` judges it as the live
// run did.
TEST(Http, RecordedHttpRunChecksOffline) {
  REQUIRE_NPM(sdk_dir());
  const std::string rec = std::string(CTXO_BINARY_DIR) + "/test-tmp/http-rec-" + std::to_string(::getpid()) + ".jsonl";
  const int port = free_port();
  HarnessRun live = run_harness({"--seed", "7", "--no-cases", "--record", rec, "--env", "PORT=" + std::to_string(port),
                                 "--url", url_of(port), "--", "node", bridge(), "--", reference_server(), "--profile",
                                 "ctxo", "--defect", "no-hint"});
  ASSERT_TRUE(live.report.is_object()) << live.err;
  const std::string first = slurp(rec).substr(0, slurp(rec).find('\n'));
  EXPECT_EQ(nlohmann::json::parse(first)["server"]["url"], url_of(port)) << first;
  HarnessRun offline = run_harness({"check", rec});
  ASSERT_TRUE(offline.report.is_object()) << offline.err;
  EXPECT_TRUE(live.error_ids().count("TR-HINT")) << live.out;
  EXPECT_TRUE(offline.error_ids().count("TR-HINT")) << offline.out;
}

}  // namespace
}  // namespace ctxo::test

namespace ctxo::test {
namespace {

// An SSE event far longer than a line buffer (200,000 characters of data on one line) arrives
// whole: its size is measured exactly, and it is past Claude Code's 50,000 characters (H-SIZE).
TEST(Http, LongSseEventsArriveWhole) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_fixture("huge");
  ASSERT_TRUE(r.report.is_object()) << r.err;
  bool seen = false;
  for (const auto& t : r.report["tools"])
    if (t["name"] == "add") {
      seen = true;
      EXPECT_EQ(t["largest_answer"].value("chars", -1), 200000) << t.dump(2);
    }
  EXPECT_TRUE(seen);
  EXPECT_EQ(show(findings(r)), "H-SIZE (warning)") << r.report["findings"].dump(2);
}

}  // namespace
}  // namespace ctxo::test
