// SPDX-License-Identifier: MIT
// The memory budget (core/memory.h): the peak resident size is read, a budget below it is over
// at once and stays over, none is never over.
#include "core/memory.h"

#include <gtest/gtest.h>

#include <chrono>

namespace ctxo::core {
namespace {

TEST(MemoryBudget, IsOverOnceTheResidentSizeIsPastItAndStaysOver) {
  const std::size_t rss = peak_resident_bytes();
  ASSERT_GT(rss, 1u << 20) << "a process holds more than a MiB";
  MemoryBudget none(0);
  EXPECT_FALSE(none.over());
  MemoryBudget roomy(rss * 64);
  EXPECT_FALSE(roomy.over());
  EXPECT_EQ(roomy.seen(), 0u);
  MemoryBudget tight(1u << 20, std::chrono::milliseconds(0));
  EXPECT_TRUE(tight.over());
  EXPECT_GE(tight.seen(), 1u << 20);
  EXPECT_TRUE(tight.over()) << "memory held is rarely given back: once over, over";
}

}  // namespace
}  // namespace ctxo::core
