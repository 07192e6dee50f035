// SPDX-License-Identifier: MIT
#include "cli/scrub.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "core/text.h"

namespace ctxo::cli {

namespace {

void s(const core::Redactor& r, std::string& text) { r.scrub_in_place(text); }

void s(const core::Redactor& r, std::vector<std::string>& list) {
  for (auto& text : list) r.scrub_in_place(text);
}

void s(const core::Redactor& r, nlohmann::json& value) { r.scrub_json(value); }

// Keys and values of a map of strings (keys made equal keep the first value).
template <typename V>
void scrub_keys(const core::Redactor& r, std::map<std::string, V>& m) {
  bool any = false;
  for (const auto& [k, v] : m) any = any || r.contains(k);
  if (!any) return;
  std::map<std::string, V> out;
  for (auto& [k, v] : m) out.emplace(r.scrub(k), std::move(v));
  m = std::move(out);
}

void scrub_env(const core::Redactor& r, std::map<std::string, std::string>& env) {
  for (auto& [k, v] : env) r.scrub_in_place(v);
  scrub_keys(r, env);
}

// `env NAME=<redacted>` (or `'NAME=<redacted>'`) in a replay line becomes `NAME="$NAME"`: the
// value comes from the user's environment when the line is run, instead of a shell redirection.
void env_references(const core::Redactor& r, std::string& replay, const std::map<std::string, std::string>& env) {
  for (const auto& [k, v] : env) {
    if (v != r.marker() || k.empty() || r.contains(k)) continue;
    bool plain = true;
    for (char c : k) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!plain) continue;
    const std::string ref = " " + k + "=\"$" + k + "\"";
    for (const std::string& form : {" " + shell_quote(k + "=" + v), " " + k + "=" + v}) {
      std::size_t at = replay.find(form);
      while (at != std::string::npos) {
        const std::size_t end = at + form.size();
        if (end < replay.size() && replay[end] != ' ' && replay[end] != ')') {
          at = replay.find(form, at + 1);
          continue;
        }
        replay.replace(at, form.size(), ref);
        at = replay.find(form, at + ref.size());
      }
    }
  }
}

// `url` as one double-quoted shell word in which each credential it carries (core::url_secrets,
// the parts the redactor took) is `${CTXO_URL_...}`: the line runs with the variables exported.
std::string url_with_references(std::string_view url) {
  std::string out = "\"";
  auto literal = [&](std::string_view text) {
    for (char c : text) {
      if (c == '!') {  // history expansion in an interactive shell: outside the double quotes
        out += "\"'!'\"";
        continue;
      }
      if (c == '\\' || c == '"' || c == '$' || c == '`') out += '\\';
      out += c;
    }
  };
  std::size_t at = 0;
  for (const auto& part : core::url_secrets(url)) {
    const std::string_view raw = url.substr(part.begin, part.end - part.begin);
    const bool query = part.kind == core::UrlSecret::Kind::kQuery;
    if (!core::can_be_secret(raw) && !core::can_be_secret(core::percent_decode(raw, query))) continue;
    literal(url.substr(at, part.begin - at));
    out += "${" + part.variable + "}";
    at = part.end;
  }
  literal(url.substr(at));
  return out + "\"";
}

// The server's URL in a replay line (curl's argument, shell-quoted, scrubbed) becomes the URL
// with variables for its credentials instead of markers.
void url_references(const core::Redactor& r, std::string& replay) {
  for (const auto& url : r.urls()) {
    const std::string scrubbed = r.scrub(shell_quote(url));
    const std::string ref = r.scrub(url_with_references(url));
    for (auto at = replay.find(scrubbed); at != std::string::npos; at = replay.find(scrubbed, at + ref.size()))
      replay.replace(at, scrubbed.size(), ref);
  }
}

}  // namespace

void scrub_finding(Finding& f, const core::Redactor& r) {
  s(r, f.tool);
  s(r, f.request);
  s(r, f.response_excerpt);
  s(r, f.diagnosis);
  s(r, f.replay);
  s(r, f.file);
  scrub_env(r, f.env);
  env_references(r, f.replay, f.env);
  url_references(r, f.replay);
  s(r, f.phase);
  s(r, f.case_label);
  s(r, f.original_request);
  s(r, f.sequence);
}

void scrub_tool(engine::ToolSummary& t, const core::Redactor& r) {
  s(r, t.name);
  s(r, t.skipped);
  for (auto& [id, why] : t.not_observed) s(r, why);
  s(r, t.profile);
  s(r, t.profile_reason);
  if (t.largest) {
    s(r, t.largest->request);
    for (auto& h : t.largest->headroom) {
      s(r, h.host);
      s(r, h.limit);
      s(r, h.unit);
    }
  }
}

void scrub_report(engine::RunReport& report, const core::Redactor& r) {
  if (r.empty()) return;
  if (report.error) {
    s(r, report.error->code);
    s(r, report.error->message);
  }
  s(r, report.command);
  s(r, report.url);
  s(r, report.header_names);
  scrub_env(r, report.env);
  s(r, report.cwd);
  s(r, report.server_name);
  s(r, report.server_version);
  s(r, report.protocol_version);
  s(r, report.era);
  s(r, report.profile);
  for (auto& t : report.tools) scrub_tool(t, r);
  for (auto& rf : report.findings) {
    scrub_finding(rf.finding, r);
    s(r, rf.case_file);
    for (auto& e : rf.examples) s(r, e);
    s(r, rf.tools);
    std::sort(rf.tools.begin(), rf.tools.end());  // looked up by binary search
  }
  s(r, report.notes);
  for (auto& b : report.baseline_stale) s(r, b.tool);
  if (report.root) s(r, *report.root);
  scrub_keys(r, report.profiles_detected);
  s(r, report.stderr_tail);
  s(r, report.started_at);
}

void ScrubbingListener::on_started(const engine::RunReport& report) {
  if (r_.empty()) return inner_.on_started(report);
  engine::RunReport copy = report;
  scrub_report(copy, r_);
  inner_.on_started(copy);
}

void ScrubbingListener::on_tools(const std::vector<engine::ToolSummary>& tools) {
  if (r_.empty()) return inner_.on_tools(tools);
  std::vector<engine::ToolSummary> copy = tools;
  for (auto& t : copy) scrub_tool(t, r_);
  inner_.on_tools(copy);
}

void ScrubbingListener::on_tool(const engine::ToolSummary& tool, std::size_t index, std::size_t total) {
  if (r_.empty()) return inner_.on_tool(tool, index, total);
  engine::ToolSummary copy = tool;
  scrub_tool(copy, r_);
  inner_.on_tool(copy, index, total);
}

void ScrubbingListener::on_call(const engine::ToolSummary& tool, std::size_t calls_total) {
  if (r_.empty()) return inner_.on_call(tool, calls_total);
  engine::ToolSummary copy = tool;
  scrub_tool(copy, r_);
  inner_.on_call(copy, calls_total);
}

void ScrubbingListener::on_finding(const Finding& finding) {
  if (r_.empty()) return inner_.on_finding(finding);
  Finding copy = finding;
  scrub_finding(copy, r_);
  inner_.on_finding(copy);
}

void ScrubbingListener::on_note(const std::string& note) {
  if (r_.empty()) return inner_.on_note(note);
  inner_.on_note(r_.scrub(note));
}

ScrubbingBuf::int_type ScrubbingBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  pending_ += ch;
  if (ch == '\n') {
    out_ << r_.scrub(pending_);
    pending_.clear();
  }
  return c;
}

std::streamsize ScrubbingBuf::xsputn(const char* text, std::streamsize n) {
  pending_.append(text, static_cast<std::size_t>(n));
  const auto nl = pending_.rfind('\n');
  if (nl != std::string::npos) {
    out_ << r_.scrub(std::string_view(pending_).substr(0, nl + 1));
    pending_.erase(0, nl + 1);
  }
  return n;
}

int ScrubbingBuf::sync() {
  if (!pending_.empty()) {
    out_ << r_.scrub(pending_);
    pending_.clear();
  }
  out_.flush();
  return out_ ? 0 : -1;
}

std::vector<std::string> resolve_redacted_url(std::string& url) {
  std::vector<std::string> missing;
  auto parts = core::url_secrets(url);
  // From the last part back, so the offsets of those before stay right.
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (std::string_view(url).substr(it->begin, it->end - it->begin) != core::kRedacted) continue;
    if (const char* given = std::getenv(it->variable.c_str())) url.replace(it->begin, it->end - it->begin, given);
    else missing.insert(missing.begin(), it->variable);
  }
  return missing;
}

std::vector<std::string> resolve_redacted_env(std::map<std::string, std::string>& env) {
  std::vector<std::string> missing;
  for (auto& [k, v] : env) {
    if (v.find(core::kRedacted) == std::string::npos) continue;
    if (const char* given = std::getenv(k.c_str())) v = given;
    else missing.push_back(k);
  }
  return missing;
}

}  // namespace ctxo::cli
