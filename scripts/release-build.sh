#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A release's files for this machine's platform, from the source tree as it is (a fresh clone of
# the tag in .github/workflows/release.yml): the packager's build of .ci/run (Release,
# -DCTXO_PORTABLE=ON: libstdc++, RE2 and pugixml static), its npm tarballs (scripts/pack-npm.sh)
# and its .deb (cpack -G DEB), each installed and run outside the build tree first
# (scripts/check-packages.sh, on the bundled example server), then copied to OUT_DIR:
#   ctxo-conform-<version>.tgz                 the launcher (the same on every platform)
#   ctxo-conform-<os>-<cpu>-<version>.tgz      @ctxo-conform/<os>-<cpu>, the binary and schemas
#   ctxo-conform_<version>_<debian arch>.deb
# Prints the files. Needs what scripts/install-deps.sh --build-only installs, Node.js and npm.
#   scripts/release-build.sh [OUT_DIR]   (default BUILD/dist; BUILD: $CTXO_RELEASE_BUILD, else build-release)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${CTXO_RELEASE_BUILD:-$src/build-release}"
out="${1:-$build/dist}"
jobs="${CTXO_JOBS:-$(nproc)}"

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCTXO_PORTABLE=ON \
  -DCTXO_BUILD_TESTS=OFF -DCTXO_BUILD_FUZZERS=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target ctxo-conform example-server
bash "$src/scripts/check-packages.sh" "$build" "$build/examples/example_server/example-server" "$build/packages"

rm -rf "$out"
mkdir -p "$out"
cp "$build"/packages/*.tgz "$build"/packages/deb/*.deb "$out/"
ls -1 "$out"/*
