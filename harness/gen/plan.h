// SPDX-License-Identifier: MIT
// The calls made to one tool, phase by phase: the deterministic boundary phase, random valid calls
// biased to the edges (fed with identifiers harvested from earlier answers), then labelled invalid
// calls. Every planned call carries a RapidCheck shrink tree, so a call that produced a finding can
// be shrunk by re-running smaller candidates against the server (see the engine).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "gen/schema_gen.h"

namespace ctxo::profile {
class SchemaValidator;
}

namespace ctxo::gen {

using nlohmann::json;

enum class Phase { kBoundary, kRandom, kInvalid };

/// "boundary", "random" or "invalid".
const char* phase_name(Phase p);

/// One call to make and how it was made.
struct PlannedCall {
  Phase phase = Phase::kBoundary;
  std::string label;              ///< e.g. "'limit' maximum", "random #3", "missing required 'path'".
  rc::Shrinkable<json> arguments; ///< value() is the arguments object; shrinks() the smaller candidates.
};

/// Values seen in answers, pooled by property name (case, '_' and '-' ignored), so later calls
/// can use identifiers that exist. Only strings and integers under identifier-like names (see
/// identifier_like), and cursors (a nextCursor is pooled as "cursor"), are kept; at most kPerName
/// distinct values per name.
class Harvest {
 public:
  static constexpr std::size_t kPerName = 16;
  /// Walks a tools/call result: its structuredContent and every text part that parses as JSON.
  void take_result(const json& result);
  /// Walks any JSON value.
  void take(const json& value);
  /// Pooled values for a property name (nullptr when none).
  const std::vector<json>* values_for(const std::string& property) const;
  /// Number of values pooled.
  std::size_t size() const;

 private:
  void walk(const json& v, int depth);
  std::map<std::string, std::vector<json>> pool_;
  std::set<std::string> seen_;  // name + '\x1f' + value text
};

/// Normalised property name used as the Harvest key: lower case, '_' and '-' dropped.
std::string harvest_key(const std::string& property);

/// How many calls each phase gets.
struct PhaseSizes {
  std::size_t boundary = 0, random = 0, invalid = 0;
};

/// `calls` = 0 (the default) sizes the phases to the schema: every boundary case (at most 48),
/// 24 random calls, 8 invalid ones. A positive `calls` caps the total: a fifth invalid, at least a
/// quarter random, the rest boundary cases in order.
PhaseSizes phase_sizes(std::size_t calls, std::size_t boundary_available, bool admits_invalid);

/// Shrinks a JSON value that did not come from a generator (boundary and harvested calls):
/// object members removed, then each member shrunk; strings by removing code points; integers
/// towards 0; reals towards 0; true to false; arrays by removing elements, then each element.
rc::Seq<json> shrink_json(const json& value);

/// A value with shrink_json's shrink tree.
rc::Shrinkable<json> shrinkable_json(const json& value);

/// The planned calls for one tool. Deterministic for (schema, calls, seed, the harvest it is fed).
class ToolPlan {
 public:
  ToolPlan(const json& input_schema, std::size_t calls, std::uint64_t seed, GenOptions options = {});

  /// The next call, or nullopt when the plan is done. Random calls may take values from `harvest`.
  std::optional<PlannedCall> next(const Harvest& harvest);

  const PhaseSizes& sizes() const { return sizes_; }
  /// What generation could not do exactly (unsupported patterns, remote refs...).
  std::vector<std::string> problems() const { return options_.problems.list(); }

 private:
  std::optional<PlannedCall> next_random(const Harvest& harvest);
  std::optional<PlannedCall> next_invalid();
  json harvested(const json& args, std::size_t index, const Harvest& harvest) const;

  json schema_;
  std::uint64_t seed_;
  GenOptions options_;
  PhaseSizes sizes_;
  std::vector<CallCase> boundary_;
  std::optional<rc::Gen<json>> valid_;
  std::optional<rc::Gen<InvalidCase>> invalid_;
  std::shared_ptr<const profile::SchemaValidator> validator_;  ///< Null when the schema does not compile.
  bool random_over_ = false;  ///< The schema admits no value the generator can make.
  std::size_t boundary_done_ = 0, random_done_ = 0, invalid_done_ = 0;
  std::set<std::string> sent_;  ///< Arguments text of every planned call (no call twice).
};

}  // namespace ctxo::gen
