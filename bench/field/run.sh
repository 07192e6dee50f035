#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The field table: installs the servers of bench/field/servers.json (pinned, into
# ${XDG_CACHE_HOME:-~/.cache}/ctxo-field), runs ctxo-conform on each, one at a time, and writes
# docs/FIELD.md with the judgements of bench/field/judgements.json. Not part of .ci/run.
#
#   bash bench/field/run.sh                      everything: install, run all, write docs/FIELD.md
#   bash bench/field/run.sh --slice K/N --results DIR
#                                                install and run slice K of N, results in DIR
#   bash bench/field/run.sh --merge DIR...       docs/FIELD.md from the results of every slice
#   options: --only ID,...  --time-budget S (default 90)  --out FILE (default docs/FIELD.md)
#            --network shared (the harness's default sandbox, network shared; default: offline)
#            --no-install
# CTXO=path picks the binary (default build/ctxo-conform). Needs node/npm, bubblewrap, git,
# python3 and ripgrep (mcp-ripgrep).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
slice="" results="" only="" budget="${FIELD_TIME_BUDGET:-90}" out="$root/docs/FIELD.md" merge=0 install=1
network="offline"
dirs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --slice) slice="$2"; shift 2 ;;
    --results) results="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --time-budget) budget="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --network) network="$2"; shift 2 ;;
    --no-install) install=0; shift ;;
    --merge) merge=1; shift ;;
    -h|--help) sed -n '3,15p' "$0"; exit 0 ;;
    *) if [ "$merge" = 1 ]; then dirs+=("$1"); shift; else echo "run.sh: unknown argument $1" >&2; exit 2; fi ;;
  esac
done
py=(python3 "$here/field.py")
# the default binary, build/ctxo-conform, reads this checkout's schemas (CTXO=path: its own)
if [ -z "${CTXO:-}" ]; then export CTXO_SCHEMAS_DIR="${CTXO_SCHEMAS_DIR:-$root/schemas}"; fi
if [ "$merge" = 1 ]; then
  [ "${#dirs[@]}" -gt 0 ] || { echo "run.sh --merge: name the result directories" >&2; exit 2; }
  exec "${py[@]}" merge --out "$out" "${dirs[@]}"
fi
sel=()
[ -n "$only" ] && sel+=(--only "$only")
[ -n "$slice" ] && sel+=(--slice "$slice")
if [ "$install" = 1 ]; then "${py[@]}" install "${sel[@]}"; fi
if [ -z "$results" ]; then
  results="$(mktemp -d "${TMPDIR:-/tmp}/ctxo-field-results.XXXXXX")"
  echo "run.sh: results in $results"
fi
start=$(date +%s)
"${py[@]}" run --out "$results" --time-budget "$budget" --network "$network" "${sel[@]}"
echo "run.sh: run took $(( $(date +%s) - start )) s"
# a single machine's run (no --slice) writes the table at once; slices are merged afterwards
if [ -z "$slice" ]; then "${py[@]}" merge --out "$out" "$results"; fi
