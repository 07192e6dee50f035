// SPDX-License-Identifier: MIT
// TODO(writer): SARIF 2.1.0 report.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/engine.h"

namespace ctxo::reports {

/// The SARIF 2.1.0 log of a run.
nlohmann::json to_sarif(const engine::RunReport& report, const std::string& version);

}  // namespace ctxo::reports
