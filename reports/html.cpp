// SPDX-License-Identifier: MIT
// Renders the single-file HTML report. Data lives only in text nodes and attribute values (all
// escaped); the one inline script reads the DOM and never receives report data, so nothing a
// server sends can reach script context. A CSP with SHA-256 hashes of the inline style and
// script blocks any other script and every network fetch.
#include "reports/html.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "checks/registry.h"
#include "core/text.h"
#include "reports/matrix.h"

namespace ctxo::reports {

using nlohmann::json;

// ---- text helpers (shared with markdown.cpp through html.h) -------------------------------

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_duration(long long ms) {
  char buf[48];
  if (ms < 1000) std::snprintf(buf, sizeof buf, "%lld ms", ms);
  else if (ms < 120000) std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms) / 1000.0);
  else std::snprintf(buf, sizeof buf, "%lld min %lld s", ms / 60000, (ms % 60000) / 1000);
  return buf;
}

namespace {

// ---- SHA-256 (FIPS 180-4), for the CSP hashes of the inline style and script --------------

std::array<std::uint8_t, 32> sha256(std::string_view data) {
  static constexpr std::uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string msg(data);
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  msg += static_cast<char>(0x80);
  while (msg.size() % 64 != 56) msg += '\0';
  for (int b = 7; b >= 0; --b) msg += static_cast<char>((bits >> (b * 8)) & 0xFF);
  auto rotr = [](std::uint32_t x, int r) { return (x >> r) | (x << (32 - r)); };
  for (std::size_t off = 0; off < msg.size(); off += 64) {
    std::uint32_t w[64];
    for (int t = 0; t < 16; ++t) {
      const auto* q = reinterpret_cast<const unsigned char*>(msg.data() + off + 4 * t);
      w[t] = (std::uint32_t{q[0]} << 24) | (std::uint32_t{q[1]} << 16) | (std::uint32_t{q[2]} << 8) | q[3];
    }
    for (int t = 16; t < 64; ++t) {
      std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 64; ++t) {
      std::uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[t] + w[t];
      std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  }
  std::array<std::uint8_t, 32> out{};
  for (int i = 0; i < 8; ++i)
    for (int b = 0; b < 4; ++b) out[4 * i + b] = static_cast<std::uint8_t>(h[i] >> (24 - 8 * b));
  return out;
}

std::string base64(const std::uint8_t* p, std::size_t n) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < n; i += 3) {
    std::uint32_t v = std::uint32_t{p[i]} << 16;
    if (i + 1 < n) v |= std::uint32_t{p[i + 1]} << 8;
    if (i + 2 < n) v |= p[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < n ? kAlphabet[v & 63] : '=';
  }
  return out;
}

std::string csp_hash(std::string_view block) {
  auto d = sha256(block);
  return "'sha256-" + base64(d.data(), d.size()) + "'";
}

// ---- static parts -------------------------------------------------------------------------

constexpr std::string_view kStyle = R"css(
:root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;--line:#d1d9e0;--pass:#1a7f37;--pass-bg:#dafbe1;
--fail:#cf222e;--fail-bg:#ffebe9;--warn:#9a6700;--warn-bg:#fff8c5;--base:#57606a;--base-bg:#eaeef2;--accent:#0969da;
--mono:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#151b23;--line:#3d444d;
--pass:#3fb950;--pass-bg:#12261e;--fail:#f85149;--fail-bg:#2d1214;--warn:#d29922;--warn-bg:#272115;--base:#9198a1;
--base-bg:#212830;--accent:#4493f8}}
*{box-sizing:border-box}[hidden]{display:none!important}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1280px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 12px;padding-bottom:6px;border-bottom:1px solid var(--line)}
code,pre,kbd{font-family:var(--mono);font-size:12.5px}
.muted{color:var(--muted)}
header.run{border:1px solid var(--line);border-radius:8px;padding:16px 20px;background:var(--panel)}
header.run.verdict-fail{border-left:6px solid var(--fail)}header.run.verdict-pass{border-left:6px solid var(--pass)}
header.run.verdict-error{border-left:6px solid var(--warn)}header.run.verdict-untested,header.run.verdict-interrupted,header.run.verdict-partial{border-left:6px solid var(--muted)}
.verdict{display:inline-block;font-weight:700;letter-spacing:.04em;padding:2px 10px;border-radius:6px;margin-right:8px;color:#fff}
.verdict.pass{background:var(--pass)}.verdict.fail{background:var(--fail)}.verdict.error{background:var(--warn)}.verdict.untested,.verdict.interrupted,.verdict.partial{background:var(--muted)}
.counts{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
.count{border:1px solid var(--line);border-radius:6px;padding:6px 14px;background:var(--bg);min-width:90px}
.count b{display:block;font-size:20px;line-height:1.2}.count.errors b{color:var(--fail)}.count.warnings b{color:var(--warn)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
.run-error{margin-top:12px;border:1px solid var(--fail);background:var(--fail-bg);border-radius:6px;padding:8px 12px;white-space:pre-wrap}
ul.notes{margin:8px 0 0;padding-left:20px}
.matrix-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:8px}
table{border-collapse:collapse}
#matrix th,#matrix td{border:1px solid var(--line);padding:3px 6px;text-align:center;white-space:nowrap}
#matrix thead th{vertical-align:bottom;background:var(--panel);font-family:var(--mono);font-size:11.5px;font-weight:600}
#matrix thead th.inv span{writing-mode:vertical-rl;transform:rotate(180deg);display:inline-block;padding:4px 0}
#matrix tbody th{text-align:left;font-family:var(--mono);font-weight:500;position:sticky;left:0;background:var(--bg);max-width:280px;overflow:hidden;text-overflow:ellipsis}
#matrix td{min-width:34px;font-size:12.5px}
#matrix td.pass{color:var(--pass)}#matrix td.fail{color:var(--fail);background:var(--fail-bg);font-weight:700}
#matrix td.warn{color:var(--warn);background:var(--warn-bg);font-weight:600}#matrix td.baselined{color:var(--base);background:var(--base-bg)}
#matrix td.not-applicable{color:var(--line)}#matrix td.not-observed{color:var(--muted);cursor:help}
#matrix td.profile{font-family:var(--mono);font-size:11.5px;text-align:left;color:var(--muted)}#matrix td.has-findings{cursor:pointer}
#matrix td.has-findings:hover,#matrix td.has-findings:focus{outline:2px solid var(--accent);outline-offset:-2px}
#matrix td.selected{outline:2px solid var(--accent);outline-offset:-2px}
.legend{margin:8px 0 0;color:var(--muted);font-size:12.5px}.legend span{margin-right:14px}
.legend .pass{color:var(--pass)}.legend .fail{color:var(--fail)}.legend .warn{color:var(--warn)}.legend .baselined{color:var(--base)}
#filters{display:flex;flex-wrap:wrap;gap:8px;align-items:center;position:sticky;top:0;z-index:2;background:var(--bg);padding:8px 0;border-bottom:1px solid var(--line)}
#filters select,#filters input,#filters button,button.copy{font:inherit;padding:4px 8px;border:1px solid var(--line);border-radius:6px;background:var(--panel);color:var(--fg)}
#filters input{min-width:220px}#filters select{max-width:240px}#filters button,button.copy{cursor:pointer}
#f-count{margin-left:auto;color:var(--muted)}
.finding{scroll-margin-top:64px;border:1px solid var(--line);border-left:5px solid var(--fail);border-radius:8px;margin:12px 0;padding:12px 16px;background:var(--bg)}
.finding.sev-warning{border-left-color:var(--warn)}.finding.is-baselined{border-left-color:var(--base)}
.finding .head{display:flex;flex-wrap:wrap;gap:8px;align-items:baseline}
.badge{font-size:11.5px;font-weight:700;text-transform:uppercase;letter-spacing:.04em;padding:1px 7px;border-radius:10px}
.badge.error{background:var(--fail-bg);color:var(--fail)}.badge.warning{background:var(--warn-bg);color:var(--warn)}
.badge.baselined{background:var(--base-bg);color:var(--base)}
.finding .inv{font-weight:700;font-size:14px}.finding .tool code{background:var(--panel);padding:1px 5px;border-radius:4px}
.finding .times{color:var(--muted)}.finding .num{color:var(--muted);margin-left:auto}
.finding .diagnosis{margin:8px 0 4px;font-size:15px;font-weight:500;white-space:pre-wrap;overflow-wrap:anywhere}.finding .rule{color:var(--muted);margin:4px 0}
.finding .help{margin:4px 0;white-space:pre-wrap}
.finding details{margin-top:8px}.finding summary{cursor:pointer;color:var(--accent);font-weight:600}
.finding h4{margin:10px 0 4px;font-size:12.5px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
pre{margin:0;background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow:auto;max-height:420px;white-space:pre-wrap;overflow-wrap:anywhere}
.replay{display:flex;gap:8px;align-items:flex-start;margin-top:8px}.replay pre{flex:1;max-height:none}
.empty{color:var(--muted);font-style:italic}
#tools td,#tools th,#coverage td,#coverage th{border-bottom:1px solid var(--line);padding:4px 12px 4px 0;text-align:left;vertical-align:top}
#tools td.n,#coverage td.n{text-align:right;font-variant-numeric:tabular-nums}
#coverage tr.no-data td{background:var(--warn-bg)}#coverage tr.no-data td.data{color:var(--warn);font-weight:700}
ul.stale code{font-weight:600}
footer{margin:40px 0 8px;color:var(--muted);font-size:12.5px}
)css";

// The only script. It reads data-* attributes and never receives report data as code.
constexpr std::string_view kScript = R"js(
(function () {
  'use strict';
  var byId = function (id) { return document.getElementById(id); };
  var inv = byId('f-inv'), tool = byId('f-tool'), sev = byId('f-sev'), text = byId('f-text');
  var count = byId('f-count'), matrix = byId('matrix');
  var items = Array.prototype.slice.call(document.querySelectorAll('.finding'));
  var groups = Array.prototype.slice.call(document.querySelectorAll('.finding-group'));
  function clearSelection() {
    if (!matrix) return;
    Array.prototype.forEach.call(matrix.querySelectorAll('td.selected'), function (c) {
      c.classList.remove('selected');
    });
  }
  function apply() {
    var q = text.value.trim().toLowerCase(), shown = 0;
    items.forEach(function (el) {
      var d = el.dataset, base = d.baselined === '1';
      var ok = (!inv.value || d.invariant === inv.value) &&
          (!tool.value || 't:' + d.tool === tool.value) &&
          (!sev.value || (sev.value === 'baselined' ? base : (!base && d.severity === sev.value))) &&
          (!q || el.textContent.toLowerCase().indexOf(q) !== -1);
      el.hidden = !ok;
      if (ok) shown++;
    });
    groups.forEach(function (g) {
      var any = g.querySelector('.finding:not([hidden])') !== null;
      var none = g.querySelector('.none-match');
      if (none) none.hidden = any || g.querySelectorAll('.finding').length === 0;
    });
    count.textContent = shown + ' of ' + items.length + ' shown';
  }
  [inv, tool, sev].forEach(function (e) {
    e.addEventListener('change', function () { clearSelection(); apply(); });
  });
  text.addEventListener('input', apply);
  byId('f-clear').addEventListener('click', function () {
    inv.value = ''; tool.value = ''; sev.value = ''; text.value = '';
    clearSelection(); apply();
  });
  function pick(td) {
    inv.value = td.dataset.invariant;
    tool.value = 't:' + td.dataset.tool;
    sev.value = ''; text.value = '';
    clearSelection(); td.classList.add('selected'); apply();
    byId('filters').scrollIntoView({ block: 'start' });
  }
  if (matrix) {
    matrix.addEventListener('click', function (ev) {
      var td = ev.target.closest('td.has-findings');
      if (td) pick(td);
    });
    matrix.addEventListener('keydown', function (ev) {
      var td = ev.target.closest('td.has-findings');
      if (td && (ev.key === 'Enter' || ev.key === ' ')) { ev.preventDefault(); pick(td); }
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('button.copy'), function (b) {
    b.hidden = false;
    b.addEventListener('click', function () {
      var code = b.parentNode.querySelector('code'), s = code.textContent;
      var done = function () { b.textContent = 'Copied'; setTimeout(function () { b.textContent = 'Copy'; }, 1500); };
      var fallback = function () {
        var r = document.createRange(); r.selectNodeContents(code);
        var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(r);
        try { if (document.execCommand('copy')) done(); } catch (e) { /* selected; user copies */ }
      };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(s).then(done, fallback);
      else fallback();
    });
  });
  // A link can preselect filters: #invariant=TR-HINT&tool=search&severity=error&q=text
  if (location.hash.length > 1) {
    var params = new URLSearchParams(location.hash.slice(1));
    var set = function (sel, v) {
      if (v !== null && Array.prototype.some.call(sel.options, function (o) { return o.value === v; })) sel.value = v;
    };
    set(inv, params.get('invariant'));
    set(tool, params.has('tool') ? 't:' + params.get('tool') : null);
    set(sev, params.get('severity'));
    if (params.get('q')) text.value = params.get('q');
  }
  byId('filters').hidden = false;
  apply();
  document.body.dataset.ready = '1';
})();
)js";

// ---- report parts -------------------------------------------------------------------------

/// Escaped single-line text.
std::string esc_line(std::string_view s) { return html_escape(display_text(s, false)); }
/// Escaped multi-line text (for <pre> and pre-wrap blocks).
std::string esc_block(std::string_view s) { return html_escape(display_text(s, true)); }

template <typename Info>
std::string help_of(const Info& info) {
  if constexpr (requires { info.help; }) return std::string(info.help);
  else return {};
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string pretty_request(const json& request) {
  return request.dump(2, ' ', false, json::error_handler_t::replace);
}

/// A response excerpt pretty-printed when it is a whole JSON value, else as sent.
std::string pretty_excerpt(const std::string& excerpt) {
  json j = json::parse(excerpt, nullptr, false);
  if (!j.is_discarded() && j.is_structured()) return j.dump(2, ' ', false, json::error_handler_t::replace);
  return excerpt;
}

const char* cell_class(Outcome o) {
  switch (o) {
    case Outcome::kNotApplicable: return "not-applicable";
    case Outcome::kNotObserved: return "not-observed";
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kWarn: return "warn";
    case Outcome::kBaselined: return "baselined";
  }
  return "not-applicable";
}

std::string cell_text(Outcome o, std::size_t n) {
  switch (o) {
    case Outcome::kNotApplicable: return "";
    case Outcome::kNotObserved: return "–";
    case Outcome::kPass: return "✓";
    case Outcome::kFail: return "✗ " + std::to_string(n);
    case Outcome::kWarn: return "⚠ " + std::to_string(n);
    case Outcome::kBaselined: return "B " + std::to_string(n);
  }
  return "";
}

/// Indexes of findings in display order: errors, then warnings, each in report order.
std::vector<std::size_t> ordered(const engine::RunReport& r, bool baselined) {
  std::vector<std::size_t> idx;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < r.findings.size(); ++i) {
      const auto& rf = r.findings[i];
      Severity want = pass == 0 ? Severity::kError : Severity::kWarning;
      if (rf.baselined == baselined && rf.finding.severity == want) idx.push_back(i);
    }
  return idx;
}

void write_header(std::string& o, const engine::RunReport& r, const std::string& version) {
  const std::size_t errors = r.error_count(), warnings = r.warning_count(), base = r.baselined_count();
  const std::string verdict = engine::to_string(r.verdict);
  std::string word = engine::verdict_word(r.verdict);
  std::size_t called = static_cast<std::size_t>(
      std::count_if(r.tools.begin(), r.tools.end(), [](const engine::ToolSummary& t) { return t.calls > 0; }));
  std::string server = r.server_name.empty() ? "(unnamed server)" : r.server_name;

  o += "<header class=\"run verdict-" + verdict + "\" id=\"summary\">\n";
  o += "<h1><span class=\"verdict " + verdict + "\">" + word + "</span>" + esc_line(server);
  if (!r.server_version.empty()) o += " <span class=\"muted\">" + esc_line(r.server_version) + "</span>";
  o += "</h1>\n<div class=\"muted\">";
  if (verdict == "error") o += "The run could not complete. ";
  if (verdict == "untested") o += "Untested (exit code 4): " + esc_line("no call reached the server's tools: " + untested_reason(r)) + ". ";
  if (verdict == "partial")
    o += "Partial: " + esc_line(std::to_string(r.reached_count()) + " of " + std::to_string(r.selected_count()) +
                                " tools reached data; " + partial_reason(r)) + ". ";
  if (r.interrupted) o += "Interrupted: " + esc_line(interrupted_reason(r)) + ". ";
  o += plural(errors, "error", "errors") + ", " + plural(warnings, "warning", "warnings");
  if (base) o += ", " + std::to_string(base) + " baselined";
  o += " in " + plural(r.calls, "call", "calls") + "; seed " + std::to_string(r.seed) + "</div>\n";
  if (r.error) {
    o += "<div class=\"run-error\" id=\"run-error\"><strong>Error";
    if (!r.error->code.empty()) o += " (" + esc_line(r.error->code) + ")";
    o += ":</strong> " + esc_block(r.error->message) + "</div>\n";
  }
  o += "<div class=\"counts\">";
  auto card = [&](const char* cls, const std::string& n, const char* label) {
    o += std::string("<div class=\"count ") + cls + "\"><b>" + n + "</b>" + label + "</div>";
  };
  card("errors", std::to_string(errors), "errors");
  card("warnings", std::to_string(warnings), "warnings");
  card("baselined", std::to_string(base), "baselined");
  card("tools", std::to_string(called) + "/" + std::to_string(r.tools.size()), "tools called");
  card("calls", std::to_string(r.calls), "calls");
  card("duration", format_duration(r.duration.count()), "duration");
  o += "</div>\n<dl class=\"facts\">\n";
  auto fact = [&](const char* k, const std::string& v_html) {
    o += std::string("<dt>") + k + "</dt><dd>" + v_html + "</dd>\n";
  };
  fact("Server", esc_line(server) + (r.server_version.empty() ? "" : " " + esc_line(r.server_version)));
  if (!r.command.empty()) {
    std::string cmd;
    for (const auto& a : r.command) cmd += (cmd.empty() ? "" : " ") + a;
    fact("Command", "<code>" + esc_line(cmd) + "</code>");
  }
  if (!r.url.empty()) fact("URL", "<code>" + esc_line(r.url) + "</code> (Streamable HTTP)");
  if (!r.protocol_version.empty())
    fact("Protocol", esc_line(r.protocol_version) + (r.era.empty() ? "" : " (" + esc_line(r.era) + ")"));
  std::string prof = esc_line(r.profile);
  if (!r.profiles_detected.empty()) {
    prof += " <span class=\"muted\">— envelopes:";
    for (const auto& [name, n] : r.profiles_detected) prof += " " + esc_line(name) + " ×" + std::to_string(n);

    prof += "</span>";
  }
  // Answers no profile matched were read generically: say how (the generic rules judged them).
  if (r.unprofiled_results)
    prof += " <span class=\"muted\">— " + std::to_string(r.unprofiled_results) + " read generically" +
            (r.generic_readings.empty() ? "" : " (" + esc_line(engine::generic_readings_text(r.generic_readings)) + ")") +
            "</span>";
  fact("Profile", prof);
  fact("Seed", "<code>" + std::to_string(r.seed) + "</code>");
  std::string calls = std::to_string(r.calls) + " to " + std::to_string(called) + " of " +
                      plural(r.tools.size(), "tool", "tools");
  if (r.restarts) calls += "; " + plural(r.restarts, "restart", "restarts");
  if (r.sweep_runs) calls += "; " + std::to_string(r.sweep_runs) + " limit-sweep runs";
  fact("Calls", calls);
  if (r.root) fact("Root", "<code>" + esc_line(*r.root) + "</code>");
  if (!r.started_at.empty()) fact("Started", esc_line(r.started_at));
  fact("Harness", "ctxo-conform " + esc_line(version));
  o += "</dl>\n";
  if (!r.notes.empty()) {
    o += "<ul class=\"notes\" id=\"notes\">\n";
    for (const auto& n : r.notes) o += "<li>" + esc_block(n) + "</li>\n";
    o += "</ul>\n";
  }
  o += "</header>\n";
}

void write_matrix(std::string& o, const engine::RunReport& r) {
  Matrix m = build_matrix(r);
  o += "<h2>Tool × invariant matrix</h2>\n";
  if (m.rows.empty() || m.columns.empty()) {
    o += "<p class=\"empty\" id=\"matrix-empty\">No invariant was applied (no tool was called).</p>\n";
    return;
  }
  o += "<div class=\"matrix-wrap\"><table id=\"matrix\">\n<thead><tr><th>tool</th><th>profile</th>";
  for (const auto& c : m.columns) {
    const auto* info = checks::find_invariant(c);
    std::string title = c + (info ? ": " + info->summary : "");
    o += "<th class=\"inv\" scope=\"col\" title=\"" + esc_line(title) + "\"><span>" + esc_line(c) + "</span></th>";
  }
  o += "</tr></thead>\n<tbody>\n";
  for (const auto& row : m.rows) {
    std::string tool_attr = row.server ? "" : esc_line(row.name);
    o += "<tr data-tool=\"" + tool_attr + "\"" + (row.server ? " class=\"server\"" : "") + "><th scope=\"row\" title=\"" +
         esc_line(row.name) + "\">" + esc_line(row.name) + "</th>";
    std::string prof = row.server ? "" : row.profile.empty() ? "none" : row.profile;
    o += "<td class=\"profile\"" + (row.profile_reason.empty() ? "" : " title=\"" + esc_line(row.profile_reason) + "\"") +
         ">" + esc_line(prof) + "</td>";
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
      Outcome oc = row.cells[c];
      std::size_t n = row.occurrences[c];
      std::string title = m.columns[c] + " on " + row.name + ": " + outcome_name(oc);
      if (n) title += " (" + plural(n, "occurrence", "occurrences") + ")";
      if (oc == Outcome::kNotObserved && !row.reasons[c].empty()) title += " (" + row.reasons[c] + ")";
      bool has = n > 0;
      o += "<td class=\"" + std::string(cell_class(oc)) + (has ? " has-findings\" tabindex=\"0" : "") +
           "\" data-invariant=\"" + esc_line(m.columns[c]) + "\" data-tool=\"" + tool_attr + "\" title=\"" + esc_line(title) +
           "\">" + cell_text(oc, n) + "</td>";
    }
    o += "</tr>\n";
  }
  o += "</tbody></table></div>\n";
  o += "<p class=\"legend\"><span class=\"pass\">✓ pass</span><span class=\"fail\">✗ n fail</span>"
       "<span class=\"warn\">⚠ n warning</span><span class=\"baselined\">B n baselined (accepted)</span>"
       "<span>– not observed (hover for why)</span><span>blank: not applicable</span>"
       "<span>n = occurrences; click a cell to see its findings</span></p>\n";
}

// For each tool with not-observed invariants, one line per reason.
void write_not_observed(std::string& o, const engine::RunReport& r) {
  std::string items;
  for (const auto* t : tools_by_name(r))
    for (const auto& g : group_not_observed(*t)) {
      std::string ids;
      for (const auto& id : g.ids) ids += (ids.empty() ? "" : ", ") + ("<code>" + esc_line(id) + "</code>");
      items += "<li data-tool=\"" + esc_line(t->name) + "\"><code>" + esc_line(t->name) + "</code>: " + ids +
               " not observed (" + esc_line(g.reason) + ")</li>\n";
    }
  if (items.empty()) return;
  o += "<section id=\"not-observed\">\n<h2>Not observed</h2>\n<p class=\"muted\">These rules apply to the tool, but no "
       "answer gave them anything to judge: they neither passed nor failed.</p>\n<ul>\n" + items + "</ul>\n</section>\n";
}

void write_filters(std::string& o, const engine::RunReport& r) {
  std::set<std::string> invs, tools;
  for (const auto& rf : r.findings) {
    invs.insert(display_text(rf.finding.invariant, false));
    tools.insert(display_text(rf.finding.tool, false));
  }
  o += "<form id=\"filters\" hidden>\n<label>Invariant <select id=\"f-inv\"><option value=\"\">all</option>";
  // Registry order for known ids, then the rest.
  std::vector<std::string> inv_order;
  for (const auto& info : checks::registry())
    if (invs.count(info.id)) inv_order.push_back(info.id);
  for (const auto& id : invs)
    if (std::find(inv_order.begin(), inv_order.end(), id) == inv_order.end()) inv_order.push_back(id);
  for (const auto& id : inv_order) o += "<option value=\"" + html_escape(id) + "\">" + html_escape(id) + "</option>";
  o += "</select></label>\n<label>Tool <select id=\"f-tool\"><option value=\"\">all</option>";
  for (const auto& t : tools)
    o += "<option value=\"t:" + html_escape(t) + "\">" + (t.empty() ? "(server)" : html_escape(t)) + "</option>";
  o += "</select></label>\n<label>Severity <select id=\"f-sev\"><option value=\"\">all</option>"
       "<option value=\"error\">error</option><option value=\"warning\">warning</option>"
       "<option value=\"baselined\">baselined</option></select></label>\n"
       "<input id=\"f-text\" type=\"search\" placeholder=\"Search diagnosis, request, response…\" "
       "aria-label=\"Search findings\">\n<button type=\"button\" id=\"f-clear\">Clear</button>\n"
       "<span id=\"f-count\"></span>\n</form>\n";
}

void write_finding(std::string& o, const engine::ReportedFinding& rf, std::size_t number) {
  const Finding& f = rf.finding;
  const char* sev = to_string(f.severity);
  std::string tool = display_text(f.tool, false);
  o += "<article class=\"finding sev-" + std::string(sev) + (rf.baselined ? " is-baselined" : "") +
       "\" id=\"finding-" + std::to_string(number) + "\" data-invariant=\"" + esc_line(f.invariant) + "\" data-tool=\"" +
       html_escape(tool) + "\" data-severity=\"" + sev + "\" data-baselined=\"" + (rf.baselined ? "1" : "0") + "\">\n";
  o += "<div class=\"head\"><span class=\"badge " + std::string(sev) + "\">" + sev + "</span>";
  if (rf.baselined) o += "<span class=\"badge baselined\">baselined</span>";
  o += "<code class=\"inv\">" + esc_line(f.invariant) + "</code>";
  o += "<span class=\"tool\">" +
       (f.tool.empty() ? std::string("server-level") : "tool <code>" + html_escape(tool) + "</code>") + "</span>";
  if (auto on = engine::tools_phrase(rf); !on.empty())
    o += "<span class=\"tools\">" + html_escape(display_text(on, false)) + "</span>";
  if (rf.count > 1) o += "<span class=\"times\">× " + std::to_string(rf.count) + "</span>";
  if (!f.file.empty()) {
    std::string loc = f.file + (f.line ? ":" + std::to_string(f.line) : "") +
                      (f.line && f.column ? ":" + std::to_string(f.column) : "");
    o += "<span class=\"loc\"><code>" + esc_line(loc) + "</code></span>";
  }
  o += "<span class=\"num\">#" + std::to_string(number) + "</span></div>\n";
  o += "<div class=\"diagnosis\">" + esc_block(f.diagnosis) + "</div>\n";
  if (const auto* info = checks::find_invariant(f.invariant)) {
    o += "<p class=\"rule\">" + esc_line(info->summary);
    if (!info->spec_ref.empty()) o += " <span class=\"ref\">(" + esc_line(info->spec_ref) + ")</span>";
    o += "</p>\n";
    std::string help = help_of(*info);
    if (!help.empty()) o += "<p class=\"help\"><strong>How to fix:</strong> " + esc_block(help) + "</p>\n";
  }
  o += "<details class=\"evidence\"><summary>request / response</summary>\n<h4>Request</h4>\n";
  if (f.request.is_null()) o += "<p class=\"empty\">No request: a server-level finding.</p>\n";
  else o += "<pre class=\"request\"><code>" + esc_block(pretty_request(f.request)) + "</code></pre>\n";
  o += "<h4>Response excerpt</h4>\n";
  if (f.response_excerpt.empty()) o += "<p class=\"empty\">(none)</p>\n";
  else o += "<pre class=\"response\"><code>" + esc_block(pretty_excerpt(f.response_excerpt)) + "</code></pre>\n";
  o += "</details>\n";
  if (!f.replay.empty())
    o += "<div class=\"replay\"><pre><code>" + esc_line(f.replay) +
         "</code></pre><button type=\"button\" class=\"copy\" hidden>Copy</button></div>\n";
  o += "</article>\n";
}

void write_findings(std::string& o, const engine::RunReport& r) {
  auto active = ordered(r, false), accepted = ordered(r, true);
  std::size_t number = 0;
  o += "<section class=\"finding-group\" id=\"findings\">\n<h2>Findings (" + std::to_string(active.size()) + ")</h2>\n";
  write_filters(o, r);
  if (active.empty()) o += "<p class=\"empty\">No findings.</p>\n";
  o += "<p class=\"empty none-match\" hidden>No finding matches the filter.</p>\n";
  for (auto i : active) write_finding(o, r.findings[i], ++number);
  o += "</section>\n";
  if (!accepted.empty()) {
    o += "<section class=\"finding-group\" id=\"baselined\">\n<h2>Accepted by the baseline (" +
         std::to_string(accepted.size()) +
         ")</h2>\n<p class=\"muted\">Listed in --baseline: reported, but they do not fail the run.</p>\n"
         "<p class=\"empty none-match\" hidden>No finding matches the filter.</p>\n";
    for (auto i : accepted) write_finding(o, r.findings[i], ++number);
    o += "</section>\n";
  }
  if (!r.baseline_stale.empty()) {
    o += "<section id=\"stale-baseline\">\n<h2>Stale baseline entries (" + std::to_string(r.baseline_stale.size()) +
         ")</h2>\n<p>These entries no longer fail: remove them from the baseline.</p>\n<ul class=\"stale\">\n";
    for (const auto& e : r.baseline_stale)
      o += "<li><code>" + esc_line(e.invariant) + "</code> " +
           (e.tool.empty() ? std::string("server-level") : "on tool <code>" + esc_line(e.tool) + "</code>") + "</li>\n";
    o += "</ul>\n</section>\n";
  }
}

// What each called tool's calls reached; a tool that reached no data is flagged.
void write_coverage(std::string& o, const engine::RunReport& r) {
  const CoverageRows called = coverage_rows(r);
  const std::size_t none = called.without_data;
  std::string rows;
  for (const auto* t : called.tools) {
    const checks::Coverage& c = t->coverage;
    auto td = [](std::size_t v, const char* cls = "n") {
      return "<td class=\"" + std::string(cls) + "\">" + std::to_string(v) + "</td>";
    };
    rows += std::string("<tr") + (c.data == 0 ? " class=\"no-data\"" : "") + " data-tool=\"" + esc_line(t->name) +
            "\"><td><code>" + esc_line(t->name) + "</code></td>" + td(c.calls) + td(c.data, "n data") + td(c.self_made) + td(c.empty) +
            td(c.misses) + td(c.errors) + td(c.leaks) + td(c.refusals) + td(c.no_answer) + "<td class=\"n\">" +
            std::to_string(c.largest_bytes) + " B</td>" + td(c.truncated) + td(t->second_pass_calls) +
            td(t->driven_calls) + "</tr>\n";
  }
  if (rows.empty()) return;
  o += "<section id=\"coverage-section\">\n<h2>Coverage</h2>\n<p class=\"muted\">What each tool's calls reached. "
       "<b>data</b>: a success answer that carries data; <b>self-made</b>: data about what the run itself wrote "
       "earlier (not the server's own); <b>empty</b>: a success with an empty result; <b>miss</b>: "
       "a graceful not-found; <b>error</b>: an error to a valid call (error text without isError included); "
       "<b>leak</b>: a JavaScript <code>undefined</code>, <code>NaN</code> or <code>[object Object]</code> where a "
       "value should be; <b>refused</b>: an error to a call generated invalid (expected).";
  if (none) o += " " + std::to_string(none) + (none == 1 ? " tool" : " tools") + " reached no data: " +
                 (none == 1 ? "its" : "their") + " success answers were never checked.";
  o += "</p>\n<table id=\"coverage\">\n<thead><tr><th>tool</th><th>calls</th><th>data</th><th>self-made</th><th>empty</th><th>miss</th>"
       "<th>error</th><th>leak</th><th>refused</th><th>no answer</th><th>largest</th><th>truncated</th><th>2nd pass</th>"
       "<th>driven</th></tr></thead>\n<tbody>\n" + rows + "</tbody></table>\n</section>\n";
}

void write_tools(std::string& o, const engine::RunReport& r) {
  if (r.tools.empty()) return;
  o += "<section>\n<h2>Tools (" + std::to_string(r.tools.size()) + ")</h2>\n<table id=\"tools\">\n"
       "<thead><tr><th>tool</th><th>calls</th><th>successes</th><th>findings</th><th>time</th><th>profile</th><th>notes</th>"
       "</tr></thead>\n<tbody>\n";
  for (const auto& t : r.tools) {
    std::string notes;
    if (!t.selected) notes = "not selected";
    else if (!t.read_only) notes = "may write (not annotated readOnlyHint)";
    if (!t.skipped.empty()) notes += (notes.empty() ? "" : "; ") + t.skipped;
    if (!t.changes.empty()) notes += (notes.empty() ? "" : "; ") + std::to_string(t.changes.count()) + " file change(s)";
    std::string prof = esc_line(t.profile.empty() ? "none" : t.profile);
    if (!t.profile_reason.empty()) prof += " <span class=\"muted\">(" + esc_line(t.profile_reason) + ")</span>";
    o += "<tr><td><code>" + esc_line(t.name) + "</code></td><td class=\"n\">" + std::to_string(t.calls) +
         "</td><td class=\"n\">" + std::to_string(t.successes) + "</td><td class=\"n\">" + std::to_string(t.findings) +
         "</td><td class=\"n\">" + format_duration(t.elapsed.count()) + "</td><td>" + prof + "</td><td>" +
         esc_block(notes) + "</td></tr>\n";
  }
  o += "</tbody></table>\n</section>\n";
}

}  // namespace

std::string to_html(const engine::RunReport& r, const std::string& version) {
  std::string server = r.server_name.empty() ? "(unnamed server)" : r.server_name;
  std::string word = engine::verdict_word(r.verdict);
  std::string o;
  o.reserve(16384 + r.findings.size() * 2048);
  o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // No network: default-src 'none'; only the two inline blocks below may run/apply.
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src " + csp_hash(kStyle) +
       "; script-src " + csp_hash(kScript) + "; img-src data:; base-uri 'none'; form-action 'none'\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += "<meta name=\"generator\" content=\"ctxo-conform " + esc_line(version) + "\">\n";
  o += "<title>ctxo-conform: " + word + " — " + esc_line(server) + "</title>\n";
  o += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n<main>\n";
  write_header(o, r, version);
  write_matrix(o, r);
  write_not_observed(o, r);
  write_coverage(o, r);
  write_findings(o, r);
  write_tools(o, r);
  if (!r.stderr_tail.empty()) {
    std::string tail = r.stderr_tail.size() > 8000 ? r.stderr_tail.substr(r.stderr_tail.size() - 8000) : r.stderr_tail;
    o += "<section>\n<h2>Server stderr</h2>\n<details><summary>last " + std::to_string(tail.size()) +
         " bytes</summary>\n<pre id=\"stderr\"><code>" + esc_block(tail) + "</code></pre>\n</details>\n</section>\n";
  }
  o += "<footer>Generated by ctxo-conform " + esc_line(version) + ". Self-contained: this file loads nothing.</footer>\n";
  o += "</main>\n<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n";
  return o;
}

}  // namespace ctxo::reports
