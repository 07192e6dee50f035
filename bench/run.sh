#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the benchmarks (Release, CTXO_BUILD_BENCH=ON) in build-bench/ and prints naive/exact time
# ratios per size from Google Benchmark's JSON output (the medians when --benchmark_repetitions is
# given). Extra arguments go to the benchmark program (e.g. --benchmark_filter=Half
# --benchmark_repetitions=5). BENCH_BUILD_DIR overrides the build directory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BENCH_BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCTXO_BUILD_BENCH=ON \
  -DCTXO_BUILD_TESTS=OFF -DCTXO_BUILD_FUZZERS=OFF >/dev/null
cmake --build "$build" -j"${BENCH_JOBS:-2}" --target bench_truncation
out="$build/bench_truncation.json"
"$build/bench/bench_truncation" --benchmark_format=json --benchmark_out="$out" --benchmark_out_format=json "$@" >/dev/null
python3 - "$out" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["benchmarks"]
# With --benchmark_repetitions, the median of the repetitions (a shared machine is noisy);
# otherwise the single run.
medians = {b["run_name"]: b for b in runs if b.get("aggregate_name") == "median"}
t = medians or {b["name"]: b for b in runs if b.get("run_type", "iteration") == "iteration"}
if medians:
    print("medians of", runs[0].get("repetitions", "?"), "repetitions")
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
PY
