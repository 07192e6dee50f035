// SPDX-License-Identifier: MIT
// What every command shares (common.h): the command line's errors, the shared options, and
// writing a finished report.
#include "cli/common.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "checks/registry.h"
#include "cli/scrub.h"
#include "core/display.h"

namespace ctxo::cli {

std::vector<std::string> split_csv(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::stringstream ss(item);
    std::string part;
    while (std::getline(ss, part, ','))
      if (!part.empty()) out.push_back(part);
  }
  return out;
}

int usage_error(const std::string& message) {
  std::cerr << "error: " << ctxo::display_text(message, false) << "\n";
  return kExitUsage;
}

// Parses argv with CLI11 (whose exceptions stop here). nullopt: go on; else the exit code, after
// printing --help, or one `error:` line for a bad command line.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, bool takes_server) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitPass;
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    if (takes_server && msg.find("not expected") != std::string::npos)
      msg += " (unknown option; to pass options to the server, put its command after --)";
    return usage_error(msg);
  }
  return std::nullopt;
}

// Validates --only/--skip ids; "" when fine, else the error message.
std::string selection_problem(const std::vector<std::string>& only, const std::vector<std::string>& skip) {
  for (const auto* list : {&only, &skip}) {
    for (const auto& id : *list) {
      const auto* inv = ctxo::checks::find_invariant(id);
      if (!inv) return "unknown invariant '" + id + "' (see --list-invariants)";
      if (!inv->implemented) std::cerr << "warning: invariant " << id << " is not checked by this version yet\n";
    }
  }
  return "";
}

ctxo::reports::ConsoleStyle console_style(const std::string& color, int verbosity, bool to_stderr) {
  const bool tty = ::isatty(to_stderr ? STDERR_FILENO : STDOUT_FILENO);
  ctxo::reports::ConsoleStyle style;
  style.color = color == "always" || (color == "auto" && tty && std::getenv("NO_COLOR") == nullptr);
  style.progress = tty;
  style.verbosity = verbosity;
  return style;
}

// Writes the reports and the console summary of a finished report; returns its exit code (2 when
// a report cannot be written). With a `redactor`, the report must have been scrubbed
// (cli::scrub_report); the rendered reports and the console text are scrubbed once more.
int finish(const ctxo::engine::RunReport& report, const ctxo::cli::Outputs& outputs, const std::string& color,
           int verbosity, const ctxo::core::Redactor* redactor) {
  if (redactor && redactor->empty()) redactor = nullptr;
  const bool to_stderr = outputs.to_stdout() > 0;
  std::ostream& raw = to_stderr ? std::cerr : std::cout;
  auto style = console_style(color, verbosity, to_stderr);
  auto w = outputs.write(report, kVersion, redactor);
  if (redactor) {
    ctxo::cli::ScrubbingStream con(raw, *redactor);
    ctxo::reports::print_summary(con, report, style);
  } else {
    ctxo::reports::print_summary(raw, report, style);
  }
  if (!w.ok()) return usage_error(redactor ? redactor->scrub(w.error().message) : w.error().message);
  return report.exit_code;
}

// The report side of `check` and `merge`, checked before any work: --color, the report paths
// and --baseline. Returns the accepted entries (empty without --baseline).
ctxo::Result<std::vector<ctxo::engine::BaselineEntry>> check_report_options(const std::string& color,
                                                                           const ctxo::cli::Outputs& outputs,
                                                                           const std::string& baseline) {
  if (color != "auto" && color != "always" && color != "never")
    return ctxo::make_error("usage", "--color expects auto, always or never");
  if (auto c = outputs.check(); !c.ok()) return c.error();
  if (baseline.empty()) return std::vector<ctxo::engine::BaselineEntry>{};
  return ctxo::engine::load_baseline(baseline);
}

// --header NAME: VALUE, each: the pairs, or why one is malformed.
ctxo::Result<std::vector<std::pair<std::string, std::string>>> parse_headers(const std::vector<std::string>& given) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& h : given) {
    auto colon = h.find(':');
    if (colon == std::string::npos || colon == 0 || h.find_first_of(" \t\r\n") < colon)
      return ctxo::make_error("usage", "--header expects NAME: VALUE (e.g. 'Authorization: Bearer TOKEN'), got one without a name");
    std::string value = h.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
    if (value.find_first_of("\r\n") != std::string::npos)
      return ctxo::make_error("usage", "--header values cannot hold line breaks");
    out.emplace_back(h.substr(0, colon), value);
  }
  return out;
}

void add_profile_option(CLI::App& app, std::string& profile) {
  app.add_option("--profile", profile, "Envelope profile: auto|ctxo|budget|meta|truncation-info|none|FILE.json")
      ->type_name("NAME|FILE")
      ->capture_default_str();
}

void add_host_option(CLI::App& app, std::string& host) {
  app.add_option("--host", host,
                 "Hosts whose limits H-* checks apply: default (claude-code, claude-desktop), all (every built-in), none, or "
                 "NAME|FILE.json,... (built-in: claude-code, claude-desktop, codex, copilot-cli, cursor, openai, opencode, "
                 "trae, vscode-copilot, windsurf)")
      ->type_name("NAME,...|none");
}

void add_strict_error_output_option(CLI::App& app, bool& strict) {
  app.add_flag("--strict-error-output", strict,
               "Hold an isError result's structuredContent to the tool's outputSchema too, as strict clients do "
               "(P-RESULT; the TypeScript SDK 1.x callTool)");
}

void add_selection_options(CLI::App& app, std::vector<std::string>& only, std::vector<std::string>& skip) {
  app.add_option("--only", only, "Report only these invariants")->type_name("INV,...")->allow_extra_args(false);
  app.add_option("--skip", skip, "Do not report these invariants")->type_name("INV,...")->allow_extra_args(false);
}

void add_baseline_option(CLI::App& app, std::string& baseline) {
  app.add_option("--baseline", baseline, "Accepted findings (a baseline file or an earlier JSON report)")
      ->type_name("F");
}

void add_console_options(CLI::App& app, Console& console, const char* quiet_help, const char* verbose_help) {
  app.add_option("--color", console.color, "Colour: auto|always|never (auto honours NO_COLOR)")
      ->type_name("WHEN")
      ->capture_default_str();
  app.add_flag("-q,--quiet", [&console](std::int64_t) { console.verbosity = 0; }, quiet_help);
  app.add_flag("-v,--verbose", [&console](std::int64_t) { console.verbosity = 2; }, verbose_help);
}

}  // namespace ctxo::cli
