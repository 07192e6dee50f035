// SPDX-License-Identifier: MIT
// The run's flags (run.h): the table --help prints, and every value checked before a server starts.
#include "cli/run.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "cli/config.h"
#include "core/redact.h"
#include "engine/engine.h"
#include "mcp/client.h"
#include "profile/profile.h"
#include "transport/transport.h"

namespace ctxo::cli {

namespace {

Error config_error(const std::string& message) { return make_error("config", message); }

}  // namespace

void add_run_options(CLI::App& app, RunFlags& cli) {
  app.add_option("SERVER", cli.command,
                 "The server: an executable path, or after -- any command line (with --url: the command that "
                 "starts the HTTP server)")
      ->take_all();
  app.add_option("--config", cli.config, "Read the server (and options) from an mcpServers file (.mcp.json)")
      ->type_name("F");
  app.add_option("--server", cli.server, "The mcpServers entry to test (with --config)")->type_name("NAME");
  add_profile_option(app, cli.profile);
  add_host_option(app, cli.host);
  add_strict_error_output_option(app, cli.strict_error_output);
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
  app.add_option("--memory-budget", cli.memory_budget,
                 "Stop making calls once the harness has held M MiB (0 = no limit); reports are still written")
      ->type_name("M")
      ->capture_default_str();
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
  add_baseline_option(app, cli.baseline);
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
  add_selection_options(app, cli.only, cli.skip);
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
  add_safety_options(app, cli.safety);
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
  add_console_options(app, cli.console, "Print only the summary line", "Print each tool, finding and replay command");
  app.add_flag("--list-invariants", cli.list_invariants, "List the invariant ids and exit");
  app.add_flag("--version", cli.version, "Print the version and exit");
}

Result<PreparedRun> prepare_run(CLI::App& app, RunFlags& cli) {
  PreparedRun p;
  engine::RunOptions& o = p.o;
  if (!cli.server.empty() && cli.config.empty()) return make_error("usage", "--server NAME needs --config F");
  if (!cli.config.empty()) {
    if (!cli.command.empty())
      return make_error("usage", "give the server either with --config or on the command line, not both");
    auto sc = load_server_config(cli.config, cli.server);
    if (!sc.ok()) return make_error("usage", sc.error().message);
    if (auto a = apply_config_options(app, sc->options, "--config '" + cli.config + "'"); !a.ok())
      return make_error("usage", a.error().message);
    cli.command = sc->command;
    o.env = sc->env;
    o.config_name = sc->name;
    o.config_path = cli.config;
    o.config_others = sc->others;
    if (cli.cwd.empty()) cli.cwd = sc->cwd;
    if (!sc->url.empty()) {
      if (!cli.url.empty() && cli.url != sc->url) {
        core::Redactor both;  // the message quotes both URLs: neither's credentials are printed
        both.add_url(cli.url);
        both.add_url(sc->url);
        return make_error("usage", both.scrub("--url " + cli.url + " and the --config entry's url " + sc->url +
                                              " differ: give one"));
      }
      cli.url = sc->url;
      o.headers = sc->headers;
    }
  }
  if (cli.command.empty() && cli.url.empty())
    return make_error("usage", "no server given: ctxo-conform ./server, ctxo-conform -- CMD ARGS, or ctxo-conform --url URL (see --help)");
  if (!cli.url.empty() && !ctxo::transport::is_http_url(cli.url))
    return config_error("--url must be an http:// or https:// URL, got '" + cli.url + "'");
  if (!cli.url.empty())
    if (auto curl = ctxo::transport::http_available(); !curl.ok()) return config_error(curl.error().message);
  auto headers = parse_headers(cli.headers);
  if (!headers.ok()) return config_error(headers.error().message);
  for (auto& h : *headers) o.headers.push_back(std::move(h));
  if (cli.url.empty() && !o.headers.empty()) return config_error("--header needs --url (headers are HTTP's)");
  o.url = cli.url;
  o.command = cli.command;
  for (const auto& kv : cli.env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return config_error("--env expects K=V, got '" + kv + "'");
    o.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (!cli.cwd.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(cli.cwd, ec)) return config_error("--cwd '" + cli.cwd + "' is not a directory");
    o.cwd = cli.cwd;
  }
  if (!cli.root.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(cli.root, ec)) return config_error("--root '" + cli.root + "' is not a directory");
    o.root = std::filesystem::absolute(cli.root).string();
  }
  if (!cli.protocol.empty()) {
    const auto& lv = ctxo::mcp::kLegacyVersions;
    if (cli.protocol != ctxo::mcp::kModernVersion && std::find(lv.begin(), lv.end(), cli.protocol) == lv.end())
      return config_error("--protocol '" + cli.protocol +
                         "' is not a version this harness speaks (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, "
                         "2024-11-05)");
    o.protocol = cli.protocol;
  }
  // --profile and --host are loaded once, here: a bad value is refused before a server starts,
  // and the run judges by what was loaded.
  auto judging = ctxo::engine::load_judging(cli.profile, cli.host);
  if (!judging.ok()) {
    if (judging.error().message.rfind("--profile ", 0) != 0) return config_error(judging.error().message);
    std::string known;
    for (const auto& n : ctxo::profile::builtin_names()) known += (known.empty() ? "" : ", ") + n;
    return config_error(judging.error().message + " (built-in profiles: auto, " + known + ")");
  }
  o.profile = cli.profile;
  o.host = cli.host;
  o.strict_error_output = cli.strict_error_output;
  o.judging = std::make_shared<const ctxo::engine::Judging>(std::move(judging.value()));
  // Bounds that keep every later computation (timeout x 5, deadlines) far from overflow.
  constexpr long kDay = 24L * 60 * 60 * 1000;
  if (cli.timeout_ms <= 0 || cli.timeout_ms > kDay)
    return config_error("--timeout must be a number of milliseconds from 1 to " + std::to_string(kDay) + " (a day)");
  if (cli.grace_ms < 0 || cli.grace_ms > kDay)
    return config_error("--grace must be a number of milliseconds from 0 to " + std::to_string(kDay) + " (a day)");
  o.timeout = std::chrono::milliseconds(cli.timeout_ms);
  o.grace = std::chrono::milliseconds(cli.grace_ms);
  constexpr long long kMaxCalls = 1000000;
  if (cli.calls && (*cli.calls < 1 || *cli.calls > kMaxCalls))
    return config_error("--calls must be from 1 to " + std::to_string(kMaxCalls) + " (calls per tool)");
  o.calls_per_tool = static_cast<std::size_t>(cli.calls.value_or(0));
  o.shrink = !cli.no_shrink;
  o.harvest = !cli.no_harvest;
  o.kill_leftovers = cli.kill_leftovers;
  o.allow_remote_urls = cli.allow_remote_urls;
  if (!cli.no_cases && cli.cases.empty()) return config_error("--cases needs a directory (or pass --no-cases)");
  if (cli.time_budget && !(*cli.time_budget > 0 && *cli.time_budget <= 365.0 * 24 * 3600))
    return config_error("--time-budget must be a number of seconds above 0, at most a year");
  o.time_budget_s = cli.time_budget;
  if (cli.memory_budget < 0 || cli.memory_budget > (1LL << 30))
    return config_error("--memory-budget must be a number of MiB from 0 (no limit) to 1073741824");
  if (cli.memory_budget > 0 && cli.memory_budget < 64)
    return config_error("--memory-budget must be at least 64 MiB (the harness itself takes about 20), or 0 for no limit");
  o.memory_budget_mb = static_cast<std::size_t>(cli.memory_budget);
  if (!cli.require_coverage.empty()) {
    std::string v = cli.require_coverage;
    if (v == "all") v = "100";
    if (!v.empty() && v.back() == '%') v.pop_back();
    char* end = nullptr;
    const double pct = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || !(pct >= 0 && pct <= 100))
      return config_error("--require-coverage must be 'all' or a percentage from 0% to 100% (got '" + cli.require_coverage + "')");
    p.require_coverage = pct;
  }
  if (!(cli.tool_budget >= 0 && cli.tool_budget <= 365.0 * 24 * 3600))
    return config_error("--tool-budget must be a number of seconds from 0 (no limit) to a year");
  if (!(cli.shrink_budget > 0 && cli.shrink_budget <= 365.0 * 24 * 3600))
    return config_error("--shrink-budget must be a number of seconds above 0, at most a year");
  o.tool_budget = std::chrono::milliseconds(static_cast<long long>(cli.tool_budget * 1000));
  o.shrink_budget = std::chrono::milliseconds(static_cast<long long>(cli.shrink_budget * 1000));
  for (const auto& l : split_csv(cli.limits)) {
    char* end = nullptr;
    long long v = std::strtoll(l.c_str(), &end, 10);
    if (!end || *end || v <= 0) return config_error("--limits expects positive integers L1,L2,..., got '" + l + "'");
    o.limits.push_back(v);
  }
  if (cli.jobs == "auto") {
    o.jobs = std::max(1u, std::thread::hardware_concurrency());
  } else {
    char* end = nullptr;
    errno = 0;
    const long long j = std::strtoll(cli.jobs.c_str(), &end, 10);
    if (cli.jobs.empty() || !end || *end || errno != 0 || j < 1 || j > 64)
      return config_error("--jobs expects a number of servers from 1 to 64, or auto, got '" + cli.jobs + "'");
    o.jobs = static_cast<std::size_t>(j);
  }
  if (cli.concurrency < 0 || cli.concurrency == 1 || cli.concurrency > 64)
    return config_error("--concurrency expects 0 (off) or a number of requests in flight from 2 to 64, got " +
                       std::to_string(cli.concurrency));
  if (cli.concurrency_all && cli.concurrency == 0) return config_error("--concurrency-all needs --concurrency above 0");
  o.concurrency = static_cast<std::size_t>(cli.concurrency);
  o.concurrency_all = cli.concurrency_all;
  if (!cli.shard.empty()) {
    int k = 0, n = 0;
    char slash = 0;
    std::istringstream ss(cli.shard);
    if (!(ss >> k >> slash >> n) || slash != '/' || !ss.eof() || n < 1 || k < 1 || k > n)
      return config_error("--shard expects K/N with 1 <= K <= N, got '" + cli.shard + "'");
    o.shard_index = k - 1;
    o.shard_count = n;
  }
  auto only = split_csv(cli.only), skip = split_csv(cli.skip);
  if (auto problem = selection_problem(only, skip); !problem.empty()) return config_error(problem);
  o.selection = ctxo::checks::Selection(only, skip);
  o.tool_globs = split_csv(cli.tools);
  o.exclude_globs = split_csv(cli.exclude_tools);
  o.read_only = cli.read_only;
  if (cli.max_message_bytes < 1024) return config_error("--max-message-bytes must be at least 1024");
  o.max_message_bytes = cli.max_message_bytes;
  if (cli.console.color != "auto" && cli.console.color != "always" && cli.console.color != "never")
    return config_error("--color expects auto, always or never");
  if (!cli.baseline.empty()) {
    auto b = ctxo::engine::load_baseline(cli.baseline);
    if (!b.ok()) return config_error(b.error().message);
    p.accepted = std::move(b.value());
  }
  if (auto s = apply_safety(cli.safety, o); !s.ok()) return config_error(s.error().message);
  if (!cli.record.empty()) {
    std::ofstream probe(cli.record, std::ios::app);
    if (!probe) return make_error("usage", "cannot write --record file '" + cli.record + "': " + std::strerror(errno));
    o.record_path = cli.record;
  }
  if (auto c = cli.outputs.check(); !c.ok()) return make_error("usage", c.error().message);
  cli.outputs.remove_stale();
  if (cli.seed) {
    o.seed = *cli.seed;
  } else {
    std::random_device rd;
    o.seed = (static_cast<std::uint64_t>(rd()) << 32 | rd()) % 1000000000ull;
  }
  return p;
}

}  // namespace ctxo::cli
