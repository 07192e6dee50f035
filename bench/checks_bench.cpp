// SPDX-License-Identifier: MIT
// What judging one answer costs, per check family, next to what the client already pays for it
// (parsing its line: the baseline, same run). One Judge per benchmark, fed answer after answer as
// a run feeds it (its per-session state grows as a run's does); each family added on top of the
// one before, so a row's difference from the row above is that family's cost:
//   Parse        the client's parse of the answer line (the baseline);
//   Protocol     Judge::call with no profile candidates and no host: the result's shape, the
//                generic reading, in-band rules, coverage;
//   Profiles     + --profile auto's candidates (the four built-in envelope profiles tried);
//   Hosts        + the default hosts (H-SIZE's measure and the echo discount, H-* per answer);
//   Workspace    + --root: the generic position rules reading the files an answer names.
// Three answers (the line's size): a 156-byte echo answer in prose, as the echo benchmark's, a
// 940-byte list of eight places (JSON text: path, line, column, a snippet), and an 800-byte ctxo
// envelope of twelve items. Run by bench/run.sh (Release).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checks/judge.h"
#include "core/json_bounded.h"
#include "mcp/client.h"
#include "profile/host.h"
#include "profile/profile.h"

namespace {

using nlohmann::json;
using ctxo::checks::Exchange;
using ctxo::checks::Judge;
using ctxo::checks::JudgeSetup;
using ctxo::mcp::Reply;

enum Family { kProtocol = 1, kProfiles = 2, kHosts = 3, kWorkspace = 4 };
enum Answer { kEcho = 0, kPlaces = 1, kEnvelope = 2 };

const json kTools = json::parse(R"([
  {"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},
  {"name":"find_references","inputSchema":{"type":"object","properties":{"symbol":{"type":"string"},
    "limit":{"type":"integer","minimum":1,"maximum":100}},"required":["symbol"]}},
  {"name":"get_context","inputSchema":{"type":"object","properties":{"symbol":{"type":"string"}},"required":["symbol"]}}
])");

// A small workspace the places answer names (Workspace family): 20 files of 40 lines.
const std::string& workspace() {
  static const std::string dir = [] {
    auto d = std::filesystem::temp_directory_path() / "ctxo-checks-bench";
    std::filesystem::create_directories(d / "src");
    for (int f = 0; f < 20; ++f) {
      std::ofstream out(d / "src" / ("m" + std::to_string(f) + ".ts"));
      for (int l = 1; l <= 40; ++l) out << "export function runTask" << l << "(job: Job) { return runTask(job); } // 😀\n";
    }
    return d.string();
  }();
  return dir;
}

std::string answer_text(Answer a, int i) {
  switch (a) {
    case kEcho: return "Echo: call " + std::to_string(i) + " of the benchmark, a short answer as an echo tool gives it back";
    case kPlaces: {
      json places = json::array();
      for (int k = 0; k < 8; ++k)
        places.push_back({{"path", "src/m" + std::to_string((i + k) % 20) + ".ts"}, {"line", 1 + (i + k) % 40},
                          {"column", 17},
                          {"snippet", "export function runTask" + std::to_string(1 + (i + k) % 40) + "(job: Job)"}});
      return json{{"symbol", "runTask"}, {"references", places}, {"total", 8}}.dump();
    }
    case kEnvelope: {
      json items = json::array();
      for (int k = 0; k < 12; ++k) items.push_back({{"name", "runTask" + std::to_string(k)}, {"file", "src/m1.ts"}});
      return json{{"results", items},
                  {"_meta", {{"totalItems", 40}, {"returnedItems", 12}, {"truncated", true}, {"totalBytes", 4000},
                             {"hint", "pass offset 12 for the next page"}}}}
          .dump();
    }
  }
  return {};
}

const char* tool_of(Answer a) { return a == kEcho ? "echo" : a == kPlaces ? "find_references" : "get_context"; }

json args_of(Answer a, int i) {
  if (a == kEcho) return {{"text", "call " + std::to_string(i)}};
  return {{"symbol", "runTask"}};
}

std::string line_of(Answer a, int i) {
  return json{{"jsonrpc", "2.0"},
              {"id", 1000000 + i},
              {"result", {{"content", {{{"type", "text"}, {"text", answer_text(a, i)}}}}}}}
      .dump();
}

// The answers fed in turn (distinct texts, as a run's are), made before timing starts.
std::vector<Reply> replies(Answer a) {
  std::vector<Reply> out;
  for (int i = 0; i < 256; ++i) {
    Reply r;
    r.kind = Reply::Kind::kResult;
    r.raw = line_of(a, i);
    r.request = {{"jsonrpc", "2.0"},
                 {"id", 1000000 + i},
                 {"method", "tools/call"},
                 {"params", {{"name", tool_of(a)}, {"arguments", args_of(a, i)}}}};
    r.result = json::parse(r.raw)["result"];
    out.push_back(std::move(r));
  }
  return out;
}

void BM_Parse(benchmark::State& state) {
  const auto a = static_cast<Answer>(state.range(0));
  std::vector<std::string> lines;
  for (int i = 0; i < 256; ++i) lines.push_back(line_of(a, i));
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(ctxo::parse_bounded(lines[i++ % lines.size()]));
}

void BM_Judge(benchmark::State& state) {
  const auto family = static_cast<Family>(state.range(0));
  const auto a = static_cast<Answer>(state.range(1));
  static const auto candidates = ctxo::profile::load_builtins();
  static const auto hosts = ctxo::profile::load_hosts("default");
  if (!candidates.ok() || !hosts.ok()) {
    state.SkipWithError("no schemas directory (set CTXO_SCHEMAS_DIR)");
    return;
  }
  JudgeSetup setup;
  for (const auto& t : kTools) setup.tools.push_back(t);
  if (family >= kProfiles) setup.candidates = &candidates.value();
  if (family >= kHosts) setup.hosts = hosts.value();
  if (family >= kWorkspace) setup.root = workspace();
  const std::vector<Reply> rs = replies(a);
  Judge judge(setup);
  std::size_t i = 0;
  for (auto _ : state) {
    const Reply& r = rs[i++ % rs.size()];
    Exchange x;
    x.tool = tool_of(a);
    x.arguments = r.request["params"]["arguments"];
    x.reply = &r;
    x.validity = ctxo::checks::Validity::kValid;
    benchmark::DoNotOptimize(judge.call(x));
  }
}

void families(benchmark::internal::Benchmark* b) {
  for (int family : {kProtocol, kProfiles, kHosts, kWorkspace})
    for (int a : {kEcho, kPlaces, kEnvelope}) b->Args({family, a});
  b->ArgNames({"family", "answer"});
}

}  // namespace

BENCHMARK(BM_Parse)->DenseRange(kEcho, kEnvelope)->ArgName("answer")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Judge)->Apply(families)->Iterations(3000)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
