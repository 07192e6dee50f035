// SPDX-License-Identifier: MIT
// Honest coverage, end to end (issue 28): tests/npm/fixtures/dialects/honest.mjs answers every
// valid call of four tools with a success that carries no data (error prose with a TypeError,
// "No generators found", {"type":"items","data":[]}, "schema for NAME: undefined") and one tool
// with a real listing that mentions those very words. Each answer lands in its own coverage
// category and only the listing "reached data". Coverage itself makes no finding, but two of those
// answers are in-band failures (issue 29), and are now reported as such: the error prose answered
// without isError is P-ISERROR on search_libraries (one tool alone: its own finding, not the
// server's; "fetch failed" is the network, so not P-NO-THROW), and "schema for NAME: undefined" is
// P-LEAK on get_generator_schema. Both warnings: the run still exits 0. The miss, the empty shape
// and the listing that merely mentions "TypeError" and "[object Object]" are no finding.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string server() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/dialects/honest.mjs"; }

const nlohmann::json& tool(const HarnessRun& r, const std::string& name) {
  static const nlohmann::json none;
  for (const auto& t : r.report["tools"])
    if (t["name"] == name) return t;
  return none;
}

int n(const nlohmann::json& c, const char* key) { return c.at(key).get<int>(); }

TEST(HonestCoverage, EachAnswerInItsOwnCategoryAndOnlyRealDataIsData) {
  REQUIRE_NPM(sdk_dir());
  // --no-harvest: no second pass, --concurrency 0: no batches, --no-shrink: no smaller calls to
  // reproduce a finding, and --skip P-ANNOTATION: no witness calls for the read-only tools, so
  // every tool gets exactly the 6 calls asked for (5 valid, one generated invalid); what is
  // measured is how answers are read, not how values are found.
  HarnessRun r = run_harness({"--seed", "3", "--calls", "6", "--no-cases", "--no-harvest", "--concurrency", "0",
                              "--no-shrink", "--skip", "P-ANNOTATION", "-v", "--", "node", server()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  std::set<std::pair<std::string, std::string>> found;
  for (const auto& f : r.report["findings"]) {
    found.insert({f["invariant"].get<std::string>(), f["tool"].get<std::string>()});
    EXPECT_EQ(f["severity"], "warning") << f.dump(2);
  }
  const std::set<std::pair<std::string, std::string>> want = {{"P-ISERROR", "search_libraries"},
                                                              {"P-LEAK", "get_generator_schema"}};
  EXPECT_EQ(found, want) << "exactly the in-band failures: " << r.report["findings"].dump(2);
  EXPECT_EQ(r.report["findings"].size(), 2u) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;

  // The one category each tool's valid calls land in; invalid calls are refused (isError).
  const std::map<std::string, const char*> category = {{"search_libraries", "errors"},
                                                       {"list_generators", "misses"},
                                                       {"get_items", "empty"},
                                                       {"get_generator_schema", "leaks"},
                                                       {"list_notes", "data"}};
  for (const auto& [name, key] : category) {
    SCOPED_TRACE(name);
    const auto& t = tool(r, name);
    ASSERT_TRUE(t.is_object()) << r.report["tools"].dump(2);
    const auto& c = t["coverage"];
    EXPECT_EQ(c["calls"], t["calls"]);
    EXPECT_EQ(n(c, "calls"), 6) << c.dump();
    EXPECT_EQ(n(c, key), 5) << c.dump();
    EXPECT_EQ(n(c, "refusals"), 1) << "the generated invalid call, refused with isError: " << c.dump();
    for (const char* other : {"data", "empty", "misses", "errors", "leaks", "no_answer"}) {
      if (std::string(other) == key) continue;
      EXPECT_EQ(n(c, other), 0) << other << ": " << c.dump();
    }
  }

  // Only list_notes reached data: the console says so, and the four others are noted with why.
  EXPECT_NE(r.out.find("data reached: by 1 of 5 called tools; none by "), std::string::npos) << r.out;
  for (const char* name : {"search_libraries", "list_generators", "get_items", "get_generator_schema"})
    EXPECT_NE(r.out.find(std::string(name) + " (0/"), std::string::npos) << name << ":\n" << r.out;
  EXPECT_EQ(r.out.find("list_notes (0/"), std::string::npos) << r.out;
  const std::map<std::string, std::string> why = {{"search_libraries", " error"},
                                                  {"list_generators", " graceful miss"},
                                                  {"get_items", " empty"},
                                                  {"get_generator_schema", " leak"}};
  for (const auto& [name, word] : why) {
    bool noted = false;
    for (const auto& note : r.report["notes"]) {
      const std::string s = note.get<std::string>();
      if (s.rfind("tool " + name + ": 0/", 0) == 0 && s.find(word) != std::string::npos) noted = true;
    }
    EXPECT_TRUE(noted) << name << " noted as reaching no data (" << word << "): " << r.report["notes"].dump(2);
  }
  for (const auto& note : r.report["notes"])
    EXPECT_EQ(note.get<std::string>().rfind("tool list_notes:", 0), std::string::npos) << note;
}

}  // namespace
}  // namespace ctxo::test
