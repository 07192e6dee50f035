// SPDX-License-Identifier: MIT
// Honest coverage (issue 28): an answer judged by no envelope profile is data only when it carries
// data. Error prose without isError, a miss sentence, an empty shape and a leaked JavaScript
// `undefined` each have their own category; a real answer that merely mentions those words stays
// data (precision over recall: a wrong category here hides a tool's real data from the report).
#include "checks/reach.h"

#include <gtest/gtest.h>

#include <string>

#include "checks/judge.h"

namespace ctxo::checks {
namespace {

using nlohmann::json;

Reach text(const std::string& t) { return content_reach(t); }

// The examples the issue names, one category each.
TEST(ContentReach, IssueExamples) {
  EXPECT_EQ(text("Error searching libraries: TypeError: fetch failed"), Reach::kError);
  EXPECT_EQ(text(R"({"type":"x","data":[]})"), Reach::kEmpty);
  EXPECT_EQ(text("No generators found"), Reach::kMiss);
  EXPECT_EQ(text("Found generator schema for zzz: undefined"), Reach::kLeak);
  EXPECT_EQ(text("No LSP server configured for file"), Reach::kMiss);
  EXPECT_EQ(text(R"({"found":false})"), Reach::kMiss);
  // A short sentence naming what was looked for (a code-graph server's answer to a made-up name).
  EXPECT_EQ(text("No symbol named `zz_q1`."), Reach::kMiss);
  EXPECT_EQ(text("No definition for parseConfig"), Reach::kMiss);
  EXPECT_EQ(text("No symbols called foo in 3 files"), Reach::kData) << "a count of what it did find is data";
}

TEST(ContentReach, ErrorText) {
  for (const char* t : {
           "Error: something broke",
           "error: bad input",
           "ERROR: index missing",
           "Error reading file /tmp/x: permission denied",
           "TypeError: Cannot read properties of undefined (reading 'map')",
           "ReferenceError: foo is not defined",
           "SyntaxError: Unexpected token < in JSON at position 0",
           "McpError: MCP error -32603: boom",
           "MCP error -32602: Invalid params",
           "Request failed: fetch failed",
           "connect ECONNREFUSED 127.0.0.1:5432",
           "ENOENT: no such file or directory, open '/x/y.ts'",
           "spawn rg ENOENT",
           "EACCES: permission denied, open '/etc/shadow'",
           "docs.map is not a function",
           "Cannot read properties of undefined (reading 'length')",
           "Failed to fetch documentation for react",
           "An error occurred while searching",
           "**Error:** the index is not built",
           "❌ Error: repository not cloned",
           "fatal: not a git repository (or any of the parent directories): .git",
           "Could not connect to the language server",
           "zzz: Error - ENOENT: no such file or directory, open '/tmp/d/zzz'",
           "Error",
           "Traceback (most recent call last):\n  File \"srv.py\", line 3, in f\n    g()\nKeyError: 'x'",
           // A one-line refusal of the input (a documentation server's answer to a URL it does not serve).
           "URL must be from the same domain as https://docs.example.com",
           "Parameter 'path' is required.",
           "Query must not be empty",
           "Invalid repository name: a b",
           "'main..dev' is not a valid revision range",
       }) {
    EXPECT_EQ(text(t), Reach::kError) << t;
  }
}

TEST(ContentReach, AStackTraceIsAnError) {
  const std::string trace =
      "TypeError: fetch failed\n    at node:internal/deps/undici/undici:13502:13\n"
      "    at async search (file:///srv/index.js:41:17)\n    at async Server.<anonymous> (/srv/node_modules/x.js:9:3)\n";
  EXPECT_EQ(text(trace), Reach::kError);
  // A long trace does not make the answer long: frames are set aside.
  std::string deep = "Error: boom\n";
  for (int i = 0; i < 50; ++i) deep += "    at f" + std::to_string(i) + " (/srv/lib/module.js:" + std::to_string(i + 1) + ":7)\n";
  EXPECT_EQ(text(deep), Reach::kError);
  EXPECT_EQ(text("    at f (file.js:1:2)\n    at g (file.js:3:4)"), Reach::kError) << "nothing but a trace";
}

TEST(ContentReach, ErrorObjects) {
  EXPECT_EQ(text(R"({"error":"boom"})"), Reach::kError);
  EXPECT_EQ(text(R"({"error":{"code":-1,"message":"x"}})"), Reach::kError);
  EXPECT_EQ(text(R"({"isError":true,"message":"bad"})"), Reach::kError);
  EXPECT_EQ(text(R"({"success":false,"message":"Symbol not found"})"), Reach::kError);
  EXPECT_EQ(text(R"({"ok":false,"results":[]})"), Reach::kError);
  EXPECT_EQ(text(R"({"status":"error","message":"timeout"})"), Reach::kError);
  EXPECT_EQ(text(R"({"errors":["bad id"]})"), Reach::kError);
  EXPECT_EQ(json_reach(json::parse(R"({"error":"boom","_meta":{"took":3}})")), Reach::kError);
}

TEST(ContentReach, Misses) {
  for (const char* t : {
           "not found",
           "404 Not Found",
           "Symbol 'makeShape' not found",
           "File not found: src/app.ts",
           "No results found for \"zzq\"",
           "no matches",
           "0 results",
           "Found 0 results.",
           "The library 'foo' does not exist.",
           "Could not find a symbol named foo",
           "There are no references to this symbol",
           "No documentation available for left-pad",
           "## No results\n\nTry a broader query.",
       }) {
    EXPECT_EQ(text(t), Reach::kMiss) << t;
  }
  EXPECT_EQ(text(R"({"found":false,"hint":"use search"})"), Reach::kMiss);
  EXPECT_EQ(text(R"({"exists":false,"path":""})"), Reach::kMiss);
  EXPECT_EQ(text(R"({"message":"No generators found"})"), Reach::kMiss);
  EXPECT_EQ(text(R"({"result":"No generators found"})"), Reach::kMiss) << "one prose field says what the text would";
}

TEST(ContentReach, Empties) {
  for (const char* t : {"", "  \n ", "[]", "{}", "null", "\"\"", "(empty)", "none", "No output.",
                        R"({"results":[],"total":0,"query":"q"})", R"({"type":"x","data":[]})",
                        R"({"items":[],"errors":[],"_meta":{"totalItems":0}})", R"({"data":{"type":"list","items":[]}})",
                        R"({"result":null})", "[[],{}]"}) {
    EXPECT_EQ(text(t), Reach::kEmpty) << t;
  }
  EXPECT_EQ(content_reach("whatever the text says", nullptr), Reach::kData);
  const json sc = json::parse(R"({"type":"x","data":[]})");
  EXPECT_EQ(content_reach("{\"type\":\"x\",\"data\":[]}", &sc), Reach::kEmpty) << "structuredContent read";
}

TEST(ContentReach, Leaks) {
  for (const char* t : {"undefined", "NaN", "[object Object]", "Schema: [object Object]", "Result = undefined",
                        "Generator zzz\nschema: undefined", "Score: NaN.", R"("undefined")", R"({"schema":"undefined"})",
                        R"({"name":"zzz","schema":"[object Object]"})", R"(["undefined","undefined"])",
                        R"({"result":"Found generator schema for zzz: undefined"})"}) {
    EXPECT_EQ(text(t), Reach::kLeak) << t;
  }
  const json sc = json::parse(R"({"generator":{"name":"zzz","schema":"undefined"}})");
  EXPECT_EQ(content_reach("", &sc), Reach::kLeak);
}

// Real data that merely contains those words stays data.
TEST(ContentReach, RealDataMentioningTheWordsStaysData) {
  for (const char* t : {
           // A code search hit on a line with "TypeError", "not found", "ENOENT".
           "src/api.ts:42: throw new TypeError(\"expected a string\")",
           "src/lookup.ts:7:  if (!hit) return 'not found';",
           "lib/fs.js:12: if (e.code === 'ENOENT') return null;",
           // A file whose content says "not found" or prints undefined.
           "export function find(id) {\n  const hit = map.get(id);\n  if (!hit) throw new Error(\"not found\");\n  return hit;\n}",
           "let value = undefined;",
           "console.log(\"fetch failed\");",
           "expect(String(x)).toBe(\"[object Object]\");",
           // A hover and API docs where undefined is the type.
           "(parameter) cb: undefined",
           "Returns: undefined",
           "Type: undefined",
           // Listings whose items mention the words.
           "Found 3 results:\n- errors.ts: class NotFoundError\n- http.ts: 404 not found handler\n- fetch.ts: fetch failed retry",
           "1. TypeError handling guide\n2. Error: codes and meanings\n3. Not found pages",
           "| name | kind |\n|---|---|\n| NotFound | class |\n| TypeError | class |",
           // A found answer that reports a partial miss.
           "Found 12 files; 0 results in vendor/",
           // A long first line of prose, and a long rest after a miss-like heading.
           "Error handling in Express is done by middleware functions that take four arguments (err, req, res, next); "
           "when a route throws, Express skips the remaining non-error middleware and calls the error handlers in order. "
           "A 404 is not an error: add a catch-all route at the end that answers not found.",
           "# Not found pages\n\nNext.js renders app/not-found.tsx when notFound() is called or no route matches the "
           "URL. The file exports a React component; it receives no props and can fetch data on the server. Place it in "
           "any route segment to scope it to that segment, or at the root for the whole app, and pair it with "
           "generateMetadata to set the page title. Static export writes it as 404.html so hosts serve it for missing paths.",
           // JSON with data, including words and leaked values deep in a large answer.
           R"({"results":[{"path":"a.ts","line":3,"text":"TypeError: x"}],"total":1})",
           R"({"found":true,"symbol":{"name":"log","kind":"function"}})",
           R"({"status":"ok"})",
           R"({"name":"foo","type":"undefined"})",
           R"({"error":null,"data":[1,2,3]})",
           R"({"found":false,"suggestions":["log","logger"]})",
           "42",
           "true",
           "Found 2 matches in src/app.ts",
           // A heading over a listing of error codes is documentation, not an error.
           "Error codes:\nE001 - bad thing\nE002 - other thing",
           "Undefined behaviour occurs when a program reads an uninitialised variable.",
           "The value is NaN when the input is not a number",
           // Documentation that says what must be, at more length than one refusal.
           "# Naming\n\nA package name must be lowercase and at most 214 characters; it is required in package.json.",
       }) {
    EXPECT_EQ(text(t), Reach::kData) << t;
  }
  // One part of a multi-part answer failed, another carries data (read_multiple_files).
  EXPECT_EQ(text("zzz: Error - ENOENT: no such file or directory, open '/w/zzz'\n---\n/w/a.txt:\nhello\n"), Reach::kData);
  EXPECT_EQ(text("zzz: Error - ENOENT: no such file or directory, open '/w/zzz'\n---\nyyy: Error - ENOENT: no such "
                 "file or directory, open '/w/yyy'"),
            Reach::kError)
      << "every part failed";
  json big = {{"items", json::array()}};
  for (int i = 0; i < 40; ++i) big["items"].push_back({{"name", "item" + std::to_string(i)}, {"doc", i == 7 ? "undefined" : "ok"}});
  EXPECT_EQ(text(big.dump()), Reach::kData) << "one leaked field among forty items: the answer still carries data";
}

// The judge: error prose to a call generated invalid is its refusal; coverage counts leaks.
TEST(ContentReach, JudgeCountsTheCategories) {
  const json tool = json::parse(R"({"name":"find","inputSchema":{"type":"object",
    "properties":{"symbol":{"type":"string","maxLength":20}},"required":["symbol"]}})");
  JudgeSetup setup;
  setup.tools = {tool};
  Judge judge(setup);
  auto call = [&](const json& args, const std::string& t, Validity v = Validity::kValid, const json* sc = nullptr) {
    mcp::Reply r;
    r.kind = mcp::Reply::Kind::kResult;
    r.request = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "find"}, {"arguments", args}}}};
    r.result = {{"content", {{{"type", "text"}, {"text", t}}}}};
    if (sc) r.result["structuredContent"] = *sc;
    Exchange x;
    x.tool = "find";
    x.arguments = args;
    x.reply = &r;
    x.validity = v;
    return judge.call(x).reach;
  };
  const json ok = {{"symbol", "run"}};
  EXPECT_EQ(call(ok, "Error: fetch failed"), Reach::kError);
  EXPECT_EQ(call(json{{"symbol", 7}}, "Error: symbol must be a string", Validity::kInvalid), Reach::kRefusal);
  EXPECT_EQ(call(ok, "No symbols found"), Reach::kMiss);
  EXPECT_EQ(call(ok, "run: undefined"), Reach::kLeak);
  EXPECT_EQ(call(ok, "run is defined in src/run.ts"), Reach::kData);
  const json sc_empty = json::parse(R"({"type":"symbols","data":[]})");
  EXPECT_EQ(call(ok, "{}", Validity::kValid, &sc_empty), Reach::kEmpty);
  const json sc_data = json::parse(R"({"symbols":[{"name":"run"}]})");
  EXPECT_EQ(call(ok, "see structuredContent", Validity::kValid, &sc_data), Reach::kData);
  // An image answer carries data though it has no text.
  {
    mcp::Reply r;
    r.kind = mcp::Reply::Kind::kResult;
    r.request = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "find"}, {"arguments", ok}}}};
    r.result = {{"content", {{{"type", "image"}, {"data", "iVBORw0KGgo="}, {"mimeType", "image/png"}}}}};
    Exchange x;
    x.tool = "find";
    x.arguments = ok;
    x.reply = &r;
    x.validity = Validity::kValid;
    EXPECT_EQ(judge.call(x).reach, Reach::kData);
  }
  (void)judge.finish();
  const Coverage& c = judge.coverage().at("find");
  EXPECT_EQ(c.calls, 8u);
  EXPECT_EQ(c.data, 3u);
  EXPECT_EQ(c.errors, 1u);
  EXPECT_EQ(c.refusals, 1u);
  EXPECT_EQ(c.misses, 1u);
  EXPECT_EQ(c.leaks, 1u);
  EXPECT_EQ(c.empty, 1u);
  EXPECT_EQ(c.summary(), "3/8 calls reached data (1 empty, 1 graceful miss, 1 error, 1 leak, 1 refusal)");
}

TEST(Coverage, LeaksAddRemoveAndMerge) {
  Coverage a;
  a.add(Reach::kLeak);
  a.add(Reach::kData);
  EXPECT_EQ(a.leaks, 1u);
  EXPECT_EQ(a.calls, 2u);
  Coverage b;
  b.add(Reach::kLeak);
  a += b;
  EXPECT_EQ(a.leaks, 2u);
  EXPECT_EQ(a.calls, 3u);
  a.remove(Reach::kLeak);
  EXPECT_EQ(a.leaks, 1u);
  EXPECT_EQ(a.calls, 2u);
  EXPECT_STREQ(to_string(Reach::kLeak), "leak");
}

}  // namespace
}  // namespace ctxo::checks
