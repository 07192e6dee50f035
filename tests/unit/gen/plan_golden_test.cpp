// SPDX-License-Identifier: MIT
// The generated calls are part of a run's reproducibility: the same seed gives the same calls
// from one release to the next. This test dumps, for hand-written schemas covering every
// generator (strings with bounds, patterns and formats, enums, arrays with bounds, tuples, nested
// objects, records, numbers, unions, refs) and several seeds, the first 60 ToolPlan calls, some
// of their first shrinks, and direct valid_value/invalid_value draws at several sizes; and one
// digest per tool of the schema corpus (corpus/schemas). The dump must equal
// tests/unit/gen/data/plan_golden.txt. Regenerate it (only when a change of the calls is meant,
// and said in the changelog) with CTXO_UPDATE_GOLDEN=1.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gen/plan.h"
#include "gen/schema_gen.h"

namespace ctxo::gen {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = fs::path(CTXO_SOURCE_DIR) / "tests" / "unit" / "gen" / "data" / "plan_golden.txt";

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex64(std::uint64_t v) {
  static const char* kDigits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = kDigits[v & 0xF];
  return s;
}

// A value's text, or (past 160 bytes) its length, its digest and its beginning.
std::string show(const json& v) {
  std::string t = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (t.size() <= 160) return t;
  return "<" + std::to_string(t.size()) + " bytes " + hex64(fnv1a(t)) + "> " + t.substr(0, 80);
}

const char* const kSchemas[] = {
    // 0: the echo tool of bench/echo.
    R"({"type":"object","properties":{"text":{"type":"string","maxLength":200}},"additionalProperties":false})",
    // 1: strings with bounds, one long.
    R"({"type":"object","properties":{"a":{"type":"string","minLength":3,"maxLength":10},
        "b":{"type":"string","minLength":5},"c":{"type":"string"},"d":{"type":"string","maxLength":0},
        "e":{"type":"string","minLength":1000,"maxLength":1100}},"required":["a","c"]})",
    // 2: patterns, one outside the generator's subset (filtered).
    R"({"type":"object","properties":{"id":{"type":"string","pattern":"^[a-z]{2,5}-[0-9]+$"},
        "code":{"type":"string","pattern":"^[A-Z]{3}$"},"free":{"type":"string","pattern":"ab+c","maxLength":12},
        "look":{"type":"string","pattern":"^(?=a)a[a-z]*$","maxLength":6}},"required":["id"]})",
    // 3: formats.
    R"({"type":"object","properties":{"when":{"type":"string","format":"date-time"},"day":{"type":"string","format":"date"},
        "at":{"type":"string","format":"time"},"mail":{"type":"string","format":"email"},
        "uuid":{"type":"string","format":"uuid"},"v4":{"type":"string","format":"ipv4"},
        "v6":{"type":"string","format":"ipv6"},"host":{"type":"string","format":"hostname"},
        "link":{"type":"string","format":"uri"}},"required":["when","link"]})",
    // 4: enums and const.
    R"({"type":"object","properties":{"mode":{"enum":["fast","slow","auto"]},"level":{"type":"integer","enum":[1,2,3]},
        "mixed":{"enum":["a",1,null,true]},"fixed":{"const":"x"}},"required":["mode"]})",
    // 5: arrays with bounds, unique items, tuples.
    R"({"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","maxLength":8},"minItems":1,"maxItems":5},
        "ids":{"type":"array","items":{"type":"integer","minimum":0,"maximum":9},"uniqueItems":true,"maxItems":4},
        "any":{"type":"array"},"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"maxItems":2},
        "old":{"type":"array","items":[{"type":"boolean"},{"type":"number"}],"additionalItems":false},
        "many":{"type":"array","items":{"type":"string"},"minItems":3}},"required":["tags"]})",
    // 6: nested objects and records.
    R"({"type":"object","properties":{"options":{"type":"object","properties":{"limit":{"type":"integer","minimum":1},
        "filter":{"type":"object","properties":{"name":{"type":"string"},"deep":{"type":"object",
        "properties":{"x":{"type":"boolean"},"y":{"type":"array","items":{"type":"object","properties":{"z":{"type":"string"}}}}}}},
        "required":["name"]}},"required":["limit"]},
        "env":{"type":"object","additionalProperties":{"type":"string","maxLength":5}},
        "labels":{"type":"object","propertyNames":{"pattern":"^[a-z]+$"},"additionalProperties":{"type":"integer"}}},
        "required":["options"]})",
    // 7: numbers.
    R"({"type":"object","properties":{"n":{"type":"integer","minimum":-5,"maximum":5},"big":{"type":"integer"},
        "ex":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},"step":{"type":"integer","multipleOf":7,"minimum":10},
        "frac":{"type":"number","multipleOf":0.25,"maximum":3},"real":{"type":"number","minimum":-1e6},
        "old":{"type":"number","minimum":2,"exclusiveMinimum":true}},"required":["n","real"]})",
    // 8: unions, refs, allOf, not, nullable types.
    R"({"type":"object","$defs":{"pos":{"type":"integer","minimum":1}},"properties":{
        "u":{"anyOf":[{"type":"string","maxLength":4},{"type":"integer"}]},"o":{"oneOf":[{"type":"boolean"},{"type":"null"}]},
        "r":{"$ref":"#/$defs/pos"},"all":{"allOf":[{"type":"integer"},{"minimum":3},{"maximum":9}]},
        "not":{"type":"string","not":{"const":"a"},"maxLength":2},"maybe":{"type":["string","null"]},
        "both":{"type":["integer","string"]}},"required":["u","r"]})",
    // 9: anything, and required keys without schemas.
    R"({"type":"object","properties":{"x":{},"y":true,"z":{"type":"boolean"},"w":{"type":"null"}},"required":["x","q"]})",
    // 10: arrays of objects, deep nesting past max_depth.
    R"({"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"},
        "v":{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"array","items":{"type":"array",
        "items":{"type":"array","items":{"type":"integer"}}}}}}}},"required":["k"]}}}})",
    // 11: defaults, examples and quoted description values.
    R"({"type":"object","properties":{"path":{"type":"string","default":"src","description":"e.g. 'src/main.ts' or `lib`"},
        "depth":{"type":"integer","default":2,"minimum":0,"maximum":10},"q":{"type":"string","examples":["foo","bar"]},
        "id":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["path"]})",
    // 12: strings only, no bounds, several properties (a string-heavy tool).
    R"({"type":"object","properties":{"s1":{"type":"string"},"s2":{"type":"string"},"s3":{"type":"string","minLength":2},
        "s4":{"type":"string","maxLength":3000}},"required":["s1","s2","s3","s4"]})",
    // 13: not an object at the root, no properties at all.
    R"({"type":"object"})",
};

const std::uint64_t kSeeds[] = {1, 2, 0xdeadbeef};

// The plan's calls, each with the first shrinks of the first random and invalid calls.
void dump_plan(std::ostream& out, const json& schema, std::uint64_t seed, const Harvest& harvest) {
  ToolPlan plan(schema, 60, seed);
  std::size_t n = 0, random_shrunk = 0, invalid_shrunk = 0;
  while (auto c = plan.next(harvest)) {
    out << "  " << n++ << " " << phase_name(c->phase) << " [" << c->label << "] " << show(c->arguments.value()) << "\n";
    std::size_t& shrunk = c->phase == Phase::kInvalid ? invalid_shrunk : random_shrunk;
    if (c->phase == Phase::kBoundary || shrunk >= 3) continue;
    ++shrunk;
    auto shrinks = c->arguments.shrinks();
    std::size_t k = 0;
    while (k < 6) {
      auto s = shrinks.next();
      if (!s) break;
      out << "    shrink " << k++ << " " << show(s->value()) << "\n";
      // One level deeper on the first shrink: the tree below is the same too.
      if (k == 1) {
        auto deeper = s->shrinks().next();
        if (deeper) out << "      shrink 0.0 " << show(deeper->value()) << "\n";
      }
    }
  }
  if (!plan.cannot_generate().empty()) out << "  cannot generate: " << plan.cannot_generate() << "\n";
}

void dump_draws(std::ostream& out, const json& schema) {
  auto valid = valid_value(schema, schema);
  auto invalid = invalid_value(schema, schema);
  for (int size : {0, 1, 5, 30, 60, 100}) {
    for (std::uint64_t seed = 0; seed < 4; ++seed) {
      std::string v, i;
      try {
        v = show(valid(rc::Random(seed * 31 + static_cast<std::uint64_t>(size)), size).value());
      } catch (const rc::GenerationFailure& e) {
        v = std::string("failure: ") + e.what();
      }
      try {
        auto c = invalid(rc::Random(seed * 37 + static_cast<std::uint64_t>(size)), size).value();
        i = c.label + " " + show(c.value);
      } catch (const rc::GenerationFailure& e) {
        i = std::string("failure: ") + e.what();
      }
      out << "  size " << size << " seed " << seed << " valid " << v << "\n";
      out << "  size " << size << " seed " << seed << " invalid " << i << "\n";
    }
  }
}

std::string dump_all() {
  std::ostringstream out;
  Harvest harvest;
  harvest.take(json::parse(R"({"items":[{"id":"n-17","path":"src/a.ts","name":"run"},{"id":42,"file":"lib/b.ts:12"}]})"));
  std::size_t i = 0;
  for (const char* text : kSchemas) {
    const json schema = json::parse(text);
    for (std::uint64_t seed : kSeeds) {
      out << "schema " << i << " seed " << seed << "\n";
      dump_plan(out, schema, seed, Harvest{});
    }
    out << "schema " << i << " seed 5 harvest\n";
    dump_plan(out, schema, 5, harvest);
    out << "schema " << i << " draws\n";
    dump_draws(out, schema);
    ++i;
  }
  // The corpus: one digest of the 60 calls per tool, seed 3.
  std::vector<std::pair<std::string, json>> corpus;
  const fs::path dir = fs::path(CTXO_SOURCE_DIR) / "corpus" / "schemas";
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() != ".json" || e.path().parent_path().filename() == "_shapes") continue;
    std::ifstream in(e.path());
    corpus.emplace_back(fs::relative(e.path(), dir).string(), json::parse(in).at("inputSchema"));
  }
  std::sort(corpus.begin(), corpus.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [name, schema] : corpus) {
    std::ostringstream calls;
    dump_plan(calls, schema, 3, Harvest{});
    out << "corpus " << name << " " << hex64(fnv1a(calls.str())) << "\n";
  }
  return out.str();
}

TEST(PlanGolden, TheSameSeedGivesTheSameCallsAsTheGoldenFile) {
  const std::string now = dump_all();
  if (std::getenv("CTXO_UPDATE_GOLDEN") != nullptr) {
    fs::create_directories(kGolden.parent_path());
    std::ofstream(kGolden, std::ios::binary) << now;
    GTEST_SKIP() << "wrote " << kGolden;
  }
  std::ifstream in(kGolden, std::ios::binary);
  ASSERT_TRUE(in) << "no " << kGolden << " (CTXO_UPDATE_GOLDEN=1 writes it)";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string want = ss.str();
  if (now == want) return;
  std::istringstream a(want), b(now);
  std::string la, lb;
  std::size_t line = 0;
  while (true) {
    ++line;
    const bool ga = static_cast<bool>(std::getline(a, la));
    const bool gb = static_cast<bool>(std::getline(b, lb));
    if (!ga && !gb) break;
    if (!ga || !gb || la != lb) {
      FAIL() << "the generated calls changed; first difference at line " << line << "\n  golden: " << (ga ? la : "<end>")
             << "\n  now:    " << (gb ? lb : "<end>");
    }
  }
  FAIL() << "the generated calls changed";
}

}  // namespace
}  // namespace ctxo::gen
