// SPDX-License-Identifier: MIT
// The tool x invariant matrix the human reports share, and the JSON report read back (merge and
// --baseline read it): every field survives the round trip.
#include <gtest/gtest.h>

#include "reports/json_report.h"
#include "reports/matrix.h"

namespace ctxo::reports {
namespace {

engine::RunReport sample() {
  engine::RunReport r;
  r.seed = 77;
  r.command = {"./srv", "--flag"};
  r.env = {{"CTXO_RESPONSE_LIMIT", "512"}};
  r.server_name = "srv";
  r.server_version = "1.0";
  r.protocol_version = "2025-11-25";
  r.era = "legacy";
  r.profile = "auto";
  r.root = "/work/ws";
  r.server_invariants = {"T-SHUTDOWN", "P-INIT", "P-LIST"};
  r.invariants_checked = {"T-SHUTDOWN", "P-INIT", "P-LIST", "P-RESULT", "TR-HINT", "POS-UTF16"};
  engine::ToolSummary a;
  a.name = "search";
  a.calls = 4;
  a.findings = 2;
  a.invariants = {"P-RESULT", "TR-HINT", "POS-UTF16"};
  engine::ToolSummary b;
  b.name = "read";
  b.calls = 2;
  b.invariants = {"P-RESULT"};
  engine::ToolSummary c;
  c.name = "write";
  c.selected = false;
  c.skipped = "not annotated readOnlyHint:true (--read-only)";
  r.tools = {a, b, c};
  Finding f1;
  f1.invariant = "TR-HINT";
  f1.tool = "search";
  f1.diagnosis = "truncated without a hint";
  f1.request = {{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"}};
  f1.response_excerpt = "{\"truncated\":true}";
  f1.replay = "printf ... | ./srv";
  Finding f2;
  f2.invariant = "POS-UTF16";
  f2.tool = "search";
  f2.diagnosis = "column counts bytes";
  f2.file = "src/a.ts";
  f2.line = 3;
  f2.column = 9;
  Finding f3;
  f3.invariant = "T-SHUTDOWN";
  f3.diagnosis = "did not exit";
  f3.severity = Severity::kWarning;
  r.findings = {{f1, 2, false, "", {}, {}}, {f2, 1, true, "", {}, {}}, {f3, 1, false, "", {}, {}}};
  r.baseline_stale = {{"B-USED", "read"}};
  r.calls = 6;
  r.duration = std::chrono::milliseconds(1234);
  r.verdict = engine::Verdict::kFail;
  r.exit_code = 1;
  return r;
}

TEST(Matrix, RowsColumnsAndOutcomes) {
  Matrix m = build_matrix(sample());
  ASSERT_EQ(m.rows.size(), 3u);
  EXPECT_TRUE(m.rows[0].server);
  EXPECT_EQ(m.rows[0].name, "(server)");
  EXPECT_EQ(m.rows[1].name, "read");  // tools by name; "write" was never called
  EXPECT_EQ(m.rows[2].name, "search");
  // Registry order: transport, protocol, truncation, positions.
  EXPECT_EQ(m.columns, (std::vector<std::string>{"T-SHUTDOWN", "P-INIT", "P-LIST", "P-RESULT", "TR-HINT", "POS-UTF16"}));
  auto cell = [&](std::size_t row, const std::string& id) {
    auto it = std::find(m.columns.begin(), m.columns.end(), id);
    return m.rows[row].cells[static_cast<std::size_t>(it - m.columns.begin())];
  };
  EXPECT_EQ(cell(0, "T-SHUTDOWN"), Outcome::kWarn);
  EXPECT_EQ(cell(0, "P-INIT"), Outcome::kPass);
  EXPECT_EQ(cell(0, "P-RESULT"), Outcome::kNotApplicable);
  EXPECT_EQ(cell(1, "P-RESULT"), Outcome::kPass);
  EXPECT_EQ(cell(1, "TR-HINT"), Outcome::kNotApplicable);
  EXPECT_EQ(cell(2, "TR-HINT"), Outcome::kFail);
  EXPECT_EQ(cell(2, "POS-UTF16"), Outcome::kBaselined);
  EXPECT_EQ(m.rows[2].occurrences[4], 2u);  // TR-HINT seen twice
  EXPECT_EQ(m.rows[2].findings, (std::vector<std::size_t>{0, 1}));
}

TEST(Matrix, AFindingMarksItsCellEvenWhenTheToolDidNotListTheInvariant) {
  auto r = sample();
  r.tools[1].invariants.clear();
  Finding f;
  f.invariant = "E-MISS";
  f.tool = "read";
  f.diagnosis = "error instead of a miss";
  r.findings.push_back({f, 1, false, "", {}, {}});
  Matrix m = build_matrix(r);
  auto it = std::find(m.columns.begin(), m.columns.end(), "E-MISS");
  ASSERT_NE(it, m.columns.end());
  EXPECT_EQ(m.rows[1].cells[static_cast<std::size_t>(it - m.columns.begin())], Outcome::kFail);
}

TEST(JsonReport, RoundTripsEveryField) {
  auto r = sample();
  auto doc = to_json(r, "9.9.9");
  auto back = from_json(doc);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(to_json(*back, "9.9.9"), doc);
  EXPECT_EQ(back->findings[1].finding.file, "src/a.ts");
  EXPECT_EQ(back->findings[1].finding.column, 9);
  EXPECT_TRUE(back->findings[1].baselined);
  EXPECT_EQ(back->findings[0].count, 2u);
  EXPECT_EQ(back->tools[0].invariants, r.tools[0].invariants);
  EXPECT_EQ(*back->root, "/work/ws");
  EXPECT_EQ(doc["stats"]["baselined"], 1);
  EXPECT_EQ(doc["stats"]["errors"], 1);
  EXPECT_EQ(doc["stats"]["warnings"], 1);
  EXPECT_FALSE(doc.contains("workspace")) << "absent when no workspace was scanned";
}

TEST(JsonReport, TheWorkspaceRoundTrips) {
  auto r = sample();
  r.workspace = engine::WorkspaceSummary{"/work/ws", 14, 3, 37, 20, 60, 12, "ctags"};
  auto doc = to_json(r, "9.9.9");
  EXPECT_EQ(doc["workspace"]["files"], 14);
  EXPECT_EQ(doc["workspace"]["identifiers"], 37);
  EXPECT_EQ(doc["workspace"]["source"], "ctags");
  auto back = from_json(doc);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->workspace);
  EXPECT_EQ(back->workspace->positions, 60u);
  EXPECT_EQ(to_json(*back, "9.9.9"), doc);
  doc["workspace"]["source"] = "grep";
  EXPECT_FALSE(from_json(doc).ok()) << "the source is ctags or tokenizer";
}

// The statuses checks reported: not observed (with its reason) and not applicable stay apart
// from passed; a failed status shows how its findings failed.
engine::RunReport with_statuses() {
  auto r = sample();
  r.server_outcomes = {{"T-SHUTDOWN", checks::Status::kFailed}, {"P-INIT", checks::Status::kPassed},
                       {"P-LIST", checks::Status::kPassed}};
  auto& search = r.tools[0];
  search.outcomes = {{"P-RESULT", checks::Status::kPassed},     {"TR-HINT", checks::Status::kFailed},
                     {"POS-UTF16", checks::Status::kFailed},    {"TR-PREFIX", checks::Status::kNotObserved},
                     {"TR-RESUME", checks::Status::kNotObserved}, {"TR-CAP", checks::Status::kNotObserved},
                     {"B-USED", checks::Status::kNotApplicable}};
  search.not_observed = {{"TR-PREFIX", "no answer was truncated"},
                         {"TR-RESUME", "no answer was truncated"},
                         {"TR-CAP", "no call set a limit"}};
  search.profile = "ctxo-envelope";
  search.profile_reason = "detected from 4 answers";
  search.successes = 3;
  auto& read = r.tools[1];
  read.outcomes = {{"P-RESULT", checks::Status::kPassed}, {"TR-HINT", checks::Status::kNotObserved}};
  read.not_observed = {{"TR-HINT", "no answer was truncated"}};
  read.profile = "";
  read.profile_reason = "no answer matched a profile";
  read.successes = 2;
  r.successes = 5;
  Finding again = r.findings[0].finding;
  again.request["id"] = 9;
  r.findings[0].examples = {again.request};
  return r;
}

TEST(Matrix, FourStatusesFromTheChecks) {
  Matrix m = build_matrix(with_statuses());
  ASSERT_EQ(m.rows.size(), 3u);
  auto col = [&](const std::string& id) {
    auto it = std::find(m.columns.begin(), m.columns.end(), id);
    EXPECT_NE(it, m.columns.end()) << id;
    return static_cast<std::size_t>(it - m.columns.begin());
  };
  EXPECT_EQ(std::find(m.columns.begin(), m.columns.end(), "B-USED"), m.columns.end())
      << "not applicable everywhere: no column";
  const auto& search = m.rows[2];
  EXPECT_EQ(search.cells[col("P-RESULT")], Outcome::kPass);
  EXPECT_EQ(search.cells[col("TR-HINT")], Outcome::kFail);
  EXPECT_EQ(search.cells[col("POS-UTF16")], Outcome::kBaselined);
  EXPECT_EQ(search.cells[col("TR-PREFIX")], Outcome::kNotObserved);
  EXPECT_EQ(search.reasons[col("TR-PREFIX")], "no answer was truncated");
  EXPECT_EQ(search.reasons[col("TR-CAP")], "no call set a limit");
  EXPECT_EQ(search.reasons[col("P-RESULT")], "");
  EXPECT_EQ(search.profile, "ctxo-envelope");
  EXPECT_EQ(search.profile_reason, "detected from 4 answers");
  const auto& read = m.rows[1];
  EXPECT_EQ(read.cells[col("TR-HINT")], Outcome::kNotObserved);
  EXPECT_EQ(read.cells[col("TR-PREFIX")], Outcome::kNotApplicable);
  EXPECT_EQ(m.rows[0].cells[col("T-SHUTDOWN")], Outcome::kWarn);
  EXPECT_EQ(m.rows[0].cells[col("P-INIT")], Outcome::kPass);
  EXPECT_EQ(outcome_name(Outcome::kNotObserved), std::string("not observed"));
  EXPECT_EQ(outcome_name(Outcome::kNotApplicable), std::string("not applicable"));
}

TEST(Matrix, NotObservedGroupedByReasonInRegistryOrder) {
  auto r = with_statuses();
  auto groups = group_not_observed(r.tools[0]);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].reason, "no call set a limit");  // TR-CAP comes first in the registry
  EXPECT_EQ(groups[0].ids, (std::vector<std::string>{"TR-CAP"}));
  EXPECT_EQ(groups[1].reason, "no answer was truncated");
  EXPECT_EQ(groups[1].ids, (std::vector<std::string>{"TR-PREFIX", "TR-RESUME"}));
  EXPECT_TRUE(group_not_observed(r.tools[2]).empty());
  EXPECT_TRUE(mixed_profiles(r));
  r.tools[1].profile = "ctxo-envelope";
  EXPECT_FALSE(mixed_profiles(r));
}

TEST(JsonReport, StatusesProfilesSuccessesAndExamplesRoundTrip) {
  auto r = with_statuses();
  auto doc = to_json(r, "9.9.9");
  auto back = from_json(doc);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(to_json(*back, "9.9.9"), doc);
  const auto& jt = doc["tools"][0];
  EXPECT_EQ(jt["outcomes"]["TR-PREFIX"], "not_observed");
  EXPECT_EQ(jt["outcomes"]["TR-HINT"], "failed");
  EXPECT_EQ(jt["outcomes"]["P-RESULT"], "passed");
  EXPECT_EQ(jt["outcomes"]["B-USED"], "not_applicable");
  EXPECT_FALSE(jt["outcomes"].contains("E-MISS")) << "only ids the map has";
  EXPECT_EQ(jt["not_observed"]["TR-CAP"], "no call set a limit");
  EXPECT_EQ(jt["profile"], "ctxo-envelope");
  EXPECT_EQ(jt["profile_reason"], "detected from 4 answers");
  EXPECT_EQ(jt["successes"], 3);
  EXPECT_EQ(doc["server_outcomes"]["T-SHUTDOWN"], "failed");
  EXPECT_EQ(doc["stats"]["successes"], 5);
  EXPECT_EQ(doc["findings"][0]["examples"].size(), 1u);
  EXPECT_FALSE(doc["findings"][1].contains("examples")) << "omitted when there are none";
  EXPECT_EQ(back->tools[0].outcomes, r.tools[0].outcomes);
  EXPECT_EQ(back->tools[0].not_observed, r.tools[0].not_observed);
  EXPECT_EQ(back->tools[1].profile_reason, "no answer matched a profile");
  EXPECT_EQ(back->server_outcomes, r.server_outcomes);
  EXPECT_EQ(back->successes, 5u);
  EXPECT_EQ(back->findings[0].examples, r.findings[0].examples);
  // Every existing field is still there.
  for (const char* key : {"name", "read_only", "selected", "calls", "findings", "elapsed_ms", "invariants"})
    EXPECT_TRUE(jt.contains(key)) << key;
}

// calls, data, empty, misses, errors, refusals, no_answer, largest_bytes, truncated[, leaks]
checks::Coverage lookup_coverage() { return {41, 0, 0, 37, 0, 4, 0, 312, 0}; }

TEST(JsonReport, CoverageRoundTripsAndIsChecked) {
  auto r = with_statuses();
  r.tools[0].coverage = lookup_coverage();
  r.tools[0].second_pass_calls = 8;
  r.tools[1].coverage = {7, 3, 1, 0, 1, 0, 0, 0, 2, 2};
  r.tools[1].driven_calls = 4;
  auto doc = to_json(r, "1.0.0");
  EXPECT_EQ(doc["tools"][1]["coverage"]["leaks"], 2);
  EXPECT_EQ(doc["tools"][0]["coverage"]["leaks"], 0) << "always written, zero included";
  const auto& jc = doc["tools"][0]["coverage"];
  EXPECT_EQ(jc["calls"], 41);
  EXPECT_EQ(jc["data"], 0);
  EXPECT_EQ(jc["misses"], 37);
  EXPECT_EQ(jc["refusals"], 4);
  EXPECT_EQ(jc["largest_bytes"], 312);
  EXPECT_EQ(doc["tools"][0]["second_pass_calls"], 8);
  EXPECT_EQ(doc["tools"][1]["driven_calls"], 4);
  auto back = from_json(doc);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->tools[0].coverage, r.tools[0].coverage);
  EXPECT_EQ(back->tools[1].coverage, r.tools[1].coverage);
  EXPECT_EQ(back->tools[0].second_pass_calls, 8u);
  EXPECT_EQ(back->tools[1].driven_calls, 4u);
  // The schema holds the shape: no negative count, no missing field; a report from before
  // coverage existed still reads.
  auto negative = doc;
  negative["tools"][0]["coverage"]["data"] = -1;
  auto missing = doc;
  missing["tools"][0]["coverage"].erase("calls");
  for (const auto& d : {negative, missing}) EXPECT_FALSE(from_json(d).ok()) << d["tools"][0].dump();
  auto older = doc;
  older["tools"][0].erase("coverage");
  older["tools"][0].erase("second_pass_calls");
  EXPECT_TRUE(from_json(older).ok());
  // A report from before leaks were counted reads, as 0 leaks; a negative count does not.
  auto before_leaks = doc;
  before_leaks["tools"][1]["coverage"].erase("leaks");
  auto read = from_json(before_leaks);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->tools[1].coverage.leaks, 0u);
  EXPECT_EQ(read->tools[1].coverage.data, 3u);
  auto negative_leaks = doc;
  negative_leaks["tools"][1]["coverage"]["leaks"] = -1;
  EXPECT_FALSE(from_json(negative_leaks).ok());
}

TEST(Matrix, AToolThatReachedNoDataIsWhyItsRulesWereNotObserved) {
  auto r = with_statuses();
  r.tools[0].coverage = lookup_coverage();
  auto groups = group_not_observed(r.tools[0]);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].reason, "0/41 calls reached data (37 graceful misses, 4 refusals)");
  EXPECT_FALSE(groups[0].ids.empty());
  // Leaks are their own category in the reason, and never data.
  r.tools[0].coverage.leaks = 3;
  r.tools[0].coverage.calls = 44;
  groups = group_not_observed(r.tools[0]);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].reason, "0/44 calls reached data (37 graceful misses, 3 leaks, 4 refusals)");
}

TEST(JsonReport, UntestedVerdictValidates) {
  engine::RunReport r;
  r.command = {"./srv"};
  r.verdict = engine::Verdict::kUntested;
  r.exit_code = 4;
  r.calls = 3;
  auto back = from_json(to_json(r, "1.0.0"));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->verdict, engine::Verdict::kUntested);
  EXPECT_EQ(back->exit_code, 4);
}

TEST(JsonReport, SchemaKeepsStatusesStrict) {
  auto doc = to_json(with_statuses(), "1.0.0");
  auto bad_word = doc;
  bad_word["tools"][0]["outcomes"]["TR-HINT"] = "skipped";
  auto bad_id = doc;
  bad_id["tools"][0]["outcomes"]["NOT-AN-ID"] = "passed";
  auto bad_reason = doc;
  bad_reason["tools"][0]["not_observed"]["TR-HINT"] = 3;
  auto bad_server = doc;
  bad_server["server_outcomes"]["P-INIT"] = "ok";
  auto too_many = doc;
  too_many["findings"][0]["examples"] = nlohmann::json::array({{{"id", 1}}, {{"id", 2}}, {{"id", 3}}, {{"id", 4}}});
  for (const auto& d : {bad_word, bad_id, bad_reason, bad_server, too_many}) {
    auto r = from_json(d);
    EXPECT_FALSE(r.ok()) << d.dump();
  }
}

TEST(JsonReport, RejectsWhatIsNotAReport) {
  for (const char* text : {R"({"tool": "other"})", R"([1, 2])",
                           R"({"tool": "ctxo-conform", "version": "1", "seed": 1, "server": {"command": []},
                               "verdict": "maybe", "exit_code": 0, "stats": {"tools": 0, "calls": 0, "findings": 0},
                               "findings": []})"}) {
    auto r = from_json(nlohmann::json::parse(text));
    EXPECT_FALSE(r.ok()) << text;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, "parse");
    }
  }
}

}  // namespace
}  // namespace ctxo::reports
