// SPDX-License-Identifier: MIT
// One cause, one finding (issue 30), end to end on tests/npm/fixtures/causes/throws.mjs (official
// SDK, low-level Server): a handler that throws, quoting its input, is one P-NO-THROW finding
// whatever the seed, for its valid and its invalid calls alike; the same throw on all 4 tools is
// one server-level finding listing them; the finding's SARIF fingerprint and its baseline entry
// are the same across seeds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

using nlohmann::json;

std::string fixture() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/causes/throws.mjs"; }
std::filesystem::path tmp() {
  auto dir = std::filesystem::path(CTXO_BINARY_DIR) / "test-tmp" / ("causes-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

HarnessRun run(int seed, const std::string& mode, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--seed", std::to_string(seed), "--no-cases", "--env", "CAUSES_THROW=" + mode};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--", "node", fixture()});
  return run_harness(args);
}

json read_json(const std::filesystem::path& p) {
  std::ifstream f(p);
  return json::parse(f, nullptr, false);
}

// Whether a get_note request breaks its schema ({id: string, 1..64 characters}, required).
bool invalid_get_note(const json& request) {
  const json& p = request.value("params", json::object());
  if (p.value("name", "") != "get_note") return false;
  const json& a = p.value("arguments", json::object());
  if (!a.is_object() || !a.contains("id") || !a["id"].is_string()) return true;
  const std::string id = a["id"].get<std::string>();
  return id.empty();  // (a 65+ character id is also invalid; the empty one is enough to tell)
}

TEST(Causes, OneThrowQuotingItsInputIsOneFindingWhateverTheSeed) {
  REQUIRE_NPM(sdk_dir());
  const auto dir = tmp();
  std::set<std::string> fingerprints[2];
  for (int seed : {1, 2}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto sarif = dir / ("one-" + std::to_string(seed) + ".sarif");
    const auto record = dir / ("one-" + std::to_string(seed) + ".jsonl");
    HarnessRun r = run(seed, "one", {"--sarif", sarif.string(), "--record", record.string()});
    ASSERT_TRUE(r.report.is_object()) << r.err;
    EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
    ASSERT_EQ(r.report["findings"].size(), 1u) << r.report["findings"].dump(2);
    const json& f = r.report["findings"][0];
    EXPECT_EQ(f["invariant"], "P-NO-THROW");
    EXPECT_EQ(f["tool"], "get_note");
    EXPECT_EQ(f["tools"], json::array({"get_note"}));
    EXPECT_GT(f["count"].get<int>(), 5) << f.dump(2);
    EXPECT_EQ(f["cause"]["facts"], (json{{"code", "-32603"}, {"form", "jsonrpc-error"}}));
    // The run made invalid get_note calls too (each answered -32603 by zod's escaping error):
    // they are the same cause, in the same finding.
    std::ifstream lines(record);
    std::size_t invalid = 0;
    for (std::string line; std::getline(lines, line);) {
      json l = json::parse(line, nullptr, false);
      if (l.is_object() && l.contains("request") && invalid_get_note(l["request"])) ++invalid;
    }
    EXPECT_GT(invalid, 0u) << "no invalid get_note call was made: the test proves nothing";
    json s = read_json(sarif);
    for (const auto& res : s["runs"][0]["results"])
      fingerprints[seed - 1].insert(res["partialFingerprints"]["ctxoCause/v1"].get<std::string>());
  }
  EXPECT_EQ(fingerprints[0].size(), 1u);
  EXPECT_EQ(fingerprints[0], fingerprints[1]) << "SARIF fingerprints differ across seeds";
}

// A baseline written from seed 1 (its JSON report) accepts the seed-2 run: no error, nothing stale.
TEST(Causes, ABaselineFromOneSeedAcceptsAnother) {
  REQUIRE_NPM(sdk_dir());
  const auto baseline = tmp() / "seed1.json";
  HarnessRun first = run(1, "one");
  ASSERT_EQ(first.exit_code, 1) << first.out << first.err;
  std::ofstream(baseline) << first.report.dump();
  HarnessRun second = run(2, "one", {"--baseline", baseline.string()});
  ASSERT_TRUE(second.report.is_object()) << second.err;
  EXPECT_EQ(second.exit_code, 0) << second.out << second.err;
  for (const auto& f : second.report["findings"]) EXPECT_TRUE(f["baselined"].get<bool>()) << f.dump(2);
  EXPECT_TRUE(second.report["baseline_stale"].empty()) << second.report["baseline_stale"].dump();
}

// The same throw on every tool is the server's: one server-level finding listing the 4 tools.
TEST(Causes, TheSameThrowOnEveryToolIsOneServerLevelFinding) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(1, "all", {"--junit", (tmp() / "all.xml").string()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
  ASSERT_EQ(r.report["findings"].size(), 1u) << r.report["findings"].dump(2);
  const json& f = r.report["findings"][0];
  EXPECT_EQ(f["invariant"], "P-NO-THROW");
  EXPECT_EQ(f["tool"], "");
  EXPECT_EQ(f["tools"], json::array({"count_words", "get_note", "list_notes", "slugify"}));
  EXPECT_NE(r.out.find("on 4 tools: count_words, get_note, list_notes, slugify"), std::string::npos) << r.out;
  EXPECT_NE(slurp((tmp() / "all.xml").string()).find("on 4 tools: count_words"), std::string::npos);
  // Every tool's row says P-NO-THROW failed there.
  for (const auto& t : r.report["tools"]) EXPECT_EQ(t["outcomes"]["P-NO-THROW"], "failed") << t.dump(2);
}

}  // namespace
}  // namespace ctxo::test

namespace ctxo::test {
namespace {

// A cause is the defect's, not the seed's: on servers breaking a transport, envelope,
// truncation or position rule, two seeds give each invariant the same cause ids (the JSON
// report's cause id, which is also the SARIF partialFingerprint), and every finding names its
// cause as facts, not as its diagnosis' text.
TEST(Causes, EachDefectsCauseIdsAreTheSameAcrossSeeds) {
  const std::string workspace = std::string(CTXO_SOURCE_DIR) + "/corpus/workspace";
  const std::vector<std::vector<std::string>> servers = {
      {reference_server(), "--profile", "ctxo", "--defect", "dead-hint"},
      {reference_server(), "--profile", "ctxo", "--defect", "zero-based"},
      {reference_server(), "--profile", "budget", "--defect", "bad-error-code"},
      {fixture_server(), "--defect", "stdout-log"},
      {fixture_server(), "--defect", "wrong-id"},
  };
  for (const auto& server : servers) {
    SCOPED_TRACE(server.back());
    std::map<std::string, std::set<std::string>> ids[2];
    for (int seed : {1, 2}) {
      std::vector<std::string> args = {"--seed", std::to_string(seed), "--no-cases", "--root", workspace, "--"};
      args.insert(args.end(), server.begin(), server.end());
      HarnessRun r = run_harness(args);
      ASSERT_TRUE(r.report.is_object()) << r.err;
      for (const auto& t : r.text_caused()) ADD_FAILURE() << "cause read from the text: " << t;
      // The transport, envelope, truncation and position findings: whether a seed makes a call
      // that breaks the input schema and is accepted (P-REJECT, a warning) is the seed's.
      for (auto& [id, causes] : r.cause_ids())
        if (id.rfind("T-", 0) == 0 || id.rfind("TR-", 0) == 0 || id.rfind("E-", 0) == 0 || id.rfind("POS-", 0) == 0)
          ids[seed - 1][id] = causes;
    }
    EXPECT_FALSE(ids[0].empty()) << "the defect was not found: the test proves nothing";
    EXPECT_EQ(ids[0], ids[1]) << "cause ids differ across seeds";
  }
}

// An isError result whose structuredContent breaks the outputSchema (tests/npm/fixtures/strict/
// error-output.mjs, the official SDK's McpServer): P-RESULT form error-result under
// --strict-error-output, and the case file replays under it; nothing without the flag (the
// default, lenient as the spec leaves it), nothing on the twin that leaves structuredContent out.
TEST(StrictErrorOutput, AnErrorResultsStructuredContentIsHeldToTheSchemaOnlyWhenAsked) {
  REQUIRE_NPM(sdk_dir());
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/strict/error-output.mjs";
  auto results = [](const HarnessRun& r) {
    std::vector<json> out;
    for (const auto& f : r.report.value("findings", json::array()))
      if (f.value("invariant", "") == "P-RESULT") out.push_back(f);
    return out;
  };
  const auto cases = tmp() / "strict-cases";
  HarnessRun strict = run_harness({"--seed", "1", "--calls", "6", "--concurrency", "0", "--cases", cases.string(),
                                   "--strict-error-output", "--", "node", server});
  ASSERT_TRUE(strict.report.is_object()) << strict.err;
  EXPECT_TRUE(strict.schema_violations.empty()) << strict.schema_violations.front();
  const auto found = results(strict);
  ASSERT_EQ(found.size(), 1u) << strict.report["findings"].dump(2);
  EXPECT_EQ(found[0]["cause"]["facts"].value("form", ""), "error-result") << found[0].dump(2);
  EXPECT_EQ(strict.exit_code, 1);
  const std::string file = found[0].value("case_file", std::string());
  ASSERT_FALSE(file.empty()) << found[0].dump(2);
  EXPECT_EQ(read_json(file).value("strict_error_output", false), true);
  HarnessRun again = run_harness({"replay", file}, false);
  EXPECT_NE(again.out.find("still fails: P-RESULT"), std::string::npos) << again.out << again.err;

  HarnessRun lenient = run_harness({"--seed", "1", "--calls", "6", "--concurrency", "0", "--no-cases", "--", "node", server});
  ASSERT_TRUE(lenient.report.is_object()) << lenient.err;
  EXPECT_TRUE(results(lenient).empty()) << lenient.report["findings"].dump(2);
  HarnessRun twin = run_harness({"--seed", "1", "--calls", "6", "--concurrency", "0", "--no-cases", "--strict-error-output",
                                 "--env", "STRICT_CONFORMANT=1", "--", "node", server});
  ASSERT_TRUE(twin.report.is_object()) << twin.err;
  EXPECT_TRUE(results(twin).empty()) << twin.report["findings"].dump(2);
}

}  // namespace
}  // namespace ctxo::test
