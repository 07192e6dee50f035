// SPDX-License-Identifier: MIT
// transport::ResponseHeaders: the rules the Streamable HTTP transport reads a response's headers
// by (fed line by line, as libcurl's header callback gives them), and its bounds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/display.h"
#include "transport/http_headers.h"

namespace ctxo::transport {
namespace {

ResponseHeaders read(const std::vector<std::string>& lines) {
  ResponseHeaders h;
  for (const auto& l : lines) h.line(l);
  return h;
}

TEST(HttpHeaders, AnSdkStreamAnswer) {
  const auto h = read({"HTTP/1.1 200 OK\r\n", "content-type: text/event-stream\r\n", "cache-control: no-cache\r\n",
                       "mcp-session-id: 3f1c2a9e-8d47-4b6a-9e0f-2b7c1d5e6a90\r\n", "\r\n"});
  EXPECT_EQ(h.status(), 200);
  EXPECT_EQ(h.media_type(), "text/event-stream");
  EXPECT_TRUE(h.event_stream());
  EXPECT_EQ(h.session_id(), "3f1c2a9e-8d47-4b6a-9e0f-2b7c1d5e6a90");
  EXPECT_EQ(h.session_id_problem(), SessionIdProblem::kNone);
  EXPECT_EQ(h.lines(), 5u);
}

TEST(HttpHeaders, MediaTypeIsLowerCaseWithoutParameters) {
  const auto h = read({"HTTP/2 200\r\n", "Content-Type:  Application/JSON ; charset=utf-8\r\n"});
  EXPECT_EQ(h.status(), 200);
  EXPECT_EQ(h.media_type(), "application/json");
  EXPECT_EQ(h.content_type().text, "Application/JSON ; charset=utf-8");
  EXPECT_FALSE(h.event_stream());
  // An event stream only on a 2xx.
  EXPECT_FALSE(read({"HTTP/1.1 500 Oops\r\n", "Content-Type: text/event-stream\r\n"}).event_stream());
}

TEST(HttpHeaders, AStatusLineStartsAResponseAfresh) {
  const auto h = read({"HTTP/1.1 100 Continue\r\n", "Content-Type: text/plain\r\n", "Mcp-Session-Id: early\r\n",
                       "Location: /x\r\n", "\r\n", "HTTP/1.1 202 Accepted\r\n", "\r\n"});
  EXPECT_EQ(h.status(), 202);
  EXPECT_TRUE(h.content_type().empty());
  EXPECT_TRUE(h.location().empty());
  EXPECT_EQ(h.session_id(), "");
  EXPECT_EQ(h.lines(), 2u);
}

TEST(HttpHeaders, AStatusIsThreeDigits) {
  EXPECT_EQ(read({"HTTP/1.1 404 Not Found\r\n"}).status(), 404);
  EXPECT_EQ(read({"HTTP/2 503"}).status(), 503);
  EXPECT_EQ(read({"HTTP/1.1 20 OK\r\n"}).status(), 0);
  EXPECT_EQ(read({"HTTP/1.1 2000 OK\r\n"}).status(), 0);
  EXPECT_EQ(read({"HTTP/1.1 2x0 OK\r\n"}).status(), 0);
  EXPECT_EQ(read({"HTTP/1.1\r\n"}).status(), 0);
}

TEST(HttpHeaders, TheLastOfARepeatedHeaderWins) {
  const auto h = read({"HTTP/1.1 200 OK\r\n", "Mcp-Session-Id: one\r\n", "MCP-SESSION-ID: two\r\n"});
  EXPECT_EQ(h.session_id(), "two");
}

TEST(HttpHeaders, AFoldedLineContinuesThePreviousHeader) {
  const auto h = read({"HTTP/1.1 401 Unauthorized\r\n", "WWW-Authenticate: Bearer\r\n", "\trealm=\"mcp\"\r\n",
                       "X-Other: a\r\n", " Mcp-Session-Id: forged\r\n"});
  EXPECT_EQ(h.www_authenticate().text, "Bearer realm=\"mcp\"");
  // A folded line is never a header of its own, whatever it holds.
  EXPECT_TRUE(h.session_id_given().empty());
}

TEST(HttpHeaders, ASessionIdOutsideVisibleAsciiIsAProblemAndKeptOnlyWhenItCanBeSent) {
  // A space (the bad-session-id fixture): MCP's rule is broken, but the server needs it back.
  auto h = read({"HTTP/1.1 200 OK\r\n", "Mcp-Session-Id: sess 1234\r\n"});
  EXPECT_EQ(h.session_id_problem(), SessionIdProblem::kNotVisibleAscii);
  EXPECT_EQ(h.session_id(), "sess 1234");
  // UTF-8 is a legal header value too.
  h = read({"HTTP/1.1 200 OK\r\n", "Mcp-Session-Id: s\xc3\xa9ssion\r\n"});
  EXPECT_EQ(h.session_id_problem(), SessionIdProblem::kNotVisibleAscii);
  EXPECT_EQ(h.session_id(), "s\xc3\xa9ssion");
  // A CR inside would end the header we send and start another; NUL, ESC and DEL are no header bytes.
  for (const std::string& bad : {std::string("ab\rX-Forged: 1"), std::string("a\0b", 3), std::string("a\x1b[0m"),
                                std::string("a\x7f")}) {
    h = read({"HTTP/1.1 200 OK\r\n", "Mcp-Session-Id: " + bad + "\r\n"});
    EXPECT_EQ(h.session_id_problem(), SessionIdProblem::kNotVisibleAscii) << display_text(bad, false);
    EXPECT_EQ(h.session_id(), "") << display_text(bad, false);
    EXPECT_EQ(h.session_id_given().text, bad);
  }
}

TEST(HttpHeaders, ASessionIdOverItsCapIsNotKept) {
  const std::string at_cap(kMaxSessionIdBytes, 'a');
  EXPECT_EQ(read({"Mcp-Session-Id: " + at_cap + "\r\n"}).session_id(), at_cap);
  const auto h = read({"Mcp-Session-Id: " + at_cap + "b\r\n"});
  EXPECT_EQ(h.session_id_problem(), SessionIdProblem::kTooLong);
  EXPECT_EQ(h.session_id(), "");
  EXPECT_EQ(h.session_id_given().size, kMaxSessionIdBytes + 1);
  EXPECT_EQ(h.session_id_given().text.size(), kMaxSessionIdBytes);
}

TEST(HttpHeaders, HugeValuesAndManyLinesKeepOnlyTheCaps) {
  ResponseHeaders h;
  h.line("HTTP/1.1 307 Temporary Redirect\r\n");
  h.line("Location: http://127.0.0.1/" + std::string(5u << 20, 'x') + "\r\n");
  for (int i = 0; i < 100000; ++i) h.line("WWW-Authenticate: Bearer realm=\"r" + std::to_string(i) + "\"\r\n");
  EXPECT_EQ(h.location().size, 5u * 1024 * 1024 + 17);
  EXPECT_EQ(h.location().text.size(), kMaxHeaderTextBytes);
  EXPECT_EQ(h.www_authenticate().text, "Bearer realm=\"r99999\"");
  EXPECT_EQ(h.lines(), 100002u);
  // Shown: the first bytes and how many more there were, counted on the whole value.
  const std::string shown = h.location().shown(40);
  EXPECT_EQ(shown, "http://127.0.0.1/" + std::string(23, 'x') + "…(" + std::to_string(h.location().size - 40) +
                       " more bytes)");
}

TEST(HttpHeaders, AMediaTypeTooLongIsNone) {
  EXPECT_EQ(read({"Content-Type: " + std::string(kMaxMediaTypeBytes + 1, 'a') + "\r\n"}).media_type(), "");
  EXPECT_EQ(read({"Content-Type: " + std::string(kMaxMediaTypeBytes, 'a') + "; q=1\r\n"}).media_type(),
            std::string(kMaxMediaTypeBytes, 'a'));
  // Its parameters past the cap do not matter; its type cut by the cap is none.
  EXPECT_EQ(read({"Content-Type: text/event-stream;" + std::string(4000, 'p') + "\r\n"}).media_type(),
            "text/event-stream");
  EXPECT_EQ(read({"Content-Type: " + std::string(4000, 't') + "\r\n"}).media_type(), "");
}

TEST(HttpHeaders, ShownTextIsEscapedForAConsole) {
  const auto h = read({"HTTP/1.1 401 Unauthorized\r\n",
                       "WWW-Authenticate: Bearer error=\"\x1b[31mred\x1b[0m\" \xe2\x80\xae\x7f\xc2\x9b\xff\r\n"});
  const std::string shown = h.www_authenticate().shown(200);
  EXPECT_EQ(shown, "Bearer error=\"\\x1B[31mred\\x1B[0m\" \\u202E\\x7F\\u009B\\xFF");
  EXPECT_EQ(display_text(shown, false), shown);
  // The cut falls between escapes, never inside one.
  EXPECT_EQ(h.www_authenticate().shown(17), "Bearer error=\"…(" + std::to_string(h.www_authenticate().size - 14) +
                                                " more bytes)");
}

}  // namespace
}  // namespace ctxo::transport
