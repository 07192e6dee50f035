// SPDX-License-Identifier: MIT
#include "reports/json_report.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "checks/registry.h"
#include "core/interrupt.h"
#include "core/text.h"
#include "profile/profile.h"
#include "profile/schema_validator.h"
#include "reports/html.h"
#include "reports/matrix.h"

namespace ctxo::reports {

using nlohmann::json;

namespace {

json statuses_json(const std::map<std::string, checks::Status>& statuses) {
  json out = json::object();
  for (const auto& [id, st] : statuses) out[id] = checks::to_string(st);
  return out;
}

std::map<std::string, checks::Status> statuses_from(const json& obj) {
  std::map<std::string, checks::Status> out;
  if (obj.is_object())
    for (const auto& [id, st] : obj.items()) out[id] = checks::status_from_string(st.get<std::string>());
  return out;
}

}  // namespace

json changes_json(const engine::FileChanges& c) {
  return {{"created", c.created}, {"changed", c.changed}, {"deleted", c.deleted},
          {"counts", {{"created", c.created_count}, {"changed", c.changed_count}, {"deleted", c.deleted_count}}}};
}

engine::FileChanges changes_from(const json& j) {
  engine::FileChanges c;
  if (!j.is_object()) return c;
  auto list = [&](const char* k, std::vector<std::string>& out) {
    if (j.contains(k) && j[k].is_array())
      for (const auto& e : j[k])
        if (e.is_string()) out.push_back(e.get<std::string>());
  };
  list("created", c.created);
  list("changed", c.changed);
  list("deleted", c.deleted);
  const json counts = j.value("counts", json::object());
  if (counts.is_object()) {
    c.created_count = counts.value("created", c.created.size());
    c.changed_count = counts.value("changed", c.changed.size());
    c.deleted_count = counts.value("deleted", c.deleted.size());
  }
  return c;
}

json to_json(const engine::RunReport& r, const std::string& version) {
  json server = {{"command", r.command}, {"name", r.server_name}, {"version", r.server_version},
                 {"protocol", r.protocol_version}, {"era", r.era}, {"cwd", r.cwd}, {"env", r.env}};
  if (!r.url.empty()) {
    server["url"] = r.url;
    server["headers"] = r.header_names;  // names only: values are credentials
  }
  json tools = json::array();
  for (const auto& t : r.tools) {
    json jt = {{"name", t.name}, {"read_only", t.read_only}, {"selected", t.selected}, {"calls", t.calls},
               {"findings", t.findings}, {"elapsed_ms", t.elapsed.count()}};
    if (!t.skipped.empty()) jt["skipped"] = t.skipped;
    if (!t.skipped_for_safety.empty()) jt["skipped_for_safety"] = t.skipped_for_safety;
    jt["changes"] = changes_json(t.changes);
    jt["invariants"] = t.invariants;
    jt["outcomes"] = statuses_json(t.outcomes);
    jt["not_observed"] = t.not_observed;
    jt["profile"] = t.profile;
    jt["profile_reason"] = t.profile_reason;
    jt["successes"] = t.successes;
    const checks::Coverage& c = t.coverage;
    jt["coverage"] = {{"calls", c.calls},         {"data", c.data},         {"empty", c.empty},
                      {"misses", c.misses},       {"errors", c.errors},     {"refusals", c.refusals},
                      {"no_answer", c.no_answer}, {"leaks", c.leaks},           {"self_made", c.self_made},
                      {"largest_bytes", c.largest_bytes},
                      {"truncated", c.truncated}};
    jt["second_pass_calls"] = t.second_pass_calls;
    jt["driven_calls"] = t.driven_calls;
    if (t.largest) {
      const checks::LargestAnswer& b = *t.largest;
      json hosts = json::array();
      for (const auto& h : b.headroom)
        hosts.push_back({{"host", h.host}, {"limit", h.limit}, {"unit", h.unit}, {"size", h.size}, {"max", h.max}});
      jt["largest_answer"] = {{"bytes", b.bytes},       {"chars", b.chars},     {"tokens", b.tokens},
                              {"is_error", b.is_error}, {"request", b.request}, {"hosts", hosts}};
    }
    tools.push_back(std::move(jt));
  }
  json findings = json::array();
  for (const auto& rf : r.findings) {
    const auto& f = rf.finding;
    findings.push_back({{"invariant", f.invariant},
                        {"tool", f.tool},
                        {"severity", to_string(f.severity)},
                        {"request", f.request},
                        {"response_excerpt", f.response_excerpt},
                        {"diagnosis", f.diagnosis},
                        {"replay", f.replay},
                        {"count", rf.count},
                        {"baselined", rf.baselined},
                        {"cause", {{"id", engine::cause_id(f)}, {"facts", engine::cause_of(f)}}},
                        {"tools", rf.tools}});
    json& jf = findings.back();
    if (!f.phase.empty()) jf["phase"] = f.phase;
    if (!f.case_label.empty()) jf["case_label"] = f.case_label;
    if (!f.profile.empty()) jf["profile"] = f.profile;
    if (!f.original_request.is_null()) {
      jf["original_request"] = f.original_request;
      jf["shrink_steps"] = f.shrink_steps;
    }
    if (!f.env.empty()) jf["env"] = f.env;
    if (f.batch.is_array() && !f.batch.empty()) jf["batch"] = f.batch;
    if (!rf.case_file.empty()) jf["case_file"] = rf.case_file;
    if (!rf.examples.empty()) jf["examples"] = rf.examples;
    if (!f.file.empty()) {
      json loc = {{"file", f.file}};
      if (f.line > 0) loc["line"] = f.line;
      if (f.column > 0) loc["column"] = f.column;
      findings.back()["location"] = loc;
    }
  }
  json stale = json::array();
  for (const auto& b : r.baseline_stale) {
    stale.push_back({{"invariant", b.invariant}, {"tool", b.tool}});
    if (!b.cause.empty()) stale.back()["cause"] = b.cause;
  }
  json out = {{"tool", "ctxo-conform"},
              {"version", version},
              {"seed", r.seed},
              {"started_at", r.started_at},
              {"duration_ms", r.duration.count()},
              {"server", server},
              {"profile", r.profile},
              {"verdict", engine::to_string(r.verdict)},
              {"exit_code", r.exit_code},
              {"stats",
               {{"tools", r.tools.size()},
                {"tools_called", std::count_if(r.tools.begin(), r.tools.end(),
                                               [](const engine::ToolSummary& t) { return t.calls > 0; })},
                {"calls", r.calls},
                {"successes", r.successes},
                {"findings", r.findings.size()},
                {"errors", r.error_count()},
                {"warnings", r.warning_count()},
                {"baselined", r.baselined_count()},
                {"restarts", r.restarts},
                {"shrink_calls", r.shrink_calls},
                {"harvested", r.harvested},
                {"sweep_runs", r.sweep_runs},
                {"notifications", r.notifications},
                {"server_requests", r.server_requests}}},
              {"invariants_checked", r.invariants_checked},
              {"server_invariants", r.server_invariants},
              {"server_outcomes", statuses_json(r.server_outcomes)},
              {"profiles_detected", r.profiles_detected},
              {"unprofiled_results", r.unprofiled_results},
              {"generic_readings", r.generic_readings},
              {"notes", r.notes},
              {"stderr_tail", excerpt(r.stderr_tail.size() > 4000 ? r.stderr_tail.substr(r.stderr_tail.size() - 4000)
                                                                   : r.stderr_tail,
                                      4000)}};
  // Moved in, not listed above: an initializer list copies, and a report of 50,000 tools is a tree
  // of hundreds of megabytes.
  out["tools"] = std::move(tools);
  out["findings"] = std::move(findings);
  out["baseline_stale"] = std::move(stale);
  if (r.error) out["error"] = {{"code", r.error->code}, {"message", r.error->message}};
  if (r.root) out["root"] = *r.root;
  // Where the server ran: in a sandbox (what it is), or why not.
  out["sandbox"] = {{"used", !r.sandbox.empty()}, {"description", r.sandbox}, {"why_not", r.no_sandbox},
                    {"other_changes", changes_json(r.other_changes)}};
  if (r.workspace)
    out["workspace"] = {{"dir", r.workspace->dir},           {"files", r.workspace->files},
                        {"directories", r.workspace->directories}, {"identifiers", r.workspace->identifiers},
                        {"declared", r.workspace->declared}, {"positions", r.workspace->positions},
                        {"snippets", r.workspace->snippets}, {"source", r.workspace->source}};
  if (r.interrupted > 0) {
    out["interrupted"] = true;
    out["interrupted_by"] = core::interrupt_name(r.interrupted);
    if (!r.phase.empty()) out["interrupted_during"] = r.phase;
  }
  return out;
}

namespace {

// Reads `key` of `obj` into `out` when present with the right type; the schema validated types.
template <typename T>
void read(const json& obj, const char* key, T& out) {
  if (obj.is_object() && obj.contains(key) && !obj[key].is_null()) out = obj[key].get<T>();
}

}  // namespace

Result<engine::RunReport> from_json(const json& doc) {
  static const Result<profile::SchemaValidator> schema = profile::compile_bundled_schema("report.schema.json");
  if (!schema.ok()) return make_error("config", "cannot load the report schema: " + schema.error().message);
  if (auto problems = schema->validate(doc); !problems.empty())
    return make_error("parse", "not a ctxo-conform JSON report: " + problems.front());
  try {
    engine::RunReport r;
    std::string verdict;
    read(doc, "verdict", verdict);
    auto v = engine::parse_verdict(verdict);
    if (!v) return make_error("parse", "not a ctxo-conform JSON report: unknown verdict '" + verdict + "'");
    r.verdict = *v;
    read(doc, "exit_code", r.exit_code);
    read(doc, "seed", r.seed);
    if (doc.contains("sandbox") && doc["sandbox"].is_object()) {
      const json& sb = doc["sandbox"];
      r.sandbox = sb.value("description", std::string());
      r.no_sandbox = sb.value("why_not", std::string());
      if (sb.contains("other_changes")) r.other_changes = changes_from(sb["other_changes"]);
    }
    read(doc, "started_at", r.started_at);
    std::int64_t ms = 0;
    read(doc, "duration_ms", ms);
    r.duration = std::chrono::milliseconds(ms);
    read(doc, "profile", r.profile);
    if (doc.contains("root")) r.root = doc["root"].get<std::string>();
    if (doc.contains("workspace")) {
      const json& w = doc["workspace"];
      engine::WorkspaceSummary ws;
      read(w, "dir", ws.dir);
      read(w, "files", ws.files);
      read(w, "directories", ws.directories);
      read(w, "identifiers", ws.identifiers);
      read(w, "declared", ws.declared);
      read(w, "positions", ws.positions);
      read(w, "snippets", ws.snippets);
      read(w, "source", ws.source);
      r.workspace = std::move(ws);
    }
    const json& server = doc["server"];
    read(server, "command", r.command);
    read(server, "url", r.url);
    read(server, "headers", r.header_names);
    read(server, "name", r.server_name);
    read(server, "version", r.server_version);
    read(server, "protocol", r.protocol_version);
    read(server, "era", r.era);
    read(server, "cwd", r.cwd);
    read(server, "env", r.env);
    const json& st = doc["stats"];
    read(st, "calls", r.calls);
    read(st, "successes", r.successes);
    read(st, "restarts", r.restarts);
    read(st, "sweep_runs", r.sweep_runs);
    read(st, "notifications", r.notifications);
    read(st, "server_requests", r.server_requests);
    read(st, "shrink_calls", r.shrink_calls);
    read(st, "harvested", r.harvested);
    read(doc, "invariants_checked", r.invariants_checked);
    read(doc, "server_invariants", r.server_invariants);
    if (doc.contains("server_outcomes")) r.server_outcomes = statuses_from(doc["server_outcomes"]);
    read(doc, "profiles_detected", r.profiles_detected);
    read(doc, "unprofiled_results", r.unprofiled_results);
    read(doc, "generic_readings", r.generic_readings);
    read(doc, "notes", r.notes);
    read(doc, "stderr_tail", r.stderr_tail);
    if (doc.value("interrupted", false)) {
      r.interrupted = core::interrupt_number(doc.value("interrupted_by", std::string()));
      r.phase = doc.value("interrupted_during", std::string());
    }
    if (doc.contains("error"))
      r.error = Error{doc["error"]["code"].get<std::string>(), doc["error"]["message"].get<std::string>()};
    if (doc.contains("tools")) {
      for (const auto& jt : doc["tools"]) {
        engine::ToolSummary t;
        read(jt, "name", t.name);
        read(jt, "read_only", t.read_only);
        read(jt, "selected", t.selected);
        read(jt, "calls", t.calls);
        read(jt, "findings", t.findings);
        std::int64_t el = 0;
        read(jt, "elapsed_ms", el);
        t.elapsed = std::chrono::milliseconds(el);
        read(jt, "skipped", t.skipped);
        read(jt, "skipped_for_safety", t.skipped_for_safety);
        if (jt.contains("changes")) t.changes = changes_from(jt["changes"]);
        read(jt, "invariants", t.invariants);
        if (jt.contains("outcomes")) t.outcomes = statuses_from(jt["outcomes"]);
        read(jt, "not_observed", t.not_observed);
        read(jt, "profile", t.profile);
        read(jt, "profile_reason", t.profile_reason);
        read(jt, "successes", t.successes);
        if (jt.contains("coverage") && jt["coverage"].is_object()) {
          const json& jc = jt["coverage"];
          checks::Coverage& c = t.coverage;
          read(jc, "calls", c.calls);
          read(jc, "data", c.data);
          read(jc, "empty", c.empty);
          read(jc, "misses", c.misses);
          read(jc, "errors", c.errors);
          read(jc, "refusals", c.refusals);
          read(jc, "no_answer", c.no_answer);
          read(jc, "leaks", c.leaks);
          read(jc, "self_made", c.self_made);
          read(jc, "largest_bytes", c.largest_bytes);
          read(jc, "truncated", c.truncated);
        }
        read(jt, "second_pass_calls", t.second_pass_calls);
        read(jt, "driven_calls", t.driven_calls);
        if (jt.contains("largest_answer") && jt["largest_answer"].is_object()) {
          const json& jl = jt["largest_answer"];
          checks::LargestAnswer b;
          read(jl, "bytes", b.bytes);
          read(jl, "chars", b.chars);
          read(jl, "tokens", b.tokens);
          read(jl, "is_error", b.is_error);
          if (jl.contains("request")) b.request = jl["request"];
          if (jl.contains("hosts") && jl["hosts"].is_array())
            for (const auto& jh : jl["hosts"]) {
              checks::Headroom h;
              read(jh, "host", h.host);
              read(jh, "limit", h.limit);
              read(jh, "unit", h.unit);
              read(jh, "size", h.size);
              read(jh, "max", h.max);
              b.headroom.push_back(std::move(h));
            }
          t.largest = std::move(b);
        }
        r.tools.push_back(std::move(t));
      }
    }
    for (const auto& jf : doc["findings"]) {
      engine::ReportedFinding rf;
      auto& f = rf.finding;
      read(jf, "invariant", f.invariant);
      read(jf, "tool", f.tool);
      f.severity = jf.value("severity", "error") == "warning" ? Severity::kWarning : Severity::kError;
      f.request = jf.value("request", json());
      read(jf, "response_excerpt", f.response_excerpt);
      read(jf, "diagnosis", f.diagnosis);
      read(jf, "replay", f.replay);
      read(jf, "count", rf.count);
      read(jf, "baselined", rf.baselined);
      // The facts give the same cause back; the text fact is what cause_of derives anyway.
      if (jf.contains("cause") && jf["cause"].is_object() && jf["cause"].contains("facts") &&
          jf["cause"]["facts"].is_object())
        for (const auto& [fact, value] : jf["cause"]["facts"].items())
          if (value.is_string() && fact != "text" && fact != "profile") f.cause[fact] = value.get<std::string>();
      if (jf.contains("tools") && jf["tools"].is_array())
        for (const auto& t : jf["tools"])
          if (t.is_string()) rf.tools.push_back(t.get<std::string>());
      std::sort(rf.tools.begin(), rf.tools.end());
      read(jf, "phase", f.phase);
      read(jf, "case_label", f.case_label);
      read(jf, "profile", f.profile);
      f.original_request = jf.value("original_request", json());
      read(jf, "shrink_steps", f.shrink_steps);
      read(jf, "env", f.env);
      f.batch = jf.value("batch", json());
      read(jf, "case_file", rf.case_file);
      if (jf.contains("examples"))
        for (const auto& e : jf["examples"]) rf.examples.push_back(e);
      if (jf.contains("location")) {
        read(jf["location"], "file", f.file);
        read(jf["location"], "line", f.line);
        read(jf["location"], "column", f.column);
      }
      r.findings.push_back(std::move(rf));
    }
    if (doc.contains("baseline_stale"))
      for (const auto& b : doc["baseline_stale"])
        r.baseline_stale.push_back({b.value("invariant", ""), b.value("tool", ""), b.value("cause", "")});
    return r;
  } catch (const json::exception& e) {
    return make_error("parse", std::string("not a ctxo-conform JSON report: ") + e.what());
  }
}

Result<void> write_text(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return {};
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return make_error("io", "cannot write report '" + path + "': " + std::strerror(errno));
  f << text;
  f.close();
  if (!f) return make_error("io", "cannot write report '" + path + "': " + std::strerror(errno));
  return {};
}

namespace {

struct Colors {
  const char *red, *yellow, *green, *bold, *dim, *reset;
};

Colors colors(bool on) {
  if (!on) return {"", "", "", "", "", ""};
  return {"\x1b[31m", "\x1b[33m", "\x1b[32m", "\x1b[1m", "\x1b[2m", "\x1b[0m"};
}

}  // namespace

namespace {
// Text a server chose (tool names, diagnoses quoting answers, notes naming tools, excerpts), made
// harmless for a terminal or a CI log that renders escape sequences: controls become visible.
std::string safe(std::string_view s) { return display_text(s, false); }
}  // namespace

void print_summary(std::ostream& out, const engine::RunReport& r, const ConsoleStyle& style) {
  Colors c = colors(style.color);
  if (style.verbosity >= 1) {
    for (const auto& rf : r.findings) {
      const auto& f = rf.finding;
      const char* col = f.severity == Severity::kError ? c.red : c.yellow;
      if (rf.baselined) col = c.dim;
      out << "\n" << col << c.bold << f.invariant << c.reset << " " << col << to_string(f.severity) << c.reset;
      if (rf.baselined) out << c.dim << " (accepted by the baseline)" << c.reset;
      if (!f.tool.empty()) out << "  tool " << c.bold << safe(f.tool) << c.reset;
      if (auto on = engine::tools_phrase(rf); !on.empty()) out << "  " << safe(on);
      if (rf.count > 1) out << c.dim << "  (" << rf.count << " times)" << c.reset;
      out << "\n  " << safe(f.diagnosis) << "\n";
      if (!f.request.is_null()) out << c.dim << "  request:  " << c.reset << safe(excerpt(f.request.dump(), 300)) << "\n";
      if (!f.original_request.is_null())
        out << c.dim << "  shrunk from (" << f.shrink_steps << " step" << (f.shrink_steps == 1 ? "" : "s") << "): " << c.reset
            << safe(excerpt(f.original_request.dump(), 300)) << "\n";
      if (!f.response_excerpt.empty())
        out << c.dim << "  response: " << c.reset << safe(excerpt(f.response_excerpt, 300)) << "\n";
      if (style.verbosity >= 2 && !f.replay.empty()) out << c.dim << "  replay:   " << c.reset << safe(f.replay) << "\n";
      if (!rf.case_file.empty()) out << c.dim << "  case:     " << c.reset << "ctxo-conform replay " << rf.case_file << "\n";
    }
    if (!r.findings.empty()) out << "\n";
  }
  std::size_t errors = r.error_count(), warnings = r.warning_count();
  double secs = static_cast<double>(r.duration.count()) / 1000.0;
  char timebuf[32];
  std::snprintf(timebuf, sizeof timebuf, "%.1fs", secs);
  if (r.verdict == engine::Verdict::kError) {
    out << c.red << c.bold << "ERROR" << c.reset << ": the run could not complete";
  } else if (r.verdict == engine::Verdict::kFail) {
    out << c.red << c.bold << "FAIL" << c.reset;
  } else if (r.verdict == engine::Verdict::kUntested) {
    out << c.yellow << c.bold << "UNTESTED" << c.reset << ": no call reached the server's tools";
  } else if (r.verdict == engine::Verdict::kInterrupted) {
    out << c.yellow << c.bold << "INTERRUPTED" << c.reset << ": no verdict";
  } else if (r.verdict == engine::Verdict::kPartial) {
    out << c.yellow << c.bold << "PARTIAL" << c.reset << ": " << r.reached_count() << " of " << r.selected_count()
        << " tools reached data";
    const auto unsafe = std::count_if(r.tools.begin(), r.tools.end(),
                                      [](const engine::ToolSummary& t) { return !t.skipped_for_safety.empty(); });
    if (unsafe > 0) out << ", " << unsafe << " not called for safety";
  } else {
    out << c.green << c.bold << "PASS" << c.reset;
  }
  out << "  " << errors << " error" << (errors == 1 ? "" : "s") << ", " << warnings << " warning"
      << (warnings == 1 ? "" : "s") << " in " << r.calls << " call" << (r.calls == 1 ? "" : "s") << " to "
      << std::count_if(r.tools.begin(), r.tools.end(), [](const engine::ToolSummary& t) { return t.calls > 0; })
      << " tool(s), " << timebuf << "; seed " << r.seed;
  if (r.restarts) out << "; " << r.restarts << " restart" << (r.restarts == 1 ? "" : "s");
  if (auto accepted = r.baselined_count()) out << "; " << accepted << " accepted by the baseline";
  out << "\n";
  if (r.verdict == engine::Verdict::kUntested && style.verbosity >= 1) out << "  " << untested_reason(r) << "; exit code 4\n";
  if (r.verdict == engine::Verdict::kPartial && style.verbosity >= 1) out << "  " << partial_reason(r) << "\n";
  if (r.interrupted) out << "  " << interrupted_reason(r) << "\n";
  if (style.verbosity >= 1) {
    // What the calls reached: one line, and with -v one line per tool.
    const CoverageRows called = coverage_rows(r);
    std::string none;
    for (const auto* t : called.tools)
      if (t->coverage.data == 0) none += (none.empty() ? "" : ", ") + safe(t->name) + " (0/" + std::to_string(t->coverage.calls) + ")";
    if (!called.tools.empty()) {
      const std::size_t n = called.tools.size(), reached = n - called.without_data;
      out << c.dim << "data reached:" << c.reset << " by " << (reached == n ? "all " : std::to_string(reached) + " of ") << n
          << " called tool" << (n == 1 ? "" : "s");
      if (!none.empty()) out << "; none by " << c.yellow << none << c.reset << " (their success answers were never checked)";
      out << "\n";
    }
    // The tool closest to a host's limit (-v: every tool's largest answer).
    const engine::ToolSummary* tightest = nullptr;
    for (const auto* t : called.tools)
      if (headroom_percent(*t) >= 0 && (!tightest || headroom_percent(*t) > headroom_percent(*tightest))) tightest = t;
    if (tightest && style.verbosity == 1)
      out << c.dim << "host headroom:" << c.reset << " largest answer " << safe(tightest->name) << ": "
          << safe(headroom_text(*tightest)) << "\n";
    if (style.verbosity >= 2)
      for (const auto* t : called.tools)
        if (t->largest) out << c.dim << "host headroom:" << c.reset << " " << safe(t->name) << ": " << safe(headroom_text(*t)) << "\n";
    if (style.verbosity >= 2)
      for (const auto* t : called.tools) {
        const checks::Coverage& cv = t->coverage;
        out << "  " << safe(t->name) << ": " << cv.summary() << "; largest answer " << cv.largest_bytes << " B; "
            << cv.truncated << " truncated";
        if (t->second_pass_calls) out << "; " << t->second_pass_calls << " in the second pass";
        if (t->driven_calls) out << "; " << t->driven_calls << " with a limit driven small";
        out << "\n";
      }
  }
  if (style.verbosity >= 1) {
    // Rules that apply but that no answer exercised: neither passed nor failed.
    const auto tools = tools_by_name(r);
    bool any = false;
    for (const auto* t : tools)
      for (const auto& g : group_not_observed(*t)) {
        if (!any) out << c.dim << "not observed (the rule applies, but no answer exercised it):" << c.reset << "\n";
        any = true;
        out << "  " << safe(t->name) << ": ";
        for (std::size_t i = 0; i < g.ids.size(); ++i) out << (i ? ", " : "") << g.ids[i];
        out << " not observed (" << safe(g.reason) << ")\n";
      }
    if (mixed_profiles(r) || style.verbosity >= 2) {
      bool header = false;
      for (const auto* t : tools) {
        if (t->calls == 0) continue;
        if (!header) out << c.dim << "judged by profile:" << c.reset << "\n";
        header = true;
        out << "  " << safe(t->name) << ": " << (t->profile.empty() ? "none" : safe(t->profile));
        if (!t->profile_reason.empty()) out << c.dim << " (" << safe(t->profile_reason) << ")" << c.reset;
        out << "\n";
      }
    }
  }
  for (const auto& b : r.baseline_stale)
    out << c.yellow << "baseline" << c.reset << ": " << b.invariant << (b.tool.empty() ? " (server)" : " in " + safe(b.tool))
        << " no longer fails; remove it from the baseline\n";
  if (style.verbosity >= 1 && !r.profiles_detected.empty()) {
    out << c.dim << "envelopes checked:";
    for (const auto& [name, count] : r.profiles_detected) out << " " << name << " (" << count << ")";
    if (r.sweep_runs) out << "; limit sweep: " << r.sweep_runs << " extra server run" << (r.sweep_runs == 1 ? "" : "s");
    out << c.reset << "\n";
  }
}

void ConsoleListener::clear_line() {
  if (line_open_) {
    out_ << "\r\x1b[2K";
    line_open_ = false;
  }
}

void ConsoleListener::on_started(const engine::RunReport& r) {
  if (style_.verbosity < 1) return;
  Colors c = colors(style_.color);
  out_ << c.bold << "ctxo-conform" << c.reset << "  seed " << r.seed << "\n";
  out_ << "server  " << c.bold << (r.server_name.empty() ? "(unnamed)" : safe(r.server_name)) << c.reset << " "
       << safe(r.server_version) << "  protocol " << r.protocol_version << " (" << r.era << ")\n";
  out_.flush();
}

void ConsoleListener::on_tools(const std::vector<engine::ToolSummary>& tools) {
  if (style_.verbosity < 1) return;
  std::size_t selected = 0;
  for (const auto& t : tools) selected += t.selected;
  out_ << "tools   " << tools.size() << " listed, " << selected << " selected\n";
  out_.flush();
}

void ConsoleListener::on_tool(const engine::ToolSummary& tool, std::size_t index, std::size_t total) {
  tool_ = tool.name;
  index_ = index;
  total_ = total;
  if (style_.verbosity >= 2) {
    clear_line();
    out_ << "  [" << index + 1 << "/" << total << "] " << safe(tool.name) << "\n";
  }
  on_call(tool, 0);
}

void ConsoleListener::on_call(const engine::ToolSummary& tool, std::size_t calls_total) {
  if (!style_.progress || style_.verbosity < 1) return;
  // Redraw at most ten times a second, but always when a tool starts (calls_total 0).
  const auto now = std::chrono::steady_clock::now();
  if (calls_total != 0 && line_open_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  Colors c = colors(style_.color);
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.1fs", std::chrono::duration<double>(now - started_).count());
  out_ << "\r\x1b[2K" << c.dim << "  " << index_ << "/" << total_ << " tools done, now " << safe(tool.name) << "  "
       << calls_total << " calls, " << findings_ << " finding" << (findings_ == 1 ? "" : "s") << ", " << elapsed
       << c.reset;
  out_.flush();
  line_open_ = true;
}

void ConsoleListener::on_finding(const Finding& f) {
  ++findings_;
  if (style_.verbosity >= 2) {
    clear_line();
    out_ << "  found " << f.invariant << (f.tool.empty() ? "" : " in " + safe(f.tool)) << "\n";
  }
}

void ConsoleListener::on_note(const std::string& note) {
  if (style_.verbosity < 1) return;
  clear_line();
  out_ << "note: " << safe(note) << "\n";
  out_.flush();
}

}  // namespace ctxo::reports
