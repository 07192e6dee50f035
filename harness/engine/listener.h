// SPDX-License-Identifier: MIT
// What a run tells as it goes (the console's progress line, findings as they are found).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/finding.h"
#include "engine/report.h"

namespace ctxo::engine {

/// Receives progress as the run goes. All methods have empty defaults.
class Listener {
 public:
  virtual ~Listener() = default;
  virtual void on_started(const RunReport& report) {}
  virtual void on_tools(const std::vector<ToolSummary>& tools) {}
  virtual void on_tool(const ToolSummary& tool, std::size_t index, std::size_t total) {}
  virtual void on_call(const ToolSummary& tool, std::size_t calls_total) {}
  virtual void on_finding(const Finding& finding) {}
  virtual void on_note(const std::string& note) {}
};

}  // namespace ctxo::engine
