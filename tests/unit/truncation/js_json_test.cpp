// SPDX-License-Identifier: MIT
// to_js_json and its sizes: fixed JSON.stringify outputs, and (when `node` is on PATH) a
// differential run of random numbers and strings against Node's own JSON.stringify.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "truncation/js_json.h"
#include "truncation/unicode.h"

namespace {

using nlohmann::json;
using ctxo::truncation::js_json_size;
using ctxo::truncation::js_json_utf16_size;
using ctxo::truncation::js_number;
using ctxo::truncation::js_number_length;
using ctxo::truncation::to_js_json;

TEST(JsNumber, MatchesNumberToString) {
  const std::vector<std::pair<double, const char*>> cases = {
      {0.0, "0"}, {-0.0, "0"}, {1.5, "1.5"}, {-1.5, "-1.5"}, {100, "100"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"},
      {123456789012345680000.0, "123456789012345680000"}, {1e-7, "1e-7"}, {1e-6, "0.000001"}, {0.00001, "0.00001"},
      {1.23e-18, "1.23e-18"}, {0.1 + 0.2, "0.30000000000000004"}, {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"}, {1e100, "1e+100"}, {-2.5e-8, "-2.5e-8"},
      {123.456, "123.456"}, {1.5e300, "1.5e+300"}, {4294967296.5, "4294967296.5"},
      {std::numeric_limits<double>::quiet_NaN(), "null"}, {std::numeric_limits<double>::infinity(), "null"},
      {-std::numeric_limits<double>::infinity(), "null"}};
  for (const auto& [v, want] : cases) EXPECT_EQ(js_number(v), want) << v;
}

TEST(JsJson, IntegersBeyond2To53PrintAsTheirDouble) {
  EXPECT_EQ(to_js_json(json(9007199254740992LL)), "9007199254740992");
  EXPECT_EQ(to_js_json(json(9007199254740993LL)), "9007199254740992");
  EXPECT_EQ(to_js_json(json(std::numeric_limits<std::uint64_t>::max())), "18446744073709552000");
  EXPECT_EQ(to_js_json(json(std::numeric_limits<std::int64_t>::min())), "-9223372036854776000");
  EXPECT_EQ(to_js_json(json(-42)), "-42");
  EXPECT_EQ(to_js_json(json(2.0)), "2");  // a double that is integral prints without ".0"
}

TEST(JsJson, StringEscapes) {
  EXPECT_EQ(to_js_json(json("a\"b\\c\b\f\n\r\t")), R"("a\"b\\c\b\f\n\r\t")");
  EXPECT_EQ(to_js_json(json(std::string("\x01\x1f\x7f", 3))), "\"\\u0001\\u001f\x7f\"");
  EXPECT_EQ(to_js_json(json(std::string("\0", 1))), "\"\\u0000\"");
  EXPECT_EQ(to_js_json(json("/ \u2028 é 😀")), "\"/ \u2028 é 😀\"");  // nothing else escaped
}

TEST(JsJson, InvalidUtf8BecomesReplacementCharacters) {
  // Maximal subparts: E2 82 is one U+FFFD, FF is one, F0 80 80 is three (F0 alone, 80, 80).
  const std::string s = "a\xE2\x82z\xFF\xF0\x80\x80";
  json v = json::array();
  v.push_back(s);  // nlohmann holds raw bytes; its dump() would throw here, ours does not
  EXPECT_EQ(to_js_json(v), "[\"a\xEF\xBF\xBDz\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"]");
  EXPECT_EQ(js_json_size(v), to_js_json(v).size());
  EXPECT_EQ(js_json_utf16_size(v), 2u + 1u + 1u + 1u + 4u + 2u);  // [" a FFFD z 4xFFFD "]
}

TEST(JsJson, CompactAndIndented) {
  const json v = json::parse(R"({"b":[1,{"c":[]},{}],"a":"x","d":{"e":null,"f":true}})");
  EXPECT_EQ(to_js_json(v), R"({"a":"x","b":[1,{"c":[]},{}],"d":{"e":null,"f":true}})");
  // JSON.stringify(v, null, 2) of the same (sorted) object.
  EXPECT_EQ(to_js_json(v, 2),
            "{\n  \"a\": \"x\",\n  \"b\": [\n    1,\n    {\n      \"c\": []\n    },\n    {}\n  ],\n  \"d\": {\n"
            "    \"e\": null,\n    \"f\": true\n  }\n}");
  EXPECT_EQ(to_js_json(v, 0), to_js_json(v));
  EXPECT_EQ(to_js_json(v, 25), to_js_json(v, 10));  // JS clamps the gap to 10
  for (int indent : {-1, 0, 1, 2, 4, 10, 11})
    for (auto m : {ctxo::truncation::Measure::kUtf8Bytes, ctxo::truncation::Measure::kUtf16Units,
                   ctxo::truncation::Measure::kCodePoints})
      EXPECT_EQ(ctxo::truncation::js_json_measure(v, m, indent), to_js_json(v, indent).size());
}

TEST(JsJson, SizesCountUnits) {
  const json v = {{"k", "é😀中"}};
  const std::string text = to_js_json(v);
  EXPECT_EQ(js_json_size(v), text.size());
  EXPECT_EQ(js_json_utf16_size(v), ctxo::truncation::utf16_length(text));
  EXPECT_EQ(js_json_utf16_size(v), std::string(R"({"k":""})").size() + 1 + 2 + 1);
  EXPECT_EQ(ctxo::truncation::js_json_measure(v, ctxo::truncation::Measure::kCodePoints), 8u + 3u);
}

TEST(JsJson, SpecialByteAtEveryPositionOfTheFastPath) {
  // The sizer reads 8 plain ASCII bytes at a time; a byte needing care must stop it anywhere.
  const std::vector<std::string> specials = {"\"", "\\", "\n", std::string("\x1f"), std::string("\0", 1), "\x7f", "é", "\xFF", " ", "~"};
  for (const auto& sp : specials) {
    for (std::size_t pos = 0; pos < 24; ++pos) {
      std::string text(24, 'a');
      text.replace(pos, 1, sp);
      for (auto m : {ctxo::truncation::Measure::kUtf8Bytes, ctxo::truncation::Measure::kUtf16Units})
        EXPECT_EQ(ctxo::truncation::js_string_measure(text, m),
                  m == ctxo::truncation::Measure::kUtf8Bytes ? to_js_json(json(text)).size()
                                                             : ctxo::truncation::utf16_length(to_js_json(json(text))))
            << pos;
    }
  }
}

TEST(JsJson, SpecialByteAtEveryLengthOfTheBlockScans) {
  // Strings of 16..kPlainScanMax bytes are tested as a whole in 16-byte blocks (the last one
  // overlapping), longer ones 64 bytes at a time: a byte needing care must count at any length
  // and position, around every block edge, in short and long strings.
  const std::vector<std::string> specials = {"\"", "\\", "\n", std::string("\0", 1), "é", "中", "😀", "\xFF", "\xE2\x82"};
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 130; ++n) lengths.push_back(n);
  for (std::size_t n : {255, 256, 257, 511, 512, 513, 520, 1000, 1024, 1100}) lengths.push_back(n);
  for (std::size_t len : lengths) {
    std::vector<std::size_t> positions = {0, len / 2, len > 0 ? len - 1 : 0};
    for (std::size_t edge = 15; edge < len + 1; edge += 16) positions.insert(positions.end(), {edge - 1, edge, edge + 1});
    for (const auto& sp : specials) {
      for (std::size_t pos : positions) {
        if (pos >= len && len > 0) continue;
        std::string text(len, 'a');
        if (len > 0) text.replace(pos, 1, sp);
        const std::string out = to_js_json(json(text));
        ASSERT_EQ(ctxo::truncation::js_string_measure(text, ctxo::truncation::Measure::kUtf8Bytes), out.size())
            << len << " " << pos;
        ASSERT_EQ(ctxo::truncation::js_string_measure(text, ctxo::truncation::Measure::kUtf16Units),
                  ctxo::truncation::utf16_length(out))
            << len << " " << pos;
        ASSERT_EQ(ctxo::truncation::js_string_measure(text, ctxo::truncation::Measure::kCodePoints),
                  ctxo::truncation::code_points(out))
            << len << " " << pos;
      }
    }
    const std::string plain(len, 'b');
    ASSERT_EQ(ctxo::truncation::js_string_measure(plain, ctxo::truncation::Measure::kUtf8Bytes), len + 2);
  }
}

// js_number_length (shortest-digits arithmetic, no formatting) against js_number (std::to_chars).
void expect_number_length(double v) {
  ASSERT_EQ(ctxo::truncation::js_number_length(v), js_number(v).size()) << js_number(v);
}

TEST(JsNumber, LengthMatchesFormattingAtTheEdges) {
  std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 5e-324, -5e-324, 1e-323,
                                2.2250738585072014e-308, 2.2250738585072009e-308, 1.7976931348623157e308,
                                std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(), 9007199254740992.0, 9007199254740993.0,
                                9007199254740991.0, 4503599627370496.5, 1e21, 1e-7, 1e-6, 123456789012345680000.0};
  // Neighbours (a few ulps each way) of powers of ten and two, both signs, including the 1e21 and
  // 1e-6 / 1e-7 switches between plain and exponent forms and integers around 2^53.
  std::vector<double> anchors;
  for (int e = -325; e <= 309; ++e) anchors.push_back(std::strtod(("1e" + std::to_string(e)).c_str(), nullptr));
  for (int e = -1075; e <= 1024; ++e) anchors.push_back(std::ldexp(1.0, e));
  for (double a : anchors) {
    if (!std::isfinite(a)) continue;
    double lo = a, hi = a;
    for (int i = 0; i < 4; ++i) {
      values.insert(values.end(), {lo, hi, -lo, -hi});
      lo = std::nextafter(lo, 0.0);
      hi = std::nextafter(hi, std::numeric_limits<double>::infinity());
    }
  }
  for (std::int64_t i = -2000; i <= 2000; ++i) {
    values.push_back(static_cast<double>((std::int64_t{1} << 53) + i));
    values.push_back(static_cast<double>(i) / 8);
    values.push_back(static_cast<double>(i) * 0.1);
    values.push_back(static_cast<double>(i) * 1e20);
  }
  // Every binary exponent, subnormals included, with edge and random significands.
  std::mt19937_64 rng(20240611);
  for (std::uint64_t bq = 0; bq < 2047; ++bq) {
    for (std::uint64_t m : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, (std::uint64_t{1} << 52) - 1,
                            std::uint64_t{1} << 51, rng() & ((std::uint64_t{1} << 52) - 1)}) {
      const std::uint64_t bits = bq << 52 | m;
      double d;
      std::memcpy(&d, &bits, sizeof d);
      values.insert(values.end(), {d, -d});
    }
  }
  for (double v : values) expect_number_length(v);
}

TEST(JsNumber, LengthMatchesFormattingForRandomDoubles) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000000; ++i) {  // arbitrary bit patterns: every exponent, NaNs, subnormals
    const std::uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    expect_number_length(d);
  }
  std::uniform_int_distribution<int> exp10(-330, 310), digits(1, 17);
  for (int i = 0; i < 300000; ++i) {  // short decimals (few significant digits), as JSON carries
    std::string text = std::to_string(rng() % 1000000000000000000ull).substr(0, static_cast<std::size_t>(digits(rng)));
    text += "e" + std::to_string(exp10(rng));
    expect_number_length(std::strtod(text.c_str(), nullptr));
  }
}

TEST(JsonMeasurer, MeasureItemsMatchesMeasureAndKeepsAPrefix) {
  json items = json::array();
  for (int i = 0; i < 50; ++i) {
    items.push_back({{"file", "src/f" + std::to_string(i) + ".ts"}, {"line", i}, {"score", 1.0 / (i + 1)},
                     {"snippet", i % 3 == 0 ? "caf\u00e9 \"q\"" : "plain"}});
    if (i % 7 == 0) items.push_back({{"nested", {{"a", json::array({1, 2, {{"b", nullptr}}})}}}, {"x", true}});
    if (i % 11 == 0) items.push_back(json::object());
    if (i % 13 == 0) items.push_back(json::array({i, "s"}));
    if (i % 17 == 0) items.push_back(-2.5e-9);
  }
  const auto& arr = items.get_ref<const json::array_t&>();
  for (auto m : {ctxo::truncation::Measure::kUtf8Bytes, ctxo::truncation::Measure::kUtf16Units,
                 ctxo::truncation::Measure::kCodePoints}) {
    for (int indent : {-1, 0, 2, 7}) {
      for (int depth : {0, 2, 5}) {
        std::vector<std::size_t> want;
        std::size_t total = 0, deepest = 0;
        for (const auto& item : arr) {
          want.push_back(ctxo::truncation::js_json_measure(item, m, indent, depth));
          total += want.back();
          deepest = std::max(deepest, ctxo::truncation::json_depth(item));
        }
        ctxo::truncation::JsonMeasurer all(m, indent);
        std::vector<std::size_t> sizes;
        EXPECT_EQ(all.measure_items(arr, depth, &sizes), total);
        EXPECT_EQ(sizes, want);
        EXPECT_EQ(all.max_depth(), deepest);
        for (std::size_t keep : {std::size_t{0}, std::size_t{1}, want[0], want[0] + 1, total / 2, total}) {
          ctxo::truncation::JsonMeasurer part(m, indent);
          std::vector<std::size_t> prefix;
          EXPECT_EQ(part.measure_items(arr, depth, &prefix, keep), total);
          // Sizes kept while the running sum is <= keep, plus the first that passes it.
          std::size_t sum = 0, k = 0;
          while (k < want.size()) {
            sum += want[k++];
            if (sum > keep) break;
          }
          EXPECT_EQ(prefix, std::vector<std::size_t>(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(k)));
        }
      }
    }
  }
}

// The measurer steps through an object's members with its own successor on the map's tree (see
// next_member in js_json_measure.cpp): every tree shape from 1 to 40 members, built in ascending,
// descending and shuffled key order, all scalars (the flat loop) or with a container at each
// position (the walk), must measure what serialising prints.
TEST(JsonMeasurer, EveryObjectTreeShapeMeasuresItsSerialisation) {
  std::mt19937 rng(7);
  for (int members = 1; members <= 40; ++members) {
    std::vector<int> order(static_cast<std::size_t>(members));
    for (int i = 0; i < members; ++i) order[static_cast<std::size_t>(i)] = i;
    for (int shape = 0; shape < 3; ++shape) {
      if (shape == 1) std::reverse(order.begin(), order.end());
      if (shape == 2) std::shuffle(order.begin(), order.end(), rng);
      for (int nested_at = -1; nested_at < members; ++nested_at) {
        json item = json::object();
        for (int i : order) {
          const std::string key = "k" + std::to_string(i * 7919 % 1000);
          if (i == nested_at)
            item[key] = {{"in", json::array({i, "x"})}};
          else if (i % 3 == 0)
            item[key] = "v\u00e9" + std::to_string(i);
          else
            item[key] = i % 3 == 1 ? json(i) : json(1.0 / (i + 3));
        }
        ASSERT_EQ(item.size(), static_cast<std::size_t>(members));
        const json items = json::array({item, item});
        for (int indent : {-1, 2}) {
          const std::size_t want = to_js_json(item, indent).size();
          EXPECT_EQ(js_json_size(item, indent), want) << members << " members, shape " << shape;
          ctxo::truncation::JsonMeasurer m(ctxo::truncation::Measure::kUtf8Bytes, indent);
          std::vector<std::size_t> sizes;
          m.measure_items(items.get_ref<const json::array_t&>(), 0, &sizes);
          // depth 0 for the measurer: each item as if at the top, like to_js_json(item)
          EXPECT_EQ(sizes, (std::vector<std::size_t>{want, want})) << members << " members, nested at " << nested_at;
        }
      }
    }
  }
}

TEST(JsJson, BinaryAndDiscarded) {
  json b = json::binary({1, 2, 255});
  EXPECT_EQ(to_js_json(b), R"({"bytes":[1,2,255],"subtype":null})");
  EXPECT_EQ(js_json_size(b), to_js_json(b).size());
  EXPECT_EQ(to_js_json(json(json::value_t::discarded)), "null");
}

TEST(JsJson, DeepNestingDoesNotRecurse) {
  json v = 1;
  for (int i = 0; i < 200000; ++i) {
    json outer = json::array();
    outer.push_back(std::move(v));
    v = std::move(outer);
  }
  const std::string text = to_js_json(v);
  EXPECT_EQ(text.size(), 400001u);
  EXPECT_EQ(js_json_size(v), text.size());
  EXPECT_EQ(ctxo::truncation::json_depth(v), 200000u);
}

// Cross-check against Node: doubles travel as bit patterns, strings as hex bytes.
TEST(JsJson, AgreesWithNodeJsonStringify) {
  if (std::system("node --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "node not on PATH";
  std::mt19937_64 rng(12345);
  std::vector<double> numbers = {0.1, 1e21, 1e-7, 123456.789, 5e-324, 1.7976931348623157e308, -0.0, 2.5e-6};
  std::uniform_int_distribution<int> exp10(-30, 30);
  std::uniform_real_distribution<double> mant(-10, 10);
  for (int i = 0; i < 3000; ++i) {
    std::uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    numbers.push_back(d);
    numbers.push_back(mant(rng) * std::pow(10.0, exp10(rng)));
    numbers.push_back(std::round(mant(rng) * std::pow(10.0, exp10(rng) / 2)));
  }
  std::vector<std::string> strings = {"plain", "\x01\x1f\"\\/", "é😀\u2028", std::string("\0z", 2)};
  const char* pieces[] = {"a", "\"", "\\", "\n", "\x02", "é", "😀", "中", "\u2028", "\t", "\x7f"};
  for (int i = 0; i < 500; ++i) {
    std::string s;
    for (int j = 0; j < 8; ++j) s += pieces[rng() % (sizeof pieces / sizeof *pieces)];
    strings.push_back(s);
  }
  const std::string dir = CTXO_BINARY_DIR;
  const std::string in_path = dir + "/js_json_node_in.txt", script = dir + "/js_json_node.js";
  {
    std::ofstream in(in_path);
    char buf[32];
    for (double d : numbers) {
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      std::snprintf(buf, sizeof buf, "n %016llx\n", static_cast<unsigned long long>(bits));
      in << buf;
    }
    for (const auto& s : strings) {
      in << "s ";
      for (unsigned char c : s) {
        std::snprintf(buf, sizeof buf, "%02x", c);
        in << buf;
      }
      in << "\n";
    }
    std::ofstream js(script);
    js << "const lines = require('fs').readFileSync(process.argv[2], 'utf8').split('\\n').filter(Boolean);\n"
          "const out = [];\n"
          "for (const l of lines) {\n"
          "  const [t, h] = l.split(' ');\n"
          "  if (t === 'n') { const b = Buffer.from(h, 'hex'); out.push(JSON.stringify(b.readDoubleBE(0))); }\n"
          "  else { out.push(Buffer.from(JSON.stringify(Buffer.from(h || '', 'hex').toString('utf8'))).toString('hex')); }\n"
          "}\n"
          "process.stdout.write(out.join('\\n') + '\\n');\n";
  }
  FILE* p = popen(("node " + script + " " + in_path).c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  std::size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, got);
  ASSERT_EQ(pclose(p), 0);
  std::vector<std::string> lines;
  for (std::size_t start = 0, nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(out.substr(start, nl - start));
  ASSERT_EQ(lines.size(), numbers.size() + strings.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    if (to_js_json(json(numbers[i])) != lines[i] && bad++ < 10)
      ADD_FAILURE() << "number " << numbers[i] << ": ours " << to_js_json(json(numbers[i])) << " node " << lines[i];
  }
  for (std::size_t i = 0; i < strings.size(); ++i) {
    std::string hex;
    for (unsigned char c : to_js_json(json(strings[i]))) {
      std::snprintf(buf, sizeof buf, "%02x", c);
      hex += buf;
    }
    if (hex != lines[numbers.size() + i] && bad++ < 10) ADD_FAILURE() << "string #" << i << " differs from node";
  }
  EXPECT_EQ(bad, 0u);
}

}  // namespace
