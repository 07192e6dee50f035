// SPDX-License-Identifier: MIT
// Test support for tests that need the bubblewrap sandbox: REQUIRE_SANDBOX skips a test where no
// sandbox can be made (no bwrap, no user namespaces), unless CTXO_REQUIRE_SANDBOX=1 (as in CI,
// which installs bubblewrap), where it fails it.
#pragma once

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "transport/sandbox.h"

#define REQUIRE_SANDBOX()                                                                       \
  do {                                                                                          \
    const auto support_ = ::ctxo::transport::probe_sandbox();                                   \
    if (!support_.usable) {                                                                     \
      const char* req = std::getenv("CTXO_REQUIRE_SANDBOX");                                    \
      if (req && std::string(req) == "1") FAIL() << "no sandbox: " << support_.why_not;         \
      GTEST_SKIP() << "no sandbox here: " << support_.why_not;                                  \
    }                                                                                           \
  } while (0)
