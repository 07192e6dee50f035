#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds every fuzz target (any CMake target named fuzz_*) with clang-14 + libFuzzer + ASan/UBSan
# in build-fuzz/, runs each for FUZZ_SECONDS on a scratch copy of corpus/<target>/, prints exec/s
# per target, and exits non-zero if any target crashed (reproducers land in fuzz-artifacts/).
#
# Environment: FUZZ_SECONDS (default 30) per target; FUZZ_TARGETS="fuzz_a fuzz_b" to run a subset;
# FUZZ_BUILD_DIR (default build-fuzz); FUZZ_ARTIFACTS (default fuzz-artifacts); FUZZ_JOBS (default 2).
# Dictionary: fuzz/<target>.dict when present, else fuzz/json.dict.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${FUZZ_SECONDS:-30}"
artifacts="${FUZZ_ARTIFACTS:-$root/fuzz-artifacts}"
jobs="${FUZZ_JOBS:-2}"

# CTXO_FUZZ_ENGINE=libfuzzer makes the top-level CMakeLists instrument every library
# (fuzzer-no-link, ASan, UBSan), so coverage feedback reaches into harness/.
cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" \
  -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCTXO_FUZZ_ENGINE=libfuzzer \
  -DCTXO_WERROR=ON \
  -DCTXO_BUILD_TESTS=OFF >/dev/null

if [[ -n "${FUZZ_TARGETS:-}" ]]; then
  read -r -a targets <<<"$FUZZ_TARGETS"
else
  mapfile -t targets < <(cmake --build "$build" --target help | sed -n 's/^\(fuzz_[A-Za-z0-9_]*\): phony$/\1/p' | sort -u)
fi
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "error: no fuzz_* targets found in $build" >&2
  exit 2
fi
echo "note: building ${#targets[@]} fuzz target(s): ${targets[*]}, and the run loop (ctxo_engine) with clang"
# ctxo_engine too: the tests build it with g++, and clang has refused code g++ took.
cmake --build "$build" -j"$jobs" --target "${targets[@]}" ctxo_engine

mkdir -p "$artifacts" "$build/fuzz-logs"
failed=()
summary=()
for t in "${targets[@]}"; do
  bin="$(find "$build" -type f -name "$t" -perm -u+x | head -n 1)"
  if [[ -z "$bin" ]]; then
    echo "error: $t was built but no executable found" >&2
    failed+=("$t")
    continue
  fi
  work="$build/fuzz-corpus/$t"
  rm -rf "$work"
  mkdir -p "$work"
  if [[ -d "$root/corpus/$t" ]]; then cp -R "$root/corpus/$t/." "$work/"; fi
  # -timeout: one input that takes a minute is a hang (a schema or answer the harness cannot bound).
  args=(-max_total_time="$seconds" -timeout=60 -print_final_stats=1 -artifact_prefix="$artifacts/$t-")
  if [[ -f "$root/fuzz/$t.dict" ]]; then
    args+=(-dict="$root/fuzz/$t.dict")
  elif [[ -f "$root/fuzz/json.dict" ]]; then
    args+=(-dict="$root/fuzz/json.dict")
  fi
  log="$build/fuzz-logs/$t.log"
  echo "note: fuzzing $t for ${seconds}s (log: $log)"
  rc=0
  "$bin" "${args[@]}" "$work" >"$log" 2>&1 || rc=$?
  execs="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  cov="$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2 || true)"
  line="$(printf '%-28s exec/s %-8s runs %-10s cov %-6s' "$t" "${execs:-?}" "${runs:-?}" "${cov:-?}")"
  if [[ $rc -ne 0 ]]; then
    failed+=("$t")
    line+=" CRASH (exit $rc)"
    echo "error: $t failed (exit $rc); last lines of $log:" >&2
    tail -n 40 "$log" >&2
  fi
  summary+=("$line")
done

echo
echo "fuzz summary (${seconds}s per target):"
printf '  %s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "error: ${#failed[@]} target(s) crashed: ${failed[*]}; reproducers in $artifacts/" >&2
  exit 1
fi
echo "note: all ${#targets[@]} fuzz target(s) ran clean"
