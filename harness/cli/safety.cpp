// SPDX-License-Identifier: MIT
#include "cli/safety.h"

#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/display.h"
#include "engine/safety.h"
#include "engine/selection.h"
#include "transport/sandbox.h"

extern char** environ;  // NOLINT: POSIX

namespace ctxo::cli {

void add_safety_options(CLI::App& app, SafetyFlags& f) {
  app.add_option("--sandbox", f.sandbox,
                 "Where the server runs: auto (a bubblewrap sandbox when one can be made; else no sandbox, and "
                 "tools that kill, run, overwrite or send are not called), require (a sandbox or exit 2), "
                 "offline (a sandbox with only its own loopback: no network)")
      ->type_name("auto|require|offline")
      ->capture_default_str();
  app.add_flag("--no-sandbox", f.no_sandbox,
               "Run the server on this machine as it is, without a sandbox: dangerous tools are then not called "
               "unless --allow-destructive names them");
  app.add_option("--allow-destructive", f.allow_destructive,
                 "Without a sandbox, call these tools anyway: classes (process, exec, write, send), tool name "
                 "globs, or all. They act on this machine, with no harvested value and no real pid")
      ->type_name("CLASS|GLOB,...|all")
      ->delimiter(',')
      ->allow_extra_args(false);
}

namespace {

// The paths the server is given, absolute: each argument that names one (whole, after a
// `--flag=`, or relative to where it runs and there), and each absolute path in an environment
// value (ours and --env's; `:` separates a list).
std::vector<std::string> given_paths(const engine::RunOptions& o) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path base = o.cwd.empty() ? fs::current_path(ec) : fs::absolute(o.cwd, ec);
  for (const auto& arg : o.command) {
    std::string v = arg;
    if (v.rfind("-", 0) == 0) {
      const auto eq = v.find('=');
      if (eq == std::string::npos) continue;
      v = v.substr(eq + 1);
    }
    if (v.empty()) continue;
    if (v.front() == '/') out.push_back(v);
    else if (fs::exists(base / v, ec)) out.push_back((base / v).lexically_normal().string());
  }
  const auto values = [&](const std::string& value) {
    std::size_t start = 0;
    while (start <= value.size()) {
      const std::size_t end = std::min(value.find(':', start), value.size());
      if (end > start && value[start] == '/') out.push_back(value.substr(start, end - start));
      start = end + 1;
    }
  };
  for (char** e = environ; e && *e; ++e)
    if (const char* eq = std::strchr(*e, '=')) values(eq + 1);
  for (const auto& [k, v] : o.env) values(v);
  return out;
}

}  // namespace

Result<void> apply_safety(const SafetyFlags& f, engine::RunOptions& o) {
  if (f.sandbox != "auto" && f.sandbox != "require" && f.sandbox != "offline")
    return make_error(errc::kUsage, "--sandbox expects auto, require or offline, got '" + f.sandbox + "'");
  if (f.no_sandbox && f.sandbox != "auto")
    return make_error(errc::kUsage, "--no-sandbox and --sandbox " + f.sandbox + " contradict each other: give one");
  for (const auto& a : f.allow_destructive)
    if (a.empty()) return make_error(errc::kUsage, "--allow-destructive expects classes, tool globs or all");
  o.allow_destructive = f.allow_destructive;
  if (o.command.empty()) return {};  // a server reached at --url only: nothing of ours runs it
  if (f.sandbox == "offline" && !o.url.empty())
    return make_error(errc::kUsage,
                      "--sandbox offline gives the server only its own loopback: a --url server it starts could not "
                      "be reached (use --sandbox require)");
  if (f.no_sandbox) {
    o.no_sandbox = "--no-sandbox";
    return {};
  }
  const auto support = transport::probe_sandbox();
  std::string why = support.why_not;
  if (support.usable) {
    transport::SandboxOptions so;
    so.offline = f.sandbox == "offline";
    if (auto h = o.env.find("HOME"); h != o.env.end()) so.home = h->second;
    std::error_code ec;
    so.given = given_paths(o);
    if (o.root) so.projects.push_back(*o.root);
    if (!o.cwd.empty()) so.projects.push_back(std::filesystem::absolute(o.cwd, ec).string());
    else so.implicit.push_back(std::filesystem::current_path(ec).string());
    auto sb = transport::Sandbox::create(support, so);
    if (sb.ok()) {
      o.sandbox = std::move(sb.value());
      return {};
    }
    why = sb.error().message;
  }
  if (f.sandbox != "auto")
    return make_error(errc::kUsage, "--sandbox " + f.sandbox + ": no sandbox can be made: " + why +
                                        " (or run without one: --no-sandbox)");
  o.no_sandbox = why;
  return {};
}

std::string safety_banner(const engine::RunOptions& o) {
  if (o.command.empty()) return {};
  if (o.sandbox) return "sandbox: " + o.sandbox->describe();
  std::string s = "no sandbox (" + o.no_sandbox + "): the server runs on this machine; tools that kill, run, "
                  "overwrite or send are not called";
  if (!o.allow_destructive.empty()) {
    std::string list;
    for (const auto& a : o.allow_destructive) list += (list.empty() ? "" : ",") + a;
    s += " except --allow-destructive " + list;
  }
  return s;
}

std::string quiet_safety_note(const engine::RunReport& report) {
  const auto note = engine::safety_note(report.tools, report.no_sandbox);
  return note ? "note: " + display_text(*note, false) : std::string();
}

}  // namespace ctxo::cli
