// SPDX-License-Identifier: MIT
// In-band failures (issue 29): the text rules of checks/inband.* (internal errors, environment
// failures, calls that pass a query language or code, leak evidence) and the Inband rules over a
// run: P-NO-THROW for an internal error in a result, P-ISERROR per tool or once for the server,
// P-LEAK; and what is never a finding.
#include "checks/inband.h"

#include <gtest/gtest.h>

#include <string>

#include "checks/judge.h"
#include "profile/profile.h"

namespace ctxo::checks {
namespace {

using mcp::Reply;
using nlohmann::json;

// ---- text rules ---------------------------------------------------------------------------

TEST(InbandText, RuntimeExceptions) {
  for (const char* t : {"TypeError: Cannot read properties of undefined (reading 'title')",
                        "Error: x.map is not a function",
                        "ReferenceError: config is not defined",
                        "RangeError: Invalid array length",
                        "Failed: Cannot read property 'name' of undefined",
                        "Traceback (most recent call last):\n  File \"x.py\", line 3, in f\nKeyError: 'a'",
                        "Something broke\n    at lookup (file:///srv/index.js:12:7)"}) {
    SCOPED_TRACE(t);
    EXPECT_EQ(internal_error(t).kind, InternalKind::kRuntime);
  }
  // The exception's line, and its first frame when one follows.
  const auto e = internal_error("TypeError: Cannot read properties of undefined (reading 'x')\n    at f (a.js:1:2)\n    at g (a.js:3:4)");
  EXPECT_EQ(e.evidence, "TypeError: Cannot read properties of undefined (reading 'x') \u2026 at f (a.js:1:2)");
}

TEST(InbandText, DatabaseErrors) {
  for (const char* t : {"fts5: syntax error near \"-\"", "SQLITE_ERROR: no such table: notes", "no such column: b",
                        "datatype mismatch", "error: syntax error at or near \"FROM\"", "near \"zzz\": syntax error",
                        "SqliteError: unrecognized token: \"'\"",
                        "ER_PARSE_ERROR: You have an error in your SQL syntax",
                        "error: relation \"users\" does not exist"}) {
    SCOPED_TRACE(t);
    EXPECT_EQ(internal_error(t).kind, InternalKind::kDatabase);
  }
}

// What the shells print when an argument pasted unquoted into a command line breaks its syntax:
// dash (Debian's /bin/sh, as mcp-ripgrep's `-t ${fileType}` answered), bash and zsh.
TEST(InbandText, ShellSyntaxErrors) {
  for (const char* t : {"Error: Command failed with exit code 2\n/bin/sh: 1: Syntax error: \")\" unexpected",
                        "/bin/sh: 1: Syntax error: Unterminated quoted string",
                        "sh: 1: Syntax error: word unexpected (expecting \")\")",
                        "Command failed: rg -t a(b x\nbash: -c: line 1: syntax error near unexpected token `('",
                        "/bin/bash: -c: line 0: unexpected EOF while looking for matching `''",
                        "zsh:1: parse error near `)'"}) {
    SCOPED_TRACE(t);
    EXPECT_EQ(internal_error(t).kind, InternalKind::kShell);
  }
  // Prose about syntax errors, a program's own syntax error, a shell that did not parse the input.
  for (const char* t : {"Syntax error: unexpected token in expression", "SyntaxError: Unexpected token )",
                        "crash: 1: Syntax error: x", "/bin/sh: 1: rg: not found", "fish: Unknown command"}) {
    SCOPED_TRACE(t);
    EXPECT_NE(internal_error(t).kind, InternalKind::kShell);
  }
}

TEST(InbandText, NotInternal) {
  for (const char* t : {"Error: not found", "No notes match", "Error: the orders service is unavailable",
                        "TypeError:", "SyntaxError: Unexpected token < in JSON at position 0",
                        "Could not connect to server", "at the top of the file: 3 matches",
                        "No such file or directory", "Error: Access denied - path outside allowed directories"}) {
    SCOPED_TRACE(t);
    EXPECT_EQ(internal_error(t).kind, InternalKind::kNone);
  }
  // Strict (a short answer that does not otherwise read as a failure): a bare engine error only.
  EXPECT_EQ(internal_error("fts5: syntax error near \"x\"", true).kind, InternalKind::kDatabase);
  EXPECT_EQ(internal_error("TypeError: x is not a function", true).kind, InternalKind::kNone);
  EXPECT_EQ(internal_error("Notes about no such column errors and how to fix them", true).kind, InternalKind::kNone);
}

TEST(InbandText, EnvironmentFailures) {
  for (const char* t : {"Error searching libraries: TypeError: fetch failed", "connect ECONNREFUSED 127.0.0.1:80",
                        "getaddrinfo ENOTFOUND example.invalid", "Error: ENOENT: no such file or directory, open 'x'",
                        "EACCES: permission denied", "request to x failed, reason: ETIMEDOUT",
                        "SQLITE_BUSY: database is locked", "TimeoutError: The operation was aborted due to timeout"}) {
    SCOPED_TRACE(t);
    EXPECT_TRUE(environment_failure(t));
  }
  EXPECT_FALSE(environment_failure("TypeError: Cannot read properties of undefined (reading 'x')"));
  EXPECT_FALSE(environment_failure("fts5: syntax error near \"-\""));
}

TEST(InbandText, QueryLanguageCalls) {
  const json plain = json::parse(R"({"name":"search","description":"Finds notes.","inputSchema":{"type":"object",
    "properties":{"query":{"type":"string"}}}})");
  EXPECT_FALSE(query_language_call(&plain, {{"query", "zzz"}}));
  EXPECT_TRUE(query_language_call(&plain, {{"query", "SELECT b FROM t"}}));
  EXPECT_TRUE(query_language_call(&plain, {{"query", "  with x as (select 1) select * from x"}}));
  const json sql = json::parse(R"({"name":"run_sql","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}})");
  EXPECT_TRUE(query_language_call(&sql, {{"q", "zzz"}}));
  const json described = json::parse(R"J({"name":"query","inputSchema":{"type":"object",
    "properties":{"q":{"type":"string","description":"An FTS5 query (MATCH syntax)"}}}})J");
  EXPECT_TRUE(query_language_call(&described, {{"q", "zzz"}}));
  EXPECT_FALSE(query_language_call(nullptr, {{"q", "zzz"}}));
}

TEST(InbandText, CodeCalls) {
  const json eval = json::parse(R"({"name":"browser_evaluate","inputSchema":{"type":"object","properties":{"fn":{"type":"string"}}}})");
  EXPECT_TRUE(code_call(&eval, {{"fn", "zzz"}}));
  const json param = json::parse(R"({"name":"page","inputSchema":{"type":"object","properties":{"expression":{"type":"string"}}}})");
  EXPECT_TRUE(code_call(&param, {{"expression", "zzz"}}));
  const json search = json::parse(R"({"name":"search_code","description":"Searches the code base.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}})");
  EXPECT_FALSE(code_call(&search, {{"query", "zzz"}}));
}

// A tool whose input is a command line (or code) answers its syntax errors as such.
TEST(InbandText, ShellCalls) {
  const json run = json::parse(R"({"name":"run","description":"Runs a shell command.","inputSchema":{"type":"object","properties":{"line":{"type":"string"}}}})");
  EXPECT_TRUE(shell_call(&run, {{"line", "zzz"}}));
  const json param = json::parse(R"({"name":"start","inputSchema":{"type":"object","properties":{"cmd":{"type":"string"}}}})");
  EXPECT_TRUE(shell_call(&param, {{"cmd", "zzz"}}));
  const json rg = json::parse(R"({"name":"advanced-search","description":"Advanced search with ripgrep with more options","inputSchema":{"type":"object","properties":{"pattern":{"type":"string"},"fileType":{"type":"string"}}}})");
  EXPECT_FALSE(shell_call(&rg, {{"pattern", "zzz"}, {"fileType", ")"}}));
}

TEST(InbandText, LeakEvidence) {
  EXPECT_EQ(leak_evidence("Found generator schema for zzz: undefined", nullptr, json::object()),
            "`Found generator schema for zzz: undefined`");
  EXPECT_EQ(leak_evidence(R"({"name":"a","size":"NaN"})", nullptr, json::object()), "`/size` is \"NaN\"");
  const json s = {{"items", {{{"label", "[object Object]"}}}}};
  EXPECT_EQ(leak_evidence("", &s, json::object()), "`/items/0/label` is \"[object Object]\"");
  // Not leaks: a type, our own argument quoted back, prose about JavaScript, a code line.
  EXPECT_EQ(leak_evidence(R"({"type":"undefined","value":1})", nullptr, json::object()), "");
  EXPECT_EQ(leak_evidence(R"({"word":"undefined"})", nullptr, {{"q", "undefined"}}), "");
  EXPECT_EQ(leak_evidence("Returns: undefined", nullptr, json::object()), "");
  EXPECT_EQ(leak_evidence("const x = undefined;", nullptr, json::object()), "");
}

// ---- rules over a run ------------------------------------------------------------------------

Reply reply(const std::string& tool, const std::string& text, bool is_error = false, const json& args = {{"id", "zzz"}}) {
  Reply r;
  r.kind = Reply::Kind::kResult;
  r.request = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", tool}, {"arguments", args}}}};
  r.result = {{"content", {{{"type", "text"}, {"text", text}}}}};
  if (is_error) r.result["isError"] = true;
  return r;
}

json tool(const std::string& name) {
  return {{"name", name}, {"inputSchema", {{"type", "object"}, {"properties", {{"id", {{"type", "string"}}}}}}}};
}

std::vector<std::string> ids(Outcomes& o) {
  std::vector<std::string> out;
  for (const auto& f : o.take_findings()) out.push_back(f.invariant);
  return out;
}

Outcomes judge(Inband& in, const std::string& name, const Reply& r, bool valid = true) {
  const json t = tool(name);
  return in.judge(name, &t, r.request["params"]["arguments"], r, valid, {});
}

TEST(Inband, InternalErrorIsNoThrowOnlyWithOrWithoutIsError) {
  Inband in;
  Outcomes a = judge(in, "summarize", reply("summarize", "TypeError: Cannot read properties of undefined (reading 'title')\n    at f (x.js:1:2)"));
  EXPECT_EQ(ids(a), std::vector<std::string>{"P-NO-THROW"});
  Outcomes b = judge(in, "search", reply("search", "fts5: syntax error near \"-\"", true));
  auto found = b.take_findings();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, "P-NO-THROW");
  EXPECT_EQ(found[0].severity, Severity::kError);
  EXPECT_NE(found[0].diagnosis.find("database engine"), std::string::npos) << found[0].diagnosis;
  EXPECT_NE(found[0].diagnosis.find("(this call: isError:true, `fts5: syntax error near \"-\"`)"), std::string::npos)
      << found[0].diagnosis;
  // The answer without isError is P-NO-THROW only: no P-ISERROR held for it.
  EXPECT_TRUE(in.finish().empty());
}

TEST(Inband, NeverForEnvironmentUserSqlOrInvalidCalls) {
  Inband in;
  Outcomes fetch = judge(in, "fetch", reply("fetch", "Error: TypeError: fetch failed", true));
  EXPECT_TRUE(ids(fetch).empty());
  const json sql = json::parse(R"({"name":"run_sql","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}})");
  const Reply r = reply("run_sql", "no such column: b", true, {{"sql", "SELECT b FROM t"}});
  Outcomes o = in.judge("run_sql", &sql, r.request["params"]["arguments"], r, true, {});
  EXPECT_TRUE(ids(o).empty());
  Outcomes inv = judge(in, "get", reply("get", "TypeError: x is not a function"), false);
  EXPECT_TRUE(ids(inv).empty());
  EXPECT_TRUE(in.finish().empty());
}

TEST(Inband, IsErrorPerToolWhenAnotherToolSetsTheFlag) {
  Inband in;
  for (int i = 0; i < 3; ++i) {
    Outcomes o = judge(in, "get_note", reply("get_note", R"({"error":"not_found"})"));
    EXPECT_TRUE(ids(o).empty()) << "held until finish()";
    EXPECT_EQ(o.status("P-ISERROR"), Status::kPassed);
  }
  Outcomes o2 = judge(in, "list", reply("list", "Error: upstream unavailable"));
  Outcomes flagged = judge(in, "fetch", reply("fetch", "Error: upstream unavailable", true));
  auto out = in.finish();
  ASSERT_EQ(out.size(), 2u);
  auto note = out["get_note"].take_findings();
  ASSERT_EQ(note.size(), 3u);
  EXPECT_EQ(note[0].invariant, "P-ISERROR");
  EXPECT_EQ(note[0].severity, Severity::kWarning);
  EXPECT_FALSE(note[0].server_level);
  EXPECT_NE(note[0].diagnosis.find("(this call: `{\"error\":\"not_found\"}`)"), std::string::npos) << note[0].diagnosis;
  EXPECT_EQ(out["list"].take_findings().size(), 1u);
}

// Pinned from real servers: error-looking answers that are not failures of the call.
TEST(Inband, IsErrorNeverForABatchOrAnErrorAskedFor) {
  Inband in;
  // server-filesystem's read_multiple_files: one section per path, each its own answer.
  judge(in, "read_multiple_files",
        reply("read_multiple_files", "a: Error - ENOENT: no such file or directory, open 'a'\n---\nb: Error - EISDIR: illegal operation on a directory, read",
              false, {{"paths", {"a", "b"}}}));
  judge(in, "read_multiple_files", reply("read_multiple_files", ": Error - EISDIR: illegal operation on a directory, read",
                                        false, {{"paths", {""}}}));
  // server-everything's get-annotated-message {messageType: "error"}: the error message it was asked for.
  judge(in, "get-annotated-message",
        reply("get-annotated-message", "Error: Operation failed", false, {{"messageType", "error"}, {"includeImage", false}}));
  EXPECT_TRUE(in.finish().empty());
}

TEST(Inband, IsErrorOnceForTheServerWhenNoToolSetsTheFlag) {
  Inband in;
  judge(in, "lookup_user", reply("lookup_user", R"({"error":"not_found"})"));
  judge(in, "lookup_user", reply("lookup_user", R"({"error":"not_found"})"));
  judge(in, "list_orders", reply("list_orders", "Error: the orders service is unavailable"));
  judge(in, "get_invoice", reply("get_invoice", R"({"success":false,"message":"invoice service unavailable"})"));
  judge(in, "get_invoice", reply("get_invoice", "Invalid arguments: id", true), false);  // an invalid call: not counted
  judge(in, "healthy", reply("healthy", "- a\n- b"));
  auto out = in.finish();
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out.count(""));
  auto fs = out[""].take_findings();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_TRUE(fs[0].server_level);
  EXPECT_EQ(fs[0].tool, "");
  EXPECT_EQ(fs[0].invariant, "P-ISERROR");
  EXPECT_NE(fs[0].diagnosis.find("3 tools answered 4 failed valid calls"), std::string::npos) << fs[0].diagnosis;
  EXPECT_NE(fs[0].diagnosis.find("(get_invoice, list_orders, lookup_user)"), std::string::npos) << fs[0].diagnosis;
  // One tool alone is that tool's finding.
  Inband one;
  judge(one, "lookup_user", reply("lookup_user", R"({"error":"not_found"})"));
  auto single = one.finish();
  ASSERT_EQ(single.size(), 1u);
  EXPECT_TRUE(single.count("lookup_user"));
}

TEST(Inband, Leaks) {
  Inband in;
  Outcomes a = judge(in, "schema", reply("schema", "Found generator schema for zzz: undefined"));
  auto fs = a.take_findings();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].invariant, "P-LEAK");
  EXPECT_EQ(fs[0].severity, Severity::kWarning);
  EXPECT_NE(fs[0].diagnosis.find("(this call: `Found generator schema for zzz: undefined`)"), std::string::npos);
  // A JSON value that is exactly a leak, in an answer that otherwise carries data.
  Outcomes b = judge(in, "item", reply("item", R"({"name":"widget","price":"NaN","tags":["a","b"]})"));
  EXPECT_EQ(ids(b), std::vector<std::string>{"P-LEAK"});
  // Prose about JavaScript in a listing is data, not a leak.
  Outcomes c = judge(in, "notes", reply("notes", "Notes (2):\n- js.md: why String({}) prints [object Object]\n- b.md: x"));
  EXPECT_TRUE(ids(c).empty());
  EXPECT_EQ(c.status("P-LEAK"), Status::kPassed);
}

// Through the judge: an answer judged by an envelope profile is never read in band.
TEST(Inband, JudgeSkipsEnvelopeAnswersAndReportsAtFinish) {
  auto ctxo = profile::load_builtin("ctxo");
  ASSERT_TRUE(ctxo.ok());
  JudgeSetup setup;
  setup.forced = &ctxo.value();
  setup.tools = {tool("find")};
  Judge judge(setup);
  const Reply r = reply("find", R"({"error":true,"message":"TypeError: x is not a function"})");
  Exchange x;
  x.tool = "find";
  x.arguments = r.request["params"]["arguments"];
  x.reply = &r;
  x.validity = Validity::kValid;
  Judged j = judge.call(x);
  for (const auto& f : j.outcomes) EXPECT_NE(f.invariant, "P-NO-THROW") << f.diagnosis;
  EXPECT_EQ(j.outcomes.status("P-ISERROR"), Status::kNotApplicable);

  JudgeSetup plain;
  plain.tools = {tool("find")};
  Judge unprofiled(plain);
  const Reply e = reply("find", "Error: upstream unavailable");
  x.reply = &e;
  Judged k = unprofiled.call(x);
  EXPECT_EQ(k.outcomes.status("P-ISERROR"), Status::kPassed);
  auto out = unprofiled.finish();
  ASSERT_TRUE(out.count("find"));
  EXPECT_EQ(out["find"].take_findings().size(), 1u);
}

}  // namespace
}  // namespace ctxo::checks
