// SPDX-License-Identifier: MIT
// The reach suite (tests/npm/fixtures/reach): a code-intelligence server written with the official
// TypeScript SDK whose listing tools name things (`name`, `id`, `path`, `commitId`) that its lookup
// tools take under other parameter names (`symbol`, `symbolId`, `query`), and whose four defects
// show only on real data. The default run must find each, exactly; with --no-harvest the three
// that need harvested values are not found (proving the test measures reach), and the coverage
// numbers say why. See the suite's README.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string suite() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/reach"; }

HarnessRun run_reach(std::vector<std::string> flags, bool conformant = false) {
  std::vector<std::string> args = {"--seed", "1", "--no-cases", "--root", suite() + "/workspace"};
  if (conformant) args.insert(args.end(), {"--env", "REACH_CONFORMANT=1"});
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "node", suite() + "/codeintel.mjs"});
  return run_harness(args);
}

// "INVARIANT tool" of every finding, warnings included.
std::set<std::string> found(const HarnessRun& r) {
  std::set<std::string> s;
  for (const auto& f : r.report["findings"]) s.insert(f["invariant"].get<std::string>() + " " + f["tool"].get<std::string>());
  return s;
}

const nlohmann::json& tool(const HarnessRun& r, const std::string& name) {
  static const nlohmann::json none;
  for (const auto& t : r.report["tools"])
    if (t["name"] == name) return t;
  return none;
}

// Every category counted once: they add up to the calls the harness made to the tool.
void expect_exact_coverage(const HarnessRun& r) {
  for (const auto& t : r.report["tools"]) {
    SCOPED_TRACE(t["name"].get<std::string>());
    const auto& c = t["coverage"];
    ASSERT_TRUE(c.is_object());
    EXPECT_EQ(c["calls"], t["calls"]);
    EXPECT_EQ(c["calls"].get<int>(), c["data"].get<int>() + c["empty"].get<int>() + c["misses"].get<int>() +
                                          c["errors"].get<int>() + c["refusals"].get<int>() + c["no_answer"].get<int>());
    EXPECT_EQ(c["errors"], 0) << "the server answers every valid call";
    EXPECT_EQ(c["no_answer"], 0);
  }
}

TEST(Reach, DefaultRunFindsEveryDefectThatNeedsRealData) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_reach({});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(found(r), (std::set<std::string>{"POS-UTF16 find_references", "TR-COUNT get_callers",
                                             "TR-HINT search_text", "POS-BASE file_outline"}))
      << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 1);
  expect_exact_coverage(r);
  // blame is called before file_history, the only tool naming commits: its first pass reaches
  // nothing; the second pass, with file_history's commitIds, reaches its data.
  const auto& blame = tool(r, "blame");
  EXPECT_GT(blame["second_pass_calls"].get<int>(), 0) << blame.dump(2);
  EXPECT_GT(blame["coverage"]["data"].get<int>(), 0) << blame.dump(2);
  // search_text's calls that matched were repeated with `limit` driven small: that cut is the
  // TR-HINT.
  EXPECT_GT(tool(r, "search_text")["driven_calls"].get<int>(), 0);
  EXPECT_GT(tool(r, "search_text")["coverage"]["truncated"].get<int>(), 0);
  for (const auto& t : r.report["tools"]) EXPECT_GT(t["coverage"]["data"].get<int>(), 0) << t.dump(2);
  for (const auto& n : r.report["notes"]) EXPECT_EQ(n.get<std::string>().find("reached data"), std::string::npos) << n;
}

TEST(Reach, WithoutHarvestingTheLookupsReachNothingAndSaySo) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_reach({"--no-harvest"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  // Only the defect a schema hint reaches (file_outline's "e.g. 'src/app.ts'") is found.
  EXPECT_EQ(found(r), std::set<std::string>{"POS-BASE file_outline"}) << r.report["findings"].dump(2);
  expect_exact_coverage(r);
  for (const char* name : {"find_references", "get_callers", "blame", "file_history"}) {
    SCOPED_TRACE(name);
    const auto& c = tool(r, name)["coverage"];
    EXPECT_EQ(c["data"], 0) << c.dump();
    EXPECT_EQ(c["misses"].get<int>() + c["refusals"].get<int>(), c["calls"].get<int>()) << "every call a miss or refused";
    bool noted = false;
    for (const auto& n : r.report["notes"])
      if (n.get<std::string>().rfind(std::string("tool ") + name + ": 0/", 0) == 0) noted = true;
    EXPECT_TRUE(noted) << r.report["notes"].dump(2);
    // Every rule it left unobserved says why.
    for (const auto& [id, why] : tool(r, name)["not_observed"].items())
      EXPECT_NE(why.get<std::string>().find("calls reached data"), std::string::npos) << id << ": " << why;
  }
  const auto& search = tool(r, "search_text")["coverage"];
  EXPECT_EQ(search["data"], 0) << "random words match nothing";
  EXPECT_EQ(search["empty"].get<int>() + search["refusals"].get<int>(), search["calls"].get<int>());
  EXPECT_EQ(tool(r, "search_text")["driven_calls"], 0) << "nothing reached data, so nothing to drive";
  EXPECT_EQ(tool(r, "blame")["second_pass_calls"], 0);
}

TEST(Reach, TheConformantTwinHasNoFinding) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_reach({}, true);
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(found(r).empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  expect_exact_coverage(r);
}

// Exact numbers on answers known in advance: list_files takes no argument, so its calls are the
// empty call (data), the E-STABLE repeat (data), and refused invalid ones; with --calls 4 and no
// shrinking the harness makes a fixed set of calls.
TEST(Reach, CoverageIsExactOnKnownAnswers) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_reach({"--tools", "list_files,blame", "--calls", "4", "--no-shrink"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  expect_exact_coverage(r);
  const auto& files = tool(r, "list_files")["coverage"];
  EXPECT_EQ(files["misses"], 0);
  EXPECT_EQ(files["data"].get<int>() + files["refusals"].get<int>(), files["calls"].get<int>()) << files.dump();
  EXPECT_GE(files["data"].get<int>(), 1);
  EXPECT_EQ(files["largest_bytes"], 188) << "the whole file list, {files:[3 files], _meta}";
  // blame without file_history: every valid call misses, and no second pass can help.
  const auto& blame = tool(r, "blame")["coverage"];
  EXPECT_EQ(blame["data"], 0);
  EXPECT_EQ(blame["misses"].get<int>() + blame["refusals"].get<int>(), blame["calls"].get<int>()) << blame.dump();
}

// ---- lsp-bridge.mjs: the workspace feeds the generator ----------------------------------------
// An LSP bridge takes a file and a position or a symbol, and no tool lists the files: only a
// caller that knows the workspace names a real one. Its defect (a lookup in a file with any
// non-ASCII character never answers) is a T-HANG that only a real file shows.

struct Bridge {
  HarnessRun run;
  std::vector<nlohmann::json> calls;  ///< The answered tools/call exchanges of the --record transcript.
};

Bridge run_bridge(std::vector<std::string> flags, bool conformant = false, const char* timeout_ms = "1000") {
  static int counter = 0;
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp";
  std::filesystem::create_directories(dir);
  const std::string record = dir + "/lsp-bridge-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".jsonl";
  std::vector<std::string> args = {"--seed",  "1",      "--no-cases", "--no-shrink", "--timeout", timeout_ms,
                                   "--root",  suite() + "/workspace", "--cwd", suite() + "/workspace",
                                   "--record", record};
  if (conformant) args.insert(args.end(), {"--env", "LSP_CONFORMANT=1"});
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "node", suite() + "/lsp-bridge.mjs"});
  Bridge b{run_harness(args), {}};
  std::istringstream lines(slurp(record));
  for (std::string line; std::getline(lines, line);) {
    auto x = nlohmann::json::parse(line, nullptr, false);
    if (x.is_object() && x["request"].value("method", "") == "tools/call") b.calls.push_back(std::move(x));
  }
  return b;
}

// The workspace file `file_path` names (relative to it, or absolute inside it), or "".
std::string real_file(const nlohmann::json& args) {
  if (!args.is_object() || !args.contains("file_path") || !args["file_path"].is_string()) return "";
  namespace fs = std::filesystem;
  const fs::path root = fs::canonical(suite() + "/workspace");
  const std::string p = args["file_path"].get<std::string>();
  std::error_code ec;
  const fs::path full = fs::weakly_canonical(p.size() && p[0] == '/' ? fs::path(p) : root / p, ec);
  if (ec || !fs::is_regular_file(full, ec)) return "";
  const std::string rel = full.lexically_relative(root).generic_string();
  return rel.empty() || rel.rfind("..", 0) == 0 ? "" : rel;
}

std::string answer_text(const nlohmann::json& exchange) {
  const auto& result = exchange["response"]["result"];
  if (!result.is_object() || !result.contains("content") || result["content"].empty()) return "";
  return result["content"][0].value("text", "");
}

// get_definition alone, with few calls: each hang costs six times --timeout to confirm, and
// --timeout must leave node time to start (find_references and hover hang the same way: a run
// of all three with default calls takes about 40 s).
TEST(ReachLspBridge, TheWorkspaceFindsTheHangOnNonAsciiFiles) {
  REQUIRE_NPM(sdk_dir());
  Bridge b = run_bridge({"--tools", "get_definition", "--calls", "10"});
  const HarnessRun& r = b.run;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.out;
  // The workspace was scanned and said so.
  ASSERT_TRUE(r.report.contains("workspace")) << r.report.dump(2);
  EXPECT_EQ(r.report["workspace"]["files"], 3);
  EXPECT_GE(r.report["workspace"]["declared"].get<int>(), 5);
  bool noted = false;
  for (const auto& n : r.report["notes"]) noted = noted || n.get<std::string>().rfind("workspace: 3 files, ", 0) == 0;
  EXPECT_TRUE(noted) << r.report["notes"].dump(2);
  // Exactly the hang, on get_definition, its call naming a real file holding non-ASCII text.
  EXPECT_EQ(found(r), std::set<std::string>{"T-HANG get_definition"}) << r.report["findings"].dump(2);
  for (const auto& f : r.report["findings"]) {
    EXPECT_EQ(f["invariant"], "T-HANG") << f.dump(2);
    EXPECT_EQ(f["severity"], "error") << f.dump(2);
    const std::string file = real_file(f["request"]["params"]["arguments"]);
    ASSERT_FALSE(file.empty()) << "the hanging call names a real file: " << f["request"].dump();
    const std::string text = slurp(suite() + "/workspace/" + file);
    EXPECT_TRUE(std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
        << file << " has a non-ASCII character";
  }
  // Before the hang, the answered calls that named a real file were on ASCII src/jobs.ts only.
  for (const auto& c : b.calls) {
    const std::string file = real_file(c["request"]["params"]["arguments"]);
    if (!file.empty()) {
      EXPECT_EQ(file, "src/jobs.ts") << c.dump();
    }
  }
}

TEST(ReachLspBridge, WithoutHarvestingNoCallNamesARealFile) {
  REQUIRE_NPM(sdk_dir());
  Bridge b = run_bridge({"--no-harvest"});
  const HarnessRun& r = b.run;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(found(r).empty()) << r.report["findings"].dump(2);
  EXPECT_FALSE(r.report.contains("workspace"));
  ASSERT_GT(b.calls.size(), 20u);
  for (const auto& c : b.calls) {
    EXPECT_EQ(real_file(c["request"]["params"]["arguments"]), "") << c["request"].dump();
    // No lookup reached data: every answer is the "no server" text or a refusal.
    const std::string text = answer_text(c);
    EXPECT_TRUE(text.rfind("No LSP server configured for file: ", 0) == 0 || text.rfind("Invalid arguments", 0) == 0 ||
                c["response"].contains("error"))
        << c.dump();
  }
}

TEST(ReachLspBridge, TheConformantTwinAnswersRealFilesAndHasNoFinding) {
  REQUIRE_NPM(sdk_dir());
  Bridge b = run_bridge({}, true);
  const HarnessRun& r = b.run;
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(found(r).empty()) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // A share of the calls name real files, in relative and absolute form; every tool reaches a
  // real answer (JSON, not the "no server" text) through them.
  std::map<std::string, std::size_t> calls, real, answered;
  std::size_t absolute = 0;
  for (const auto& c : b.calls) {
    const auto& params = c["request"]["params"];
    const std::string tool = params["name"].get<std::string>();
    ++calls[tool];
    if (real_file(params["arguments"]).empty()) continue;
    ++real[tool];
    if (params["arguments"]["file_path"].get<std::string>()[0] == '/') ++absolute;
    const std::string text = answer_text(c);
    if (!text.empty() && text[0] == '{') ++answered[tool];
  }
  EXPECT_GT(absolute, 0u);
  std::size_t all = 0, named = 0;
  for (const char* tool : {"get_definition", "find_references", "hover"}) {
    SCOPED_TRACE(tool);
    EXPECT_GE(real[tool] * 5, calls[tool]) << "at least a fifth of the calls name a real file";
    EXPECT_GT(answered[tool], 0u);
    all += calls[tool];
    named += real[tool];
  }
  std::cout << "lsp-bridge (conformant): " << named << " of " << all << " calls named a real file\n";
  // Positions are coherent: hover at a position the workspace offered names the identifier there.
  std::size_t symbols = 0;
  for (const auto& c : b.calls) {
    if (c["request"]["params"]["name"] != "hover") continue;
    auto doc = nlohmann::json::parse(answer_text(c), nullptr, false);
    if (doc.is_object() && doc["symbol"].is_string()) ++symbols;
  }
  EXPECT_GT(symbols, 0u) << "some hover call's (line, character) was on an identifier";
}

// The share of codeintel.mjs's calls naming a real workspace file (any string argument that is
// one), with the workspace fed and without harvesting: the workspace raises it.
TEST(ReachLspBridge, CodeintelCallsNameRealFilesWithTheWorkspace) {
  REQUIRE_NPM(sdk_dir());
  auto share = [](std::vector<std::string> flags) {
    const std::string record = std::string(CTXO_BINARY_DIR) + "/test-tmp/codeintel-" + std::to_string(::getpid()) +
                               (flags.empty() ? "-ws" : "-none") + ".jsonl";
    flags.insert(flags.end(), {"--record", record, "--no-shrink", "--calls", "24"});
    HarnessRun r = run_reach(flags);
    EXPECT_TRUE(r.report.is_object()) << r.err;
    std::size_t calls = 0, real = 0;
    std::istringstream lines(slurp(record));
    for (std::string line; std::getline(lines, line);) {
      auto x = nlohmann::json::parse(line, nullptr, false);
      if (!x.is_object() || x["request"].value("method", "") != "tools/call") continue;
      ++calls;
      for (const auto& [k, v] : x["request"]["params"]["arguments"].items())
        if (v.is_string() && !real_file({{"file_path", v}}).empty()) {
          ++real;
          break;
        }
    }
    return std::make_pair(real, calls);
  };
  const auto with = share({});
  const auto without = share({"--no-harvest"});
  std::cout << "codeintel: " << with.first << " of " << with.second << " calls named a real file with the workspace, "
            << without.first << " of " << without.second << " with --no-harvest\n";
  EXPECT_GT(with.first * without.second, without.first * with.second) << "the workspace raises the share";
}


// A fixture whose one defect only a harvested value reaches (--seed 1): the default run finds
// exactly `finding`, each on a call whose argument `arg` is `value`; --no-harvest and the
// conformant twin (`twin_env`=1) find nothing, and the twin passes.
void expect_reached_only_by_harvest(const std::string& fixture, const std::string& finding, const std::string& arg,
                                    const std::string& value, const std::string& twin_env) {
  auto run = [&](std::vector<std::string> flags) {
    std::vector<std::string> args = {"--seed", "1", "--no-cases"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--", "node", suite() + "/" + fixture});
    return run_harness(args);
  };
  HarnessRun r = run({});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(found(r), std::set<std::string>{finding}) << r.report["findings"].dump(2);
  for (const auto& f : r.report["findings"])
    EXPECT_EQ(f["request"]["params"]["arguments"].value(arg, ""), value) << f.dump(2);
  HarnessRun blind = run({"--no-harvest"});
  ASSERT_TRUE(blind.report.is_object()) << blind.err;
  EXPECT_TRUE(found(blind).empty()) << blind.report["findings"].dump(2);
  HarnessRun twin = run({"--env", twin_env + "=1"});
  ASSERT_TRUE(twin.report.is_object()) << twin.err;
  EXPECT_TRUE(found(twin).empty()) << twin.report["findings"].dump(2);
  EXPECT_EQ(twin.report["verdict"], "pass") << twin.out;
}

// A database server (reach/sql.mjs): its query tool says it runs SQL, so its `query` is offered
// SELECT statements over the tables its server named (list_tables, or the sqlite_master
// catalogue), and only `SELECT * FROM events` reaches its defect (a 100-row cut with no way on).
// Error texts to random statements are domain answers, not findings.
TEST(ReachSql, AStatementOverATableTheServerNamedReachesTheCut) {
  REQUIRE_NPM(sdk_dir());
  expect_reached_only_by_harvest("sql.mjs", "TR-HINT execute_query", "query", "SELECT * FROM events", "REACH_CONFORMANT");
}

// A lookup chain two tools deep (reach/chain.mjs, the real Ctxo server's shape): the listing
// prints thirty methods nobody imports before `log`, which forty files import; get_dependencies of
// every method names `log` again. Answers steer the next calls: `log`'s id, named by many answers
// (a hub), is find_importers' first offer in the second pass, and only it reaches the silent cut
// (TR-HINT). In the order of appearance (the harness before steering, 79bd545) the run passed with
// no finding: every find_importers call named a method.
TEST(ReachChain, AnswersSteerALookupToTheHubTheOtherAnswersName) {
  REQUIRE_NPM(sdk_dir());
  expect_reached_only_by_harvest("chain.mjs", "TR-HINT find_importers", "symbolId", "src/util.ts::log::function",
                                 "CHAIN_CONFORMANT");
}

// Hubs first when the first listing gives only leaves (CHAIN_DEAD=1: `find_dead_code` lists the
// thirty methods nobody imports and never `log`, as the real Ctxo server's dead-code tool did):
// `log`'s id, named by every dependency answer, still reaches find_importers' cut.
TEST(ReachChain, AHubNamedOnlyByOtherAnswersIsTriedBeforeTheListedLeaves) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_harness({"--seed", "1", "--no-cases", "--env", "CHAIN_DEAD=1", "--", "node", suite() + "/chain.mjs"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(found(r), std::set<std::string>{"TR-HINT find_importers"}) << r.report["findings"].dump(2);
  for (const auto& f : r.report["findings"])
    EXPECT_EQ(f["request"]["params"]["arguments"].value("symbolId", ""), "src/util.ts::log::function") << f.dump(2);
}

// A code-running server (reach/code.mjs): its `code` parameter, with a `language` enum, is given a
// one-line program in that language, so a call reaches the success path (a random string is only
// a SyntaxError, a domain answer) and its leak ("Exit code: undefined"). Before the grammar
// (79bd545) the run was untested: 0 of 37 calls reached data. The conformant twin passes with
// every program's answer as data.
TEST(ReachCode, AOneLineProgramReachesTheSuccessPath) {
  REQUIRE_NPM(sdk_dir());
  auto run = [](std::vector<std::string> flags) {
    std::vector<std::string> args = {"--seed", "1", "--no-cases"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--", "node", suite() + "/code.mjs"});
    return run_harness(args);
  };
  HarnessRun r = run({});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(found(r), std::set<std::string>{"P-LEAK run_code"}) << r.report["findings"].dump(2);
  // Found on the program, then shrunk: a shorter JavaScript program that still runs (a
  // SyntaxError would be a domain answer, no leak).
  for (const auto& f : r.report["findings"]) {
    EXPECT_EQ(f["original_request"]["params"]["arguments"].value("code", ""), "console.log(6 * 7)") << f.dump(2);
    EXPECT_EQ(f["request"]["params"]["arguments"].value("language", ""), "javascript") << f.dump(2);
    EXPECT_LT(f["request"]["params"]["arguments"].value("code", "").size(), std::string("console.log(6 * 7)").size());
  }
  HarnessRun twin = run({"--env", "CODE_CONFORMANT=1"});
  ASSERT_TRUE(twin.report.is_object()) << twin.err;
  EXPECT_TRUE(found(twin).empty()) << twin.report["findings"].dump(2);
  EXPECT_EQ(twin.report["verdict"], "pass") << twin.out;
  EXPECT_GT(twin.report["tools"][0]["coverage"]["data"].get<int>(), 0) << twin.report["tools"][0].dump(2);
}

// Ids given only in prose (issue 43): tests/npm/fixtures/reach/sessions.mjs answers "Started search
// session: `s-...`" and "outputId: out_...", and its follow-up tools reach data only with those ids.
// The run offers them under the label's name (`sessionId`, `outputId`); without harvesting, no
// follow-up call reaches data.
TEST(ReachProseIds, FollowUpToolsReachDataThroughIdsGivenInProse) {
  REQUIRE_NPM(sdk_dir());
  const std::string server = suite() + "/sessions.mjs";
  HarnessRun r = run_harness({"--seed", "1", "--no-cases", "--", "node", server});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  for (const char* t : {"get_results", "read_output"})
    EXPECT_GT(tool(r, t)["coverage"]["data"].get<int>(), 0) << tool(r, t).dump(2);
  HarnessRun none = run_harness({"--seed", "1", "--no-cases", "--no-harvest", "--", "node", server});
  ASSERT_TRUE(none.report.is_object()) << none.err;
  for (const char* t : {"get_results", "read_output"})
    EXPECT_EQ(tool(none, t)["coverage"]["data"].get<int>(), 0) << tool(none, t).dump(2);
}

// A regex search without Unicode mode (tests/npm/fixtures/reach/regex.mjs): given a class of the
// workspace's own emoji (`[😀]`, from Workspace::characters), each match is half a character, a
// lone surrogate in its answer. Before the classes were offered no call showed it (its default run
// had no finding); the twin (the `u` flag) answers whole characters.
TEST(ReachRegex, AClassOfTheWorkspacesOwnEmojiShowsASearchWithoutUnicodeMode) {
  REQUIRE_NPM(sdk_dir());
  const auto ws = std::filesystem::path(CTXO_BINARY_DIR) / "test-tmp" / ("regex-ws-" + std::to_string(::getpid()));
  std::filesystem::remove_all(ws);
  std::filesystem::create_directories(ws);
  std::filesystem::copy(suite() + "/workspace", ws, std::filesystem::copy_options::recursive);
  const auto run = [&](const char* conformant) {
    return run_harness({"--seed", "1", "--no-cases", "--root", ws.string(), "--env", std::string("REGEX_CONFORMANT=") + conformant,
                        "--", "node", suite() + "/regex.mjs", ws.string()});
  };
  HarnessRun r = run("0");
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.found(), (std::set<std::string>{"TR-VERBATIM grep_regex cut-splits-character"})) << r.report["findings"].dump(2);
  for (const auto& f : r.report["findings"]) {
    const std::string pattern = f["request"]["params"]["arguments"].value("pattern", "");
    ASSERT_GE(pattern.size(), 6u) << pattern;
    EXPECT_EQ(pattern.front(), '[');
    EXPECT_EQ(static_cast<unsigned char>(pattern[1]), 0xF0u) << pattern;  // an astral character
  }
  HarnessRun twin = run("1");
  ASSERT_TRUE(twin.report.is_object()) << twin.err;
  EXPECT_TRUE(twin.report["findings"].empty()) << twin.report["findings"].dump(2);
  std::filesystem::remove_all(ws);
}

// A git server in mcp-server-git's dialect (tests/npm/fixtures/reach/git.mjs, issue 43 "git
// history") over a git work tree made here (the suite's workspace, two commits, a tag, a branch,
// a file not committed):
// with --root the project, git_log, git_show and git_diff reach its history. Their `repo_path` is
// the project (it was a file: "not a directory"), git_show's `revision` and git_diff's `target` the
// project's commits, branches and tags (they were generated strings and names: "bad revision"),
// and git_log is a reading tool (it was not: no workspace value reached it). With --no-harvest
// none of them names a revision of the project.
struct GitRun {
  HarnessRun run;
  std::map<std::string, std::size_t> named;  ///< Per tool, the calls naming a revision of the project.
};

TEST(ReachGit, HistoryToolsReachTheProjectsCommits) {
  REQUIRE_NPM(sdk_dir());
  namespace fs = std::filesystem;
  const auto sh = [](const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; };
  if (!sh("git --version")) GTEST_SKIP() << "git is not installed";
  const fs::path tmp = fs::path(CTXO_BINARY_DIR) / "test-tmp";
  const fs::path repo = tmp / ("git-ws-" + std::to_string(::getpid()));
  fs::remove_all(repo);
  fs::create_directories(repo);
  fs::copy(suite() + "/workspace", repo, fs::copy_options::recursive);
  const std::string git = "git -C '" + repo.string() +
                          "' -c user.name=t -c user.email=t@t.invalid -c commit.gpgsign=false -c core.hooksPath=/dev/null ";
  // The second commit adds a line: a blame at the first commit is whole without it (the
  // completeness check leaves a call naming a revision alone: the workspace holds only the
  // working tree; before, such a blame was a false TR-HINT "leaves out line N").
  ASSERT_TRUE(sh(git + "init -q -b main") && sh(git + "add -A") && sh(git + "commit -q -m first"));
  std::ofstream(repo / "src" / "jobs.ts", std::ios::app) << "export const job03 = () => runTask(3);\n";
  ASSERT_TRUE(sh(git + "commit -q -am second") && sh(git + "tag v1") && sh(git + "branch feature"));
  std::ofstream(repo / "notes.txt") << "work in progress\n";  // a status with a change in it
  // Every spelling of a revision of the project: full and short ids, branches, tags, HEAD~n.
  const std::string listed = (tmp / ("git-revs-" + std::to_string(::getpid()) + ".txt")).string();
  ASSERT_EQ(std::system((git + "log --all --format='%H%n%h' > '" + listed + "'").c_str()), 0);
  std::set<std::string> revisions = {"main", "feature", "v1", "HEAD", "HEAD~1"};
  std::istringstream ids(slurp(listed));
  for (std::string id; std::getline(ids, id);) revisions.insert(id);
  ASSERT_EQ(revisions.size(), 9u);
  const auto run = [&](std::vector<std::string> flags) {
    const std::string record =
        (tmp / ("git-" + std::to_string(::getpid()) + "-" + std::to_string(flags.size()) + ".jsonl")).string();
    std::vector<std::string> args = {"--seed", "1", "--no-cases", "--root", repo.string(), "--record", record};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--", "node", suite() + "/git.mjs"});
    GitRun g{run_harness(args), {}};
    std::istringstream lines(slurp(record));
    for (std::string line; std::getline(lines, line);) {
      auto x = nlohmann::json::parse(line, nullptr, false);
      if (!x.is_object() || x["request"].value("method", "") != "tools/call") continue;
      const auto& params = x["request"]["params"];
      for (const auto& [k, v] : params["arguments"].items())
        if (v.is_string() && revisions.count(v.get<std::string>()) && k != "repo_path") {
          ++g.named[params.value("name", "")];
          break;
        }
    }
    fs::remove(record);
    return g;
  };
  GitRun with = run({});
  ASSERT_TRUE(with.run.report.is_object()) << with.run.err;
  EXPECT_TRUE(with.run.report["findings"].empty()) << with.run.report["findings"].dump(2);
  for (const char* t : {"git_log", "git_show", "git_diff", "git_status", "git_blame"}) {
    const auto& c = tool(with.run, t)["coverage"];
    std::cout << t << ": " << c["data"] << " of " << c["calls"] << " calls reached data, " << with.named[t]
              << " named a revision of the project\n";
    EXPECT_GT(c["data"].get<int>(), 0) << t << " " << c.dump();
  }
  EXPECT_GT(with.named["git_show"], 0u);
  EXPECT_GT(with.named["git_diff"], 0u);
  GitRun none = run({"--no-harvest"});
  ASSERT_TRUE(none.run.report.is_object()) << none.run.err;
  for (const char* t : {"git_show", "git_diff"}) {
    std::cout << t << " with --no-harvest: " << tool(none.run, t)["coverage"]["data"] << " of "
              << tool(none.run, t)["coverage"]["calls"] << " calls reached data\n";
    EXPECT_EQ(none.named[t], 0u) << t;
    EXPECT_EQ(tool(none.run, t)["coverage"]["data"].get<int>(), 0) << t;
  }
  fs::remove_all(repo);
  fs::remove(listed);
}

// A code-graph server's context tool (tests/npm/fixtures/reach/context.mjs, issue 43 "real-value
// calls first"): get_context {name, include_content?, branch?, repo?, file?, depth?} refuses any
// branch but "main", repo and file together, and any repo or file it does not hold, and answers
// the symbol's source only with `include_content: true`, stripped of every character past ASCII
// (TR-VERBATIM quote-mangled against --root). Its descriptions quote examples ('UserService',
// 'feature/login', 'acme/api'), so the boundary phase's calls carry made-up names or scopes. Only
// a call with a real name and the flag alone reaches the source: the first "harvested values
// only" call. Before them (the harness at c3928c6) the default run passed: 12 calls set
// include_content, every one beside a random branch, repo or file, or a made-up name, and none
// reached the source; with them, {"name":"runTask","include_content":true}. The twin answers the
// source verbatim (TR-VERBATIM passed on get_context: its content answers were judged).
TEST(ReachContext, ARealNameWithTheOutputFlagAloneReachesTheSource) {
  REQUIRE_NPM(sdk_dir());
  const std::string ws = suite() + "/workspace";
  const auto run = [&](const char* conformant) {
    return run_harness({"--seed", "1", "--no-cases", "--root", ws, "--env", std::string("CONTEXT_CONFORMANT=") + conformant,
                        "--", "node", suite() + "/context.mjs", ws});
  };
  HarnessRun r = run("0");
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.found(), (std::set<std::string>{"TR-VERBATIM get_context quote-mangled"})) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  for (const auto& f : r.report["findings"]) {
    const auto& args = f["request"]["params"]["arguments"];
    EXPECT_EQ(args.value("include_content", false), true) << f.dump(2);
    EXPECT_EQ(args.value("name", ""), "runTask") << f.dump(2);
    for (const char* scope : {"branch", "repo", "depth"}) EXPECT_FALSE(args.contains(scope)) << scope << ": " << f.dump(2);
    EXPECT_EQ(f["location"].value("file", ""), "src/app.ts") << f.dump(2);
  }
  EXPECT_GT(tool(r, "get_context")["coverage"]["data"].get<int>(), 0) << tool(r, "get_context").dump(2);
  HarnessRun twin = run("1");
  ASSERT_TRUE(twin.report.is_object()) << twin.err;
  EXPECT_TRUE(twin.report["findings"].empty()) << twin.report["findings"].dump(2);
  EXPECT_EQ(twin.exit_code, 0) << twin.out;
  EXPECT_EQ(twin.outcomes("TR-VERBATIM")["get_context"], "passed") << tool(twin, "get_context").dump(2);
}

}  // namespace
}  // namespace ctxo::test
