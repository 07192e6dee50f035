// SPDX-License-Identifier: MIT
// The MCP client over a scripted in-memory transport: matching, interleaving, framing problems,
// handshake negotiation of both eras, pagination.
#include "mcp/client.h"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <thread>

#include "core/text.h"

namespace ctxo::mcp {
namespace {

using namespace std::chrono_literals;

// A transport whose "server" is a function from each line the client sends to the lines it answers.
class ScriptedTransport : public transport::Transport {
 public:
  using Responder = std::function<std::vector<std::string>(const json& msg)>;
  explicit ScriptedTransport(Responder r) : responder_(std::move(r)) {}

  Result<void> send(std::string_view line) override {
    if (closed_) return make_error("closed", "stdin closed");
    sent.push_back(json::parse(line));
    for (auto& out : responder_(sent.back())) push(std::move(out));
    return {};
  }
  // Frames become readable `pace` apart, as if the server took that long to write each.
  transport::ReadResult receive(std::chrono::milliseconds timeout) override {
    transport::ReadResult rr;
    if (queue_.empty()) {
      rr.status = eof_when_empty ? transport::ReadStatus::kEof : transport::ReadStatus::kTimeout;
      return rr;
    }
    auto now = std::chrono::steady_clock::now();
    if (queue_.front().second > now + timeout) {
      std::this_thread::sleep_for(timeout);
      rr.status = transport::ReadStatus::kTimeout;
      return rr;
    }
    std::this_thread::sleep_until(queue_.front().second);
    rr.status = transport::ReadStatus::kFrame;
    if (queue_.front().first.size() > max_line) {  // cut as the real transport cuts it
      transport::Framer framer(max_line);
      framer.feed(queue_.front().first + "\n");
      rr.frame = *framer.next();
    } else {
      rr.frame.body = queue_.front().first;
      rr.frame.size = rr.frame.body.size();
      rr.frame.valid_utf8 = is_valid_utf8(rr.frame.body);
    }
    queue_.pop_front();
    return rr;
  }
  std::optional<transport::ExitStatus> exit_status() override { return std::nullopt; }
  std::string stderr_tail() const override { return ""; }
  transport::ExitStatus close(std::chrono::milliseconds) override {
    closed_ = true;
    return {};
  }
  void push(std::string line) {
    auto now = std::chrono::steady_clock::now();
    auto at = std::max(now, last_ready_) + pace;
    last_ready_ = at;
    queue_.emplace_back(std::move(line), at);
  }

  std::vector<json> sent;
  bool eof_when_empty = false;
  std::chrono::milliseconds pace{0};
  std::size_t max_line = std::size_t{64} << 20;  ///< Longer lines arrive as oversize frames.

 private:
  Responder responder_;
  std::deque<std::pair<std::string, std::chrono::steady_clock::time_point>> queue_;
  std::chrono::steady_clock::time_point last_ready_{};
  bool closed_ = false;
};

std::string ok(const json& id, const json& result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump();
}

json init_result(const std::string& v) {
  return {{"protocolVersion", v}, {"capabilities", {{"tools", json::object()}}},
          {"serverInfo", {{"name", "s"}, {"version", "1"}}}};
}

// A legacy server: refuses server/discover, answers initialize with `version`.
ScriptedTransport::Responder legacy(std::string version, std::function<std::vector<std::string>(const json&)> rest = {}) {
  return [version, rest](const json& m) -> std::vector<std::string> {
    if (!m.contains("id")) return {};
    if (m.value("method", "") == "server/discover")
      return {json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"error", {{"code", -32601}, {"message", "Method not found"}}}}
                  .dump()};
    if (m.value("method", "") == "initialize") return {ok(m["id"], init_result(version))};
    if (rest) return rest(m);
    return {};
  };
}

ClientOptions fast() {
  ClientOptions o;
  o.timeout = 50ms;
  return o;
}

TEST(Client, LegacyHandshakeFallsBackFromDiscoverAndSendsInitialized) {
  ScriptedTransport t(legacy("2025-06-18"));
  Client c(t, fast());
  auto info = c.handshake("");
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->era, "legacy");
  EXPECT_EQ(info->protocol_version, "2025-06-18");
  EXPECT_EQ(info->name, "s");
  ASSERT_EQ(t.sent.size(), 3u);
  EXPECT_EQ(t.sent[0]["method"], "server/discover");
  EXPECT_EQ(t.sent[1]["method"], "initialize");
  EXPECT_EQ(t.sent[1]["params"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(t.sent[2]["method"], "notifications/initialized");
  EXPECT_FALSE(t.sent[2].contains("id"));
  EXPECT_TRUE(c.take_observations().empty());
}

TEST(Client, ForcedLegacySkipsTheProbe) {
  ScriptedTransport t(legacy("2025-11-25"));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  EXPECT_EQ(t.sent[0]["method"], "initialize");
}

TEST(Client, InitializeErrorNamingSupportedVersionsIsRetried) {
  ScriptedTransport t([](const json& m) -> std::vector<std::string> {
    if (!m.contains("id")) return {};
    if (m["method"] == "server/discover") return {};  // no answer at all: fall back on timeout
    if (m["params"]["protocolVersion"] == "2024-11-05") return {ok(m["id"], init_result("2024-11-05"))};
    return {json{{"jsonrpc", "2.0"},
                 {"id", m["id"]},
                 {"error", {{"code", -32602}, {"message", "Unsupported protocol version"},
                            {"data", {{"supported", {"2024-11-05"}}}}}}}
                .dump()};
  });
  Client c(t, fast());
  std::vector<Reply> attempts;
  auto info = c.handshake("", &attempts);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->protocol_version, "2024-11-05");
  ASSERT_EQ(attempts.size(), 3u);  // probe (timeout), 2025-11-25 (error), 2024-11-05 (ok)
  EXPECT_EQ(attempts[0].kind, Reply::Kind::kTimeout);
  EXPECT_EQ(attempts[1].kind, Reply::Kind::kError);
}

TEST(Client, ModernEraPutsMetaOnEveryRequest) {
  ScriptedTransport t([](const json& m) -> std::vector<std::string> {
    if (m["method"] == "server/discover")
      return {ok(m["id"], {{"supportedVersions", {"2026-07-28"}}, {"capabilities", {{"tools", json::object()}}}})};
    return {ok(m["id"], {{"tools", json::array()}})};
  });
  Client c(t, fast());
  auto info = c.handshake("");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->era, "modern");
  c.list_tools();
  ASSERT_EQ(t.sent.size(), 2u);
  EXPECT_EQ(t.sent[1]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  EXPECT_TRUE(t.sent[1]["params"]["_meta"].contains("io.modelcontextprotocol/clientCapabilities"));
  EXPECT_TRUE(c.replay_prelude().empty());
}

TEST(Client, AnswersPingRefusesOtherServerRequestsAndToleratesNotifications) {
  ScriptedTransport t(legacy("2025-11-25", [](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    return {R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}})",
            R"({"jsonrpc":"2.0","id":"s1","method":"ping"})",
            R"({"jsonrpc":"2.0","id":"s2","method":"sampling/createMessage","params":{}})",
            ok(m["id"], {{"content", json::array()}})};
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  Reply r = c.call_tool("x", json::object());
  ASSERT_EQ(r.kind, Reply::Kind::kResult);
  EXPECT_TRUE(c.take_observations().empty());
  EXPECT_EQ(c.traffic().notifications, 1u);
  EXPECT_EQ(c.traffic().pings_answered, 1u);
  // The client's answers: {} for ping, -32601 for the rest, each with the server's id.
  bool ping_ok = false, sampling_refused = false;
  for (const auto& s : t.sent) {
    if (s.value("id", json()) == "s1") ping_ok = s.contains("result") && s["result"] == json::object();
    if (s.value("id", json()) == "s2") sampling_refused = s["error"]["code"] == -32601;
  }
  EXPECT_TRUE(ping_ok);
  EXPECT_TRUE(sampling_refused);
}

TEST(Client, LogLineOnStdoutIsAFramingObservationButTheReplyArrives) {
  ScriptedTransport t(legacy("2025-11-25", [](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    return {"log: working", ok(m["id"], {{"content", json::array()}})};
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  Reply r = c.call_tool("x", json::object());
  EXPECT_EQ(r.kind, Reply::Kind::kResult);
  auto obs = c.take_observations();
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].invariant, "T-FRAMING");
  EXPECT_NE(obs[0].excerpt.find("log: working"), std::string::npos);
  EXPECT_EQ(obs[0].related_request["method"], "tools/call");
}

TEST(Client, PrettyPrintedMessageIsRecoveredAndReportedOnce) {
  ScriptedTransport t(legacy("2025-11-25", [](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    std::string pretty = json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", {{"content", json::array()}}}}.dump(2);
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= pretty.size(); ++i)
      if (i == pretty.size() || pretty[i] == '\n') lines.push_back(pretty.substr(start, i - start)), start = i + 1;
    return lines;
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  Reply r = c.call_tool("x", json::object());
  EXPECT_EQ(r.kind, Reply::Kind::kResult);
  auto obs = c.take_observations();
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].invariant, "T-FRAMING");
  EXPECT_NE(obs[0].diagnosis.find("split over"), std::string::npos);
}

TEST(Client, InvalidUtf8IsReportedAndTheReplyStillMatches) {
  ScriptedTransport t(legacy("2025-11-25", [](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    return {R"({"jsonrpc":"2.0","id":)" + m["id"].dump() +
            R"(,"result":{"content":[{"type":"text","text":"bad )" + std::string("\xFF") + R"("}]}})"};
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  Reply r = c.call_tool("x", json::object());
  ASSERT_EQ(r.kind, Reply::Kind::kResult);
  EXPECT_EQ(r.result["content"][0]["text"], "bad \xEF\xBF\xBD");
  auto obs = c.take_observations();
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_NE(obs[0].diagnosis.find("0xFF"), std::string::npos);
}

// A lone surrogate escape is JSON's grammar but no Unicode (nlohmann, like serde_json, refuses
// it): the answer is still read, with U+FFFD in its place, and said once. A pair is no finding,
// and an escaped backslash before "udc00" is no escape at all.
TEST(Client, LoneSurrogateEscapeIsReportedAndTheReplyStillMatches) {
  EXPECT_EQ(replace_lone_surrogate_escapes(R"("a\udc00b\ud83d\ude00\\udc00\ud800")"),
            R"("a\uFFFDb\ud83d\ude00\\udc00\uFFFD")");
  std::size_t at = 0;
  EXPECT_EQ(replace_lone_surrogate_escapes(R"("\ud83d\ude00")", &at), R"("\ud83d\ude00")");
  EXPECT_EQ(at, std::string::npos);
  ScriptedTransport t(legacy("2025-11-25", [](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    return {R"({"jsonrpc":"2.0","id":)" + m["id"].dump() + R"(,"result":{"content":[{"type":"text","text":"x\udc00"}]}})"};
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  Reply r = c.call_tool("x", json::object());
  ASSERT_EQ(r.kind, Reply::Kind::kResult);
  EXPECT_EQ(r.result["content"][0]["text"], "x\xEF\xBF\xBD");
  auto obs = c.take_observations();
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].invariant, "T-FRAMING");
  EXPECT_NE(obs[0].diagnosis.find("lone UTF-16 surrogate"), std::string::npos) << obs[0].diagnosis;
}

// A string cut inside a character is the cutting code's defect, not the transport's: a high
// surrogate that ends its string (JavaScript's slice) or two of an emoji's four UTF-8 bytes before
// the string's end (a cut by bytes) is TR-VERBATIM cut-splits-character, once, on the call the
// message answers; the reply is still read, with U+FFFD for the half.
TEST(Client, AStringCutInsideACharacterIsTheCutsFindingNotTheTransports) {
  for (const std::string& cut : {std::string(R"(\ud83d)"), std::string("\xF0\x9F")}) {
    SCOPED_TRACE(cut);
    ScriptedTransport t(legacy("2025-11-25", [&](const json& m) -> std::vector<std::string> {
      if (m.value("method", "") != "tools/call") return {};
      return {R"({"jsonrpc":"2.0","id":)" + m["id"].dump() + R"(,"result":{"content":[{"type":"text","text":"go )" + cut +
              R"("}]}})"};
    }));
    Client c(t, fast());
    ASSERT_TRUE(c.handshake("legacy").ok());
    Reply r = c.call_tool("x", json::object());
    ASSERT_EQ(r.kind, Reply::Kind::kResult);
    EXPECT_EQ(r.result["content"][0]["text"].get<std::string>().substr(0, 3), "go ");
    auto obs = c.take_observations();
    ASSERT_EQ(obs.size(), 1u);
    EXPECT_EQ(obs[0].invariant, "TR-VERBATIM");
    EXPECT_EQ(obs[0].cause.at("form"), "cut-splits-character");
    EXPECT_NE(obs[0].diagnosis.find("a cut split a character"), std::string::npos) << obs[0].diagnosis;
    EXPECT_EQ(obs[0].related_request, r.request);
  }
}

// Messages that JSON's grammar allows but its readers disagree on are the transport's finding,
// once each, and the call is still answered (issue 45): a number no double holds (read as null:
// it used to make the message unreadable and the call a false T-HANG), a key held twice (the last
// value kept; a warning: RFC 8259's SHOULD), a byte-order mark before the message (read without
// it). A response with both result and error is T-FRAMING, and not the tool's answer to judge
// (it was P-NO-THROW, blaming the tool for a malformed message).
TEST(Client, MessagesItsReadersDisagreeOnAreTheTransportsFindingAndTheCallIsAnswered) {
  struct Case {
    const char* form;
    std::string head, tail;
    bool warning;
  };
  const std::vector<Case> cases = {
      {"number-out-of-range", "", R"(,"result":{"content":[{"type":"text","text":"n"}],"n":1e999}})", false},
      {"duplicate-key", "", R"(,"result":{"content":[{"type":"text","text":"a"}],"content":[{"type":"text","text":"b"}]}})", true},
      {"byte-order-mark", "\xEF\xBB\xBF", R"(,"result":{"content":[{"type":"text","text":"b"}]}})", false},
      {"result-and-error", "", R"(,"result":{"content":[]},"error":{"code":-32603,"message":"x"}})", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.form);
    ScriptedTransport t(legacy("2025-11-25", [&](const json& m) -> std::vector<std::string> {
      if (m.value("method", "") != "tools/call") return {};
      return {c.head + R"({"jsonrpc":"2.0","id":)" + m["id"].dump() + c.tail};
    }));
    Client cl(t, fast());
    ASSERT_TRUE(cl.handshake("legacy").ok());
    Reply r = cl.call_tool("x", json::object());
    auto obs = cl.take_observations();
    ASSERT_EQ(obs.size(), 1u);
    EXPECT_EQ(obs[0].invariant, "T-FRAMING");
    EXPECT_EQ(obs[0].cause.at("form"), c.form);
    EXPECT_EQ(obs[0].warning, c.warning);
    if (std::string(c.form) == "result-and-error") {
      EXPECT_EQ(r.kind, Reply::Kind::kError);
      EXPECT_FALSE(r.transport_failure.empty());  // not judged as the tool's answer
      EXPECT_EQ(obs[0].related_request, r.request);
    } else {
      ASSERT_EQ(r.kind, Reply::Kind::kResult);
      EXPECT_TRUE(r.transport_failure.empty());
    }
  }
  // What was read: the number as null, the last of two keys.
  ScriptedTransport t(legacy("2025-11-25", [&](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    return {R"({"jsonrpc":"2.0","id":)" + m["id"].dump() + R"(,"result":{"n":-2E+999,"k":1,"k":2,"content":[]}})"};
  }));
  Client cl(t, fast());
  ASSERT_TRUE(cl.handshake("legacy").ok());
  Reply r = cl.call_tool("x", json::object());
  ASSERT_EQ(r.kind, Reply::Kind::kResult);
  EXPECT_TRUE(r.result["n"].is_null());
  EXPECT_EQ(r.result["k"], 2);
  EXPECT_EQ(cl.take_observations().size(), 2u);
}

// An answer longer than the maximum message size is skipped (T-FRAMING). When its id can be
// read from the kept head or tail, the call ends at once with `oversize`; otherwise it waits out
// the timeout like any unanswered call.
TEST(Client, OversizeAnswerEndsItsCallWhenItsIdIsFound) {
  const std::string big(20000, 'x');
  struct Shape {
    std::string name;
    std::function<std::string(const json& id)> line;
    bool recognised;
  };
  const std::vector<Shape> shapes = {
      {"id first", [&](const json& id) { return ok(id, {{"content", {{{"type", "text"}, {"text", big}}}}}); }, true},
      {"id last (TypeScript SDK order)",
       [&](const json& id) {
         return R"({"result":{"content":[{"type":"text","text":")" + big + R"("}]},"jsonrpc":"2.0","id":)" + id.dump() + "}";
       },
       true},
      {"another request's id, spaced out",
       [&](const json&) { return R"({"result":{"t":")" + big + R"("} , "id" : "s-1" })"; }, false},
      {"only a nested id",
       [&](const json& id) { return R"({"jsonrpc":"2.0","result":{"id":)" + id.dump() + R"(,"t":")" + big + R"("}})"; },
       false},
      {"a request",
       [&](const json& id) { return R"({"jsonrpc":"2.0","method":"x","id":)" + id.dump() + R"(,"params":{"t":")" + big + R"("}})"; },
       false},
  };
  for (const auto& shape : shapes) {
    ScriptedTransport t(legacy("2025-11-25", [&](const json& m) -> std::vector<std::string> {
      if (m.value("method", "") != "tools/call") return {};
      return {shape.line(m["id"])};
    }));
    t.max_line = 4096;
    ClientOptions o = fast();
    o.timeout = 1000ms;
    o.hang_confirm = 100ms;  // an unrecognised answer is a hang like any other; keep confirming it short
    Client c(t, o);
    ASSERT_TRUE(c.handshake("legacy").ok());
    Reply r = c.call_tool("x", json::object());
    EXPECT_EQ(r.kind, Reply::Kind::kTimeout) << shape.name;
    EXPECT_EQ(r.oversize, shape.recognised) << shape.name;
    if (shape.recognised) EXPECT_LT(r.elapsed, 900ms) << shape.name;  // not the timeout
    else EXPECT_GE(r.elapsed, 1000ms) << shape.name;
    auto obs = c.take_observations();
    ASSERT_FALSE(obs.empty()) << shape.name;
    EXPECT_EQ(obs[0].invariant, "T-FRAMING") << shape.name;
  }
}

TEST(Client, WrongIdIsAnIdObservationAndTheRequestTimesOutWithStraySeen) {
  ScriptedTransport t(legacy("2025-11-25", [](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    return {ok(m["id"].get<int>() + 1000, {{"content", json::array()}})};
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  Reply r = c.call_tool("x", json::object());
  EXPECT_EQ(r.kind, Reply::Kind::kTimeout);
  EXPECT_TRUE(r.stray_seen);
  auto obs = c.take_observations();
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].invariant, "T-ID");
}

TEST(Client, DuplicateResponseIsReportedAgainstTheOriginalRequest) {
  ScriptedTransport t(legacy("2025-11-25", [](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    auto line = ok(m["id"], {{"content", json::array()}});
    return {line, line};
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  Reply r = c.call_tool("dup", json::object());
  EXPECT_EQ(r.kind, Reply::Kind::kResult);
  c.drain(10ms);
  auto obs = c.take_observations();
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].invariant, "T-ID");
  EXPECT_EQ(obs[0].related_request["params"]["name"], "dup");
}

TEST(Client, LateAnswerToATimedOutRequestIsNotAnIdViolation) {
  ScriptedTransport t(legacy("2025-11-25"));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  Reply r = c.call_tool("slow", json::object());
  ASSERT_EQ(r.kind, Reply::Kind::kTimeout);
  t.push(ok(r.request["id"], {{"content", json::array()}}));
  c.drain(10ms);
  EXPECT_TRUE(c.take_observations().empty());
}

// A slow tool: five frames 40 ms apart, then the result, against a 100 ms timeout.
ScriptedTransport::Responder slow_tool(bool with_progress) {
  return legacy("2025-11-25", [with_progress](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    std::vector<std::string> out;
    json token = m["params"]["_meta"]["progressToken"];
    for (int i = 1; i <= 5; ++i)
      out.push_back(json{{"jsonrpc", "2.0"},
                         {"method", with_progress ? "notifications/progress" : "notifications/message"},
                         {"params", {{"progressToken", token}, {"progress", i}, {"level", "info"}, {"data", i}}}}
                        .dump());
    out.push_back(ok(m["id"], {{"content", json::array()}}));
    return out;
  });
}

TEST(Client, ProgressRestartsTheTimeout) {
  ScriptedTransport t(slow_tool(true));
  ClientOptions o;
  o.timeout = 100ms;
  Client c(t, o);
  ASSERT_TRUE(c.handshake("legacy").ok());
  t.pace = 40ms;
  Reply r = c.call_tool("slow", json::object());
  EXPECT_EQ(r.kind, Reply::Kind::kResult);
  EXPECT_TRUE(r.progressed);
  EXPECT_FALSE(r.late);  // every frame came within the window
  EXPECT_EQ(c.traffic().progress, 5u);
  EXPECT_TRUE(t.sent.back()["params"]["_meta"]["progressToken"].is_string());
}

TEST(Client, OtherNotificationsDoNotRestartTheTimeout) {
  ScriptedTransport t(slow_tool(false));
  ClientOptions o;
  o.timeout = 100ms;
  Client c(t, o);
  ASSERT_TRUE(c.handshake("legacy").ok());
  t.pace = 40ms;
  EXPECT_EQ(c.call_tool("slow", json::object(), false).kind, Reply::Kind::kTimeout);
}

TEST(Client, ProgressCannotExtendPastTheMaximum) {
  ScriptedTransport t(slow_tool(true));
  ClientOptions o;
  o.timeout = 100ms;
  o.hang_confirm = 10ms;  // so that max_total, not timeout + confirmation, is the bound
  o.max_total = 120ms;
  Client c(t, o);
  ASSERT_TRUE(c.handshake("legacy").ok());
  t.pace = 40ms;
  EXPECT_EQ(c.call_tool("slow", json::object()).kind, Reply::Kind::kTimeout);
}

// Hang confirmation. The durations are small; the assertions are about kinds and order (lower
// bounds on elapsed time only), since a loaded machine can stretch any wait.

// A tool that answers once, one `pace` after the call, and sends nothing before.
ScriptedTransport::Responder answers_once() {
  return legacy("2025-11-25", [](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    return {ok(m["id"], {{"content", json::array()}})};
  });
}

TEST(Client, HangConfirmDefaultsToFiveTimeoutsAtMostAMinute) {
  ClientOptions o;
  o.timeout = 10s;
  EXPECT_EQ(hang_confirm_bound(o), 50s);
  o.timeout = 20s;
  EXPECT_EQ(hang_confirm_bound(o), 60s);
  o.hang_confirm = 90s;  // an explicit bound is taken as given
  EXPECT_EQ(hang_confirm_bound(o), 90s);
  o.hang_confirm = 0ms;
  EXPECT_EQ(hang_confirm_bound(o), 0ms);
}

// ClientOptions::handshake_timeout is how long the handshake waits; every request after it waits
// `timeout` (an instance started again gets longer to answer initialize than its calls get).
TEST(Client, HandshakeTimeoutIsTheHandshakesOnly) {
  ClientOptions o;
  o.timeout = 50ms;
  o.hang_confirm = 0ms;
  {
    ScriptedTransport t(answers_once());
    t.pace = 200ms;
    Client c(t, o);
    auto info = c.handshake("legacy");
    ASSERT_FALSE(info.ok());
    EXPECT_NE(info.error().message.find("within 50 ms"), std::string::npos) << info.error().message;
  }
  o.handshake_timeout = 5000ms;
  ScriptedTransport t(answers_once());
  t.pace = 200ms;
  Client c(t, o);
  ASSERT_TRUE(c.handshake("legacy").ok());
  EXPECT_EQ(c.call_tool("slow", json::object()).kind, Reply::Kind::kTimeout);
}

TEST(Client, AnswerDuringConfirmationIsALateResult) {
  ScriptedTransport t(answers_once());
  ClientOptions o;
  o.timeout = 30ms;
  o.hang_confirm = 2000ms;
  Client c(t, o);
  ASSERT_TRUE(c.handshake("legacy").ok());
  t.pace = 90ms;  // three windows of silence
  Reply r = c.call_tool("slow", json::object());
  ASSERT_EQ(r.kind, Reply::Kind::kResult);
  EXPECT_TRUE(r.late);
  EXPECT_FALSE(r.progressed);
  EXPECT_GE(r.elapsed, o.timeout);
  EXPECT_TRUE(c.take_observations().empty());
}

TEST(Client, AnswerWithinTheWindowIsNotLate) {
  ScriptedTransport t(answers_once());
  ClientOptions o;
  o.timeout = 1000ms;
  Client c(t, o);
  ASSERT_TRUE(c.handshake("legacy").ok());
  Reply r = c.call_tool("quick", json::object());
  ASSERT_EQ(r.kind, Reply::Kind::kResult);
  EXPECT_FALSE(r.late);
}

TEST(Client, NoAnswerIsAConfirmedHangAfterTimeoutAndConfirmation) {
  ScriptedTransport t(legacy("2025-11-25"));  // never answers tools/call
  ClientOptions o;
  o.timeout = 30ms;
  o.hang_confirm = 60ms;
  Client c(t, o);
  ASSERT_TRUE(c.handshake("legacy").ok());
  Reply r = c.call_tool("stuck", json::object());
  EXPECT_EQ(r.kind, Reply::Kind::kTimeout);
  EXPECT_FALSE(r.late);
  EXPECT_GE(r.elapsed, o.timeout + *o.hang_confirm);
}

// Progress 1.2 timeouts apart, for longer than timeout + confirmation in all: each gap is
// covered by confirmation and each progress restarts the window, so the answer arrives.
TEST(Client, ProgressSlowerThanTheTimeoutStillCountsAsLiveness) {
  auto progress_then_answer = legacy("2025-11-25", [](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    std::vector<std::string> out;
    json token = m["params"]["_meta"]["progressToken"];
    for (int i = 1; i <= 8; ++i)
      out.push_back(json{{"jsonrpc", "2.0"},
                         {"method", "notifications/progress"},
                         {"params", {{"progressToken", token}, {"progress", i}}}}
                        .dump());
    out.push_back(ok(m["id"], {{"content", json::array()}}));
    return out;
  });
  ClientOptions o;
  o.timeout = 50ms;
  o.hang_confirm = 200ms;
  {
    ScriptedTransport t(progress_then_answer);
    Client c(t, o);
    ASSERT_TRUE(c.handshake("legacy").ok());
    t.pace = 60ms;  // the answer comes after 9 x 60 = 540 ms > timeout + confirmation
    Reply r = c.call_tool("slow", json::object());
    ASSERT_EQ(r.kind, Reply::Kind::kResult);
    EXPECT_TRUE(r.progressed);
    EXPECT_TRUE(r.late);
    EXPECT_GE(r.elapsed, o.timeout + *o.hang_confirm);
    EXPECT_EQ(c.traffic().progress, 8u);
  }
  {  // the same tool without confirmation: the first window passes before the first progress
    ScriptedTransport t(progress_then_answer);
    Client c(t, o);
    ASSERT_TRUE(c.handshake("legacy").ok());
    t.pace = 60ms;
    Reply r = c.call_tool("slow", json::object(), false);
    EXPECT_EQ(r.kind, Reply::Kind::kTimeout);
    EXPECT_FALSE(r.progressed);
  }
}

TEST(Client, ConfirmationOffTimesOutAtTheTimeout) {
  ClientOptions o;
  o.timeout = 30ms;
  o.hang_confirm = 5000ms;
  {  // per call
    ScriptedTransport t(answers_once());
    Client c(t, o);
    ASSERT_TRUE(c.handshake("legacy").ok());
    t.pace = 150ms;  // would be a late result with confirmation
    Reply r = c.call_tool("slow", json::object(), false);
    EXPECT_EQ(r.kind, Reply::Kind::kTimeout);
    EXPECT_FALSE(r.late);
    EXPECT_GE(r.elapsed, o.timeout);
    EXPECT_LT(r.elapsed, *o.hang_confirm);
    c.drain(300ms);  // the answer still comes, to an abandoned request: not a finding
    EXPECT_TRUE(c.take_observations().empty());
  }
  {  // by option
    o.hang_confirm = 0ms;
    ScriptedTransport t(answers_once());
    Client c(t, o);
    ASSERT_TRUE(c.handshake("legacy").ok());
    t.pace = 150ms;
    Reply r = c.call_tool("slow", json::object());
    EXPECT_EQ(r.kind, Reply::Kind::kTimeout);  // before the answer came
    EXPECT_FALSE(r.late);
  }
}

// The handshake gives up after one window, as before: a server that never answers initialize
// costs the timeout, not the confirmation.
TEST(Client, HandshakeDoesNotConfirm) {
  ScriptedTransport t([](const json&) -> std::vector<std::string> { return {}; });
  ClientOptions o;
  o.timeout = 30ms;
  o.hang_confirm = 5000ms;
  Client c(t, o);
  std::vector<Reply> attempts;
  EXPECT_FALSE(c.handshake("legacy", &attempts).ok());
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0].kind, Reply::Kind::kTimeout);
  EXPECT_LT(attempts[0].elapsed, *o.hang_confirm);
}

TEST(Client, EofIsClosed) {
  ScriptedTransport t(legacy("2025-11-25"));
  t.eof_when_empty = true;
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  EXPECT_EQ(c.call_tool("x", json::object()).kind, Reply::Kind::kClosed);
  EXPECT_TRUE(c.closed());
}

TEST(Client, PaginationIsFollowedAndLoopsDetected) {
  ScriptedTransport t(legacy("2025-11-25", [](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/list") return {};
    std::string cursor = m["params"].value("cursor", "");
    json tools = json::array({{{"name", "t" + cursor}, {"inputSchema", {{"type", "object"}}}}});
    json res = {{"tools", tools}};
    if (cursor.empty()) res["nextCursor"] = "a";
    else if (cursor == "a") res["nextCursor"] = "b";
    else if (cursor == "b") res["nextCursor"] = "a";  // loop
    return {ok(m["id"], res)};
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  auto listing = c.list_tools();
  EXPECT_TRUE(listing.cursor_loop);
  EXPECT_EQ(listing.tool_count, 3u);
  EXPECT_EQ(listing.pages.size(), 3u);
  const auto tools = listing.take_tools();
  ASSERT_EQ(tools.size(), 3u);
  EXPECT_TRUE(tools[0].is_object());
}

// Issue 44: "" is a live cursor (its page is fetched); a cursor handed back as it was sent is
// stuck; a page listing only earlier pages' items ends the walk; resources/list walks the same way.
TEST(Client, EmptyCursorIsLiveAndStuckCursorsStop) {
  auto serve = [](std::string mode) {
    return legacy("2025-11-25", [mode](const json& m) -> std::vector<std::string> {
      const std::string method = m.value("method", "");
      if (method != "tools/list" && method != "resources/list") return {};
      const bool has = m.contains("params") && m["params"].contains("cursor");
      const std::string cursor = has ? m["params"]["cursor"].get<std::string>() : "-";
      const bool tools = method == "tools/list";
      auto item = [&](const std::string& n) {
        return tools ? json{{"name", n}, {"inputSchema", {{"type", "object"}}}} : json{{"uri", "mem://" + n}, {"name", n}};
      };
      json res = {{tools ? "tools" : "resources", json::array({item(cursor == "-" ? "first" : "second" + cursor)})}};
      if (mode == "empty" && cursor == "-") res["nextCursor"] = "";
      if (mode == "stuck") res["nextCursor"] = "s";
      if (mode == "same") {  // every cursor new, every page the first page
        res[tools ? "tools" : "resources"] = json::array({item("first")});
        res["nextCursor"] = "c" + std::to_string(m["id"].get<int>());
      }
      return {ok(m["id"], res)};
    });
  };
  {
    ScriptedTransport t(serve("empty"));
    Client c(t, fast());
    ASSERT_TRUE(c.handshake("legacy").ok());
    auto l = c.list_tools();
    EXPECT_TRUE(l.complete());
    EXPECT_TRUE(l.paginated);
    ASSERT_EQ(l.pages.size(), 2u);
    EXPECT_EQ(l.pages[1].request["params"]["cursor"], "");
    EXPECT_EQ(l.tool_count, 2u);
  }
  {
    ScriptedTransport t(serve("stuck"));
    Client c(t, fast());
    ASSERT_TRUE(c.handshake("legacy").ok());
    auto l = c.list("resources/list", "resources", Client::ListBounds{});
    EXPECT_TRUE(l.cursor_stuck);
    EXPECT_FALSE(l.cursor_loop);
    EXPECT_EQ(l.pages.size(), 2u);
    EXPECT_EQ(l.method, "resources/list");
  }
  {
    ScriptedTransport t(serve("same"));
    Client c(t, fast());
    ASSERT_TRUE(c.handshake("legacy").ok());
    auto l = c.list_tools();
    EXPECT_TRUE(l.repeated_page);
    EXPECT_FALSE(l.complete());
    EXPECT_EQ(l.pages.size(), 2u);  // not 200
  }
}

TEST(Client, ListChangedNotificationsAreCountedAndCapabilitiesKept) {
  ScriptedTransport t(legacy("2025-11-25", [](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    return {R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})",
            R"({"jsonrpc":"2.0","method":"notifications/prompts/list_changed"})",
            R"({"jsonrpc":"2.0","method":"notifications/other/list_changed"})",
            ok(m["id"], {{"content", json::array()}})};
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  EXPECT_TRUE(c.capabilities().is_object());
  (void)c.call_tool("x", json::object());
  EXPECT_EQ(c.traffic().list_changed.at("tools"), 1u);
  EXPECT_EQ(c.traffic().list_changed.at("prompts"), 1u);
  EXPECT_EQ(c.traffic().list_changed.count("other"), 0u);
  ScriptedTransport t2(legacy("2025-11-25"));
  Client c2(t2, fast());
  EXPECT_NE(c.serial(), c2.serial());
}

// A server that holds tools/call requests until `n` are in flight, then answers them through
// `answer` (all the held requests, in the order sent).
ScriptedTransport::Responder holding(std::size_t n, std::function<std::vector<std::string>(const std::vector<json>&)> answer) {
  auto held = std::make_shared<std::vector<json>>();
  return legacy("2025-11-25", [=](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    held->push_back(m);
    if (held->size() < n) return {};
    auto out = answer(*held);
    held->clear();
    return out;
  });
}

std::string echo(const json& request) {
  return ok(request["id"], {{"content", {{{"type", "text"}, {"text", request["params"]["arguments"].dump()}}}}});
}

std::vector<Client::BatchCall> three_calls() {
  return {{"get", json{{"k", 1}}}, {"get", json{{"k", 2}}}, {"other", json{{"k", 3}}}};
}

TEST(ClientBatch, AnswersInAnyOrderAreMatchedById) {
  ScriptedTransport t(holding(3, [](const std::vector<json>& held) {
    return std::vector<std::string>{echo(held[2]), echo(held[0]), echo(held[1])};
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  c.set_next_id(500);
  auto replies = c.call_tools(three_calls());
  ASSERT_EQ(replies.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(replies[i].kind, Reply::Kind::kResult) << i;
    EXPECT_EQ(replies[i].request["id"], 500 + static_cast<int>(i));
    EXPECT_EQ(replies[i].result["content"][0]["text"], (json{{"k", i + 1}}).dump()) << "each answer is its own request's";
    EXPECT_EQ(replies[i].request["params"]["_meta"]["progressToken"], "ctxo-" + std::to_string(500 + i));
  }
  EXPECT_EQ(replies[2].request["params"]["name"], "other");
  EXPECT_TRUE(c.take_observations().empty());
  // All three were sent before any answer came.
  ASSERT_EQ(t.sent.size(), 5u);
  // Ids go on after the batch: the next request does not reuse one.
  EXPECT_EQ(c.set_next_id(0), 503);
}

TEST(ClientBatch, AnAnswerUnderAStrayIdIsOneIdObservationAndItsRequestIsNotAHang) {
  ScriptedTransport t(holding(3, [](const std::vector<json>& held) {
    json wrong = held[1];
    wrong["id"] = 99999;
    return std::vector<std::string>{echo(held[0]), echo(wrong), echo(held[2])};
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  auto replies = c.call_tools(three_calls(), false);
  EXPECT_EQ(replies[0].kind, Reply::Kind::kResult);
  EXPECT_EQ(replies[2].kind, Reply::Kind::kResult);
  EXPECT_EQ(replies[1].kind, Reply::Kind::kTimeout);
  EXPECT_TRUE(replies[1].stray_seen) << "a timeout after a stray id is T-ID's, not T-HANG's";
  auto obs = c.take_observations();
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].invariant, "T-ID");
  EXPECT_NE(obs[0].diagnosis.find("99999"), std::string::npos) << obs[0].diagnosis;
}

TEST(ClientBatch, ASecondAnswerForOneIdIsOneIdObservation) {
  ScriptedTransport t(holding(3, [](const std::vector<json>& held) {
    return std::vector<std::string>{echo(held[0]), echo(held[0]), echo(held[1]), echo(held[2])};
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  auto replies = c.call_tools(three_calls());
  for (const auto& r : replies) EXPECT_EQ(r.kind, Reply::Kind::kResult);
  auto obs = c.take_observations();
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].invariant, "T-ID");
  EXPECT_NE(obs[0].diagnosis.find("second response"), std::string::npos) << obs[0].diagnosis;
}

// The answered requests kept to recognise a second answer are the latest 4,096 (a run of 100,000
// calls held every one): a second answer to a recent one is named as such, and one to a request
// older than that is still a T-ID observation, as an id no request in flight has.
TEST(Client, SecondAnswersAreRecognisedOverABoundedWindow) {
  auto ids = std::make_shared<std::vector<json>>();
  ScriptedTransport t(legacy("2025-11-25", [ids](const json& m) -> std::vector<std::string> {
    if (m.value("method", "") != "tools/call") return {};
    ids->push_back(m["id"]);
    std::vector<std::string> out;
    if (ids->size() == 5001) {
      out.push_back(ok((*ids)[0], {{"content", json::array()}}));
      out.push_back(ok((*ids)[4999], {{"content", json::array()}}));
    }
    out.push_back(ok(m["id"], {{"content", json::array()}}));
    return out;
  }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  for (int i = 0; i < 5001; ++i) ASSERT_EQ(c.call_tool("t", json::object()).kind, Reply::Kind::kResult) << i;
  auto obs = c.take_observations();
  ASSERT_EQ(obs.size(), 2u);
  EXPECT_EQ(obs[0].invariant, "T-ID");
  EXPECT_EQ(obs[0].cause.at("form"), "unknown-id");
  EXPECT_EQ(obs[1].invariant, "T-ID");
  EXPECT_EQ(obs[1].cause.at("form"), "second-response");
}

TEST(ClientBatch, ACrashInTheMiddleClosesTheRequestsStillInFlight) {
  ScriptedTransport t(holding(3, [](const std::vector<json>& held) { return std::vector<std::string>{echo(held[1])}; }));
  t.eof_when_empty = true;
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  auto replies = c.call_tools(three_calls());
  EXPECT_EQ(replies[1].kind, Reply::Kind::kResult);
  EXPECT_EQ(replies[0].kind, Reply::Kind::kClosed);
  EXPECT_EQ(replies[2].kind, Reply::Kind::kClosed);
  EXPECT_TRUE(c.closed());
}

TEST(ClientBatch, SilenceIsATimeoutForEveryRequestLeftWithoutStraySeen) {
  ScriptedTransport t(holding(3, [](const std::vector<json>& held) { return std::vector<std::string>{echo(held[0])}; }));
  Client c(t, fast());
  ASSERT_TRUE(c.handshake("legacy").ok());
  auto replies = c.call_tools(three_calls(), false);
  EXPECT_EQ(replies[0].kind, Reply::Kind::kResult);
  for (std::size_t i : {1u, 2u}) {
    EXPECT_EQ(replies[i].kind, Reply::Kind::kTimeout);
    EXPECT_FALSE(replies[i].stray_seen);
  }
  // A late answer to a request of the batch is normal, not a T-ID.
  t.push(echo(t.sent[3]));
  c.drain(20ms);
  EXPECT_TRUE(c.take_observations().empty());
}

}  // namespace
}  // namespace ctxo::mcp
