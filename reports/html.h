// SPDX-License-Identifier: MIT
// TODO(writer): html report.
#pragma once

#include <string>

#include "engine/engine.h"

namespace ctxo::reports {

/// The html report of a run.
std::string to_html(const engine::RunReport& report, const std::string& version);

}  // namespace ctxo::reports
