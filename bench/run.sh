#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the benchmarks (Release, CTXO_BUILD_BENCH=ON) in build-bench/ and prints naive/exact time
# ratios per size from Google Benchmark's JSON output (the medians when --benchmark_repetitions is
# given), then the cost of sizing an answer for the host limits next to parsing it (bench_hosts),
# then what judging one answer costs per check family, next to parsing it (bench_checks).
# Extra arguments go to the benchmark programs (e.g. --benchmark_filter=Half
# --benchmark_repetitions=5). BENCH_BUILD_DIR overrides the build directory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BENCH_BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCTXO_BUILD_BENCH=ON \
  -DCTXO_BUILD_TESTS=OFF -DCTXO_BUILD_FUZZERS=OFF >/dev/null
cmake --build "$build" -j"${BENCH_JOBS:-2}" --target bench_truncation bench_hosts bench_checks
# A --benchmark_filter may match nothing in one of the programs: it then writes no results.
for prog in bench_truncation bench_hosts bench_checks; do
  rm -f "$build/$prog.json"
  "$build/bench/$prog" --benchmark_format=json --benchmark_out="$build/$prog.json" --benchmark_out_format=json "$@" \
    >/dev/null || true
done
export CTXO_SCHEMAS_DIR="${CTXO_SCHEMAS_DIR:-$root/schemas}"
python3 - "$build/bench_truncation.json" "$build/bench_hosts.json" "$build/bench_checks.json" <<'PY'
import json, os, sys

def results(path):
    """Name -> run: with --benchmark_repetitions the medians (a shared machine is noisy), else the runs."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return {}, None
    runs = json.load(open(path))["benchmarks"]
    medians = {b["run_name"]: b for b in runs if b.get("aggregate_name") == "median"}
    reps = runs[0].get("repetitions") if medians and runs else None
    return medians or {b["name"]: b for b in runs if b.get("run_type", "iteration") == "iteration"}, reps

t, reps = results(sys.argv[1])
if t:
    if reps:
        print("medians of", reps, "repetitions")
    print(f"{'benchmark':<26}{'n':>8}{'exact us':>12}{'naive us':>12}{'naive/exact':>13}{'returned':>10}")
for exact, naive in (("BM_TruncateExact", "BM_TruncateNaive"), ("BM_TruncateExactHalf", "BM_TruncateNaiveHalf")):
    for n in (10, 100, 1000, 10000, 100000):
        e, v = t.get(f"{exact}/{n}"), t.get(f"{naive}/{n}")
        if not e or not v:
            continue
        if e.get("error_occurred") or v.get("error_occurred"):
            print(f"{exact:<26}{n:>8}  error: {e.get('error_message') or v.get('error_message')}")
            continue
        ratio = v["real_time"] / e["real_time"]
        print(f"{exact:<26}{n:>8}{e['real_time']:>12.1f}{v['real_time']:>12.1f}{ratio:>12.1f}x{int(e.get('returned', 0)):>10}")

# Host-limit sizing (H-SIZE, on every answer) against parsing the same answer, which the client
# does anyway.
h, _ = results(sys.argv[2])
if h:
    print(f"\n{'answer bytes':>14}{'parse us':>12}{'size us':>12}{'size/parse':>12}")
for n in (1000, 10000, 100000, 1000000, 10000000):
    p, m = h.get(f"BM_ParseAnswer/{n}"), h.get(f"BM_MeasureAnswer/{n}")
    if p and m:
        print(f"{n:>14}{p['real_time']:>12.1f}{m['real_time']:>12.1f}{m['real_time'] / p['real_time']:>11.2f}x")

# Per check family: each row adds one family to the row above (bench/checks_bench.cpp), so the
# step between two rows is what that family costs a call.
c, _ = results(sys.argv[3])
names = {0: "echo prose 156 B", 1: "8 places JSON 940 B", 2: "envelope 800 B"}
families = [(1, "protocol + generic"), (2, "+ profiles (auto)"), (3, "+ hosts (default)"), (4, "+ workspace (--root)")]
if c:
    print(f"\n{'us per answer':<22}" + "".join(f"{names[a]:>22}" for a in names))
    row = lambda label, key: print(f"{label:<22}" + "".join(
        f"{c[key(a)]['real_time']:>22.1f}" if key(a) in c else f"{'-':>22}" for a in names))
    row("parse (baseline)", lambda a: f"BM_Parse/answer:{a}")
    for f, label in families:
        row(label, lambda a, f=f: f"BM_Judge/family:{f}/answer:{a}/iterations:3000")
PY
