// SPDX-License-Identifier: MIT
// The package build (CTXO_PORTABLE) links libstdc++ statically. Debian 12's (GCC 12, built
// against glibc 2.36) makes std::random_device call arc4random, new in glibc 2.36: left as it is,
// the binary would not start on Ubuntu 22.04 (glibc 2.35). The link sends those calls here
// (-Wl,--wrap=arc4random): the same kernel random bytes, through getrandom (glibc 2.25).
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" std::uint32_t __wrap_arc4random() {
  std::uint32_t v = 0;
  auto* p = reinterpret_cast<unsigned char*>(&v);
  std::size_t got = 0;
  while (got < sizeof v) {
    const ssize_t n = ::getrandom(p + got, sizeof v - got, 0);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      // A kernel older than 3.17: /dev/urandom, as glibc's own arc4random falls back to.
      std::FILE* f = std::fopen("/dev/urandom", "rb");
      const bool read = f != nullptr && std::fread(&v, sizeof v, 1, f) == 1;
      if (f != nullptr) std::fclose(f);
      if (!read) std::abort();  // as glibc's arc4random does when no randomness can be had
      return v;
    }
  }
  return v;
}
