// SPDX-License-Identifier: MIT
// The generic position rules (checks/generic_positions.h): positions found in any dialect, the
// convention a tool declares, TR-VERBATIM's comparison, and POS-BASE / POS-UTF16 judged against a
// workspace written here (a line with an emoji and one with CJK before a symbol).
#include "checks/generic_positions.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ctxo::checks {
namespace {

using nlohmann::json;
using generic::Verbatim;

const std::string kApp =
    "export function runTask(value: number): number {\n"
    "  return value * 2;\n"
    "}\n"
    "const label = \"\xF0\x9F\x9A\x80 go\"; runTask(1);\n"          // rocket: 4 bytes, 2 UTF-16 units
    "const \xE5\x90\x8D\xE5\x89\x8D = \"\xE6\xA4\x9C\xE7\xB4\xA2\"; runTask(2);\n";  // CJK: 3 bytes, 1 unit each

class Workspace : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ctxo-generic-pos-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_ / "src");
    std::ofstream(dir_ / "src/app.ts", std::ios::binary) << kApp;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  mcp::Reply answer(const json& args, const std::string& text) {
    mcp::Reply r;
    r.kind = mcp::Reply::Kind::kResult;
    r.request = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "t"}, {"arguments", args}}}};
    r.result = {{"content", json::array({{{"type", "text"}, {"text", text}}})}};
    return r;
  }
  std::filesystem::path dir_;
};

json tool(const std::string& description) {
  return {{"name", "t"}, {"description", description}, {"inputSchema", {{"type", "object"}}}};
}

TEST(GenericDeclared, ZeroBasedIsReadFromDescriptions) {
  EXPECT_TRUE(generic::declares_zero_based(tool("Positions are 0-based.")));
  EXPECT_TRUE(generic::declares_zero_based(tool("Lines are zero-based")));
  EXPECT_TRUE(generic::declares_zero_based(tool("Answers LSP positions {line, character}.")));
  json nested = tool("Finds a symbol.");
  nested["inputSchema"]["properties"]["line"] = {{"type", "integer"}, {"description", "0-indexed line"}};
  EXPECT_TRUE(generic::declares_zero_based(nested));
  EXPECT_FALSE(generic::declares_zero_based(tool("Lines and columns are 1-based.")));
  EXPECT_FALSE(generic::declares_zero_based(tool("Finds a symbol.")));
}

TEST(GenericAnchors, EveryDialect) {
  auto a = generic::json_anchors(json::parse(R"({"matches":[{"file":"src/a.ts","line":3,"column":5,"name":"run"}]})"));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].file, "src/a.ts");
  EXPECT_EQ(*a[0].line, 3);
  EXPECT_EQ(*a[0].column, 5);
  EXPECT_EQ(a[0].name, "run");
  EXPECT_FALSE(a[0].lsp);

  // An LSP Location takes the name of the object it is the location of.
  a = generic::json_anchors(json::parse(
      R"({"symbol":"runTask","location":{"uri":"file:///w/src/a.ts","range":{"start":{"line":0,"character":16},"end":{"line":0,"character":23}}}})"));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(a[0].lsp);
  EXPECT_EQ(*a[0].line, 0);
  EXPECT_EQ(*a[0].column, 16);
  EXPECT_EQ(a[0].name, "runTask");
  // LocationLink: the selection range (the name) wins over the whole range.
  a = generic::json_anchors(json::parse(
      R"([{"targetUri":"file:///w/a.ts","targetRange":{"start":{"line":1,"character":0}},"targetSelectionRange":{"start":{"line":1,"character":9}}}])"));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(*a[0].column, 9);
  // A range of {line, column} points, under `range` or beside the path (ast-grep's start/end):
  // read, its column named `column` (not LSP's `character`).
  a = generic::json_anchors(json::parse(
      R"([{"file":"src/a.ts","text":"runTask","range":{"start":{"line":0,"column":16},"end":{"line":0,"column":23}}},
          {"file":"src/a.ts","start":{"line":3,"column":24},"end":{"line":3,"column":31}}])"));
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(*a[0].line, 0);
  EXPECT_EQ(*a[0].column, 16);
  EXPECT_FALSE(a[0].lsp);
  EXPECT_EQ(*a[0].end_line, 0);
  EXPECT_EQ(*a[1].line, 3);
  EXPECT_EQ(*a[1].column, 24);
  EXPECT_FALSE(a[1].lsp);
  // A file's own name is not the text at its position.
  a = generic::json_anchors(json::parse(R"({"name":"app.ts","path":"src/app.ts","line":1})"));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].name, "");
  // No line, no position.
  EXPECT_TRUE(generic::json_anchors(json::parse(R"({"path":"src/app.ts","size":12})")).empty());

  auto t = generic::text_anchors("- `runTask` at src/app.ts:4:24\nsee lib/x.py:12 and https://h.io:8080/x, 12:30, v1.2:3");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].file, "src/app.ts");
  EXPECT_EQ(*t[0].line, 4);
  EXPECT_EQ(*t[0].column, 24);
  EXPECT_EQ(t[0].name, "runTask");
  EXPECT_EQ(t[1].file, "lib/x.py");
  EXPECT_FALSE(t[1].column);
  EXPECT_EQ(t[0].snippet, "") << "nothing quoted after it";
  EXPECT_EQ(t[1].snippet, "") << "prose after it, not a quote";
  // The line quoted after it: typescript-mcp's ` - `, `: `, and grep's `path:line:text`.
  t = generic::text_anchors("  src/app.ts:4:24 - const label = 1;\nsrc/util.ts:2: return x;\nsrc/a.ts:7:foo(1)\nsrc/b.ts:3 -\n");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].snippet, "const label = 1;");
  EXPECT_EQ(t[0].snippet_key, "quoted line");
  EXPECT_EQ(*t[0].column, 24);
  EXPECT_EQ(t[1].snippet, "return x;");
  EXPECT_FALSE(t[1].column);
  EXPECT_EQ(t[2].snippet, "foo(1)");
  EXPECT_EQ(*t[2].line, 7);
  EXPECT_EQ(t[3].snippet, "") << "a separator with nothing after it";
}

TEST(GenericReader, JsonWithAFooterAndFencedBlocks) {
  mcp::Reply r;
  r.kind = mcp::Reply::Kind::kResult;
  r.result = {{"content", json::array({{{"type", "text"}, {"text", "{\"a\":1}\n\n---\nsrc/x.ts:3"}},
                                       {{"type", "text"}, {"text", "Result:\n```json\n[1,2]\n```\nend"}}})}};
  auto d = generic::read_answer(r);
  ASSERT_EQ(d.docs.size(), 2u);
  EXPECT_EQ(d.docs[0], json({{"a", 1}}));
  EXPECT_EQ(d.docs[1], json::array({1, 2}));
  ASSERT_EQ(d.prose.size(), 2u);
  EXPECT_NE(d.prose[0].find("src/x.ts:3"), std::string::npos);
}

TEST(GenericVerbatim, SameContainedOrMangled) {
  // Verbatim: trimmed, contained in the line, a multi-line quote line by line, an ellipsis stops it.
  EXPECT_EQ(generic::compare_verbatim(kApp, 2, "  return value * 2;  ").verdict, Verbatim::kSame);
  EXPECT_EQ(generic::compare_verbatim(kApp, 1, "function runTask(value: number)").verdict, Verbatim::kSame);
  EXPECT_EQ(generic::compare_verbatim(kApp, 1, "export function runTask(value: number): number {\n  return value * 2;\n}").verdict,
            Verbatim::kSame);
  EXPECT_EQ(generic::compare_verbatim(kApp, 4, "const label = \"\xF0\x9F\x9A\x80 go\"; run...").verdict, Verbatim::kSame);
  // A quote one line off is still verbatim (the position is POS-BASE's business, not this rule's).
  EXPECT_EQ(generic::compare_verbatim(kApp, 3, "  return value * 2;").verdict, Verbatim::kSame);

  // The emoji dropped: the first difference, as code points.
  auto v = generic::compare_verbatim(kApp, 4, "const label = \" go\"; runTask(1);");
  EXPECT_EQ(v.verdict, Verbatim::kMangled);
  EXPECT_EQ(v.line, 4);
  EXPECT_NE(v.detail.find("U+1F680"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("column 16"), std::string::npos) << v.detail;
  // CJK replaced by '?'.
  v = generic::compare_verbatim(kApp, 5, "const ?? = \"??\"; runTask(2);");
  EXPECT_EQ(v.verdict, Verbatim::kMangled);
  EXPECT_NE(v.detail.find("U+540D"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("U+003F"), std::string::npos) << v.detail;
  // A line ending mangled into CRLF, in a multi-line quote.
  v = generic::compare_verbatim(kApp, 1, "export function runTask(value: number): number {\r\n  return value * 2;");
  EXPECT_EQ(v.verdict, Verbatim::kMangled);
  EXPECT_NE(v.detail.find("U+000D"), std::string::npos) << v.detail;

  // Not this text, too short to tell, or only whitespace differs: no judgement.
  EXPECT_EQ(generic::compare_verbatim(kApp, 2, "something else entirely").verdict, Verbatim::kUnrelated);
  EXPECT_EQ(generic::compare_verbatim(kApp, 3, "}?").verdict, Verbatim::kUnrelated);
  EXPECT_EQ(generic::compare_verbatim(kApp, 2, "return  value  *  2;").verdict, Verbatim::kUnrelated);
  EXPECT_EQ(generic::compare_verbatim(kApp, 2, "").verdict, Verbatim::kUnrelated);
}

// A quote cut inside a character (by UTF-8 bytes, decoded with U+FFFD, or by UTF-16 units, its lone
// half read as U+FFFD) ends with U+FFFD where the file has the character: a cut that split it.
// U+FFFD anywhere else is a replaced character, and a quote cut after the whole character is
// verbatim.
TEST(GenericVerbatim, AQuoteEndingInHalfACharacterIsACutThatSplitIt) {
  auto v = generic::compare_verbatim(kApp, 4, "const label = \"\xEF\xBF\xBD");
  EXPECT_EQ(v.verdict, Verbatim::kMangled);
  EXPECT_TRUE(v.cut_split);
  EXPECT_NE(v.detail.find("U+1F680"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("column 16"), std::string::npos) << v.detail;
  // The same with its cut marker after it.
  v = generic::compare_verbatim(kApp, 4, "const label = \"\xEF\xBF\xBD\xE2\x80\xA6");
  EXPECT_TRUE(v.cut_split) << v.detail;
  // U+FFFD in the middle: a replaced character, not a cut.
  v = generic::compare_verbatim(kApp, 4, "const label = \"\xEF\xBF\xBD go\"; runTask(1);");
  EXPECT_EQ(v.verdict, Verbatim::kMangled);
  EXPECT_FALSE(v.cut_split);
  // Cut after the whole character.
  EXPECT_EQ(generic::compare_verbatim(kApp, 4, "const label = \"\xF0\x9F\x9A\x80").verdict, Verbatim::kSame);
}

TEST(GenericVerbatim, CodePointLabels) {
  EXPECT_EQ(generic::code_point_label(0x1F680), "U+1F680 (\xF0\x9F\x9A\x80)");
  EXPECT_EQ(generic::code_point_label('\r'), "U+000D (carriage return)");
  EXPECT_EQ(generic::code_point_label(0x200B), "U+200B");
}

std::vector<std::string> ids(const Outcomes& o) {
  std::vector<std::string> v;
  for (const auto& f : o) v.push_back(f.invariant + (f.severity == Severity::kWarning ? "(warning)" : ""));
  return v;
}

TEST_F(Workspace, RightPositionsPass) {
  GenericPositions g(dir_.string());
  // runTask at line 4, UTF-16 column 24 (after the rocket), and line 1 column 17.
  auto o = g.check("t", nullptr, json{{"symbol", "runTask"}},
                   answer({{"symbol", "runTask"}}, R"({"refs":[{"file":"src/app.ts","line":4,"column":24},{"file":"src/app.ts","line":1,"column":17}]})"));
  EXPECT_TRUE(o.empty()) << o.front().diagnosis;
  EXPECT_EQ(o.status("POS-UTF16"), Status::kPassed);
  EXPECT_EQ(o.status("POS-BASE"), Status::kPassed);
  EXPECT_TRUE(g.finish().empty());
}

TEST_F(Workspace, Utf8ColumnsAreNamed) {
  GenericPositions g(dir_.string());
  auto o = g.check("t", nullptr, json::object(),
                   answer({}, R"({"matches":[{"name":"runTask","file":"src/app.ts","line":4,"column":26},{"name":"runTask","file":"src/app.ts","line":1,"column":17}]})"));
  ASSERT_EQ(ids(o), std::vector<std::string>{"POS-UTF16"});
  EXPECT_EQ(o.front().profile, "generic");
  EXPECT_EQ(o.front().file, "src/app.ts");
  EXPECT_EQ(o.front().line, 4);
  EXPECT_EQ(o.front().column, 24);
  EXPECT_NE(o.front().diagnosis.find("the server counts columns in UTF-8 bytes: `runTask` is at line 4, UTF-16 column 24"),
            std::string::npos)
      << o.front().diagnosis;
  EXPECT_NE(o.front().diagnosis.find("the server says line 4, column 26"), std::string::npos) << o.front().diagnosis;
}

TEST_F(Workspace, ZeroBasedIsAnErrorUnlessDeclared) {
  const std::string lsp =
      R"({"symbol":"runTask","references":[{"uri":"src/app.ts","range":{"start":{"line":3,"character":23}}},{"uri":"src/app.ts","range":{"start":{"line":4,"character":10}}}]})";
  {
    GenericPositions g(dir_.string());
    auto o = g.check("t", nullptr, json{{"symbol", "runTask"}}, answer({}, lsp));
    ASSERT_EQ(ids(o), std::vector<std::string>{"POS-BASE"});
    EXPECT_NE(o.front().diagnosis.find("0-based lines and columns"), std::string::npos) << o.front().diagnosis;
  }
  {
    GenericPositions g(dir_.string());
    json t = tool("Answers LSP Locations; positions are 0-based.");
    auto o = g.check("refs", &t, json{{"symbol", "runTask"}}, answer({}, lsp));
    ASSERT_EQ(ids(o), std::vector<std::string>{"POS-BASE(warning)"});
    // Alone, the documented convention stays a warning.
    EXPECT_TRUE(g.finish().empty());
  }
  {
    // Mixed with a tool that answers 1-based positions: an error.
    GenericPositions g(dir_.string());
    json t = tool("Answers LSP Locations; positions are 0-based.");
    g.check("refs", &t, json{{"symbol", "runTask"}}, answer({}, lsp));
    auto right = g.check("find", nullptr, json::object(),
                         answer({}, R"({"name":"runTask","file":"src/app.ts","line":4,"column":24})"));
    EXPECT_TRUE(right.empty());
    auto fin = g.finish();
    ASSERT_EQ(fin.count("refs"), 1u);
    ASSERT_EQ(ids(fin["refs"]), std::vector<std::string>{"POS-BASE"});
    EXPECT_NE(fin["refs"].front().diagnosis.find("mixes position conventions"), std::string::npos);
  }
}

TEST_F(Workspace, CheapChecksAndPrecision) {
  GenericPositions g(dir_.string());
  // No text named: line 0 is POS-BASE, a line past the end POS-UTF16.
  auto o = g.check("t", nullptr, json::object(), answer({}, R"({"file":"src/app.ts","line":0})"));
  EXPECT_EQ(ids(o), std::vector<std::string>{"POS-BASE"});
  o = g.check("t", nullptr, json::object(), answer({}, R"({"file":"src/app.ts","line":40})"));
  EXPECT_EQ(ids(o), std::vector<std::string>{"POS-UTF16"});
  // Declared 0-based: line 0 is fine.
  json t = tool("Lines are 0-based.");
  EXPECT_TRUE(g.check("z", &t, json::object(), answer({}, R"({"file":"src/app.ts","line":0})")).empty());
  // A file the workspace does not hold, an absolute path outside it, a URL: never judged.
  for (const char* a : {R"({"file":"src/nope.ts","line":0})", R"({"file":"/etc/passwd","line":9999})",
                        R"({"uri":"https://x.io/src/app.ts","line":0})"}) {
    auto n = g.check("t", nullptr, json::object(), answer({}, a));
    EXPECT_TRUE(n.empty()) << a;
    EXPECT_EQ(n.status("POS-BASE"), Status::kNotObserved) << a;
  }
  // The name is on the line but at no column any counting explains: silent.
  EXPECT_TRUE(g.check("t", nullptr, json::object(),
                      answer({}, R"({"name":"runTask","file":"src/app.ts","line":4,"column":3})")).empty());
  // A line-only position one line early, but the name is on the lines around too: chance, silent.
  EXPECT_TRUE(g.check("t", nullptr, json::object(),
                      answer({}, R"({"name":"runTask","file":"src/app.ts","line":3})")).empty());
  // An echo of the caller's own position is not the server's claim.
  EXPECT_TRUE(g.check("t", nullptr, json{{"line", 40}, {"character", 2}},
                      answer({}, "No hover information at src/app.ts:40:2")).empty());
  // A prose anchor that names no text is not judged (text may cite a line that has moved).
  EXPECT_TRUE(g.check("t", nullptr, json::object(), answer({}, "see src/app.ts:40 and src/app.ts:0")).empty());
  // A file read relays the file's text: positions written in it are not the server's claims.
  std::ofstream(dir_ / "README.md") << "The task runner lives in this repo.\nSee `runTask` at src/app.ts:0:16 for details.\n";
  EXPECT_TRUE(g.check("t", nullptr, json{{"path", "README.md"}},
                      answer({}, "The task runner lives in this repo.\nSee `runTask` at src/app.ts:0:16 for details.\n"))
                  .empty());
  // The same text from a tool that does not read that file is judged (0-based, undeclared).
  EXPECT_EQ(ids(g.check("t", nullptr, json::object(), answer({}, "See `runTask` at src/app.ts:0:16 for details.\n"))),
            std::vector<std::string>{"POS-BASE"});
  // No workspace: nothing is read.
  GenericPositions none(std::nullopt);
  EXPECT_TRUE(none.check("t", nullptr, json::object(), answer({}, R"({"file":"src/app.ts","line":40})")).empty());
}

TEST_F(Workspace, PathAnchorsInMarkdownAndFileUris) {
  GenericPositions g(dir_.string());
  auto o = g.check("t", nullptr, json{{"query", "runTask"}},
                   answer({}, "## 2 matches\n- `runTask` at src/app.ts:3:23\n- `runTask` at src/app.ts:4:10\n"));
  EXPECT_EQ(ids(o), std::vector<std::string>{"POS-BASE"});
  const std::string uri = "file://" + dir_.string() + "/src/app.ts";
  o = g.check("t", nullptr, json{{"symbol", "runTask"}},
              answer({}, json({{"uri", uri}, {"range", {{"start", {{"line", 4}, {"character", 24}}}}}}).dump()));
  EXPECT_TRUE(o.empty()) << o.front().diagnosis;
  EXPECT_EQ(o.status("POS-UTF16"), Status::kPassed);
}

TEST_F(Workspace, QuotedTextIsVerbatim) {
  GenericPositions g(dir_.string());
  auto o = g.check("t", nullptr, json::object(),
                   answer({}, R"({"file":"src/app.ts","startLine":3,"endLine":4,"content":"}\nconst label = \" go\"; runTask(1);"})"));
  ASSERT_EQ(ids(o), std::vector<std::string>{"TR-VERBATIM"});
  EXPECT_EQ(o.front().line, 4);
  EXPECT_NE(o.front().diagnosis.find("U+1F680"), std::string::npos) << o.front().diagnosis;
  o = g.check("t", nullptr, json::object(),
              answer({}, R"({"file":"src/app.ts","line":4,"snippet":"const label = \"🚀 go\"; runTask(1);"})"));
  EXPECT_TRUE(o.empty());
  EXPECT_EQ(o.status("TR-VERBATIM"), Status::kPassed);
}

// Completeness against the workspace: kApp holds `runTask` on lines 1, 4 and 5.
TEST_F(Workspace, SearchCompletenessIsJudgedOnlyWhereTheTruthIsPlain) {
  const json grep_tool = {{"name", "grep"}, {"description", "Lists the lines that contain a pattern."},
                          {"inputSchema", {{"type", "object"}}}};
  const json q = {{"pattern", "runTask"}};
  const std::string two = "src/app.ts:1:export function runTask(value: number): number {\nsrc/app.ts:4:const label; runTask(1);";
  auto run = [&](const json& t, const json& args, const std::string& text) {
    GenericPositions g(dir_.string());
    return g.check("grep", &t, args, answer(args, text));
  };
  {
    auto o = run(grep_tool, q, two);
    ASSERT_EQ(ids(o), std::vector<std::string>{"TR-HINT"});
    EXPECT_EQ(o.front().file, "src/app.ts");
    EXPECT_EQ(o.front().line, 5);
    EXPECT_EQ(o.front().cause.at("claim"), "silent");
    EXPECT_NE(o.front().diagnosis.find("has 3 lines with `runTask`"), std::string::npos) << o.front().diagnosis;
  }
  // Every line there: passed.
  EXPECT_EQ(run(grep_tool, q, two + "\nsrc/app.ts:5:const x; runTask(2);").status("TR-HINT"), Status::kPassed);
  // A total equal to the items shown says it is complete: TR-COUNT.
  {
    auto o = run(grep_tool, json{{"query", "runTask"}},
                 R"({"total": 2, "matches": [{"file": "src/app.ts", "line": 1}, {"file": "src/app.ts", "line": 4}]})");
    ASSERT_EQ(ids(o), std::vector<std::string>{"TR-COUNT"});
    EXPECT_EQ(o.front().cause.at("claim"), "complete");
  }
  // ripgrep's listing of the one file the call named.
  EXPECT_EQ(ids(run(grep_tool, json{{"pattern", "runTask"}, {"path", "src/app.ts"}}, "1:export function runTask(\n4:x runTask(1);")),
            std::vector<std::string>{"TR-HINT"});
  // Not judged: a reference finder, a cut said in words, a context line, a regex, a limit asked.
  json usages = grep_tool;
  usages["description"] = "Finds the usages of an identifier.";
  EXPECT_TRUE(run(usages, q, two).empty());
  EXPECT_NE(run(usages, q, two).status("TR-HINT"), Status::kPassed);
  EXPECT_TRUE(run(grep_tool, q, two + "\n(results limited to 2 per file)").empty());
  EXPECT_TRUE(run(grep_tool, q, two + "\nsrc/app.ts:2:  return value * 2;").empty());
  EXPECT_TRUE(run(grep_tool, json{{"pattern", "run.*"}}, two).empty());
  EXPECT_TRUE(run(grep_tool, json{{"pattern", "runTask"}, {"maxResults", 2}}, two).empty());
  // A limit the answer went past in all was not a total: applied to each file, said nowhere.
  {
    const std::string more = two + "\nsrc/b.ts:1:runTask();\nsrc/b.ts:2:runTask();";
    std::ofstream(dir_ / "src/b.ts", std::ios::binary) << "runTask();\nrunTask();\n";
    auto o = run(grep_tool, json{{"pattern", "runTask"}, {"maxResults", 2}}, more);
    ASSERT_EQ(ids(o), std::vector<std::string>{"TR-HINT"});
    EXPECT_NE(o.front().diagnosis.find("`maxResults` 2 was applied to each file"), std::string::npos) << o.front().diagnosis;
    json per_file = grep_tool;
    per_file["inputSchema"]["properties"]["maxResults"] = {{"type", "integer"}, {"description", "Matches per file."}};
    EXPECT_TRUE(run(per_file, json{{"pattern", "runTask"}, {"maxResults", 2}}, more).empty());
  }
}

// Whole-file answers: a tool whose name has the word read/cat/view/show/... asked for src/app.ts
// (5 lines, 4 of them 8+ characters) must give each; by word, not by substring (`get_thread` is
// not a read); a diff shows changed lines, not the file; a count the call chose is not judged.
TEST_F(Workspace, AReadMustGiveEveryLineItWasAskedFor) {
  auto tool = [](const std::string& name) {
    return json{{"name", name}, {"description", "Returns a file."}, {"inputSchema", {{"type", "object"}}}};
  };
  const json args = {{"path", "src/app.ts"}};
  const std::string dropped = "export function runTask(value: number): number {\n  return value * 2;\n}\nconst \xE5\x90\x8D\xE5\x89\x8D = \"\xE6\xA4\x9C\xE7\xB4\xA2\"; runTask(2);";
  auto run = [&](const std::string& name, const json& a, const std::string& text) {
    GenericPositions g(dir_.string());
    const json t = tool(name);
    return g.check(name, &t, a, answer(a, text));
  };
  for (const char* name : {"read_file", "getFileContents", "cat", "view"}) {
    auto o = run(name, args, dropped);
    ASSERT_EQ(ids(o), std::vector<std::string>{"TR-HINT"}) << name;
    EXPECT_EQ(o.front().line, 4) << name;
    EXPECT_EQ(o.front().cause.at("kind"), "lines-asked");
  }
  EXPECT_EQ(run("read_file", args, kApp).status("TR-HINT"), Status::kPassed);
  // Not a read by its name's words, a diff, a number sent beside the path: not judged.
  EXPECT_NE(run("get_thread", args, dropped).status("TR-HINT"), Status::kFailed);
  EXPECT_NE(run("categorize", args, dropped).status("TR-HINT"), Status::kFailed);
  EXPECT_NE(run("git_show", args, "diff --git a/src/app.ts b/src/app.ts\n@@ -1,3 +1,3 @@\n" + dropped).status("TR-HINT"), Status::kFailed);
  EXPECT_NE(run("read_file", json{{"path", "src/app.ts"}, {"limit", 3}}, dropped).status("TR-HINT"), Status::kFailed);
  // A range asked: only its lines count.
  EXPECT_EQ(run("read_file", json{{"path", "src/app.ts"}, {"startLine", 1}, {"endLine", 2}},
                "export function runTask(value: number): number {\n  return value * 2;").status("TR-HINT"),
            Status::kPassed);
}

// text_anchors, input by input as it read them before core/anchor.h took its numbers (recorded
// from 0eaf3e7's code): file, line, column (-1: none), name, snippet. Its quirks are kept, not
// judged here (a drive letter's path is what follows the backslash; a non-ASCII path is cut at
// its first such character).
TEST(GenericAnchors, TextAnchorsReadAsBefore) {
  struct Want {
    std::string file;
    long long line, column;
    std::string name, snippet;
  };
  struct Row {
    std::string text;
    std::vector<Want> want;
  };
  const std::vector<Row> rows = {
    {"- `runTask` at src/app.ts:4:24\nsee lib/x.py:12 and https://h.io:8080/x, 12:30, v1.2:3", {{"src/app.ts", 4, 24, "runTask", ""}, {"lib/x.py", 12, -1, "", ""}, }},
    {"  src/app.ts:4:24 - const label = 1;\nsrc/util.ts:2: return x;\nsrc/a.ts:7:foo(1)\nsrc/b.ts:3 -\n", {{"src/app.ts", 4, 24, "", "const label = 1;"}, {"src/util.ts", 2, -1, "", "return x;"}, {"src/a.ts", 7, -1, "", "foo(1)"}, {"src/b.ts", 3, -1, "", ""}, }},
    {"see C:\\x.ts:3 here", {{"x.ts", 3, -1, "", ""}, }},
    {"see C:/x.ts:3 here", {}},
    {"at file:///w/a.ts:3 and file:///w/b.ts", {}},
    {"open http://host:8080/x and host:8080 and a.b:9", {{"a.b", 9, -1, "", ""}, }},
    {"x a.ts:0 y", {{"a.ts", 0, -1, "", ""}, }},
    {"a.ts:L12", {}},
    {"foo:bar foo:12 Makefile:3 .env:2 src/util:4", {{".env", 2, -1, "", ""}, {"src/util", 4, -1, "", ""}, }},
    {"src/a.ts:12:5, and (src/p.ts:6) \"src/q.ts:5\"", {{"src/a.ts", 12, 5, "", ""}, {"src/p.ts", 6, -1, "", ""}, {"src/q.ts", 5, -1, "", ""}, }},
    {"end src/a.ts:12.", {{"src/a.ts", 12, -1, "", ""}, }},
    {"a.ts#L12 src/a.ts(12,5)", {}},
    {"a.ts:99999999999 b.ts:123456789 c.ts:1234567890 d.ts:000000000012", {{"b.ts", 123456789, -1, "", ""}, {"d.ts", 12, -1, "", ""}, }},
    {"e.ts:1:99999999999 f.ts:1:123456789", {{"f.ts", 1, 123456789, "", ""}, }},
    {"src/x.ts:1:2:3", {{"src/x.ts", 1, 2, "", "3"}, }},
    {"a.ts:4:24 - const x\r", {{"a.ts", 4, 24, "", "const x"}, }},
    {"a.ts:12abc x.js:1.2 y.js:1.x z.ts:3.", {{"y.js", 1, -1, "", ""}, {"z.ts", 3, -1, "", ""}, }},
    {"`Shape.area` src/shapes.ts:3:17 and `run()` lib/r.ts:9", {{"src/shapes.ts", 3, 17, "area", ""}, {"lib/r.ts", 9, -1, "area", ""}, }},
    {"./x:3 ~/x.ts:3 ../up.py:10 a/b:1:2 @scope/pkg/i.ts:5 a+b.ts:6", {{"./x", 3, -1, "", ""}, {"~/x.ts", 3, -1, "", ""}, {"../up.py", 10, -1, "", ""}, {"a/b", 1, 2, "", ""}, {"@scope/pkg/i.ts", 5, -1, "", ""}, {"a+b.ts", 6, -1, "", ""}, }},
    {"src/\xc3""\xa9"".ts:4 src/\xc3""\xbc""/a.ts:5", {{".ts", 4, -1, "", ""}, {"/a.ts", 5, -1, "", ""}, }},
    {"a.ts:\xd9""\xa3""", {}},
    {"//x.ts:3 a//b.ts:4 ://c.ts:5", {{"a//b.ts", 4, -1, "", ""}, }},
    {"a.:3 a/:4 .ts:5 a.1:6 a.b1:7", {{".ts", 5, -1, "", ""}, {"a.b1", 7, -1, "", ""}, }},
  };
  for (const auto& r : rows) {
    const auto got = generic::text_anchors(r.text);
    ASSERT_EQ(got.size(), r.want.size()) << r.text;
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].file, r.want[i].file) << r.text;
      EXPECT_EQ(got[i].line, r.want[i].line) << r.text;
      EXPECT_EQ(got[i].column.value_or(-1), r.want[i].column) << r.text;
      EXPECT_EQ(got[i].name, r.want[i].name) << r.text;
      EXPECT_EQ(got[i].snippet, r.want[i].snippet) << r.text;
      EXPECT_EQ(got[i].where, "text");
    }
  }
}

}  // namespace
}  // namespace ctxo::checks
