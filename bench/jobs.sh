#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What --jobs buys (issue 17's measure): the whole-process wall time of a default run with
# --jobs 1 and --jobs 2, and whether the two reports are the same (timings aside).
#   - tests/npm/fixtures/jobs/slow-tools.mjs: 8 tools whose calls take DELAY_MS (default 25) each, the shape of
#     a code-intelligence server; REPS runs each (default 3), medians and their ratio;
#   - tests/npm/fixtures/jobs/heavy-answers.mjs: 6 tools answering at once with 22 KB of JSON each, a
#     run whose time goes to judging answers (with --jobs, on each worker's shard of the judge);
#   - the npm reference servers (one run each; NPM=0 skips them): server-everything full and
#     --read-only, server-filesystem --read-only on a scratch directory, server-memory --read-only.
# Needs a built ctxo-conform (CTXO=path, default build/ctxo-conform) and tests/npm installed.
source "$(dirname "${BASH_SOURCE[0]}")/npm-env.sh"

# run NAME JOBS REP FLAGS... -- SERVER...: one whole run, its wall time appended to $tmp/NAME.JOBS.
run() {
  local name="$1" jobs="$2" rep="$3"
  shift 3
  local t0 t1
  t0=$EPOCHREALTIME
  MEMORY_FILE_PATH="$tmp/memory-$jobs.json" "$ctxo" --seed 1 --jobs "$jobs" --no-cases -q \
    --json "$tmp/$name.$jobs.$rep.json" "$@" >/dev/null 2>&1 || true
  t1=$EPOCHREALTIME
  echo "$t0 $t1" >>"$tmp/$name.$jobs"
}

# bench NAME REPS FLAGS... -- SERVER...
bench() {
  local name="$1" n="$2"
  shift 2
  for ((i = 0; i < n; i++)); do
    run "$name" 1 "$i" "$@"
    run "$name" 2 "$i" "$@"
  done
  python3 - "$tmp" "$name" "$n" <<'PY'
import json, statistics, sys
tmp, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def times(j):
    return [float(b) - float(a) for a, b in (l.split() for l in open(f"{tmp}/{name}.{j}"))]
def report(j, rep):
    try:
        return json.load(open(f"{tmp}/{name}.{j}.{rep}.json"))
    except (OSError, ValueError):
        return None
def strip(o):
    # What a run's timing decides, and the server's own traffic (a session each), set aside.
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items()
                if k not in ("duration_ms", "elapsed_ms", "started_at", "notifications", "server_requests")}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
t1, t2 = statistics.median(times(1)), statistics.median(times(2))
r1, r2 = report(1, 0), report(2, 0)
same = r1 is not None and r2 is not None and strip(r1) == strip(r2)
calls = r1["stats"]["calls"] if r1 else 0
verdict = r1["verdict"] if r1 else "?"
print(f"{name:<28} {calls:>5} calls  {verdict:<5}  --jobs 1 {t1:6.1f} s  --jobs 2 {t2:6.1f} s  "
      f"speed-up {t1 / t2:4.2f}x  reports {'identical' if same else 'DIFFER'}")
PY
}

echo "median wall time of whole runs (--seed 1, default flags); reports compared without timings"
bench slow-tools "$reps" -- node "$root/tests/npm/fixtures/jobs/slow-tools.mjs"
# Answers judged, not waited for: what the workers judging without a shared lock buys (issue 41).
bench heavy-answers "$reps" -- node "$root/tests/npm/fixtures/jobs/heavy-answers.mjs"
if [ "${NPM:-1}" != 0 ]; then
  bench everything 1 -- node "$bin/mcp-server-everything"
  bench everything-read-only 1 --read-only -- node "$bin/mcp-server-everything"
  bench filesystem-read-only 1 --read-only -- node "$bin/mcp-server-filesystem" "$tmp/files"
  bench memory-read-only 1 --read-only -- node "$bin/mcp-server-memory"
fi
echo "(issue 17's goal: >= 1.7x on a multi-tool server whose calls take time, identical reports)"
