// SPDX-License-Identifier: MIT
// Golden tests of the replay lines (engine/replay_command.h): the exact command a finding's
// `replay` field holds, for a stdio pipe and for curl against a Streamable HTTP server. A change
// to these strings changes every report and case file: make it on purpose.
#include <gtest/gtest.h>

#include "engine/replay_command.h"

namespace ctxo::engine {
namespace {

using nlohmann::json;

const json kCall = json::parse(R"({"jsonrpc":"2.0","id":1000000,"method":"tools/call","params":{"name":"echo","arguments":{"text":"it's"}}})");
const std::vector<std::string> kPrelude = {
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})",
    R"({"jsonrpc":"2.0","method":"notifications/initialized"})"};

TEST(ReplayCommand, StdioPipeSendsThePreludeThenTheRequest) {
  ReplayTarget t;
  t.command = {"./server", "--flag", "a b"};
  EXPECT_EQ(replay_command(t, kPrelude, "2025-06-18", kCall, {}),
            R"({ printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' )"
            R"('{"jsonrpc":"2.0","method":"notifications/initialized"}' )"
            R"('{"id":1000000,"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"text":"it'\''s"},"name":"echo"}}'; )"
            R"(sleep 2; } | ./server --flag 'a b')");
}

TEST(ReplayCommand, EnvironmentAndWorkingDirectoryWrapTheServer) {
  ReplayTarget t;
  t.command = {"node", "s.mjs"};
  t.cwd = "/tmp/my dir";
  EXPECT_EQ(launch_command(t, {{"LIMIT", "64"}, {"NAME", "x y"}}), "(cd '/tmp/my dir' && env LIMIT=64 'NAME=x y' node s.mjs)");
  EXPECT_EQ(launch_command(ReplayTarget{{"srv"}, "", "", {}}, {}), "srv");
}

// A run in the sandbox prints replay lines that run the server under bwrap too (its own PID
// namespace, everything read-only): copying a line into a shell is as harmless as the run was.
TEST(ReplayCommand, ASandboxedRunsLinesRunTheServerUnderBwrap) {
  ReplayTarget t;
  t.command = {"node", "s.mjs"};
  t.cwd = "/p";
  t.sandboxed = true;
  EXPECT_EQ(launch_command(t, {{"K", "v"}}),
            "(cd /p && env K=v bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-pid --unshare-ipc "
            "--die-with-parent -- node s.mjs)");
}

TEST(ReplayCommand, AStateCarryingCaseSendsItsSequenceFirst) {
  ReplayTarget t;
  t.command = {"srv"};
  const json seq = json::array({json{{"id", 1}}, json{{"id", 2}}});
  EXPECT_EQ(replay_command(t, {}, "", json(), {}, seq), R"({ printf '%s\n' '{"id":1}' '{"id":2}'; sleep 2; } | srv)");
}

TEST(ReplayCommand, CurlKeepsTheSessionAndNeverAHeaderValue) {
  ReplayTarget t;
  t.url = "http://127.0.0.1:3001/mcp";
  t.header_names = {"Authorization"};
  const std::string c =
      "c() { curl -sS -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' "
      "-H 'Authorization: <redacted>' ${s:+-H \"Mcp-Session-Id: $s\"} ${v:+-H \"MCP-Protocol-Version: $v\"} \"$@\" "
      "http://127.0.0.1:3001/mcp; echo; }; s=; v=; ";
  // The first line's answer gives the session id; the negotiated version goes with the others.
  EXPECT_EQ(replay_command(t, kPrelude, "2025-06-18", kCall, {}),
            c + "s=$(c -D - -o /dev/null --data-binary '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}'"
                " | tr -d '\\r' | sed -n 's/^[Mm][Cc][Pp]-[Ss][Ee][Ss][Ss][Ii][Oo][Nn]-[Ii][Dd]: *//p'); v=2025-06-18; "
                "c --data-binary '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}'; "
                "c --data-binary '{\"id\":1000000,\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"arguments\":"
                "{\"text\":\"it'\\''s\"},\"name\":\"echo\"}}'");
  // A server the run started: started first, stopped last.
  t.command = {"node", "http.mjs"};
  const std::string started = replay_command(t, {}, "", kCall, {{"PORT", "3001"}});
  EXPECT_EQ(started.rfind("(env PORT=3001 node http.mjs) & p=$!; sleep 2; c() { curl", 0), 0u) << started;
  EXPECT_EQ(started.substr(started.size() - 9), "; kill $p") << started;
}

}  // namespace
}  // namespace ctxo::engine
