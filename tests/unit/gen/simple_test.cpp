// SPDX-License-Identifier: MIT
// The simple values (the typical arguments E-MISS lookups start from): they validate against the
// schemas they came from (checked with the same validator the harness uses), and are deterministic.
#include "gen/simple.h"

#include <gtest/gtest.h>

#include "profile/schema_validator.h"

namespace ctxo::gen {
namespace {

const char* kSchemas[] = {
    R"({"type":"object"})",
    R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})",
    R"({"type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":100},"b":{"type":"integer"}},"required":["a","b"]})",
    R"({"type":"object","properties":{"q":{"type":"string","minLength":3,"maxLength":5},"n":{"type":"number","exclusiveMinimum":0,"maximum":1}}})",
    R"({"type":"object","properties":{"mode":{"type":"string","enum":["fast","slow"]},"k":{"const":7}},"required":["mode","k"]})",
    R"({"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":3}},"required":["tags"]})",
    R"({"type":"object","properties":{"v":{"anyOf":[{"type":"string","format":"email"},{"type":"null"}]}},"required":["v"]})",
    R"({"type":"object","properties":{"p":{"$ref":"#/$defs/Point"}},"required":["p"],"$defs":{"Point":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}},"required":["x","y"],"additionalProperties":false}}})",
    R"({"type":"object","properties":{"n":{"type":["integer","null"],"multipleOf":5,"minimum":3}},"required":["n"]})",
    R"({"type":"object","properties":{"id":{"type":"string","pattern":"^[0-9]+$"}},"required":["id"]})",
    R"({"type":"object","properties":{"t":{"type":"array","minItems":2,"maxItems":2,"items":[{"type":"string"},{"type":"number"}]}},"required":["t"]})",
    R"({"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"number"}}},"additionalProperties":false})",
    R"({"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"boolean"}},"required":["b"]}]})",
    R"({"type":"object","properties":{"d":{"type":"string","format":"date-time"},"u":{"type":"string","format":"uuid"}},"required":["d","u"]})",
};

TEST(SimpleValue, ValuesValidateAgainstTheirSchema) {
  for (const char* text : kSchemas) {
    auto schema = nlohmann::json::parse(text);
    auto v = profile::SchemaValidator::compile(schema);
    ASSERT_TRUE(v.ok()) << text;
    for (std::size_t variant = 0; variant < 4; ++variant) {
      auto value = simple_value(schema, schema, variant, 42);
      auto errors = v->validate(value);
      EXPECT_TRUE(errors.empty()) << text << "\n  variant " << variant << ": " << value.dump() << "\n  "
                                  << (errors.empty() ? "" : errors.front());
    }
  }
}

TEST(SimpleValue, VariantsOneAndTwoReachTheBounds) {
  auto schema = nlohmann::json::parse(kSchemas[2]);
  EXPECT_EQ(simple_value(schema, schema, 1, 1)["a"], 0);
  EXPECT_EQ(simple_value(schema, schema, 2, 1)["a"], 100);
}

TEST(SimpleValue, DeterministicForTheSameSeed) {
  for (const char* text : kSchemas) {
    auto schema = nlohmann::json::parse(text);
    for (std::size_t variant = 0; variant < 6; ++variant)
      EXPECT_EQ(simple_value(schema, schema, variant, 9), simple_value(schema, schema, variant, 9)) << text;
  }
}

}  // namespace
}  // namespace ctxo::gen
