// SPDX-License-Identifier: MIT
// Generic truncation rules, end to end (issue 29): tests/npm/fixtures/dialects/paged.mjs answers
// in no envelope profile's shape, so its answers are read generically, and each of three tools has
// one truncation defect:
//   search_code   JSON + Markdown footer, `pagination: {truncated: true}`, no way on    -> TR-HINT
//   find_matches  `moreAvailable: false` at `limit: 1` while a larger limit returns more -> TR-COUNT
//   find_symbols  Markdown "Found 2 symbols" at `limit: 2` while 38 match               -> TR-COUNT
//   list_commits  an opaque `nextCursor` one commit too far on                         -> TR-RESUME
// and list_events pages correctly (hasMore, nextOffset, total), as does list_notes, whose
// `pagination` (mcp-memory-keeper's) says `truncated: false` beside `hasMore: true`, a `nextOffset`
// and a total above what it returned: a false flag the answer contradicts claims nothing, so no
// TR-COUNT (per answer or across limits). Exactly those findings, each with
// profile "generic", and none on the conformant twin (DIALECTS_CONFORMANT=1). The live run and
// `ctxo-conform check` on its transcript agree, and the console says how the answers were read.
#include <gtest/gtest.h>

#include <set>
#include <unistd.h>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string server() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/dialects/paged.mjs"; }

HarnessRun run(bool conformant, const std::string& record = "") {
  std::vector<std::string> args = {"--seed", "5", "--calls", "6", "--no-cases", "--no-shrink", "-v"};
  if (!record.empty()) args.insert(args.end(), {"--record", record});
  if (conformant) args.insert(args.end(), {"--env", "DIALECTS_CONFORMANT=1"});
  args.insert(args.end(), {"--", "node", server()});
  return run_harness(args);
}

std::set<std::string> found(const HarnessRun& r) {
  std::set<std::string> s;
  for (const auto& f : r.report["findings"]) s.insert(f["invariant"].get<std::string>() + " " + f["tool"].get<std::string>());
  return s;
}

TEST(GenericTruncation, EachDefectIsFoundUnderProfileGeneric) {
  REQUIRE_NPM(sdk_dir());
  const std::string rec = std::string(CTXO_BINARY_DIR) + "/test-tmp/generic-tr-" + std::to_string(::getpid()) + ".jsonl";
  HarnessRun r = run(false, rec);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
  const std::set<std::string> want = {"TR-HINT search_code", "TR-COUNT find_matches", "TR-COUNT find_symbols",
                                      "TR-RESUME list_commits"};
  EXPECT_EQ(found(r), want) << r.report["findings"].dump(2);
  for (const auto& f : r.report["findings"]) {
    EXPECT_EQ(f.value("profile", ""), "generic") << f.dump(2);
    if (f["invariant"] == "TR-COUNT") {
      // Both limits and counts are named; the request is the small one.
      const std::string d = f["diagnosis"].get<std::string>();
      EXPECT_NE(d.find("`limit` "), std::string::npos) << d;
      EXPECT_NE(d.find("silently omitted"), std::string::npos) << d;
      EXPECT_NE(d.find("The larger request"), std::string::npos) << d;
      const auto& args = f["request"]["params"]["arguments"];
      EXPECT_EQ(args["limit"], f["tool"] == "find_symbols" ? 2 : 1) << f.dump(2);
    }
    if (f["invariant"] == "TR-RESUME") {
      // The request is the next page (its cursor), the skipped item is named, once for the tool.
      const std::string d = f["diagnosis"].get<std::string>();
      EXPECT_TRUE(f["request"]["params"]["arguments"].contains("cursor")) << f.dump(2);
      EXPECT_NE(d.find("is never returned"), std::string::npos) << d;
      EXPECT_NE(d.find("`nextCursor`"), std::string::npos) << d;
    }
  }
  // The tools' statuses: every tool exercised TR-COUNT or TR-HINT is reported per tool.
  for (const auto& t : r.report["tools"]) {
    if (t["name"] == "list_events") {
      EXPECT_EQ(t["outcomes"].value("TR-COUNT", ""), "passed") << t.dump(2);
      EXPECT_EQ(t["outcomes"].value("TR-HINT", ""), "passed") << t.dump(2);
      EXPECT_EQ(t["outcomes"].value("TR-RESUME", ""), "passed") << t.dump(2);  // its nextOffset was followed
    }
    if (t["name"] == "list_notes") {
      // `truncated: false` with `hasMore: true`: its counts were compared, and its flag read as more.
      EXPECT_EQ(t["outcomes"].value("TR-COUNT", ""), "passed") << t.dump(2);
      EXPECT_EQ(t["outcomes"].value("TR-HINT", ""), "passed") << t.dump(2);
    }
  }
  // The console and the report say how the answers were read.
  EXPECT_NE(r.out.find("generic reading of the "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("JSON+Markdown "), std::string::npos) << r.out;
  ASSERT_TRUE(r.report["generic_readings"].is_object()) << r.report.dump(2);
  EXPECT_GT(r.report["generic_readings"].value("json", 0), 0);
  EXPECT_GT(r.report["generic_readings"].value("json+markdown", 0), 0);
  EXPECT_GT(r.report["generic_readings"].value("markdown", 0), 0);

  // Offline: `check` reads the transcript the same way (the judge per answer, the same pairing
  // across calls), so it finds the same defects.
  HarnessRun offline = run_harness({"check", rec});
  ASSERT_TRUE(offline.report.is_object()) << offline.err;
  EXPECT_EQ(found(offline), want) << offline.report["findings"].dump(2);
  for (const auto& f : offline.report["findings"]) EXPECT_EQ(f.value("profile", ""), "generic") << f.dump(2);
  EXPECT_EQ(offline.report["generic_readings"], r.report["generic_readings"]);
}

TEST(GenericTruncation, TheConformantTwinHasNoFinding) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run(true);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const auto& t : r.report["tools"]) {
    SCOPED_TRACE(t["name"].get<std::string>());
    // Its truncated answers name the way on.
    if (t["name"] == "search_code") {
      EXPECT_EQ(t["outcomes"].value("TR-HINT", ""), "passed") << t.dump(2);
    }
    // The cursor was followed and the page went on where the first ended.
    if (t["name"] == "list_commits") {
      EXPECT_EQ(t["outcomes"].value("TR-RESUME", ""), "passed") << t.dump(2);
    }
  }
}

}  // namespace
}  // namespace ctxo::test
