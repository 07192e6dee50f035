// SPDX-License-Identifier: MIT
#include "reports/junit.h"

#include <cstdio>
#include <map>
#include <sstream>

#include <pugixml.hpp>

#include "checks/registry.h"
#include "core/text.h"
#include "reports/matrix.h"

namespace ctxo::reports {

using nlohmann::json;

std::string xml_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  auto escape = [&out](const char* fmt, unsigned v) {
    char buf[12];
    std::snprintf(buf, sizeof buf, fmt, v);
    out += buf;
  };
  std::size_t i = 0;
  while (i < n) {
    unsigned char c = p[i];
    if (c < 0x80) {
      if ((c >= 0x20 && c != 0x7F) || c == '\t' || c == '\n' || c == '\r') out += static_cast<char>(c);
      else escape("\\x%02X", c);
      ++i;
      continue;
    }
    const auto [len, cp] = utf8_char_at(s, i);
    if (len == 0) {
      escape("\\x%02X", c);
      ++i;
      continue;
    }
    if (cp <= 0x9F) escape("\\u%04X", static_cast<unsigned>(cp));  // C1 controls: allowed by XML 1.0, but invisible
    else if (cp == 0xFFFE || cp == 0xFFFF) out += "\xEF\xBF\xBD";
    else out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

namespace {

// Seconds with millisecond precision, in the form junit-10.xsd's SUREFIRE_TIME accepts.
std::string seconds(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(std::max<std::int64_t>(ms.count(), 0)) / 1000.0);
  return buf;
}

std::string first_line(std::string_view s) {
  std::size_t end = s.find_first_of("\r\n");
  return std::string(s.substr(0, end));
}

// One finding as plain text: what CI shows when a test case is opened.
std::string evidence(const engine::ReportedFinding& rf) {
  const Finding& f = rf.finding;
  std::string s = f.invariant + " " + to_string(f.severity) + (f.tool.empty() ? " (server)" : " in tool " + f.tool);
  if (auto on = engine::tools_phrase(rf); !on.empty()) s += " " + on;
  if (rf.count > 1) s += " (" + std::to_string(rf.count) + " times)";
  if (rf.baselined) s += " [accepted by baseline]";
  s += "\n" + (f.diagnosis.empty() ? std::string("(no diagnosis)") : f.diagnosis) + "\n";
  if (!f.file.empty()) {
    s += "location: " + f.file;
    if (f.line > 0) s += ":" + std::to_string(f.line);
    if (f.line > 0 && f.column > 0) s += ":" + std::to_string(f.column);
    s += "\n";
  }
  s += "request:  " +
       (f.request.is_null() ? std::string("(none)") : f.request.dump(-1, ' ', false, json::error_handler_t::replace)) +
       "\n";
  s += "response: " + (f.response_excerpt.empty() ? std::string("(none)") : f.response_excerpt) + "\n";
  s += "replay:   " + (f.replay.empty() ? std::string("(none)") : f.replay) + "\n";
  return s;
}

// Builds the document; every string from the report goes through xml_text() on its way in.
class Writer {
 public:
  Writer(const engine::RunReport& r, const std::string& version) : r_(r), version_(version) {}

  std::string render() {
    auto decl = doc_.append_child(pugi::node_declaration);
    decl.append_attribute("version") = "1.0";
    decl.append_attribute("encoding") = "UTF-8";
    root_ = doc_.append_child("testsuites");
    root_.append_attribute("name") = "ctxo-conform";
    // Filled in at the end, in this order (attributes keep insertion order).
    for (const char* a : {"tests", "failures", "errors", "time"}) root_.append_attribute(a);

    if (r_.error) run_error_suite();
    Matrix m = build_matrix(r_);
    std::map<std::string, const engine::ToolSummary*> tools;
    for (const auto& t : r_.tools) tools[t.name] = &t;
    for (const auto& row : m.rows) row_suite(m, row, row.server ? nullptr : lookup(tools, row.name));
    for (const auto& t : r_.tools) {
      bool in_matrix = false;
      for (const auto& row : m.rows) in_matrix = in_matrix || (!row.server && row.name == t.name);
      if (t.selected && !in_matrix) not_called_suite(t);
    }

    root_.attribute("tests") = tests_;
    root_.attribute("failures") = failures_;
    root_.attribute("errors") = errors_;
    root_.attribute("time") = seconds(r_.duration).c_str();
    std::ostringstream out;
    doc_.save(out, "  ", pugi::format_indent, pugi::encoding_utf8);
    return out.str();
  }

 private:
  struct Suite {
    pugi::xml_node node;
    unsigned tests = 0, failures = 0, errors = 0, skipped = 0;
  };

  static const engine::ToolSummary* lookup(const std::map<std::string, const engine::ToolSummary*>& tools,
                                           const std::string& name) {
    auto it = tools.find(name);
    return it == tools.end() ? nullptr : it->second;
  }

  static void set(pugi::xml_node n, const char* name, std::string_view value) {
    n.append_attribute(name) = xml_text(value).c_str();
  }
  static void text(pugi::xml_node n, std::string_view value) {
    n.append_child(pugi::node_pcdata).set_value(xml_text(value).c_str());
  }

  Suite open_suite(const std::string& name, std::chrono::milliseconds time) {
    Suite s;
    s.node = root_.append_child("testsuite");
    set(s.node, "name", name);
    for (const char* a : {"tests", "failures", "errors", "skipped"}) s.node.append_attribute(a);
    s.node.append_attribute("time") = seconds(time).c_str();
    if (!r_.started_at.empty()) set(s.node, "timestamp", r_.started_at);
    properties(s.node);
    return s;
  }

  void close_suite(Suite& s) {
    s.node.attribute("tests") = s.tests;
    s.node.attribute("failures") = s.failures;
    s.node.attribute("errors") = s.errors;
    s.node.attribute("skipped") = s.skipped;
    tests_ += s.tests;
    failures_ += s.failures;
    errors_ += s.errors;
  }

  void properties(pugi::xml_node suite) {
    auto props = suite.append_child("properties");
    auto prop = [&](const char* name, std::string_view value) {
      auto p = props.append_child("property");
      p.append_attribute("name") = name;
      set(p, "value", value);
    };
    prop("ctxo-conform.version", version_);
    prop("seed", std::to_string(r_.seed));
    prop("server.name", r_.server_name);
    prop("server.version", r_.server_version);
    prop("server.command", shell_join(r_.command));
    if (!r_.url.empty()) prop("server.url", r_.url);
    prop("protocol", r_.protocol_version);
    if (!r_.era.empty()) prop("era", r_.era);
    prop("profile", r_.profile);
    prop("verdict", engine::to_string(r_.verdict));
    prop("exit_code", std::to_string(r_.exit_code));
    if (r_.root) prop("root", *r_.root);
  }

  pugi::xml_node testcase(Suite& s, std::string_view name, std::string_view row) {
    auto tc = s.node.append_child("testcase");
    set(tc, "name", name);
    set(tc, "classname", "ctxo-conform." + std::string(row));
    ++s.tests;
    return tc;
  }

  // A run that could not complete: CI must show it even when nothing else was tested.
  void run_error_suite() {
    Suite s = open_suite("(run)", r_.duration);
    auto tc = testcase(s, "run", "(run)");
    auto err = tc.append_child("error");
    set(err, "message", first_line(r_.error->message));
    set(err, "type", r_.error->code);
    std::string body = "the run could not complete (exit code " + std::to_string(r_.exit_code) + ")\n" +
                       r_.error->code + ": " + r_.error->message + "\n";
    if (!r_.stderr_tail.empty()) {
      std::string tail = r_.stderr_tail.size() > 4000 ? r_.stderr_tail.substr(r_.stderr_tail.size() - 4000)
                                                      : r_.stderr_tail;
      body += "\nserver stderr (tail):\n" + tail + "\n";
    }
    text(err, body);
    ++s.errors;
    close_suite(s);
  }

  void row_suite(const Matrix& m, const MatrixRow& row, const engine::ToolSummary* tool) {
    std::chrono::milliseconds time = row.server ? server_time() : tool ? tool->elapsed : std::chrono::milliseconds{0};
    Suite s = open_suite(row.name, time);
    if (!row.profile.empty()) {
      auto props = s.node.child("properties");
      auto prop = [&](const char* name, std::string_view value) {
        auto p = props.append_child("property");
        p.append_attribute("name") = name;
        set(p, "value", value);
      };
      prop("tool.profile", row.profile);
      if (!row.profile_reason.empty()) prop("tool.profile_reason", row.profile_reason);
    }
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
      if (row.cells[c] == Outcome::kNotApplicable) continue;
      const std::string& inv = m.columns[c];
      auto tc = testcase(s, inv, row.name);
      if (row.cells[c] == Outcome::kNotObserved) {
        // The rule applies but nothing exercised it: neither a pass nor a failure.
        set(tc.append_child("skipped"), "message",
            "not observed: " + (row.reasons[c].empty() ? std::string("no answer exercised it") : row.reasons[c]));
        ++s.skipped;
        continue;
      }
      std::vector<const engine::ReportedFinding*> failing, other;
      for (std::size_t i : row.findings) {
        const auto& rf = r_.findings[i];
        if (rf.finding.invariant != inv) continue;
        (!rf.baselined && rf.finding.severity == Severity::kError ? failing : other).push_back(&rf);
      }
      if (failing.empty() && other.empty() && (row.cells[c] == Outcome::kFail || row.cells[c] == Outcome::kWarn)) {
        // Its cause was the server's: one finding in the (server) suite lists this tool.
        text(tc.append_child("system-out"), "reported once for the server (the same cause on most tools): see the "
                                            "(server) suite\n");
        continue;
      }
      if (!failing.empty()) {
        auto fail = tc.append_child("failure");
        set(fail, "message", first_line(failing.front()->finding.diagnosis));
        set(fail, "type", inv);
        std::string body;
        for (const auto* rf : failing) body += (body.empty() ? "" : "\n") + evidence(*rf);
        text(fail, body);
        ++s.failures;
      }
      if (!other.empty()) {
        std::string body;
        for (const auto* rf : other) {
          body += body.empty() ? "" : "\n";
          body += rf->baselined ? "accepted by baseline (--baseline): reported, does not fail the run\n"
                                : "warning: reported, does not fail the run\n";
          body += evidence(*rf);
        }
        text(tc.append_child("system-out"), body);
      }
    }
    std::string notes;
    if (tool && !tool->skipped.empty()) notes += "calls stopped early: " + tool->skipped + "\n";
    if (row.server) {
      for (const auto& n : r_.notes) notes += "note: " + n + "\n";
      for (const auto& b : r_.baseline_stale)
        notes += "stale baseline entry: " + b.invariant + (b.tool.empty() ? "" : " " + b.tool) +
                 " no longer fails; remove it\n";
    }
    if (!notes.empty()) text(s.node.append_child("system-out"), notes);
    close_suite(s);
  }

  // A tool the run meant to call but did not (time budget, restarts exhausted, ...).
  void not_called_suite(const engine::ToolSummary& t) {
    Suite s = open_suite(t.name, t.elapsed);
    auto tc = testcase(s, "(not called)", t.name);
    set(tc.append_child("skipped"), "message",
        "not called: " + (t.skipped.empty() ? std::string("no call was made") : t.skipped));
    ++s.skipped;
    close_suite(s);
  }

  // The server row: whatever the run spent outside tool calls (handshake, listing, sweep, shutdown).
  std::chrono::milliseconds server_time() const {
    std::chrono::milliseconds tools{0};
    for (const auto& t : r_.tools) tools += t.elapsed;
    return r_.duration > tools ? r_.duration - tools : std::chrono::milliseconds{0};
  }

  const engine::RunReport& r_;
  const std::string& version_;
  pugi::xml_document doc_;
  pugi::xml_node root_;
  unsigned tests_ = 0, failures_ = 0, errors_ = 0;
};

}  // namespace

std::string to_junit(const engine::RunReport& report, const std::string& version) {
  return Writer(report, version).render();
}

}  // namespace ctxo::reports
