// SPDX-License-Identifier: MIT
// ctxo-conform against real MCP servers from the npm registry (installed into tests/npm by
// scripts/test.sh). Skipped when they are not installed, unless CTXO_REQUIRE_NPM=1 (as in CI).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

// Read-only tools of server-everything, two calls each (the long-running operation runs its
// default 10 s with progress notifications, which must restart our timeout, not trip T-HANG).
TEST(NpmEverything, ReadOnlyToolsAreConformant) {
  const std::string bin = npm_bin("mcp-server-everything");
  REQUIRE_NPM(bin);
  HarnessRun r = run_harness({"--read-only", "--calls", "2", "--seed", "1", "--", "node", bin});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(r.all_ids().empty()) << r.report["findings"].dump(2);
  EXPECT_GE(r.report["stats"]["tools_called"].get<int>(), 8);
  EXPECT_GE(r.report["stats"]["notifications"].get<int>(), 1);
  EXPECT_EQ(r.report["server"]["name"], "mcp-servers/everything");
}

// A real finding: once a toggle tool has started its interval timer, the server no longer exits
// when its stdin closes (SDK1's StdioServerTransport does not listen for 'end'; the timer keeps
// Node's event loop alive), so it has to be signalled.
TEST(NpmEverything, ToggleToolsKeepTheServerAliveAfterStdinCloses) {
  const std::string bin = npm_bin("mcp-server-everything");
  REQUIRE_NPM(bin);
  HarnessRun r = run_harness({"--tools", "toggle-simulated-logging", "--grace", "1000", "--seed", "1", "--", "node", bin});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.error_ids(), std::set<std::string>{"T-SHUTDOWN"}) << r.report["findings"].dump(2);
  EXPECT_EQ(r.exit_code, 1);
}

// Pinned from the audit of the reference servers (tests/npm/AUDIT.md): trigger-long-running-operation
// takes `duration` seconds (no maximum in its schema) and sends one progress notification per
// step. It is slow, not hung: the pre-judge harness reported T-HANG (an error) on it. Progress is
// liveness whatever its interval, and an answer that only comes late is a warning, so no error may
// be reported on it; the run still exercised it (calls were answered).
TEST(NpmEverything, SlowToolWithProgressIsNeverAnErrorHang) {
  const std::string bin = npm_bin("mcp-server-everything");
  REQUIRE_NPM(bin);
  HarnessRun r = run_harness({"--tools", "trigger-long-running-operation", "--calls", "4", "--timeout", "2500",
                              "--time-budget", "20", "--no-cases", "--seed", "1", "--", "node", bin});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.error_ids().empty()) << r.report["findings"].dump(2);
  for (const auto& f : r.report["findings"]) EXPECT_EQ(f["invariant"], "T-HANG") << f.dump(2);
  EXPECT_GE(r.report["stats"]["calls"].get<int>(), 1);
  EXPECT_NE(r.exit_code, 1) << r.out;
}

// The filesystem server, confined to a throwaway directory with a few files, read-only tools.
TEST(NpmFilesystem, ReadOnlyRunCompletesWithAReport) {
  const std::string bin = npm_bin("mcp-server-filesystem");
  REQUIRE_NPM(bin);
  auto dir = std::filesystem::path(CTXO_BINARY_DIR) / "test-tmp" / "fs-root";
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "a.txt") << "hello\n";
  std::ofstream(dir / "sub" / "b.md") << "# 漢字 😀\n";
  HarnessRun r = run_harness({"--read-only", "--calls", "2", "--seed", "1", "--cwd", dir.string(), "--", "node", bin,
                              dir.string()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_NE(r.exit_code, 3) << r.err;
  EXPECT_GE(r.report["stats"]["calls"].get<int>(), 1);
  std::cout << "[npm] server-filesystem findings: " << r.report["findings"].size() << "\n";
  for (const auto& f : r.report["findings"])
    std::cout << "  " << f["invariant"].get<std::string>() << " " << f["tool"].get<std::string>() << ": "
              << f["diagnosis"].get<std::string>() << "\n";
}

// The whole-file rule on a real reading server that is right (issue 42): server-filesystem's
// read_text_file and read_file return each file whole, so with --root the rule judges their
// answers (TR-HINT passed) and finds nothing; read_multiple_files (an array of paths) and
// directory_tree (not a read) are not judged.
TEST(NpmFilesystem, ItsWholeFileReadsAreJudgedAgainstTheWorkspaceAndHold) {
  const std::string bin = npm_bin("mcp-server-filesystem");
  REQUIRE_NPM(bin);
  auto dir = std::filesystem::path(CTXO_BINARY_DIR) / "test-tmp" / "fs-whole";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "src");
  std::ofstream(dir / "src" / "app.ts") << "export function runTask(value: number): number {\n  return value * 2;\n}\n"
                                           "const label = \"\xF0\x9F\x9A\x80 go\"; runTask(1);\n"
                                           "export class Scheduler {\n  start() { return runTask(3); }\n}\n";
  HarnessRun r = run_harness({"--read-only", "--calls", "6", "--seed", "1", "--no-cases", "--root", dir.string(), "--cwd",
                              dir.string(), "--", "node", bin, dir.string()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  for (const auto& f : r.report["findings"])
    EXPECT_NE(f["cause"]["facts"].value("form", ""), "workspace-omission") << f.dump(2);
  std::map<std::string, std::string> hint;
  for (const auto& t : r.report["tools"]) hint[t["name"]] = t["outcomes"].value("TR-HINT", "");
  EXPECT_EQ(hint["read_text_file"], "passed");
  EXPECT_NE(hint["read_multiple_files"], "failed");
  EXPECT_NE(hint["directory_tree"], "failed");
}

// Host limits on a real server (pinned from the default run, seed 1): server-memory's read_graph
// returns the whole knowledge graph, with no pagination and no limit. After the run's own
// create_entities / add_observations calls the graph is about 72,000 characters, past Claude
// Code's 50,000, and it used to be an H-SIZE warning; but most of it is the run's own
// 3,500-character generated observations quoted back. Measured with each quote as a 32-character
// value (an agent's realistic input), it is under 40,000 characters (10,000 tokens): no H-SIZE
// finding. Every tool reaches data.
TEST(NpmMemory, ReadGraphIsMeasuredWithoutTheRunsOwnLongStrings) {
  const std::string bin = npm_bin("mcp-server-memory");
  REQUIRE_NPM(bin);
  const auto dir = std::filesystem::path(CTXO_BINARY_DIR) / "test-tmp" / "memory-server";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  HarnessRun r = run_harness({"--seed", "1", "--no-cases", "--cwd", dir.string(), "--env",
                              "MEMORY_FILE_PATH=" + (dir / "memory.jsonl").string(), "--", "node", bin});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  // One finding, and it is true: open_nodes ("Open specific nodes in the knowledge graph by their
  // names") asked for an entity the run created and for one that does not exist (the call naming
  // several items, ToolPlan::several; shrunk to `names: ["mwwq", "9"]`) returns the first and not a
  // word on the second: its handler filters the graph by the names and drops the rest silently
  // (TR-COUNT named-items-missing: a request for named items must return each or say which are
  // missing). Nothing else: read_graph's size is below (H-SIZE).
  ASSERT_EQ(r.report["findings"].size(), 1u) << r.report["findings"].dump(2);
  const auto& f = r.report["findings"][0];
  EXPECT_EQ(f["invariant"], "TR-COUNT");
  EXPECT_EQ(f["tool"], "open_nodes");
  EXPECT_EQ(f["cause"]["facts"].value("form", ""), "named-items-missing") << f.dump(2);
  EXPECT_EQ(f["request"]["params"]["arguments"]["names"].size(), 2u) << f.dump(2);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  // Every tool reached data: add_observations takes `observations: [{entityName, ...}]`, and only
  // the names create_entities made are entities (harvested into the objects of the array).
  EXPECT_EQ(r.report["verdict"], "fail") << r.out;
  for (const auto& t : r.report["tools"]) EXPECT_GT(t["coverage"]["data"].get<int>(), 0) << t.dump(2);
  // Every tool's largest answer is reported, found or not; read_graph's is the real graph, large,
  // but under Claude Code's warning once the run's own strings count as realistic values.
  for (const auto& t : r.report["tools"]) {
    if (t["calls"].get<int>() > 0) {
      EXPECT_TRUE(t.contains("largest_answer")) << t["name"];
    }
    if (t["name"] == "read_graph") {
      EXPECT_GT(t["largest_answer"]["chars"].get<int>(), 10000) << t.dump(2);
      EXPECT_LT(t["largest_answer"]["chars"].get<int>(), 40000) << t.dump(2);
    }
  }
}

// A ctxo-envelope server written against the official TypeScript SDK (tests/npm/fixtures): the
// size oracle must agree with JSON.stringify and Buffer.byteLength, and detection with the SDK's
// framing. Conformant: nothing; each defect (set through the environment): exactly its id.
TEST(NpmSdkCtxo, EnvelopeChecksAgreeWithAJavaScriptServer) {
  const std::string sdk = std::string(CTXO_SOURCE_DIR) + "/tests/npm/node_modules/@modelcontextprotocol/sdk";
  REQUIRE_NPM(sdk);
  const std::string server = std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/ctxo-sdk-server.mjs";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""}, {"count-off", "TR-COUNT"}, {"no-hint", "TR-HINT"}, {"bytes-utf16", "TR-BYTES"}, {"cap-chars", "TR-CAP"}};
  for (const auto& [defect, id] : cases) {
    HarnessRun r = run_harness({"--seed", "5", "--env", "CTXO_SDK_DEFECT=" + defect, "--", "node", server});
    ASSERT_TRUE(r.report.is_object()) << defect << ": " << r.err;
    // E-ERROR on every run is true: this server lets McpServer validate its zod schemas, so an
    // invalid call gets the SDK's plain-text "MCP error -32602: Input validation error" instead of
    // the ctxo error envelope {error:true, message} (the precision suite's sdk-validation case).
    std::set<std::string> want = {"E-ERROR"};
    if (!id.empty()) want.insert(id);
    EXPECT_EQ(r.error_ids(), want) << defect << ": " << r.report["findings"].dump(2);
    EXPECT_GT(r.report["profiles_detected"].value("ctxo", 0), 10) << defect;
    EXPECT_GE(r.report["stats"]["sweep_runs"].get<int>(), 1) << defect;
  }
}


// A real code-search server nobody here wrote (mcp-ripgrep 0.4.0, a shell wrapper around
// ripgrep: every tool needs a path that exists and a pattern that matches). On a copy of the
// reach workspace (its files have emoji lines) the workspace feeds the calls: every tool reaches
// data and about half the calls do (112 of 223 generated calls at seed 1). Without the
// workspace (--no-harvest) only the one tool that takes no argument reaches data.
// Its one finding is true, and the same with or without the workspace: P-NO-THROW, a shell's
// syntax error. advanced-search builds `rg ... -t ${fileType} ...` with fileType unquoted
// (dist/index.js: `command += \` -t ${fileType}\``) and runs it with spawn(..., {shell: true}), so a
// fileType with `)` is answered "/bin/sh: 1: Syntax error: \")\" unexpected", and one with `;`
// runs a command of the caller's choosing. Shrunk to that one character (the run's cwd is a
// throwaway copy all the same).
TEST(NpmRipgrep, TheWorkspaceIsWhatReachesARealCodeSearchServer) {
  const std::string bin = npm_bin("mcp-ripgrep");
  REQUIRE_NPM(bin);
  if (std::system("command -v rg >/dev/null 2>&1") != 0) {
    if (std::getenv("CTXO_REQUIRE_NPM")) FAIL() << "ripgrep (rg) is not installed: scripts/install-deps.sh installs it";
    GTEST_SKIP() << "ripgrep (rg) is not installed";
  }
  const auto ws = std::filesystem::path(CTXO_BINARY_DIR) / "test-tmp" / ("rg-ws-" + std::to_string(::getpid()));
  std::filesystem::remove_all(ws);
  std::filesystem::create_directories(ws);
  std::filesystem::copy(std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/reach/workspace", ws,
                        std::filesystem::copy_options::recursive);
  auto data = [](const HarnessRun& r) {
    std::size_t n = 0, tools = 0;
    for (const auto& t : r.report["tools"]) {
      n += t["coverage"]["data"].get<std::size_t>();
      tools += t["coverage"]["data"].get<std::size_t>() > 0;
    }
    return std::make_pair(n, tools);
  };
  const std::vector<std::string> common = {"--seed", "1", "--no-cases", "--root", ws.string(), "--cwd", ws.string()};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = common;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "node", bin});
    return run_harness(args);
  };
  auto injection = [](const HarnessRun& run) {
    ASSERT_EQ(run.report["findings"].size(), 1u) << run.report["findings"].dump(2);
    const auto& f = run.report["findings"][0];
    EXPECT_EQ(f["invariant"], "P-NO-THROW");
    EXPECT_EQ(f["cause"]["facts"].value("kind", ""), "shell-syntax-error") << f.dump(2);
    EXPECT_NE(f["diagnosis"].get<std::string>().find("/bin/sh: 1: Syntax error"), std::string::npos) << f.dump(2);
    // Shrunk to the argument that reached the shell: a fileType of one shell metacharacter.
    const auto& args = f["request"]["params"]["arguments"];
    const std::string type = args.value("fileType", "");
    EXPECT_EQ(type.size(), 1u) << args.dump();
    EXPECT_NE(std::string("()'\"`;|&<>").find(type), std::string::npos) << args.dump();
    EXPECT_EQ(run.exit_code, 1);
  };
  HarnessRun r = with({});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.report["verdict"], "fail") << r.out;
  injection(r);
  const auto [calls_with_data, tools_with_data] = data(r);
  EXPECT_EQ(tools_with_data, r.report["tools"].size()) << r.out;
  const auto generated = r.report["stats"]["calls"].get<std::size_t>() - r.report["stats"]["shrink_calls"].get<std::size_t>();
  EXPECT_GE(calls_with_data * 10, generated * 4) << "at least 40% of the generated calls reach data";

  HarnessRun blind = with({"--no-harvest"});
  ASSERT_TRUE(blind.report.is_object()) << blind.err;
  injection(blind);
  EXPECT_LT(data(blind).first * 10, calls_with_data) << "without the workspace, a tenth of the data or less";
  EXPECT_EQ(data(blind).second, 1u) << "only list-file-types, which takes no argument";
  std::filesystem::remove_all(ws);
}

// The same real server, judged against the workspace (issue 42) on calls chosen by hand and
// recorded as they are answered (tests/npm/fixtures/record/record.mjs), then `check --root`: its
// `search` tool says maxResults "Limit the number of matching lines", and passes it to ripgrep as
// `-m`, which ripgrep documents as "Limit the number of matching lines per file searched". Asked
// for 2 over src/, it answers 4 lines (2 of src/app.ts, 2 of src/jobs.ts) and nothing says that
// src/app.ts has 2 more (lines 5 and 7) and src/jobs.ts 38 more: TR-HINT, true. Without a limit it
// lists every line (judged, passed); with maxResults 2 on one file it lists 2, as asked (not judged).
TEST(NpmRipgrep, ItsLimitAppliedToEachFileLeavesLinesOutSilently) {
  const std::string bin = npm_bin("mcp-ripgrep");
  REQUIRE_NPM(bin);
  if (std::system("command -v rg >/dev/null 2>&1") != 0) {
    if (std::getenv("CTXO_REQUIRE_NPM")) FAIL() << "ripgrep (rg) is not installed: scripts/install-deps.sh installs it";
    GTEST_SKIP() << "ripgrep (rg) is not installed";
  }
  namespace fs = std::filesystem;
  const fs::path ws = fs::path(CTXO_BINARY_DIR) / "test-tmp" / ("rg-limit-" + std::to_string(::getpid()));
  fs::remove_all(ws);
  fs::create_directories(ws);
  fs::copy(std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/reach/workspace", ws, fs::copy_options::recursive);
  const fs::path calls = ws.string() + ".calls.json", transcript = ws.string() + ".jsonl";
  std::ofstream(calls) << R"([{"name":"search","arguments":{"pattern":"runTask","path":"src","maxResults":2}},)"
                       << R"({"name":"search","arguments":{"pattern":"runTask","path":"src"}},)"
                       << R"({"name":"search","arguments":{"pattern":"runTask","path":"src/app.ts","maxResults":2}}])";
  const std::string record = "cd '" + ws.string() + "' && node '" + std::string(CTXO_SOURCE_DIR) +
                             "/tests/npm/fixtures/record/record.mjs' '" + transcript.string() + "' '" + calls.string() +
                             "' -- node '" + bin + "'";
  ASSERT_EQ(std::system(record.c_str()), 0) << record;
  HarnessRun r = run_harness({"check", transcript.string(), "--root", ws.string()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  ASSERT_EQ(r.report["findings"].size(), 1u) << r.report["findings"].dump(2);
  const auto& f = r.report["findings"][0];
  EXPECT_EQ(f["invariant"], "TR-HINT");
  EXPECT_EQ(f["tool"], "search");
  EXPECT_EQ(f["cause"]["facts"].value("form", ""), "workspace-omission") << f.dump(2);
  EXPECT_EQ(f["request"]["params"]["arguments"].value("maxResults", 0), 2) << f.dump(2);
  EXPECT_EQ(f["location"].value("file", ""), "src/app.ts") << f.dump(2);
  EXPECT_EQ(f["location"].value("line", 0), 5) << f.dump(2);
  const std::string d = f["diagnosis"].get<std::string>();
  EXPECT_NE(d.find("lines 5, 7 are missing"), std::string::npos) << d;
  EXPECT_NE(d.find("`maxResults` 2 was applied to each file"), std::string::npos) << d;
  EXPECT_EQ(r.exit_code, 1);
  fs::remove_all(ws);
  fs::remove(calls);
  fs::remove(transcript);
}

// typescript-mcp 0.0.14 (ts-morph; a real code-intelligence server held out from the reach work),
// its read tools over a copy of the reach workspace. Its tools resolve `filePath` against `root`
// and take `moduleName` as an import specifier, and it has no readOnlyHint. Before this stop
// (d1aa7f1) 4 of its 8 read tools reached data: `root` went round the workspace's files
// ("ENOTDIR"), `get_type_*` counted as writers (the word "type"), so they were never handed a
// workspace value, and `moduleName` got identifiers. Now every lookup reaches data, and each
// positions and quotes it answers (`src/app.ts:4:24 - const label = "🚀 go"; runTask(1);`: 1-based
// lines, UTF-16 columns, the emoji kept) were judged, and held.
// Its one finding is true where it is made: get_symbols_in_scope calls Object.groupBy, which
// Node.js has only from version 21, and the package declares no engines, so on Node 20 every
// valid call answers the runtime's "Object.groupBy is not a function" (P-NO-THROW). On a Node
// with Object.groupBy that tool reaches data too and the run has no finding.
TEST(NpmTypescript, TheWorkspaceReachesEveryLookupOfARealTypeScriptServer) {
  const std::string bin = npm_bin("typescript-mcp");
  REQUIRE_NPM(bin);
  const auto ws = std::filesystem::path(CTXO_BINARY_DIR) / "test-tmp" / ("ts-ws-" + std::to_string(::getpid()));
  std::filesystem::remove_all(ws);
  std::filesystem::create_directories(ws);
  std::filesystem::copy(std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/reach/workspace", ws,
                        std::filesystem::copy_options::recursive);
  const std::vector<std::string> lookups = {"get_module_symbols", "get_type_in_module", "get_type_at_symbol",
                                            "find_references", "get_definitions"};
  std::string tools = "get_symbols_in_scope";
  for (const auto& t : lookups) tools += "," + t;
  HarnessRun r = run_harness({"--seed", "1", "--no-cases", "--time-budget", "60", "--tools", tools, "--root", ws.string(),
                              "--cwd", ws.string(), "--", "node", bin});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  const bool group_by = std::system("node -e 'process.exit(typeof Object.groupBy === \"function\" ? 0 : 1)'") == 0;
  for (const auto& t : r.report["tools"]) {
    const std::string name = t["name"].get<std::string>();
    if (!t.value("selected", false)) continue;
    SCOPED_TRACE(name);
    if (name != "get_symbols_in_scope" || group_by) {
      EXPECT_GT(t["coverage"]["data"].get<int>(), 0) << t["coverage"].dump();
    }
    if (name == "find_references") {
      for (const char* id : {"POS-BASE", "POS-UTF16", "TR-VERBATIM"}) EXPECT_EQ(t["outcomes"].value(id, ""), "passed") << id;
    }
  }
  if (group_by) {
    EXPECT_TRUE(r.report["findings"].empty()) << r.report["findings"].dump(2);
  } else {
    ASSERT_EQ(r.report["findings"].size(), 1u) << r.report["findings"].dump(2);
    const auto& f = r.report["findings"][0];
    EXPECT_EQ(f["invariant"], "P-NO-THROW");
    EXPECT_EQ(f["tool"], "get_symbols_in_scope");
    EXPECT_NE(f.dump().find("Object.groupBy is not a function"), std::string::npos) << f.dump(2);
  }
  std::filesystem::remove_all(ws);
}

}  // namespace
}  // namespace ctxo::test
