// SPDX-License-Identifier: MIT
// The ToolPlan's phases: how many calls each gets, the boundary cases in order, random valid calls
// drawn with sizes ramping up, labelled invalid calls, and budget parameters driven small
// (driven); the shrink trees of plain values (shrink_json). The Harvest is in plan_harvest.cpp,
// what names say in plan_names.cpp, calls given harvested values in plan_harvested.cpp.
#include "gen/plan.h"

#include <algorithm>
#include <cmath>

#include <rapidcheck/seq/Create.h>
#include <rapidcheck/seq/Transform.h>
#include <rapidcheck/shrink/Shrink.h>
#include <rapidcheck/shrinkable/Create.h>
#include <rapidcheck/shrinkable/Transform.h>

#include "core/text.h"
#include "gen/plan_internal.h"
#include "gen/rc_util.h"
#include "profile/schema_validator.h"

namespace ctxo::gen {

using namespace detail;

namespace {

constexpr std::size_t kAutoBoundaryMax = 48;
constexpr std::size_t kAutoRandom = 24;
constexpr std::size_t kAutoInvalid = 8;
constexpr int kDrawAttempts = 4;  // draws per slot before a duplicate random call is given up

// Code points of UTF-8 text, each as its byte sequence (so shrinking never splits a character;
// a byte that starts no well-formed sequence stands alone).
std::vector<std::string> split_code_points(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = std::max<std::size_t>(utf8_char_at(s, i).length, 1);
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += p;
  return s;
}

}  // namespace

namespace detail {

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

const json& properties_of(const json& schema) {
  static const json kNone = json::object();
  auto it = schema.find("properties");
  return it != schema.end() && it->is_object() ? *it : kNone;
}

}  // namespace detail

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::kBoundary: return "boundary";
    case Phase::kRandom: return "random";
    case Phase::kInvalid: return "invalid";
  }
  return "?";
}

// ---- phases --------------------------------------------------------------------------------

PhaseSizes phase_sizes(std::size_t calls, std::size_t boundary_available, bool admits_invalid) {
  PhaseSizes s;
  if (calls == 0) {
    s.boundary = std::min(boundary_available, kAutoBoundaryMax);
    s.random = kAutoRandom;
    s.invalid = admits_invalid ? kAutoInvalid : 0;
    return s;
  }
  s.invalid = admits_invalid ? calls / 5 : 0;
  const std::size_t random_min = calls / 4;
  s.boundary = std::min(boundary_available, calls - s.invalid - random_min);
  s.random = calls - s.invalid - s.boundary;
  return s;
}

// ---- shrinking plain values ------------------------------------------------------------------

/// The longest string whose shrinks include removeChunks' (shorter ones are halved first).
constexpr std::size_t kChunkedCodePoints = 64;

rc::Seq<json> shrink_json(const json& value) {
  if (value.is_object()) {
    std::vector<std::string> keys;
    for (auto it = value.begin(); it != value.end(); ++it) keys.push_back(it.key());
    auto removals = rc::seq::map(rc::seq::fromContainer(keys), [value](const std::string& k) {
      json smaller = value;
      smaller.erase(k);
      return smaller;
    });
    auto members = rc::seq::mapcat(rc::seq::fromContainer(keys), [value](const std::string& k) {
      return rc::seq::map(shrink_json(value[k]), [value, k](json v) {
        json smaller = value;
        smaller[k] = std::move(v);
        return smaller;
      });
    });
    return rc::seq::concat(std::move(removals), std::move(members));
  }
  if (value.is_array()) {
    std::vector<json> items(value.begin(), value.end());
    auto fewer = rc::seq::map(rc::shrink::removeChunks(items), [](const std::vector<json>& v) { return json(v); });
    auto each = rc::seq::map(rc::shrink::eachElement(items, &shrink_json), [](const std::vector<json>& v) { return json(v); });
    return rc::seq::concat(std::move(fewer), std::move(each));
  }
  if (value.is_string()) {
    auto cps = std::make_shared<const std::vector<std::string>>(split_code_points(value.get<std::string>()));
    // The string without each half, then each quarter, ... each 64th (made when looked at): the
    // steps delta debugging takes, so a failure that needs one part of a long string keeps it in
    // a few steps. removeChunks (every chunk removed, the largest first) only once the string is
    // short: on a long one its first thousands of candidates are all near-empty strings.
    std::vector<std::pair<std::size_t, std::size_t>> parts;  // (pieces, which one is left out)
    for (std::size_t pieces = 2; pieces <= 64 && pieces <= cps->size(); pieces *= 2)
      for (std::size_t i = 0; i < pieces; ++i) parts.emplace_back(pieces, i);
    auto halves = rc::seq::map(rc::seq::fromContainer(std::move(parts)), [cps](const std::pair<std::size_t, std::size_t>& p) {
      const std::size_t n = cps->size(), from = n * p.second / p.first, to = n * (p.second + 1) / p.first;
      std::vector<std::string> kept(cps->begin(), cps->begin() + static_cast<std::ptrdiff_t>(from));
      kept.insert(kept.end(), cps->begin() + static_cast<std::ptrdiff_t>(to), cps->end());
      return json(join(kept));
    });
    if (cps->size() > kChunkedCodePoints) return halves;
    return rc::seq::concat(std::move(halves), rc::seq::map(rc::shrink::removeChunks(*cps), [](const std::vector<std::string>& v) {
                             return json(join(v));
                           }));
  }
  if (value.is_boolean()) {
    return value.get<bool>() ? rc::seq::just(json(false)) : rc::Seq<json>();
  }
  if (value.is_number_integer()) {
    auto n = value.get<std::int64_t>();
    return rc::seq::map(rc::shrink::towards<std::int64_t>(n, 0), [](std::int64_t x) { return json(x); });
  }
  if (value.is_number_unsigned()) {
    auto n = value.get<std::uint64_t>();
    return rc::seq::map(rc::shrink::towards<std::uint64_t>(n, 0), [](std::uint64_t x) { return json(x); });
  }
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (!std::isfinite(d)) return rc::Seq<json>();
    return rc::seq::map(rc::shrink::real(d), [](double x) { return json(x); });
  }
  return rc::Seq<json>();
}

rc::Shrinkable<json> shrinkable_json(const json& value) { return rc::shrinkable::shrinkRecur(value, &shrink_json); }

// ---- ToolPlan ------------------------------------------------------------------------------

ToolPlan::ToolPlan(const json& input_schema, std::size_t calls, std::uint64_t seed, GenOptions options)
    : ToolPlan(std::make_shared<const json>(input_schema), calls, seed, std::move(options)) {}

ToolPlan::ToolPlan(std::shared_ptr<const json> input_schema, std::size_t calls, std::uint64_t seed, GenOptions options)
    : schema_(input_schema && input_schema->is_object() ? std::move(input_schema)
                                                        : std::make_shared<const json>(json{{"type", "object"}})),
      seed_(seed),
      options_(std::move(options)) {
  const json& schema = *schema_;
  // Compiled once (or given), used by the boundary and invalid phases too; the schema is shared
  // with every generator whose root it is.
  validator_ = options_.root_validator;
  if (!validator_)
    if (auto compiled = profile::SchemaValidator::compile_borrowed(schema))
      validator_ = std::make_shared<const profile::SchemaValidator>(std::move(*compiled));
  options_.root_validator = validator_;
  options_.root_schema = schema_;
  boundary_ = boundary_cases(schema, options_);
  GenOptions probe;  // the defaults, as always: only the compiled validator and the schema are shared
  probe.root_validator = validator_;
  probe.root_schema = schema_;
  bool invalid_possible = admits_invalid(schema, schema, probe);
  sizes_ = phase_sizes(calls, boundary_.size(), invalid_possible);
  valid_ = valid_value(schema, schema, options_);
  if (invalid_possible) invalid_ = invalid_value(schema, schema, options_);
  takes_code_ = programmed(boundary_.empty() ? json::object() : boundary_.front().arguments).has_value();
}

std::optional<PlannedCall> ToolPlan::next(const Harvest& harvest) {
  while (boundary_done_ < sizes_.boundary && boundary_done_ < boundary_.size()) {
    const CallCase& c = boundary_[boundary_done_++];
    // A boundary is tried on real data where the workspace has some: a bound of `maxResults`
    // checked with a path that does not exist tells nothing.
    if (std::optional<json> real = grounded(c.arguments, harvest)) {
      if (!sent_.insert(real->dump()).second) continue;
      return PlannedCall{Phase::kBoundary, c.label + " (workspace values)", shrinkable_json(*real)};
    }
    if (!sent_.insert(c.arguments.dump()).second) continue;
    return PlannedCall{Phase::kBoundary, c.label, shrinkable_json(c.arguments)};
  }
  while (!random_over_ && random_done_ < sizes_.random) {
    if (auto c = next_random(harvest)) return c;
  }
  while (invalid_done_ < sizes_.invalid) {
    if (auto c = next_invalid()) return c;
  }
  return std::nullopt;
}

std::optional<PlannedCall> ToolPlan::next_random(const Harvest& harvest) {
  const std::size_t index = random_done_++;
  // Sizes ramp up across the phase, like RapidCheck's own test loop: small values first.
  const std::size_t total = std::max<std::size_t>(sizes_.random, 1);
  const int size = static_cast<int>(std::min<std::size_t>(rc::kNominalSize, 5 + index * rc::kNominalSize / total));
  for (int attempt = 0; attempt < kDrawAttempts; ++attempt) {
    rc::Shrinkable<json> drawn = rc::shrinkable::just(json::object());
    json value;
    try {
      drawn = (*valid_)(rc::Random(mix(seed_, index * 16 + static_cast<std::size_t>(attempt))), size);
      value = drawn.value();  // valid_value keeps its value: this is a copy, not a second draw
    } catch (const rc::GenerationFailure& e) {
      random_over_ = true;  // the schema admits no value we can make
      cannot_generate_ = e.what();
      return std::nullopt;
    }
    std::string label = "random #" + std::to_string(index + 1);
    if (std::optional<json> with_harvest = harvested(value, index, harvest)) {
      // The first calls with real values, then every kLeanEvery-th, carry only those, the required
      // parameters and the output flags (a real name beside a random `branch` is only refused);
      // every other one of these, the first first, leaves out the optional ones too (the real
      // name and the flag alone). The others keep the draw's optionals, so the phase still
      // explores them. A call made before (a boundary case may be the same) gives way to the next form.
      const bool lean_turn = real_calls_ < kLeanFirst || real_calls_ % kLeanEvery == 0;
      ++real_calls_;
      std::optional<json> lean;
      if (lean_turn) {
        if (lean_turns_++ % 2 == 0) lean = real_only(*with_harvest, value, true);
        if (!lean || sent_.count(lean->dump()) != 0) lean = real_only(*with_harvest, value, false);
      }
      if (lean && sent_.count(lean->dump()) == 0) {
        label += " (harvested values only)";
        value = std::move(*lean);
      } else {
        label += " (harvested values)";
        value = std::move(*with_harvest);
      }
      drawn = shrinkable_json(value);
    }
    if (!sent_.insert(value.dump()).second) continue;
    return PlannedCall{Phase::kRandom, std::move(label), std::move(drawn)};
  }
  return std::nullopt;
}

std::optional<PlannedCall> ToolPlan::fresh(json args, Phase phase, std::string label) {
  if (!args.is_object() || (validator_ && !validator_->is_valid(args))) return std::nullopt;
  if (!sent_.insert(args.dump()).second) return std::nullopt;
  return PlannedCall{phase, std::move(label), shrinkable_json(args)};
}

std::vector<PlannedCall> ToolPlan::driven(const json& args, const std::string& after) {
  std::vector<PlannedCall> out;
  if (!args.is_object()) return out;
  const json& props = properties_of(*schema_);
  for (auto it = props.begin(); it != props.end(); ++it) {
    if (!budget_parameter(it.key()) || !it.value().is_object()) continue;
    const json& ps = it.value();
    const std::string type = ps.contains("type") && ps["type"].is_string() ? ps["type"].get<std::string>() : "";
    if (type != "integer" && type != "number") continue;
    double lo = 1;
    if (ps.contains("minimum") && ps["minimum"].is_number()) lo = std::max(lo, ps["minimum"].get<double>());
    if (ps.contains("exclusiveMinimum") && ps["exclusiveMinimum"].is_number())
      lo = std::max(lo, std::floor(ps["exclusiveMinimum"].get<double>()) + 1);
    if (!std::isfinite(lo) || lo > 1e12) continue;
    // And at its maximum, when the schema has one: the largest answer the tool lets an agent
    // ask for must still fit the hosts that read it (H-SIZE).
    std::optional<double> hi;
    if (ps.contains("maximum") && ps["maximum"].is_number()) hi = std::floor(ps["maximum"].get<double>());
    if (ps.contains("exclusiveMaximum") && ps["exclusiveMaximum"].is_number())
      hi = std::min(hi.value_or(HUGE_VAL), std::ceil(ps["exclusiveMaximum"].get<double>()) - 1);
    std::vector<double> values = {lo, lo * 4};
    if (hi && std::isfinite(*hi) && *hi > lo * 4 && *hi <= 1e9) values.push_back(*hi);
    for (double v : values) {
      json a = args;
      a[it.key()] = static_cast<std::int64_t>(std::ceil(v));
      if (a == args) continue;
      if (auto c = fresh(std::move(a), Phase::kRandom,
                         "'" + it.key() + "' driven to " + std::to_string(static_cast<std::int64_t>(std::ceil(v))) +
                             " (" + after + ")"))
        out.push_back(std::move(*c));
    }
  }
  return out;
}

std::optional<PlannedCall> ToolPlan::next_invalid() {
  const std::size_t index = invalid_done_++;
  for (int attempt = 0; attempt < kDrawAttempts; ++attempt) {
    try {
      auto drawn = (*invalid_)(rc::Random(mix(seed_ ^ 0x494e56414c4944ull, index * 16 + static_cast<std::size_t>(attempt))), 30);
      InvalidCase c = drawn.value();  // invalid_value keeps its value: a copy, not a second draw
      if (!sent_.insert(c.value.dump()).second) continue;
      auto args = cached(std::move(c.value),
                         rc::shrinkable::map(std::move(drawn), [](const InvalidCase& ic) { return ic.value; }));
      return PlannedCall{Phase::kInvalid, std::move(c.label), std::move(args)};
    } catch (const rc::GenerationFailure&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace ctxo::gen
