// SPDX-License-Identifier: MIT
#include "reports/sarif.h"

namespace ctxo::reports {

nlohmann::json to_sarif(const engine::RunReport&, const std::string&) { return nlohmann::json::object(); }

}  // namespace ctxo::reports
