// SPDX-License-Identifier: MIT
#include "checks/concurrent.h"

#include <map>

#include "core/text.h"
#include "profile/schema_validator.h"

namespace ctxo::checks {

using nlohmann::json;

std::string describe_batch(const json& batch) {
  std::map<std::string, std::size_t> per_tool;
  std::vector<std::string> order;
  for (const auto& r : batch) {
    std::string name = r.contains("params") && r["params"].is_object() ? r["params"].value("name", "") : "";
    if (per_tool[name]++ == 0) order.push_back(name);
  }
  std::string tools;
  for (const auto& n : order) tools += (tools.empty() ? "" : ", ") + n + " x" + std::to_string(per_tool[n]);
  return "a batch of " + std::to_string(batch.size()) + " tools/call requests in flight at once on one session (" +
         tools + ")";
}

Finding concurrent_difference(const std::string& tool, const json& batch, const BatchAnswer& diff,
                              std::size_t differed, std::size_t tries, bool warning) {
  Finding f;
  f.invariant = "P-CONCURRENT";
  f.tool = tool;
  f.severity = warning ? Severity::kWarning : Severity::kError;
  f.request = diff.request;
  f.batch = batch;
  f.phase = "concurrent";
  f.response_excerpt = excerpt(diff.together_raw, 300);
  // Where the two answers part, as E-STABLE says it.
  const json d = json::diff(diff.alone, diff.together);
  const std::string path = d.empty() ? "" : d[0].value("path", std::string());
  const json* was = profile::resolve_pointer(diff.alone, path);
  const json* got = profile::resolve_pointer(diff.together, path);
  f.diagnosis = "sent in " + describe_batch(batch) + ", this call got another answer than it gets alone (" +
                std::to_string(differed) + " of " + std::to_string(tries) + " tries differed" +
                (differed < tries ? ": a race" : "") + "); first difference at " +
                (path.empty() ? std::string("(root)") : path) + ": alone " +
                (was ? excerpt(was->dump(), 160) : std::string("absent")) + ", in the batch " +
                (got ? excerpt(got->dump(), 160) : std::string("absent")) + ". Alone it answers: " +
                excerpt(diff.alone_raw, 200);
  return f;
}

}  // namespace ctxo::checks
