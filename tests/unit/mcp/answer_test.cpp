// SPDX-License-Identifier: MIT
// One answer read once (mcp/answer.h): each text part's JSON (whole, leading with a footer,
// fenced), the joined text, the sections, and what stays unread until asked.
#include "mcp/answer.h"

#include <gtest/gtest.h>

namespace ctxo::mcp {
namespace {

using nlohmann::json;

Reply result(json content, json structured = json()) {
  Reply r;
  r.kind = Reply::Kind::kResult;
  r.result = json{{"content", std::move(content)}};
  if (!structured.is_null()) r.result["structuredContent"] = std::move(structured);
  return r;
}

json text(const std::string& t) { return json{{"type", "text"}, {"text", t}}; }

TEST(Answer, EachPartIsReadForItsJsonOnce) {
  const Reply r = result(json::array({text(R"({"a":1})"), text("[1,2]\n\nUse offset 2 for more."),
                                      text("Found:\n```json\n{\"b\":2}\n```\nand\n```ts\nlet x = 1\n```\n"), text("42"),
                                      json{{"type", "image"}, {"data", "AAAA"}}}));
  const Answer a(r);
  ASSERT_EQ(a.parts().size(), 4u);
  const auto& read = a.read();
  ASSERT_EQ(read.size(), 4u);
  EXPECT_EQ(read[0].whole, json({{"a", 1}}));
  EXPECT_TRUE(read[0].leading.is_discarded());
  EXPECT_TRUE(read[1].whole.is_discarded());
  EXPECT_EQ(read[1].leading, json::array({1, 2}));
  EXPECT_EQ(std::string_view(*read[1].text).substr(read[1].rest), "\n\nUse offset 2 for more.");
  ASSERT_EQ(read[2].fenced.size(), 2u);
  EXPECT_EQ(read[2].fenced[0].value, json({{"b", 2}}));
  EXPECT_EQ(read[2].fenced[0].lang, "json");
  EXPECT_EQ(read[2].fenced[1].lang, "ts");
  EXPECT_EQ(read[2].fenced[1].body, "let x = 1");
  EXPECT_TRUE(read[2].fenced[1].value.is_discarded());
  EXPECT_EQ(read[3].whole, json(42));  // any JSON value, not only objects
  EXPECT_TRUE(a.non_text_content());
  EXPECT_EQ(a.text().size(), a.text_bytes());
  EXPECT_FALSE(a.exact_object());  // four parts joined are not one object
}

TEST(Answer, TheJoinedTextIsOneObjectOnlyWhenItIs) {
  EXPECT_TRUE(Answer(result(json::array({text(" {\"a\":1} ")}))).exact_object());
  // Two halves of one object in two parts are one JSON text once joined.
  const Reply halves = result(json::array({text("{\"a\":"), text("1}")}));
  EXPECT_TRUE(Answer(halves).exact_object());
  EXPECT_EQ(Answer(halves).text(), "{\"a\":\n1}");
  EXPECT_EQ(Answer(halves).sections(), "{\"a\":\n---\n1}");
  EXPECT_FALSE(Answer(result(json::array({text("[1]")}))).exact_object());
  EXPECT_FALSE(Answer(result(json::array())).exact_object());
  Reply error;
  error.kind = Reply::Kind::kError;
  error.error = json{{"code", -32602}};
  const Answer e(error);
  EXPECT_TRUE(e.parts().empty());
  EXPECT_TRUE(e.read().empty());
  EXPECT_EQ(e.text_bytes(), 0u);
}

TEST(Answer, StructuredContentNullIsNone) {
  EXPECT_EQ(Answer(result(json::array({text("x")}), json())).structured(), nullptr);
  const Reply r = result(json::array({text("x")}), json{{"k", 1}});
  ASSERT_NE(Answer(r).structured(), nullptr);
  EXPECT_EQ(*Answer(r).structured(), json({{"k", 1}}));
}

TEST(Answer, AFenceClosesOnlyAtALineStart) {
  // A ``` inside a JSON string is not the closing fence; an unclosed fence ends the list.
  auto blocks = fenced_blocks("```json\n{\"a\": \"x```y\"}\n```\ntail\n```\nopen");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].value, json({{"a", "x```y"}}));
  // An empty block.
  blocks = fenced_blocks("```\n```");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].body, "");
  EXPECT_EQ(blocks[0].end, 7u);
  EXPECT_TRUE(fenced_blocks("no fence ``` here").empty());
}

TEST(Answer, APartThatIsNotTypedTextIsStillRead) {
  // A block with a text string but another type is read (the envelope reader skips it by typed_text).
  const Reply r = result(json::array({json{{"type", "resource_link"}, {"text", "{}"}}}));
  const Answer a(r);
  ASSERT_EQ(a.read().size(), 1u);
  EXPECT_FALSE(a.read()[0].typed_text);
  EXPECT_TRUE(a.non_text_content());
}

// A part whose JSON holds a lone surrogate escape is still read as JSON (U+FFFD in its place),
// and says where the lone half is and whether a cut put it there.
TEST(Answer, JsonWithALoneSurrogateIsReadAndTheCutIsTold) {
  const Reply r = result(json::array({text(R"({"preview":"go \ud83d\u2026"})"), text(R"({"a":"\ud83db"} and more)"),
                                      text(R"({"ok":"\ud83d\ude80"})")}));
  const Answer a(r);
  const auto& read = a.read();
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[0].whole, json({{"preview", "go \xEF\xBF\xBD\xE2\x80\xA6"}}));
  ASSERT_TRUE(read[0].lone_cut);
  EXPECT_EQ(read[0].lone_cut->at, 15u);
  EXPECT_EQ(read[1].leading, json({{"a", "\xEF\xBF\xBD" "b"}}));
  ASSERT_TRUE(read[1].lone);
  EXPECT_FALSE(read[1].lone_cut);
  EXPECT_FALSE(read[2].lone);
  EXPECT_EQ(read[2].whole, json({{"ok", "\xF0\x9F\x9A\x80"}}));
}

}  // namespace
}  // namespace ctxo::mcp
