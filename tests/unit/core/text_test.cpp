// SPDX-License-Identifier: MIT
// The one file:// decoder (core/text.h), which the harvest and the position checks share.
#include "core/text.h"

#include <gtest/gtest.h>

namespace ctxo {
namespace {

TEST(FileUriPath, LocalUrisDecodeAndOthersAreNone) {
  EXPECT_EQ(file_uri_path("file:///w/src/a.ts"), "/w/src/a.ts");
  EXPECT_EQ(file_uri_path("file:///w/a%20b%2Fc.ts"), "/w/a b/c.ts");
  EXPECT_EQ(file_uri_path("file://localhost/w/a.ts"), "/w/a.ts");
  EXPECT_EQ(file_uri_path("file:///w/100%.ts"), "/w/100%.ts");  // not an escape: kept
  EXPECT_EQ(file_uri_path("file:///w/%e2%82%ac"), "/w/\xE2\x82\xAC");
  EXPECT_EQ(file_uri_path("file://server/share/a.ts"), std::nullopt);  // another host's file
  EXPECT_EQ(file_uri_path("file://"), std::nullopt);
  EXPECT_EQ(file_uri_path("https://x/a.ts"), std::nullopt);
  EXPECT_EQ(file_uri_path("/w/a.ts"), std::nullopt);
}

// Lone surrogate escapes of JSON text, and which sit where a cut fell: a high half that ends its
// string or stands before a cut marker, a low half that starts a string. Pairs and escaped
// backslashes are no lone surrogates; a lone half elsewhere is not a cut.
TEST(LoneSurrogates, TheOnesAtACutAreTold) {
  auto l = lone_surrogate_escapes(R"({"a":"ab\ud83d","b":"\ud83d\ude00","c":"x\\ud83d"})");
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].unit, 0xD83Du);
  EXPECT_EQ(l[0].at, 8u);
  EXPECT_TRUE(l[0].cut);
  for (const char* marker : {"\\u2026", "\xE2\x80\xA6", "...", " [truncated]", "\\n... (cut", " (+12 chars)", "[more]"}) {
    l = lone_surrogate_escapes(std::string(R"(["ab\ud83d)") + marker + "\"]");
    ASSERT_EQ(l.size(), 1u) << marker;
    EXPECT_TRUE(l[0].cut) << marker;
  }
  // The second half starting a string (the next page of a cut).
  l = lone_surrogate_escapes(R"({"page": "\ude00 and on"})");
  ASSERT_EQ(l.size(), 1u);
  EXPECT_TRUE(l[0].cut);
  // A lone half in the middle of a string, a low half ending one, a high half before a word.
  for (const char* s : {R"(["a\ud83db"])", R"(["a\ude00"])", R"(["a\ud83d [x]"])", R"(["a\ude00b"])"}) {
    l = lone_surrogate_escapes(s);
    ASSERT_EQ(l.size(), 1u) << s;
    EXPECT_FALSE(l[0].cut) << s;
  }
  EXPECT_TRUE(lone_surrogate_escapes(R"(["\ud83d\ude00", "\\ud83d"])").empty());
  EXPECT_FALSE(cut_marker_at("abc", 0));
  EXPECT_TRUE(cut_marker_at("x <truncated>", 1));
}

}  // namespace
}  // namespace ctxo
