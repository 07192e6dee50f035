// SPDX-License-Identifier: MIT
// ctxo-conform's entry point: parses the command line (CLI11's exceptions stop here), validates
// every option before a server is started, runs the engine and writes the reports.
// Exit codes: 0 conformant, 1 violations, 2 usage or configuration error, 3 server not started,
// 4 untested (no tool called, or no answer carried data; or partial below --require-coverage).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "checks/concurrent.h"
#include "checks/registry.h"
#include "cli/config.h"
#include "cli/outputs.h"
#include "cli/safety.h"
#include "cli/stop.h"
#include "cli/scrub.h"
#include "core/redact.h"
#include "core/text.h"
#include "engine/cases.h"
#include "engine/engine.h"
#include "engine/gate.h"
#include "engine/transcript.h"
#include "mcp/client.h"
#include "profile/host.h"
#include "profile/profile.h"
#include "reports/html.h"
#include "reports/json_report.h"
#include "transport/transport.h"

namespace {

constexpr const char* kVersion = CTXO_VERSION;

// The exit codes (engine::ExitCode, README's table), as main() returns them.
constexpr int kExitPass = ctxo::engine::code(ctxo::engine::ExitCode::kPass);
constexpr int kExitFail = ctxo::engine::code(ctxo::engine::ExitCode::kFail);
constexpr int kExitUsage = ctxo::engine::code(ctxo::engine::ExitCode::kUsage);
constexpr int kExitServer = ctxo::engine::code(ctxo::engine::ExitCode::kServer);

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

struct Cli {
  std::vector<std::string> command;
  std::string url;
  std::vector<std::string> headers;
  std::string profile = "auto";
  std::string host;
  std::vector<std::string> env;
  std::string cwd, protocol, root;
  std::optional<std::uint64_t> seed;
  std::optional<long long> calls;  // signed, so "-5" is refused rather than wrapped
  std::optional<double> time_budget;
  std::string require_coverage;  // "all" or "N%" ("" = not required)
  double tool_budget = 60, shrink_budget = 60;
  bool no_shrink = false;
  bool no_harvest = false;
  bool kill_leftovers = false;
  bool allow_remote_urls = false;
  std::string cases = ".ctxo-conform/cases";
  bool no_cases = false;
  long timeout_ms = 10000;
  long grace_ms = 2000;
  std::vector<std::string> limits;
  ctxo::cli::Outputs outputs;
  std::string config, server, baseline;
  std::string shard;
  std::string jobs = "1";
  long long concurrency = 4;  // signed, so "-1" is refused rather than wrapped
  bool concurrency_all = false;
  std::vector<std::string> only, skip, tools, exclude_tools;
  bool read_only = false;
  bool list_invariants = false;
  bool version = false;
  std::size_t max_message_bytes = 64u << 20;
  std::string color = "auto";
  int verbosity = 1;
  std::string record;
  ctxo::cli::SafetyFlags safety;
};

int usage_error(const std::string& message) {
  std::cerr << "error: " << ctxo::reports::display_text(message, false) << "\n";
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
           int verbosity, const ctxo::core::Redactor* redactor = nullptr) {
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

// `ctxo-conform check TRANSCRIPT.jsonl`: the checks over recorded exchanges, no server.
int run_check(int argc, char** argv) {
  CLI::App app{"ctxo-conform check: validate recorded MCP exchanges offline, without a server.\n\n"
               "  ctxo-conform check [OPTIONS] TRANSCRIPT.jsonl\n\n"
               "One JSON object per line: {\"request\": <JSON-RPC request>, \"response\": <JSON-RPC response>,\n"
               "\"env\": {K: V} (optional: the server's environment overrides in effect)}. Identical calls\n"
               "are compared (E-STABLE); identical calls under different limit variables form a limit sweep.",
               "ctxo-conform check"};
  std::string transcript, tools_list, profile = "auto", root, color = "auto", baseline, host;
  ctxo::cli::Outputs outputs;
  std::vector<std::string> only, skip;
  int verbosity = 1;
  app.add_option("TRANSCRIPT", transcript, "The transcript (.jsonl, '-' = stdin)")->required();
  app.add_option("--tools-list", tools_list, "A file with the tools/list result the calls were made against")
      ->type_name("F");
  app.add_option("--profile", profile, "Envelope profile: auto|ctxo|budget|meta|truncation-info|none|FILE.json")
      ->type_name("NAME|FILE")
      ->capture_default_str();
  app.add_option("--root", root, "Workspace the positions refer to (enables POS-UTF16)")->type_name("DIR");
  app.add_option("--host", host,
                 "Hosts whose limits H-* checks apply: default (claude-code, claude-desktop), none, or NAME|FILE.json,...")
      ->type_name("NAME,...|none");
  outputs.add_options(app);
  app.add_option("--baseline", baseline, "Accepted findings (a baseline file or an earlier JSON report)")
      ->type_name("F");
  app.add_option("--only", only, "Report only these invariants")->type_name("INV,...")->allow_extra_args(false);
  app.add_option("--skip", skip, "Do not report these invariants")->type_name("INV,...")->allow_extra_args(false);
  app.add_option("--color", color, "Colour: auto|always|never")->type_name("WHEN")->capture_default_str();
  app.add_flag("-q,--quiet", [&](std::int64_t) { verbosity = 0; }, "Print only the summary line");
  app.add_flag("-v,--verbose", [&](std::int64_t) { verbosity = 2; }, "Print each finding's replay reference");
  if (auto done = parse_command_line(app, argc, argv, false)) return *done;
  ctxo::engine::CheckOptions o;
  o.transcript = transcript;
  if (!tools_list.empty()) o.tools_list = tools_list;
  o.profile = profile;
  o.host = host;
  if (!root.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) return usage_error("--root '" + root + "' is not a directory");
    o.root = std::filesystem::absolute(root).string();
  }
  auto only_ids = split_csv(only), skip_ids = split_csv(skip);
  if (auto p = selection_problem(only_ids, skip_ids); !p.empty()) return usage_error(p);
  o.selection = ctxo::checks::Selection(only_ids, skip_ids);
  auto accepted = check_report_options(color, outputs, baseline);
  if (!accepted.ok()) return usage_error(accepted.error().message);
  auto report = ctxo::engine::check_transcript(o);
  if (!report.ok()) return usage_error(report.error().message);
  if (!baseline.empty()) ctxo::engine::apply_baseline(*report, *accepted);
  return finish(*report, outputs, color, verbosity);
}

// `ctxo-conform merge A.json B.json ...`: the shard reports of one run, as one.
int run_merge(int argc, char** argv) {
  CLI::App app{"ctxo-conform merge: combine the JSON reports of a sharded run (--shard K/N) into one.\n\n"
               "  ctxo-conform merge [OPTIONS] REPORT.json...\n\n"
               "The shards must share the seed and the server command. Findings seen by several shards\n"
               "(server-level ones) are kept once; the exit code is that of the merged verdict.",
               "ctxo-conform merge"};
  std::vector<std::string> inputs;
  std::string color = "auto", baseline;
  int verbosity = 1;
  ctxo::cli::Outputs outputs;
  app.add_option("REPORT", inputs, "JSON reports written with --json by each shard")->required();
  outputs.add_options(app);
  app.add_option("--baseline", baseline, "Accepted findings (a baseline file or an earlier JSON report)")
      ->type_name("F");
  app.add_option("--color", color, "Colour: auto|always|never")->type_name("WHEN")->capture_default_str();
  app.add_flag("-q,--quiet", [&](std::int64_t) { verbosity = 0; }, "Print only the summary line");
  app.add_flag("-v,--verbose", [&](std::int64_t) { verbosity = 2; }, "Print each finding's replay command");
  if (auto done = parse_command_line(app, argc, argv, false)) return *done;
  auto accepted = check_report_options(color, outputs, baseline);
  if (!accepted.ok()) return usage_error(accepted.error().message);
  std::vector<ctxo::engine::RunReport> shards;
  for (const auto& path : inputs) {
    auto doc = ctxo::profile::read_json_file(path);
    if (!doc) return usage_error(doc.error().message);
    auto r = ctxo::reports::from_json(*doc);
    if (!r.ok()) return usage_error("'" + path + "': " + r.error().message);
    shards.push_back(std::move(r.value()));
  }
  auto merged = ctxo::engine::merge_reports(shards);
  if (!merged.ok()) return usage_error(merged.error().message);
  if (!baseline.empty()) ctxo::engine::apply_baseline(*merged, *accepted);
  return finish(*merged, outputs, color, verbosity);
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

// `ctxo-conform replay CASE.json`: one finding's call against the server again.
int run_replay(int argc, char** argv) {
  CLI::App app{"ctxo-conform replay: re-run the call of one case file against the server and say whether\n"
               "it still fails.\n\n"
               "  ctxo-conform replay [OPTIONS] CASE.json [-- CMD [ARGS...]]\n\n"
               "A run writes a case file per finding (--cases DIR). The replay starts the server as the run\n"
               "did (command, environment, working directory, protocol version), makes the recorded call\n"
               "(the shrunk one), and checks the case's invariant; limit-sweep invariants sweep again.\n"
               "An env value the run redacted (<redacted>: a name holding TOKEN, KEY, SECRET, PASS, AUTH,\n"
               "CREDENTIAL or COOKIE) is taken from the environment variable of the same name.\n"
               "Exit codes: 0 it no longer fails (or a warning still warns), 1 it still fails,\n"
               "            2 bad case file or option,\n"
               "            3 the server could not be started or initialised.",
               "ctxo-conform replay"};
  std::string case_path, color = "auto", url;
  std::vector<std::string> command, headers;
  std::optional<long> timeout_ms;
  int verbosity = 1;
  ctxo::cli::Outputs outputs;
  app.add_option("CASE", case_path, "A case file written by a run (--cases DIR)")->required();
  app.add_option("COMMAND", command, "After --: start this server instead of the recorded command")->take_all();
  app.add_option("--timeout", timeout_ms, "Per-request timeout in milliseconds (default: the run's)")->type_name("MS");
  app.add_option("--url", url, "An HTTP case: reach the server at URL instead of the recorded one")->type_name("URL");
  app.add_option("--header", headers, "An HTTP case: header sent with every request (repeatable; case files keep "
                                      "only the names of the run's headers; its value is never printed)")
      ->type_name("K:V")
      ->allow_extra_args(false);
  outputs.add_options(app);
  app.add_option("--color", color, "Colour: auto|always|never")->type_name("WHEN")->capture_default_str();
  app.add_flag("-q,--quiet", [&](std::int64_t) { verbosity = 0; }, "Print only the verdict line");
  app.add_flag("-v,--verbose", [&](std::int64_t) { verbosity = 2; }, "Print the replay command too");
  ctxo::cli::SafetyFlags safety;
  ctxo::cli::add_safety_options(app, safety);
  if (auto done = parse_command_line(app, argc, argv, false)) return *done;
  if (auto bad = check_report_options(color, outputs, ""); !bad.ok()) return usage_error(bad.error().message);
  outputs.remove_stale();
  auto loaded = ctxo::engine::load_case(case_path);
  if (!loaded.ok()) return usage_error(loaded.error().message);
  ctxo::engine::Case c = std::move(loaded.value());
  if (!command.empty()) c.options.command = command;
  if (!url.empty()) {
    if (!ctxo::transport::is_http_url(url))
      return usage_error("--url must be an http:// or https:// URL, got '" + url + "'");
    c.options.url = url;
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
      ctxo::core::Redactor::for_run(c.options.headers, c.options.env));
  if (!redactor->empty()) c.options.redactor = redactor;
  const bool to_stderr = outputs.to_stdout() > 0;
  std::ostream& raw = to_stderr ? std::cerr : std::cout;
  ctxo::cli::ScrubbingStream con(raw, *redactor);
  auto style = console_style(color, verbosity, to_stderr);
  if (c.options.headers.empty() && c.doc["server"].contains("headers") && c.doc["server"]["headers"].is_array() &&
      !c.doc["server"]["headers"].empty()) {
    std::string names;
    for (const auto& n : c.doc["server"]["headers"]) names += (names.empty() ? "" : ", ") + n.get<std::string>();
    std::cerr << "note: the run sent the header(s) " << names
              << "; case files keep no header values: give them again with --header 'NAME: VALUE'\n";
  }
  if (auto s = ctxo::cli::apply_safety(safety, c.options); !s.ok()) return usage_error(s.error().message);
  if (verbosity > 0)
    con << "replaying " << c.invariant << (c.tool.empty() ? std::string() : " on tool " + c.tool) << " from " << case_path
        << "\n";
  // Where the server runs is said before it starts, even with -q when it is this machine.
  if (const auto banner = ctxo::cli::safety_banner(c.options); !banner.empty() && (verbosity > 0 || !c.options.sandbox))
    (verbosity > 0 ? static_cast<std::ostream&>(con) : std::cerr) << banner << "\n";
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
    return finish(r, outputs, color, verbosity, redactor.get());
  });
  auto report = ctxo::engine::run(c.options, scrubbing);
  if (!stop.claim())
    for (;;) ::pause();  // the stop writer is writing the reports; it exits the process
  listener.clear_line();
  con.flush();
  ctxo::cli::scrub_report(report, *redactor);
  if (report.error) {
    std::cerr << "error: the server could not be started: " << ctxo::reports::display_text(report.error->message, false)
              << "\n";
    report.exit_code = report.exit_code == kExitUsage ? kExitUsage : kExitServer;
    return finish(report, outputs, color, verbosity, redactor.get());
  }
  // A server-level case (tool "") may be a cause grouped from many tools, replayed on one of them:
  // its invariant on any tool is it.
  const auto same = std::find_if(report.findings.begin(), report.findings.end(), [&](const auto& rf) {
    return rf.finding.invariant == c.invariant && (rf.finding.tool == c.tool || c.tool.empty());
  });
  const int code = finish(report, outputs, color, verbosity, redactor.get());
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
  if (argc >= 2 && std::string(argv[1]) == "check") return run_check(argc - 1, argv + 1);
  if (argc >= 2 && std::string(argv[1]) == "merge") return run_merge(argc - 1, argv + 1);
  if (argc >= 2 && std::string(argv[1]) == "replay") return run_replay(argc - 1, argv + 1);
  Cli cli;
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

  app.add_option("SERVER", cli.command,
                 "The server: an executable path, or after -- any command line (with --url: the command that "
                 "starts the HTTP server)")
      ->take_all();
  app.add_option("--config", cli.config, "Read the server (and options) from an mcpServers file (.mcp.json)")
      ->type_name("F");
  app.add_option("--server", cli.server, "The mcpServers entry to test (with --config)")->type_name("NAME");
  app.add_option("--profile", cli.profile, "Envelope profile: auto|ctxo|budget|meta|truncation-info|none|FILE.json")
      ->type_name("NAME|FILE")
      ->capture_default_str();
  app.add_option("--host", cli.host,
                 "Hosts whose limits H-* checks apply: default (claude-code, claude-desktop), none, or NAME|FILE.json,...")
      ->type_name("NAME,...|none");
  app.add_option("--url", cli.url,
                 "A Streamable HTTP server at URL instead of a stdio one; a command after -- starts it first "
                 "(then it can be restarted, and swept under other limits)")
      ->type_name("URL");
  app.add_option("--header", cli.headers, "HTTP header sent with every request, e.g. a bearer token (repeatable; "
                                          "its value, and a server's echo of it, is never printed: <redacted>)")
      ->type_name("K:V")
      ->allow_extra_args(false);
  app.add_option("--env", cli.env, "Extra environment for the server (repeatable); the value of a name holding TOKEN, "
                                    "KEY, SECRET, PASS, AUTH, CREDENTIAL or COOKIE is never printed: <redacted>")
      ->type_name("K=V")
      ->allow_extra_args(false);
  app.add_option("--cwd", cli.cwd, "The server's working directory")->type_name("DIR");
  app.add_option("--protocol", cli.protocol,
                 "Force a protocol version (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)")
      ->type_name("VERSION");
  app.add_option("--root", cli.root, "Workspace the server's positions refer to (enables POS-UTF16)")->type_name("DIR");
  app.add_option("--seed", cli.seed, "Seed for a reproducible run (default: random, printed)")->type_name("N");
  app.add_option("--calls", cli.calls,
                 "Generated calls per tool (default: each boundary case up to 48, 24 random, 8 invalid)")
      ->type_name("N");
  app.add_option("--time-budget", cli.time_budget, "Stop generating calls after S seconds")->type_name("S");
  app.add_option("--require-coverage", cli.require_coverage,
                 "A partial run (some selected tools reached no data) exits 4 when fewer than N% of them (all: "
                 "every one) reached data")
      ->type_name("all|N%");
  app.add_option("--tool-budget", cli.tool_budget,
                 "Stop generating calls for a tool once its calls have taken S seconds (0 = no limit)")
      ->type_name("S")
      ->capture_default_str();
  app.add_option("--shrink-budget", cli.shrink_budget, "Stop shrinking one finding after S seconds")
      ->type_name("S")
      ->capture_default_str();
  app.add_option("--timeout", cli.timeout_ms, "Per-request timeout in milliseconds")->type_name("MS")->capture_default_str();
  app.add_option("--grace", cli.grace_ms, "Milliseconds the server gets to exit after stdin closes")
      ->type_name("MS")
      ->capture_default_str();
  app.add_option("--limits", cli.limits, "Byte limits to sweep (envelope profiles)")->type_name("L1,L2,...")->allow_extra_args(false);
  cli.outputs.add_options(app);
  app.add_option("--baseline", cli.baseline, "Accepted findings (a baseline file or an earlier JSON report)")
      ->type_name("F");
  app.add_option("--jobs,-j", cli.jobs,
                 "Servers run at once, each calling its share of the tools (auto = one per core); the "
                 "report is the same for any N. Default 1: a server that keeps state in a file or "
                 "listens on a fixed port must not run twice")
      ->type_name("N|auto")
      ->capture_default_str();
  app.add_option("--concurrency", cli.concurrency,
                 "P-CONCURRENT: after each tool's own calls, before the limit sweep, send its calls that reached "
                 "data again with up to N requests in flight at once on one session (batches of 2, 4, ... N, "
                 "the tool with itself and mixed with other tools), as hosts call read-only tools in parallel; "
                 "tools annotated readOnlyHint or idempotentHint only; the time counts in --tool-budget. 0 = off")
      ->type_name("N")
      ->capture_default_str();
  app.add_flag("--concurrency-all", cli.concurrency_all,
               "Send every tool's calls in batches too, not only read-only and idempotent ones (their "
               "differences are warnings; a tool that writes may change what the others answer)");
  app.add_option("--shard", cli.shard, "Run only shard K of N of the tools (1-based)")->type_name("K/N");
  app.add_option("--only", cli.only, "Report only these invariants")->type_name("INV,...")->allow_extra_args(false);
  app.add_option("--skip", cli.skip, "Do not report these invariants")->type_name("INV,...")->allow_extra_args(false);
  app.add_option("--tools", cli.tools, "Call only tools matching these globs")->type_name("GLOB,...")->allow_extra_args(false);
  app.add_option("--exclude-tools", cli.exclude_tools, "Do not call tools matching these globs")
      ->type_name("GLOB,...")
      ->allow_extra_args(false);
  app.add_flag("--read-only", cli.read_only, "Call only tools annotated readOnlyHint: true");
  app.add_flag("--no-shrink", cli.no_shrink, "Report failing calls as generated, without shrinking them");
  app.add_flag("--no-harvest", cli.no_harvest,
               "Do not feed values seen in answers (names, paths, ids) to later calls, and make no second pass");
  app.add_flag("--kill-leftovers", cli.kill_leftovers,
               "End the processes the server started that are still running after the run (T-LEFTOVER)");
  ctxo::cli::add_safety_options(app, cli.safety);
  app.add_flag("--allow-remote-urls", cli.allow_remote_urls,
               "Send URLs the tool schemas give (default, examples) even when they name a host other than loopback");
  app.add_option("--cases", cli.cases, "Write each finding as a case file for 'ctxo-conform replay' into DIR")
      ->type_name("DIR")
      ->capture_default_str();
  app.add_flag("--no-cases", cli.no_cases, "Write no case files");
  app.add_option("--record", cli.record, "Write every exchange to F as a transcript for 'ctxo-conform check'")
      ->type_name("F");
  app.add_option("--max-message-bytes", cli.max_message_bytes, "Longest message accepted from the server (a stdout line; over HTTP a body or SSE event)")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--color", cli.color, "Colour: auto|always|never (auto honours NO_COLOR)")
      ->type_name("WHEN")
      ->capture_default_str();
  app.add_flag("-q,--quiet", [&](std::int64_t) { cli.verbosity = 0; }, "Print only the summary line");
  app.add_flag("-v,--verbose", [&](std::int64_t) { cli.verbosity = 2; }, "Print each tool, finding and replay command");
  app.add_flag("--list-invariants", cli.list_invariants, "List the invariant ids and exit");
  app.add_flag("--version", cli.version, "Print the version and exit");

  if (auto done = parse_command_line(app, argc, argv, true)) return *done;

  if (cli.version) {
    std::cout << "ctxo-conform " << kVersion << " (commit " << CTXO_COMMIT << ")\n";
    return kExitPass;
  }
  if (cli.list_invariants) {
    print_invariants();
    return kExitPass;
  }

  // --- validate everything before a server is started ---------------------------------------
  ctxo::engine::RunOptions o;
  std::optional<double> require_coverage;  // --require-coverage, percent
  ctxo::engine::RunReport pre;  // for a report written when configuration fails
  auto fail_config = [&](const std::string& message) {
    if (!cli.outputs.json.empty()) {
      pre.verdict = ctxo::engine::Verdict::kError;
      pre.exit_code = kExitUsage;
      pre.error = ctxo::make_error(ctxo::errc::kUsage, message);
      pre.command = cli.command;
      pre.url = cli.url;
      (void)ctxo::reports::write_text(cli.outputs.json, ctxo::reports::to_json(pre, kVersion).dump(2) + "\n");
    }
    return usage_error(message);
  };
  if (!cli.server.empty() && cli.config.empty()) return usage_error("--server NAME needs --config F");
  if (!cli.config.empty()) {
    if (!cli.command.empty())
      return usage_error("give the server either with --config or on the command line, not both");
    auto sc = ctxo::cli::load_server_config(cli.config, cli.server);
    if (!sc.ok()) return usage_error(sc.error().message);
    if (auto a = ctxo::cli::apply_config_options(app, sc->options, "--config '" + cli.config + "'"); !a.ok())
      return usage_error(a.error().message);
    cli.command = sc->command;
    o.env = sc->env;
    o.config_name = sc->name;
    if (cli.cwd.empty()) cli.cwd = sc->cwd;
    if (!sc->url.empty()) {
      if (!cli.url.empty() && cli.url != sc->url)
        return usage_error("--url " + cli.url + " and the --config entry's url " + sc->url + " differ: give one");
      cli.url = sc->url;
      o.headers = sc->headers;
    }
  }
  if (cli.command.empty() && cli.url.empty())
    return usage_error("no server given: ctxo-conform ./server, ctxo-conform -- CMD ARGS, or ctxo-conform --url URL (see --help)");
  if (!cli.url.empty() && !ctxo::transport::is_http_url(cli.url))
    return fail_config("--url must be an http:// or https:// URL, got '" + cli.url + "'");
  if (!cli.url.empty())
    if (auto curl = ctxo::transport::http_available(); !curl.ok()) return fail_config(curl.error().message);
  auto headers = parse_headers(cli.headers);
  if (!headers.ok()) return fail_config(headers.error().message);
  for (auto& h : *headers) o.headers.push_back(std::move(h));
  if (cli.url.empty() && !o.headers.empty()) return fail_config("--header needs --url (headers are HTTP's)");
  o.url = cli.url;
  o.command = cli.command;
  for (const auto& kv : cli.env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return fail_config("--env expects K=V, got '" + kv + "'");
    o.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (!cli.cwd.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(cli.cwd, ec)) return fail_config("--cwd '" + cli.cwd + "' is not a directory");
    o.cwd = cli.cwd;
  }
  if (!cli.root.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(cli.root, ec)) return fail_config("--root '" + cli.root + "' is not a directory");
    o.root = std::filesystem::absolute(cli.root).string();
  }
  if (!cli.protocol.empty()) {
    const auto& lv = ctxo::mcp::kLegacyVersions;
    if (cli.protocol != ctxo::mcp::kModernVersion && std::find(lv.begin(), lv.end(), cli.protocol) == lv.end())
      return fail_config("--protocol '" + cli.protocol +
                         "' is not a version this harness speaks (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, "
                         "2024-11-05)");
    o.protocol = cli.protocol;
  }
  // --profile and --host are loaded once, here: a bad value is refused before a server starts,
  // and the run judges by what was loaded.
  auto judging = ctxo::engine::load_judging(cli.profile, cli.host);
  if (!judging.ok()) {
    if (judging.error().message.rfind("--profile ", 0) != 0) return fail_config(judging.error().message);
    std::string known;
    for (const auto& n : ctxo::profile::builtin_names()) known += (known.empty() ? "" : ", ") + n;
    return fail_config(judging.error().message + " (built-in profiles: auto, " + known + ")");
  }
  o.profile = cli.profile;
  o.host = cli.host;
  o.judging = std::make_shared<const ctxo::engine::Judging>(std::move(judging.value()));
  // Bounds that keep every later computation (timeout x 5, deadlines) far from overflow.
  constexpr long kDay = 24L * 60 * 60 * 1000;
  if (cli.timeout_ms <= 0 || cli.timeout_ms > kDay)
    return fail_config("--timeout must be a number of milliseconds from 1 to " + std::to_string(kDay) + " (a day)");
  if (cli.grace_ms < 0 || cli.grace_ms > kDay)
    return fail_config("--grace must be a number of milliseconds from 0 to " + std::to_string(kDay) + " (a day)");
  o.timeout = std::chrono::milliseconds(cli.timeout_ms);
  o.grace = std::chrono::milliseconds(cli.grace_ms);
  constexpr long long kMaxCalls = 1000000;
  if (cli.calls && (*cli.calls < 1 || *cli.calls > kMaxCalls))
    return fail_config("--calls must be from 1 to " + std::to_string(kMaxCalls) + " (calls per tool)");
  o.calls_per_tool = static_cast<std::size_t>(cli.calls.value_or(0));
  o.shrink = !cli.no_shrink;
  o.harvest = !cli.no_harvest;
  o.kill_leftovers = cli.kill_leftovers;
  o.allow_remote_urls = cli.allow_remote_urls;
  if (!cli.no_cases && cli.cases.empty()) return fail_config("--cases needs a directory (or pass --no-cases)");
  if (cli.time_budget && !(*cli.time_budget > 0 && *cli.time_budget <= 365.0 * 24 * 3600))
    return fail_config("--time-budget must be a number of seconds above 0, at most a year");
  o.time_budget_s = cli.time_budget;
  if (!cli.require_coverage.empty()) {
    std::string v = cli.require_coverage;
    if (v == "all") v = "100";
    if (!v.empty() && v.back() == '%') v.pop_back();
    char* end = nullptr;
    const double pct = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || !(pct >= 0 && pct <= 100))
      return fail_config("--require-coverage must be 'all' or a percentage from 0% to 100% (got '" + cli.require_coverage + "')");
    require_coverage = pct;
  }
  if (!(cli.tool_budget >= 0 && cli.tool_budget <= 365.0 * 24 * 3600))
    return fail_config("--tool-budget must be a number of seconds from 0 (no limit) to a year");
  if (!(cli.shrink_budget > 0 && cli.shrink_budget <= 365.0 * 24 * 3600))
    return fail_config("--shrink-budget must be a number of seconds above 0, at most a year");
  o.tool_budget = std::chrono::milliseconds(static_cast<long long>(cli.tool_budget * 1000));
  o.shrink_budget = std::chrono::milliseconds(static_cast<long long>(cli.shrink_budget * 1000));
  for (const auto& l : split_csv(cli.limits)) {
    char* end = nullptr;
    long long v = std::strtoll(l.c_str(), &end, 10);
    if (!end || *end || v <= 0) return fail_config("--limits expects positive integers L1,L2,..., got '" + l + "'");
    o.limits.push_back(v);
  }
  if (cli.jobs == "auto") {
    o.jobs = std::max(1u, std::thread::hardware_concurrency());
  } else {
    char* end = nullptr;
    errno = 0;
    const long long j = std::strtoll(cli.jobs.c_str(), &end, 10);
    if (cli.jobs.empty() || !end || *end || errno != 0 || j < 1 || j > 64)
      return fail_config("--jobs expects a number of servers from 1 to 64, or auto, got '" + cli.jobs + "'");
    o.jobs = static_cast<std::size_t>(j);
  }
  if (cli.concurrency < 0 || cli.concurrency == 1 || cli.concurrency > 64)
    return fail_config("--concurrency expects 0 (off) or a number of requests in flight from 2 to 64, got " +
                       std::to_string(cli.concurrency));
  if (cli.concurrency_all && cli.concurrency == 0) return fail_config("--concurrency-all needs --concurrency above 0");
  o.concurrency = static_cast<std::size_t>(cli.concurrency);
  o.concurrency_all = cli.concurrency_all;
  if (!cli.shard.empty()) {
    int k = 0, n = 0;
    char slash = 0;
    std::istringstream ss(cli.shard);
    if (!(ss >> k >> slash >> n) || slash != '/' || !ss.eof() || n < 1 || k < 1 || k > n)
      return fail_config("--shard expects K/N with 1 <= K <= N, got '" + cli.shard + "'");
    o.shard_index = k - 1;
    o.shard_count = n;
  }
  auto only = split_csv(cli.only), skip = split_csv(cli.skip);
  if (auto p = selection_problem(only, skip); !p.empty()) return fail_config(p);
  o.selection = ctxo::checks::Selection(only, skip);
  o.tool_globs = split_csv(cli.tools);
  o.exclude_globs = split_csv(cli.exclude_tools);
  o.read_only = cli.read_only;
  if (cli.max_message_bytes < 1024) return fail_config("--max-message-bytes must be at least 1024");
  o.max_message_bytes = cli.max_message_bytes;
  if (cli.color != "auto" && cli.color != "always" && cli.color != "never")
    return fail_config("--color expects auto, always or never");
  std::vector<ctxo::engine::BaselineEntry> accepted;
  if (!cli.baseline.empty()) {
    auto b = ctxo::engine::load_baseline(cli.baseline);
    if (!b.ok()) return fail_config(b.error().message);
    accepted = std::move(b.value());
  }
  if (auto s = ctxo::cli::apply_safety(cli.safety, o); !s.ok()) return fail_config(s.error().message);
  if (!cli.record.empty()) {
    std::ofstream probe(cli.record, std::ios::app);
    if (!probe) return usage_error("cannot write --record file '" + cli.record + "': " + std::strerror(errno));
    o.record_path = cli.record;
  }
  if (auto c = cli.outputs.check(); !c.ok()) return usage_error(c.error().message);
  cli.outputs.remove_stale();
  const int stdout_reports = cli.outputs.to_stdout();
  if (cli.seed) {
    o.seed = *cli.seed;
  } else {
    std::random_device rd;
    o.seed = (static_cast<std::uint64_t>(rd()) << 32 | rd()) % 1000000000ull;
  }
  pre.seed = o.seed;

  // --- run ------------------------------------------------------------------------------------
  // Console output goes to stdout unless a report does; then to stderr.
  // Secrets (core/redact.h) are scrubbed on the way out: the console's events and text as the run
  // goes, the transcript (--record) by the engine, then the finished report, before anything
  // else reads it (baseline, case files, reports, summary).
  const auto redactor = std::make_shared<const ctxo::core::Redactor>(ctxo::core::Redactor::for_run(o.headers, o.env));
  if (!redactor->empty()) o.redactor = redactor;
  std::ostream& raw = stdout_reports ? std::cerr : std::cout;
  ctxo::cli::ScrubbingStream con(raw, *redactor);
  auto style = console_style(cli.color, cli.verbosity, stdout_reports > 0);
  ctxo::reports::ConsoleListener listener(con, style);
  ctxo::cli::ScrubbingListener scrubbing(listener, *redactor);
  ctxo::transport::adopt_orphans();
  // A finished report, the run's or (after a signal the run could not answer in time) its
  // snapshot's: scrubbed, the baseline applied, case files and reports written.
  auto complete = [&](ctxo::engine::RunReport& report) {
    listener.clear_line();
    con.flush();
    ctxo::cli::scrub_report(report, *redactor);
    if (report.error) {
      std::cerr << "error: "
                << (report.error->code == ctxo::errc::kSpawn || report.error->code == ctxo::errc::kIo ? ""
                    : report.error->code == ctxo::errc::kRefused                                    ? "the server refused the run: "
                                                                                                     : "the server could not be initialised: ")
                << ctxo::reports::display_text(report.error->message, false) << "\n";
      if (report.exit_code != kExitUsage) report.exit_code = kExitServer;
    }
    report.require_coverage = require_coverage;
    if (!cli.baseline.empty()) ctxo::engine::apply_baseline(report, accepted);
    else ctxo::engine::settle_verdict(report);
    if (!cli.no_cases && !report.findings.empty()) {
      if (auto w = ctxo::engine::write_cases(report, o, cli.cases, redactor.get()); !w.ok())
        std::cerr << "error: " << redactor->scrub(w.error().message) << "\n";
    }
    return finish(report, cli.outputs, cli.color, cli.verbosity, redactor.get());
  };
  o.snapshot = std::make_shared<ctxo::engine::Snapshot>();
  pre.command = o.command;
  pre.url = o.url;
  pre.env = o.env;
  pre.cwd = o.cwd;
  pre.profile = o.profile;
  pre.root = o.root;
  ctxo::cli::StopWriter stop(o.snapshot, pre, complete);
  if (const auto banner = ctxo::cli::safety_banner(o); !banner.empty() && (cli.verbosity > 0 || !o.sandbox))
    (cli.verbosity > 0 ? static_cast<std::ostream&>(con) : std::cerr) << banner << "\n";
  auto report = ctxo::engine::run(o, scrubbing);
  if (!stop.claim())
    for (;;) ::pause();  // the stop writer is writing the reports; it exits the process
  return complete(report);
}
