// SPDX-License-Identifier: MIT
// RapidCheck properties of the truncation core: for arbitrary payloads and limits the envelope
// fits (or cannot), keeps a prefix, is maximal, counts right, is idempotent, is verbatim under
// the limit, and the exact and naive algorithms agree byte for byte.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "truncation/truncate.h"
#include "truncation/unicode.h"

namespace {

using nlohmann::json;
using namespace ctxo::truncation;
namespace gen = rc::gen;

// Text mixing ASCII, escapes, BMP, astral, and ill-formed UTF-8.
rc::Gen<std::string> gen_text() {
  static const std::vector<std::string> kPieces = {
      "a", "src/", "x.ts", " ", "\"", "\\", "\n", "\r\n", "\t", std::string("\x01"), std::string("\0", 1), "é", "中",
      "😀", "\u2028", "\xFF", "\xE2\x82", "\xED\xA0\x80", "\xF0\x9F\x98", "\xC0\xAF", "0", "{", "}"};
  return gen::map(gen::container<std::vector<std::string>>(
                      gen::oneOf(gen::elementOf(kPieces), gen::arbitrary<std::string>())),
                  [](const std::vector<std::string>& parts) {
                    std::string s;
                    for (const auto& p : parts) s += p;
                    return s;
                  });
}

rc::Gen<json> gen_scalar() {
  return gen::oneOf(gen::just(json(nullptr)), gen::map(gen::arbitrary<bool>(), [](bool b) { return json(b); }),
                    gen::map(gen::arbitrary<std::int64_t>(), [](std::int64_t i) { return json(i); }),
                    gen::map(gen::arbitrary<std::uint64_t>(), [](std::uint64_t u) { return json(u); }),
                    gen::map(gen::arbitrary<double>(), [](double d) { return json(d); }),
                    gen::map(gen_text(), [](std::string s) { return json(std::move(s)); }));
}

rc::Gen<json> gen_json(int depth) {
  if (depth <= 0) return gen_scalar();
  return gen::oneOf(
      gen_scalar(),
      gen::map(gen::resize(8, gen::container<std::vector<json>>(gen_json(depth - 1))),
               [](std::vector<json> v) { return json(std::move(v)); }),
      gen::map(gen::resize(6, gen::container<std::map<std::string, json>>(gen_text(), gen_json(depth - 1))),
               [](std::map<std::string, json> m) { return json(std::move(m)); }));
}

// A search-result-like item, or anything at all.
rc::Gen<json> gen_item() {
  return gen::oneOf(gen::map(gen::tuple(gen_text(), gen::inRange(1, 100000), gen::inRange(1, 500), gen_text()),
                             [](const std::tuple<std::string, int, int, std::string>& t) {
                               return json{{"file", std::get<0>(t)}, {"line", std::get<1>(t)},
                                           {"col", std::get<2>(t)}, {"snippet", std::get<3>(t)}};
                             }),
                    gen_json(2));
}

json gen_array() {
  const int n = *gen::inRange(0, 40);
  return json(*gen::container<std::vector<json>>(static_cast<std::size_t>(n), gen_item()));
}

// A payload with 0-3 of the given fields (as arrays, or sometimes not) plus other members.
json gen_payload(const std::vector<std::string>& fields) {
  json p = json::object();
  const int count = *gen::element(0, 1, 1, 2, 3);
  for (int i = 0; i < count; ++i) {
    const std::string f = *gen::elementOf(fields);
    p[f] = *gen::inRange(0, 10) == 0 ? *gen_scalar() : gen_array();
  }
  const int others = *gen::inRange(0, 3);
  for (int i = 0; i < others; ++i) p[*gen_text()] = *gen_json(1);
  return p;
}

int gen_indent() { return *gen::element(-1, -1, -1, 2, 4); }

// nlohmann's == says NaN != NaN; copies holding NaN must still count as the same value.
bool same(const json& a, const json& b) { return a == b || (a.type() == b.type() && to_js_json(a) == to_js_json(b)); }

json without(json v, const std::string& key) {
  v.erase(key);
  return v;
}

RC_GTEST_PROP(TruncationProps, SizesMatchTheText, ()) {
  const json v = *gen_json(3);
  const int indent = gen_indent();
  const std::string text = to_js_json(v, indent);
  RC_ASSERT(js_json_size(v, indent) == text.size());
  RC_ASSERT(js_json_utf16_size(v, indent) == utf16_length(text));
  RC_ASSERT(js_json_measure(v, Measure::kCodePoints, indent) == code_points(text));
  RC_ASSERT(utf8_length(text) == text.size());  // output is always well-formed UTF-8
}

RC_GTEST_PROP(TruncationProps, NumberLengthMatchesFormatting, ()) {
  // js_number_length computes the shortest round-trip digits arithmetically; js_number formats
  // them with std::to_chars. Any double (as a value, or as any bit pattern) must agree.
  const double d = *gen::arbitrary<double>();
  RC_ASSERT(js_number_length(d) == js_number(d).size());
  const std::uint64_t bits = *gen::arbitrary<std::uint64_t>();
  double b;
  std::memcpy(&b, &bits, sizeof b);
  RC_ASSERT(js_number_length(b) == js_number(b).size());
  RC_ASSERT(to_js_json(json(b)).size() == js_json_size(json(b)));
}

RC_GTEST_PROP(TruncationProps, MeasureItemsMatchesMeasure, ()) {
  const json items = gen_array();
  const int indent = gen_indent();
  const int depth = *gen::inRange(0, 4);
  const Measure m = *gen::element(Measure::kUtf8Bytes, Measure::kUtf16Units, Measure::kCodePoints);
  const auto& arr = items.get_ref<const json::array_t&>();
  std::vector<std::size_t> want;
  std::size_t total = 0;
  for (const auto& item : arr) {
    want.push_back(js_json_measure(item, m, indent, depth));
    total += want.back();
  }
  const std::size_t keep = *gen::inRange<std::size_t>(0, total + 2);
  JsonMeasurer measurer(m, indent);
  std::vector<std::size_t> sizes;
  RC_ASSERT(measurer.measure_items(arr, depth, &sizes, keep) == total);
  std::size_t sum = 0, k = 0;
  while (k < want.size()) {
    sum += want[k++];
    if (sum > keep) break;
  }
  RC_ASSERT(sizes == std::vector<std::size_t>(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(k)));
}

RC_GTEST_PROP(TruncationProps, CtxoContract, ()) {
  const auto fields = default_ctxo_fields();
  json payload = gen_payload(fields);
  if (*gen::inRange(0, 5) == 0) payload["_meta"] = {{"workspace", {{"root", "/w"}}}, {"hint", "old"}};
  CtxoOptions o;
  o.indent = gen_indent();
  o.limit = *gen::inRange<std::size_t>(1, js_json_size(payload, o.indent) + 400);
  o.hint = *gen::element<std::string>(kDefaultCtxoHint, "Use search_symbols with a narrower query", "h");
  auto r = truncate_ctxo(payload, o);
  RC_ASSERT(r.ok());
  RC_ASSERT(r->text == to_js_json(r->json, o.indent));
  RC_ASSERT(r->text_size == r->text.size());
  const json& meta = r->json["_meta"];
  RC_ASSERT(r->total_bytes == to_js_json(without(payload, "_meta"), o.indent).size());
  RC_ASSERT(meta["totalBytes"] == r->total_bytes);
  if (payload.contains("_meta")) RC_ASSERT(meta["workspace"]["root"] == "/w");
  if (r->field.empty()) {
    for (const auto& f : fields) RC_ASSERT(!(payload.contains(f) && payload[f].is_array()));
    RC_ASSERT(same(without(r->json, "_meta"), without(payload, "_meta")));
    RC_ASSERT(meta["totalItems"] == 0 && meta["returnedItems"] == 0 && meta["truncated"] == false);
    return;
  }
  const json& full = payload[r->field];
  const json& out = r->json[r->field];
  const std::size_t n = full.size(), k = out.size();
  RC_TAG(k == n ? "whole" : k == 0 ? "cut to 0" : "cut", r->fits ? "fits" : "cannot fit");
  // Counts consistent with the arrays; the cut array is a prefix of the original.
  RC_ASSERT(meta["totalItems"] == n && meta["returnedItems"] == k && r->returned_items == k);
  for (const auto& f : fields)
    if (payload.contains(f) && payload[f].is_array()) RC_ASSERT(payload[f].size() <= n);
  for (std::size_t i = 0; i < k; ++i) RC_ASSERT(same(out[i], full[i]));
  RC_ASSERT(meta["truncated"] == (k < n));
  RC_ASSERT(meta.contains("hint") == (k < n));
  // Fits, or nothing could.
  if (r->fits) {
    RC_ASSERT(r->text.size() <= o.limit);
  } else {
    RC_ASSERT(k == 0);
  }
  // Verbatim under the limit.
  json whole = r->json;
  whole[r->field] = full;
  whole["_meta"]["returnedItems"] = n;
  whole["_meta"]["truncated"] = false;
  whole["_meta"].erase("hint");
  const bool whole_fits = to_js_json(whole, o.indent).size() <= o.limit;
  RC_ASSERT(whole_fits == (k == n && r->fits));
  // Maximal: one more item does not fit.
  if (k < n && r->fits) {
    json more = r->json;
    more[r->field].push_back(full[k]);
    more["_meta"]["returnedItems"] = k + 1;
    if (k + 1 < n) RC_ASSERT(to_js_json(more, o.indent).size() > o.limit);
  }
  // Idempotent: truncating the output again keeps the same items.
  auto again = truncate_ctxo(r->json, o);
  RC_ASSERT(again.ok());
  if (r->fits) RC_ASSERT(same(again->json[r->field], out));
  // Exact and naive agree.
  auto naive = truncate_ctxo_naive(payload, o);
  RC_ASSERT(naive.ok());
  RC_ASSERT(naive->text == r->text);
  RC_ASSERT(naive->fits == r->fits);
}

RC_GTEST_PROP(TruncationProps, BudgetContract, ()) {
  BudgetOptions o;
  json data = gen_payload(o.list_fields);
  o.indent = gen_indent();
  if (*gen::inRange(0, 4) != 0)
    o.token_budget = *gen::inRange<std::int64_t>(-10, static_cast<std::int64_t>(js_json_utf16_size(data, o.indent) / 4 + 200));
  if (*gen::inRange(0, 3) == 0) o.warnings = {"3 file(s) changed since the last index."};
  auto r = truncate_budget(data, o);
  RC_ASSERT(r.ok());
  const std::int64_t want = std::clamp(o.token_budget.value_or(2000), std::int64_t{100}, std::int64_t{10000});
  RC_ASSERT(r->requested == want);
  RC_ASSERT(r->used == (utf16_length(r->text) + 3) / 4);
  RC_ASSERT(r->json["tokenBudget"]["used"] == r->used);
  if (r->fits) RC_ASSERT(r->used <= static_cast<std::size_t>(want));
  RC_ASSERT(r->json["truncated"] == r->json.contains("dropped"));
  if (!r->field.empty() && r->snippets_elided == 0) {
    const json& out = r->json["data"][r->field];
    for (std::size_t i = 0; i < out.size(); ++i) RC_ASSERT(same(out[i], data[r->field][i]));
    if (out.size() < data[r->field].size()) RC_ASSERT(r->json["dropped"]["count"] == data[r->field].size() - out.size());
  }
  RC_TAG(r->truncated ? "truncated" : "whole", r->snippets_elided > 0 ? "elided" : "", r->fits ? "fits" : "cannot fit");
  auto naive = truncate_budget_naive(data, o);
  RC_ASSERT(naive.ok());
  RC_ASSERT(naive->text == r->text);
}

RC_GTEST_PROP(TruncationProps, MetaContract, ()) {
  json resp = {{"data", *gen::inRange(0, 4) == 0 ? json(*gen_text()) : gen_array()}};
  MetaOptions o;
  o.indent = gen_indent();
  o.limit = *gen::inRange<std::size_t>(1, js_json_size(resp, o.indent) + 300);
  auto r = truncate_meta(resp, o);
  RC_ASSERT(r.ok());
  if (r->fits) RC_ASSERT(r->text.size() <= o.limit);
  RC_ASSERT(r->json["meta"]["returned_count"] == r->returned_items);
  RC_ASSERT(r->json["meta"]["truncated"] == (r->returned_items < r->total_items));
  if (resp["data"].is_array()) {
    RC_ASSERT(r->json["data"].size() == r->returned_items);
    for (std::size_t i = 0; i < r->returned_items; ++i) RC_ASSERT(same(r->json["data"][i], resp["data"][i]));
  } else {
    RC_ASSERT(resp["data"].get<std::string>().rfind(r->json["data"].get<std::string>(), 0) == 0);
  }
  RC_TAG(r->truncated ? "truncated" : "whole", r->fits ? "fits" : "cannot fit");
  auto naive = truncate_meta_naive(resp, o);
  RC_ASSERT(naive.ok());
  RC_ASSERT(naive->text == r->text);
}

RC_GTEST_PROP(TruncationProps, TruncationInfoContract, ()) {
  json payload = gen_payload({"results"});
  TruncationInfoOptions o;
  o.measure = *gen::element(Measure::kUtf16Units, Measure::kUtf8Bytes, Measure::kCodePoints);
  o.indent = gen_indent();
  o.character_limit = *gen::inRange<std::size_t>(1, js_json_size(payload, o.indent) * 5 / 4 + 600);
  auto r = truncate_truncation_info(payload, o);
  if (o.character_limit * 80 / 100 == 0) {
    RC_ASSERT(!r.ok());
    return;
  }
  RC_ASSERT(r.ok());
  RC_ASSERT(r->json["truncation_info"]["estimated_chars"] == r->text_size);
  RC_ASSERT(r->json["truncated"] == !r->reason.empty());
  if (r->fits) RC_ASSERT(r->text_size <= r->limit_chars);
  if (r->reason == "character_limit") RC_ASSERT(r->fits && r->returned_items >= 1 && r->returned_items < r->total_items);
  if (r->reason == "single_result_too_large") RC_ASSERT(!r->fits && r->returned_items == 1);
  RC_TAG(r->reason.empty() ? "null" : r->reason);
  auto naive = truncate_truncation_info_naive(payload, o);
  RC_ASSERT(naive.ok());
  RC_ASSERT(naive->text == r->text);
}

RC_GTEST_PROP(TruncationProps, PositionRoundTrips, ()) {
  const std::string text = *gen_text();
  const ColumnUnit unit = *gen::element(ColumnUnit::kUtf16, ColumnUnit::kUtf8Bytes, ColumnUnit::kCodePoints);
  for (std::size_t off = 0; off <= text.size(); ++off) {
    auto p = offset_to_position(text, off, unit);
    RC_ASSERT(p.ok());
    if (!is_position_boundary(text, off)) continue;
    auto back = position_to_offset(text, p->line, p->column, unit);
    RC_ASSERT(back.ok());
    RC_ASSERT(*back == off);
  }
  // Every valid (line, column) maps to a boundary that maps back to it.
  const std::size_t lines = 1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  for (std::size_t line = 1; line <= lines; ++line) {
    for (std::size_t col = 1;; ++col) {
      auto off = position_to_offset(text, line, col, unit);
      if (!off) {
        if (off.error().message.find("past the end") != std::string::npos) break;
        continue;  // inside a character
      }
      RC_ASSERT(is_position_boundary(text, *off));
      RC_ASSERT(*offset_to_position(text, *off, unit) == (Position{line, col}));
    }
  }
  RC_ASSERT(!offset_to_position(text, text.size() + 1).ok());
}

}  // namespace
