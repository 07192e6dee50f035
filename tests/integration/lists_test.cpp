// SPDX-License-Identifier: MIT
// Lists and cursors (P-LIST's pagination forms, P-RELIST) against a real TypeScript-SDK server,
// tests/npm/fixtures/lists/lists.mjs: the SDK's low-level Server with list handlers of its own,
// the case chosen by LISTS_CASE. Each run must report exactly the expected P-LIST / P-RELIST
// findings (form, list, severity); the conformant twins report none of them.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string lists_fixture() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/lists/lists.mjs"; }

struct ListsCase {
  std::string name;                ///< LISTS_CASE.
  std::set<std::string> expected;  ///< "INVARIANT form list severity" of its P-LIST / P-RELIST findings.
};
void PrintTo(const ListsCase& c, std::ostream* os) { *os << c.name; }

const std::vector<ListsCase>& lists_cases() {
  static const std::vector<ListsCase> c = {
      {"conformant", {}},    // 3 pages, -32602 on a cursor it never issued, resources and prompts paged too
      {"empty-cursor", {}},  // "" is a live cursor: its page is fetched (see below)
      {"grow-notify", {}},   // the list grows, with notifications/tools/list_changed
      {"stuck", {"P-LIST cursor-stuck tools/list error"}},
      {"repeat", {"P-LIST page-repeats-items tools/list error"}},
      {"accept-invalid", {"P-LIST invalid-cursor-accepted tools/list warning"}},
      {"grow", {"P-RELIST changed-without-notification tools/list error"}},
      {"shuffle", {"P-RELIST order-unstable tools/list warning"}},
      {"others-stuck", {"P-LIST cursor-stuck resources/list error", "P-LIST cursor-stuck prompts/list error"}},
  };
  return c;
}

HarnessRun run_lists(const std::string& lists_case, const std::vector<std::string>& flags = {}) {
  std::vector<std::string> args = {"--seed", "1", "--calls", "3", "--no-cases", "--env", "LISTS_CASE=" + lists_case};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "node", lists_fixture()});
  return run_harness(args);
}

std::set<std::string> list_findings(const nlohmann::json& report) {
  std::set<std::string> out;
  if (!report.is_object()) return out;
  for (const auto& f : report["findings"]) {
    const std::string id = f.value("invariant", std::string());
    if (id != "P-LIST" && id != "P-RELIST") continue;
    const auto facts = f.contains("cause") ? f["cause"].value("facts", nlohmann::json::object()) : nlohmann::json::object();
    out.insert(id + " " + facts.value("form", std::string()) + " " + facts.value("list", std::string()) + " " +
               f.value("severity", std::string()));
  }
  return out;
}

class Lists : public ::testing::TestWithParam<ListsCase> {};

TEST_P(Lists, ReportsExactlyTheExpectedListFindings) {
  REQUIRE_NPM(sdk_dir());
  const ListsCase& c = GetParam();
  HarnessRun r = run_lists(c.name);
  ASSERT_TRUE(r.report.is_object()) << c.name << ": " << r.err;
  EXPECT_TRUE(r.schema_violations.empty()) << c.name;
  EXPECT_EQ(list_findings(r.report), c.expected) << c.name << ": " << r.report["findings"].dump(2);
  // Every tool of every page was listed and tested, the one behind an empty-string cursor too.
  std::set<std::string> tools;
  for (const auto& t : r.report["tools"]) tools.insert(t.value("name", std::string()));
  EXPECT_EQ(tools, (std::set<std::string>{"alpha", "beta", "gamma", "delta", "epsilon"})) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Fixture, Lists, ::testing::ValuesIn(lists_cases()), [](const auto& param_info) {
  std::string out;
  for (char ch : param_info.param.name) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out;
});

// A recorded run holds the other lists and the invalid-cursor probe; `check` judges them as the
// live run did: nothing on the conformant server, the accepted cursor on its violator.
TEST(ListsCheck, ARecordedRunIsJudgedAlike) {
  REQUIRE_NPM(sdk_dir());
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/lists";
  std::filesystem::create_directories(dir);
  for (const std::string c : {"conformant", "accept-invalid"}) {
    const std::string transcript = dir + "/" + c + ".jsonl";
    std::filesystem::remove(transcript);
    HarnessRun live = run_lists(c, {"--record", transcript});
    ASSERT_TRUE(live.report.is_object()) << live.err;
    std::set<std::string> methods;
    std::ifstream in(transcript);
    for (std::string line; std::getline(in, line);)
      methods.insert(nlohmann::json::parse(line)["request"].value("method", std::string()));
    if (c == "conformant") {
      for (const char* m : {"tools/list", "resources/list", "resources/templates/list", "prompts/list"})
        EXPECT_TRUE(methods.count(m)) << m;
    }
    HarnessRun offline = run_harness({"check", transcript});
    ASSERT_TRUE(offline.report.is_object()) << offline.err;
    EXPECT_EQ(list_findings(offline.report), list_findings(live.report)) << c << ": " << offline.report.dump(2);
  }
}

}  // namespace
}  // namespace ctxo::test
