// SPDX-License-Identifier: MIT
// What the generic rules across calls take, built by hand: the answer `text` to a tools/call of a
// tool "t" with `args`, kept as the run keeps it (checks::listed_call).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "checks/generic.h"

namespace ctxo::checks::test {

inline nlohmann::json call_request(const nlohmann::json& args) {
  return nlohmann::json{{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"}, {"params", {{"name", "t"}, {"arguments", args}}}};
}

inline ListedCall answered(const nlohmann::json& args, const std::string& text) {
  mcp::Reply r;
  r.kind = mcp::Reply::Kind::kResult;
  r.request = call_request(args);
  r.result = nlohmann::json{{"content", nlohmann::json::array({nlohmann::json{{"type", "text"}, {"text", text}}})}};
  auto c = listed_call(r, args);
  EXPECT_TRUE(c.has_value()) << text;
  return c ? *c : ListedCall{};
}

}  // namespace ctxo::checks::test
