// SPDX-License-Identifier: MIT
// Fuzz target: arbitrary bytes as a tool's inputSchema, through everything the harness derives
// from one: schema compilation, the boundary phase, schema hints, the random and invalid phases
// of a ToolPlan (with shrink candidates), the second pass and the driven limits, and the E-MISS
// lookup. Whatever the schema (nested, huge sizes, hostile patterns, absurd numbers), nothing may
// crash, throw or hang; every value stays under the generator's size bound; the same seed plans
// the same calls.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "gen/plan.h"
#include "gen/schema_gen.h"
#include "gen/simple.h"
#include "profile/schema_validator.h"

namespace {

using nlohmann::json;

void require(bool cond, const char* what) {
  if (!cond) {
    std::fprintf(stderr, "fuzz_schema_gen: invariant failed: %s\n", what);
    std::abort();
  }
}

// Far above what the generator writes (16,384 characters, 1,024 items, 64 KiB a value) and far
// below what a runaway size would make.
constexpr std::size_t kMaxArgumentBytes = 4 * 1024 * 1024;

// The calls one plan makes, as text; harvest values feed the second pass and the driven calls.
std::string plan_once(const json& schema, std::uint64_t seed) {
  ctxo::gen::ToolPlan plan(schema, 12, seed);
  ctxo::gen::Harvest harvest;
  harvest.take(json{{"id", "abc"}, {"name", "run"}, {"path", "src/a.ts"}, {"limit", 3}});
  std::string said;
  int shrinks = 0;
  while (auto call = plan.next(harvest)) {
    const std::string args = call->arguments.value().dump();
    require(args.size() < kMaxArgumentBytes, "a planned call stays bounded");
    said += std::string(ctxo::gen::phase_name(call->phase)) + " " + args + "\n";
    // A few shrink candidates of the first calls, as shrinking takes them.
    if (shrinks < 3) {
      auto seq = call->arguments.shrinks();
      for (int k = 0; k < 16; ++k)
        if (auto next = seq.next()) (void)next->value().dump();
      ++shrinks;
    }
  }
  for (const auto& c : plan.second_pass(harvest, 4)) said += "second " + c.arguments.value().dump() + "\n";
  for (const auto& c : plan.driven(json{{"limit", 5}}, "fuzz")) said += "driven " + c.arguments.value().dump() + "\n";
  return said;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = ctxo::profile::parse_json_text(text);
  if (!doc) return 0;
  const json& schema = *doc;
  (void)ctxo::profile::SchemaValidator::compile(schema);
  for (const auto& c : ctxo::gen::boundary_cases(schema))
    require(c.arguments.dump().size() < kMaxArgumentBytes, "a boundary case stays bounded");
  if (auto absent = ctxo::gen::absent_lookup(schema, 7))
    require(absent->dump().size() < kMaxArgumentBytes, "the E-MISS lookup stays bounded");
  const std::uint64_t seed = size * 2654435761u;
  const std::string first = plan_once(schema, seed);
  require(first == plan_once(schema, seed), "the same seed plans the same calls");
  return 0;
}
