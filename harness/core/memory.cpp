// SPDX-License-Identifier: MIT
#include "core/memory.h"

#include <unistd.h>

#include <cstdio>

namespace ctxo::core {

std::size_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  const int read = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  if (read != 2) return 0;
  const long page = ::sysconf(_SC_PAGESIZE);
  return static_cast<std::size_t>(resident) * static_cast<std::size_t>(page > 0 ? page : 4096);
}

bool MemoryBudget::over() {
  if (limit_ == 0) return false;
  if (seen_.load() != 0) return true;
  const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
  std::int64_t next = next_look_.load();
  if (now < next || !next_look_.compare_exchange_strong(next, now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(every_).count()))
    return false;
  const std::size_t rss = resident_bytes();
  if (rss <= limit_) return false;
  seen_.store(rss);
  return true;
}

}  // namespace ctxo::core
