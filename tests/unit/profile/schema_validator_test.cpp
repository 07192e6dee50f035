// SPDX-License-Identifier: MIT
// SchemaValidator: compile errors are Results, violations carry JSON Pointers, hostile schemas
// and documents neither throw nor crash.
#include "profile/schema_validator.h"

#include <algorithm>
#include <chrono>
#include <string>

#include <gtest/gtest.h>

namespace {

using ctxo::profile::parse_json_text;
using ctxo::profile::resolve_pointer;
using ctxo::profile::SchemaValidator;
using ctxo::profile::Violation;
using nlohmann::json;

bool has_pointer(const std::vector<Violation>& vs, const std::string& pointer) {
  return std::any_of(vs.begin(), vs.end(), [&](const Violation& v) { return v.pointer == pointer; });
}

SchemaValidator compiled(const json& schema) {
  auto v = SchemaValidator::compile(schema);
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  return v.ok() ? *v : SchemaValidator();
}

TEST(SchemaValidator, DefaultAcceptsEverything) {
  SchemaValidator v;
  EXPECT_TRUE(v.check(json::parse(R"({"a": [1, "x"]})")).empty());
  EXPECT_TRUE(v.is_valid(nullptr));
}

TEST(SchemaValidator, ViolationsCarryJsonPointers) {
  auto v = compiled(json::parse(R"({
    "type": "object", "required": ["_meta"],
    "properties": {"_meta": {"type": "object", "properties": {"truncated": {"type": "boolean"},
                   "items": {"type": "array", "items": {"type": "integer", "minimum": 0}}}}}})"));
  EXPECT_TRUE(v.check(json::parse(R"({"_meta": {"truncated": false}, "extra": 1})")).empty());
  auto bad = v.check(json::parse(R"({"_meta": {"truncated": "no", "items": [1, -2]}})"));
  EXPECT_TRUE(has_pointer(bad, "/_meta/truncated"));
  EXPECT_TRUE(has_pointer(bad, "/_meta/items/1"));
  EXPECT_FALSE(has_pointer(bad, "/_meta/items/0"));
  auto missing = v.check(json::object());
  ASSERT_FALSE(missing.empty());
  EXPECT_TRUE(has_pointer(missing, ""));
  const auto strings = v.validate(json::object());
  ASSERT_FALSE(strings.empty());
  EXPECT_EQ(strings[0].rfind("at (root): ", 0), 0u) << strings[0];
}

TEST(SchemaValidator, PointerTokensAreEscaped) {
  auto v = compiled(json::parse(R"({"properties": {"a/b~c": {"type": "string"}}})"));
  auto bad = v.check(json::parse(R"({"a/b~c": 3})"));
  EXPECT_TRUE(has_pointer(bad, "/a~1b~0c"));
  EXPECT_NE(v.validate(json::parse(R"({"a/b~c": 3})"))[0].find("at /a~1b~0c: "), std::string::npos);
}

TEST(SchemaValidator, LocalRefsToDefinitionsAndDefs) {
  auto v = compiled(json::parse(R"({
    "properties": {"a": {"$ref": "#/definitions/count"}, "b": {"$ref": "#/$defs/flag"}},
    "definitions": {"count": {"type": "integer", "minimum": 0}},
    "$defs": {"flag": {"type": "boolean"}}})"));
  EXPECT_TRUE(v.is_valid(json::parse(R"({"a": 3, "b": true})")));
  auto bad = v.check(json::parse(R"({"a": "3", "b": 1})"));
  EXPECT_TRUE(has_pointer(bad, "/a"));
  EXPECT_TRUE(has_pointer(bad, "/b"));
}

TEST(SchemaValidator, RecursiveSchemaThroughProperties) {
  auto v = compiled(json::parse(R"({"type": "object", "properties": {"child": {"$ref": "#"}, "n": {"type": "integer"}}})"));
  EXPECT_TRUE(v.is_valid(json::parse(R"({"child": {"child": {"n": 1}}})")));
  EXPECT_TRUE(has_pointer(v.check(json::parse(R"({"child": {"child": {"n": "x"}}})")), "/child/child/n"));
}

TEST(SchemaValidator, UnknownAndNewerKeywordsAreIgnored) {
  auto v = compiled(json::parse(R"({"$schema": "https://json-schema.org/draft/2020-12/schema",
    "x-vendor": {"whatever": true}, "unevaluatedProperties": false, "prefixItems": [{"type": "string"}],
    "type": "object"})"));
  EXPECT_TRUE(v.is_valid(json::parse(R"({"anything": [1]})")));
  EXPECT_FALSE(v.is_valid(json::array()));
}

TEST(SchemaValidator, IfThenElseAndConst) {
  auto v = compiled(json::parse(R"({"if": {"properties": {"truncated": {"const": true}}, "required": ["truncated"]},
                                    "then": {"required": ["hint"]}})"));
  EXPECT_TRUE(v.is_valid(json::parse(R"({"truncated": false})")));
  EXPECT_FALSE(v.is_valid(json::parse(R"({"truncated": true})")));
  EXPECT_TRUE(v.is_valid(json::parse(R"({"truncated": true, "hint": "h"})")));
}

TEST(SchemaValidator, Draft04ExclusiveMinimumBoolean) {
  auto v = compiled(json::parse(R"({"$schema": "http://json-schema.org/draft-04/schema#",
                                    "type": "number", "minimum": 0, "exclusiveMinimum": true})"));
  EXPECT_FALSE(v.is_valid(0));
  EXPECT_TRUE(v.is_valid(1));
}

TEST(SchemaValidator, BadSchemasAreErrorsNotExceptions) {
  const char* bad[] = {
      R"("a string")",
      R"(42)",
      R"({"type": 42})",
      R"({"minLength": "three"})",
      R"({"required": "x"})",
      R"({"properties": {"a": 5}})",
      R"({"$ref": "#/definitions/missing"})",
      R"({"$ref": "https://example.com/remote.json"})",
      R"({"$ref": 7})",
      R"({"allOf": 5})",
      R"({"items": [1]})",
      R"({"pattern": "([a-z"})",
      R"({"pattern": "(a{99999}){99999}"})",
      // std::regex would recurse per nested group: refused, as RE2 cannot take it either (lookahead).
      R"x({"pattern": "(?=x)((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))"})x",
      R"({"exclusiveMaximum": true})",
      // valijson would divide by these (an integer division by zero is SIGFPE).
      R"({"type": "integer", "multipleOf": 0})",
      R"({"properties": {"n": {"type": "number", "multipleOf": -2.5}}})",
      R"({"multipleOf": "3"})",
  };
  for (const char* text : bad) {
    SCOPED_TRACE(text);
    auto doc = parse_json_text(text);
    ASSERT_TRUE(doc.ok());
    auto v = SchemaValidator::compile(*doc);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.error().code, "schema");
    EXPECT_FALSE(v.error().message.empty());
  }
}

// Group nesting std::regex would recurse through is no danger to RE2 (no recursion, no
// backtracking): such a pattern is compiled and matched.
TEST(SchemaValidator, DeeplyNestedGroupsAreMatchedByRe2) {
  auto v = compiled(json::parse(R"x({"pattern": "^((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))$"})x"));
  EXPECT_TRUE(v.is_valid(json("a")));
  EXPECT_FALSE(v.is_valid(json("b")));
}

TEST(SchemaValidator, CyclicRefChainsAreRefused) {
  const char* cyclic[] = {
      R"({"$ref": "#"})",
      R"({"$ref": "#/definitions/a", "definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}})",
      R"({"properties": {"x": {"$ref": "#/properties/x"}}})",
      R"({"properties": {"x": {"$ref": "#/properties/x/"}}})",
      R"({"properties": {"x": {"$ref": "#/properties//x"}}})",
      R"({"properties": {"x": {"$ref": "#/properties/%78"}}})",
      R"({"id": "http://x/", "properties": {"a": {"$ref": "http://x/#/properties/a"}}})",
  };
  for (const char* text : cyclic) {
    SCOPED_TRACE(text);
    auto v = SchemaValidator::compile(json::parse(text));
    ASSERT_FALSE(v.ok());
    EXPECT_NE(v.error().message.find("cyclic"), std::string::npos) << v.error().message;
  }
}

TEST(SchemaValidator, DeepDocumentsAreRefusedNotRecursedInto) {
  std::string deep(5000, '[');
  deep += std::string(5000, ']');
  auto parsed = parse_json_text(deep);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code, "parse");

  json nested = json::array();
  for (int i = 0; i < ctxo::profile::kMaxJsonDepth + 5; ++i) nested = json::array({nested});
  EXPECT_FALSE(SchemaValidator::compile(json{{"items", nested}}).ok());
  auto v = compiled(json::parse(R"({"items": {"$ref": "#"}})"));
  auto out = v.check(nested);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].message.find("deeper"), std::string::npos);
  EXPECT_FALSE(v.is_valid(nested));
}

TEST(SchemaValidator, LongStringsAgainstPatternsDoNotOverflowTheStack) {
  auto v = compiled(json::parse(R"({"properties": {"s": {"type": "string", "pattern": "^(a|b)*$", "maxLength": 10}}})"));
  EXPECT_TRUE(v.is_valid(json{{"s", "abab"}}));
  EXPECT_FALSE(v.is_valid(json{{"s", "abc"}}));
  json big{{"s", std::string(1u << 20, 'a')}};
  auto out = v.check(big);  // pattern skipped for huge strings; maxLength still applies
  EXPECT_TRUE(std::any_of(out.begin(), out.end(), [](const Violation& x) { return x.pointer == "/s"; }));

  auto dt = compiled(json::parse(R"({"items": {"type": "string", "format": "date-time"}})"));
  EXPECT_TRUE(dt.is_valid(json::parse(R"(["2025-06-18T10:00:00Z"])")));
  EXPECT_FALSE(dt.is_valid(json::parse(R"(["yesterday"])")));
  EXPECT_TRUE(dt.check(json::array({std::string(1u << 20, '9')})).empty());  // format skipped, no crash
}

TEST(SchemaValidator, EverydayPatternsCompile) {
  auto v = compiled(json::parse(R"({"properties": {
    "uuid": {"pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"},
    "date": {"pattern": "^\\d{4}-\\d{2}-\\d{2}$"}}})"));
  EXPECT_TRUE(v.is_valid(json::parse(R"({"uuid": "2f1c0b7e-8d4a-4c57-9e0a-2b1c3d4e5f60", "date": "2025-06-18"})")));
  EXPECT_FALSE(v.is_valid(json::parse(R"({"date": "18/06/2025"})")));
}

// Patterns are matched by RE2 (issue 27): a pattern whose backtracking is exponential under
// std::regex (2^34 steps here: hours) is matched in linear time, in `pattern` and in
// `patternProperties`, from check() and from is_valid().
TEST(SchemaValidator, BacktrackingPatternsMatchInLinearTime) {
  EXPECT_EQ(ctxo::profile::pattern_engine("^(a+)+$"), "re2");
  auto v = compiled(json::parse(R"({"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}},
    "patternProperties": {"^(x+x+)+y$": {"type": "integer"}}})"));
  const auto start = std::chrono::steady_clock::now();
  const std::string evil = std::string(34, 'a') + "b";
  EXPECT_FALSE(v.is_valid(json{{"s", evil}}));
  auto out = v.check(json{{"s", evil}});
  EXPECT_TRUE(has_pointer(out, "/s")) << out.size();
  EXPECT_TRUE(v.is_valid(json{{"s", std::string(34, 'a')}}));
  // A property name that makes the patternProperties regex backtrack: not matched, so not checked.
  EXPECT_TRUE(v.is_valid(json{{std::string(40, 'x'), "not an integer"}}));
  EXPECT_FALSE(v.is_valid(json{{"xxy", "not an integer"}}));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 1.0) << "backtracking: " << seconds << " s";
}

// Ordinary patterns keep their ECMA-262 meaning under RE2: search, not full match (anchors say
// where), classes, escapes, counted repetition, \uXXXX escapes and named groups spelled the ECMA way.
TEST(SchemaValidator, PatternsKeepTheirMeaning) {
  struct Case {
    const char* pattern;
    const char* subject;
    bool matches;
  };
  const Case cases[] = {
      {"abc", "xxabcxx", true},        {"^abc$", "xxabcxx", false},       {"^a{2,3}$", "aaaa", false},
      {"^a{2,3}$", "aaa", true},       {"^\\d+$", "12a", false},           {"^[^\\s]+$", "no-space", true},
      {"^\\w+@\\w+\\.com$", "me@x.com", true}, {"^\\u00e9$", "\u00e9", true},   {"^(?<year>\\d{4})-", "2025-01", true},
      {"^[(?<]+$", "(?<", true},       {"^[(?<]+$", "(?P<", false},       {"^\\/path$", "/path", true},
      {"^.$", "\u00e9", true},  // one character, two bytes: ECMA-262 counts characters, RE2 too
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.pattern);
    EXPECT_EQ(ctxo::profile::pattern_engine(c.pattern), "re2");
    auto v = compiled(json{{"type", "string"}, {"pattern", c.pattern}});
    EXPECT_EQ(v.is_valid(json(c.subject)), c.matches) << c.subject;
  }
}

// What RE2 cannot express (lookahead, backreferences) keeps the guarded std::regex path, with
// its ECMA-262 meaning.
TEST(SchemaValidator, LookaroundAndBackreferencesFallBackToStdRegex) {
  EXPECT_EQ(ctxo::profile::pattern_engine("^(?=.*\\d)\\w+$"), "std::regex");
  EXPECT_EQ(ctxo::profile::pattern_engine("^(a)\\1$"), "std::regex");
  auto look = compiled(json{{"type", "string"}, {"pattern", "^(?=.*\\d)\\w+$"}});
  EXPECT_TRUE(look.is_valid(json("abc1")));
  EXPECT_FALSE(look.is_valid(json("abcd")));
  auto back = compiled(json{{"type", "string"}, {"pattern", "^(a|b)\\1$"}});
  EXPECT_TRUE(back.is_valid(json("bb")));
  EXPECT_FALSE(back.is_valid(json("ab")));
}

// An enum of more than 64 values is checked by the harness, not by valijson (which held two
// copies of its values: a 100,000-object enum cost 16 times its text). Its verdicts are JSON's
// equality: numbers by value (1 and 1.0, -0 and 0), objects whatever their member order, and no
// coercion between types; a value outside it is rejected where it is, with valijson's message.
TEST(SchemaValidator, LargeEnumsKeepJsonEquality) {
  json values = json::array();
  for (int i = 0; i < 200; ++i) values.push_back({{"k", i}, {"v", "value-" + std::to_string(i)}});
  values.push_back(1);
  values.push_back(0);
  values.push_back("1");
  values.push_back(nullptr);
  values.push_back(false);
  values.push_back(json::array({1, "a", json::object()}));
  values.push_back("caf\u00e9 \xf0\x9f\x9a\x80");
  const json schema = {{"type", "object"},
                       {"properties", {{"x", {{"enum", values}}}, {"small", {{"enum", {"a", "b"}}}}}}};
  const SchemaValidator v = compiled(schema);
  const SchemaValidator small = compiled({{"type", "object"}, {"properties", {{"x", {{"enum", {"a", "b"}}}}}}});
  for (const json& in : values) EXPECT_TRUE(v.is_valid({{"x", in}})) << in.dump();
  EXPECT_TRUE(v.is_valid({{"x", json::parse(R"({"v":"value-7","k":7.0})")}}));
  EXPECT_TRUE(v.is_valid({{"x", 1.0}}));
  EXPECT_TRUE(v.is_valid({{"x", -0.0}}));
  EXPECT_TRUE(v.is_valid({{"x", json::parse(R"([1.0,"a",{}])")}}));
  for (const json& out : {json(2), json("0"), json(true), json("value-1"), json::object(),
                          json({{"k", 1}}), json({{"k", 1}, {"v", "value-1"}, {"w", 0}}),
                          json({{"k", "1"}, {"v", "value-1"}}), json::array({1, "a"}), json("caf\u00e9")}) {
    EXPECT_FALSE(v.is_valid({{"x", out}})) << out.dump();
    // As valijson's own enum says it (and, as for any property, its parent once more).
    const auto violations = v.check({{"x", out}});
    EXPECT_TRUE(std::any_of(violations.begin(), violations.end(), [](const Violation& e) {
      return e.pointer == "/x" && e.message == "Failed to match against any enum values.";
    })) << out.dump();
    EXPECT_EQ(violations.size(), small.check({{"x", "c"}}).size()) << out.dump();
  }
  EXPECT_FALSE(v.is_valid({{"x", 1}, {"small", "c"}}));  // small enums are still valijson's
  EXPECT_EQ(v.schema(), schema);                          // the document is the server's, unchanged
}

// A large enum under a $ref, under a pattern (the copy without patterns checks it too), and the
// harness's own keyword in a server's schema, which constrains nothing.
TEST(SchemaValidator, LargeEnumsWorkWhereverTheyAre) {
  json ids = json::array();
  for (int i = 0; i < 100; ++i) ids.push_back("id-" + std::to_string(i));
  const json schema = {{"type", "object"},
                       {"definitions", {{"id", {{"enum", ids}}}}},
                       {"properties",
                        {{"a", {{"$ref", "#/definitions/id"}}},
                         {"b", {{"type", "string"}, {"pattern", "^id-"}, {"enum", ids}}},
                         {"c", {{"x-ctxo-enum-index", 0}}},
                         {"d", {{"x-ctxo-enum-index", "nonsense"}}}}}};
  const SchemaValidator v = compiled(schema);
  EXPECT_TRUE(v.is_valid({{"a", "id-5"}, {"b", "id-99"}, {"c", "anything"}, {"d", 3}}));
  EXPECT_FALSE(v.is_valid({{"a", "id-100"}}));
  EXPECT_FALSE(v.is_valid({{"b", "id-100"}}));
  // A long string switches to the copy without patterns: the enum still holds there.
  EXPECT_FALSE(v.is_valid({{"b", "id-" + std::string(3000, '9')}}));
  EXPECT_TRUE(v.is_valid({{"a", "id-0"}, {"b", "id-1"}}));
}

TEST(SchemaValidator, BooleanSchemas) {
  EXPECT_TRUE(compiled(json(true)).is_valid(json::object()));
  EXPECT_FALSE(compiled(json(false)).is_valid(json::object()));
  auto v = compiled(json::parse(R"({"properties": {"data": true, "never": false}})"));
  EXPECT_TRUE(v.is_valid(json::parse(R"({"data": [1, {"x": null}]})")));
  EXPECT_TRUE(has_pointer(v.check(json::parse(R"({"never": 1})")), "/never"));
}

TEST(SchemaValidator, SchemaDocumentIsKept) {
  json schema = json::parse(R"({"type": "string"})");
  EXPECT_EQ(compiled(schema).schema(), schema);
}

TEST(JsonHelpers, ParseErrorsNameTheLine) {
  auto r = parse_json_text("{\n  \"a\": 1,\n  }\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("line 3"), std::string::npos) << r.error().message;
  EXPECT_FALSE(parse_json_text("").ok());
  EXPECT_FALSE(parse_json_text("{} trailing").ok());
  EXPECT_FALSE(parse_json_text("\"\xff\"").ok());
}

TEST(JsonHelpers, ResolvePointer) {
  json doc = json::parse(R"({"a": {"b/c": [10, 20], "~": 1, "": 2}})");
  ASSERT_NE(resolve_pointer(doc, ""), nullptr);
  EXPECT_EQ(*resolve_pointer(doc, "/a/b~1c/1"), 20);
  EXPECT_EQ(*resolve_pointer(doc, "/a/~0"), 1);
  EXPECT_EQ(*resolve_pointer(doc, "/a/"), 2);
  EXPECT_EQ(resolve_pointer(doc, "/a/b~1c/2"), nullptr);
  EXPECT_EQ(resolve_pointer(doc, "/a/b~1c/01"), nullptr);
  EXPECT_EQ(resolve_pointer(doc, "/a/b~1c/-"), nullptr);
  EXPECT_EQ(resolve_pointer(doc, "/a/~2"), nullptr);
  EXPECT_EQ(resolve_pointer(doc, "a"), nullptr);
  EXPECT_EQ(resolve_pointer(doc, "/a/b~1c/0/x"), nullptr);
  EXPECT_EQ(ctxo::profile::escape_pointer_token("a/b~c"), "a~1b~0c");
}

}  // namespace
