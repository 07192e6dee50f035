// SPDX-License-Identifier: MIT
// The one `path:line[:col]` reader (core/anchor.h): the parts it gives under each form, the
// forward reading the text scanner uses, and the number bound. What each caller then accepts (its
// own path rule) is held to what the three hand-written readers it replaced accepted, input by
// input: tests/unit/checks/generic_positions_test.cpp (text_anchors) and
// tests/unit/gen/prose_test.cpp (prose's and the harvest's).
#include "core/anchor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ctxo {
namespace {

struct Row {
  std::string token;
  bool found;
  std::string path, line, column;
};

void expect_rows(const std::vector<Row>& rows, AnchorForms forms) {
  for (const auto& r : rows) {
    const auto p = parse_anchor(r.token, forms);
    ASSERT_EQ(p.has_value(), r.found) << r.token;
    if (!p) continue;
    EXPECT_EQ(p->path, r.path) << r.token;
    EXPECT_EQ(p->line, r.line) << r.token;
    EXPECT_EQ(p->column, r.column) << r.token;
  }
}

// The colon form alone (the harvest's): the last one or two `:digits` groups end the token.
TEST(Anchor, ColonFormTakesTheLastOneOrTwoNumberGroups) {
  expect_rows({{"src/a.ts:12", true, "src/a.ts", "12", ""},
               {"src/a.ts:12:5", true, "src/a.ts", "12", "5"},
               {"a.ts:0", true, "a.ts", "0", ""},
               {"a.ts:000000000012", true, "a.ts", "000000000012", ""},
               {"a:1:2:3", true, "a:1", "2", "3"},        // at most two groups
               {"a::2", true, "a:", "2", ""},             // an empty group ends the reading
               {"a:x:5", true, "a:x", "5", ""},
               {":1:2", true, ":1", "2", ""},             // a colon at 0 separates nothing
               {"C:\\x.ts:3", true, "C:\\x.ts", "3", ""},  // the path is the caller's to judge
               {"12:30", true, "12", "30", ""},
               {":12", false, "", "", ""},
               {"src/a.ts:", false, "", "", ""},
               {"src/a.ts:12:", false, "", "", ""},      // no trailing colons in this form
               {"a.ts:L12", false, "", "", ""},
               {"a.ts:12abc", false, "", "", ""},
               {"x.js:1.2", false, "", "", ""},
               {"foo:bar", false, "", "", ""},
               {"http://host:8080/x", false, "", "", ""},
               {"a.ts:\xD9\xA3", false, "", "", ""},      // ASCII digits only
               {"a.ts#L12", false, "", "", ""},
               {"src/a.ts(12,5)", false, "", "", ""},
               {"", false, "", "", ""},
               {":", false, "", "", ""}},
              AnchorForms{});
}

// Prose's forms: trailing colons dropped, `path(line[,col])`, `path#Lline`.
TEST(Anchor, ProseFormsParenthesisedGithubAndTrailingColons) {
  const AnchorForms all{.trailing_colons = true, .parenthesised = true, .github_line = true};
  expect_rows({{"src/app.ts:4:24:", true, "src/app.ts", "4", "24"},
               {"src/a.ts:12:5::", true, "src/a.ts", "12", "5"},
               {"src/a.ts:12:5:6", true, "src/a.ts:12", "5", "6"},
               {"src/a.ts(12,5)", true, "src/a.ts", "12", "5"},
               {"src/a.ts(12, 5)", true, "src/a.ts", "12", "5"},
               {"src/a.ts(12)", true, "src/a.ts", "12", ""},
               {"src/a.ts(12):", true, "src/a.ts", "12", ""},
               {"src/a.ts(12,)", false, "", "", ""},
               {"src/a.ts(x)", false, "", "", ""},
               {"(12)", false, "", "", ""},  // no path before it
               {"a.ts:12)", false, "", "", ""},  // ends in ')': that form or none
               {"a.ts#L12", true, "a.ts", "12", ""},
               {"a.ts#L12-L20", true, "a.ts", "12", ""},
               {"a.ts#L12-", true, "a.ts", "12", ""},
               {"a.ts#Lx", false, "", "", ""},
               {"a.ts#L", false, "", "", ""},
               {"src/a.ts#L3:4", false, "", "", ""},  // has "#L": that form or none
               {"#L12", false, "", "", ""}},           // "#L" at 0: the colon form, which fails
              all);
  // Each form is off unless asked for.
  EXPECT_FALSE(parse_anchor("src/a.ts(12)", AnchorForms{.trailing_colons = true, .github_line = true}));
  EXPECT_FALSE(parse_anchor("a.ts#L12", AnchorForms{.trailing_colons = true, .parenthesised = true}));
  EXPECT_FALSE(parse_anchor("a.ts:12:", AnchorForms{.parenthesised = true, .github_line = true}));
}

// The forward reading the text scanner uses at each ':' it meets.
TEST(Anchor, LineColumnReadForwardFromAColon) {
  const std::string s = "see src/a.ts:12:5 - x, b.ts:7:, c.ts:9:x, d:";
  auto lc = line_column_at(s, s.find(':'));
  ASSERT_TRUE(lc);
  EXPECT_EQ(lc->line, "12");
  EXPECT_EQ(lc->column, "5");
  EXPECT_EQ(s.substr(lc->end, 4), " - x");
  lc = line_column_at(s, s.find("b.ts:") + 4);
  ASSERT_TRUE(lc);
  EXPECT_EQ(lc->line, "7");
  EXPECT_EQ(lc->column, "");  // a ':' with no digit after it is no column
  EXPECT_EQ(s[lc->end], ':');
  lc = line_column_at(s, s.find("c.ts:") + 4);
  ASSERT_TRUE(lc);
  EXPECT_EQ(lc->column, "");
  EXPECT_FALSE(line_column_at(s, s.size() - 1));  // nothing after it
  EXPECT_FALSE(line_column_at(s, 0));              // not a colon
  EXPECT_FALSE(line_column_at(s, s.size()));
}

// A number is read until it reaches 10^8; digits left then make it none.
TEST(Anchor, NumbersAreBounded) {
  EXPECT_EQ(anchor_number("0"), 0);
  EXPECT_EQ(anchor_number("123456789"), 123456789);
  EXPECT_EQ(anchor_number("000000000012"), 12);
  EXPECT_EQ(anchor_number("1234567890"), std::nullopt);
  EXPECT_EQ(anchor_number("99999999999"), std::nullopt);
  EXPECT_EQ(anchor_number("100000000"), 100000000);
  EXPECT_EQ(anchor_number("1000000000"), std::nullopt);
}

}  // namespace
}  // namespace ctxo
