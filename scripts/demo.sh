#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fresh machine to first verdict: install, build, run ctxo-conform on the bundled example server.
# Exit code is ctxo-conform's (0 conformant). Extra arguments go to ctxo-conform.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The build scripts/test.sh makes (one build tree for both).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" >/dev/null
cmake --build build -j2 --target ctxo-conform example-server
exec ./build/ctxo-conform "$@" ./build/examples/example_server/example-server
