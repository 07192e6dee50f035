// SPDX-License-Identifier: MIT
#include "engine/transcript.h"

#include "engine/gate.h"

#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "checks/envelope.h"
#include "checks/protocol.h"
#include "core/text.h"
#include "profile/profile.h"
#include "profile/schema_validator.h"

namespace ctxo::engine {

using nlohmann::json;

namespace {

// The tool a tools/call request names ("" otherwise).
std::string tool_name_of(const json& request) {
  if (!request.is_object() || !request.contains("params") || !request["params"].is_object()) return "";
  return request["params"].value("name", "");
}


struct Line {
  std::size_t number = 0;
  json request, response;
  std::map<std::string, std::string> env;
};

Result<std::vector<Line>> read_transcript(const std::string& path) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) return make_error("io", "cannot read transcript '" + path + "'");
    in = &file;
  }
  std::vector<Line> out;
  std::string text;
  std::size_t number = 0;
  while (std::getline(*in, text)) {
    ++number;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return make_error("parse", path + ":" + std::to_string(number) + ": not a JSON object");
    if (!j.contains("request") || !j["request"].is_object())
      return make_error("parse", path + ":" + std::to_string(number) +
                                     ": each line needs \"request\" and \"response\" (whole JSON-RPC messages)");
    Line line;
    line.number = number;
    line.request = j["request"];
    // A notification (or a request whose answer was not captured) has no response to check.
    line.response = j.contains("response") && j["response"].is_object() ? j["response"] : json();
    if (j.contains("env")) {
      if (!j["env"].is_object())
        return make_error("parse", path + ":" + std::to_string(number) + ": \"env\" must be an object of strings");
      for (auto it = j["env"].begin(); it != j["env"].end(); ++it)
        line.env[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
    }
    out.push_back(std::move(line));
  }
  return out;
}

mcp::Reply reply_of(const Line& line) {
  mcp::Reply r;
  r.request = line.request;
  r.raw = line.response.dump();
  if (line.response.contains("error")) {
    r.kind = mcp::Reply::Kind::kError;
    r.error = line.response["error"];
  } else if (line.response.contains("result")) {
    r.kind = mcp::Reply::Kind::kResult;
    r.result = line.response["result"];
  } else {
    r.kind = mcp::Reply::Kind::kClosed;
  }
  return r;
}

}  // namespace

Result<RunReport> check_transcript(const CheckOptions& o) {
  auto lines = read_transcript(o.transcript);
  if (!lines.ok()) return lines.error();
  auto profiles = load_profile_set(o.profile);
  if (!profiles.ok()) return profiles.error();
  const profile::Profile* forced = profiles->forced ? &*profiles->forced : nullptr;

  RunReport rep;
  rep.profile = o.profile;
  rep.command = {"check", o.transcript};
  std::map<std::string, std::size_t> index;
  auto add = [&](Finding f, const Line& line) {
    if (!o.selection.enabled(f.invariant)) return;
    if (f.tool.empty() && f.request.is_object() && f.request.value("method", "") == "tools/call")
      f.tool = f.request["params"].value("name", "");
    if (f.replay.empty()) f.replay = o.transcript + ":" + std::to_string(line.number);
    merge_finding(rep, index, std::move(f));
  };
  for (const auto& inv : checks::registry())
    if (inv.implemented && inv.family != "transport" && o.selection.enabled(inv.id))
      rep.invariants_checked.push_back(inv.id);
  rep.invariants_checked.push_back("T-ID");
  AppliedInvariants applied;  // tool -> ids applied ("" = server)

  // Tools: from --tools-list, and from any tools/list exchange in the transcript.
  std::vector<json> tools;
  if (o.tools_list) {
    auto read = profile::read_json_file(*o.tools_list);
    if (!read && read.error().code == "io") return make_error("io", "--tools-list: " + read.error().message);
    json j = read ? std::move(*read) : json();
    if (j.is_object() && j.contains("result")) j = j["result"];
    if (!j.is_object() || !j.contains("tools") || !j["tools"].is_array())
      return make_error("parse", "--tools-list '" + *o.tools_list + "' is not a tools/list result ({\"tools\": [...]})");
    for (const auto& t : j["tools"]) tools.push_back(t);
  }
  for (const auto& line : *lines)
    if (line.request.value("method", "") == "tools/list" && line.response.contains("result") &&
        line.response["result"].is_object() && line.response["result"].contains("tools") &&
        line.response["result"]["tools"].is_array())
      for (const auto& t : line.response["result"]["tools"]) tools.push_back(t);
  auto find_tool = [&](const std::string& name) -> const json* {
    for (const auto& t : tools)
      if (t.is_object() && t.value("name", "") == name) return &t;
    return nullptr;
  };
  for (const auto& t : tools) {
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
    bool seen = false;
    for (const auto& ts : rep.tools) seen = seen || ts.name == t["name"];
    if (seen) continue;
    ToolSummary ts;
    ts.name = t["name"].get<std::string>();
    ts.read_only = t.contains("annotations") && t["annotations"].is_object() &&
                   t["annotations"].value("readOnlyHint", false) == true;
    rep.tools.push_back(ts);
  }

  struct Answer {
    const Line* line;
    json tool;
    checks::ParsedEnvelope env;
  };
  std::map<std::string, std::vector<Answer>> same_call;   // tool+args+env -> answers (E-STABLE)
  std::map<std::string, std::vector<Answer>> same_args;   // tool+args -> answers (sweep)
  const json empty_tool = json{{"name", ""}, {"inputSchema", {{"type", "object"}}}};
  std::string era = "legacy";

  std::size_t unanswered = 0;
  for (const auto& line : *lines) {
    const std::string method = line.request.value("method", "");
    if (!line.response.is_object()) {
      ++unanswered;
      continue;
    }
    mcp::Reply reply = reply_of(line);
    if (line.request.contains("id") && (!line.response.contains("id") || line.response["id"] != line.request["id"])) {
      Finding f;
      f.invariant = "T-ID";
      f.request = line.request;
      f.response_excerpt = excerpt(line.response.dump(), 300);
      f.diagnosis = "the response's id " + line.response.value("id", json()).dump() + " is not the request's id " +
                    line.request.value("id", json()).dump();
      add(std::move(f), line);
    }
    if (method == "initialize" || method == "server/discover") {
      if (reply.kind != mcp::Reply::Kind::kResult) continue;
      mcp::ServerInfo info;
      info.era = method == "initialize" ? "legacy" : "modern";
      era = info.era;
      info.init_request = line.request;
      info.init_result = reply.result;
      if (reply.result.is_object() && reply.result.contains("serverInfo") && reply.result["serverInfo"].is_object()) {
        rep.server_name = reply.result["serverInfo"].value("name", "");
        rep.server_version = reply.result["serverInfo"].value("version", "");
      }
      if (reply.result.is_object()) rep.protocol_version = reply.result.value("protocolVersion", "");
      rep.era = era;
      for (auto& f : checks::check_init(info)) add(std::move(f), line);
      applied[""].insert({"T-ID", "P-INIT"});
      continue;
    }
    if (method == "tools/list") {
      mcp::Client::ToolsListing listing;
      listing.pages.push_back(reply);
      for (auto& f : checks::check_tools_list(listing, era)) add(std::move(f), line);
      applied[""].insert({"T-ID", "P-LIST"});
      continue;
    }
    if (method != "tools/call") continue;
    rep.calls++;
    const json params = line.request.value("params", json::object());
    const std::string name = params.is_object() ? params.value("name", "") : "";
    const json args = params.is_object() && params.contains("arguments") ? params["arguments"] : json::object();
    const json* tool = find_tool(name);
    bool listed = false;
    for (auto& ts : rep.tools)
      if (ts.name == name) {
        ts.calls++;
        listed = true;
      }
    if (!listed) {  // called but not in any tools/list: still a row of the reports
      ToolSummary ts;
      ts.name = name;
      ts.calls = 1;
      rep.tools.push_back(ts);
    }
    const checks::ToolValidators validators(tool && tool->contains("inputSchema") ? (*tool)["inputSchema"] : json(),
                                            tool);
    for (auto& f : checks::check_call(validators.context(tool, args, era), reply)) add(std::move(f), line);
    applied[name].insert({"T-ID", "P-NO-THROW"});
    if (reply.kind != mcp::Reply::Kind::kResult) continue;
    applied[name].insert("P-RESULT");
    if (profiles->candidates.empty() && !forced) continue;
    json tool_json = tool ? *tool : empty_tool;
    checks::EnvelopeInput in;
    in.forced = forced;
    in.candidates = &profiles->candidates;
    in.tool = &tool_json;
    in.tools = &tools;
    in.arguments = args;
    in.env = line.env;
    in.root = o.root;
    in.reply = &reply;
    checks::ParsedEnvelope pe = checks::extract_envelope(in);
    if (!pe.profile) {
      rep.unprofiled_results++;
      continue;
    }
    rep.profiles_detected[pe.profile->name]++;
    for (auto& f : checks::check_envelope(in, pe)) add(std::move(f), line);
    for (const auto& id : checks::applied_invariants(in, pe)) applied[name].insert(id);
    json env_json = line.env;
    same_call[name + "\x1f" + args.dump() + "\x1f" + env_json.dump()].push_back(Answer{&line, tool_json, pe});
    same_args[name + "\x1f" + args.dump()].push_back(Answer{&line, tool_json, pe});
  }

  for (const auto& [key, answers] : same_call) {
    if (answers.size() < 2) continue;
    for (auto& f : checks::check_stable(answers[0].env, answers[1].env)) add(std::move(f), *answers[1].line);
    applied[tool_name_of(answers[0].env.request)].insert("E-STABLE");
  }
  for (const auto& [key, answers] : same_args) {
    const profile::Profile* prof = answers.front().env.profile;
    if (!prof || !prof->limit || !prof->limit->env) continue;
    const std::string var = *prof->limit->env;
    std::vector<checks::SweepPoint> points;
    std::map<std::int64_t, const Line*> line_of;
    for (const auto& a : answers) {
      if (a.env.profile != prof || !a.env.limit) continue;
      bool dup = false;
      for (const auto& p : points) dup = dup || p.limit == *a.env.limit;
      if (dup) continue;
      points.push_back(checks::SweepPoint{*a.env.limit, a.line->env.count(var) == 0, a.env});
      line_of[*a.env.limit] = a.line;
    }
    if (points.size() < 2) continue;
    std::vector<std::int64_t> tr_env;
    applied[tool_name_of(answers.front().env.request)].insert({"TR-PREFIX", "TR-MAXIMAL", "TR-VERBATIM", "TR-ENV"});
    for (auto& f : checks::check_sweep(points, &tr_env)) {
      const Line* at = answers.front().line;
      for (const auto& p : points)
        if (p.env.request == f.request) at = line_of[p.limit];
      add(std::move(f), *at);
    }
  }

  if (unanswered > 0)
    rep.notes.push_back(std::to_string(unanswered) + " transcript line(s) had no response object and were skipped");
  if (rep.unprofiled_results > 0 && !forced && !profiles->candidates.empty())
    rep.notes.push_back(std::to_string(rep.unprofiled_results) +
                        " tool result(s) matched no envelope profile; only protocol checks applied to them");
  publish_applied(rep, applied, o.selection);
  rep.root = o.root;
  settle_verdict(rep);
  return rep;
}

Result<Recorder> Recorder::open(const std::string& path) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return make_error("io", "cannot write --record file '" + path + "'");
  Recorder r;
  r.path_ = path;
  return r;
}

void Recorder::record(const json& request, const json& response, const std::map<std::string, std::string>& env) {
  std::ofstream f(path_, std::ios::binary | std::ios::app);
  json line = {{"request", request}, {"response", response}};
  if (!env.empty()) line["env"] = env;
  f << line.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace ctxo::engine
