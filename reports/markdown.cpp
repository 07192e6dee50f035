// SPDX-License-Identifier: MIT
// Renders the Markdown report. Every piece of server text goes through one of four escapers,
// chosen by where it lands: inline text (backslash escapes, entities, <br> for newlines, \| in
// tables), code spans and fenced blocks (delimiters longer than any backtick run inside), and
// HTML (<summary>, where Markdown escapes do not apply).
#include "reports/markdown.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "checks/registry.h"
#include "reports/html.h"
#include "reports/matrix.h"

namespace ctxo::reports {

namespace {

using nlohmann::json;

// GitHub rejects step summaries over 1 MiB; stop adding evidence blocks well before that.
constexpr std::size_t kEvidenceBudget = 900 * 1024;
// Longest request or response excerpt shown inline (the JSON report has the whole of it).
constexpr std::size_t kMaxBlock = 16 * 1024;

/// Inline Markdown text (paragraphs, list items, headings, table cells). Newlines become <br>
/// when `multiline`; otherwise they are shown as \x0A.
std::string md_text(std::string_view raw, bool multiline = false) {
  std::string s = display_text(raw, multiline), out;
  out.reserve(s.size() + 16);
  // A leading list or heading marker would change the block structure of a list item.
  std::size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+' || s[0] == '=')) {
    out += '\\';
  } else {
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i > 0 && i < s.size() && (s[i] == '.' || s[i] == ')')) {
      out.append(s, 0, i);
      out += '\\';
      s.erase(0, i);
    }
  }
  for (char c : s) {
    switch (c) {
      case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '~': case '#': case '!':
      case '$': case '{': case '}': case ':':  // ':' stops autolinks and :emoji: codes
        out += '\\';
        out += c;
        break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '\n': out += "<br>"; break;
      default: out += c;
    }
  }
  return out;
}

std::size_t longest_backtick_run(std::string_view s) {
  std::size_t best = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

/// A code span. In a table cell a '|' must still be written "\|" (GFM splits cells first).
std::string md_code(std::string_view raw, bool in_table = false) {
  std::string s = display_text(raw, false);
  if (s.empty()) return "*(empty)*";
  if (in_table) {
    std::string t;
    for (char c : s) {
      if (c == '|') t += '\\';
      t += c;
    }
    s = std::move(t);
  }
  std::string ticks(longest_backtick_run(s) + 1, '`');
  bool pad = s.front() == '`' || s.back() == '`' || s.front() == ' ' || s.back() == ' ';
  return ticks + (pad ? " " : "") + s + (pad ? " " : "") + ticks;
}

/// At most kMaxBlock bytes of `s`, cut on a UTF-8 boundary, with a note when cut.
std::string capped(const std::string& s) {
  if (s.size() <= kMaxBlock) return s;
  std::size_t cut = kMaxBlock;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "\n… (" + std::to_string(s.size() - cut) + " more bytes: see the JSON report)";
}

/// A fenced code block whose fence is longer than any backtick run inside.
std::string fence(std::string_view raw, const char* lang) {
  std::string s = display_text(raw, true);
  std::string ticks(std::max<std::size_t>(3, longest_backtick_run(s) + 1), '`');
  std::string out = ticks + lang + "\n" + s;
  if (s.empty() || s.back() != '\n') out += '\n';
  return out + ticks + "\n";
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

template <typename Info>
std::string help_of(const Info& info) {
  if constexpr (requires { info.help; }) return std::string(info.help);
  else return {};
}

const char* cell(Outcome o) {
  switch (o) {
    case Outcome::kNotApplicable: return "";
    case Outcome::kNotObserved: return "–";
    case Outcome::kPass: return "✓";
    case Outcome::kFail: return "✗";
    case Outcome::kWarn: return "⚠";
    case Outcome::kBaselined: return "baselined";
  }
  return "";
}

/// Indexes of findings in display order: errors, then warnings, each in report order.
std::vector<std::size_t> ordered(const engine::RunReport& r, bool baselined) {
  std::vector<std::size_t> idx;
  for (Severity want : {Severity::kError, Severity::kWarning})
    for (std::size_t i = 0; i < r.findings.size(); ++i)
      if (r.findings[i].baselined == baselined && r.findings[i].finding.severity == want) idx.push_back(i);
  return idx;
}

void write_header(std::string& o, const engine::RunReport& r, const std::string& version) {
  const std::size_t errors = r.error_count(), warnings = r.warning_count(), base = r.baselined_count();
  const std::string word = engine::verdict_word(r.verdict);
  std::string server = r.server_name.empty() ? "(unnamed server)" : r.server_name;
  if (!r.server_version.empty()) server += " " + r.server_version;
  o += "# ctxo-conform: " + word + " — ";
  bool counts = r.verdict != engine::Verdict::kError || errors || warnings || base;
  if (r.verdict == engine::Verdict::kError) o += counts ? "run incomplete, " : "run incomplete";
  if (counts) o += plural(errors, "error", "errors") + ", " + plural(warnings, "warning", "warnings");
  if (base) o += " (" + std::to_string(base) + " baselined)";
  o += " on " + md_text(server) + "\n\n";
  if (r.error) {
    o += "> **Run error**";
    if (!r.error->code.empty()) o += " (" + md_code(r.error->code) + ")";
    o += ": " + md_text(r.error->message, true) + "\n\n";
  }
  if (r.verdict == engine::Verdict::kUntested) o += "> **Untested** (exit code 4): " + md_text("no call reached the server's tools: " + untested_reason(r)) + ".\n\n";
  if (r.verdict == engine::Verdict::kPartial)
    o += "> **Partial**: " + md_text(std::to_string(r.reached_count()) + " of " + std::to_string(r.selected_count()) +
                                     " tools reached data; " + partial_reason(r)) + ".\n\n";
  if (r.interrupted) o += "> **Interrupted**: " + md_text(interrupted_reason(r)) + ".\n\n";

  std::size_t called = static_cast<std::size_t>(
      std::count_if(r.tools.begin(), r.tools.end(), [](const engine::ToolSummary& t) { return t.calls > 0; }));
  // The first fact is the table's header row (GFM tables need one; an empty one looks broken).
  o += "| **Server** | " + md_text(server) + " |\n|---|---|\n";
  auto row = [&](const char* k, const std::string& v) { o += std::string("| **") + k + "** | " + v + " |\n"; };
  if (!r.command.empty()) {
    std::string cmd;
    for (const auto& a : r.command) cmd += (cmd.empty() ? "" : " ") + a;
    row("Command", md_code(cmd, true));
  }
  if (!r.url.empty()) row("URL", md_code(r.url, true) + " (Streamable HTTP)");
  if (!r.protocol_version.empty())
    row("Protocol", md_text(r.protocol_version) + (r.era.empty() ? "" : " (" + md_text(r.era) + ")"));
  std::string prof = md_text(r.profile);
  if (!r.profiles_detected.empty()) {
    prof += "; envelopes:";
    for (const auto& [name, n] : r.profiles_detected) prof += " " + md_text(name) + " ×" + std::to_string(n);

  }
  // Answers no profile matched were read generically: say how (the generic rules judged them).
  if (r.unprofiled_results)
    prof += "; " + std::to_string(r.unprofiled_results) + " read generically" +
            (r.generic_readings.empty() ? "" : " (" + md_text(engine::generic_readings_text(r.generic_readings)) + ")");
  row("Profile", prof);
  row("Seed", "`" + std::to_string(r.seed) + "`");
  std::string calls = std::to_string(r.calls) + " to " + std::to_string(called) + " of " +
                      plural(r.tools.size(), "tool", "tools");
  if (r.restarts) calls += "; " + plural(r.restarts, "restart", "restarts");
  if (r.sweep_runs) calls += "; " + std::to_string(r.sweep_runs) + " limit-sweep runs";
  row("Calls", calls);
  row("Duration", format_duration(r.duration.count()));
  if (r.root) row("Root", md_code(*r.root, true));
  if (!r.started_at.empty()) row("Started", md_text(r.started_at));
  row("Harness", "ctxo-conform " + md_text(version));
  o += "\n";
  if (!r.notes.empty()) {
    o += "**Notes**\n\n";
    for (const auto& n : r.notes) o += "- " + md_text(n, true) + "\n";
    o += "\n";
  }
}

void write_matrix(std::string& o, const engine::RunReport& r) {
  Matrix m = build_matrix(r);
  o += "## Tool × invariant matrix\n\n";
  if (m.rows.empty() || m.columns.empty()) {
    o += "No invariant was applied (no tool was called).\n\n";
    return;
  }
  o += "| tool | profile |";
  for (const auto& c : m.columns) o += " " + md_text(c) + " |";
  o += "\n|:---|:---|";
  for (std::size_t i = 0; i < m.columns.size(); ++i) o += ":---:|";
  o += "\n";
  for (const auto& row : m.rows) {
    o += "| " + (row.server ? std::string("*(server)*") : md_code(row.name, true)) + " | " +
         (row.server ? std::string() : row.profile.empty() ? std::string("*none*") : md_text(row.profile)) + " |";
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
      Outcome oc = row.cells[c];
      std::string v = cell(oc);
      if ((oc == Outcome::kFail || oc == Outcome::kWarn || oc == Outcome::kBaselined) && row.occurrences[c])
        v += " " + std::to_string(row.occurrences[c]);
      o += " " + v + " |";
    }
    o += "\n";
  }
  o += "\n✓ pass, ✗ *n* fail, ⚠ *n* warning, baselined *n* accepted by the baseline, "
       "– not observed (the rule applies but no answer exercised it; see below), blank: not applicable; "
       "*n* counts occurrences.\n\n";
}

/// For each tool with not-observed invariants, one line per reason.
void write_not_observed(std::string& o, const engine::RunReport& r) {
  std::string lines;
  for (const auto* t : tools_by_name(r))
    for (const auto& g : group_not_observed(*t)) {
      std::string ids;
      for (const auto& id : g.ids) ids += (ids.empty() ? "" : ", ") + md_code(id);
      lines += "- " + md_code(t->name) + ": " + ids + " not observed (" + md_text(g.reason) + ")\n";
    }
  if (lines.empty()) return;
  o += "## Not observed\n\nThese rules apply to the tool, but no answer gave them anything to judge: they "
       "neither passed nor failed.\n\n" + lines + "\n";
}

/// What each called tool's calls reached; a tool that reached no data is flagged.
void write_coverage(std::string& o, const engine::RunReport& r) {
  const CoverageRows called = coverage_rows(r);
  const std::size_t none = called.without_data;
  std::string rows;
  for (const auto* t : called.tools) {
    const checks::Coverage& c = t->coverage;
    auto n = [](std::size_t v) { return std::to_string(v); };
    rows += "| " + md_code(t->name, true) + " | " + n(c.calls) + " | " + (c.data == 0 ? std::string("⚠ **0**") : n(c.data)) +
            " | " + n(c.self_made) + " | " + n(c.empty) + " | " + n(c.misses) + " | " + n(c.errors) + " | " + n(c.leaks) + " | " + n(c.refusals) +
            " | " + n(c.no_answer) + " | " + n(c.largest_bytes) + " B | " + n(c.truncated) + " | " + n(t->second_pass_calls) +
            " | " + n(t->driven_calls) + " |\n";
  }
  if (rows.empty()) return;
  o += "## Coverage\n\nWhat each tool's calls reached. *data*: a success answer that carries data; *self-made*: data "
       "about what the run itself wrote earlier (not the server's own); *empty*: a "
       "success with an empty result (`[]`, `{}`, only empty arrays, empty text); *miss*: a graceful not-found; "
       "*error*: an error to a valid call (error text without isError included); *leak*: a JavaScript `undefined`, "
       "`NaN` or `[object Object]` where a value should be; *refused*: an error to a call generated invalid (expected).";
  if (none) o += " ⚠ " + plural(none, "tool", "tools") + " reached no data: " + (none == 1 ? "its" : "their") +
                 " success answers were never checked.";
  o += "\n\n| tool | calls | data | self-made | empty | miss | error | leak | refused | no answer | largest | truncated | "
       "2nd pass | driven |\n|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n" +
       rows + "\n";
}

/// Each called tool's largest answer and the host limit it came closest to (--host).
void write_headroom(std::string& o, const engine::RunReport& r) {
  std::string rows;
  for (const auto* t : tools_by_name(r))
    if (t->largest) rows += "| " + md_code(t->name, true) + " | " + md_text(headroom_text(*t)) + " |\n";
  if (rows.empty()) return;
  o += "## Host headroom\n\nEach tool's largest answer, and the host limit it came closest to (`--host`; "
       "H-SIZE reports the answers past one).\n\n| tool | largest answer |\n|:---|:---|\n" + rows + "\n";
}

void write_finding(std::string& o, const engine::ReportedFinding& rf, std::size_t number, bool evidence) {
  const Finding& f = rf.finding;
  o += "### " + std::to_string(number) + ". " + md_code(f.invariant) + " " + to_string(f.severity) + " — " +
       (f.tool.empty() ? std::string("server-level") : "tool " + md_code(f.tool));
  if (auto on = engine::tools_phrase(rf); !on.empty()) o += " " + md_text(on);
  if (rf.count > 1) o += " (" + std::to_string(rf.count) + " times)";
  o += "\n\n";
  o += "**Diagnosis:** " + md_text(f.diagnosis, true) + "\n\n";
  if (!f.file.empty()) {
    std::string loc = f.file + (f.line ? ":" + std::to_string(f.line) : "") +
                      (f.line && f.column ? ":" + std::to_string(f.column) : "");
    o += "**Location:** " + md_code(loc) + "\n\n";
  }
  if (const auto* info = checks::find_invariant(f.invariant)) {
    o += "**Rule:** " + md_text(info->summary);
    if (!info->spec_ref.empty()) o += " (" + md_text(info->spec_ref) + ")";
    o += "\n\n";
    std::string help = help_of(*info);
    if (!help.empty()) o += "**How to fix:** " + md_text(help, true) + "\n\n";
  }
  if (!evidence) {
    o += "*Evidence left out to keep this summary under 1 MiB; see the JSON or HTML report.*\n\n";
    return;
  }
  o += "<details>\n<summary>request / response</summary>\n\n";
  o += "Request:\n\n";
  if (f.request.is_null()) o += "*none: a server-level finding*\n\n";
  else o += fence(capped(f.request.dump(2, ' ', false, json::error_handler_t::replace)), "json") + "\n";
  o += "Response excerpt:\n\n";
  if (f.response_excerpt.empty()) {
    o += "*none*\n\n";
  } else {
    json j = json::parse(f.response_excerpt, nullptr, false);
    if (!j.is_discarded() && j.is_structured())
      o += fence(capped(j.dump(2, ' ', false, json::error_handler_t::replace)), "json") + "\n";
    else o += fence(capped(f.response_excerpt), "text") + "\n";
  }
  if (!f.replay.empty()) o += "Replay:\n\n" + fence(f.replay, "sh") + "\n";
  o += "</details>\n\n";
}

void write_tools(std::string& o, const engine::RunReport& r) {
  if (r.tools.empty()) return;
  o += "<details>\n<summary>Tools (" + std::to_string(r.tools.size()) + ")</summary>\n\n";
  o += "| tool | calls | successes | findings | time | profile | notes |\n|:---|---:|---:|---:|---:|:---|:---|\n";
  for (const auto& t : r.tools) {
    std::string notes;
    if (!t.selected) notes = "not selected";
    else if (!t.read_only) notes = "may write (not annotated readOnlyHint)";
    if (!t.skipped.empty()) notes += (notes.empty() ? "" : "; ") + t.skipped;
    if (!t.changes.empty()) notes += (notes.empty() ? "" : "; ") + std::to_string(t.changes.count()) + " file change(s)";
    std::string prof = t.profile.empty() ? std::string("*none*") : md_text(t.profile);
    if (!t.profile_reason.empty()) prof += " (" + md_text(t.profile_reason) + ")";
    o += "| " + md_code(t.name, true) + " | " + std::to_string(t.calls) + " | " + std::to_string(t.successes) + " | " +
         std::to_string(t.findings) + " | " + format_duration(t.elapsed.count()) + " | " + prof + " | " +
         md_text(notes, true) + " |\n";
  }
  o += "\n</details>\n\n";
}

}  // namespace

std::string to_markdown(const engine::RunReport& r, const std::string& version) {
  std::string o;
  write_header(o, r, version);
  write_matrix(o, r);
  write_not_observed(o, r);
  write_coverage(o, r);
  write_headroom(o, r);

  auto active = ordered(r, false), accepted = ordered(r, true);
  std::size_t number = 0, left_out = 0;
  auto emit = [&](std::size_t i) {
    bool evidence = o.size() < kEvidenceBudget;
    if (!evidence) ++left_out;
    write_finding(o, r.findings[i], ++number, evidence);
  };
  o += "## Findings (" + std::to_string(active.size()) + ")\n\n";
  if (active.empty()) o += "None.\n\n";
  for (auto i : active) emit(i);
  if (!accepted.empty()) {
    o += "## Accepted by the baseline (" + std::to_string(accepted.size()) + ")\n\n";
    o += "Listed in `--baseline`: reported, but they do not fail the run.\n\n";
    for (auto i : accepted) emit(i);
  }
  if (!r.baseline_stale.empty()) {
    o += "## Stale baseline entries (" + std::to_string(r.baseline_stale.size()) + ")\n\n";
    o += "These entries no longer fail: remove them from the baseline.\n\n";
    for (const auto& e : r.baseline_stale)
      o += "- " + md_code(e.invariant) + " " +
           (e.tool.empty() ? std::string("server-level") : "on tool " + md_code(e.tool)) + "\n";
    o += "\n";
  }
  if (left_out) o += "*" + plural(left_out, "finding is", "findings are") + " shown without evidence (size limit).*\n\n";
  write_tools(o, r);
  if (!r.stderr_tail.empty()) {
    std::string tail = r.stderr_tail.size() > 4000 ? r.stderr_tail.substr(r.stderr_tail.size() - 4000) : r.stderr_tail;
    o += "<details>\n<summary>Server stderr (last " + std::to_string(tail.size()) + " bytes)</summary>\n\n" +
         fence(tail, "text") + "\n</details>\n";
  }
  return o;
}

}  // namespace ctxo::reports
