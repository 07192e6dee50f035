// SPDX-License-Identifier: MIT
#include "engine/report.h"

#include "checks/generic.h"
#include "core/text.h"
#include "engine/sink.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>
#include <string_view>
#include <vector>

namespace ctxo::engine {

std::string generic_readings_text(const std::map<std::string, std::size_t>& readings) {
  std::string said;
  for (auto r : {checks::Reading::kJson, checks::Reading::kJsonMarkdown, checks::Reading::kFencedJson,
                 checks::Reading::kMarkdown, checks::Reading::kProse}) {
    auto it = readings.find(checks::to_string(r));
    if (it == readings.end() || it->second == 0) continue;
    said += (said.empty() ? "" : ", ") + std::string(checks::label(r)) + " " + std::to_string(it->second) +
            (said.empty() ? (it->second == 1 ? " answer" : " answers") : "");
  }
  return said;
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kPartial: return "partial";
    case Verdict::kFail: return "fail";
    case Verdict::kUntested: return "untested";
    case Verdict::kError: return "error";
    case Verdict::kInterrupted: return "interrupted";
  }
  return "pass";
}

const char* verdict_word(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "PASS";
    case Verdict::kPartial: return "PARTIAL";
    case Verdict::kFail: return "FAIL";
    case Verdict::kUntested: return "UNTESTED";
    case Verdict::kError: return "ERROR";
    case Verdict::kInterrupted: return "INTERRUPTED";
  }
  return "PASS";
}

std::optional<Verdict> parse_verdict(std::string_view word) {
  for (Verdict v : {Verdict::kPass, Verdict::kPartial, Verdict::kFail, Verdict::kUntested, Verdict::kError, Verdict::kInterrupted})
    if (word == to_string(v)) return v;
  return std::nullopt;
}

namespace {

// The string values of a request's arguments (and of the request it was shrunk from), as the
// server may quote them: raw and JSON-escaped. Short ones ("a", "id") are left alone: blanking
// them would blank words of the diagnosis itself.
std::vector<std::string> argument_strings(const Finding& f) {
  constexpr std::size_t kMinQuoted = 4, kMaxValues = 64;
  std::vector<std::string> out;
  std::function<void(const nlohmann::json&, int)> walk = [&](const nlohmann::json& v, int depth) {
    if (out.size() >= kMaxValues || depth > 8) return;
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (s.size() < kMinQuoted) return;
      out.push_back(s);
      std::string escaped = nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      escaped = escaped.substr(1, escaped.size() - 2);
      if (escaped != s) out.push_back(std::move(escaped));
    } else if (v.is_structured()) {
      for (const auto& x : v) walk(x, depth + 1);
    }
  };
  for (const nlohmann::json* r : {&f.request, &f.original_request})
    if (r->is_object())
      if (auto p = r->find("params"); p != r->end() && p->is_object())
        if (auto a = p->find("arguments"); a != p->end()) walk(*a, 0);
  // Longest first, so a value containing another is blanked whole.
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return out;
}

// How much of `value` starts at `at` in `text`: all of it, or a prefix of at least 12 bytes (an
// excerpt of a long generated string, cut by the diagnosis); else 0.
std::size_t quoted_at(std::string_view text, std::size_t at, std::string_view value) {
  constexpr std::size_t kMinPrefix = 12;
  std::size_t n = 0;
  while (n < value.size() && at + n < text.size() && text[at + n] == value[n]) ++n;
  return n == value.size() || n >= kMinPrefix ? n : 0;
}

}  // namespace

namespace {

bool alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

// Whether quoted text is the server's free text (it holds a space, or is longer than an
// identifier): a quoted field name or identifier ("truncated", `limit`) says which defect it is.
bool free_text(std::string_view inner) {
  constexpr std::size_t kIdentifier = 40;
  return inner.find(' ') != std::string_view::npos || inner.size() > kIdentifier;
}

// Whether the number at `at` is an HTTP status or a JSON-RPC error code ("HTTP 500", "error
// -32602", "error code 404").
bool status_code_at(std::string_view d, std::size_t at) {
  std::string_view before = d.substr(0, at);
  if (!before.empty() && before.back() == '-') before.remove_suffix(1);
  for (std::string_view word : {"HTTP ", "error ", "code "})
    if (before.size() >= word.size() && before.substr(before.size() - word.size()) == word) return true;
  return false;
}

// The diagnosis as a cause: the same for one defect whatever the seed generated or the server
// quoted. Our values are "<value>", quoted free text "<text>", numbers and tokens with digits
// (ids, hashes) "#", and "(this call: ...)" (what differs between calls with one cause) is dropped.
std::string normalised_diagnosis(const Finding& f) {
  const std::string& d = f.diagnosis;
  std::string shape;
  shape.reserve(d.size());
  static constexpr std::string_view kThisCall = "(this call: ";
  const std::vector<std::string> ours = argument_strings(f);
  std::size_t closing = std::string::npos;  // where a quoted identifier ends
  for (std::size_t i = 0; i < d.size(); ++i) {
    const char c = d[i];
    std::size_t quoted = 0;
    for (const auto& v : ours)
      if (!v.empty() && c == v[0] && (quoted = quoted_at(d, i, v)) > 0) break;
    if (quoted > 0) {
      shape += "<value>";
      i += quoted - 1;
      continue;
    }
    if (std::string_view(d).substr(i, kThisCall.size()) == kThisCall) {
      while (!shape.empty() && shape.back() == ' ') shape.pop_back();
      int depth = 0;
      for (; i < d.size(); ++i) {
        if (d[i] == '(') ++depth;
        else if (d[i] == ')' && --depth == 0) break;
      }
      continue;
    }
    if ((c == '"' || c == '`') && i != closing) {
      const std::size_t close = d.find(c, i + 1);
      if (close != std::string_view::npos && free_text(std::string_view(d).substr(i + 1, close - i - 1))) {
        shape += std::string(1, c) + "<text>" + c;
        i = close;
        continue;
      }
      closing = close;  // an identifier, read on; its closing quote opens nothing
    }
    if (alnum(c) && (i == 0 || !alnum(d[i - 1]))) {
      std::size_t j = i;
      bool digits = false, letters = false;
      for (; j < d.size() && alnum(d[j]); ++j) (digit(d[j]) ? digits : letters) = true;
      if (digits && letters) {  // an id, a hash, "utf8": one mark
        shape += '#';
        i = j - 1;
        continue;
      }
    }
    if (digit(c) && status_code_at(d, i)) {
      // An HTTP status or a JSON-RPC error code says which defect it is: kept.
      while (i < d.size() && digit(d[i])) shape += d[i++];
      --i;
    } else if (digit(c)) {
      // A number, thousands separators and decimals included, is one '#'.
      while (i + 1 < d.size() &&
             (digit(d[i + 1]) || ((d[i + 1] == ',' || d[i + 1] == '.') && i + 2 < d.size() && digit(d[i + 2]))))
        ++i;
      shape += '#';
    } else {
      shape += c;
    }
  }
  return shape;
}

void add_tool(std::vector<std::string>& tools, const std::string& tool) {
  if (tool.empty()) return;
  auto at = std::lower_bound(tools.begin(), tools.end(), tool);
  if (at == tools.end() || *at != tool) tools.insert(at, tool);
}

void add_example(ReportedFinding& rf, const nlohmann::json& request) {
  if (rf.examples.size() < 3 && !request.is_null() && request != rf.finding.request &&
      std::find(rf.examples.begin(), rf.examples.end(), request) == rf.examples.end())
    rf.examples.push_back(request);
}

}  // namespace

std::map<std::string, std::string> cause_of(const Finding& f) {
  std::map<std::string, std::string> c = f.cause;
  // (Not the profile: the sweep's findings of a cause carry none, the per-answer ones do.)
  if (c.empty()) c["text"] = normalised_diagnosis(f);
  return c;
}

std::string cause_key(const Finding& f) {
  std::string key = f.invariant;
  for (const auto& [k, v] : cause_of(f)) key += "\x1f" + k + "=" + v;
  return key;
}

std::string cause_id(const Finding& f) {
  char hex[20];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(cause_key(f))));
  return hex;
}

std::string finding_key(const Finding& f) { return cause_key(f) + "\x1e" + f.tool; }

std::string tools_phrase(const ReportedFinding& rf) {
  constexpr std::size_t kNamed = 20;
  if (rf.tools.empty() || (rf.tools.size() == 1 && rf.tools.front() == rf.finding.tool)) return "";
  std::string out = "on " + std::to_string(rf.tools.size()) + (rf.tools.size() == 1 ? " tool: " : " tools: ");
  for (std::size_t i = 0; i < rf.tools.size() && i < kNamed; ++i) out += (i ? ", " : "") + rf.tools[i];
  if (rf.tools.size() > kNamed) out += " and " + std::to_string(rf.tools.size() - kNamed) + " more";
  return out;
}

void group_server_level(RunReport& r) {
  const auto called = static_cast<std::size_t>(
      std::count_if(r.tools.begin(), r.tools.end(), [](const ToolSummary& t) { return t.calls > 0; }));
  std::map<std::string, std::vector<std::size_t>> by_cause;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < r.findings.size(); ++i) {
    auto& members = by_cause[cause_key(r.findings[i].finding)];
    if (members.empty()) order.push_back(cause_key(r.findings[i].finding));
    members.push_back(i);
  }
  std::vector<bool> drop(r.findings.size(), false);
  for (const auto& key : order) {
    const auto& members = by_cause[key];
    std::optional<std::size_t> server;
    std::vector<std::size_t> per_tool;
    std::set<std::string> tools;
    for (std::size_t i : members) {
      if (r.findings[i].finding.tool.empty()) {
        if (!server) server = i;
      } else {
        per_tool.push_back(i);
        tools.insert(r.findings[i].finding.tool);
      }
    }
    if (per_tool.empty() || (!server && (tools.size() < 3 || 2 * tools.size() < called))) continue;
    if (!server) {
      // The group says what its first tool by name showed, in its first member's place: the same
      // finding whatever order the tools ran in (a sharded run merged, --jobs).
      auto first = std::min_element(per_tool.begin(), per_tool.end(), [&](std::size_t a, std::size_t b) {
        return r.findings[a].finding.tool < r.findings[b].finding.tool;
      });
      std::swap(r.findings[per_tool.front()], r.findings[*first]);
    }
    ReportedFinding& g = r.findings[server ? *server : per_tool.front()];
    if (!g.finding.tool.empty()) {
      add_tool(g.tools, g.finding.tool);
      g.finding.tool.clear();
      g.finding.server_level = true;
    }
    for (std::size_t i : per_tool) {
      if (&r.findings[i] == &g) continue;
      ReportedFinding& m = r.findings[i];
      g.count += m.count;
      g.baselined = g.baselined && m.baselined;
      if (m.finding.severity == Severity::kError) g.finding.severity = Severity::kError;
      if (g.case_file.empty()) g.case_file = m.case_file;
      for (const auto& t : m.tools) add_tool(g.tools, t);
      add_tool(g.tools, m.finding.tool);
      add_example(g, m.finding.request);
      for (const auto& e : m.examples) add_example(g, e);
      drop[i] = true;
    }
  }
  std::vector<ReportedFinding> kept;
  kept.reserve(r.findings.size());
  for (std::size_t i = 0; i < r.findings.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(r.findings[i]));
  r.findings = std::move(kept);
  for (auto& t : r.tools)
    t.findings = static_cast<std::size_t>(std::count_if(r.findings.begin(), r.findings.end(), [&](const ReportedFinding& rf) {
      return rf.finding.tool == t.name || std::binary_search(rf.tools.begin(), rf.tools.end(), t.name);
    }));
}

void publish_outcomes(RunReport& report, const std::map<std::string, checks::Outcomes>& outcomes,
                      const checks::Selection& selection) {
  auto publish = [&](const std::string& tool, std::map<std::string, checks::Status>& statuses,
                     std::map<std::string, std::string>* reasons, std::vector<std::string>& exercised) {
    statuses.clear();
    exercised.clear();
    if (reasons) reasons->clear();
    if (auto it = outcomes.find(tool); it != outcomes.end()) {
      for (const auto& [id, st] : it->second.statuses()) {
        if (!selection.enabled(id)) continue;
        statuses[id] = st == checks::Status::kFailed ? checks::Status::kPassed : st;
        if (st == checks::Status::kNotObserved && reasons)
          if (auto w = it->second.reasons().find(id); w != it->second.reasons().end()) (*reasons)[id] = w->second;
      }
    }
    for (const auto& rf : report.findings)
      if ((rf.finding.tool == tool || (!tool.empty() && std::binary_search(rf.tools.begin(), rf.tools.end(), tool))) &&
          selection.enabled(rf.finding.invariant)) {
        statuses[rf.finding.invariant] = checks::Status::kFailed;
        if (reasons) reasons->erase(rf.finding.invariant);
      }
    std::set<std::string> ids;
    for (const auto& [id, st] : statuses)
      if (st == checks::Status::kPassed || st == checks::Status::kFailed) ids.insert(id);
    exercised = checks::in_registry_order(ids, selection);
  };
  for (auto& t : report.tools) publish(t.name, t.outcomes, &t.not_observed, t.invariants);
  publish("", report.server_outcomes, nullptr, report.server_invariants);
}

std::vector<std::string> publish_coverage(RunReport& report, const std::map<std::string, checks::Coverage>& coverage,
                                          const std::string& why_none) {
  std::vector<std::string> notes;
  for (auto& ts : report.tools) {
    if (auto it = coverage.find(ts.name); it != coverage.end()) ts.coverage = it->second;
    const checks::Coverage& c = ts.coverage;
    if (!ts.selected || c.calls == 0 || c.data > 0) continue;
    const std::string reached = "0/" + std::to_string(c.calls) + " calls reached data";
    for (auto& [id, why] : ts.not_observed) why += "; " + reached;
    notes.push_back("tool " + ts.name + ": " + c.summary() + ": " +
                    (c.self_made ? "its only data was what the run itself had written, never the server's own"
                                 : why_none + ", so its success answers were never checked"));
  }
  return notes;
}

bool merge_finding(RunReport& report, std::map<std::string, std::size_t>& index, Finding f) {
  const std::string key = finding_key(f);
  // A server-level finding lists the tools whose calls showed it.
  const std::string seen_on = f.tool.empty() ? tool_of(f.request) : f.tool;
  if (auto it = index.find(key); it != index.end()) {
    auto& rf = report.findings[it->second];
    rf.count++;
    add_tool(rf.tools, seen_on);
    add_example(rf, f.request);
    return false;
  }
  index[key] = report.findings.size();
  for (auto& t : report.tools)
    if (t.name == f.tool) t.findings++;
  ReportedFinding rf;
  rf.finding = std::move(f);
  add_tool(rf.tools, seen_on);
  report.findings.push_back(std::move(rf));
  return true;
}

std::size_t RunReport::selected_count() const {
  return static_cast<std::size_t>(std::count_if(tools.begin(), tools.end(), [](const ToolSummary& t) { return t.selected; }));
}

std::size_t RunReport::reached_count() const {
  return static_cast<std::size_t>(
      std::count_if(tools.begin(), tools.end(), [](const ToolSummary& t) { return t.selected && t.coverage.data > 0; }));
}

std::size_t RunReport::error_count() const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(), [](const ReportedFinding& f) {
    return !f.baselined && f.finding.severity == Severity::kError;
  }));
}

std::size_t RunReport::warning_count() const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(), [](const ReportedFinding& f) {
    return !f.baselined && f.finding.severity == Severity::kWarning;
  }));
}

std::size_t RunReport::baselined_count() const {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(), [](const ReportedFinding& f) { return f.baselined; }));
}

}  // namespace ctxo::engine
