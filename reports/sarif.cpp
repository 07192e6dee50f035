// SPDX-License-Identifier: MIT
#include "reports/sarif.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>

#include "checks/registry.h"
#include "core/text.h"

namespace ctxo::reports {

using nlohmann::json;

std::string sarif_rule_name(std::string_view id) {
  std::string out;
  bool start = true;
  for (char ch : id) {
    auto c = static_cast<unsigned char>(ch);
    if (!std::isalnum(c)) {
      start = true;
      continue;
    }
    out += static_cast<char>(start ? std::toupper(c) : std::tolower(c));
    start = false;
  }
  return out;
}

namespace {

// A copy of `j` whose strings and keys are valid UTF-8 (a request may carry the server's bytes).
json utf8_json(const json& j) {
  if (j.is_string()) return sanitize_utf8(j.get_ref<const std::string&>());
  if (j.is_array()) {
    json out = json::array();
    for (const auto& v : j) out.push_back(utf8_json(v));
    return out;
  }
  if (j.is_object()) {
    json out = json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[sanitize_utf8(it.key())] = utf8_json(it.value());
    return out;
  }
  return j;
}

// Percent-encodes everything but unreserved characters and '/', so a path is a URI reference.
std::string uri_path(std::string_view path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

// Stable across runs, machines and seeds: FNV-1a (64 bit) of the finding's cause (invariant and
// the facts that identify the defect, never the server's text or our generated values) and its
// tool ("" for a server-level one), so a fixed defect closes its alert.
std::string fingerprint(const Finding& f) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a(engine::finding_key(f))));
  return buf;
}

std::string markdown_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '`' || c == '*' || c == '_' || c == '[' || c == ']' || c == '<' || c == '>' || c == '#' ||
        c == '|')
      out += '\\';
    out += c;
  }
  return out;
}

const char* level(Severity s) { return s == Severity::kError ? "error" : "warning"; }

json rule(const checks::InvariantInfo& inv) {
  std::string full = inv.summary;
  if (!full.empty()) full[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(full[0])));
  full += ". Source: " + inv.spec_ref + ".";
  if (!inv.implemented) full += " Not checked by this version yet.";
  return {{"id", inv.id},
          {"name", sarif_rule_name(inv.id)},
          {"shortDescription", {{"text", inv.summary}}},
          {"fullDescription", {{"text", full}}},
          {"help",
           {{"text", inv.help},
            {"markdown", "**" + markdown_escape(inv.id) + "**: " + markdown_escape(inv.summary) +
                             "\n\n**How to fix it:** " + markdown_escape(inv.help) +
                             "\n\nSource: " + markdown_escape(inv.spec_ref)}}},
          {"defaultConfiguration", {{"level", level(inv.severity)}}},
          {"properties", {{"tags", json::array({inv.family})}, {"implemented", inv.implemented}}}};
}

const char* exit_meaning(int code) {
  switch (code) {
    case 0: return "conformant: no error-level finding";
    case 1: return "violations found";
    case 2: return "usage or configuration error";
    case 3: return "the server could not be started or initialised";
    case 4:
      return "untested: no call reached the server's tools' data (none made, none answered, or every answer an "
             "error, a miss or empty)";
    case 129: return "interrupted by SIGHUP: the findings are true, the rest of the server was not tested";
    case 130: return "interrupted by SIGINT: the findings are true, the rest of the server was not tested";
    case 143: return "interrupted by SIGTERM: the findings are true, the rest of the server was not tested";
  }
  return "unknown exit code";
}

}  // namespace

json to_sarif(const engine::RunReport& r, const std::string& version) {
  // Rules: the registry in its order, then ids only a finding knows (a report from a newer version).
  json rules = json::array();
  std::map<std::string, std::size_t> rule_index;
  for (const auto& inv : checks::registry()) {
    rule_index[inv.id] = rules.size();
    rules.push_back(rule(inv));
  }
  for (const auto& rf : r.findings) {
    const std::string& id = rf.finding.invariant;
    if (rule_index.count(id)) continue;
    rule_index[id] = rules.size();
    rules.push_back({{"id", sanitize_utf8(id)},
                     {"name", sarif_rule_name(id)},
                     {"shortDescription", {{"text", sanitize_utf8(id)}}},
                     {"defaultConfiguration", {{"level", level(rf.finding.severity)}}}});
  }

  const std::string server = sanitize_utf8(r.server_name.empty() ? std::string("server") : r.server_name);
  json results = json::array();
  for (const auto& rf : r.findings) {
    const Finding& f = rf.finding;
    std::size_t idx = rule_index.at(f.invariant);
    json logical = f.tool.empty()
                       ? json{{"name", server}, {"fullyQualifiedName", server}, {"kind", "module"}}
                       : json{{"name", sanitize_utf8(f.tool)}, {"fullyQualifiedName", server + "/" + sanitize_utf8(f.tool)},
                              {"kind", "function"}};
    json location = {{"logicalLocations", json::array({logical})}};
    if (!f.file.empty()) {
      json physical = {{"artifactLocation", {{"uri", uri_path(f.file)}, {"uriBaseId", "ROOT"}}}};
      json region = json::object();
      if (f.line > 0) region["startLine"] = f.line;
      if (f.column > 0) region["startColumn"] = f.column;
      if (!region.empty()) physical["region"] = region;
      location["physicalLocation"] = physical;
    }
    std::string message = sanitize_utf8(f.diagnosis);
    if (message.empty()) message = rules[idx]["shortDescription"]["text"].get<std::string>();
    if (auto on = engine::tools_phrase(rf); !on.empty()) message += " (" + sanitize_utf8(on) + ")";
    json result = {{"ruleId", sanitize_utf8(f.invariant)},
                   {"ruleIndex", idx},
                   {"level", level(f.severity)},
                   {"message", {{"text", message}}},
                   {"locations", json::array({location})},
                   {"partialFingerprints", {{"ctxoCause/v1", fingerprint(f)}}},
                   {"occurrenceCount", std::max<std::size_t>(rf.count, 1)},
                   {"properties",
                    {{"tool", sanitize_utf8(f.tool)},
                     {"request", utf8_json(f.request)},
                     {"response_excerpt", sanitize_utf8(f.response_excerpt)},
                     {"replay", sanitize_utf8(f.replay)},
                     {"count", rf.count},
                     {"cause", engine::cause_id(f)},
                     {"tools", utf8_json(rf.tools)}}}};
    if (rf.baselined)
      result["suppressions"] = json::array({{{"kind", "external"}, {"justification", "accepted by --baseline"}}});
    results.push_back(std::move(result));
  }

  json notifications = json::array();
  if (r.error)
    notifications.push_back({{"level", "error"},
                             {"message", {{"text", sanitize_utf8(r.error->message)}}},
                             {"descriptor", {{"id", sanitize_utf8(r.error->code)}}}});
  for (const auto& n : r.notes) notifications.push_back({{"level", "note"}, {"message", {{"text", sanitize_utf8(n)}}}});
  for (const auto& b : r.baseline_stale)
    notifications.push_back(
        {{"level", "warning"},
         {"message", {{"text", sanitize_utf8("baseline entry " + b.invariant + (b.tool.empty() ? "" : " " + b.tool) +
                                    " no longer fails; remove it")}}}});
  json invocation = {{"executionSuccessful", !r.error.has_value() && r.interrupted == 0},
                     {"exitCode", r.exit_code},
                     {"exitCodeDescription", exit_meaning(r.exit_code)}};
  if (!r.started_at.empty()) invocation["startTimeUtc"] = sanitize_utf8(r.started_at);
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = notifications;

  json run = {
      {"tool",
       {{"driver",
         {{"name", "ctxo-conform"},
          {"version", sanitize_utf8(version)},
          {"informationUri", kInformationUri},
          {"rules", rules}}}}},
      {"invocations", json::array({invocation})},
      {"columnKind", "utf16CodeUnits"},
      {"results", results},
      {"properties",
       {{"seed", r.seed},
        {"profile", sanitize_utf8(r.profile)},
        {"verdict", engine::to_string(r.verdict)},
        {"server",
         {{"name", sanitize_utf8(r.server_name)},
          {"version", sanitize_utf8(r.server_version)},
          {"protocol", sanitize_utf8(r.protocol_version)},
          {"era", sanitize_utf8(r.era)},
          {"command", sanitize_utf8(shell_join(r.command))},
          {"url", sanitize_utf8(r.url)}}},
        {"stats",
         {{"calls", r.calls},
          {"findings", r.findings.size()},
          {"errors", r.error_count()},
          {"warnings", r.warning_count()},
          {"baselined", r.baselined_count()}}}}}};
  if (r.root) {
    std::string root = *r.root;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    std::string uri = "file://" + std::string(root.empty() || root[0] != '/' ? "/" : "") + uri_path(root);
    if (uri.back() != '/') uri += '/';
    run["originalUriBaseIds"] = {{"ROOT", {{"uri", uri}}}};
  }
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({run})}};
}

}  // namespace ctxo::reports
