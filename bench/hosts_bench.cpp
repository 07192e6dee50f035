// SPDX-License-Identifier: MIT
// What sizing an answer for the host limits (checks::measure_answer: UTF-16 length and UTF-8 size
// of its text, UTF-16 length of the serialised result, as H-SIZE does on every answer) costs next
// to what the client already pays for that answer: parsing its line (the baseline, same run).
// Answers of 1 KB to 10 MB of text mixing ASCII, CJK and astral emoji.
#include <benchmark/benchmark.h>

#include <string>

#include "checks/hosts.h"
#include "core/json_bounded.h"
#include "mcp/client.h"

namespace {

using nlohmann::json;

std::string line_of(std::size_t bytes) {
  std::string text;
  const std::string unit = "find 検索 results 😀 in src/a.ts:12 ";
  while (text.size() < bytes) text += unit;
  return json{{"jsonrpc", "2.0"}, {"id", 7}, {"result", {{"content", {{{"type", "text"}, {"text", text}}}}}}}.dump();
}

void BM_ParseAnswer(benchmark::State& state) {
  const std::string line = line_of(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ctxo::parse_bounded(line));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(line.size()));
}

void BM_MeasureAnswer(benchmark::State& state) {
  ctxo::mcp::Reply r;
  r.kind = ctxo::mcp::Reply::Kind::kResult;
  const std::string line = line_of(static_cast<std::size_t>(state.range(0)));
  r.result = json::parse(line)["result"];
  for (auto _ : state) benchmark::DoNotOptimize(ctxo::checks::measure_answer(r, true, false));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(line.size()));
}

}  // namespace

BENCHMARK(BM_ParseAnswer)->RangeMultiplier(10)->Range(1000, 10000000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MeasureAnswer)->RangeMultiplier(10)->Range(1000, 10000000)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
