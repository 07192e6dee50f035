// SPDX-License-Identifier: MIT
#include "cli/outputs.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "reports/html.h"
#include "reports/json_report.h"
#include "reports/junit.h"
#include "reports/markdown.h"
#include "reports/sarif.h"

namespace ctxo::cli {

namespace {

using Render = std::string (*)(const engine::RunReport&, const std::string&);

struct Format {
  const char* flag;
  std::string Outputs::*path;
  Render render;
};

const std::vector<Format>& formats() {
  static const std::vector<Format> kAll = {
      {"--json", &Outputs::json,
       [](const engine::RunReport& r, const std::string& v) { return reports::to_json(r, v).dump(2) + "\n"; }},
      {"--junit", &Outputs::junit, [](const engine::RunReport& r, const std::string& v) { return reports::to_junit(r, v); }},
      {"--sarif", &Outputs::sarif,
       [](const engine::RunReport& r, const std::string& v) { return reports::to_sarif(r, v).dump(2) + "\n"; }},
      {"--markdown", &Outputs::markdown,
       [](const engine::RunReport& r, const std::string& v) { return reports::to_markdown(r, v); }},
      {"--html", &Outputs::html, [](const engine::RunReport& r, const std::string& v) { return reports::to_html(r, v); }},
  };
  return kAll;
}

}  // namespace

void Outputs::add_options(CLI::App& app) {
  app.add_option("--json", json, "Write the JSON report to F ('-' = stdout)")->type_name("F");
  app.add_option("--junit", junit, "Write a JUnit XML report to F ('-' = stdout)")->type_name("F");
  app.add_option("--sarif", sarif, "Write a SARIF 2.1.0 report to F ('-' = stdout)")->type_name("F");
  app.add_option("--markdown", markdown, "Write a Markdown summary to F ('-' = stdout; fits $GITHUB_STEP_SUMMARY)")
      ->type_name("F");
  app.add_option("--html", html, "Write a single-file HTML report to F ('-' = stdout)")->type_name("F");
}

int Outputs::to_stdout() const {
  int n = 0;
  for (const auto& f : formats()) n += this->*f.path == "-";
  return n;
}

Result<void> Outputs::check() const {
  if (to_stdout() > 1) return make_error("usage", "only one report can go to stdout ('-')");
  std::vector<std::string> seen;
  for (const auto& f : formats()) {
    const std::string& p = this->*f.path;
    if (p.empty() || p == "-") continue;
    for (const auto& s : seen)
      if (s == p) return make_error("usage", "two reports would be written to the same file '" + p + "'");
    seen.push_back(p);
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) return make_error("usage", std::string(f.flag) + " '" + p + "' is a directory");
    const bool existed = std::filesystem::exists(p, ec);
    std::ofstream probe(p, std::ios::app);
    if (!probe)
      return make_error("usage", std::string("cannot write ") + f.flag + " report '" + p + "': " + std::strerror(errno));
    probe.close();
    if (!existed) std::filesystem::remove(p, ec);  // leave no empty file behind if the run stops early
  }
  return {};
}

void Outputs::remove_stale() const {
  for (const auto& f : formats()) {
    const std::string& p = this->*f.path;
    if (p.empty() || p == "-") continue;
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) std::filesystem::remove(p, ec);
  }
}

Result<void> Outputs::write(const engine::RunReport& report, const std::string& version,
                            const core::Redactor* redactor) const {
  std::optional<Error> first;
  for (const auto& f : formats()) {
    const std::string& p = this->*f.path;
    if (p.empty()) continue;
    std::string text = f.render(report, version);
    if (redactor) redactor->scrub_in_place(text);
    auto w = reports::write_text(p, text);
    if (!w.ok() && !first) first = w.error();  // write the others anyway
  }
  if (first) return *first;
  return {};
}

}  // namespace ctxo::cli
