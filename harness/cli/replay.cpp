// SPDX-License-Identifier: MIT
// `ctxo-conform replay CASE.json`: one finding's case file, its call made again against the
// server (started as the run started it, in the sandbox when the run had one), and whether it
// still fails.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "checks/concurrent.h"
#include "cli/common.h"
#include "cli/safety.h"
#include "cli/scrub.h"
#include "cli/stop.h"
#include "core/display.h"
#include "engine/cases.h"
#include "engine/engine.h"
#include "transport/transport.h"

namespace ctxo::cli {

// `ctxo-conform replay CASE.json`: one finding's call against the server again.
int run_replay(int argc, char** argv) {
  CLI::App app{"ctxo-conform replay: re-run the call of one case file against the server and say whether\n"
               "it still fails.\n\n"
               "  ctxo-conform replay [OPTIONS] CASE.json [-- CMD [ARGS...]]\n\n"
               "A run writes a case file per finding (--cases DIR). The replay starts the server as the run\n"
               "did (command, environment, working directory, protocol version), makes the recorded call\n"
               "(the shrunk one), and checks the case's invariant; limit-sweep invariants sweep again.\n"
               "An env value the run redacted (<redacted>: a name holding TOKEN, KEY, SECRET, PASS, AUTH,\n"
               "CREDENTIAL or COOKIE) is taken from the environment variable of the same name; a URL\n"
               "credential it redacted (user, password, query value) from CTXO_URL_USER, CTXO_URL_PASSWORD\n"
               "or CTXO_URL_<KEY>, as the case's replay line names it.\n"
               "Exit codes: 0 it no longer fails (or a warning still warns), 1 it still fails,\n"
               "            2 bad case file or option,\n"
               "            3 the server could not be started or initialised.",
               "ctxo-conform replay"};
  std::string case_path, url;
  std::vector<std::string> command, headers;
  std::optional<long> timeout_ms;
  Console console;
  Outputs outputs;
  app.add_option("CASE", case_path, "A case file written by a run (--cases DIR)")->required();
  app.add_option("COMMAND", command, "After --: start this server instead of the recorded command")->take_all();
  app.add_option("--timeout", timeout_ms, "Per-request timeout in milliseconds (default: the run's)")->type_name("MS");
  app.add_option("--url", url, "An HTTP case: reach the server at URL instead of the recorded one")->type_name("URL");
  app.add_option("--header", headers, "An HTTP case: header sent with every request (repeatable; case files keep "
                                      "only the names of the run's headers; its value is never printed)")
      ->type_name("K:V")
      ->allow_extra_args(false);
  outputs.add_options(app);
  add_console_options(app, console, "Print only the verdict line", "Print the replay command too");
  ctxo::cli::SafetyFlags safety;
  ctxo::cli::add_safety_options(app, safety);
  if (auto done = parse_command_line(app, argc, argv, false)) return *done;
  if (auto bad = check_report_options(console.color, outputs, ""); !bad.ok()) return usage_error(bad.error().message);
  outputs.remove_stale();
  auto loaded = ctxo::engine::load_case(case_path);
  if (!loaded.ok()) return usage_error(loaded.error().message);
  ctxo::engine::Case c = std::move(loaded.value());
  if (!command.empty()) c.options.command = command;
  if (!url.empty()) {
    if (!ctxo::transport::is_http_url(url))
      return usage_error(ctxo::core::Redactor::for_run({}, {}, url).scrub("--url must be an http:// or https:// URL, got '" +
                                                                           url + "'"));
    c.options.url = url;
  }
  // The run that wrote the case redacted its URL's credentials: they come from the environment.
  if (auto missing = ctxo::cli::resolve_redacted_url(c.options.url); !missing.empty()) {
    std::string names;
    for (const auto& n : missing) names += (names.empty() ? "" : ", ") + n;
    return usage_error("the case's URL holds redacted credential(s) " + names +
                       " (the run never writes secrets): set " + (missing.size() == 1 ? "it" : "them") +
                       " to the value(s) as written in the URL (export " + missing.front() +
                       "=...), or give --url, and replay again");
  }
  auto given = parse_headers(headers);
  if (!given.ok()) return usage_error(given.error().message);
  c.options.headers = std::move(given.value());
  if (c.options.url.empty() && !c.options.headers.empty()) return usage_error("--header needs an HTTP case (or --url)");
  if (c.options.url.empty() && c.options.command.empty()) return usage_error("'" + case_path + "' names no server command");
  if (!c.options.url.empty())
    if (auto curl = ctxo::transport::http_available(); !curl.ok()) return usage_error(curl.error().message);
  if (timeout_ms) {
    if (*timeout_ms <= 0 || *timeout_ms > 24L * 60 * 60 * 1000)
      return usage_error("--timeout must be a number of milliseconds from 1 to 86400000 (a day)");
    c.options.timeout = std::chrono::milliseconds(*timeout_ms);
  }
  // The run that wrote the case redacted its secret env values: they come from the environment.
  if (auto missing = ctxo::cli::resolve_redacted_env(c.options.env); !missing.empty()) {
    std::string names;
    for (const auto& n : missing) names += (names.empty() ? "" : ", ") + n;
    return usage_error("the case's server environment holds redacted value(s) of " + names +
                       " (the run never writes secrets): set " + (missing.size() == 1 ? "it" : "them") +
                       " in the environment (export " + missing.front() + "=...) and replay again");
  }
  const auto redactor = std::make_shared<const ctxo::core::Redactor>(
      ctxo::core::Redactor::for_run(c.options.headers, c.options.env, c.options.url));
  if (!redactor->empty()) c.options.redactor = redactor;
  const bool to_stderr = outputs.to_stdout() > 0;
  std::ostream& raw = to_stderr ? std::cerr : std::cout;
  ctxo::cli::ScrubbingStream con(raw, *redactor);
  auto style = console_style(console.color, console.verbosity, to_stderr);
  if (c.options.headers.empty() && c.doc["server"].contains("headers") && c.doc["server"]["headers"].is_array() &&
      !c.doc["server"]["headers"].empty()) {
    std::string names;
    for (const auto& n : c.doc["server"]["headers"]) names += (names.empty() ? "" : ", ") + n.get<std::string>();
    std::cerr << "note: the run sent the header(s) " << names
              << "; case files keep no header values: give them again with --header 'NAME: VALUE'\n";
  }
  if (auto s = ctxo::cli::apply_safety(safety, c.options); !s.ok()) return usage_error(s.error().message);
  if (console.verbosity > 0)
    con << "replaying " << c.invariant << (c.tool.empty() ? std::string() : " on tool " + c.tool) << " from " << case_path
        << "\n";
  // Where the server runs is said before it starts, even with -q when it is this machine.
  if (const auto banner = ctxo::cli::safety_banner(c.options); !banner.empty() && (console.verbosity > 0 || !c.options.sandbox))
    (console.verbosity > 0 ? static_cast<std::ostream&>(con) : std::cerr) << banner << "\n";
  ctxo::reports::ConsoleListener listener(con, style);
  ctxo::cli::ScrubbingListener scrubbing(listener, *redactor);
  ctxo::transport::adopt_orphans();
  // A stop the run cannot answer in time: the reports from its snapshot (cli/stop.h).
  c.options.snapshot = std::make_shared<ctxo::engine::Snapshot>();
  ctxo::engine::RunReport fallback;
  fallback.command = c.options.command;
  fallback.url = c.options.url;
  fallback.seed = c.options.seed;
  ctxo::cli::StopWriter stop(c.options.snapshot, fallback, [&](ctxo::engine::RunReport& r) {
    listener.clear_line();
    con.flush();
    ctxo::cli::scrub_report(r, *redactor);
    return finish(r, outputs, console.color, console.verbosity, redactor.get());
  });
  auto report = ctxo::engine::run(c.options, scrubbing);
  if (!stop.claim())
    for (;;) ::pause();  // the stop writer is writing the reports; it exits the process
  listener.clear_line();
  con.flush();
  ctxo::cli::scrub_report(report, *redactor);
  if (report.error) {
    std::cerr << "error: the server could not be started: " << ctxo::display_text(report.error->message, false)
              << "\n";
    report.exit_code = report.exit_code == kExitUsage ? kExitUsage : kExitServer;
    return finish(report, outputs, console.color, console.verbosity, redactor.get());
  }
  // A server-level case (tool "") may be a cause grouped from many tools, replayed on one of them:
  // its invariant on any tool is it.
  const auto same = std::find_if(report.findings.begin(), report.findings.end(), [&](const auto& rf) {
    return rf.finding.invariant == c.invariant && (rf.finding.tool == c.tool || c.tool.empty());
  });
  if (console.verbosity == 0)  // as a run says it under -q (main.cpp)
    if (const auto note = ctxo::cli::quiet_safety_note(report); !note.empty()) std::cerr << redactor->scrub(note) << "\n";
  const int code = finish(report, outputs, console.color, console.verbosity, redactor.get());
  if (code == kExitUsage) return code;
  if (same != report.findings.end()) {
    // A warning that still warns exits as the run did for it: 0 (warnings never fail a run).
    const bool warns = same->finding.severity == ctxo::Severity::kWarning;
    con << (warns ? "still warns: " : "still fails: ") << c.invariant << (c.tool.empty() ? std::string() : " on " + c.tool)
        << ": " << same->finding.diagnosis << "\n";
    return warns ? kExitPass : kExitFail;
  }
  con << "no longer fails: " << c.invariant << " was not reported"
      << (c.tool.empty() ? std::string() : " on " + c.tool)
      << (c.options.replay && !c.options.replay->batch.empty()
              ? " (its batch was sent " + std::to_string(ctxo::checks::kBatchTries) +
                    " times and every answer was the answer alone: a race can hide; replay again)"
              : "")
      << "\n";
  return kExitPass;
}

}  // namespace ctxo::cli
