// SPDX-License-Identifier: MIT
// TODO(writer): markdown report.
#pragma once

#include <string>

#include "engine/engine.h"

namespace ctxo::reports {

/// The markdown report of a run.
std::string to_markdown(const engine::RunReport& report, const std::string& version);

}  // namespace ctxo::reports
