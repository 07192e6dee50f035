// SPDX-License-Identifier: MIT
// The run loop: spawn, handshake, list, call, check, restart after a crash or hang, shut down.
// It emits events to a Listener and returns a RunReport; it knows no report format.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/finding.h"
#include "engine/listener.h"
#include "engine/options.h"
#include "engine/profiles.h"
#include "engine/report.h"
#include "engine/selection.h"

namespace ctxo::engine {

using nlohmann::json;

/// Runs the whole pipeline. Never throws; a harness problem is in report.error.
RunReport run(const RunOptions& options, Listener& listener);

}  // namespace ctxo::engine
