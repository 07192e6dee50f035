// SPDX-License-Identifier: MIT
// The generator end to end (issue 5): input-server's defects fire only for particular inputs; the
// default run (no --calls) must find each one, and shrink the failing call down to its trigger.
// Also: the same seed gives the same report, and a case file replays.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

using nlohmann::json;

// The first finding of `id` (the one the run shrank), or null.
json first_finding(const HarnessRun& r, const std::string& id) {
  if (!r.report.is_object()) return nullptr;
  for (const auto& f : r.report["findings"])
    if (f["invariant"] == id) return f;
  return nullptr;
}

json arguments_of(const json& finding) {
  if (!finding.is_object() || !finding["request"].is_object()) return nullptr;
  return finding["request"]["params"].value("arguments", json());
}

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string temp_dir(const std::string& name) {
  auto dir = std::filesystem::path(CTXO_BINARY_DIR) / "test-tmp" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

struct Trigger {
  std::string defect, invariant;
  json minimal;  ///< The arguments shrinking must end at (null: checked by a predicate below).
};

class InputDefects : public ::testing::TestWithParam<Trigger> {};

// Three seeds each: the default run finds the defect, reports exactly its invariant among the
// errors, and the reported call holds nothing but the trigger (plus `query`, required, shrunk to "").
TEST_P(InputDefects, TheDefaultRunFindsAndShrinksEachTrigger) {
  const Trigger& t = GetParam();
  for (const char* seed : {"1", "2", "3"}) {
    // A hung call costs its timeout and five more to confirm it: 400 ms for the hang (33 -> about
    // 20 s for the three seeds; the server answers every other call at once).
    const std::string timeout = t.invariant == "T-HANG" ? "400" : "700";
    HarnessRun r = run_harness({"--seed", seed, "--timeout", timeout, "--no-cases", "--", input_server(), "--defect", t.defect});
    ASSERT_TRUE(r.report.is_object()) << r.err;
    EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
    EXPECT_EQ(r.exit_code, 1) << t.defect << " seed " << seed << "\n" << r.out;
    EXPECT_TRUE(r.error_ids().count(t.invariant)) << t.defect << " seed " << seed << ": " << r.report["findings"].dump(2);
    const json f = first_finding(r, t.invariant);
    ASSERT_TRUE(f.is_object()) << t.defect << " seed " << seed;
    const json args = arguments_of(f);
    if (!t.minimal.is_null()) {
      EXPECT_EQ(args, t.minimal) << t.defect << " seed " << seed << ": " << f.dump(2);
    } else {  // hang-astral: exactly one code point, above U+FFFF
      ASSERT_TRUE(args.is_object() && args.size() == 1 && args.contains("query")) << f.dump(2);
      const std::string q = args["query"].get<std::string>();
      EXPECT_EQ(code_points(q), 1u) << q;
      EXPECT_EQ(q.size(), 4u) << q;
    }
    EXPECT_FALSE(f.value("phase", "").empty()) << f.dump(2);
    if (f.contains("original_request")) {
      EXPECT_NE(f["original_request"], f["request"]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Input, InputDefects,
    ::testing::Values(Trigger{"crash-at-max", "T-CRASH", json{{"count", 500}, {"query", ""}}},
                      Trigger{"hang-astral", "T-HANG", nullptr},
                      Trigger{"break-empty", "TR-COUNT", json{{"query", ""}}},
                      Trigger{"silent-exact", "TR-HINT", json{{"mode", "exact"}, {"query", ""}, {"verbose", true}}}),
    [](const auto& p) {
      std::string n = p.param.defect;
      for (auto& c : n)
        if (c == '-') c = '_';
      return n;
    });

TEST(InputServer, TheConformantServerPassesWithNothingToReport) {
  for (const char* seed : {"1", "2", "3"}) {
    HarnessRun r = run_harness({"--seed", seed, "--no-cases", input_server()});
    ASSERT_TRUE(r.report.is_object()) << r.err;
    EXPECT_EQ(r.exit_code, 0) << r.report["findings"].dump(2);
    EXPECT_TRUE(r.all_ids().empty()) << r.report["findings"].dump(2);
    // Every phase ran: boundary cases, then random and invalid calls (the tool is called well
    // beyond its boundary cases).
    EXPECT_GT(r.report["stats"]["calls"].get<int>(), 60);
  }
}

TEST(InputServer, AcceptAndRejectWarningsNameTheirCall) {
  HarnessRun lax = run_harness({"--seed", "1", "--no-cases", "--", input_server(), "--defect", "no-validate"});
  ASSERT_TRUE(lax.report.is_object()) << lax.err;
  EXPECT_EQ(lax.exit_code, 0) << "warnings do not fail the gate";
  EXPECT_EQ(lax.all_ids(), std::set<std::string>{"P-REJECT"}) << lax.report["findings"].dump(2);
  const json rej = first_finding(lax, "P-REJECT");
  EXPECT_EQ(rej["severity"], "warning");
  EXPECT_EQ(rej["phase"], "invalid");

  HarnessRun strict = run_harness({"--seed", "1", "--no-cases", "--", input_server(), "--defect", "strict-count"});
  ASSERT_TRUE(strict.report.is_object()) << strict.err;
  EXPECT_EQ(strict.all_ids(), std::set<std::string>{"P-ACCEPT"}) << strict.report["findings"].dump(2);
  // Shrunk from the schema's maximum (500) to the smallest count the server refuses.
  EXPECT_EQ(arguments_of(first_finding(strict, "P-ACCEPT")), (json{{"count", 401}, {"query", ""}}));
}

// Everything in a report but the clock: durations, timestamps and stderr.
json without_timings(json r) {
  r.erase("duration_ms");
  r.erase("started_at");
  r.erase("stderr_tail");
  for (auto& t : r["tools"]) t.erase("elapsed_ms");
  return r;
}

TEST(Reproducibility, TheSameSeedGivesTheSameCallsAndFindings) {
  const std::string dir = temp_dir("same-seed");
  auto run = [&](const std::string& seed, const std::string& name) {
    return run_harness({"--seed", seed, "--no-cases", "--record", dir + "/" + name + ".jsonl", "--", reference_server(),
                        "--profile", "ctxo", "--defect", "count-off"});
  };
  HarnessRun a = run("42", "a"), b = run("42", "b"), c = run("43", "c");
  ASSERT_TRUE(a.report.is_object() && b.report.is_object() && c.report.is_object()) << a.err << b.err << c.err;
  EXPECT_FALSE(a.report["findings"].empty());
  EXPECT_EQ(without_timings(a.report), without_timings(b.report));
  EXPECT_EQ(slurp(dir + "/a.jsonl"), slurp(dir + "/b.jsonl")) << "the same seed must send the same calls";
  EXPECT_NE(slurp(dir + "/a.jsonl"), slurp(dir + "/c.jsonl")) << "another seed must send other calls";
}

TEST(Replay, ACaseFileReRunsItsCallAndSaysWhetherItStillFails) {
  const std::string dir = temp_dir("cases");
  HarnessRun r = run_harness({"--seed", "1", "--cases", dir, "--", input_server(), "--defect", "crash-at-max"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  const json f = first_finding(r, "T-CRASH");
  ASSERT_TRUE(f.is_object()) << r.report.dump(2);
  ASSERT_TRUE(f.contains("case_file")) << f.dump(2);
  const std::string path = f["case_file"].get<std::string>();
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const json doc = json::parse(slurp(path));
  EXPECT_EQ(doc["invariant"], "T-CRASH");
  EXPECT_EQ(doc["request"]["params"]["arguments"], (json{{"count", 500}, {"query", ""}}));
  EXPECT_TRUE(doc["original_request"].is_object());

  HarnessRun still = run_harness({"replay", path}, false);
  EXPECT_EQ(still.exit_code, 1) << still.out << still.err;
  EXPECT_NE(still.out.find("still fails: T-CRASH on lookup"), std::string::npos) << still.out;

  // The fixed server (same tool, no defect) no longer fails.
  HarnessRun fixed = run_harness({"replay", path, "--", input_server()}, true);
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
  EXPECT_NE(fixed.out.find("no longer fails"), std::string::npos) << fixed.out;
  ASSERT_TRUE(fixed.report.is_object());
  EXPECT_EQ(fixed.report["stats"]["calls"], 1) << "a replay makes the recorded call only";
  EXPECT_TRUE(fixed.schema_violations.empty());

  // Not a case file: a usage error naming the problem, no server started.
  std::ofstream(dir + "/bad.json") << R"({"ctxo_case": 1, "invariant": "T-CRASH"})";
  HarnessRun bad = run_harness({"replay", dir + "/bad.json"}, false);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("not a ctxo-conform case file"), std::string::npos) << bad.err;
  HarnessRun missing = run_harness({"replay", dir + "/nope.json"}, false);
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
}

TEST(Harvest, IdentifiersFromAnswersFeedLaterCalls) {
  // reference-server (ctxo): list_files and search_code name files; get_file_context takes one.
  const std::string dir = temp_dir("harvest");
  HarnessRun r = run_harness({"--seed", "7", "--no-cases", "--record", dir + "/t.jsonl", "--", reference_server(),
                              "--profile", "ctxo"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_GT(r.report["stats"]["harvested"].get<int>(), 0);
  const std::string transcript = slurp(dir + "/t.jsonl");
  // A workspace file no generator could invent, called by path.
  EXPECT_NE(transcript.find(R"("arguments":{"file":"src/main.cpp"})"), std::string::npos);
}

}  // namespace
}  // namespace ctxo::test
