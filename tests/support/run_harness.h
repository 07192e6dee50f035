// SPDX-License-Identifier: MIT
// Test support: run the built ctxo-conform binary as a user would, capture its exit code,
// stdout, stderr and JSON report, and check what every run promises (documented exit code, the
// report written and schema-valid).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "profile/profile.h"
#include "profile/schema_validator.h"

namespace ctxo::test {

struct HarnessRun {
  int exit_code = -1;
  std::string out, err;
  nlohmann::json report;  ///< Parsed --json report, or null when none was written.
  std::vector<std::string> schema_violations;  ///< The report against schemas/report.schema.json.
  /// Error-severity invariant ids in the report.
  std::set<std::string> error_ids() const {
    std::set<std::string> s;
    if (report.is_object())
      for (const auto& f : report["findings"])
        if (f["severity"] == "error") s.insert(f["invariant"].get<std::string>());
    return s;
  }
  std::set<std::string> all_ids() const {
    std::set<std::string> s;
    if (report.is_object())
      for (const auto& f : report["findings"]) s.insert(f["invariant"].get<std::string>());
    return s;
  }
  /// Findings whose cause is the diagnosis read as text (cause facts {"text": ...}), not facts
  /// the check named (issue 30: every check names its cause), as "INVARIANT: diagnosis" lines.
  std::vector<std::string> text_caused() const {
    std::vector<std::string> out;
    if (report.is_object())
      for (const auto& f : report["findings"])
        if (!f.contains("cause") || !f["cause"].contains("facts") || f["cause"]["facts"].empty() ||
            f["cause"]["facts"].contains("text"))
          out.push_back(f.value("invariant", std::string()) + ": " + f.value("diagnosis", std::string()));
    return out;
  }
  /// Tool name -> its status for invariant `id` ("passed", "failed", "not_observed"; "" when none).
  std::map<std::string, std::string> outcomes(const std::string& id) const {
    std::map<std::string, std::string> out;
    if (report.is_object())
      for (const auto& t : report["tools"]) out[t.value("name", std::string())] = t["outcomes"].value(id, std::string());
    return out;
  }
  /// "INVARIANT tool form" of every finding (the form: its cause's `form` fact, "" without one).
  std::set<std::string> found() const {
    std::set<std::string> s;
    if (report.is_object())
      for (const auto& f : report["findings"]) {
        const bool facts = f.contains("cause") && f["cause"].contains("facts") && f["cause"]["facts"].is_object();
        s.insert(f.value("invariant", std::string()) + " " + f.value("tool", std::string()) + " " +
                 (facts ? f["cause"]["facts"].value("form", std::string()) : std::string()));
      }
    return s;
  }
  /// Invariant -> the cause ids of its findings (SARIF partialFingerprints come from the same id).
  std::map<std::string, std::set<std::string>> cause_ids() const {
    std::map<std::string, std::set<std::string>> out;
    if (report.is_object())
      for (const auto& f : report["findings"])
        out[f.value("invariant", std::string())].insert(f.contains("cause") ? f["cause"].value("id", std::string()) : "");
    return out;
  }
};

inline std::string harness_binary() { return std::string(CTXO_BINARY_DIR) + "/ctxo-conform"; }
inline std::string fixture_server() { return std::string(CTXO_BINARY_DIR) + "/tests/servers/fixture-server"; }
inline std::string reference_server() { return std::string(CTXO_BINARY_DIR) + "/tests/servers/reference-server"; }
inline std::string input_server() { return std::string(CTXO_BINARY_DIR) + "/tests/servers/input-server"; }
inline std::string example_server() {
  return std::string(CTXO_BINARY_DIR) + "/examples/example_server/example-server";
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Violations of schemas/report.schema.json in `report` (empty = valid).
inline std::vector<std::string> report_schema_violations(const nlohmann::json& report) {
  static const auto validator = profile::compile_bundled_schema("report.schema.json");
  if (!validator.ok()) return {"report schema does not compile: " + validator.error().message};
  return validator->validate(report);
}

/// Runs `ctxo-conform ARGS...` with a JSON report (unless `with_json` is false).
inline HarnessRun run_harness(const std::vector<std::string>& args, bool with_json = true) {
  static int counter = 0;
  std::string base = std::string(CTXO_BINARY_DIR) + "/test-tmp";
  std::string mk = "mkdir -p " + quote(base);
  if (std::system(mk.c_str()) != 0) return {};
  std::string stem = base + "/run-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  std::string cmd = quote(harness_binary());
  std::size_t first = 0;
  if (!args.empty() && (args[0] == "check" || args[0] == "merge" || args[0] == "replay")) {  // a subcommand comes first
    cmd += " " + args[0];
    first = 1;
  }
  if (with_json) cmd += " --json " + quote(stem + ".json");
  for (std::size_t i = first; i < args.size(); ++i) cmd += " " + quote(args[i]);
  cmd += " > " + quote(stem + ".out") + " 2> " + quote(stem + ".err") + " < /dev/null";
  HarnessRun r;
  int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(stem + ".out");
  r.err = slurp(stem + ".err");
  if (with_json) {
    std::string text = slurp(stem + ".json");
    r.report = nlohmann::json::parse(text, nullptr, false);
    if (r.report.is_discarded()) r.report = nullptr;
    if (r.report.is_object()) r.schema_violations = report_schema_violations(r.report);
  }
  // What every run promises, whatever the test then looks at: one of the documented exit codes
  // (0 pass, 1 findings, 2 usage or configuration, 3 server, 4 untested), never a crash; a run that reached a
  // verdict wrote its JSON report when asked; any report written validates against its schema.
  EXPECT_TRUE(WIFEXITED(status)) << "ctxo-conform ended by a signal (" << r.exit_code - 128 << "): " << cmd << "\n"
                                 << r.err;
  EXPECT_LE(r.exit_code, 4) << "undocumented exit code: " << cmd << "\n" << r.err;
  if (with_json && (r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 4)) {
    EXPECT_TRUE(r.report.is_object()) << "a run with a verdict wrote no JSON report: " << cmd << "\n" << r.err;
  }
  EXPECT_TRUE(r.schema_violations.empty()) << r.schema_violations.front();
  return r;
}

}  // namespace ctxo::test
