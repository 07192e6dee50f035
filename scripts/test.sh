#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fresh machine to green suite: install (Debian packages + the npm servers), build everything,
# run every test (unit, property, CLI, integration against fixture and npm servers, fuzz corpus
# replay). The closing ctest line is the verdict.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --npm
# -O2 without debug info: a third less compile time than RelWithDebInfo, the same code.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" -DCTXO_WERROR=ON >/dev/null
cmake --build build -j2
CTXO_REQUIRE_NPM=1 CTXO_REQUIRE_SANDBOX=1 ctest --test-dir build --output-on-failure -j2 --timeout 600
