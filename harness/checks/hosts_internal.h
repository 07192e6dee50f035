// SPDX-License-Identifier: MIT
// What hosts.cpp (the answer sizes, HostMeter) and hosts_listing.cpp (the tools/list rules)
// share: how a unit and a list are said, the worse severity, a tool's declared ceiling.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "profile/host.h"

namespace ctxo::checks::hosts_detail {

using nlohmann::json;
using profile::Host;
using profile::HostLimit;
using profile::Unit;
using Of = profile::HostLimit::Of;

/// How a size in `u` of what `of` names is said ("characters", "tokens", "bytes of an image").
std::string unit_words(Unit u, Of of = Of::kText);
/// "A", "A and B", "A, B and C".
std::string and_list(const std::vector<std::string>& items);
/// The byte offset in `text` (UTF-8) after its first `units` UTF-16 code units, never inside a
/// character (where a host's cut in characters falls).
std::size_t utf16_prefix_bytes(std::string_view text, std::size_t units);
/// kError when either is.
Severity worse(Severity a, Severity b);
/// The ceiling `tool` declares for `host` (capped at the host's maximum), or nullopt when it
/// declares none the host would honour.
std::optional<std::int64_t> declared_ceiling(const Host& host, const json* tool);

}  // namespace ctxo::checks::hosts_detail
