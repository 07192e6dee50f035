// SPDX-License-Identifier: MIT
// The reach suite's Markdown code-graph server (tests/npm/fixtures/reach/codegraph-md.mjs): it
// answers in Markdown only, its lookups take a symbol name only its own Markdown prints, and its
// defect (a crash on a doc comment with CJK or an emoji) needs such a name. The default run must
// find exactly that crash; with --no-harvest no call names a real symbol and nothing is found; the
// conformant twin has no finding. The transcript (--record) says which names the calls carried.
#include <gtest/gtest.h>

#include <fstream>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string suite() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/reach"; }

const std::set<std::string> kSymbols = {"main", "renderScene", "makeShape", "Shape", "log"};

struct MdRun {
  HarnessRun run;
  std::vector<nlohmann::json> exchanges;  ///< The --record transcript, one object per exchange.
};

MdRun run_md(std::vector<std::string> flags, bool conformant = false) {
  static int n = 0;
  const std::string record = std::string(CTXO_BINARY_DIR) + "/test-tmp/reach-md-" + std::to_string(::getpid()) + "-" +
                             std::to_string(n++) + ".jsonl";
  std::vector<std::string> args = {"--seed", "1", "--no-cases", "--calls", "12", "--timeout", "10000", "--record", record};
  if (conformant) args.insert(args.end(), {"--env", "REACH_CONFORMANT=1"});
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "node", suite() + "/codegraph-md.mjs"});
  MdRun r{run_harness(args), {}};
  std::ifstream in(record);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) r.exchanges.push_back(std::move(j));
  }
  return r;
}

std::set<std::string> found(const HarnessRun& r) {
  std::set<std::string> s;
  for (const auto& f : r.report["findings"]) s.insert(f["invariant"].get<std::string>() + " " + f["tool"].get<std::string>());
  return s;
}

// tools/call requests of `tool` whose argument `param` is a real symbol name, and all of them.
std::pair<int, int> real_name_calls(const MdRun& r, const std::string& tool, const std::string& param) {
  int real = 0, all = 0;
  for (const auto& x : r.exchanges) {
    const auto& req = x.value("request", nlohmann::json::object());
    if (req.value("method", "") != "tools/call" || !req.contains("params") || req["params"].value("name", "") != tool)
      continue;
    ++all;
    const auto& args = req["params"].value("arguments", nlohmann::json::object());
    if (args.is_object() && args.contains(param) && args[param].is_string() &&
        kSymbols.count(args[param].get<std::string>()))
      ++real;
  }
  return {real, all};
}

TEST(ReachMarkdown, NamesReadOutOfMarkdownReachTheCrash) {
  REQUIRE_NPM(sdk_dir());
  MdRun r = run_md({});
  ASSERT_TRUE(r.run.report.is_object()) << r.run.err;
  EXPECT_EQ(found(r.run), std::set<std::string>{"T-CRASH find_callers"}) << r.run.report["findings"].dump(2);
  EXPECT_EQ(r.run.exit_code, 1);
  // The crash was shrunk to a name the listing printed, one whose doc has CJK or an emoji.
  for (const auto& f : r.run.report["findings"]) {
    const auto& args = f["request"]["params"]["arguments"];
    ASSERT_TRUE(args.contains("symbol")) << f.dump(2);
    EXPECT_TRUE(std::set<std::string>({"main", "renderScene", "makeShape"}).count(args["symbol"].get<std::string>()))
        << args.dump();
  }
  // get_symbol's calls named real symbols too (the transcript holds answered exchanges only: the
  // call that killed the server is in the finding, not there).
  ASSERT_FALSE(r.exchanges.empty()) << "no transcript";
  auto [symbol_real, symbol_all] = real_name_calls(r, "get_symbol", "name");
  EXPECT_GT(symbol_real, 0) << symbol_all << " calls";
  EXPECT_GE(r.run.report["stats"]["harvested"].get<int>(), 9) << "5 names and 4 paths from the table";
}

TEST(ReachMarkdown, WithoutHarvestingNoCallNamesARealSymbol) {
  REQUIRE_NPM(sdk_dir());
  MdRun r = run_md({"--no-harvest"});
  ASSERT_TRUE(r.run.report.is_object()) << r.run.err;
  EXPECT_TRUE(found(r.run).empty()) << r.run.report["findings"].dump(2);
  auto [callers_real, callers_all] = real_name_calls(r, "find_callers", "symbol");
  auto [symbol_real, symbol_all] = real_name_calls(r, "get_symbol", "name");
  EXPECT_GT(callers_all, 0);
  EXPECT_GT(symbol_all, 0);
  EXPECT_EQ(callers_real, 0);
  EXPECT_EQ(symbol_real, 0);
  // Every lookup answered "No symbol named X." (or refused invalid arguments): no data reached.
  for (const auto& x : r.exchanges) {
    const auto& req = x.value("request", nlohmann::json::object());
    if (req.value("method", "") != "tools/call" || req["params"].value("name", "") == "list_symbols") continue;
    const auto& res = x.value("response", nlohmann::json::object());
    ASSERT_TRUE(res.contains("result")) << x.dump();
    const std::string text = res["result"]["content"][0].value("text", "");
    EXPECT_TRUE(text.rfind("No symbol named ", 0) == 0 || res["result"].value("isError", false)) << text;
  }
}

TEST(ReachMarkdown, TheConformantTwinHasNoFinding) {
  REQUIRE_NPM(sdk_dir());
  MdRun r = run_md({}, true);
  ASSERT_TRUE(r.run.report.is_object()) << r.run.err;
  EXPECT_TRUE(found(r.run).empty()) << r.run.report["findings"].dump(2);
  EXPECT_EQ(r.run.exit_code, 0) << r.run.out;
  EXPECT_GT(real_name_calls(r, "find_callers", "symbol").first, 0) << "the twin is reached the same way";
}

}  // namespace
}  // namespace ctxo::test
