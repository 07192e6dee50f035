// SPDX-License-Identifier: MIT
#include "engine/transcript.h"

#include "checks/lists.h"

#include "checks/generic.h"
#include "checks/generic_caps.h"
#include "gen/plan.h"

#include "core/json_bounded.h"
#include "engine/gate.h"
#include "engine/profiles.h"
#include "engine/selection.h"
#include "engine/sink.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "checks/envelope.h"
#include "checks/judge.h"
#include "checks/protocol.h"
#include "checks/sample.h"
#include "core/text.h"
#include "profile/profile.h"
#include "profile/schema_validator.h"

namespace ctxo::engine {

using nlohmann::json;

namespace {


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
    json j = parse_bounded(text);
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
  auto judging = load_judging(o.profile, o.host);
  if (!judging.ok()) return judging.error();
  const profile::Profile* forced = judging->profiles.forced ? &*judging->profiles.forced : nullptr;

  RunReport rep;
  rep.profile = o.profile;
  rep.command = {"check", o.transcript};
  std::map<std::string, std::size_t> line_of;  // request (compact) -> its transcript line
  for (const auto& line : *lines) line_of.emplace(line.request.dump(), line.number);
  FindingSink sink(rep, o.selection);
  // What checks said about `tool`: statuses kept, findings reported with the line they came from.
  auto take = [&](const std::string& tool, checks::Outcomes out) {
    for (auto& f : sink.take(tool, std::move(out))) {
      if (!sink.admit(f)) continue;
      if (f.replay.empty()) {
        auto it = line_of.find(f.request.dump());
        f.replay = o.transcript + (it == line_of.end() ? std::string() : ":" + std::to_string(it->second));
      }
      sink.merge(std::move(f));
    }
  };
  rep.invariants_checked = invariants_checked(o.selection, false);
  for (const auto& n : judging->notes) rep.notes.push_back(n);

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
  for (const auto& t : tools) {
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
    bool seen = false;
    for (const auto& ts : rep.tools) seen = seen || ts.name == t["name"];
    if (seen) continue;
    ToolSummary ts;
    ts.name = t["name"].get<std::string>();
    ts.read_only = annotated_read_only(t);
    rep.tools.push_back(ts);
  }

  struct Answer {
    const Line* line;
    checks::ParsedEnvelope env;
    std::optional<std::size_t> answer;  ///< The judge's id (held findings).
  };
  std::map<std::string, std::vector<Answer>> same_call;   // tool+args+env -> answers (E-STABLE)
  std::map<std::string, std::vector<Answer>> same_args;   // tool+args -> answers (sweep)
  std::string era = "legacy";
  std::unique_ptr<checks::Judge> judge;  // made at the first tools/call, once the era is known
  auto make_judge = [&] {
    checks::JudgeSetup js;
    js.forced = forced;
    js.candidates = &judging->profiles.candidates;
    js.tools = tools;
    js.tools_known = !tools.empty();
    js.root = o.root;
    js.era = era;
    js.strict_error_output = o.strict_error_output;
    js.hosts = judging->hosts;
    // A transcript keeps no config: the name hosts prefix tools with is the server's own.
    if (!rep.server_name.empty()) js.server_name = checks::ServerName{rep.server_name, false};
    return std::make_unique<checks::Judge>(std::move(js));
  };
  std::map<std::string, checks::Coverage> coverage;  // the judge's, once it has judged everything
  std::optional<std::string> unprofiled;             // the note when results matched no profile

  std::map<std::string, std::vector<checks::ListedCall>> listed;  // per tool, answers read generically
  std::size_t unanswered = 0;
  for (const auto& line : *lines) {
    const std::string method = line.request.value("method", "");
    if (!line.response.is_object()) {
      ++unanswered;
      continue;
    }
    mcp::Reply reply = reply_of(line);
    const std::string tool = tool_of(line.request);
    if (line.request.contains("id")) {
      checks::Outcomes ids;
      ids.pass("T-ID");
      if (!line.response.contains("id") || line.response["id"] != line.request["id"]) {
        Finding f;
        f.invariant = "T-ID";
        f.cause = {{"form", line.response.contains("id") ? "wrong-id" : "no-id"}};
        f.request = line.request;
        f.response_excerpt = excerpt(line.response.dump(), 300);
        f.diagnosis = "the response's id " + line.response.value("id", json()).dump() + " is not the request's id " +
                      line.request.value("id", json()).dump();
        ids.fail(std::move(f));
      }
      take(tool, std::move(ids));
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
      take("", checks::check_init(info));
      take("", checks::check_instructions(judging->hosts, reply.result));  // H-DESC
      continue;
    }
    // A list request with the cursor the live run sends to see it refused: judged as the run
    // judged it, not as a page.
    if (line.request.contains("params") && line.request["params"].is_object() &&
        line.request["params"].value("cursor", json()) == checks::kInvalidCursor) {
      take("", checks::check_invalid_cursor(reply));
      continue;
    }
    if (method == "tools/list") {
      mcp::Client::ToolsListing listing;
      listing.pages.push_back(reply);
      take("", checks::check_tools_list(listing, era));
      continue;
    }
    if (method == "resources/list" || method == "resources/templates/list" || method == "prompts/list") {
      mcp::Client::Listing listing;
      listing.method = method;
      listing.key = method == "resources/list" ? "resources" : method == "prompts/list" ? "prompts" : "resourceTemplates";
      listing.pages.push_back(reply);
      take("", checks::check_list(listing));
      continue;
    }
    if (method != "tools/call") continue;
    const json params = line.request.value("params", json::object());
    const json args = params.is_object() && params.contains("arguments") ? params["arguments"] : json::object();
    // A tool called but not in any tools/list is still a row of the reports.
    count_call(rep, row_of(rep, tool), reply.kind == mcp::Reply::Kind::kResult && !reply.is_error_result());
    if (!judge) judge = make_judge();
    checks::Exchange x;
    x.tool = tool;
    x.arguments = args;
    x.reply = &reply;
    x.env = line.env;
    x.validity = checks::Validity::kUnknown;
    x.hold = true;
    checks::Judged j = judge->call(x);
    take(tool, std::move(j.outcomes));
    // As the live run keeps them (Runner::make_call): TR-COUNT's silent omission across calls.
    // From the judge's reading (Judged::read), as the live run does: the answer is not read again.
    if (j.read && !j.envelope.profile && j.reach == checks::Reach::kData && !j.sample && !judge->profile_of(tool) &&
        listed[tool].size() < checks::kListedKept)
      if (auto lc = checks::listed_call(*j.read, args)) listed[tool].push_back(std::move(*lc));
    if (!j.envelope.profile) continue;
    json env_json = line.env;
    same_call[tool + "\x1f" + args.dump() + "\x1f" + env_json.dump()].push_back(Answer{&line, j.envelope, j.answer});
    same_args[tool + "\x1f" + args.dump()].push_back(Answer{&line, j.envelope, j.answer});
  }

  // H-TOOLS on the tools the transcript lists, as the live run judges its listing (a transcript
  // gives no config: the cap is said to be shared, with no count of other servers).
  // Counted by name: a run that listed again (P-RELIST) recorded each listing.
  if (!tools.empty()) {
    std::set<std::string> names;
    for (const auto& t : tools)
      if (t.is_object() && t.contains("name") && t["name"].is_string()) names.insert(t["name"].get<std::string>());
    take("", checks::check_tool_count(judging->hosts, names.size(), true));
  }
  // Host rules on every listed tool (H-NAME, H-SCHEMA, H-DECLARED), called or not.
  if (!judge && !tools.empty() && !judging->hosts.empty()) judge = make_judge();
  if (judge)
    for (const auto& ts : rep.tools) take(ts.name, judge->listing(ts.name));
  if (judge) {
    for (const auto& [key, answers] : same_call) {
      if (answers.size() < 2) continue;
      take(tool_of(answers[0].env.request), judge->stable(answers[0].env, answers[1].env));
    }
    for (const auto& [key, answers] : same_args) {
      const profile::Profile* prof = answers.front().env.profile;
      if (!prof || !prof->limit || !prof->limit->env) continue;
      const std::string var = *prof->limit->env;
      std::vector<checks::SweepPoint> points;
      std::vector<std::size_t> ids;
      for (const auto& a : answers) {
        if (a.env.profile != prof || !a.env.limit) continue;
        bool dup = false;
        for (const auto& p : points) dup = dup || p.limit == *a.env.limit;
        if (dup) continue;
        points.push_back(checks::SweepPoint{*a.env.limit, a.line->env.count(var) == 0, a.env});
        ids.push_back(a.answer.value_or(SIZE_MAX));
      }
      if (points.size() < 2) continue;
      take(tool_of(answers.front().env.request), judge->sweep(points, ids));
    }
    for (const auto& [tool, calls] : listed) {
      take(tool, checks::check_omissions(calls, gen::budget_parameter));
      take(tool, checks::check_resumes(calls, gen::budget_parameter));
      // Generic TR-PREFIX / TR-MAXIMAL: the schema (when a tools/list names the tool) gives the
      // limit's declared default.
      static const json kNoSchema = json::object();
      const json* schema = &kNoSchema;
      for (const auto& t : tools)
        if (t.is_object() && t.value("name", "") == tool && t.contains("inputSchema") && t["inputSchema"].is_object()) {
          schema = &t["inputSchema"];
          break;
        }
      take(tool, checks::check_caps(calls, *schema, gen::budget_parameter));
    }
    for (auto& [tool, out] : judge->finish()) take(tool, std::move(out));
    unprofiled = settle_rows(rep, *judge, forced != nullptr, !judging->profiles.candidates.empty(), false);
    coverage = judge->coverage();
    for (const auto& tool : judge->sampled()) rep.notes.push_back(checks::sampled_note(tool));
  }

  if (unanswered > 0)
    rep.notes.push_back(std::to_string(unanswered) + " transcript line(s) had no response object and were skipped");
  if (unprofiled) rep.notes.push_back(std::move(*unprofiled));
  group_server_level(rep);
  sink.publish();
  for (auto& n : publish_coverage(rep, coverage, "no recorded call reached anything it has"))
    rep.notes.push_back(std::move(n));
  rep.root = o.root;
  settle_verdict(rep);
  return rep;
}

Result<Recorder> Recorder::open(const std::string& path, std::shared_ptr<const core::Redactor> redactor) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return make_error("io", "cannot write --record file '" + path + "'");
  Recorder r;
  r.path_ = path;
  if (redactor && !redactor->empty()) r.redactor_ = std::move(redactor);
  return r;
}

void Recorder::record(const json& request, const json& response, const std::map<std::string, std::string>& env) {
  if (!error_.empty()) return;
  std::ofstream f(path_, std::ios::binary | std::ios::app);
  json line = {{"request", request}, {"response", response}};
  if (!env.empty()) line["env"] = env;
  if (!server_.is_null()) {
    line["server"] = std::move(server_);
    server_ = nullptr;
  }
  std::string text;
  if (redactor_) {
    // Secrets the server echoed (or harvested values that carry them) are scrubbed string by
    // string, so every escaped form in the dump is covered; the dumped line is checked again.
    redactor_->scrub_json(line);
    text = line.dump(-1, ' ', false, json::error_handler_t::replace);
    redactor_->scrub_in_place(text);
  } else {
    text = line.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  errno = 0;
  f << text << "\n";
  f.flush();
  if (!f) error_ = "cannot write --record file '" + path_ + "'" + (errno ? std::string(": ") + std::strerror(errno) : "");
}

}  // namespace ctxo::engine
