// SPDX-License-Identifier: MIT
// The registry's fix advice (InvariantInfo::help), which SARIF rules and the other reports show:
// every invariant has some, and it reads as advice, not as a copy of the summary.
#include <gtest/gtest.h>

#include <set>

#include "checks/registry.h"
#include "core/text.h"

namespace ctxo::checks {
namespace {

TEST(RegistryHelp, EveryInvariantHasFixAdvice) {
  std::set<std::string> seen;
  for (const auto& inv : registry()) {
    SCOPED_TRACE(inv.id);
    EXPECT_FALSE(inv.help.empty());
    EXPECT_GE(inv.help.size(), 60u) << inv.help;
    EXPECT_LE(inv.help.size(), 400u) << "one to three sentences: " << inv.help;
    EXPECT_TRUE(is_valid_utf8(inv.help));
    EXPECT_EQ(inv.help.back(), '.') << inv.help;
    EXPECT_TRUE(std::isupper(static_cast<unsigned char>(inv.help.front()))) << inv.help;
    EXPECT_NE(inv.help, inv.summary);
    EXPECT_EQ(inv.help.find('\n'), std::string::npos);
    EXPECT_TRUE(seen.insert(inv.help).second) << "same advice as another invariant";
  }
  EXPECT_EQ(seen.size(), registry().size());
}

TEST(RegistryHelp, FindInvariantExposesIt) {
  const InvariantInfo* inv = find_invariant("TR-BYTES");
  ASSERT_NE(inv, nullptr);
  EXPECT_NE(inv->help.find("UTF-8"), std::string::npos);
}

}  // namespace
}  // namespace ctxo::checks
