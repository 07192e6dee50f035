// SPDX-License-Identifier: MIT
// ctxo-conform's entry point: `check`, `merge` and `replay` go to their commands (offline.cpp,
// replay.cpp); the run's flags are parsed (run.h: one table, checked before a server is started),
// the engine runs, and the reports are written, by the run or, after a signal it could not answer
// in time, from its snapshot (stop.h).
// Exit codes: 0 conformant, 1 violations, 2 usage or configuration error, 3 server not started,
// 4 untested (no tool called, or no answer carried data; or partial below --require-coverage).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "checks/registry.h"
#include "cli/common.h"
#include "cli/run.h"
#include "cli/safety.h"
#include "cli/scrub.h"
#include "cli/stop.h"
#include "core/display.h"
#include "core/redact.h"
#include "engine/cases.h"
#include "engine/engine.h"
#include "reports/json_report.h"
#include "transport/transport.h"

namespace {

void print_invariants() {
  std::cout << "ID            FAMILY      SEVERITY  STATUS   SUMMARY\n";
  for (const auto& inv : ctxo::checks::registry()) {
    std::string id = inv.id, fam = inv.family, sev = ctxo::to_string(inv.severity);
    id.resize(std::max<std::size_t>(id.size(), 13), ' ');
    fam.resize(std::max<std::size_t>(fam.size(), 11), ' ');
    sev.resize(std::max<std::size_t>(sev.size(), 9), ' ');
    std::cout << id << " " << fam << " " << sev << " " << (inv.implemented ? "checked " : "planned ") << " "
              << inv.summary << "\n";
  }
  std::cout << "\nEvery report gives each invariant, per tool, one of four outcomes:\n"
               "  passed          exercised by at least one answer, and it held\n"
               "  failed          broken by at least one answer (a finding names the invariant and the tool)\n"
               "  not observed    it applies, but no answer exercised it; the report says why\n"
               "                  (e.g. TR-HINT: no answer was truncated)\n"
               "  not applicable  the profile or the answers give it nothing to judge\n"
               "                  (e.g. TR-CAP on a tool whose answers are no envelope)\n"
               "A run that called no tool, or whose calls got no answer that carries data (only errors,\n"
               "misses or empty results), is untested (exit code 4), never a pass; a run where some\n"
               "selected tools reached data and others did not is partial (exit code 0, or 4 below\n"
               "--require-coverage).\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ctxo::cli;
  if (argc >= 2 && std::string(argv[1]) == "check") return run_check(argc - 1, argv + 1);
  if (argc >= 2 && std::string(argv[1]) == "merge") return run_merge(argc - 1, argv + 1);
  if (argc >= 2 && std::string(argv[1]) == "replay") return run_replay(argc - 1, argv + 1);
  RunFlags cli;
  CLI::App app{"ctxo-conform: conformance harness and fuzzer for the response envelopes of MCP servers.\n\n"
               "  ctxo-conform [OPTIONS] ./server\n"
               "  ctxo-conform [OPTIONS] -- CMD [ARGS...]\n"
               "  ctxo-conform [OPTIONS] --url URL [-- CMD [ARGS...]]\n\n"
               "Spawns the server over stdio (or reaches it over Streamable HTTP), calls every tool, checks\n"
               "every answer against the transport, protocol and envelope invariants (--list-invariants),\n"
               "and reports what it found.",
               "ctxo-conform"};
  app.footer(
      "Offline: ctxo-conform check TRANSCRIPT.jsonl checks recorded exchanges (ctxo-conform check --help);\n"
      "ctxo-conform merge A.json B.json ... combines the reports of --shard runs (ctxo-conform merge --help);\n"
      "ctxo-conform replay CASE.json re-runs one finding's case file (ctxo-conform replay --help).\n"
      "Exit codes: 0 conformant (pass; or partial: some selected tools reached no data),\n"
      "            1 violations found, 2 usage or configuration error,\n"
      "            3 the server could not be started or initialised, 4 untested (no tool was called,\n"
      "            or no answer carried data: nothing was exercised, so nothing passed; or partial\n"
      "            below --require-coverage),\n"
      "            129/130/143 stopped by SIGHUP/SIGINT/SIGTERM (reports written, marked interrupted).\n"
      "Safety: the server runs in a bubblewrap sandbox (its own PID namespace; the project copied,\n"
      "$HOME and the rest read-only), where every tool is called. Without one (no bwrap, --no-sandbox)\n"
      "tools that kill, run, overwrite or send are not called unless --allow-destructive names them.");
  app.get_formatter()->column_width(34);

  add_run_options(app, cli);

  if (auto done = parse_command_line(app, argc, argv, true)) return *done;

  if (cli.version) {
    std::cout << "ctxo-conform " << kVersion << " (commit " << CTXO_COMMIT << ")\n";
    return kExitPass;
  }
  if (cli.list_invariants) {
    print_invariants();
    return kExitPass;
  }

  ctxo::engine::RunReport pre;  // for a report written when configuration fails
  auto prepared = prepare_run(app, cli);
  if (!prepared.ok()) {
    // The URL's credentials are no more printed here than in a run (the message may quote it).
    const auto early = ctxo::core::Redactor::for_run({}, {}, cli.url);
    const std::string message = early.scrub(prepared.error().message);
    if (prepared.error().code == "config" && !cli.outputs.json.empty()) {
      pre.verdict = ctxo::engine::Verdict::kError;
      pre.exit_code = kExitUsage;
      pre.error = ctxo::make_error(ctxo::errc::kUsage, message);
      pre.command = cli.command;
      pre.url = cli.url;
      scrub_report(pre, early);
      (void)ctxo::reports::write_text(cli.outputs.json, ctxo::reports::to_json(pre, kVersion).dump(2) + "\n");
    }
    return usage_error(message);
  }
  ctxo::engine::RunOptions& o = prepared->o;
  const std::optional<double> require_coverage = prepared->require_coverage;
  const std::vector<ctxo::engine::BaselineEntry>& accepted = prepared->accepted;
  const int stdout_reports = cli.outputs.to_stdout();
  pre.seed = o.seed;

  // --- run ------------------------------------------------------------------------------------
  // Console output goes to stdout unless a report does; then to stderr.
  // Secrets (core/redact.h) are scrubbed on the way out: the console's events and text as the run
  // goes, the transcript (--record) by the engine, then the finished report, before anything
  // else reads it (baseline, case files, reports, summary).
  const auto redactor = std::make_shared<const ctxo::core::Redactor>(ctxo::core::Redactor::for_run(o.headers, o.env, o.url));
  if (!redactor->empty()) o.redactor = redactor;
  std::ostream& raw = stdout_reports ? std::cerr : std::cout;
  ScrubbingStream con(raw, *redactor);
  auto style = console_style(cli.console.color, cli.console.verbosity, stdout_reports > 0);
  ctxo::reports::ConsoleListener listener(con, style);
  ScrubbingListener scrubbing(listener, *redactor);
  ctxo::transport::adopt_orphans();
  // A finished report, the run's or (after a signal the run could not answer in time) its
  // snapshot's: scrubbed, the baseline applied, case files and reports written.
  auto complete = [&](ctxo::engine::RunReport& report) {
    listener.clear_line();
    con.flush();
    scrub_report(report, *redactor);
    if (report.error) {
      std::cerr << "error: "
                << (report.error->code == ctxo::errc::kSpawn || report.error->code == ctxo::errc::kIo ? ""
                    : report.error->code == ctxo::errc::kRefused                                    ? "the server refused the run: "
                                                                                                     : "the server could not be initialised: ")
                << ctxo::display_text(report.error->message, false) << "\n";
      if (report.exit_code != kExitUsage) report.exit_code = kExitServer;
    }
    report.require_coverage = require_coverage;
    if (!cli.baseline.empty()) ctxo::engine::apply_baseline(report, accepted);
    else ctxo::engine::settle_verdict(report);
    if (!cli.no_cases && !report.findings.empty()) {
      if (auto w = ctxo::engine::write_cases(report, o, cli.cases, redactor.get()); !w.ok())
        std::cerr << "error: " << redactor->scrub(w.error().message) << "\n";
    }
    // -q prints no notes, but which tools were not called for safety, and how to call them, is
    // said all the same (on stderr, as the banner).
    if (cli.console.verbosity == 0)
      if (const auto note = quiet_safety_note(report); !note.empty()) std::cerr << redactor->scrub(note) << "\n";
    return finish(report, cli.outputs, cli.console.color, cli.console.verbosity, redactor.get());
  };
  o.snapshot = std::make_shared<ctxo::engine::Snapshot>();
  pre.command = o.command;
  pre.url = o.url;
  pre.env = o.env;
  pre.cwd = o.cwd;
  pre.profile = o.profile;
  pre.root = o.root;
  StopWriter stop(o.snapshot, pre, complete);
  if (const auto banner = safety_banner(o); !banner.empty() && (cli.console.verbosity > 0 || !o.sandbox))
    (cli.console.verbosity > 0 ? static_cast<std::ostream&>(con) : std::cerr) << banner << "\n";
  auto report = ctxo::engine::run(o, scrubbing);
  if (!stop.claim())
    for (;;) ::pause();  // the stop writer is writing the reports; it exits the process
  return complete(report);
}
