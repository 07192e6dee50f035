// SPDX-License-Identifier: MIT
// Values named in prose and Markdown answers (gen/prose.h): what real servers print, what must be
// pooled from it, and what must not (English words, our own request quoted back).
#include "gen/prose.h"
#include "gen/plan.h"
#include "gen/plan_internal.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ctxo::gen {
namespace {

using nlohmann::json;

ProseValue N(const std::string& v) { return {ValueKind::kName, v}; }
ProseValue P(const std::string& v) { return {ValueKind::kPath, v}; }

std::string show(const std::vector<ProseValue>& vs) {
  std::string s;
  for (const auto& v : vs) s += std::string(kind_name(v.kind)) + ":" + v.value + "\n";
  return s;
}

#define EXPECT_VALUES(text, ...)                                    \
  do {                                                              \
    const auto got_ = prose_values(text);                           \
    const std::vector<ProseValue> want_ = __VA_ARGS__;              \
    EXPECT_EQ(got_, want_) << "got:\n" << show(got_) << "want:\n" << show(want_); \
  } while (0)

TEST(Prose, CodeGraphMarkdownTable) {
  const std::string answer =
      "## Symbols in workspace\n"
      "\n"
      "Found 4 symbols:\n"
      "\n"
      "| Name | Kind | Location |\n"
      "|------|------|----------|\n"
      "| log | function | src/util.ts:40 |\n"
      "| makeShape | function | src/shapes.ts:3 |\n"
      "| Shape | class | src/shapes.ts:12 |\n"
      "| renderScene | function | src/scene.ts:8:3 |\n"
      "\n"
      "Use `get_symbol` with a name for details.\n";
  EXPECT_VALUES(answer, {N("log"), P("src/util.ts"), N("makeShape"), P("src/shapes.ts"), N("Shape"), N("renderScene"),
                         P("src/scene.ts"), N("get_symbol")});
}

TEST(Prose, CodeGraphMarkdownListAndSymbolPage) {
  const std::string answer =
      "# makeShape\n"
      "\n"
      "**Kind:** function  \n"
      "**Defined in:** `src/shapes.ts:3:17`\n"
      "\n"
      "## Callers (3)\n"
      "- log (function) src/util.ts:40\n"
      "- Shape (class) — src/shapes.ts:12\n"
      "- Open src/app.ts to see the rest\n"
      "1. `renderScene` in src/scene.ts\n"
      "\n"
      "See [drawAll](src/draw.ts#L20) for more.\n";
  EXPECT_VALUES(answer, {N("makeShape"), P("src/shapes.ts"), N("log"), P("src/util.ts"), N("Shape"), P("src/app.ts"),
                         N("renderScene"), P("src/scene.ts"), N("drawAll"), P("src/draw.ts")});
}

TEST(Prose, ServerFilesystemListing) {
  // @modelcontextprotocol/server-filesystem: list_directory, list_directory_with_sizes, search_files.
  EXPECT_VALUES("[DIR] src\n[FILE] package.json\n[FILE] README.md\n[DIR] node_modules\n",
                {P("src"), P("package.json"), P("README.md"), P("node_modules")});
  EXPECT_VALUES("[FILE] package.json                   1.20 KB\n[DIR] my docs                          \n\n"
                "Total: 1 files, 1 directories\nCombined size: 1.20 KB\n",
                {P("package.json"), P("my docs")});
  EXPECT_VALUES("/work/ws/src/app.ts\n/work/ws/src/util.ts\n", {P("/work/ws/src/app.ts"), P("/work/ws/src/util.ts")});
}

TEST(Prose, BacktickedPathsNeedNoExtension) {
  EXPECT_VALUES("Edit `.env` and `src/util`, not and/or, nor .env alone.", {P(".env"), P("src/util")});
}

TEST(Prose, RipgrepAndCompilerAnchors) {
  EXPECT_VALUES("src/app.ts:4:24:const label = \"🚀 go\"; runTask(1);\n"
                "src/jobs.ts:2:26: export const job01 = () => runTask(1);\n"
                "lib/a.py:7: def load_config(path):\n",
                {P("src/app.ts"), N("runTask"), P("src/jobs.ts"), N("job01"), P("lib/a.py"), N("load_config")});
  EXPECT_VALUES("src/app.ts(12,5): error TS2304: Cannot find name 'x'.\n",
                {P("src/app.ts")});
  EXPECT_VALUES("```ts\n// src/in_fence.ts:3\nconst fooBar = 1;\n```\n", {P("src/in_fence.ts")});
}

TEST(Prose, CommaListsAfterACodeNoun) {
  EXPECT_VALUES("Found 3 symbols: log, makeShape, Shape.", {N("log"), N("makeShape"), N("Shape")});
  EXPECT_VALUES("- callers: render, main\n", {N("render"), N("main")});
  EXPECT_VALUES("Supported colours: red, green, blue\n", {});
  EXPECT_VALUES("Found 2 functions: the first one, the other one\n", {});
}

TEST(Prose, EnglishIsNotPooled) {
  const std::string answer =
      "The server indexed the workspace and found nothing unusual. Please try again later, or use a\n"
      "different query (e.g. a shorter one). Note: results are cached for 5 minutes; see the docs.\n"
      "It works with JavaScript, TypeScript and Node.js over HTTP/2 and/or stdio, in UTF-8.\n"
      "TODO: nothing. Version 1.2.3 released 2024-05-01 at 12:30, $5 per seat, i.e. cheap.\n"
      "- Returns the file list\n"
      "- Open a project first\n"
      "| Name | Kind | Location |\n"
      "|---|---|---|\n"
      "## Summary\n"
      "Visit https://example.com/docs/a.ts or example.com:443 for help.\n";
  EXPECT_VALUES(answer, {});
}

TEST(Prose, OurOwnArgumentsAreNotPooled) {
  const std::vector<std::string> args = argument_strings(json{{"path", "zzq_7b"}, {"content", "hello"}});
  EXPECT_EQ(args, (std::vector<std::string>{"hello", "zzq_7b"}));
  EXPECT_TRUE(prose_values("Created file zzq_7b (5 bytes). Wrote `zzq_7b` successfully.", args).empty());
  // The same answer without the request: zzq_7b reads as code, and would be pooled.
  EXPECT_EQ(prose_values("Created file zzq_7b (5 bytes)."), (std::vector<ProseValue>{N("zzq_7b")}));
  // A lookup's miss quoting the name it was given; a piece of a generated string; a path made
  // absolute by the server.
  EXPECT_TRUE(prose_values("No symbol named makeShape2x_q", {"makeShape2x_q"}).empty());
  EXPECT_TRUE(prose_values("No symbol named `q_9`", {"ab q_9 ??"}).empty());
  EXPECT_TRUE(prose_values("Wrote /tmp/ws/notes/zzq.md", argument_strings(json{{"path", "notes/zzq.md"}})).empty());
  // What the server adds of its own is still pooled.
  EXPECT_EQ(prose_values("No symbol named zq_1. Did you mean `makeShape`?", {"zq_1"}),
            (std::vector<ProseValue>{N("makeShape")}));
}

TEST(Prose, UrisAndIds) {
  EXPECT_VALUES("Opened file:///work/ws/src/a.ts and https://example.org/x.ts; id src/a.ts::run::function.\n",
                {ProseValue{ValueKind::kUri, "file:///work/ws/src/a.ts"},
                 ProseValue{ValueKind::kId, "src/a.ts::run::function"}});
  EXPECT_VALUES("Use `Shape::area` or `Shape.area()`.", {N("Shape::area"), N("Shape.area")});
}

TEST(Prose, JsonFollowedByAMarkdownFooter) {
  const std::string text = "{\"results\":[{\"name\":\"a\"}]}\n\n---\n_Showing 1 of 9. See `log` in src/util.ts:40_\n";
  Harvest h;
  h.take_result(json{{"content", json::array({json{{"type", "text"}, {"text", text}}})}}, true);
  EXPECT_EQ(h.values_of(ValueKind::kName), (std::vector<json>{"a", "log"}));
  EXPECT_EQ(h.values_of(ValueKind::kPath), (std::vector<json>{"src/util.ts"}));
  // Without `prose` (a tool that may write), the JSON is walked, the footer is not.
  Harvest w;
  w.take_result(json{{"content", json::array({json{{"type", "text"}, {"text", text}}})}});
  EXPECT_EQ(w.values_of(ValueKind::kName), (std::vector<json>{"a"}));
  EXPECT_TRUE(w.values_of(ValueKind::kPath).empty());
}

TEST(Prose, HarvestPoolsProseByKindAndDerivesFromIdsAndUris) {
  Harvest h;
  const json result = {{"content", json::array({json{{"type", "text"},
                                                     {"text", "- log (function) src/util.ts:40\n"
                                                              "Id: src/a.ts::run::function, file:///w/b.ts\n"}}})}};
  h.take_result(result, true, {"zzz"});
  EXPECT_EQ(h.values_of(ValueKind::kName), (std::vector<json>{"log", "run"}));
  EXPECT_EQ(h.values_of(ValueKind::kPath), (std::vector<json>{"src/util.ts", "src/a.ts", "/w/b.ts"}));
  EXPECT_EQ(h.values_of(ValueKind::kId), (std::vector<json>{"src/a.ts::run::function"}));
  EXPECT_EQ(h.values_of(ValueKind::kUri), (std::vector<json>{"file:///w/b.ts"}));
  // A `symbol` parameter is offered the names.
  const auto offers = h.offers("symbol");
  ASSERT_FALSE(offers.empty());
  EXPECT_EQ(offers.front(), "log");
  // isError-free prose of a tool that may write is not read at all.
  Harvest w;
  w.take_result(result);
  EXPECT_EQ(w.size(), 0u);
}

// Ids printed after a label, for the follow-up tool that takes them by that name (issue 43).
std::string labelled(const std::string& text, const std::vector<std::string>& exclude = {}) {
  std::string s;
  for (const auto& lv : labelled_values(text, exclude)) {
    s += lv.value + " ->";
    for (const auto& n : lv.names) s += " " + n;
    s += "\n";
  }
  return s;
}

TEST(Prose, IdsAfterALabelAreOfferedUnderItsName) {
  EXPECT_EQ(labelled("Started search session: `a1b2c3`. Poll it with get_results."),
            "a1b2c3 -> searchsession session sessionid\n");
  EXPECT_EQ(labelled("Session ID: 7f3a-19\noutputId=out_93b1\nJob: 4711"),
            "7f3a-19 -> sessionid\nout_93b1 -> outputid\n4711 -> job jobid\n");
  EXPECT_EQ(labelled("request_id = \"Rq-1\"; token: 'abc'"), "Rq-1 -> requestid\nabc -> token tokenid\n");
  EXPECT_EQ(labelled("- job_id: 0a9f2c4e-1b2d-4c3e-9f8a-7b6c5d4e3f21 (queued)"),
            "0a9f2c4e-1b2d-4c3e-9f8a-7b6c5d4e3f21 -> jobid\n");
  // Not ids: a word after the label, nothing, a time, a task's number in a heading, a URL, a
  // value our own request gave.
  EXPECT_EQ(labelled("Run: npm test\nSession: none\nStatus: done\nStarted at 12:30\nTask 3: build\n"
                     "Search: https://example.com/x\nid:\nSession ID: pending"),
            "");
  EXPECT_EQ(labelled("Created session: zz-99", {"zz-99"}), "");
  EXPECT_EQ(labelled("Created session: zz-99", {"other"}), "zz-99 -> createdsession session sessionid\n");
  // Pooled from any tool's answer (a tool that starts a session writes): a `sessionId` is offered it.
  Harvest h;
  h.take_result(json{{"content", json::array({json{{"type", "text"}, {"text", "Started search session: `s-7f3a9c`."}}})}},
                false, {"query text"});
  ASSERT_FALSE(h.offers("sessionId").empty());
  EXPECT_EQ(h.offers("sessionId").front(), "s-7f3a9c");
  EXPECT_EQ(h.values_of(ValueKind::kId), std::vector<json>{"s-7f3a9c"});
}

TEST(Prose, Bounded) {
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "fn_" + std::to_string(i) + " ";
  const auto got = prose_values(many);
  ASSERT_EQ(got.size(), kProseMaxValues);
  EXPECT_EQ(got.front(), N("fn_0"));
  EXPECT_EQ(got.back(), N("fn_63"));
  // Past 256 KiB nothing is read.
  std::string big(kProseMaxBytes, '.');
  big += "\nlateName_1\n";
  EXPECT_TRUE(prose_values(big).empty());
  // Adversarial lines are read in linear time: unclosed backtick runs, colons, bars, brackets.
  std::string evil;
  for (int i = 0; i < 40000; ++i) evil += "`` ``` a:1:2:(|[`";
  const auto t0 = std::chrono::steady_clock::now();
  (void)prose_values(evil);
  std::string bars = "|";
  for (int i = 0; i < 100000; ++i) bars += " x |";
  (void)prose_values(bars);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 2000) << "quadratic somewhere";
}

TEST(Prose, WhichToolsAnswersAreRead) {
  auto tool = [](const std::string& name, json annotations = nullptr) {
    json t = {{"name", name}, {"inputSchema", {{"type", "object"}}}};
    if (!annotations.is_null()) t["annotations"] = annotations;
    return t;
  };
  EXPECT_TRUE(reading_tool(tool("anything", {{"readOnlyHint", true}})));
  EXPECT_FALSE(reading_tool(tool("list_things", {{"readOnlyHint", false}})));
  EXPECT_FALSE(reading_tool(tool("get_thing", {{"readOnlyHint", true}, {"destructiveHint", true}})));
  for (const char* name : {"list_symbols", "get_symbol", "find_callers", "search", "read_file", "showOutline",
                           "describe-table", "query", "lookupName", "file_outline", "find_references",
                           "goto_definition", "hover", "get_type_at_symbol", "get_type_in_module"})
    EXPECT_TRUE(reading_tool(tool(name))) << name;
  for (const char* name : {"write_file", "create_directory", "delete_note", "update_issue", "set_config", "run_query",
                           "exec", "get_or_create_user", "move_file", "rename_symbol", "frobnicate",
                           "browser_type", "type_text"})
    EXPECT_FALSE(reading_tool(tool(name))) << name;
  EXPECT_FALSE(reading_tool(json("list_x")));
}

// "log" reads a history beside a version-control word; alone or elsewhere it may write one.
TEST(Prose, ALogToolReadsOnlyAHistory) {
  auto tool = [](const std::string& name) { return json{{"name", name}, {"inputSchema", {{"type", "object"}}}}; };
  for (const char* name : {"git_log", "gitLog", "hg_log", "repo_log", "git_shortlog", "reflog", "view_history_log",
                           "git_show", "git_diff", "git_status", "git_blame"})
    EXPECT_TRUE(reading_tool(tool(name))) << name;
  for (const char* name : {"log", "log_event", "log_message", "audit_log", "login", "git_commit", "git_add",
                           "git_reset", "git_create_branch", "git_log_write"})
    EXPECT_FALSE(reading_tool(tool(name))) << name;
}

// The path prose (anchor_path) and the harvest (detail::value_anchor_path) take from a token that
// is one anchor, input by input as the readers they had before core/anchor.h took their numbers
// gave it (recorded from 0eaf3e7's code): each kept its own forms and path rule.
TEST(ProseAnchor, EachReaderAcceptsWhatItDidBefore) {
  const std::optional<std::string> kNone;
  struct Row {
    std::string token;
    std::optional<std::string> prose, harvest;
  };
  const std::vector<Row> rows = {
    {"src/util.ts:40", "src/util.ts", "src/util.ts"},
    {"src/shapes.ts:3", "src/shapes.ts", "src/shapes.ts"},
    {"src/scene.ts:8:3", "src/scene.ts", "src/scene.ts"},
    {"src/shapes.ts:3:17", "src/shapes.ts", "src/shapes.ts"},
    {"src/app.ts:4:24:", "src/app.ts", kNone},
    {"src/jobs.ts:2:26:", "src/jobs.ts", kNone},
    {"lib/a.py:7:", "lib/a.py", kNone},
    {"src/in_fence.ts:3", "src/in_fence.ts", "src/in_fence.ts"},
    {"src/a.ts:12:5", "src/a.ts", "src/a.ts"},
    {"src/a.ts:12:5:6", kNone, kNone},
    {"src/a.ts:12:5::", "src/a.ts", kNone},
    {"src/a.ts::12", kNone, kNone},
    {"src/a.ts:", kNone, kNone},
    {"src/a.ts:12:", "src/a.ts", kNone},
    {"a.ts:0", "a.ts", "a.ts"},
    {"a.ts:L12", kNone, kNone},
    {"a.ts:12abc", kNone, kNone},
    {"x.js:1.2", kNone, kNone},
    {"v1.2:3", kNone, "v1.2"},
    {"12:30", kNone, kNone},
    {":12", kNone, kNone},
    {":1:2", kNone, kNone},
    {"a:1:2", kNone, kNone},
    {"foo:bar", kNone, kNone},
    {"foo:12", kNone, kNone},
    {"Makefile:3", kNone, kNone},
    {".env:2", ".env", ".env"},
    {"src/util:4", "src/util", "src/util"},
    {"./x:3", "./x", "./x"},
    {"~/x.ts:3", "~/x.ts", "~/x.ts"},
    {"../up.py:10", "../up.py", "../up.py"},
    {"a/b:1:2", "a/b", "a/b"},
    {"C:\\x.ts:3", kNone, kNone},
    {"C:/x.ts:3", kNone, kNone},
    {"C:\\src\\x.ts:3:4", kNone, kNone},
    {"file:///w/a.ts:3", kNone, kNone},
    {"file:///w/a.ts", kNone, kNone},
    {"https://example.com/docs/a.ts", kNone, kNone},
    {"http://host:8080/x", kNone, kNone},
    {"https://h.io:8080/x", kNone, kNone},
    {"host:8080", kNone, kNone},
    {"example.com:443", kNone, "example.com"},
    {"a.com:80", kNone, "a.com"},
    {"x.io:1", kNone, "x.io"},
    {"node.js:3", "node.js", "node.js"},
    {"Node.js:3", "Node.js", "Node.js"},
    {"a b.ts:3", kNone, kNone},
    {"a.ts:12,", kNone, kNone},
    {"a.ts:12.", kNone, kNone},
    {"a.ts:12)", kNone, kNone},
    {"(a.ts:12)", kNone, kNone},
    {"\"a.ts:12\"", kNone, kNone},
    {"a.ts:12;", kNone, kNone},
    {"a.ts#L12", "a.ts", kNone},
    {"a.ts#L12-L20", "a.ts", kNone},
    {"a.ts#L12-", "a.ts", kNone},
    {"a.ts#Lx", kNone, kNone},
    {"a.ts#L", kNone, kNone},
    {"#L12", kNone, kNone},
    {"src/a.ts#L3:4", kNone, "src/a.ts#L3"},
    {"src/a.ts(12,5)", "src/a.ts", kNone},
    {"src/a.ts(12, 5)", "src/a.ts", kNone},
    {"src/a.ts(12)", "src/a.ts", kNone},
    {"src/a.ts(12,)", kNone, kNone},
    {"src/a.ts(12):", "src/a.ts", kNone},
    {"src/a.ts(x)", kNone, kNone},
    {"(12)", kNone, kNone},
    {"a.ts()", kNone, kNone},
    {"a.ts:99999999999", "a.ts", "a.ts"},
    {"a.ts:123456789", "a.ts", "a.ts"},
    {"a.ts:000000000012", "a.ts", "a.ts"},
    {"src/\xc3""\xa9"".ts:4", "src/\xc3""\xa9"".ts", "src/\xc3""\xa9"".ts"},
    {"a.ts:\xd9""\xa3""", kNone, kNone},
    {"a:1:2:(|[", kNone, kNone},
    {"-a.ts:3", kNone, "-a.ts"},
    {"a.ts:1:2:3:4", kNone, kNone},
    {"a::b.ts:3", kNone, kNone},
    {"src/a.ts:12:5 - text", kNone, kNone},
  };
  for (const auto& r : rows) {
    const auto p = anchor_path(r.token);
    EXPECT_EQ(p ? std::optional<std::string>(std::string(*p)) : std::nullopt, r.prose) << "prose: " << r.token;
    EXPECT_EQ(detail::value_anchor_path(r.token), r.harvest) << "harvest: " << r.token;
  }
}

}  // namespace
}  // namespace ctxo::gen
