// SPDX-License-Identifier: MIT
// input-server itself, driven over pipes without the harness: each defect fires on its trigger
// and nowhere else. So when a generator test fails, the fixture is known good and the harness is
// to blame (and the other way round).
#include <gtest/gtest.h>

#include <unistd.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

using nlohmann::json;

struct Session {
  int status = -1;                  ///< Raw wait status of the server.
  std::map<int, json> answers;      ///< Response by request id.
};

// initialize (id 1), initialized, then one tools/call of lookup per entry of `calls` (ids 2, 3, ...),
// then EOF.
Session session(const std::string& defect, const std::vector<json>& calls) {
  static int counter = 0;
  // The process id too: ctest runs each test in a process of its own, where the counter starts at 0.
  const std::string stem = std::string(CTXO_BINARY_DIR) + "/test-tmp/input-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter++);
  (void)std::system(("mkdir -p " + quote(std::string(CTXO_BINARY_DIR) + "/test-tmp")).c_str());
  {
    std::ofstream in(stem + ".in");
    in << json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
               {"params", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()},
                           {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}}.dump() << "\n";
    in << json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump() << "\n";
    int id = 2;
    for (const auto& args : calls)
      in << json{{"jsonrpc", "2.0"}, {"id", id++}, {"method", "tools/call"},
                 {"params", {{"name", "lookup"}, {"arguments", args}}}}.dump() << "\n";
  }
  std::string cmd = "timeout 10 " + quote(input_server());
  if (!defect.empty()) cmd += " --defect " + quote(defect);
  cmd += " < " + quote(stem + ".in") + " > " + quote(stem + ".out") + " 2> " + quote(stem + ".err");
  Session s;
  s.status = std::system(cmd.c_str());
  std::istringstream out(slurp(stem + ".out"));
  for (std::string line; std::getline(out, line);) {
    json m = json::parse(line, nullptr, false);
    if (m.is_object() && m.contains("id") && m["id"].is_number_integer()) s.answers[m["id"].get<int>()] = m;
  }
  return s;
}

// The envelope in a lookup answer (its one text part, parsed).
json envelope(const Session& s, int id) {
  auto it = s.answers.find(id);
  if (it == s.answers.end() || !it->second.contains("result")) return nullptr;
  return json::parse(it->second["result"]["content"][0]["text"].get<std::string>(), nullptr, false);
}

bool is_error(const Session& s, int id) {
  auto it = s.answers.find(id);
  return it != s.answers.end() && it->second.contains("result") && it->second["result"].value("isError", false);
}

TEST(InputServerFixture, ConformantAnswersCarryTruthfulCounts) {
  Session s = session("", {json{{"query", "a"}}, json{{"query", ""}}, json{{"query", 7}}});
  ASSERT_TRUE(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 0) << s.status;
  for (int id : {2, 3}) {
    json e = envelope(s, id);
    ASSERT_TRUE(e.is_object()) << id;
    EXPECT_EQ(e["results"].size(), 10u);
    EXPECT_EQ(e["_meta"]["returnedItems"], 10);
    EXPECT_EQ(e["_meta"]["truncated"], false);
  }
  EXPECT_TRUE(is_error(s, 4)) << "invalid arguments get an isError answer";
}

TEST(InputServerFixture, EachDefectFiresOnlyOnItsTrigger) {
  Session crash = session("crash-at-max", {json{{"query", "a"}, {"count", 499}}, json{{"query", "a"}, {"count", 500}}});
  EXPECT_TRUE(envelope(crash, 2).is_object());
  EXPECT_FALSE(crash.answers.count(3));
  EXPECT_FALSE(WIFEXITED(crash.status) && WEXITSTATUS(crash.status) == 0) << "count 500 aborts: " << crash.status;

  Session hang = session("hang-astral", {json{{"query", "café"}}, json{{"query", "x😀"}}, json{{"query", "later"}}});
  EXPECT_TRUE(hang.answers.count(2));
  EXPECT_FALSE(hang.answers.count(3)) << "an astral character is never answered";
  EXPECT_TRUE(hang.answers.count(4)) << "later calls still are";

  Session empty = session("break-empty", {json{{"query", ""}}, json{{"query", " "}}});
  json bad = envelope(empty, 2), good = envelope(empty, 3);
  ASSERT_TRUE(bad.is_object() && good.is_object());
  EXPECT_EQ(bad["_meta"]["returnedItems"].get<std::size_t>(), bad["results"].size() + 1);
  EXPECT_EQ(good["_meta"]["returnedItems"].get<std::size_t>(), good["results"].size());

  Session silent = session("silent-exact", {json{{"query", "a"}, {"mode", "exact"}, {"verbose", true}},
                                            json{{"query", "a"}, {"mode", "exact"}},
                                            json{{"query", "a"}, {"mode", "full"}, {"verbose", true}}});
  json cut = envelope(silent, 2);
  ASSERT_TRUE(cut.is_object());
  EXPECT_EQ(cut["_meta"]["truncated"], true);
  EXPECT_FALSE(cut["_meta"].contains("hint"));
  EXPECT_EQ(envelope(silent, 3)["_meta"]["truncated"], false);
  EXPECT_EQ(envelope(silent, 4)["_meta"]["truncated"], false);

  Session lax = session("no-validate", {json{{"query", 7}}});
  EXPECT_FALSE(is_error(lax, 2));
  EXPECT_TRUE(envelope(lax, 2).is_object());

  Session strict = session("strict-count", {json{{"query", "a"}, {"count", 400}}, json{{"query", "a"}, {"count", 401}}});
  EXPECT_FALSE(is_error(strict, 2));
  ASSERT_TRUE(is_error(strict, 3));
  EXPECT_NE(strict.answers[3].dump().find("Invalid arguments"), std::string::npos);
}

}  // namespace
}  // namespace ctxo::test
