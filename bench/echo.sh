#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Harness overhead next to a raw client (issue 17's measure, issue 41's target): ctxo-conform
# against the one-tool SDK echo server (bench/echo/echo-server.mjs), with its default flags (the
# sandbox, the default hosts) and with --host none, then a 30-line Node client
# (bench/echo/raw-client.mjs) making the same number of tools/call requests over the same pipe.
# Whole process each time, start-up and shutdown included, from an empty directory (what the
# sandbox copies is a user's project, not this repository); REPS runs each (default 5), in turn,
# medians and their ratios printed.
# Needs a built ctxo-conform (CTXO=path, default build/ctxo-conform) and tests/npm installed.
# CALLS (default 400) is passed as --calls; the raw client makes as many calls as the harness
# reports it made.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ctxo="${CTXO:-$root/build/ctxo-conform}"
reps="${REPS:-5}"
calls="${CALLS:-400}"
export NODE_PATH="$root/tests/npm/node_modules"
server=(node "$root/bench/echo/echo-server.mjs")
[ -x "$ctxo" ] || { echo "error: no ctxo-conform at $ctxo (build it, or set CTXO)" >&2; exit 2; }
[ -d "$root/tests/npm/node_modules/@modelcontextprotocol/sdk" ] || {
  echo "error: tests/npm is not installed (bash scripts/install-deps.sh --npm)" >&2; exit 2; }
# The echo server imports the SDK: run it from a directory that resolves tests/npm's packages.
ln -sfn "$root/tests/npm/node_modules" "$root/bench/echo/node_modules"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
now() { echo "$EPOCHREALTIME"; }  # bash 5: seconds with microseconds
cd "$tmp"
harness=() bare=() raw=()
made=0
for ((i = 0; i < reps; i++)); do
  t0=$(now)
  "$ctxo" --seed 1 --calls "$calls" --no-cases --json "$tmp/r.json" -q -- "${server[@]}" >/dev/null 2>&1 || true
  t1=$(now)
  harness+=("$t0:$t1")
  made=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['stats']['calls'])" "$tmp/r.json")
  t0=$(now)
  "$ctxo" --seed 1 --calls "$calls" --no-cases --host none --json "$tmp/r.json" -q -- "${server[@]}" >/dev/null 2>&1 || true
  t1=$(now)
  bare+=("$t0:$t1")
  t0=$(now)
  node "$root/bench/echo/raw-client.mjs" "$made" -- "${server[@]}"
  t1=$(now)
  raw+=("$t0:$t1")
done
python3 - "$made" "${harness[*]}" "${bare[*]}" "${raw[*]}" <<'PY'
import statistics, sys
made = int(sys.argv[1])
span = lambda p: float(p.split(":")[1]) - float(p.split(":")[0])
runs = [[span(x) for x in arg.split()] for arg in sys.argv[2:5]]
mh, mb, mr = (statistics.median(r) for r in runs)
print(f"{made} tools/call requests, median of {len(runs[0])} runs (whole process)")
print(f"  ctxo-conform (default flags)  {mh:6.2f} s   ({mh / made * 1000:.2f} ms a call)   {mh / mr:5.2f}x")
print(f"  ctxo-conform --host none      {mb:6.2f} s   ({mb / made * 1000:.2f} ms a call)   {mb / mr:5.2f}x")
print(f"  raw client                    {mr:6.2f} s   ({mr / made * 1000:.2f} ms a call)")
print("  (issue 41's goal: <= 1.1x the raw client)")
PY
