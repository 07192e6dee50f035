// SPDX-License-Identifier: MIT
// parse_bounded (core/json_bounded.h) against the parser it replaced (nlohmann's parser callback,
// dropping what is nested deeper than kMaxJsonNesting): the same value and the same too_deep on
// ordinary, deep and broken inputs; and linear time on an answer of many small objects.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "core/json_bounded.h"

namespace ctxo {
namespace {

using nlohmann::json;

json reference(std::string_view text, bool* too_deep) {
  bool deep = false;
  json::parser_callback_t keep = [&deep](int depth, json::parse_event_t, json&) {
    if (depth <= kMaxJsonNesting) return true;
    deep = true;
    return false;
  };
  json j = json::parse(text.begin(), text.end(), keep, false);
  *too_deep = deep;
  return j;
}

std::string nest(int n, const std::string& open, const std::string& close, const std::string& inner) {
  std::string s;
  for (int i = 0; i < n; ++i) s += open;
  s += inner;
  for (int i = 0; i < n; ++i) s += close;
  return s;
}

TEST(JsonBounded, SameAsTheCallbackParser) {
  const std::vector<std::string> inputs = {
      "{}", "[]", "null", "true", "-1", "18446744073709551615", "1.5e3", R"("a\u00e9\ud83d\ude80")",
      R"({"a":[1,{"b":null}],"a":2,"c":{"d":[[]]}})", "[1,2,", "{\"a\"}", "", "  [ 1 ]  ", "[1] x",
      nest(256, "[", "]", "1"), nest(257, "[", "]", "1"), nest(300, "[", "]", "[1,2]"),
      nest(255, "{\"k\":", "}", "{\"x\":1,\"y\":[2]}"), nest(256, "{\"k\":", "}", "{\"x\":1,\"y\":[2]}"),
      "[" + nest(300, "[", "]", "") + ",3," + nest(10, "{\"a\":", "}", "4") + "]",
      nest(256, "[", "]", "{\"deep\":[1],\"x\":2}") , nest(1000000, "[", "]", "")};
  for (const auto& in : inputs) {
    SCOPED_TRACE(in.substr(0, 80));
    bool want_deep = false, got_deep = false;
    const json want = reference(in, &want_deep);
    const json got = parse_bounded(in, &got_deep);
    EXPECT_EQ(got.is_discarded(), want.is_discarded());
    if (!want.is_discarded()) {
      EXPECT_EQ(got, want);
    }
    EXPECT_EQ(got_deep, want_deep);
  }
}

TEST(JsonBounded, ManySmallObjectsParseInLinearTime) {
  // Three million `{}` took the callback parser minutes (a scan of the array at each element's
  // end). Here: the same 9 MB next to a plain parse of it, in one run.
  std::string text = "[";
  for (int i = 0; i < 3000000; ++i) text += "{},";
  text += "{}]";
  const auto t0 = std::chrono::steady_clock::now();
  const json plain = json::parse(text);
  const auto t1 = std::chrono::steady_clock::now();
  const json bounded = parse_bounded(text);
  const auto t2 = std::chrono::steady_clock::now();
  ASSERT_EQ(bounded.size(), 3000001u);
  EXPECT_EQ(bounded, plain);
  // Generous: the point is linear against quadratic (minutes), not a benchmark.
  EXPECT_LT(t2 - t1, 20 * (t1 - t0) + std::chrono::seconds(2));
}

// The one scanner every reader of an answer uses to find where a JSON document at the head of a
// text part ends (a Markdown footer after it): brackets counted outside strings, escapes honoured.
TEST(JsonValueEnd, FindsTheEndOfTheDocumentAndNothingElse) {
  const std::string text = R"({"a": "} ] \" {", "b": [1, {"c": 2}]}
---
2 more results: pass offset 2)";
  const std::size_t end = json_value_end(text, 0);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(text.substr(0, end), R"({"a": "} ] \" {", "b": [1, {"c": 2}]})");
  EXPECT_FALSE(parse_bounded(std::string_view(text).substr(0, end)).is_discarded());
  EXPECT_EQ(json_value_end("  [1, [2], 3] tail", 2), 13u);
  EXPECT_EQ(json_value_end(R"({"open": [1, 2})", 0), std::string::npos) << "never closes";
  EXPECT_EQ(json_value_end(R"({"cut": "a)", 0), std::string::npos) << "a string that never closes";
  EXPECT_EQ(json_value_end("{}]", 0), 2u);
  EXPECT_EQ(json_value_end("]", 0), std::string::npos) << "a close with nothing open";
}

}  // namespace
}  // namespace ctxo
