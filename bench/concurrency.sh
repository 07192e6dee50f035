#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the P-CONCURRENT phase costs (issue 31): whole runs with the default --concurrency 4 and with
# --concurrency 0 (no batches), on the npm reference servers and the concurrent fixtures: median
# wall time of REPS runs (default 3), calls made, P-CONCURRENT's statuses and findings.
# Needs a built ctxo-conform (CTXO=path, default build/ctxo-conform) and tests/npm installed.
source "$(dirname "${BASH_SOURCE[0]}")/npm-env.sh"

# bench NAME FLAGS... -- SERVER...
bench() {
  local name="$1"
  shift
  for n in 4 0; do
    for ((i = 0; i < reps; i++)); do
      local t0 t1
      rm -f "$tmp/memory.json"
      t0=$EPOCHREALTIME
      MEMORY_FILE_PATH="$tmp/memory.json" "$ctxo" --seed 1 --concurrency "$n" --no-cases -q \
        --json "$tmp/$name.$n.$i.json" "$@" >/dev/null 2>&1 || true
      t1=$EPOCHREALTIME
      echo "$t0 $t1" >>"$tmp/$name.$n"
    done
  done
  python3 - "$tmp" "$name" "$reps" <<'PY'
import json, statistics, sys
tmp, name, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
def median(n):
    return statistics.median(float(b) - float(a) for a, b in (l.split() for l in open(f"{tmp}/{name}.{n}")))
def report(n):
    try:
        return json.load(open(f"{tmp}/{name}.{n}.0.json"))
    except (OSError, ValueError):
        return None
on, off = report(4), report(0)
t_on, t_off = median(4), median(0)
calls = lambda r: r["stats"]["calls"] if r else 0
statuses = {}
for t in (on or {}).get("tools", []):
    s = t.get("outcomes", {}).get("P-CONCURRENT")
    if s: statuses[s] = statuses.get(s, 0) + 1
found = sum(1 for f in (on or {}).get("findings", []) if f["invariant"] == "P-CONCURRENT")
print(f"{name:<24} --concurrency 4: {t_on:5.2f} s {calls(on):>4} calls | --concurrency 0: {t_off:5.2f} s "
      f"{calls(off):>4} calls | cost {t_on - t_off:+5.2f} s ({(t_on / t_off - 1) * 100:+4.0f}%), "
      f"{calls(on) - calls(off):+d} calls | P-CONCURRENT {statuses or '-'} findings {found}")
PY
}

echo "median wall time of $reps whole runs each (--seed 1, default flags otherwise)"
bench everything -- node "$bin/mcp-server-everything"
bench filesystem -- node "$bin/mcp-server-filesystem" "$tmp/files"
bench memory -- node "$bin/mcp-server-memory"
bench racy-fixture -- node "$root/tests/npm/fixtures/concurrent/racy.mjs"
