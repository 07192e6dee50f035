// SPDX-License-Identifier: MIT
#include "core/memory.h"

#include <cstdio>

namespace ctxo::core {

std::size_t peak_resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  unsigned long kib = 0;
  bool found = false;
  while (!found && std::fgets(line, sizeof line, f)) found = std::sscanf(line, "VmHWM: %lu kB", &kib) == 1;
  std::fclose(f);
  return found ? static_cast<std::size_t>(kib) * 1024 : 0;
}

bool MemoryBudget::over() {
  if (limit_ == 0) return false;
  if (seen_.load() != 0) return true;
  const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
  std::int64_t next = next_look_.load();
  if (now < next || !next_look_.compare_exchange_strong(next, now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(every_).count()))
    return false;
  const std::size_t rss = peak_resident_bytes();
  if (rss <= limit_) return false;
  seen_.store(rss);
  return true;
}

}  // namespace ctxo::core
