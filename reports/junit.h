// SPDX-License-Identifier: MIT
// TODO(writer): junit report.
#pragma once

#include <string>

#include "engine/engine.h"

namespace ctxo::reports {

/// The junit report of a run.
std::string to_junit(const engine::RunReport& report, const std::string& version);

}  // namespace ctxo::reports
