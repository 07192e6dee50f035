#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What one huge answer's checks cost (issue 27, item 4): the harness's wall time and peak resident
# memory on tests/servers/scripts/huge_answer_server.py, whose tool `list` answers one JSON text
# of N items: `empties` ([{},{},...]: 20 million is 60 MB) and `ids` ({"items":[{"id":...},...]},
# harvestable by the tool `get`). Over 1 MiB an answer is checked on a sample (checks/sample.h),
# so the time is about reading the answer, not checking it. Prints one line per case. Needs a
# built ctxo-conform (CTXO=path, default build/ctxo-conform; CTXO_BEFORE=path adds the same line
# for another build, e.g. main's, to compare) and python3. CASES="empties:2000000 ids:200000" to
# choose; CALLS (default 2) generated calls per tool.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ctxo="${CTXO:-$root/build/ctxo-conform}"
server="$root/tests/servers/scripts/huge_answer_server.py"
[ -x "$ctxo" ] || { echo "error: no ctxo-conform at $ctxo (build it, or set CTXO)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '%-8s %-10s %10s %9s %12s %8s %s\n' build case N answer_MB peak_RSS_MB seconds findings
for c in ${CASES:-empties:2000000 empties:20000000 ids:200000}; do
  for build in after ${CTXO_BEFORE:+before}; do
    bin="$ctxo"; [ "$build" = before ] && bin="$CTXO_BEFORE"
    python3 - "$bin" "$server" "${c%%:*}" "${c##*:}" "$tmp" "$build" "${CALLS:-2}" <<'PY'
import json, resource, subprocess, sys, time
ctxo, server, mode, n, tmp, build, calls = sys.argv[1:8]
t0 = time.monotonic()
subprocess.run([ctxo, "--seed", "1", "--calls", calls, "--no-cases", "-q", "--host", "none", "--time-budget", "600",
                "--json", tmp + "/r.json", "--", "python3", server, mode, n],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
secs = time.monotonic() - t0
# ru_maxrss of the largest child waited for: the harness (the server holds the answer text twice).
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
try:
    report = json.load(open(tmp + "/r.json"))
    findings = ",".join(sorted({f["invariant"] for f in report["findings"]})) or "-"
except Exception:
    findings = "(no report)"
size = (3 * int(n)) if mode == "empties" else len('{"id":"item-0","name":"n0"},') * int(n)
print("%-8s %-10s %10s %9.1f %12.1f %8.1f %s" % (build, mode, n, size / 1e6, rss / 1e6, secs, findings))
PY
  done
done
