// SPDX-License-Identifier: MIT
#include "engine/report.h"

#include "checks/generic.h"

#include <algorithm>
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
      std::string escaped = nlohmann::json(s).dump();
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

std::string finding_key(const Finding& f) {
  std::string shape;
  shape.reserve(f.diagnosis.size());
  static constexpr std::string_view kThisCall = "(this call: ";
  // Our own generated values, quoted back by the server ("Session not found: 8f3a..."), are
  // not part of the cause: each is one mark, whatever the seed made of it.
  const std::vector<std::string> ours = argument_strings(f);
  for (std::size_t i = 0; i < f.diagnosis.size(); ++i) {
    char c = f.diagnosis[i];
    std::size_t quoted = 0;
    for (const auto& v : ours)
      if (!v.empty() && f.diagnosis[i] == v[0] && (quoted = quoted_at(f.diagnosis, i, v)) > 0) break;
    if (quoted > 0) {
      shape += "\x01";
      i += quoted - 1;
      continue;
    }
    if (std::string_view(f.diagnosis).substr(i, kThisCall.size()) == kThisCall) {
      // "(this call: ...)" says what differs between calls with one cause: not part of the cause.
      while (!shape.empty() && shape.back() == ' ') shape.pop_back();
      int depth = 0;
      for (; i < f.diagnosis.size(); ++i) {
        if (f.diagnosis[i] == '(') ++depth;
        else if (f.diagnosis[i] == ')' && --depth == 0) break;
      }
      continue;
    }
    if (c >= '0' && c <= '9') {
      // A number, thousands separators and decimals included, is one '#'.
      while (i + 1 < f.diagnosis.size() &&
             ((f.diagnosis[i + 1] >= '0' && f.diagnosis[i + 1] <= '9') ||
              ((f.diagnosis[i + 1] == ',' || f.diagnosis[i + 1] == '.') && i + 2 < f.diagnosis.size() &&
               f.diagnosis[i + 2] >= '0' && f.diagnosis[i + 2] <= '9')))
        ++i;
      shape += '#';
    } else {
      shape += c;
    }
  }
  return f.invariant + "\x1f" + f.tool + "\x1f" + shape;
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
      if (rf.finding.tool == tool && selection.enabled(rf.finding.invariant)) {
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
    notes.push_back("tool " + ts.name + ": " + c.summary() + ": " + why_none + ", so its success answers were never checked");
  }
  return notes;
}

bool merge_finding(RunReport& report, std::map<std::string, std::size_t>& index, Finding f) {
  const std::string key = finding_key(f);
  if (auto it = index.find(key); it != index.end()) {
    auto& rf = report.findings[it->second];
    rf.count++;
    if (rf.examples.size() < 3 && !f.request.is_null() && f.request != rf.finding.request &&
        std::find(rf.examples.begin(), rf.examples.end(), f.request) == rf.examples.end())
      rf.examples.push_back(std::move(f.request));
    return false;
  }
  index[key] = report.findings.size();
  for (auto& t : report.tools)
    if (t.name == f.tool) t.findings++;
  report.findings.push_back(ReportedFinding{std::move(f), 1, false, "", {}});
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
