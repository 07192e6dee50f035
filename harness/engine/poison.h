// SPDX-License-Identifier: MIT
// T-POISON's watch (issue 43, "a server broken by one call"): what the answered calls of one
// session look like, cheaply, call after call, so that a server whose every tool starts failing
// the same way after one call is noticed after a few of those failures instead of after hundreds.
// It only raises a suspicion; the run checks it on the same server (witnesses: calls that answered
// normally before, sent again) and confirms it on fresh instances (engine/poison_run.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctxo::engine {

/// The failure texts two answers are compared by: digit runs and runs of 4 or more hex digits (ids,
/// addresses, sizes, timestamps) as '#', whitespace runs as one space, trimmed, at most
/// kFailureChars bytes of the text read.
inline constexpr std::size_t kFailureChars = 200;
std::string normalised_failure(std::string_view text);
/// fnv1a(normalised_failure(text)), without making the string (it runs on every failed call).
std::uint64_t failure_hash(std::string_view text);

/// The answered calls of one session (one server instance after another), as T-POISON reads them:
/// the current streak of valid calls that failed with the same normalised text, the call before it,
/// and a few calls of distinct tools that answered normally (witnesses, sent again to see whether
/// their tools fail too). Allocation-free on the common path: requests are moved in, a streak's
/// first call and the call before it are kept by moving, and a witness is copied only when a tool
/// not among the kept ones answers normally.
class PoisonWatch {
 public:
  /// Valid calls in a row failing the same way before a suspicion is raised.
  static constexpr std::size_t kStreak = 3;
  /// Distinct tools whose last normal call is kept (the oldest replaced).
  static constexpr std::size_t kWitnessTools = 4;
  /// Suspicions raised per server instance at most (each costs at most two witness calls).
  static constexpr std::size_t kChecksPerInstance = 4;
  /// Request ids kept per streak (the calls whose findings a confirmed case withdraws).
  static constexpr std::size_t kStreakIds = 16;

  /// A tools/call answer (a result or a JSON-RPC error the server sent).
  struct Seen {
    std::string_view tool;
    bool valid = true;         ///< Generated valid: an invalid call's error is expected (ignored).
    bool failed = false;       ///< isError: true, or a JSON-RPC error.
    std::uint64_t failure = 0; ///< failure_hash of what it said, when it failed.
    std::size_t number = 0;    ///< Its number among the run's calls (what the report says).
  };
  struct Witness {
    std::string tool;
    nlohmann::json request;  ///< A valid call of `tool` that answered normally (the request sent).
  };

  /// One answered call, in order, its request moved in. True when a suspicion is raised: kStreak or
  /// more valid calls in a row failed the same way, and the streak names a tool it did not name
  /// when it was last checked (checked()), and this instance has had fewer than
  /// kChecksPerInstance suspicions.
  bool see(const Seen& call, nlohmann::json&& request);
  /// The streak was checked with the tools it names now (it is raised again only when it reaches
  /// another tool).
  void checked();
  /// A fresh server instance: the streak, the call before it and the counts are forgotten; the
  /// witnesses are kept (calls that answered normally on an earlier instance of the same server).
  void fresh_instance();

  std::uint64_t failure() const { return hash_; }
  std::size_t length() const { return length_; }
  /// The streak's tools, in the order they joined it.
  const std::vector<std::string>& tools() const { return tools_; }
  /// The request ids of the streak's calls (the first kStreakIds).
  const std::vector<std::int64_t>& ids() const { return ids_; }
  /// The streak's first failing call, and the call before it on this instance (null: none).
  const nlohmann::json& first() const { return first_; }
  const nlohmann::json& before() const { return before_; }
  /// The position of the streak's first call among this instance's answered calls (1-based).
  std::size_t at() const { return at_; }
  /// The streak's first call's Seen::number.
  std::size_t number() const { return number_; }
  /// Calls answered on this instance.
  std::size_t calls() const { return index_; }
  const std::vector<Witness>& witnesses() const { return witnesses_; }
  /// Whether `tool` is among the witnesses (it answered a valid call normally).
  bool worked(std::string_view tool) const;

 private:
  void end_streak();
  std::size_t index_ = 0;
  std::uint64_t hash_ = 0;
  std::size_t length_ = 0, at_ = 0, number_ = 0, checked_tools_ = 0, checks_ = 0;
  std::vector<std::string> tools_;
  std::vector<std::int64_t> ids_;
  nlohmann::json first_, before_, prev_;
  std::vector<Witness> witnesses_;
  std::size_t oldest_ = 0;  ///< The witness replaced next once kWitnessTools are kept.
};

}  // namespace ctxo::engine
