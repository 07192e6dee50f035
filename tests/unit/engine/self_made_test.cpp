// SPDX-License-Identifier: MIT
// Self-made data (engine/self_made.h): which strings of a call to a tool that writes the run made
// up, and which later calls carry one.
#include <gtest/gtest.h>

#include "engine/self_made.h"

namespace ctxo::engine::detail {
namespace {

using nlohmann::json;

const json kSchema = json::parse(R"({"type":"object","properties":{
  "name":{"type":"string"},"mode":{"type":"string","enum":["append","overwrite"]},
  "path":{"type":"string","default":"notes/today.md"}}})");

TEST(SelfMade, StringsTheRunMadeUpAreKeptOnlyOnceTheWriteWasAnswered) {
  MadeUp m;
  auto never = [](const std::string&) { return false; };
  const json write = {{"name", "Zq8vX"}, {"mode", "append"}, {"path", "notes/today.md"}, {"tags", {"x", "test value"}}};
  const auto fresh = m.fresh(write, kSchema, never);
  // The schema's own values (an enum value, a default) and strings under three bytes are no sign
  // of a write.
  EXPECT_EQ(fresh, (std::vector<std::string>{"Zq8vX", "test value"}));
  EXPECT_FALSE(m.carries(json{{"name", "Zq8vX"}}, never)) << "not until the write was answered";
  m.wrote(fresh);
  EXPECT_TRUE(m.carries(json{{"name", "Zq8vX"}}, never));
  EXPECT_TRUE(m.carries(json{{"filter", {{"names", {"Ada", "Zq8vX"}}}}}, never)) << "at any depth";
  EXPECT_FALSE(m.carries(json{{"name", "Zq8v"}}, never));
  EXPECT_FALSE(m.carries(json{{"mode", "append"}}, never));
}

TEST(SelfMade, AStringTheRunHadSeenBeforeIsNotMadeUp) {
  MadeUp m;
  auto seen = [](const std::string& s) { return s == "Ada Lovelace" || s == "src/app.ts"; };
  m.wrote(m.fresh(json{{"name", "Ada Lovelace"}, {"note", "k7Yp2"}}, kSchema, seen));
  EXPECT_FALSE(m.carries(json{{"name", "Ada Lovelace"}}, seen)) << "the server named it first";
  EXPECT_TRUE(m.carries(json{{"query", "k7Yp2"}}, seen));
  EXPECT_EQ(m.size(), 1u);
  // A call that also carries a value the run knows from elsewhere reads the server's data.
  EXPECT_FALSE(m.carries(json{{"query", "k7Yp2"}, {"path", "src/app.ts"}}, seen));
  EXPECT_FALSE(m.carries(json{{"names", {"k7Yp2", "Ada Lovelace"}}}, seen));
}

}  // namespace
}  // namespace ctxo::engine::detail
