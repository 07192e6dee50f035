// SPDX-License-Identifier: MIT
// Exact (linear, per-item sizes) vs naive (binary search over full serialisations) ctxo
// truncation on code-search-like payloads of 10..100k items. Each benchmark first checks that
// both produce the identical envelope; the ratio is read from --benchmark_format=json.
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "truncation/truncate.h"

namespace {

using nlohmann::json;
namespace tr = ctxo::truncation;

// Search results with file/line/col/snippet/score; every 5th snippet has non-ASCII text.
const json& payload(std::size_t n) {
  static std::map<std::size_t, json> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  static const char* kNonAscii[] = {"// café déjà vu", "// 中文注释 说明", "// emoji 😀 ok", "// naïve «quote»"};
  json results = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    std::string snippet = "export async function handler" + std::to_string(i) +
                          "(req: Request, ctx: Context): Promise<Response> { return route(req, ctx); }";
    if (i % 5 == 0) snippet += kNonAscii[(i / 5) % 4];
    results.push_back({{"file", "src/module_" + std::to_string(i % 97) + "/handlers/file_" + std::to_string(i) + ".ts"},
                       {"line", 10 + (i * 37) % 4000},
                       {"col", 1 + i % 80},
                       {"endLine", 12 + (i * 37) % 4000},
                       {"snippet", snippet},
                       {"score", 1.0 / static_cast<double>(i + 1)}});
  }
  json p = {{"query", "handler"}, {"results", std::move(results)}, {"files", json::array({"src/index.ts"})}};
  return cache.emplace(n, std::move(p)).first->second;
}

// limit_kind 0: the seed's default 8192 bytes; 1: half of the whole payload.
tr::CtxoOptions options(std::size_t n, int limit_kind) {
  tr::CtxoOptions o;
  o.hint = "Use search_symbols with a narrower query";
  if (limit_kind == 1) o.limit = tr::js_json_size(payload(n)) / 2;
  return o;
}

bool same_output(benchmark::State& state, std::size_t n, int limit_kind) {
  const auto o = options(n, limit_kind);
  auto a = tr::truncate_ctxo(payload(n), o);
  auto b = tr::truncate_ctxo_naive(payload(n), o);
  if (!a.ok() || !b.ok() || a->text != b->text) {
    state.SkipWithError("exact and naive outputs differ");
    return false;
  }
  state.counters["returned"] = static_cast<double>(a->returned_items);
  state.counters["total_bytes"] = static_cast<double>(a->total_bytes);
  return true;
}

template <bool kExact, int kLimit>
void run(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  if (!same_output(state, n, kLimit)) return;
  const json& p = payload(n);
  const auto o = options(n, kLimit);
  for (auto _ : state) {
    auto r = kExact ? tr::truncate_ctxo(p, o) : tr::truncate_ctxo_naive(p, o);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void BM_TruncateExact(benchmark::State& state) { run<true, 0>(state); }
void BM_TruncateNaive(benchmark::State& state) { run<false, 0>(state); }
void BM_TruncateExactHalf(benchmark::State& state) { run<true, 1>(state); }
void BM_TruncateNaiveHalf(benchmark::State& state) { run<false, 1>(state); }

}  // namespace

BENCHMARK(BM_TruncateExact)->RangeMultiplier(10)->Range(10, 100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TruncateNaive)->RangeMultiplier(10)->Range(10, 100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TruncateExactHalf)->RangeMultiplier(10)->Range(10, 100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TruncateNaiveHalf)->RangeMultiplier(10)->Range(10, 100000)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
