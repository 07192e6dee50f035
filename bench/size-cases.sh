#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What making H-SIZE cases minimal costs and gives (issue 30's measure): default runs (seed 1) with
# and without --no-shrink, whole process, on tests/npm/fixtures/sizes/sizes.mjs (--calls 8; its
# answers grow with an argument and with earlier writes) and on server-everything (full run; NPM=0
# skips it). For each: the median wall time of REPS runs (default 3) each way, stats.shrink_calls,
# and every H-SIZE and T-SHUTDOWN finding with the calls its case replays first (by tool) and its
# request's arguments. Needs a built ctxo-conform (CTXO=path, default build/ctxo-conform) and
# tests/npm installed; CTXO=an older binary gives the figures before a change.
source "$(dirname "${BASH_SOURCE[0]}")/npm-env.sh"

# bench NAME FLAGS... -- SERVER...
bench() {
  local name="$1"
  shift
  for shrink in shrink no-shrink; do
    local flags=()
    [ "$shrink" = no-shrink ] && flags=(--no-shrink)
    : >"$tmp/$name.$shrink.times"
    for ((i = 0; i < reps; i++)); do
      rm -rf "$tmp/cases.$name.$shrink"
      local t0=$EPOCHREALTIME
      "$ctxo" --seed 1 -q --cases "$tmp/cases.$name.$shrink" --json "$tmp/$name.$shrink.json" "${flags[@]}" "$@" \
        >/dev/null 2>&1 || true
      echo "$t0 $EPOCHREALTIME" >>"$tmp/$name.$shrink.times"
    done
  done
  python3 - "$tmp" "$name" <<'PY'
import json, statistics, sys
tmp, name = sys.argv[1], sys.argv[2]
print(name)
for shrink in ("shrink", "no-shrink"):
    times = [float(b) - float(a) for a, b in (l.split() for l in open(f"{tmp}/{name}.{shrink}.times"))]
    r = json.load(open(f"{tmp}/{name}.{shrink}.json"))
    print(f"  {shrink:9}  {statistics.median(times):6.2f} s (median of {len(times)})  "
          f"{r['stats']['calls']} calls, {r['stats'].get('shrink_calls', 0)} shrink calls")
    for f in r["findings"]:
        if f["invariant"] not in ("H-SIZE", "T-SHUTDOWN"):
            continue
        case = json.load(open(f["case_file"])) if f.get("case_file") else {}
        by = {}
        for c in case.get("sequence", []):
            by[c["params"]["name"]] = by.get(c["params"]["name"], 0) + 1
        args = (f.get("request") or {}).get("params", {}).get("arguments")
        print(f"    {f['invariant']} {f['tool'] or '(server)'}: replays {len(case.get('sequence', []))} calls first {by or ''}"
              f"  arguments {json.dumps(args)[:80]}")
PY
}

bench sizes --calls 8 --env SIZES_CASE=grow -- node "$root/tests/npm/fixtures/sizes/sizes.mjs"
if [ "${NPM:-1}" != 0 ]; then
  bench server-everything -- node "$root/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js" stdio
fi
