// SPDX-License-Identifier: MIT
// Unicode measures, the WHATWG decoder on ill-formed input, and (line, column) <-> offset mapping.
#include <gtest/gtest.h>

#include <string>

#include "truncation/unicode.h"

namespace {

using namespace ctxo::truncation;

TEST(Unicode, Lengths) {
  EXPECT_EQ(utf16_length("a😀é中"), 1u + 2u + 1u + 1u);
  EXPECT_EQ(code_points("a😀é中"), 4u);
  EXPECT_EQ(utf8_length("a😀é中"), std::string("a😀é中").size());
  EXPECT_EQ(utf16_length(""), 0u);
}

TEST(Unicode, IllFormedInputUsesMaximalSubparts) {
  EXPECT_EQ(code_points("\xE2\x82"), 1u);            // truncated 3-byte sequence: one U+FFFD
  EXPECT_EQ(code_points("\xF0\x80\x80"), 3u);        // F0 80 is not a valid prefix
  EXPECT_EQ(code_points("\xED\xA0\x80"), 3u);        // encoded surrogate
  EXPECT_EQ(code_points("\xC0\xAF"), 2u);            // overlong
  EXPECT_EQ(code_points("\xF4\x90\x80\x80"), 4u);    // above U+10FFFF
  EXPECT_EQ(code_points("\xE2\x82" "A"), 2u);        // the A is not swallowed
  EXPECT_EQ(utf8_length("\xFF"), 3u);
  EXPECT_EQ(utf16_length("\xF0\x9F\x98"), 1u);
  const Utf8Step s = decode_utf8("\xE2\x82" "A", 0);
  EXPECT_FALSE(s.valid);
  EXPECT_EQ(s.length, 2);
  EXPECT_EQ(s.code_point, 0xFFFDu);
}

TEST(Unicode, PositionToOffset) {
  const std::string t = "a😀b\r\nxyz\n";  // 😀 is 4 bytes at offset 1; \r at 6, \n at 7
  EXPECT_EQ(*position_to_offset(t, 1, 1), 0u);
  EXPECT_EQ(*position_to_offset(t, 1, 2), 1u);
  EXPECT_FALSE(position_to_offset(t, 1, 3).ok());  // between the surrogates
  EXPECT_EQ(*position_to_offset(t, 1, 4), 5u);
  EXPECT_EQ(*position_to_offset(t, 1, 5), 6u);      // end of line 1: the \r
  EXPECT_FALSE(position_to_offset(t, 1, 6).ok());
  EXPECT_EQ(*position_to_offset(t, 2, 1), 8u);
  EXPECT_EQ(*position_to_offset(t, 3, 1), t.size());
  EXPECT_FALSE(position_to_offset(t, 4, 1).ok());
  EXPECT_FALSE(position_to_offset(t, 0, 1).ok());
  EXPECT_FALSE(position_to_offset(t, 1, 0).ok());
  EXPECT_EQ(position_to_offset(t, 4, 1).error().code, "position");
  EXPECT_EQ(*position_to_offset(t, 1, 6, ColumnUnit::kUtf8Bytes), 5u);
  EXPECT_FALSE(position_to_offset(t, 1, 3, ColumnUnit::kUtf8Bytes).ok());
  EXPECT_EQ(*position_to_offset(t, 1, 3, ColumnUnit::kCodePoints), 5u);
}

TEST(Unicode, OffsetToPosition) {
  const std::string t = "a😀b\r\nxyz";
  EXPECT_EQ(*offset_to_position(t, 0), (Position{1, 1}));
  EXPECT_EQ(*offset_to_position(t, 1), (Position{1, 2}));
  EXPECT_EQ(*offset_to_position(t, 3), (Position{1, 2}));  // inside 😀
  EXPECT_EQ(*offset_to_position(t, 5), (Position{1, 4}));
  EXPECT_EQ(*offset_to_position(t, 6), (Position{1, 5}));
  EXPECT_EQ(*offset_to_position(t, 7), (Position{1, 5}));  // the \n of \r\n
  EXPECT_EQ(*offset_to_position(t, 8), (Position{2, 1}));
  EXPECT_EQ(*offset_to_position(t, t.size()), (Position{2, 4}));
  EXPECT_FALSE(offset_to_position(t, t.size() + 1).ok());
  EXPECT_EQ(*column_in_bytes(t, 5), 6u);
  EXPECT_EQ(*column_in_code_points(t, 5), 3u);
  EXPECT_EQ(*column_in_utf16(t, 5), 4u);
  EXPECT_FALSE(is_position_boundary(t, 2));
  EXPECT_FALSE(is_position_boundary(t, 7));
  EXPECT_TRUE(is_position_boundary(t, 6));
  EXPECT_TRUE(is_position_boundary(t, t.size()));
}

TEST(Unicode, LoneCarriageReturnIsContent) {
  const std::string t = "a\rb";
  EXPECT_EQ(*offset_to_position(t, 2), (Position{1, 3}));
  EXPECT_EQ(*position_to_offset(t, 1, 4), 3u);
}

TEST(Unicode, RoundTripOnIllFormedBytes) {
  const std::string t = "x\xE2\x82\r\n\xFF\xF0\x9F\x98\x80\r\r\n\n\xC0";
  for (auto unit : {ColumnUnit::kUtf16, ColumnUnit::kUtf8Bytes, ColumnUnit::kCodePoints}) {
    for (std::size_t off = 0; off <= t.size(); ++off) {
      if (!is_position_boundary(t, off)) continue;
      auto p = offset_to_position(t, off, unit);
      ASSERT_TRUE(p.ok());
      auto back = position_to_offset(t, p->line, p->column, unit);
      ASSERT_TRUE(back.ok()) << back.error().message;
      EXPECT_EQ(*back, off) << "unit " << static_cast<int>(unit);
    }
  }
}

}  // namespace
