#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Memory bounded in every phase (issue 45): the harness's peak resident memory, wall time and
# whether a JSON report was written, on the hostile servers: a tools/list that never stops paging,
# megabyte cursors, 2,000 read-only tools (P-CONCURRENT's candidates), 50,000 tools, an answer of a
# million keys and one of 20 million `{}` (with and without --record). Each run is stopped by
# SIGTERM after LIMIT seconds (default 150) if it has not ended: a report must still be written.
# Needs a built ctxo-conform (CTXO=path, default build/ctxo-conform; CTXO_BEFORE=path adds the
# same line for another build) and python3. CASES="endless cursors" to choose.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ctxo="${CTXO:-$root/build/ctxo-conform}"
s="$root/tests/servers/scripts"
[ -x "$ctxo" ] || { echo "error: no ctxo-conform at $ctxo (build it, or set CTXO)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
declare -A args=(
  [endless]="-- python3 $s/list_bomb_server.py endless 1000"
  [cursors]="-- python3 $s/list_bomb_server.py cursors 1048576"
  [readonly2000]="--time-budget 10 -- python3 $s/list_bomb_server.py readonly 2000"
  [tools50k]="--time-budget 60 -- python3 $s/many_tools_server.py 50000"
  [keys1m]="--host none -- python3 $s/huge_answer_server.py keys 1000000"
  [empties20m]="--host none -- python3 $s/huge_answer_server.py empties 20000000"
  [empties20m-record]="--host none --record $tmp/rec.jsonl -- python3 $s/huge_answer_server.py empties 20000000"
)
printf '%-7s %-18s %11s %8s %5s %7s\n' build case peak_RSS_MB seconds exit report
for c in ${CASES:-endless cursors readonly2000 tools50k keys1m empties20m empties20m-record}; do
  for build in after ${CTXO_BEFORE:+before}; do
    bin="$ctxo"; [ "$build" = before ] && bin="$CTXO_BEFORE"
    rm -f "$tmp/r.json"
    t0=$EPOCHREALTIME
    # shellcheck disable=SC2086
    set +e
    /usr/bin/time -f "%M" -o "$tmp/rss" timeout -s TERM "${LIMIT:-150}" "$bin" --seed 1 --no-cases -q --json "$tmp/r.json" \
      ${args[$c]} >/dev/null 2>&1
    rc=$?
    set -e
    t1=$EPOCHREALTIME
    # %M: the largest resident set of the process and the children it waited for (the harness;
    # the server is one of them, and holds a huge answer's text itself).
    printf '%-7s %-18s %11d %8.1f %5d %7s\n' "$build" "$c" $(($(tail -1 "$tmp/rss" | grep -o '[0-9]*$') / 1024)) \
      "$(echo "$t1 - $t0" | bc)" "$rc" "$([ -s "$tmp/r.json" ] && echo yes || echo NO)"
  done
done
