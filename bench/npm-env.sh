# SPDX-License-Identifier: MIT
# Sourced by the bench scripts that run the npm servers: strict mode, `root`, `ctxo` (CTXO=path,
# default build/ctxo-conform), `reps` (REPS, default 3), `bin` (tests/npm's .bin), and `tmp`, a
# scratch directory removed at exit holding files/ (two small files for server-filesystem).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ctxo="${CTXO:-$root/build/ctxo-conform}"
reps="${REPS:-3}"
bin="$root/tests/npm/node_modules/.bin"
[ -x "$ctxo" ] || { echo "error: no ctxo-conform at $ctxo (build it, or set CTXO)" >&2; exit 2; }
[ -d "$root/tests/npm/node_modules/@modelcontextprotocol/sdk" ] || {
  echo "error: tests/npm is not installed (bash scripts/install-deps.sh --npm)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/files/src"
printf 'hello\n' >"$tmp/files/a.txt"
printf 'export const x = 1;\n' >"$tmp/files/src/x.ts"
