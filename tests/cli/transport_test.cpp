// SPDX-License-Identifier: MIT
// Transport failures named as such (issue 27, item 5), against a hostile Streamable HTTP server
// (tests/servers/scripts/hostile_http_server.py, 127.0.0.1 only, started by the run and stopped
// with it): a 401 after initialize ends the run with exit 3 naming it and its WWW-Authenticate;
// an answer libcurl refuses (a 200 KB header line, a NUL or 1 MiB Mcp-Session-Id, 100,000 header
// lines) is the transport's failure with libcurl's reason, never P-INIT or T-HTTP-STATUS; a
// redirect is named with its status and Location; an SSE event over --max-message-bytes says so.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "../support/net.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string server_script() { return std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/hostile_http_server.py"; }

/// A TCP port of 127.0.0.1 nobody listens on now (the kernel's pick).
std::string url_of(int port) { return "http://127.0.0.1:" + std::to_string(port) + "/mcp"; }

/// ctxo-conform --url on the hostile server in MODE `mode`.
HarnessRun run_mode(const std::string& mode, const std::vector<std::string>& flags = {}) {
  const int port = free_port();
  std::vector<std::string> args = {"--seed", "1", "--calls", "3", "--no-cases", "--timeout", "5000",
                                   "--env", "PORT=" + std::to_string(port), "--env", "MODE=" + mode,
                                   "--url", url_of(port)};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "python3", server_script()});
  return run_harness(args);
}

std::size_t error_lines(const std::string& err) {
  std::size_t n = 0;
  for (std::size_t at = err.find("error:"); at != std::string::npos; at = err.find("error:", at + 1)) ++n;
  return n;
}

std::string message_of(const HarnessRun& r) {
  return r.report.is_object() && r.report["error"].is_object() ? r.report["error"].value("message", std::string())
                                                                : std::string();
}

// 401 to every request after initialize: exit 3, one error line naming the 401, the server's
// message (its escape character shown escaped) and WWW-Authenticate; the report written.
TEST(TransportFailures, UnauthorizedAfterInitializeIsExitThree) {
  HarnessRun r = run_mode("auth-after-init");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.report["verdict"], "error");
  EXPECT_EQ(r.report["error"].value("code", std::string()), "refused") << r.report["error"].dump();
  const std::string msg = message_of(r);
  EXPECT_NE(msg.find("HTTP 401 Unauthorized"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tools/list"), std::string::npos) << msg;
  EXPECT_NE(msg.find("WWW-Authenticate: Bearer realm="), std::string::npos) << msg;
  EXPECT_NE(msg.find("token expired"), std::string::npos) << msg;
  EXPECT_EQ(error_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("WWW-Authenticate"), std::string::npos) << r.err;
  EXPECT_EQ((r.out + r.err).find('\x1b'), std::string::npos) << "the server's escape reached the console";
  EXPECT_EQ((r.out + r.err).find("did not return a list of tools"), std::string::npos) << r.out << r.err;
  EXPECT_TRUE(r.error_ids().empty()) << r.report["findings"].dump(2);
}

// An initialize answer libcurl refuses: the run ends as not reached (exit 3) with libcurl's
// reason; nothing the server said is judged (no P-INIT, no T-HTTP-STATUS).
TEST(TransportFailures, AnswerLibcurlRefusesOnInitializeIsTheTransports) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"big-header-init", "Out of memory"}, {"nul-session-init", "Nul byte in header"}, {"huge-session-init", "Out of memory"}};
  for (const auto& [mode, reason] : cases) {
    SCOPED_TRACE(mode);
    HarnessRun r = run_mode(mode);
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    ASSERT_TRUE(r.report.is_object()) << r.err;
    const std::string msg = message_of(r);
    EXPECT_NE(msg.find("libcurl could not read the answer to initialize"), std::string::npos) << msg;
    EXPECT_NE(msg.find(reason), std::string::npos) << msg;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
    EXPECT_EQ(r.all_ids().count("P-INIT"), 0u) << r.report["findings"].dump(2);
    EXPECT_EQ(r.all_ids().count("T-HTTP-STATUS"), 0u) << r.report["findings"].dump(2);
    EXPECT_EQ((r.out + r.err).find("with no body"), std::string::npos) << r.out << r.err;
  }
}

// An Mcp-Session-Id with a lone CR in it ("abc\rX-Forged: 1") is T-HTTP-SESSION, and it is never
// sent back: sent, it would end our header and forge another. The server refuses any request
// carrying either header, so the calls are answered only when it is not sent (before: every call
// after initialize was refused).
TEST(TransportFailures, ASessionIdWithACarriageReturnIsNotSentBack) {
  HarnessRun r = run_mode("cr-session-init");
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.error_ids(), std::set<std::string>{"T-HTTP-SESSION"}) << r.report["findings"].dump(2);
  EXPECT_NE(r.report["findings"].dump().find("it is not sent back"), std::string::npos) << r.report["findings"].dump(2);
  EXPECT_GE(r.report["stats"].value("successes", 0), 1) << r.report["stats"].dump();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
}

// A tools/call answer with 100,000 header lines: libcurl refuses it; the calls are the
// transport's failures (a note with libcurl's reason), not T-HTTP-STATUS.
TEST(TransportFailures, AnswerLibcurlRefusesOnACallIsTheTransports) {
  HarnessRun r = run_mode("many-headers-call");
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.all_ids().count("T-HTTP-STATUS"), 0u) << r.report["findings"].dump(2);
  EXPECT_EQ(r.all_ids().count("P-INIT"), 0u) << r.report["findings"].dump(2);
  EXPECT_TRUE(r.error_ids().empty()) << r.report["findings"].dump(2);
  EXPECT_NE(r.report["notes"].dump().find("Too large response headers"), std::string::npos) << r.report["notes"].dump(2);
  EXPECT_NE((r.out + r.err).find("Too large response headers"), std::string::npos) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("with no body"), std::string::npos) << r.out << r.err;
}

// A 307 on initialize: exit 3 naming the status and the Location (never followed).
TEST(TransportFailures, RedirectOnInitializeNamesTheLocation) {
  const int port = free_port();
  const std::string url = url_of(port);
  HarnessRun r = run_harness({"--seed", "1", "--calls", "3", "--no-cases", "--env", "PORT=" + std::to_string(port),
                              "--env", "MODE=redirect-init", "--url", url, "--", "python3", server_script()});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  const std::string where = "http://127.0.0.1:" + std::to_string(port) + "/elsewhere/mcp";
  const std::string msg = message_of(r);
  EXPECT_NE(msg.find("HTTP 307"), std::string::npos) << msg;
  EXPECT_NE(msg.find("redirecting to " + where), std::string::npos) << msg;
  EXPECT_NE(msg.find("give --url " + where), std::string::npos) << msg;
  EXPECT_EQ(error_lines(r.err), 1u) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);  // no P-INIT
}

// A 307 to tools/call: the transport's failure, named with its Location in a note; not judged.
TEST(TransportFailures, RedirectOnACallIsTheTransports) {
  HarnessRun r = run_mode("redirect-call");
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.error_ids().empty()) << r.report["findings"].dump(2);
  const std::string notes = r.report["notes"].dump();
  EXPECT_NE(notes.find("HTTP 307 to tools/call redirecting to http://127.0.0.1:"), std::string::npos) << notes;
}

// An SSE event over --max-message-bytes says so, whether the stream ends it or not.
TEST(TransportFailures, SseEventOverMaxMessageBytesSaysSo) {
  for (const std::string mode : {"sse-cut", "sse-big"}) {
    SCOPED_TRACE(mode);
    HarnessRun r = run_mode(mode, {"--max-message-bytes", "2048", "--env", "SSE_BYTES=8192"});
    ASSERT_TRUE(r.report.is_object()) << r.err;
    const std::string all = r.report["findings"].dump();
    EXPECT_NE(all.find("--max-message-bytes"), std::string::npos) << r.report["findings"].dump(2);
    if (mode == "sse-cut") {
      EXPECT_NE(all.find("inside an event of"), std::string::npos) << r.report["findings"].dump(2);
      EXPECT_EQ(all.find("after 0 message(s) without"), std::string::npos) << r.report["findings"].dump(2);
    } else {
      EXPECT_EQ(r.all_ids().count("T-FRAMING"), 1u) << r.report["findings"].dump(2);
    }
    EXPECT_EQ(r.all_ids().count("T-HANG"), 0u) << r.report["findings"].dump(2);
  }
}

}  // namespace
}  // namespace ctxo::test
