// SPDX-License-Identifier: MIT
// The envelope detection matrix: ctxo-conform (default flags, --profile auto) against the
// reference server of each profile, conformant and with each planted defect, must report exactly
// the defect's invariant (errors). Also: the same checks offline, on a recorded transcript.
#include <gtest/gtest.h>

#include <iostream>

#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string reference_server() { return std::string(CTXO_BINARY_DIR) + "/tests/servers/reference-server"; }
std::string workspace() { return std::string(CTXO_SOURCE_DIR) + "/corpus/workspace"; }

struct EnvCase {
  std::string profile;
  std::string defect;  ///< "" = conformant
  std::set<std::string> expected;
};

const std::vector<EnvCase>& env_cases() {
  static const std::vector<EnvCase> k = {
      {"ctxo", "", {}},
      {"budget", "", {}},
      {"meta", "", {}},
      {"truncation-info", "", {}},
      {"ctxo", "warning-part", {"E-PARSE"}},
      {"ctxo", "meta-type", {"E-SCHEMA"}},
      {"ctxo", "unstable-hint", {"E-STABLE"}},
      {"ctxo", "miss-as-error", {"E-MISS"}},
      {"budget", "bad-error-code", {"E-ERROR"}},
      {"ctxo", "dead-hint", {"E-HINT-REF"}},
      {"ctxo", "no-hint", {"TR-HINT"}},
      {"ctxo", "count-off", {"TR-COUNT"}},
      {"ctxo", "cap-chars", {"TR-CAP"}},
      {"ctxo", "bytes-utf16", {"TR-BYTES"}},
      {"ctxo", "ignore-env", {"TR-ENV"}},
      {"meta", "ignore-env", {"TR-ENV"}},
      {"ctxo", "not-prefix", {"TR-PREFIX"}},
      {"ctxo", "not-maximal", {"TR-MAXIMAL"}},
      {"ctxo", "always-truncate", {"TR-VERBATIM"}},
      {"meta", "resume-overlap", {"TR-RESUME"}},
      {"budget", "used-over", {"B-USED"}},
      {"budget", "no-clamp", {"B-CLAMP"}},
      {"budget", "estimate-half", {"B-ESTIMATE"}},
      {"ctxo", "zero-based", {"POS-BASE"}},
      {"ctxo", "abs-path", {"POS-PATH"}},
      {"budget", "byte-cols", {"POS-UTF16"}},
      {"ctxo", "line-snippet-cp", {"POS-UTF16"}},
  };
  return k;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ",") + x;
  return out.empty() ? "-" : out;
}

std::vector<std::string> server_args(const EnvCase& c) {
  std::vector<std::string> a = {"--", reference_server(), "--profile", c.profile};
  if (!c.defect.empty()) a.insert(a.end(), {"--defect", c.defect});
  return a;
}

class EnvelopeMatrix : public ::testing::TestWithParam<EnvCase> {};

TEST_P(EnvelopeMatrix, ReportsExactlyTheDefectsInvariant) {
  const EnvCase& c = GetParam();
  std::vector<std::string> args = {"--seed", "7", "--root", workspace()};
  for (auto& a : server_args(c)) args.push_back(a);
  HarnessRun r = run_harness(args);
  ASSERT_TRUE(r.report.is_object()) << "no JSON report; stderr:\n" << r.err;
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
  std::cout << "[envelope-matrix] " << c.profile << " " << (c.defect.empty() ? "(conformant)" : c.defect) << " -> "
            << join(r.error_ids()) << "\n";
  EXPECT_EQ(r.error_ids(), c.expected) << r.report["findings"].dump(2) << "\nstderr:\n" << r.err;
  EXPECT_EQ(r.exit_code, c.expected.empty() ? 0 : 1) << r.err;
  // Every finding names its cause as facts, never as its diagnosis' text (issue 30).
  for (const auto& t : r.text_caused()) ADD_FAILURE() << "cause read from the text: " << t;
  // The envelopes were recognised as the server's profile.
  ASSERT_TRUE(r.report["profiles_detected"].is_object());
  EXPECT_GT(r.report["profiles_detected"].value(c.profile, 0), 0) << r.report["profiles_detected"].dump();
  for (const auto& [name, count] : r.report["profiles_detected"].items())
    EXPECT_EQ(name, c.profile) << "answers of a " << c.profile << " server detected as " << name;
}

INSTANTIATE_TEST_SUITE_P(Reference, EnvelopeMatrix, ::testing::ValuesIn(env_cases()), [](const auto& param_info) {
  std::string n = param_info.param.profile + "_" + (param_info.param.defect.empty() ? "conformant" : param_info.param.defect);
  std::string out;
  for (char ch : n) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out;
});

// A server outside every envelope design, whose errors happen to be {"error": ...} objects (the
// shape of truncation-info's error form), is not blamed for envelope rules it never promised.
TEST(EnvelopeAuto, JsonErrorsAloneDoNotMakeAnEnvelopeServer) {
  HarnessRun r = run_harness({"--seed", "1", "--", "python3",
                              std::string(CTXO_SOURCE_DIR) + "/tests/servers/scripts/json_error_server.py"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.all_ids().empty()) << r.report["findings"].dump(2);
  // Every call of this server is answered with isError: nothing was exercised, so not a pass.
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.report["verdict"], "untested");
}

// Recorded live, checked offline: the per-response envelope findings agree.
TEST(Transcript, CheckFindsWhatTheLiveRunFound) {
  const std::string rec = std::string(CTXO_BINARY_DIR) + "/test-tmp/count-off.jsonl";
  HarnessRun live = run_harness({"--seed", "7", "--record", rec, "--", reference_server(), "--profile", "ctxo",
                                 "--defect", "count-off"});
  ASSERT_TRUE(live.report.is_object()) << live.err;
  ASSERT_EQ(live.error_ids(), std::set<std::string>{"TR-COUNT"});
  HarnessRun offline = run_harness({"check", rec});
  ASSERT_TRUE(offline.report.is_object()) << offline.err;
  EXPECT_TRUE(offline.schema_violations.empty()) << offline.schema_violations.front();
  EXPECT_EQ(offline.error_ids(), std::set<std::string>{"TR-COUNT"}) << offline.report["findings"].dump(2);
  EXPECT_EQ(offline.exit_code, 1);
  // The conformant server's transcript is clean offline too.
  const std::string ok = std::string(CTXO_BINARY_DIR) + "/test-tmp/ctxo-ok.jsonl";
  HarnessRun live_ok = run_harness({"--seed", "7", "--record", ok, "--", reference_server(), "--profile", "ctxo"});
  ASSERT_EQ(live_ok.exit_code, 0) << live_ok.report.dump(2);
  HarnessRun offline_ok = run_harness({"check", ok});
  EXPECT_EQ(offline_ok.exit_code, 0) << offline_ok.report["findings"].dump(2);
  EXPECT_GT(offline_ok.report["profiles_detected"].value("ctxo", 0), 0);
}

// Live and offline runs share their glue (engine/sink.h): on the same exchanges they agree on
// each tool's row (calls, successes, the profile it was judged by), the profiles detected, the
// results no profile matched and its note, and the ids checked (offline: no transport rule but
// T-ID). Once on an envelope server with a defect, once on a server outside every profile.
TEST(Transcript, LiveAndOfflineAgreeOnRowsCountersAndIds) {
  struct Server {
    std::string name;
    std::vector<std::string> command;
  };
  const std::vector<Server> servers = {
      {"count-off", {reference_server(), "--profile", "ctxo", "--defect", "count-off"}},
      {"no-profile", {fixture_server()}},
  };
  for (const auto& sv : servers) {
    SCOPED_TRACE(sv.name);
    const std::string rec = std::string(CTXO_BINARY_DIR) + "/test-tmp/agree-" + sv.name + ".jsonl";
    std::vector<std::string> args = {"--seed", "7", "--calls", "12", "--record", rec, "--"};
    args.insert(args.end(), sv.command.begin(), sv.command.end());
    HarnessRun live = run_harness(args);
    ASSERT_TRUE(live.report.is_object()) << live.err;
    HarnessRun offline = run_harness({"check", rec});
    ASSERT_TRUE(offline.report.is_object()) << offline.err;
    EXPECT_EQ(offline.all_ids(), live.all_ids());
    EXPECT_EQ(offline.report["stats"]["calls"], live.report["stats"]["calls"]);
    EXPECT_EQ(offline.report["profiles_detected"], live.report["profiles_detected"]);
    EXPECT_EQ(offline.report["unprofiled_results"], live.report["unprofiled_results"]);
    std::size_t called = 0;
    for (const auto& lt : live.report["tools"]) {
      if (lt["calls"].get<std::size_t>() == 0) continue;
      ++called;
      const nlohmann::json* ot = nullptr;
      for (const auto& t : offline.report["tools"])
        if (t["name"] == lt["name"]) ot = &t;
      ASSERT_NE(ot, nullptr) << lt["name"];
      EXPECT_EQ((*ot)["calls"], lt["calls"]) << lt["name"];
      EXPECT_EQ((*ot)["successes"], lt["successes"]) << lt["name"];
      EXPECT_EQ((*ot)["profile"], lt["profile"]) << lt["name"];
    }
    EXPECT_GT(called, 0u);
    // The note on results outside every profile: the same count, each run naming what it applied.
    auto unprofiled_note = [](const nlohmann::json& report) {
      for (const auto& n : report["notes"])
        if (n.get<std::string>().find("no envelope profile matched") != std::string::npos)
          return n.get<std::string>().substr(0, n.get<std::string>().find(';'));
      return std::string();
    };
    EXPECT_EQ(unprofiled_note(offline.report), unprofiled_note(live.report));
    EXPECT_EQ(unprofiled_note(live.report).empty(), live.report["unprofiled_results"] == 0);
    std::set<std::string> live_ids, offline_ids;
    for (const auto& id : live.report["invariants_checked"])
      if (id.get<std::string>().rfind("T-", 0) != 0 || id == "T-ID") live_ids.insert(id.get<std::string>());
    for (const auto& id : offline.report["invariants_checked"]) offline_ids.insert(id.get<std::string>());
    EXPECT_EQ(offline_ids, live_ids);
  }
}

TEST(Transcript, NotificationsAndIdlessLinesAreTolerated) {
  const std::string t = std::string(CTXO_BINARY_DIR) + "/test-tmp/notes.jsonl";
  std::ofstream(t) << R"({"request":{"jsonrpc":"2.0","method":"notifications/initialized"}})" << "\n"
                   << R"({"request":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}},)"
                   << R"("response":{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"hi"}]}}})"
                   << "\n"
                   << R"({"request":{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}},)"
                   << R"("response":{"jsonrpc":"2.0","id":6,"result":{"content":[]}}})" << "\n";
  HarnessRun r = run_harness({"check", t});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.error_ids(), std::set<std::string>{"T-ID"}) << r.report["findings"].dump(2);
  EXPECT_EQ(r.report["stats"]["calls"], 2);
}

TEST(Transcript, BadTranscriptIsAUsageError) {
  const std::string bad = std::string(CTXO_BINARY_DIR) + "/test-tmp/bad.jsonl";
  std::ofstream(bad) << "{\"request\": {}}\nnot json\n";
  HarnessRun r = run_harness({"check", bad}, false);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(":2:"), std::string::npos) << r.err;  // line 1 (no response) is skipped
}

}  // namespace
}  // namespace ctxo::test
