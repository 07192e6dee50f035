// SPDX-License-Identifier: MIT
#include "gen/plan.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <rapidcheck/seq/Create.h>
#include <rapidcheck/seq/Transform.h>
#include <rapidcheck/shrink/Shrink.h>
#include <rapidcheck/shrinkable/Create.h>
#include <rapidcheck/shrinkable/Transform.h>

#include "core/text.h"
#include "gen/simple.h"
#include "profile/schema_validator.h"

namespace ctxo::gen {

namespace {

constexpr std::size_t kAutoBoundaryMax = 48;
constexpr std::size_t kAutoRandom = 24;
constexpr std::size_t kAutoInvalid = 8;
constexpr int kHarvestDepth = 12;
constexpr int kDrawAttempts = 4;  // draws per slot before a duplicate random call is given up

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool cursor_like(const std::string& key) { return key == "cursor" || key == "nextcursor"; }

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

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::kBoundary: return "boundary";
    case Phase::kRandom: return "random";
    case Phase::kInvalid: return "invalid";
  }
  return "?";
}

// ---- Harvest -------------------------------------------------------------------------------

std::string harvest_key(const std::string& property) {
  std::string k;
  for (char c : property) {
    if (c == '_' || c == '-') continue;
    k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return k;
}

void Harvest::take_result(const json& result) {
  if (!result.is_object()) return;
  if (auto it = result.find("structuredContent"); it != result.end()) take(*it);
  if (auto it = result.find("content"); it != result.end() && it->is_array()) {
    for (const auto& part : *it) {
      if (!part.is_object() || part.value("type", "") != "text" || !part.contains("text") || !part["text"].is_string())
        continue;
      json doc = json::parse(part["text"].get<std::string>(), nullptr, false);
      if (!doc.is_discarded()) take(doc);
    }
  }
}

void Harvest::take(const json& value) { walk(value, 0); }

void Harvest::walk(const json& v, int depth) {
  if (depth > kHarvestDepth) return;
  if (v.is_array()) {
    for (const auto& x : v) walk(x, depth + 1);
    return;
  }
  if (!v.is_object()) return;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const json& x = it.value();
    std::string key = harvest_key(it.key());
    if (key == "nextcursor") key = "cursor";  // a page's nextCursor is the next call's cursor
    bool keep = (x.is_string() && !x.get_ref<const std::string&>().empty() && x.get_ref<const std::string&>().size() <= 512) ||
                x.is_number_integer();
    if (keep && (identifier_like(it.key()) || cursor_like(key))) {
      auto& values = pool_[key];
      if (values.size() < kPerName && seen_.insert(key + '\x1f' + x.dump()).second) values.push_back(x);
    }
    if (x.is_structured()) walk(x, depth + 1);
  }
}

const std::vector<json>* Harvest::values_for(const std::string& property) const {
  auto it = pool_.find(harvest_key(property));
  return it == pool_.end() || it->second.empty() ? nullptr : &it->second;
}

std::size_t Harvest::size() const {
  std::size_t n = 0;
  for (const auto& [k, v] : pool_) n += v.size();
  return n;
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
    auto cps = split_code_points(value.get<std::string>());
    return rc::seq::map(rc::shrink::removeChunks(cps), [](const std::vector<std::string>& v) { return json(join(v)); });
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
    : schema_(input_schema.is_object() ? input_schema : json{{"type", "object"}}),
      seed_(seed),
      options_(std::move(options)) {
  boundary_ = boundary_cases(schema_);
  bool invalid_possible = admits_invalid(schema_, schema_);
  sizes_ = phase_sizes(calls, boundary_.size(), invalid_possible);
  valid_ = valid_value(schema_, schema_, options_);
  if (invalid_possible) invalid_ = invalid_value(schema_, schema_, options_);
  if (auto compiled = profile::SchemaValidator::compile(schema_))
    validator_ = std::make_shared<const profile::SchemaValidator>(std::move(*compiled));
}

std::optional<PlannedCall> ToolPlan::next(const Harvest& harvest) {
  while (boundary_done_ < sizes_.boundary && boundary_done_ < boundary_.size()) {
    const CallCase& c = boundary_[boundary_done_++];
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
    try {
      drawn = (*valid_)(rc::Random(mix(seed_, index * 16 + static_cast<std::size_t>(attempt))), size);
      (void)drawn.value();
    } catch (const rc::GenerationFailure&) {
      random_over_ = true;  // the schema admits no value we can make
      return std::nullopt;
    }
    std::string label = "random #" + std::to_string(index + 1);
    const json with_harvest = harvested(drawn.value(), index, harvest);
    if (with_harvest != drawn.value()) {
      label += " (harvested values)";
      drawn = shrinkable_json(with_harvest);
    }
    if (!sent_.insert(drawn.value().dump()).second) continue;
    return PlannedCall{Phase::kRandom, label, std::move(drawn)};
  }
  return std::nullopt;
}

// Replaces, on about half of the random calls, each top-level property that has harvested values
// by one of them (kept only when the arguments stay schema-valid).
json ToolPlan::harvested(const json& args, std::size_t index, const Harvest& harvest) const {
  if (!validator_ || !args.is_object() || harvest.size() == 0 || mix(seed_ ^ 0x4841525645535400ull, index) % 2 == 0)
    return args;
  json out = args;
  const json props = schema_.contains("properties") && schema_["properties"].is_object() ? schema_["properties"] : json::object();
  for (auto it = props.begin(); it != props.end(); ++it) {
    const auto* pool = harvest.values_for(it.key());
    if (!pool) continue;
    const std::uint64_t pick = mix(seed_ + index, fnv1a(it.key()));
    json trial = out;
    trial[it.key()] = (*pool)[pick % pool->size()];
    if (validator_->is_valid(trial)) out = std::move(trial);
  }
  return out;
}

std::optional<PlannedCall> ToolPlan::next_invalid() {
  const std::size_t index = invalid_done_++;
  for (int attempt = 0; attempt < kDrawAttempts; ++attempt) {
    try {
      auto drawn = (*invalid_)(rc::Random(mix(seed_ ^ 0x494e56414c4944ull, index * 16 + static_cast<std::size_t>(attempt))), 30);
      InvalidCase c = drawn.value();
      if (!sent_.insert(c.value.dump()).second) continue;
      auto args = rc::shrinkable::map(std::move(drawn), [](const InvalidCase& ic) { return ic.value; });
      return PlannedCall{Phase::kInvalid, c.label, std::move(args)};
    } catch (const rc::GenerationFailure&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace ctxo::gen
