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

}  // namespace
}  // namespace ctxo
