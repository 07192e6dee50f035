// SPDX-License-Identifier: MIT
// The JSON report (SPEC §5): a contract scripts depend on; validates against
// schemas/report.schema.json. Also the console summary printer.
#pragma once

#include <chrono>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "engine/listener.h"
#include "engine/report.h"

namespace ctxo::reports {

/// The report as JSON (see schemas/report.schema.json).
nlohmann::json to_json(const engine::RunReport& report, const std::string& version);

/// Reads a JSON report back (for `ctxo-conform merge` and --baseline). The document must
/// validate against schemas/report.schema.json. Errors: "parse" (not a report; the message
/// names the first problem), "config" (the schema cannot be found).
Result<engine::RunReport> from_json(const nlohmann::json& doc);

/// Writes `text` to `path` ('-' = stdout). Errors: "io" with the path and the reason.
Result<void> write_text(const std::string& path, const std::string& text);

/// Console look: colour codes (or none), and whether progress lines may be redrawn.
struct ConsoleStyle {
  bool color = false;
  bool progress = false;  ///< A TTY: redraw a progress line in place.
  int verbosity = 1;      ///< 0 quiet (summary line only), 1 normal, 2 verbose.
};

/// Prints the findings and the summary line a person reads at the end of a run.
void print_summary(std::ostream& out, const engine::RunReport& report, const ConsoleStyle& style);

/// A Listener that prints the server banner, a progress line redrawn in place on a TTY (tools
/// done, calls made, findings so far, elapsed; nothing when not a TTY) and notes.
class ConsoleListener : public engine::Listener {
 public:
  ConsoleListener(std::ostream& out, ConsoleStyle style) : out_(out), style_(style) {}
  void on_started(const engine::RunReport& report) override;
  void on_tools(const std::vector<engine::ToolSummary>& tools) override;
  void on_tool(const engine::ToolSummary& tool, std::size_t index, std::size_t total) override;
  void on_call(const engine::ToolSummary& tool, std::size_t calls_total) override;
  void on_finding(const Finding& finding) override;
  void on_note(const std::string& note) override;
  /// Clears a pending progress line (call before printing anything else).
  void clear_line();

 private:
  std::ostream& out_;
  ConsoleStyle style_;
  bool line_open_ = false;
  std::size_t findings_ = 0;
  std::string tool_;
  std::size_t index_ = 0, total_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace ctxo::reports
