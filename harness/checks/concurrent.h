// SPDX-License-Identifier: MIT
// P-CONCURRENT: calls sent together, in flight at once on one session (as hosts send read-only
// tools' calls), each held to the answer the same call gets alone. The engine makes the calls
// (engine/concurrent.cpp); this says what a batch's answers come to, as data.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "mcp/client.h"

namespace ctxo::checks {

/// A batch whose answers differed is sent this many times in all (races are flaky: the finding
/// says in how many it differed); a replay sends its batch this many times.
inline constexpr std::size_t kBatchTries = 5;

/// One call of a batch: its request as sent together with the others, what the same call
/// answered alone (E-STABLE's form of it, checks::stable_form, and its raw line), and what it
/// answered in the batch.
struct BatchAnswer {
  nlohmann::json request;
  nlohmann::json alone;        ///< stable_form of the answer alone (seen twice the same).
  std::string alone_raw;       ///< The answer alone as sent (for the excerpt).
  nlohmann::json together;     ///< stable_form of the answer in the batch.
  std::string together_raw;
};

/// "a batch of 4 tools/call requests in flight at once on one session (search x3, get_note x1)":
/// what a batch was, for diagnoses (P-CONCURRENT, and a hang or crash met in one).
std::string describe_batch(const nlohmann::json& batch);

/// P-CONCURRENT on `tool`: `diff`, a call of `batch`, answered otherwise than alone; the batch
/// was sent `tries` times and some answer of the tool differed in `differed` of them. `warning`:
/// the tool is annotated neither read-only nor idempotent (judged on --concurrency-all).
Finding concurrent_difference(const std::string& tool, const nlohmann::json& batch, const BatchAnswer& diff,
                              std::size_t differed, std::size_t tries, bool warning);

}  // namespace ctxo::checks
