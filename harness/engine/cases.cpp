// SPDX-License-Identifier: MIT
#include "engine/cases.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "checks/registry.h"
#include "core/text.h"
#include "profile/profile.h"
#include "profile/schema_validator.h"

namespace ctxo::engine {

using nlohmann::json;

namespace {

constexpr int kCaseFormat = 1;

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    out += plain ? c : '_';
  }
  return out.substr(0, 64);
}

// A replayable call: the tool and arguments of a tools/call request.
std::optional<ReplayCall> call_of(const json& request, bool as_miss) {
  if (!request.is_object() || request.value("method", "") != "tools/call" || !request.contains("params") ||
      !request["params"].is_object() || !request["params"].contains("name") || !request["params"]["name"].is_string())
    return std::nullopt;
  ReplayCall c;
  c.tool = request["params"]["name"].get<std::string>();
  if (request["params"].contains("arguments") && request["params"]["arguments"].is_object())
    c.arguments = request["params"]["arguments"];
  c.as_miss = as_miss;
  return c;
}

}  // namespace

json case_json(const ReportedFinding& rf, const RunReport& report, const RunOptions& options,
               const core::Redactor* redactor) {
  const Finding& f = rf.finding;
  json server = {{"command", options.command},
                 {"env", f.env.empty() ? options.env : f.env},
                 {"cwd", options.cwd},
                 {"protocol", !options.protocol.empty() ? options.protocol : report.protocol_version}};
  // The name the user gave the server (--config): hosts prefix its tool names with it (H-NAME).
  if (!options.config_name.empty()) server["name"] = options.config_name;
  if (!options.url.empty()) {
    server["url"] = options.url;
    // Header names only: the values are credentials; `replay --header` gives them again.
    json names = json::array();
    for (const auto& h : options.headers) names.push_back(h.first);
    server["headers"] = names;
  }
  json doc = {{"ctxo_case", kCaseFormat},
              {"invariant", f.invariant},
              {"tool", f.tool},
              {"severity", to_string(f.severity)},
              {"diagnosis", f.diagnosis},
              {"request", f.request},
              {"original_request", f.original_request},
              {"shrink_steps", f.shrink_steps},
              {"phase", f.phase},
              {"label", f.case_label},
              {"response_excerpt", f.response_excerpt},
              {"replay", f.replay},
              {"server", server},
              {"profile", options.profile},
              {"host", options.host},
              {"timeout_ms", options.timeout.count()},
              {"seed", report.seed},
              {"limits", options.limits}};
  if (options.root) doc["root"] = *options.root;
  if (options.strict_error_output) doc["strict_error_output"] = true;
  if (f.sequence.is_array() && !f.sequence.empty()) doc["sequence"] = f.sequence;
  if (f.batch.is_array() && !f.batch.empty()) {
    doc["batch"] = f.batch;
    doc["concurrency"] = options.concurrency_all;
  }
  if (redactor) redactor->scrub_json(doc);
  return doc;
}

std::string case_file_name(const Finding& f, const core::Redactor* redactor) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(finding_key(f))));
  auto name = [&](const std::string& tool) {
    return safe_name(f.invariant) + "-" + (f.tool.empty() ? std::string("server") : tool) + "-" + std::string(hex, 8) +
           ".json";
  };
  if (!redactor) return name(safe_name(f.tool));
  // The tool name scrubbed before it is cut to a file name's characters and length (so a cut
  // cannot leave part of the marker and the rest of a secret); what safe_name makes of it is
  // looked at again, as is the whole name.
  std::string n = name(safe_name(redactor->scrub(f.tool)));
  if (redactor->contains(n)) n = name("tool");
  return n;
}

Result<void> write_cases(RunReport& report, const RunOptions& options, const std::string& dir,
                         const core::Redactor* redactor) {
  if (redactor && redactor->empty()) redactor = nullptr;
  if (report.findings.empty()) return {};
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error("io", "cannot create the case directory '" + dir + "': " + ec.message());
  // The default place (.ctxo-conform/cases, in the project) is ignored by git, as pytest's and
  // mypy's caches are: a run leaves `git status` as it found it.
  if (const auto top = std::filesystem::path(dir).lexically_normal().parent_path();
      top.filename() == ".ctxo-conform" && !std::filesystem::exists(top / ".gitignore", ec)) {
    std::ofstream(top / ".gitignore") << "# Made by ctxo-conform: its case files are not the project's.\n*\n";
  }
  for (auto& rf : report.findings) {
    const std::string path = (std::filesystem::path(dir) / case_file_name(rf.finding, redactor)).string();
    std::string text = case_json(rf, report, options, redactor).dump(2);
    if (redactor) redactor->scrub_in_place(text);  // a last look at the text as written
    std::ofstream out(path, std::ios::trunc);
    out << text << "\n";
    out.close();
    if (!out) return make_error("io", "cannot write the case file '" + path + "'");
    rf.case_file = path;
  }
  return {};
}

Result<Case> load_case(const std::string& path) {
  auto doc = profile::read_json_file(path);
  if (!doc) return make_error("usage", doc.error().message);
  static const Result<profile::SchemaValidator> schema = profile::compile_bundled_schema("case.schema.json");
  if (!schema.ok()) return make_error("config", "cannot load the case schema: " + schema.error().message);
  if (auto problems = schema->validate(*doc); !problems.empty())
    return make_error("usage", "'" + path + "' is not a ctxo-conform case file: " + problems.front());
  const json& d = *doc;
  Case c;
  c.doc = d;
  c.invariant = d["invariant"].get<std::string>();
  c.tool = d["tool"].get<std::string>();
  c.diagnosis = d["diagnosis"].get<std::string>();
  if (!checks::find_invariant(c.invariant))
    return make_error("usage", "'" + path + "' names an unknown invariant '" + c.invariant + "'");
  RunOptions& o = c.options;
  const json& server = d["server"];
  o.command = server["command"].get<std::vector<std::string>>();
  o.url = server.value("url", "");
  if (server.contains("env")) o.env = server["env"].get<std::map<std::string, std::string>>();
  o.cwd = server.value("cwd", "");
  o.config_name = server.value("name", "");
  o.protocol = server.value("protocol", "");
  o.profile = d.value("profile", "auto");
  o.host = d.value("host", "");
  o.strict_error_output = d.value("strict_error_output", false);
  o.timeout = std::chrono::milliseconds(d.value("timeout_ms", 10000));
  o.seed = d.value("seed", std::uint64_t{0});
  if (d.contains("limits")) o.limits = d["limits"].get<std::vector<std::int64_t>>();
  if (d.contains("root") && d["root"].is_string()) o.root = d["root"].get<std::string>();
  o.selection = checks::Selection({c.invariant}, {});
  o.replay = call_of(d["request"], d.value("phase", "") == "miss").value_or(ReplayCall{});
  // A finding with no call (H-NAME, H-SCHEMA: the tool's listing) replays on its tool.
  if (o.replay->tool.empty()) o.replay->tool = c.tool;
  if (d.contains("sequence"))
    for (const auto& r : d["sequence"])
      if (auto call = call_of(r, false)) o.replay->sequence.emplace_back(call->tool, call->arguments);
  if (d.contains("batch"))
    for (const auto& r : d["batch"])
      if (auto call = call_of(r, false)) o.replay->batch.emplace_back(call->tool, call->arguments);
  // A batch case replays as sent: its size in flight, its tools judged as they were.
  if (!o.replay->batch.empty()) {
    o.concurrency = o.replay->batch.size();
    o.concurrency_all = d.value("concurrency", false);
  }
  return c;
}

}  // namespace ctxo::engine
