#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what ctxo-conform needs to build and test on Debian 12: compilers, CMake, the
# libraries (all Debian packages), xmllint (JUnit XSD validation in tests), headless Chromium
# (renders the HTML report in a test), cmark-gfm (GitHub's Markdown renderer, in a test),
# universal-ctags (optional at run time: the names declared in a --root/--cwd workspace; the
# workspace unit test checks both it and the built-in tokenizer), ripgrep (what the real
# mcp-ripgrep server of tests/npm wraps), and,
# with --npm, the real MCP servers used by the integration tests (tests/npm, from the npm
# registry). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# --build-only: just what building the ctxo-conform binary needs (the GitHub Action uses it).
packages=(
  cmake ninja-build g++ pkg-config
  nlohmann-json3-dev libvalijson-dev libcli11-dev libpugixml-dev librapidcheck-dev libcurl4-openssl-dev
  libre2-dev
)
if [ "${1:-}" != "--build-only" ]; then
  packages+=(
    python3 libgtest-dev libgmock-dev libbenchmark-dev libfmt-dev
    clang-14 libclang-rt-14-dev
    libxml2-utils chromium cmark-gfm universal-ctags ripgrep bubblewrap
  )
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${1:-}" != "--build-only" ] && ! command -v node >/dev/null 2>&1; then missing+=(nodejs npm); fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "note: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "${1:-}" = "--npm" ]; then
  (cd tests/npm && npm ci --no-audit --no-fund --loglevel=error)
fi
