#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the sandbox costs (issue 40): the same seed with the sandbox (default) and --no-sandbox
# --allow-destructive all, on the bundled example server (one process, small project) and on the
# desktop-shaped SDK fixture with write and process tools (tests/npm/fixtures/safety), from a
# project of FILES files (default 2000). Whole process each time; REPS runs each (default 5);
# medians printed, with the calls each made and the cost per call. Last, a server that exits at
# once: what probing bwrap and copying the project cost a run by themselves.
# Needs a built ctxo-conform (CTXO=path, default build/ctxo-conform), bwrap, and tests/npm installed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ctxo="${CTXO:-$root/build/ctxo-conform}"
reps="${REPS:-5}"
files="${FILES:-2000}"
[ -x "$ctxo" ] || { echo "error: no ctxo-conform at $ctxo (build it, or set CTXO)" >&2; exit 2; }
command -v bwrap >/dev/null || { echo "error: bwrap not found (apt install bubblewrap)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
proj="$tmp/project"
mkdir -p "$proj/src"
for ((i = 0; i < files; i++)); do printf 'export const v%d = %d;\n' "$i" "$i" > "$proj/src/f$i.ts"; done
now() { echo "$EPOCHREALTIME"; }
measure() {  # label, then the ctxo-conform arguments
  local label="$1"; shift
  local times=() calls=0
  for ((i = 0; i < reps; i++)); do
    local t0 t1
    t0=$(now)
    "$ctxo" --seed 1 --no-cases --host none --json "$tmp/r.json" -q "$@" >/dev/null 2>&1 || true
    t1=$(now)
    times+=("$(python3 -c "print($t1 - $t0)")")
    calls=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['stats']['calls'])" "$tmp/r.json")
  done
  python3 - "$label" "$calls" "${times[@]}" <<'PY'
import statistics, sys
label, calls, times = sys.argv[1], int(sys.argv[2]), [float(t) for t in sys.argv[3:]]
m = statistics.median(times)
print(f"{label:58s} median {m:7.3f} s  calls {calls:5d}  {1000 * m / max(calls, 1):6.2f} ms/call")
PY
}
example="$root/build/examples/example_server/example-server"
desktop=(node "$root/tests/npm/fixtures/safety/desktop.mjs")
echo "project: $files files; $reps runs each"
measure "example-server, sandbox" --cwd "$proj" -- "$example"
measure "example-server, --no-sandbox" --no-sandbox --cwd "$proj" -- "$example"
measure "desktop fixture, sandbox" --cwd "$proj" --calls 20 -- "${desktop[@]}"
measure "desktop fixture, --no-sandbox --allow-destructive all" --no-sandbox --allow-destructive all --cwd "$proj" --calls 20 -- "${desktop[@]}"
measure "a server that exits at once, sandbox (probe + copy + start)" --cwd "$proj" -- /bin/true
measure "a server that exits at once, --no-sandbox" --no-sandbox --cwd "$proj" -- /bin/true
