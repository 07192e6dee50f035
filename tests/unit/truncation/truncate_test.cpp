// SPDX-License-Identifier: MIT
// The four profiles on hand-written payloads: verbatim, truncation, maximality, edge cases, errors.
#include <gtest/gtest.h>

#include <string>

#include "truncation/truncate.h"
#include "truncation/unicode.h"

namespace {

using nlohmann::json;
using namespace ctxo::truncation;

json results_payload(int n, const std::string& key = "results") {
  json p = {{"query", "parse"}, {key, json::array()}};
  for (int i = 0; i < n; ++i)
    p[key].push_back({{"file", "src/f" + std::to_string(i) + ".ts"}, {"line", i + 1}, {"snippet", "const x = «é» 😀;"}});
  return p;
}

TEST(LargestPrefix, ExactAndNaiveAgree) {
  const std::vector<std::size_t> sizes = {5, 1, 7, 3, 3, 9};
  for (std::size_t limit = 0; limit < 50; ++limit) {
    auto exact = largest_prefix_exact(sizes, 4, 1, limit);
    auto naive = largest_prefix_naive(sizes.size(), [&](std::size_t k) {
      std::size_t cost = 4;
      for (std::size_t i = 0; i < k; ++i) cost += sizes[i] + (i > 0 ? 1 : 0);
      return cost <= limit;
    });
    EXPECT_EQ(exact, naive) << limit;
  }
  EXPECT_EQ(largest_prefix_exact(sizes, 4, 1, 3), std::nullopt);
  EXPECT_EQ(largest_prefix_exact(sizes, 4, 1, 1000), sizes.size());
}

TEST(Ctxo, VerbatimUnderTheLimit) {
  const json p = results_payload(3);
  CtxoOptions o;
  o.limit = 100000;
  auto r = truncate_ctxo(p, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->truncated);
  EXPECT_EQ(r->returned_items, 3u);
  EXPECT_EQ(r->json["results"], p["results"]);
  EXPECT_FALSE(r->json["_meta"].contains("hint"));
  EXPECT_EQ(r->json["_meta"]["totalBytes"], to_js_json(p).size());
  EXPECT_EQ(r->text, to_js_json(r->json));
  EXPECT_EQ(r->text_size, r->text.size());
}

TEST(Ctxo, LargestPrefixThatFits) {
  const json p = results_payload(50);
  for (std::size_t limit : {400u, 500u, 1000u, 2048u, 3000u}) {
    CtxoOptions o;
    o.limit = limit;
    auto r = truncate_ctxo(p, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->fits);
    EXPECT_TRUE(r->truncated);
    EXPECT_LE(r->text.size(), limit);
    EXPECT_EQ(r->json["_meta"]["returnedItems"], r->json["results"].size());
    EXPECT_EQ(r->json["_meta"]["totalItems"], 50);
    EXPECT_EQ(r->json["_meta"]["hint"], kDefaultCtxoHint);
    // Maximal: one more item does not fit.
    json more = r->json;
    more["results"].push_back(p["results"][r->returned_items]);
    more["_meta"]["returnedItems"] = r->returned_items + 1;
    EXPECT_GT(to_js_json(more).size(), limit);
    auto n = truncate_ctxo_naive(p, o);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(n->text, r->text);
  }
}

TEST(Ctxo, PicksTheLargestArrayAndKeepsOtherMeta) {
  json p = results_payload(4, "importers");
  p["files"] = json::array({"a", "b", "c", "d"});  // tie with importers: importers is listed first
  p["results"] = json::array({1, 2});
  p["context"] = "not an array";  // ignored
  p["_meta"] = {{"workspace", {{"root", "/w"}}}, {"totalItems", 999}};
  CtxoOptions o;
  o.limit = 300;
  auto r = truncate_ctxo(p, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->field, "importers");
  EXPECT_EQ(r->json["files"].size(), 4u);
  EXPECT_EQ(r->json["_meta"]["workspace"]["root"], "/w");
  EXPECT_EQ(r->json["_meta"]["totalItems"], 4);
  json without_meta = p;
  without_meta.erase("_meta");
  EXPECT_EQ(r->total_bytes, to_js_json(without_meta).size());
}

TEST(Ctxo, NoTruncatableArrayIsReturnedWhole) {
  const json p = {{"summary", std::string(5000, 'x')}, {"files", "nope"}};
  CtxoOptions o;
  o.limit = 100;
  auto r = truncate_ctxo(p, o);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->truncated);
  EXPECT_FALSE(r->fits);
  EXPECT_EQ(r->json["_meta"]["totalItems"], 0);
  EXPECT_EQ(r->json["_meta"]["returnedItems"], 0);
  EXPECT_EQ(r->json["summary"], p["summary"]);
}

TEST(Ctxo, LimitBelowFixedOverhead) {
  CtxoOptions o;
  o.limit = 10;
  auto r = truncate_ctxo(results_payload(5), o);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->fits);
  EXPECT_EQ(r->returned_items, 0u);
  EXPECT_TRUE(r->truncated);
}

TEST(Ctxo, Errors) {
  CtxoOptions o;
  EXPECT_EQ(truncate_ctxo(json::array(), o).error().code, "invalid_payload");
  EXPECT_EQ(truncate_ctxo(json("x"), o).error().code, "invalid_payload");
  o.limit = 0;
  EXPECT_EQ(truncate_ctxo(json::object(), o).error().code, "invalid_limit");
  o.limit = 100;
  o.max_depth = 3;
  EXPECT_EQ(truncate_ctxo(json::parse(R"({"a":[[[1]]]})"), o).error().code, "too_deep");
}

TEST(Ctxo, IndentedOutputAndInvalidUtf8) {
  json p = results_payload(20);
  p["results"][0]["snippet"] = std::string("bad \xFF\xE2\x82 bytes");
  CtxoOptions o;
  o.limit = 900;
  o.indent = 2;
  auto r = truncate_ctxo(p, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_LE(r->text.size(), 900u);
  EXPECT_EQ(r->text, to_js_json(r->json, 2));
  EXPECT_NE(r->text.find("bad \xEF\xBF\xBD\xEF\xBF\xBD bytes"), std::string::npos);
  auto n = truncate_ctxo_naive(p, o);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->text, r->text);
}

TEST(Budget, ClampAndVerbatim) {
  BudgetOptions o;
  const json data = {{"symbol", "parse"}, {"references", json::array({1, 2, 3})}};
  for (auto [arg, want] : std::vector<std::pair<std::optional<std::int64_t>, std::int64_t>>{
           {std::nullopt, 2000}, {50, 100}, {20000, 10000}, {800, 800}}) {
    o.token_budget = arg;
    auto r = truncate_budget(data, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->requested, want);
    EXPECT_EQ(r->json["tokenBudget"]["requested"], want);
    EXPECT_EQ(r->json["tokenBudget"]["max"], 10000);
    EXPECT_FALSE(r->truncated);
    EXPECT_FALSE(r->json.contains("dropped"));
    EXPECT_EQ(r->used, (utf16_length(r->text) + 3) / 4);
    EXPECT_EQ(r->json["tokenBudget"]["used"], r->used);
  }
}

TEST(Budget, CutsTheListWithADroppedNote) {
  json data = {{"symbol", "parse"}, {"references", json::array()}};
  for (int i = 0; i < 200; ++i)
    data["references"].push_back({{"file", "src/a" + std::to_string(i) + ".py"}, {"line", i + 1}, {"col", 1}});
  BudgetOptions o;
  o.token_budget = 300;
  auto r = truncate_budget(data, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->fits);
  EXPECT_TRUE(r->truncated);
  EXPECT_LE(r->used, 300u);
  EXPECT_EQ(r->used, (utf16_length(r->text) + 3) / 4);
  EXPECT_EQ(r->json["dropped"]["kind"], "references");
  EXPECT_EQ(r->json["dropped"]["count"], 200 - r->json["data"]["references"].size());
  EXPECT_NE(r->json["dropped"]["note"].get<std::string>().find("tokenBudget=300"), std::string::npos);
  auto n = truncate_budget_naive(data, o);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->text, r->text);
}

TEST(Budget, ElidesSnippetsAsALastResort) {
  json data = {{"references", json::array()}};
  for (int i = 0; i < 5; ++i)
    data["references"].push_back({{"file", "a.py"}, {"line", i + 1}, {"snippet", std::string(400, 'x')}});
  BudgetOptions o;
  o.token_budget = 100;  // 400 units: not even one item with its snippet fits
  auto r = truncate_budget(data, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->fits);
  EXPECT_EQ(r->snippets_elided, 5u);
  EXPECT_GE(r->returned_items, 1u);
  EXPECT_EQ(r->text.find("xxxx"), std::string::npos);
  EXPECT_LE(r->used, 100u);
  auto n = truncate_budget_naive(data, o);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->text, r->text);
}

TEST(Budget, BadBounds) {
  BudgetOptions o;
  o.min_budget = 500;
  o.max_budget = 100;
  EXPECT_EQ(truncate_budget(json::object(), o).error().code, "invalid_options");
}

TEST(Meta, ArrayAndString) {
  json resp = {{"data", json::array()}};
  for (int i = 0; i < 100; ++i) resp["data"].push_back({{"id", "item-" + std::to_string(i)}, {"name", "Item"}});
  MetaOptions o;
  o.limit = 700;
  auto r = truncate_meta(resp, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_LE(r->text.size(), 700u);
  EXPECT_TRUE(r->json["meta"]["truncated"]);
  EXPECT_EQ(r->json["meta"]["total_count"], 100);
  EXPECT_EQ(r->json["meta"]["returned_count"], r->json["data"].size());
  EXPECT_TRUE(r->json["ok"]);
  EXPECT_TRUE(r->json["error"].is_null());
  EXPECT_EQ(r->text, truncate_meta_naive(resp, o)->text);

  json s = {{"data", "ab😀" + std::string(300, 'z')}, {"warnings", json::array({"w"})}};
  o.limit = 300;
  auto rs = truncate_meta(s, o);
  ASSERT_TRUE(rs.ok()) << rs.error().message;
  EXPECT_TRUE(rs->fits);
  EXPECT_LE(rs->text.size(), 300u);
  EXPECT_EQ(rs->total_items, 303u);  // code points
  EXPECT_EQ(rs->json["data"].get<std::string>().substr(0, 6), "ab😀");
  EXPECT_EQ(rs->text, truncate_meta_naive(s, o)->text);

  o.limit = 1000;
  auto v = truncate_meta({{"data", {{"x", 1}}}}, o);
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->truncated);
  EXPECT_FALSE(v->json["meta"].contains("truncation_hint"));
  EXPECT_EQ(truncate_meta(json::object(), o).error().code, "invalid_payload");
}

TEST(TruncationInfo, Rules) {
  json p = {{"project_id", "p"}, {"results", json::array()}};
  for (int i = 0; i < 30; ++i) p["results"].push_back({{"content", std::string(100, 'c')}, {"start_line", i}});
  TruncationInfoOptions o;
  o.character_limit = 2000;  // effective 1600
  auto r = truncate_truncation_info(p, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->reason, "character_limit");
  EXPECT_TRUE(r->json["truncated"]);
  EXPECT_LE(r->text.size(), 1600u);
  EXPECT_EQ(r->json["truncation_info"]["estimated_chars"], r->text.size());
  EXPECT_EQ(r->json["truncation_info"]["limit_chars"], 1600);
  EXPECT_EQ(r->json["truncation_info"]["limit_tokens"], 400);
  EXPECT_EQ(r->json["truncation_info"]["estimated_tokens"], r->text.size() / 4);
  EXPECT_EQ(r->json["returned_count"], r->json["results"].size());
  EXPECT_EQ(r->text, truncate_truncation_info_naive(p, o)->text);

  o.character_limit = 100000;
  auto v = truncate_truncation_info(p, o);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->json["truncation_info"]["reason"].is_null());
  EXPECT_FALSE(v->truncated);

  o.character_limit = 200;
  auto s = truncate_truncation_info(p, o);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->reason, "single_result_too_large");
  EXPECT_EQ(s->returned_items, 1u);
  EXPECT_FALSE(s->fits);
  EXPECT_EQ(s->text, truncate_truncation_info_naive(p, o)->text);
}

}  // namespace
