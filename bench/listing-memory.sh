#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a large tools/list costs (issue 27, item 3): the harness's peak resident memory and wall
# time against the size of the listing it was given, for tests/servers/scripts/many_tools_server.py
# listing one tool with an enum of N objects, and N small tools. Prints one line per case:
# listing bytes, peak RSS, RSS / listing, seconds. Needs a built ctxo-conform (CTXO=path, default
# build/ctxo-conform) and python3. SIZES="10000 100000" to choose N, MODES="enum" for the enum
# listing alone (100,000 small tools take minutes). The baseline, in the same run: the listing's
# own size, and python's peak RSS holding it parsed (json.loads), the cost of any DOM of it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ctxo="${CTXO:-$root/build/ctxo-conform}"
server="$root/tests/servers/scripts/many_tools_server.py"
[ -x "$ctxo" ] || { echo "error: no ctxo-conform at $ctxo (build it, or set CTXO)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '%-8s %8s %12s %12s %8s %14s %8s\n' case N listing_MB peak_RSS_MB ratio python_dom_MB seconds
for mode in ${MODES:-enum tools}; do
  for n in ${SIZES:-10000 50000 100000}; do
    python3 - "$ctxo" "$server" "$n" "$mode" "$tmp" <<'PY'
import json, resource, subprocess, sys, time
ctxo, server, n, mode, tmp = sys.argv[1:6]
argv = [server, n] + (["enum"] if mode == "enum" else [])
# The listing's size: what the server writes for tools/list.
p = subprocess.run(["python3"] + argv, input='{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n',
                   capture_output=True, text=True)
listing = len(p.stdout.encode())
t0 = time.monotonic()
subprocess.run([ctxo, "--seed", "1", "--calls", "2", "--no-cases", "-q", "--time-budget", "120",
                "--json", tmp + "/r.json", "--", "python3"] + argv,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
secs = time.monotonic() - t0
# ru_maxrss of the largest child waited for: the harness (the server and the sizing run are smaller).
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
# The baseline: python holding the listing parsed (after the harness: RUSAGE_CHILDREN keeps the max).
dom = subprocess.run(["python3", "-c", "import json,resource,sys; d=json.loads(sys.stdin.read()); "
                      "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"],
                     input=p.stdout, capture_output=True, text=True)
dom_rss = int(dom.stdout.strip() or 0) * 1024
print("%-8s %8s %12.1f %12.1f %7.0fx %14.1f %8.1f" % (mode, n, listing / 1e6, rss / 1e6, rss / listing, dom_rss / 1e6, secs))
PY
  done
done
