// SPDX-License-Identifier: MIT
// HTML report (static checks): summary, matrix cells, finding blocks and their attributes,
// escaping of hostile text, and that no tag or style refers to anything on the network.
#include "reports/html.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <tuple>

#include "checks/registry.h"
#include "core/text.h"
#include "report_fixtures.h"

namespace ctxo::test {
namespace {

using reports::display_text;
using reports::html_escape;

std::string attr(const std::string& raw) { return html_escape(display_text(raw, false)); }

std::string regex_quote(const std::string& s) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(s, special, R"(\$&)");
}

struct Cell {
  std::string cls, text;
  bool found = false;
};

Cell matrix_cell(const std::string& html, const std::string& tool, const std::string& inv) {
  std::regex re("<td class=\"([^\"]*)\"(?: tabindex=\"0\")? data-invariant=\"" + regex_quote(attr(inv)) +
                "\" data-tool=\"" + regex_quote(attr(tool)) + "\" title=\"[^\"]*\">([^<]*)</td>");
  std::smatch m;
  if (!std::regex_search(html, m, re)) return {};
  return {m[1], m[2], true};
}

using Article = std::tuple<std::string, std::string, std::string, std::string>;  // inv, tool, severity, baselined

std::multiset<Article> articles(const std::string& html) {
  std::multiset<Article> out;
  std::regex re(R"re(<article class="finding[^"]*" id="finding-\d+" data-invariant="([^"]*)" data-tool="([^"]*)" data-severity="([^"]*)" data-baselined="([01])">)re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), re); it != std::sregex_iterator(); ++it)
    out.insert({(*it)[1], (*it)[2], (*it)[3], (*it)[4]});
  return out;
}

/// Every tag in the document (the contents of <style> and <script> skipped), as written.
std::vector<std::string> tags(const std::string& html) {
  std::vector<std::string> out;
  for (std::size_t p = html.find('<'); p != std::string::npos;) {
    std::size_t e = html.find('>', p);
    if (e == std::string::npos) break;
    std::string tag = html.substr(p, e - p + 1);
    out.push_back(tag);
    std::size_t next = e + 1;
    if (tag.rfind("<style", 0) == 0) next = html.find("</style>", e);
    if (tag.rfind("<script", 0) == 0) next = html.find("</script>", e);
    p = next == std::string::npos ? next : html.find('<', next);
  }
  return out;
}

std::string tag_name(const std::string& tag) {
  std::size_t b = tag[1] == '/' ? 2 : 1, e = b;
  while (e < tag.size() && (std::isalnum(static_cast<unsigned char>(tag[e])) || tag[e] == '!')) ++e;
  return tag.substr(b, e - b);
}

/// Fails the test when a tag is not one the writer emits, carries an event handler, or points
/// at the network; or when the style loads anything.
void expect_only_our_markup(const std::string& html) {
  static const std::set<std::string> allowed = {
      "!DOCTYPE", "html", "head", "meta", "title", "style", "body", "main", "header", "h1", "h2", "h4", "div", "span",
      "b", "strong", "dl", "dt", "dd", "ul", "li", "p", "table", "thead", "tbody", "tr", "th", "td", "form",
      "label", "select", "option", "input", "button", "section", "article", "code", "pre", "details", "summary",
      "footer", "script"};
  for (const auto& tag : tags(html)) {
    EXPECT_TRUE(allowed.count(tag_name(tag))) << "unexpected tag " << tag;
    EXPECT_FALSE(std::regex_search(tag, std::regex(R"(\son[a-z]+\s*=)", std::regex::icase))) << tag;
    EXPECT_FALSE(std::regex_search(tag, std::regex(R"((https?:|//|\s(src|href|srcset|action|poster|formaction)\s*=))",
                                                   std::regex::icase)))
        << "network reference in " << tag;
  }
  std::size_t s = html.find("<style>"), e = html.find("</style>");
  ASSERT_TRUE(s != std::string::npos && e != std::string::npos);
  std::string css = html.substr(s, e - s);
  EXPECT_EQ(css.find("url("), std::string::npos);
  EXPECT_EQ(css.find("@import"), std::string::npos);
  EXPECT_EQ(css.find("//"), std::string::npos);
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

TEST(Html, PassingRunSummaryAndMatrix) {
  std::string html = reports::to_html(passing_report(), "9.8.7");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_NE(html.find("<span class=\"verdict pass\">PASS</span>fixture-server"), std::string::npos);
  EXPECT_NE(html.find("<dt>Seed</dt><dd><code>42</code></dd>"), std::string::npos);
  EXPECT_NE(html.find("ctxo-conform 9.8.7"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"matrix\">"), std::string::npos);
  EXPECT_NE(html.find("<tr data-tool=\"\" class=\"server\"><th scope=\"row\" title=\"(server)\">(server)</th>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr data-tool=\"search\">"), std::string::npos);
  EXPECT_EQ(html.find("<tr data-tool=\"delete_file\">"), std::string::npos) << "never called: no row";
  Cell c = matrix_cell(html, "search", "TR-HINT");
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.cls, "pass");
  EXPECT_EQ(c.text, "✓");
  c = matrix_cell(html, "", "P-INIT");
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.cls, "pass");
  c = matrix_cell(html, "read_file", "P-ACCEPT");
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.cls, "not-applicable");
  EXPECT_EQ(c.text, "");
  EXPECT_TRUE(articles(html).empty());
  EXPECT_NE(html.find("<p class=\"empty\">No findings.</p>"), std::string::npos);
  expect_only_our_markup(html);
}

TEST(Html, StatusesNotObservedAndProfiles) {
  std::string html = reports::to_html(judged_report(), "1.0.0");
  Cell c = matrix_cell(html, "search", "TR-HINT");
  ASSERT_TRUE(c.found) << html;
  EXPECT_EQ(c.cls, "not-observed");
  EXPECT_EQ(c.text, "–");
  EXPECT_NE(html.find("title=\"TR-HINT on search: not observed (no answer was truncated)\">–</td>"),
            std::string::npos);
  c = matrix_cell(html, "read_file", "TR-CAP");
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.cls, "not-applicable");
  EXPECT_EQ(c.text, "");
  EXPECT_EQ(matrix_cell(html, "search", "TR-COUNT").cls, "pass");
  EXPECT_FALSE(matrix_cell(html, "search", "B-USED").found) << "applies nowhere: no column";
  EXPECT_NE(html.find("<th>tool</th><th>profile</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"profile\" title=\"detected from its answers\">ctxo</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"profile\" title=\"no answer matched a profile\">none</td>"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"not-observed\">"), std::string::npos);
  EXPECT_NE(html.find("<li data-tool=\"search\"><code>search</code>: <code>TR-HINT</code>, <code>TR-PREFIX</code> "
                      "not observed (no answer was truncated)</li>"),
            std::string::npos);
  EXPECT_NE(html.find("<code>TR-CAP</code> not observed (no call set a limit)</li>"), std::string::npos);
  EXPECT_EQ(reports::to_html(passing_report(), "1").find("id=\"not-observed\""), std::string::npos);
  expect_only_our_markup(html);
}

TEST(Html, UntestedVerdict) {
  std::string html = reports::to_html(untested_report(), "1.0.0");
  EXPECT_NE(html.find("<header class=\"run verdict-untested\""), std::string::npos);
  EXPECT_NE(html.find("<span class=\"verdict untested\">UNTESTED</span>"), std::string::npos);
  EXPECT_NE(html.find("Untested (exit code 4): no call reached the server&#39;s tools: all 17 calls were answered"),
            std::string::npos)
      << html.substr(html.find("<header"), 1200);
  EXPECT_NE(html.find("<title>ctxo-conform: UNTESTED"), std::string::npos);
}

TEST(Html, FailingRunMatrixAndFindings) {
  std::string html = reports::to_html(failing_report(), "0.1.0");
  EXPECT_NE(html.find("<span class=\"verdict fail\">FAIL</span>"), std::string::npos);
  EXPECT_NE(html.find("3 errors, 1 warning, 1 baselined in 17 calls; seed 42"), std::string::npos);

  struct Want {
    const char *tool, *inv, *cls, *text;
  };
  for (const Want& w : {Want{"search", "TR-HINT", "fail has-findings", "✗ 3"},
                        Want{"search", "P-ACCEPT", "warn has-findings", "⚠ 1"},
                        Want{"search", "P-RESULT", "pass", "✓"},
                        Want{"read_file", "P-RESULT", "fail has-findings", "✗ 1"},
                        Want{"read_file", "TR-COUNT", "baselined has-findings", "B 2"},
                        Want{"", "P-LIST", "fail has-findings", "✗ 1"},
                        Want{"", "T-SHUTDOWN", "pass", "✓"}}) {
    Cell c = matrix_cell(html, w.tool, w.inv);
    ASSERT_TRUE(c.found) << w.tool << " " << w.inv;
    EXPECT_EQ(c.cls, w.cls) << w.tool << " " << w.inv;
    EXPECT_EQ(c.text, w.text) << w.tool << " " << w.inv;
  }
  EXPECT_NE(html.find("title=\"TR-HINT on search: fail (3 occurrences)\""), std::string::npos);

  std::multiset<Article> want = {{"TR-HINT", "search", "error", "0"},   {"P-RESULT", "read_file", "error", "0"},
                                 {"P-LIST", "", "error", "0"},          {"P-ACCEPT", "search", "warning", "0"},
                                 {"TR-COUNT", "read_file", "error", "1"}};
  EXPECT_EQ(articles(html), want);
  // The baselined one is in its own section, after the active ones.
  std::size_t base = html.find("<section class=\"finding-group\" id=\"baselined\">");
  ASSERT_NE(base, std::string::npos);
  EXPECT_GT(html.find("data-invariant=\"TR-COUNT\" data-tool=\"read_file\" data-severity"), base);
  EXPECT_LT(html.find("data-invariant=\"P-ACCEPT\" data-tool=\"search\" data-severity"), base);
  EXPECT_LT(html.find("data-invariant=\"TR-HINT\" data-tool=\"search\" data-severity"),
            html.find("data-invariant=\"P-ACCEPT\" data-tool=\"search\" data-severity"))
      << "errors before warnings";

  // Finding contents: registry summary, diagnosis, pretty request, excerpt, replay.
  const auto* info = checks::find_invariant("TR-HINT");
  ASSERT_NE(info, nullptr);
  EXPECT_NE(html.find("<p class=\"rule\">" + attr(info->summary)), std::string::npos);
  EXPECT_NE(html.find("<div class=\"diagnosis\">_meta.truncated is true but _meta.hint is missing</div>"),
            std::string::npos);
  EXPECT_NE(html.find("<pre class=\"request\"><code>{\n  &quot;id&quot;: 7,\n  &quot;jsonrpc&quot;: &quot;2.0&quot;,\n"
                      "  &quot;method&quot;: &quot;tools/call&quot;"),
            std::string::npos);
  EXPECT_NE(html.find("<pre class=\"response\"><code>{\n  &quot;id&quot;: 9,"), std::string::npos);
  EXPECT_NE(html.find("<pre class=\"response\"><code>{&quot;returnedItems&quot;:3</code></pre>"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"empty\">No request: a server-level finding.</p>"), std::string::npos);
  EXPECT_NE(html.find("<pre><code>ctxo-conform replay case-TR-HINT.json</code></pre>"
                      "<button type=\"button\" class=\"copy\" hidden>Copy</button>"),
            std::string::npos);
  EXPECT_EQ(count(html, "<summary>request / response</summary>"), 5u);
  EXPECT_NE(html.find("<span class=\"times\">× 3</span>"), std::string::npos);

  // Filters: every invariant and tool with findings, the server as "t:".
  EXPECT_NE(html.find("<form id=\"filters\" hidden>"), std::string::npos);
  for (const char* opt : {"<option value=\"TR-HINT\">", "<option value=\"P-LIST\">", "<option value=\"t:search\">",
                          "<option value=\"t:\">(server)</option>", "<option value=\"baselined\">"})
    EXPECT_NE(html.find(opt), std::string::npos) << opt;

  EXPECT_NE(html.find("<section id=\"stale-baseline\">"), std::string::npos);
  EXPECT_NE(html.find("<li><code>E-MISS</code> on tool <code>search</code></li>"), std::string::npos);
  EXPECT_NE(html.find("<li><code>T-SHUTDOWN</code> server-level</li>"), std::string::npos);
  EXPECT_NE(html.find("<pre id=\"stderr\"><code>server: warning: slow disk\n</code></pre>"), std::string::npos);
  expect_only_our_markup(html);
}

TEST(Html, RunError) {
  std::string html = reports::to_html(error_report(), "0.1.0");
  EXPECT_NE(html.find("<span class=\"verdict error\">ERROR</span>(unnamed server)"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"run-error\" id=\"run-error\"><strong>Error (spawn):</strong> cannot start "
                      "&#39;./missing-server&#39;: No such file or directory</div>"),
            std::string::npos);
  EXPECT_NE(html.find("id=\"matrix-empty\""), std::string::npos);
  EXPECT_NE(html.find("<li>nothing was called</li>"), std::string::npos);
  expect_only_our_markup(html);
}

TEST(Html, HostileTextIsEscaped) {
  std::string html = reports::to_html(hostile_report(), "0.1.0");
  EXPECT_TRUE(is_valid_utf8(html));
  for (unsigned char c : html) EXPECT_FALSE(c < 0x20 && c != '\n') << "control byte " << int(c);
  EXPECT_EQ(count(html, "<script"), 1u) << "only our own script";
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("</script><script>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("<i>"), std::string::npos);
  EXPECT_GE(count(html, "&lt;script&gt;alert(1)&lt;/script&gt;"), 5u);
  expect_only_our_markup(html);

  // The hostile tool has its row, cell and article, attributes escaped.
  std::string tool_attr = attr(kHostileTool);
  EXPECT_EQ(tool_attr, "evil|tool`x`&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_NE(html.find("<tr data-tool=\"" + tool_attr + "\">"), std::string::npos);
  Cell c = matrix_cell(html, kHostileTool, "P-RESULT");
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.cls, "fail has-findings");
  EXPECT_EQ(c.text, "✗ 2");
  EXPECT_EQ(articles(html).count({"P-RESULT", tool_attr, "error", "0"}), 1u);
  EXPECT_NE(html.find("<option value=\"t:" + tool_attr + "\">"), std::string::npos);
  // Its coverage row, flagged (it reached no data), name escaped; leaks have their own column.
  EXPECT_NE(html.find("<th>miss</th><th>error</th><th>leak</th><th>refused</th>"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"no-data\" data-tool=\"" + tool_attr + "\"><td><code>" + tool_attr +
                      "</code></td><td class=\"n\">2</td><td class=\"n data\">0</td>"),
            std::string::npos)
      << html;

  // Diagnosis: newlines kept in a pre-wrap block, bad bytes and controls visible.
  EXPECT_NE(html.find("<div class=\"diagnosis\">diag &lt;script&gt;alert(1)&lt;/script&gt; a|b ``` c\n## not a "
                      "heading\n&lt;img src=x onerror=&quot;document.body.dataset.pwned=&#39;1&#39;&quot;&gt; "
                      "bad\\xFF\\xFE utf8 \\x1B[31mred \\x00 nul \\u202E rtl &amp; &lt;b&gt;bold&lt;/b&gt; "
                      "https://evil.example/x.js</div>"),
            std::string::npos);
  EXPECT_NE(html.find("fence&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;\\xC0\\xAF\\x07&lt;link "
                      "href=&quot;//evil.example/a.css&quot;&gt;"),
            std::string::npos);
  EXPECT_NE(html.find("&quot;q&quot;: &quot;&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;"),
            std::string::npos);
  EXPECT_NE(html.find("&quot;raw&quot;: &quot;\xEF\xBF\xBD\xEF\xBF\xBD&quot;"), std::string::npos);
  EXPECT_NE(html.find("<title>ctxo-conform: FAIL — &lt;script&gt;alert(1)&lt;/script&gt;|srv`</title>"),
            std::string::npos);
}

TEST(Html, ContentSecurityPolicyForbidsTheNetwork) {
  std::string html = reports::to_html(failing_report(), "0.1.0");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, std::regex("<meta http-equiv=\"Content-Security-Policy\" content=\"([^\"]*)\">")));
  std::string csp = m[1];
  EXPECT_EQ(csp.rfind("default-src 'none'; ", 0), 0u) << csp;
  EXPECT_TRUE(std::regex_search(csp, std::regex("script-src 'sha256-[A-Za-z0-9+/]{43}='"))) << csp;
  EXPECT_TRUE(std::regex_search(csp, std::regex("style-src 'sha256-[A-Za-z0-9+/]{43}='"))) << csp;
  EXPECT_EQ(csp.find("unsafe"), std::string::npos);
}

TEST(Html, DisplayText) {
  EXPECT_EQ(display_text("a\r\nb\tc", true), "a\nb\tc");
  EXPECT_EQ(display_text("a\r\nb", false), "a\\x0D\\x0Ab");
  EXPECT_EQ(display_text("\xe2\x80\xae\xc2\x85\x7f", false), "\\u202E\\u0085\\x7F");
  EXPECT_EQ(display_text("\xed\xa0\x80", false), "\\xED\\xA0\\x80") << "a surrogate is not UTF-8";
  EXPECT_EQ(display_text("\xf0\x9f\x98\x80 é 中 ", false), "\xf0\x9f\x98\x80 é 中 ");
  EXPECT_EQ(display_text("\xe4\xb8", false), "\\xE4\\xB8") << "cut sequence";
  EXPECT_EQ(html_escape("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
  EXPECT_EQ(reports::format_duration(850), "850 ms");
  EXPECT_EQ(reports::format_duration(3240), "3.2 s");
  EXPECT_EQ(reports::format_duration(125000), "2 min 5 s");
}

}  // namespace
}  // namespace ctxo::test
