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
  r.findings = {{f1, 2, false, "", {}}, {f2, 1, true, "", {}}, {f3, 1, false, "", {}}};
  r.baseline_stale = {{"B-USED", "read"}};
  r.calls = 6;
  r.duration = std::chrono::milliseconds(1234);
  r.verdict = "fail";
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
  EXPECT_EQ(cell(0, "P-RESULT"), Outcome::kNotChecked);
  EXPECT_EQ(cell(1, "P-RESULT"), Outcome::kPass);
  EXPECT_EQ(cell(1, "TR-HINT"), Outcome::kNotChecked);
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
  r.findings.push_back({f, 1, false, "", {}});
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
