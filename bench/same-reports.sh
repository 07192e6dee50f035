#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Same seed, same reports: runs two ctxo-conform binaries (a baseline and a candidate, e.g. before
# and after a change to the run loop that must not change what any run reports) over the bundled
# fixture, reference and SDK servers, stdio and HTTP, --jobs 1 and 3, live and `check`, and
# compares their JSON reports with the timings (duration_ms, elapsed_ms, started_at, "N ms" in a
# text) and session ids (UUIDs) left out. Prints one line per case and exits 1 when any differ.
#   bench/same-reports.sh BASELINE_BIN CANDIDATE_BIN [BUILD_DIR]
# BUILD_DIR (default build) holds the test servers; tests/npm/node_modules the SDK.
set -uo pipefail
cd "$(dirname "$0")/.."
base="$1" cand="$2" build="${3:-build}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
fx="$build/tests/servers/fixture-server" ref="$build/tests/servers/reference-server"
ex="$build/examples/example_server/example-server"
npm=tests/npm/fixtures
cases=(
  "example|-- $ex"
  "example-jobs3|--jobs 3 -- $ex"
  "fixture|--calls 10 -- $fx"
  "fixture-crash|--calls 10 -- $fx --defect crash"
  "fixture-hang|--calls 5 --timeout 300 -- $fx --defect hang"
  "fixture-log|--calls 5 -- $fx --defect stdout-log"
  "fixture-wrong-id|--calls 3 --timeout 300 -- $fx --defect wrong-id"
  "fixture-noshutdown|--calls 5 --grace 200 -- $fx --defect no-shutdown"
  "fixture-structured|--calls 10 -- $fx --defect bad-structured"
  "fixture-modern|--calls 10 -- $fx --modern"
  "ref-ctxo|--calls 10 --root corpus/workspace -- $ref --profile ctxo --workspace corpus/workspace"
  "ref-ctxo-jobs3|--jobs 3 --calls 10 --root corpus/workspace -- $ref --profile ctxo --workspace corpus/workspace"
  "ref-no-hint|--calls 10 --root corpus/workspace -- $ref --profile ctxo --defect no-hint --workspace corpus/workspace"
  "ref-count-off|--calls 10 --root corpus/workspace -- $ref --profile ctxo --defect count-off --workspace corpus/workspace"
  "ref-miss-as-error|--calls 10 --root corpus/workspace -- $ref --profile ctxo --defect miss-as-error --workspace corpus/workspace"
  "ref-ignore-env|--calls 10 --root corpus/workspace -- $ref --profile ctxo --defect ignore-env --workspace corpus/workspace"
  "ref-budget-used-over|--calls 10 --root corpus/workspace -- $ref --profile budget --defect used-over --workspace corpus/workspace"
  "ref-meta-resume|--calls 10 --root corpus/workspace -- $ref --profile meta --defect resume-overlap --workspace corpus/workspace"
  "ref-tinfo|--calls 10 --root corpus/workspace -- $ref --profile truncation-info --workspace corpus/workspace"
  "reach|--root $npm/reach/workspace -- node $npm/reach/codeintel.mjs"
  "reach-jobs3|--jobs 3 --root $npm/reach/workspace -- node $npm/reach/codeintel.mjs"
  "precision-ctxo|-- node $npm/precision/ctxo.mjs"
  "precision-markdown|-- node $npm/precision/markdown.mjs"
  "precision-budget|-- node $npm/precision/budget.mjs"
  "precision-tinfo|-- node $npm/precision/tinfo.mjs"
  "precision-meta|-- node $npm/precision/meta.mjs"
  "precision-slow|--timeout 1000 -- node $npm/precision/slow.mjs"
  "hosts-desktop-over|--calls 6 --env HOSTS_CASE=desktop-over -- node $npm/hosts/hosts.mjs"
  "hosts-bad-name|--calls 6 --env HOSTS_CASE=bad-name -- node $npm/hosts/hosts.mjs"
  "sdk|-- node $npm/ctxo-sdk-server.mjs"
  "server-memory|--read-only -- node tests/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
  "server-filesystem|--read-only -- node tests/npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js tests/npm/fixtures/reach/workspace"
  "http|--url http://127.0.0.1:@PORT@/mcp -- env PORT=@PORT@ node $npm/http/http.mjs"
  "http-session|--url http://127.0.0.1:@PORT@/mcp -- env PORT=@PORT@ HTTP_CASE=session-forgotten node $npm/http/http.mjs"
)
normalize() {
  python3 - "$1" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in ("duration_ms", "elapsed_ms", "started_at")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    if isinstance(x, str):  # a measured time inside a text ("answered in 8 ms")
        x = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "UUID", x)  # a session id
        # The sandbox's copy of the current directory, which a change being measured changes.
        x = re.sub(r"copied \(\d+ files, [\d.]+ [KMG]?B\)", "copied (# files)", x)
        # The sandbox's own description, which a change to the sandbox rewords.
        x = re.sub(r"^bubblewrap [^:]*: own PID namespace;.*", "bubblewrap (described)", x)
        return re.sub(r"\b\d+ ms\b", "# ms", x)
    return x
d = strip(d)
print(json.dumps(d, indent=1, sort_keys=True))
PY
}
differ=0 port=39400
for c in "${cases[@]}"; do
  name="${c%%|*}" args="${c#*|}"
  port=$((port + 1))
  args="${args//@PORT@/$port}"
  for which in base cand; do
    bin="$base"; [ "$which" = cand ] && bin="$cand"
    # shellcheck disable=SC2086
    timeout 300 "$bin" --seed 1 --no-cases --json "$out/$name.$which.json" $args >/dev/null 2>&1
    echo $? > "$out/$name.$which.rc"
    if [ -f "$out/$name.$which.json" ]; then normalize "$out/$name.$which.json" > "$out/$name.$which.norm"; else : > "$out/$name.$which.norm"; fi
  done
  if cmp -s "$out/$name.base.norm" "$out/$name.cand.norm" && cmp -s "$out/$name.base.rc" "$out/$name.cand.rc"; then
    echo "same     $name (exit $(cat "$out/$name.base.rc"))"
  else
    echo "DIFFERS  $name (exit $(cat "$out/$name.base.rc") vs $(cat "$out/$name.cand.rc"))"
    diff "$out/$name.base.norm" "$out/$name.cand.norm" | head -20
    differ=1
  fi
done
exit $differ
