// SPDX-License-Identifier: MIT
// Envelope checks: every per-response and across-response check stays silent on envelopes the
// truncation core builds (conformant by construction) and fires when exactly one thing is broken.
#include <gtest/gtest.h>

#include <filesystem>
#include <cstdio>
#include <fstream>
#include <set>

#include "checks/registry.h"
#include "core/cause.h"
#include "envelope_test_util.h"
#include "truncation/js_json.h"
#include "truncation/truncate.h"
#include "truncation/unicode.h"

namespace ctxo::checks {
namespace {

using namespace ctxo::checks::testing;
using truncation::to_js_json;
using V = std::vector<std::string>;

// Non-ASCII everywhere: CJK, emoji (surrogate pairs in UTF-16), combining marks.
json symbols(int n) {
  json arr = json::array();
  for (int i = 0; i < n; ++i)
    arr.push_back({{"symbolId", "src/検索/索引.ts::構築" + std::to_string(i)},
                   {"name", i % 3 == 0 ? "e\u0301cole👩‍💻" : "構築"},
                   {"file", "src/検索/索引.ts"},
                   {"line", i + 1}});
  return arr;
}

truncation::CtxoEnvelope ctxo_env(int n, std::size_t limit, int indent = -1) {
  truncation::CtxoOptions o;
  o.limit = limit;
  o.indent = indent;
  auto r = truncation::truncate_ctxo({{"importers", symbols(n)}, {"query", "構築"}}, o);
  EXPECT_TRUE(r.ok());
  return *r;
}

Call ctxo_call(std::size_t limit) {
  Call c;
  c.env["CTXO_RESPONSE_LIMIT"] = std::to_string(limit);
  return c;
}

// ----------------------------------------------------------------------------------------- ctxo

TEST(EnvelopeCtxo, ConformantUntruncatedAndTruncatedHaveNoFinding) {
  for (int indent : {-1, 2}) {
    auto full = ctxo_env(20, 1 << 20, indent);
    ASSERT_FALSE(full.truncated);
    auto o = run(full.text, ctxo_call(1 << 20));
    ASSERT_NE(o.env.profile, nullptr);
    EXPECT_EQ(o.env.profile->name, "ctxo");
    EXPECT_EQ(o.env.indent, indent);
    EXPECT_TRUE(o.findings.empty()) << o.dump();
    auto cut = ctxo_env(40, 1024, indent);
    ASSERT_TRUE(cut.truncated);
    o = run(cut.text, ctxo_call(1024));
    EXPECT_TRUE(o.findings.empty()) << o.dump();
    // Forced gives the same.
    Call c = ctxo_call(1024);
    c.forced = &prof("ctxo");
    EXPECT_TRUE(run(cut.text, c).findings.empty());
  }
}

TEST(EnvelopeCtxo, NothingFitsIsNotTrCap) {
  auto e = ctxo_env(5, 120);  // the fixed part alone is over 120 bytes: zero items, fits false
  ASSERT_FALSE(e.fits);
  auto o = run(e.text, ctxo_call(120));
  EXPECT_TRUE(o.findings.empty()) << o.dump();
}

TEST(EnvelopeCtxo, TrHintFiresWhenHintMissingOrBlank) {
  auto e = ctxo_env(40, 1024);
  json j = e.json;
  j["_meta"].erase("hint");
  EXPECT_EQ(run(to_js_json(j), ctxo_call(1024)).ids(), V{"TR-HINT"});
  j["_meta"]["hint"] = "  ";
  EXPECT_EQ(run(to_js_json(j), ctxo_call(1024)).ids(), V{"TR-HINT"});
}

TEST(EnvelopeCtxo, TrCountFiresOnWrongCountsOrFlag) {
  auto e = ctxo_env(40, 1024);
  json j = e.json;
  j["_meta"]["returnedItems"] = e.returned_items + 1;
  auto o = run(to_js_json(j), ctxo_call(1024));
  EXPECT_EQ(o.ids(), V{"TR-COUNT"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("returnedItems says " + std::to_string(e.returned_items + 1)), std::string::npos);
  j = e.json;
  j["_meta"]["truncated"] = false;
  j["_meta"].erase("hint");
  EXPECT_EQ(run(to_js_json(j), ctxo_call(1024)).ids(), V{"TR-COUNT"});
  j = e.json;
  j["_meta"]["totalItems"] = e.returned_items - 1;
  o = run(to_js_json(j), ctxo_call(1024));
  EXPECT_TRUE(o.has("TR-COUNT")) << o.dump();
}

TEST(EnvelopeCtxo, TrCapFiresWhenLimitIgnored) {
  auto full = ctxo_env(40, 1 << 20);
  auto o = run(full.text, ctxo_call(1024));
  EXPECT_EQ(o.ids(), V{"TR-CAP"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("CTXO_RESPONSE_LIMIT=1,024"), std::string::npos) << o.findings[0].diagnosis;
  // Default limit 8192 when the env var is absent or not a positive integer.
  auto big = ctxo_env(200, 1 << 20);
  ASSERT_GT(big.text.size(), 8192u);
  Call c;
  c.env["CTXO_RESPONSE_LIMIT"] = "-5";
  EXPECT_EQ(run(big.text, c).ids(), V{"TR-CAP"});
  EXPECT_EQ(run(big.text, c).env.limit, 8192);
}

TEST(EnvelopeCtxo, TrBytesFiresWhenCountingUtf16Units) {
  auto e = ctxo_env(10, 1 << 20);
  json j = e.json;
  json payload = j;
  payload.erase("_meta");
  j["_meta"]["totalBytes"] = truncation::js_json_utf16_size(payload);
  ASSERT_NE(j["_meta"]["totalBytes"], e.json["_meta"]["totalBytes"]);
  auto o = run(to_js_json(j), ctxo_call(1 << 20));
  EXPECT_EQ(o.ids(), V{"TR-BYTES"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("UTF-16"), std::string::npos);
  // Indented totals are accepted as well as compact ones.
  j = e.json;
  j["_meta"]["totalBytes"] = truncation::js_json_size(payload, 2);
  EXPECT_TRUE(run(to_js_json(j, 2), ctxo_call(1 << 20)).findings.empty());
}

TEST(EnvelopeCtxo, ESchemaFiresOnWrongType) {
  json j = ctxo_env(3, 1 << 20).json;
  j["_meta"]["totalItems"] = "3";
  auto o = run(to_js_json(j), ctxo_call(1 << 20));
  EXPECT_EQ(o.ids(), V{"E-SCHEMA"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("/_meta/totalItems"), std::string::npos) << o.findings[0].diagnosis;
}

TEST(EnvelopeCtxo, EParseFiresOnExtraTextPartOrSurroundingText) {
  auto e = ctxo_env(3, 1 << 20);
  auto o = run_parts({"warning: index is stale", e.text});
  ASSERT_NE(o.env.profile, nullptr);
  EXPECT_EQ(o.ids(), V{"E-PARSE"}) << o.dump();
  o = run("Result:\n" + e.text);
  EXPECT_EQ(o.ids(), V{"E-PARSE"}) << o.dump();
  o = run_parts({e.text, e.text});
  EXPECT_EQ(o.ids(), V{"E-PARSE"}) << o.dump();
  // Trailing whitespace is not "text after".
  EXPECT_TRUE(run(e.text + "\n").findings.empty());
}

TEST(EnvelopeAuto, PlainTextOrUnknownObjectIsNotAnEnvelope) {
  for (const char* t : {"Echo: hello", "{\"foo\": 1}", "[1,2]", "", "{not json"}) {
    auto o = run(t);
    EXPECT_EQ(o.env.profile, nullptr) << t;
    EXPECT_TRUE(o.findings.empty()) << t;
  }
  mcp::Reply err;
  err.kind = mcp::Reply::Kind::kError;
  EnvelopeInput in;
  in.candidates = &builtins();
  in.reply = &err;
  EXPECT_EQ(extract_envelope(in).profile, nullptr);
  in.reply = nullptr;
  EXPECT_EQ(extract_envelope(in).profile, nullptr);
}

TEST(EnvelopeForced, PlainTextUnderForcedProfile) {
  Call c;
  c.forced = &prof("ctxo");
  EXPECT_EQ(run("Echo: hello", c).ids(), V{"E-PARSE"});
  c.is_error = true;
  EXPECT_EQ(run("boom", c).ids(), V{"E-ERROR"});
  c.forced = &prof("truncation-info");  // isErrorText: plain-text errors are fine
  EXPECT_TRUE(run("Traceback: boom", c).findings.empty());
  c.forced = &prof("none");
  EXPECT_EQ(run("{\"_meta\":{\"totalItems\":1}}", c).env.profile, nullptr);
}

json tool(const std::string& name, std::vector<std::string> params) {
  json props = json::object();
  for (const auto& p : params) props[p] = {{"type", "string"}};
  return {{"name", name}, {"inputSchema", {{"type", "object"}, {"properties", props}}}};
}

TEST(EnvelopeHintRef, ToolAndParameterNamesMustExist) {
  Call c = ctxo_call(1 << 20);
  c.forced = &prof("ctxo");  // a miss alone is not detected: the server's success answers name it
  c.tools = {tool("search_symbols", {"query", "kind"}), tool("get_importers", {"symbolId"})};
  c.tool = &c.tools[1];
  auto miss = [](const std::string& hint) { return to_js_json(json{{"found", false}, {"hint", hint}}); };
  EXPECT_TRUE(run(miss("No symbol “構築”; try search_symbols with query=\"構築\" or kind: \"function\"."), c).findings.empty());
  EXPECT_TRUE(run(miss("Run \"ctxo index\" to build the index. Note: it takes a while. See https://x.dev/a_b?kind=1."), c).findings.empty());
  // English hyphenation, file names and path components are not tool names.
  EXPECT_TRUE(run(miss("The get-only index has no entry; see src/get_x/get_importer.ts or get_importer.md."), c).findings.empty());
  auto o = run(miss("Try search_symbol with query=\"構築\"."), c);
  EXPECT_EQ(o.ids(), V{"E-HINT-REF"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("`search_symbol`"), std::string::npos);
  o = run(miss("Try search_symbols with limit=5."), c);
  EXPECT_EQ(o.ids(), V{"E-HINT-REF"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("`limit`"), std::string::npos);
  // No tool named: the called tool's schema.
  o = run(miss("Pass depth:3 to see more."), c);
  EXPECT_EQ(o.ids(), V{"E-HINT-REF"}) << o.dump();
  EXPECT_TRUE(run(miss("Pass symbolId:\"x\"."), c).findings.empty());
  // Truncation hint on a success envelope.
  json j = ctxo_env(40, 1024).json;
  j["_meta"]["hint"] = "Use get_importer with a narrower query.";
  EXPECT_EQ(run(to_js_json(j), ctxo_call(1024)).ids(), V{}) << "no tools/list: nothing to compare";
  Call c2 = ctxo_call(1024);
  c2.tools = c.tools;
  EXPECT_EQ(run(to_js_json(j), c2).ids(), V{"E-HINT-REF"});
}

// ----------------------------------------------------------------------------------------- budget

truncation::BudgetEnvelope budget_env(std::optional<std::int64_t> tb, int n = 30) {
  truncation::BudgetOptions o;
  o.token_budget = tb;
  json refs = json::array();
  for (int i = 0; i < n; ++i)
    refs.push_back({{"file", "src/مرحبا.ts"}, {"line", i + 1}, {"col", 3}, {"snippet", "const سلام = \"👋🏽\"; // e\u0301"}});
  auto r = truncation::truncate_budget({{"references", refs}}, o);
  EXPECT_TRUE(r.ok());
  return *r;
}

Call budget_call(std::optional<std::int64_t> tb) {
  Call c;
  if (tb) c.arguments["tokenBudget"] = *tb;
  return c;
}

TEST(EnvelopeBudget, ConformantHasNoFinding) {
  for (std::optional<std::int64_t> tb : {std::optional<std::int64_t>{}, std::optional<std::int64_t>{150},
                                         std::optional<std::int64_t>{5}, std::optional<std::int64_t>{99999}}) {
    auto e = budget_env(tb);
    auto o = run(e.text, budget_call(tb));
    ASSERT_NE(o.env.profile, nullptr);
    EXPECT_EQ(o.env.profile->name, "budget");
    EXPECT_TRUE(o.findings.empty()) << (tb ? *tb : -1) << "\n" << o.dump();
  }
  ASSERT_TRUE(budget_env(150).truncated);
}

TEST(EnvelopeBudget, BUsedFires) {
  auto e = budget_env(150);
  json j = e.json;
  ASSERT_EQ(j["tokenBudget"]["requested"], 150);
  j["tokenBudget"]["used"] = 151;
  auto o = run(to_js_json(j), budget_call(150));
  EXPECT_EQ(o.ids(), V{"B-USED"}) << o.dump();
}

TEST(EnvelopeBudget, BClampFires) {
  auto e = budget_env(99999);
  json j = e.json;
  j["tokenBudget"]["requested"] = 99999;
  EXPECT_EQ(run(to_js_json(j), budget_call(99999)).ids(), V{"B-CLAMP"});
  j = e.json;
  j["tokenBudget"]["max"] = 20000;
  EXPECT_EQ(run(to_js_json(j), budget_call(99999)).ids(), V{"B-CLAMP"});
  // Absent argument: the default.
  auto d = budget_env(std::nullopt);
  j = d.json;
  j["tokenBudget"]["requested"] = 2500;
  EXPECT_EQ(run(to_js_json(j), budget_call(std::nullopt)).ids(), V{"B-CLAMP"});
}

TEST(EnvelopeBudget, BEstimateFiresWhenCountingBytes) {
  truncation::BudgetOptions bo;
  json refs = json::array();
  for (int i = 0; i < 10; ++i) refs.push_back({{"file", "src/a.ts"}, {"line", i + 1}, {"snippet", "名前は長い説明です、検索する構築"}});
  auto e = *truncation::truncate_budget({{"references", refs}}, bo);
  ASSERT_FALSE(e.truncated);
  json j = e.json;
  auto bytes = static_cast<std::int64_t>(e.text.size());
  j["tokenBudget"]["used"] = (bytes + 3) / 4;  // bytes, not UTF-16 units: Arabic + emoji inflate it
  auto o = run(to_js_json(j), budget_call(std::nullopt));
  EXPECT_EQ(o.ids(), V{"B-ESTIMATE"}) << o.dump();
}

TEST(EnvelopeBudget, TrCountAndTrHintOnDroppedMismatch) {
  json j = budget_env(150).json;
  j["truncated"] = false;
  auto o = run(to_js_json(j), budget_call(150));
  EXPECT_EQ(o.ids(), V{"TR-COUNT"}) << o.dump();
  j = budget_env(150).json;
  j["dropped"]["count"] = 0;
  o = run(to_js_json(j), budget_call(150));
  EXPECT_EQ(o.ids(), V{"TR-COUNT"}) << o.dump();
  j = budget_env(150).json;
  j["dropped"]["note"] = "";
  o = run(to_js_json(j), budget_call(150));
  EXPECT_TRUE(o.has("TR-HINT")) << o.dump();
}

TEST(EnvelopeBudget, TokenOverspendIsBUsedNotTrCap) {
  auto big = budget_env(5000, 30);
  ASSERT_FALSE(big.truncated);
  json j = big.json;
  j["tokenBudget"]["requested"] = 150;
  // Claims the budget of 150 but sends the whole list; used is honest. For token budgets B-USED
  // (and B-ESTIMATE) say whether the envelope kept to the budget; TR-CAP would only repeat it.
  auto o = run(to_js_json(j), budget_call(150));
  EXPECT_EQ(o.ids(), V{"B-USED"}) << o.dump();
}

TEST(EnvelopeBudget, BUsedComparesWithTheClampedArgumentNotAMisreportedRequested) {
  auto env = budget_env(100, 30);  // conformant for tokenBudget=20, which clamps to 100
  json j = env.json;
  j["tokenBudget"]["requested"] = 20;  // misreported (unclamped 20 would be below the minimum 100)
  auto o = run(to_js_json(j), budget_call(20));
  EXPECT_EQ(o.ids(), V{"B-CLAMP"}) << o.dump();
}

TEST(EnvelopeBudget, EErrorOnCodeOutsideTheSet) {
  json err = {{"ok", false},
              {"error", {{"code", "NODE_NOT_FOUND"}, {"message", "no node"}, {"hint", "Use nav_search."}}},
              {"tokenBudget", {{"requested", 2000}, {"used", 20}, {"max", 10000}}},
              {"truncated", false},
              {"warnings", json::array()}};
  err["tokenBudget"]["used"] = (truncation::utf16_length(to_js_json(err)) + 3) / 4;
  auto o = run(to_js_json(err));
  EXPECT_TRUE(o.findings.empty()) << o.dump();
  err["error"]["code"] = "NOT_THERE";
  o = run(to_js_json(err));
  EXPECT_EQ(o.ids(), V{"E-ERROR"}) << o.dump();
}

// ----------------------------------------------------------------------------------------- meta

truncation::MetaEnvelope meta_env(json data, std::size_t limit,
                                  std::string hint = "tool list --limit {returned} --cursor abc{returned}") {
  truncation::MetaOptions o;
  o.limit = limit;
  o.hint_template = std::move(hint);
  auto r = truncation::truncate_meta({{"data", std::move(data)}}, o);
  EXPECT_TRUE(r.ok());
  return *r;
}

TEST(EnvelopeMeta, ConformantArrayAndStringHaveNoFinding) {
  Call c;
  c.env["TOOL_MAX_OUTPUT_BYTES"] = "700";
  c.tools = {tool("list_items", {"limit", "cursor"})};
  c.tool = &c.tools[0];
  auto e = meta_env(symbols(30), 700);
  ASSERT_TRUE(e.truncated);
  auto o = run(e.text, c);
  ASSERT_NE(o.env.profile, nullptr);
  EXPECT_EQ(o.env.profile->name, "meta");
  EXPECT_TRUE(o.findings.empty()) << o.dump();
  std::string s;
  for (int i = 0; i < 200; ++i) s += "文字👍e\u0301";
  e = meta_env(s, 700);
  ASSERT_TRUE(e.truncated);
  o = run(e.text, c);
  EXPECT_TRUE(o.findings.empty()) << o.dump();
  e = meta_env(symbols(2), 700);
  ASSERT_FALSE(e.truncated);
  EXPECT_TRUE(run(e.text, c).findings.empty());
}

TEST(EnvelopeMeta, CommandHintNeedsCursorAndKnownFlags) {
  Call c;
  c.env["TOOL_MAX_OUTPUT_BYTES"] = "700";
  c.tools = {tool("list_items", {"limit", "cursor"})};
  c.tool = &c.tools[0];
  auto o = run(meta_env(symbols(30), 700, "tool list --limit {returned}").text, c);
  EXPECT_EQ(o.ids(), V{"E-HINT-REF"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("--cursor"), std::string::npos);
  o = run(meta_env(symbols(30), 700, "tool list --offset {returned} --cursor x").text, c);
  EXPECT_EQ(o.ids(), V{"E-HINT-REF"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("`offset`"), std::string::npos);
}

TEST(EnvelopeMeta, TrCountOnStringCounts) {
  std::string s;
  for (int i = 0; i < 200; ++i) s += "文字👍";
  json j = meta_env(s, 700).json;
  j["meta"]["returned_count"] = j["meta"]["returned_count"].get<int>() * 2;  // counted UTF-16 units, say
  Call c;
  c.env["TOOL_MAX_OUTPUT_BYTES"] = "700";
  auto o = run(to_js_json(j), c);
  EXPECT_TRUE(o.has("TR-COUNT")) << o.dump();
}

// ----------------------------------------------------------------------------------------- truncation-info

truncation::TruncationInfoEnvelope ti_env(int n, std::size_t limit, std::size_t content_chars = 40) {
  json results = json::array();
  for (int i = 0; i < n; ++i) {
    std::string content;
    const std::string unit = "長い説明🚀ग्रंथ ";
    for (std::size_t k = 0, per = truncation::code_points(unit); k * per < content_chars; ++k) content += unit;
    results.push_back({{"file_path", "docs/日本語/説明" + std::to_string(i) + ".md"}, {"content", content},
                       {"start_line", 1}, {"similarity_score", 0.5}});
  }
  truncation::TruncationInfoOptions o;
  o.character_limit = limit;
  o.measure = truncation::Measure::kCodePoints;
  auto r = truncation::truncate_truncation_info({{"results", results}, {"query", "説明"}}, o);
  EXPECT_TRUE(r.ok());
  return *r;
}

TEST(EnvelopeTruncationInfo, ConformantHasNoFinding) {
  for (auto [n, limit] : {std::pair{5, 100000}, std::pair{50, 3000}}) {
    auto e = ti_env(n, static_cast<std::size_t>(limit));
    auto o = run(e.text);
    ASSERT_NE(o.env.profile, nullptr);
    EXPECT_EQ(o.env.profile->name, "truncation-info");
    EXPECT_TRUE(o.findings.empty()) << o.dump();
  }
  // One result over the whole limit: sent anyway with reason single_result_too_large.
  auto e = ti_env(2, 100000, 130000);
  ASSERT_EQ(e.reason, "single_result_too_large");
  auto o = run(e.text);
  EXPECT_TRUE(o.findings.empty()) << o.dump();
}

TEST(EnvelopeTruncationInfo, TrCountAndTrHint) {
  json j = ti_env(50, 3000).json;
  ASSERT_TRUE(j["truncated"].get<bool>());
  j["returned_count"] = j["returned_count"].get<int>() + 1;
  auto o = run(to_js_json(j));
  EXPECT_TRUE(o.has("TR-COUNT")) << o.dump();
  j = ti_env(50, 3000).json;
  j["truncation_info"]["reason"] = nullptr;
  o = run(to_js_json(j));
  EXPECT_TRUE(o.has("TR-HINT")) << o.dump();
  // Over the 100000-character limit with many results: TR-CAP.
  auto big = ti_env(40, 1000000, 3000);
  o = run(big.text);
  EXPECT_EQ(o.ids(), V{"TR-CAP"}) << o.dump();
}

// ----------------------------------------------------------------------------------------- positions

class EnvelopePositions : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("ctxo-env-pos-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(root_ / "src");
    std::ofstream(root_ / "src" / "a.ts", std::ios::binary)
        << "// 👋🏽 héllo\r\nconst 名前 = \"👩‍💻\"; build(x);\n\tlet y = build(z);\n";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  Outcome check(json anchor, json arguments = json::object()) {
    json refs = json::array({anchor});
    json e = {{"ok", true}, {"data", {{"references", refs}}}, {"tokenBudget", {{"requested", 2000}, {"used", 0}, {"max", 10000}}},
              {"truncated", false}, {"warnings", json::array()}};
    for (int i = 0; i < 3; ++i) e["tokenBudget"]["used"] = (truncation::utf16_length(to_js_json(e)) + 3) / 4;
    Call c;
    c.root = root_.string();
    c.arguments = std::move(arguments);
    return run(to_js_json(e), c);
  }
  std::filesystem::path root_;
};

TEST_F(EnvelopePositions, CorrectUtf16AnchorsHaveNoFinding) {
  // Line 2: `const 名前 = "👩‍💻"; build(x);` — "build" at UTF-16 column 21 (code points 19, bytes 31).
  EXPECT_TRUE(check({{"file", "src/a.ts"}, {"line", 2}, {"col", 21}, {"snippet", "build(x)"}}).findings.empty());
  EXPECT_TRUE(check({{"file", "src/a.ts"}, {"line", 2}, {"col", 1}, {"snippet", "const 名前"}}).findings.empty());
  // Whole-line snippet with a symbol column; col = len + 1 (end of line); no column at all.
  EXPECT_TRUE(check({{"path", "src/a.ts"}, {"startLine", 3}, {"character", 10}, {"lineText", "\tlet y = build(z);"}}).findings.empty());
  EXPECT_TRUE(check({{"file", "src/a.ts"}, {"line", 1}, {"col", 14}}).findings.empty());
  EXPECT_TRUE(check({{"file", "src/a.ts"}, {"line", 3}, {"snippet", "let y"}}).findings.empty());
  EXPECT_TRUE(check({{"uri", "file:///abs/a.ts"}, {"line", 3}}).findings.empty());
}

TEST_F(EnvelopePositions, ColumnsInBytesOrCodePointsAreNamed) {
  auto o = check({{"file", "src/a.ts"}, {"line", 2}, {"col", 31}, {"snippet", "build(x)"}});
  ASSERT_EQ(o.ids(), V{"POS-UTF16"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("UTF-8 bytes"), std::string::npos) << o.dump();
  o = check({{"file", "src/a.ts"}, {"line", 2}, {"col", 19}, {"snippet", "build(x)"}});
  ASSERT_EQ(o.ids(), V{"POS-UTF16"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("code points"), std::string::npos) << o.dump();
  // Right once read 0-based: that breaks the 1-based rule, so it is POS-BASE, with the reading.
  o = check({{"file", "src/a.ts"}, {"line", 1}, {"col", 21}, {"snippet", "build(x)"}});
  ASSERT_EQ(o.ids(), V{"POS-BASE"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("0-based lines"), std::string::npos) << o.dump();
  // Past the end of the line (bytes), past the end of the file, inside a surrogate pair.
  o = check({{"file", "src/a.ts"}, {"line", 1}, {"col", 19}});
  ASSERT_EQ(o.ids(), V{"POS-UTF16"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("bytes"), std::string::npos) << o.dump();
  EXPECT_EQ(check({{"file", "src/a.ts"}, {"line", 9}}).ids(), V{"POS-UTF16"});
  EXPECT_EQ(check({{"file", "src/a.ts"}, {"line", 1}, {"col", 5}}).ids(), V{"POS-UTF16"});
  EXPECT_EQ(check({{"file", "src/missing.ts"}, {"line", 1}}).ids(), V{"POS-UTF16"});
}

// The snippet is the whole line (or there is none): the column is judged by the name the anchor
// is about, its own or the one the call asked for, when a counting other than UTF-16 explains it.
TEST_F(EnvelopePositions, AWholeLineSnippetIsJudgedByTheNameAskedAbout) {
  const std::string line2 = "const 名前 = \"👩‍💻\"; build(x);";
  const json asked = {{"query", "build"}};
  EXPECT_TRUE(check({{"file", "src/a.ts"}, {"line", 2}, {"col", 21}, {"snippet", line2}}, asked).findings.empty());
  auto o = check({{"file", "src/a.ts"}, {"line", 2}, {"col", 19}, {"snippet", line2}}, asked);
  ASSERT_EQ(o.ids(), V{"POS-UTF16"}) << o.dump();
  EXPECT_EQ(o.findings[0].cause.at("form"), "name-not-at-position") << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("`build` is there if the server counted columns in code points"),
            std::string::npos) << o.dump();
  // Its own name, no snippet, bytes.
  o = check({{"file", "src/a.ts"}, {"line", 2}, {"col", 31}, {"name", "build"}});
  ASSERT_EQ(o.ids(), V{"POS-UTF16"}) << o.dump();
  EXPECT_NE(o.findings[0].diagnosis.find("UTF-8 bytes"), std::string::npos) << o.dump();
  // Silent: no name to go by, a name not on the line, no counting that explains the column.
  EXPECT_TRUE(check({{"file", "src/a.ts"}, {"line", 2}, {"col", 19}, {"snippet", line2}}).findings.empty());
  EXPECT_TRUE(check({{"file", "src/a.ts"}, {"line", 2}, {"col", 19}, {"snippet", line2}}, json{{"query", "other"}}).findings.empty());
  EXPECT_TRUE(check({{"file", "src/a.ts"}, {"line", 2}, {"col", 3}, {"snippet", line2}}, asked).findings.empty());
}

TEST_F(EnvelopePositions, BaseAndPath) {
  EXPECT_EQ(check({{"file", "src/a.ts"}, {"line", 0}, {"col", 1}}).ids(), V{"POS-BASE"});
  EXPECT_EQ(check({{"file", "src/a.ts"}, {"line", 2}, {"col", 0}}).ids(), V{"POS-BASE"});
  EXPECT_EQ(check({{"file", "src/a.ts"}, {"line", 2}, {"endLine", 1}}).ids(), V{"POS-BASE"});
  EXPECT_EQ(check({{"file", "/repo/src/a.ts"}, {"line", 2}}).ids(), V{"POS-PATH"});
  EXPECT_EQ(check({{"file", "src\\a.ts"}, {"line", 2}}).ids(), V{"POS-PATH"});
  EXPECT_EQ(check({{"file", "C:/src/a.ts"}, {"line", 2}}).ids(), V{"POS-PATH"});
  EXPECT_EQ(check({{"filePath", "src/../../etc/passwd"}, {"lineNumber", 2}}).ids(), V{"POS-PATH"});
}

TEST(FindAnchors, FindsNestedAnchors) {
  json j = {{"a", {{"file", "x"}, {"line", 1}}}, {"b", json::array({1, {{"uri", "u"}, {"startLine", 2}}})},
            {"c", {{"file", "x"}}}, {"d", {{"file", 3}, {"line", 1}}}};
  EXPECT_EQ(find_anchors(j), (V{"/a", "/b/1"}));
}

// ----------------------------------------------------------------------------------------- across

ParsedEnvelope parsed(const std::string& text, const Call& c = {}) { return run(text, c).env; }

TEST(EnvelopeStable, SameAnswerTwice) {
  auto e = ctxo_env(40, 1024);
  EXPECT_TRUE(check_stable(parsed(e.text), parsed(e.text)).empty());
  json j = e.json;
  j["importers"][0]["line"] = 99;
  EXPECT_EQ(run("x").ids(), V{});
  auto f = check_stable(parsed(e.text), parsed(to_js_json(j)));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].invariant, "E-STABLE");
  EXPECT_NE(f[0].diagnosis.find("/importers/0/line"), std::string::npos) << f[0].diagnosis;
  j = e.json;
  j["_meta"]["hint"] = "Different words.";
  f = check_stable(parsed(e.text), parsed(to_js_json(j)));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].diagnosis.find("hint"), std::string::npos);
  // Warnings and timings may differ; non-stable (command) hints too.
  json b = budget_env(150).json;
  json b2 = b;
  b2["warnings"] = {"index refreshed"};
  b2["data"]["elapsedMs"] = 12;
  EXPECT_TRUE(check_stable(parsed(to_js_json(b), budget_call(150)), parsed(to_js_json(b2), budget_call(150))).empty());
  auto m1 = meta_env(symbols(30), 700, "tool list --cursor A");
  auto m2 = meta_env(symbols(30), 700, "tool list --cursor B");
  EXPECT_TRUE(check_stable(parsed(m1.text), parsed(m2.text)).empty());
}

TEST(EnvelopeMiss, GracefulMissOrMissCode) {
  // ctxo's miss and error say nothing distinctive: the server's success answers named the profile.
  Call ctxo;
  ctxo.forced = &prof("ctxo");
  auto miss = reply_of({"{\"found\":false,\"hint\":\"No such symbol.\"}"});
  EXPECT_TRUE(check_miss(parsed("{\"found\":false,\"hint\":\"No such symbol.\"}", ctxo), miss).empty());
  std::string ctxo_err = "{\"error\":true,\"message\":\"not found\"}";
  auto f = check_miss(parsed(ctxo_err, ctxo), reply_of({ctxo_err}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].invariant, "E-MISS");
  json be = {{"ok", false}, {"error", {{"code", "NODE_NOT_FOUND"}, {"message", "no"}}},
             {"tokenBudget", {{"requested", 2000}, {"used", 20}, {"max", 10000}}}, {"truncated", false}, {"warnings", json::array()}};
  EXPECT_TRUE(check_miss(parsed(be.dump()), reply_of({be.dump()})).empty());
  be["error"]["code"] = "INTERNAL";
  EXPECT_EQ(check_miss(parsed(be.dump()), reply_of({be.dump()})).size(), 1u);
  Call c;
  c.forced = &prof("budget");
  c.is_error = true;
  EXPECT_EQ(check_miss(parsed("boom", c), reply_of({"boom"}, true)).size(), 1u);
  // A success (empty results) is accepted.
  auto ok = ti_env(0, 100000);
  EXPECT_TRUE(check_miss(parsed(ok.text), reply_of({ok.text})).empty());
}

SweepPoint point(std::int64_t limit, bool is_default, const std::string& text, const std::string& var = "CTXO_RESPONSE_LIMIT") {
  Call c;
  c.env[var] = std::to_string(limit);
  return {limit, is_default, parsed(text, c)};
}

TEST(EnvelopeSweep, ConformantCtxoSweepHasNoFinding) {
  for (int n : {3, 60}) {
    std::vector<SweepPoint> pts = {point(512, false, ctxo_env(n, 512).text), point(2048, true, ctxo_env(n, 2048).text),
                                   point(1 << 20, false, ctxo_env(n, 1 << 20).text)};
    std::vector<Superseded> env_limits;
    auto f = check_sweep(pts, &env_limits);
    EXPECT_TRUE(f.empty()) << n << " " << (f.empty() ? "" : f[0].invariant + ": " + f[0].diagnosis);
    EXPECT_TRUE(env_limits.empty());
  }
}

TEST(EnvelopeSweep, ConformantMetaSweepHasNoFinding) {
  std::string s;
  for (int i = 0; i < 300; ++i) s += "文字👍e\u0301";
  for (const json& data : {symbols(60), json(s)}) {
    std::vector<SweepPoint> pts;
    for (std::int64_t l : {1024, 4096, 1 << 22})
      pts.push_back(point(l, l == 4096, meta_env(data, static_cast<std::size_t>(l)).text, "TOOL_MAX_OUTPUT_BYTES"));
    auto f = check_sweep(pts, nullptr);
    EXPECT_TRUE(f.empty()) << (f.empty() ? "" : f[0].invariant + ": " + f[0].diagnosis);
  }
}

// The ids the sweep reports; `lim` receives the limits whose TR-CAP a TR-ENV superseded.
std::vector<std::string> sweep_ids(const std::vector<SweepPoint>& pts, std::vector<std::int64_t>* lim = nullptr) {
  std::vector<std::string> v;
  std::vector<Superseded> gone;
  for (const auto& f : check_sweep(pts, &gone)) v.push_back(f.invariant);
  if (lim)
    for (const auto& g : gone)
      if (g.invariant == "TR-CAP") lim->push_back(g.limit);
  return v;
}

TEST(EnvelopeSweep, TrEnvWhenOverrideIgnored) {
  auto def = ctxo_env(60, 2048).text;
  std::vector<std::int64_t> lim;
  EXPECT_EQ(sweep_ids({point(512, false, def), point(2048, true, def), point(1 << 20, false, ctxo_env(60, 1 << 20).text)}, &lim),
            V{"TR-ENV"});
  EXPECT_EQ(lim, std::vector<std::int64_t>{512});
  // Large limit ignored (the default answer was truncated): TR-ENV, then the full payload is truncated.
  lim.clear();
  EXPECT_EQ(sweep_ids({point(512, false, ctxo_env(60, 512).text), point(2048, true, def), point(1 << 20, false, def)}, &lim),
            V{"TR-ENV"});
  EXPECT_EQ(lim, std::vector<std::int64_t>{1 << 20});
}

// TR-ENV needs evidence that the variable was not read: an answer whose payload fits the small
// limit without its _meta (the limit measured before _meta was added), or one already cut to a
// single item, is over the limit for a reason TR-CAP names, not TR-ENV.
TEST(EnvelopeSweep, NoTrEnvWithoutEvidenceTheVariableWasIgnored) {
  auto one = ctxo_env(1, 1 << 20).text;  // one item, untruncated
  ASSERT_GT(one.size(), 100u);
  std::vector<std::int64_t> lim;
  EXPECT_EQ(sweep_ids({point(100, false, one), point(2048, true, one), point(1 << 20, false, one)}, &lim), V{});
  EXPECT_TRUE(lim.empty());
  // The payload alone fits 2048 - 40; only the _meta pushes it over.
  json j = ctxo_env(60, 2048).json;
  std::int64_t small = static_cast<std::int64_t>(to_js_json(j).size()) - 10;
  EXPECT_EQ(sweep_ids({point(small, false, to_js_json(j)), point(2048, true, to_js_json(j)),
                       point(1 << 20, false, ctxo_env(60, 1 << 20).text)}, &lim),
            V{});
  // Cut by an item count, not by the limit: its totalBytes fits the default limit, so a larger
  // limit changing nothing is no evidence (a search tool's default `limit: 20`).
  json counted = ctxo_env(60, 1 << 20).json;
  counted["_meta"]["truncated"] = true;
  counted["_meta"]["hint"] = "raise limit";
  ASSERT_LE(counted["_meta"]["totalBytes"].get<std::int64_t>(), 1 << 20);
  EXPECT_EQ(sweep_ids({point(1 << 20, true, to_js_json(counted)), point(1 << 22, false, to_js_json(counted))}), V{});
  // The same answer cut under a default limit its payload does not fit: TR-ENV.
  EXPECT_EQ(sweep_ids({point(512, true, to_js_json(counted)), point(1 << 22, false, to_js_json(counted))}), V{"TR-ENV"});
}

// Silent omission: an answer that says it is whole, while the large limit returns more items, is
// TR-COUNT "silently dropped" (the root cause); its TR-BYTES is superseded.
TEST(EnvelopeSweep, SilentOmissionIsTrCountAndSupersedesTrBytes) {
  json j = ctxo_env(60, 2048).json;
  ASSERT_TRUE(j["_meta"]["truncated"].get<bool>());
  j["_meta"]["truncated"] = false;
  j["_meta"]["totalItems"] = j["_meta"]["returnedItems"];
  j["_meta"].erase("hint");
  std::vector<Superseded> gone;
  auto f = check_sweep({point(2048, true, to_js_json(j)), point(1 << 20, false, ctxo_env(60, 1 << 20).text)}, &gone);
  ASSERT_EQ(f.size(), 1u) << f[0].diagnosis;
  EXPECT_EQ(f[0].invariant, "TR-COUNT");
  EXPECT_NE(f[0].diagnosis.find("silently dropped"), std::string::npos);
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].invariant, "TR-BYTES");
  EXPECT_EQ(gone[0].limit, 2048);
}

TEST(EnvelopeSweep, TrPrefixMaximalVerbatimBytes) {
  auto full = ctxo_env(60, 1 << 20).text;
  auto def = ctxo_env(60, 2048).text;
  // Not a prefix: the first item replaced.
  json j = ctxo_env(60, 512).json;
  ASSERT_GT(j["importers"].size(), 0u);
  j["importers"][0] = symbols(61)[60];
  EXPECT_EQ(sweep_ids({point(512, false, to_js_json(j)), point(2048, true, def), point(1 << 20, false, full)}), V{"TR-PREFIX"});
  // Not maximal: the answer for 1500 bytes sent under 2048.
  auto fewer = ctxo_env(60, 1500);
  ASSERT_LT(fewer.returned_items, ctxo_env(60, 2048).returned_items);
  EXPECT_EQ(sweep_ids({point(512, false, ctxo_env(60, 512).text), point(2048, true, fewer.text), point(1 << 20, false, full)}),
            V{"TR-MAXIMAL"});
  // Verbatim: the whole payload fits 8192 but the answer is truncated.
  auto small_full = ctxo_env(5, 1 << 20).text;
  ASSERT_LT(small_full.size(), 8192u);
  EXPECT_EQ(sweep_ids({point(8192, true, ctxo_env(5, 600).text), point(1 << 20, false, small_full)}), V{"TR-VERBATIM"});
  // totalBytes of a truncated answer counts UTF-16 units.
  j = ctxo_env(60, 2048).json;
  json payload = json::parse(full);
  payload.erase("_meta");
  j["_meta"]["totalBytes"] = truncation::js_json_utf16_size(payload);
  EXPECT_EQ(sweep_ids({point(2048, true, to_js_json(j)), point(1 << 20, false, full)}), V{"TR-BYTES"});
}

// ----------------------------------------------------------------------------------------- goldens

TEST(EnvelopeGoldens, ValidGoldensHaveNoFindingButLimitDependentOnes) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(CTXO_SOURCE_DIR) / "corpus" / "envelopes" / "valid";
  int seen = 0;
  for (const auto& pdir : fs::directory_iterator(dir)) {
    for (const auto& f : fs::directory_iterator(pdir.path())) {
      if (f.path().extension() != ".json") continue;
      std::ifstream in(f.path(), std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), {});
      Call c;
      c.forced = &prof(pdir.path().filename().string());
      // The call that produced a budget golden asked for the budget it reports.
      json g = json::parse(text, nullptr, false);
      if (g.is_object() && g.contains("tokenBudget") && g["tokenBudget"].contains("requested"))
        c.arguments["tokenBudget"] = g["tokenBudget"]["requested"];
      auto o = run(text, c);
      ++seen;
      ASSERT_NE(o.env.profile, nullptr) << f.path();
      for (const auto& fd : o.findings) {
        std::printf("golden %s: %s: %s\n", f.path().filename().c_str(), fd.invariant.c_str(), fd.diagnosis.c_str());
        // Goldens are hand-written shapes, not answers measured under a limit: their sizes
        // (totalBytes, tokenBudget.used) are illustrative. Only size-dependent checks may fire.
        EXPECT_TRUE(fd.invariant == "TR-BYTES" || fd.invariant == "B-ESTIMATE" || fd.invariant == "TR-CAP")
            << f.path() << ": " << fd.invariant << ": " << fd.diagnosis;
      }
      // Auto detection finds the same profile on success answers; error and miss answers are
      // found only when they carry the profile's distinctive fields, and never as another one.
      auto a = run(text);
      if (f.path().filename().string().rfind("success_", 0) == 0) {
        ASSERT_NE(a.env.profile, nullptr) << f.path();
      }
      if (a.env.profile) {
        EXPECT_EQ(a.env.profile->name, pdir.path().filename().string()) << f.path();
      }
    }
  }
  EXPECT_GE(seen, 15);
}

// ---------------------------------------------------------------------------------- TR-RESUME

namespace resume {

// A meta server's pages over `all`: page from `offset`, cut at `limit`, with a cursor hint.
truncation::MetaEnvelope page(const json& all, std::size_t offset, std::size_t limit) {
  json rest = json::array();
  for (std::size_t i = offset; i < all.size(); ++i) rest.push_back(all[i]);
  return meta_env(rest, limit, "list_items --cursor " + std::to_string(offset) + "+{returned} --limit 50.");
}

Call list_call(std::size_t limit) {
  Call c;
  c.env["TOOL_MAX_OUTPUT_BYTES"] = std::to_string(limit);
  c.tools = {tool("list_items", {"limit", "cursor"})};
  c.tool = &c.tools[0];
  return c;
}

// Follows the hints the way the engine does, with `shift` items of overlap (negative) or gap.
std::vector<ParsedEnvelope> follow(const json& all, std::size_t limit, int shift) {
  Call c = list_call(limit);
  std::vector<ParsedEnvelope> pages = {parsed(page(all, 0, limit).text, c)};
  json args = json::object();
  std::size_t offset = 0;
  for (int guard = 0; guard < 100; ++guard) {
    auto next = resume_arguments(pages.back(), c.tools[0], args);
    if (!next) break;
    // The cursor is "<offset>+<returned>": the next page starts at their sum (plus the shift).
    std::string cur = (*next)["cursor"].get<std::string>();
    auto plus = cur.find('+');
    offset = std::stoul(cur.substr(0, plus)) + std::stoul(cur.substr(plus + 1));
    offset = static_cast<std::size_t>(static_cast<long>(offset) + shift);
    args = *next;
    pages.push_back(parsed(page(all, offset, limit).text, c));
  }
  return pages;
}

TEST(EnvelopeResume, ArgumentsComeFromTheCommandHintMappedOntoTheSchema) {
  Call c = list_call(700);
  auto first = parsed(page(symbols(30), 0, 700).text, c);
  auto next = resume_arguments(first, c.tools[0], json{{"limit", 5}});
  ASSERT_TRUE(next.has_value());
  EXPECT_TRUE((*next)["cursor"].is_string());
  EXPECT_EQ((*next)["limit"], "50");  // the schema says string here; the trailing '.' is dropped
  // Untruncated: nothing to resume.
  EXPECT_FALSE(resume_arguments(parsed(page(symbols(2), 0, 700).text, c), c.tools[0], json::object()));
  // A hint for another tool is not a resume of this one.
  Call other = list_call(700);
  other.tools = {tool("records_get", {"id"})};
  EXPECT_FALSE(resume_arguments(first, other.tools[0], json::object()));
}

TEST(EnvelopeResume, CursorFieldIsFollowed) {
  ParsedEnvelope e = parsed(page(symbols(30), 0, 700).text, list_call(700));
  e.envelope["meta"]["nextCursor"] = "opaque-7";
  auto next = resume_arguments(e, tool("list_items", {"cursor"}), json::object());
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ((*next)["cursor"], "opaque-7");
}

TEST(EnvelopeResume, ContiguousPagesRebuildTheArray) {
  json all = symbols(40);
  auto pages = follow(all, 700, 0);
  ASSERT_GE(pages.size(), 3u);
  EXPECT_TRUE(check_resume(pages, &all).empty());
  EXPECT_TRUE(check_resume(pages, nullptr).empty());
}

TEST(EnvelopeResume, OverlapAndGapAreNamed) {
  json all = symbols(40);
  auto overlap = check_resume(follow(all, 700, -1), &all);
  ASSERT_EQ(overlap.size(), 1u);
  EXPECT_EQ(overlap[0].invariant, "TR-RESUME");
  EXPECT_NE(overlap[0].diagnosis.find("overlap"), std::string::npos) << overlap[0].diagnosis;
  auto gap = check_resume(follow(all, 700, 2), &all);
  ASSERT_EQ(gap.size(), 1u);
  EXPECT_NE(gap[0].diagnosis.find("skipped"), std::string::npos) << gap[0].diagnosis;
  // Without the full array an overlap is still visible.
  auto blind = check_resume(follow(all, 700, -1), nullptr);
  ASSERT_EQ(blind.size(), 1u);
  EXPECT_NE(blind[0].diagnosis.find("overlap"), std::string::npos);
}

// A hint that is the next page of a listing may continue beyond the items of the original call
// (its full array): only the positions the full array has are compared (class 4).
TEST(EnvelopeResume, PagesMayContinuePastTheOriginalCallsItems) {
  json all = symbols(40);
  json first20 = json::array();
  for (std::size_t i = 0; i < 20; ++i) first20.push_back(all[i]);
  auto pages = follow(all, 700, 0);
  auto o = check_resume(pages, &first20);
  EXPECT_TRUE(o.empty()) << o[0].diagnosis;
  EXPECT_EQ(o.status("TR-RESUME"), Status::kPassed);
  // A gap inside the compared positions is still one.
  EXPECT_EQ(check_resume(follow(all, 700, 2), &first20).size(), 1u);
}

}  // namespace resume

// ----------------------------------------------------------------------------------------- causes

// Issue 30: a finding's cause names the defect, not the values the answer held, so one defect is
// one finding (and one SARIF fingerprint) whatever the counts, and two defects are two.
TEST(EnvelopeCauses, OneDefectIsOneCauseWhateverTheValues) {
  auto a = ctxo_env(40, 1024), b = ctxo_env(60, 2048);
  json ja = a.json, jb = b.json;
  ja["_meta"]["returnedItems"] = a.returned_items + 1;
  jb["_meta"]["returnedItems"] = b.returned_items + 5;
  auto oa = run(to_js_json(ja), ctxo_call(1024)), ob = run(to_js_json(jb), ctxo_call(2048));
  ASSERT_EQ(oa.ids(), V{"TR-COUNT"}) << oa.dump();
  ASSERT_EQ(ob.ids(), V{"TR-COUNT"}) << ob.dump();
  EXPECT_NE(oa.findings[0].diagnosis, ob.findings[0].diagnosis);
  EXPECT_EQ(oa.findings[0].cause, ob.findings[0].cause);
  // Another count broken: another cause.
  json jt = a.json;
  jt["_meta"]["totalItems"] = a.returned_items - 1;
  auto ot = run(to_js_json(jt), ctxo_call(1024));
  ASSERT_TRUE(ot.has("TR-COUNT")) << ot.dump();
  for (const auto& f : ot.findings) EXPECT_NE(f.cause, oa.findings[0].cause) << f.diagnosis;
  // E-SCHEMA: the same field holding another wrong value is the same cause.
  json s1 = ctxo_env(3, 1 << 20).json, s2 = ctxo_env(7, 1 << 20).json;
  s1["_meta"]["totalItems"] = "3";
  s2["_meta"]["totalItems"] = "seven items";
  auto e1 = run(to_js_json(s1), ctxo_call(1 << 20)), e2 = run(to_js_json(s2), ctxo_call(1 << 20));
  ASSERT_EQ(e1.ids(), V{"E-SCHEMA"}) << e1.dump();
  ASSERT_EQ(e2.ids(), V{"E-SCHEMA"}) << e2.dump();
  EXPECT_EQ(e1.findings[0].cause, e2.findings[0].cause);
  EXPECT_NE(e1.findings[0].cause.at("rules").find("/_meta/totalItems"), std::string::npos);
}

// Array indices in a path are one cause: the same field of every item.
TEST(EnvelopeCauses, PathShapeBlanksArrayIndicesOnly) {
  EXPECT_EQ(path_shape("/data/references/12/line"), "/data/references/*/line");
  EXPECT_EQ(path_shape("results[3].line"), "results[*].line");
  EXPECT_EQ(path_shape("/v2/items/0"), "/v2/items/*");
  EXPECT_EQ(path_shape("/a1/b"), "/a1/b");  // a name with digits is a name
  EXPECT_EQ(digits_blanked("at 12 of 345 (x9)"), "at # of # (x#)");
}

// Every envelope, truncation, budget and position invariant is made by a check that names its
// cause: the per-answer ones by check_envelope (every test above runs it through run_parts, which
// fails on a finding without a cause), the ones made from several answers by check_stable,
// check_miss, check_sweep and check_resume (asserted end to end by integration_envelope_test and
// integration_causes_test on the reference server, whose findings' causes are checked to be facts).
// A new invariant of these families must be placed in one of the two lists.
TEST(EnvelopeCauses, EveryEnvelopeInvariantIsMadeByACheckThatNamesItsCause) {
  const std::set<std::string> per_answer = {"E-PARSE",  "E-SCHEMA",   "E-ERROR",  "E-HINT-REF", "TR-HINT",
                                            "TR-COUNT", "TR-CAP",     "TR-BYTES", "B-USED",     "B-CLAMP",
                                            "B-ESTIMATE", "POS-BASE", "POS-PATH", "POS-UTF16"};
  const std::set<std::string> across = {"E-STABLE", "E-MISS",     "TR-ENV",      "TR-PREFIX", "TR-MAXIMAL",
                                        "TR-VERBATIM", "TR-RESUME", "TR-COUNT", "TR-BYTES"};
  for (const auto& inv : registry()) {
    if (inv.family != "envelope" && inv.family != "truncation" && inv.family != "budget" && inv.family != "positions")
      continue;
    EXPECT_TRUE(per_answer.count(inv.id) || across.count(inv.id)) << inv.id << " is in neither list";
  }
}

}  // namespace
}  // namespace ctxo::checks
