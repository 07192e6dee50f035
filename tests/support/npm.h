// SPDX-License-Identifier: MIT
// Test support for runs against servers from the npm registry (installed into tests/npm by
// scripts/test.sh): where they are, and REQUIRE_NPM, which skips a test when they are missing,
// unless CTXO_REQUIRE_NPM=1 (as in CI), where it fails it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace ctxo::test {

/// `path` exists and node runs.
inline bool have_npm(const std::string& path) {
  return std::filesystem::exists(path) && std::system("node --version > /dev/null 2>&1") == 0;
}

/// tests/npm/node_modules/.bin/NAME.
inline std::string npm_bin(const std::string& name) {
  return std::string(CTXO_SOURCE_DIR) + "/tests/npm/node_modules/.bin/" + name;
}

/// The official TypeScript SDK the fixture servers are written with.
inline std::string sdk_dir() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/node_modules/@modelcontextprotocol/sdk"; }
/// tests/npm/fixtures/dialects/NAME.mjs: the dialect fixtures (issues 29, 42).
inline std::string dialect_server(const std::string& name) {
  return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/dialects/" + name + ".mjs";
}
/// The workspace the dialect fixtures answer about (an emoji and CJK before the names).
inline std::string reach_workspace() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/reach/workspace"; }

}  // namespace ctxo::test

#define REQUIRE_NPM(path)                                                                       \
  do {                                                                                          \
    if (!::ctxo::test::have_npm(path)) {                                                        \
      const char* req = std::getenv("CTXO_REQUIRE_NPM");                                        \
      if (req && std::string(req) == "1") FAIL() << (path) << " is not installed";              \
      GTEST_SKIP() << (path) << " is not installed (run scripts/test.sh, or npm ci in tests/npm)"; \
    }                                                                                           \
  } while (0)
