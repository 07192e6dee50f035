// SPDX-License-Identifier: MIT
// A CPU bound on one answer's checks (issue 27). Every per-answer pass (the protocol checks and
// outputSchema validation, envelope detection, the generic reading, the in-band text scans, the
// positions, harvesting) parses or walks the answer again; on a 60 MB answer of 20 million `{}`
// that kept a core busy for minutes. An answer whose content is over kSampleAboveBytes is read
// once, here, into a sample the checks can afford: every array keeps its first kSampleItems items
// (indices are kept, so a finding's JSON Pointer is still right), every object in a text part's
// JSON its first kSampleItems members (structuredContent's objects are kept whole: the tool's
// outputSchema may require any of them), and a text part that is not
// JSON keeps its first kSampleAboveBytes bytes (cut at a line end). The budget is in bytes, not
// time, so the same answer gives the same sample and the same verdicts on any machine.
#pragma once

#include <cstddef>
#include <optional>

#include "mcp/client.h"

namespace ctxo::checks {

/// Answers whose text parts or structuredContent are larger than this are checked on a sample.
inline constexpr std::size_t kSampleAboveBytes = 1u << 20;
/// The items of each array a sample keeps (the first ones).
inline constexpr std::size_t kSampleItems = 1000;
/// Past this many values in a sample, arrays take no more items (arrays of arrays of 1,000 items).
inline constexpr std::size_t kSampleValues = 100000;

/// The sample of `r` the checks read instead of it (Reply::sampled set), or nullopt when `r` is
/// within the budget (or is already a sample). The original's size and raw line are not kept:
/// `raw` holds its first bytes, enough for a finding's excerpt.
std::optional<mcp::Reply> sample_reply(const mcp::Reply& r);

/// The note a run prints once per tool some of whose answers were sampled.
std::string sampled_note(const std::string& tool);

}  // namespace ctxo::checks
