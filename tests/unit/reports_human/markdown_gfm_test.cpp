// SPDX-License-Identifier: MIT
// Markdown report through cmark-gfm (GitHub's own parser) with raw HTML allowed: hostile text
// must come out as text, the matrix as a table of the right shape, evidence inside <pre>.
// Skipped when cmark-gfm is not installed (Debian package 'cmark-gfm'); it is not required.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "report_fixtures.h"
#include "reports/html.h"
#include "reports/markdown.h"

namespace ctxo::test {
namespace {

namespace fs = std::filesystem;

std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    fs::path p = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return {};
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

TEST(MarkdownGfm, HostileReportRendersAsText) {
  std::string cmark = on_path("cmark-gfm");
  if (cmark.empty()) GTEST_SKIP() << "cmark-gfm not installed (apt-get install cmark-gfm)";
  std::string tmpl = (fs::temp_directory_path() / "ctxo-md-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  fs::path dir = tmpl;
  std::ofstream(dir / "report.md", std::ios::binary) << reports::to_markdown(hostile_report(), "0.1.0");
  std::string cmd = "'" + cmark + "' -e table -e autolink -e strikethrough --unsafe '" + (dir / "report.md").string() +
                    "' > '" + (dir / "report.html").string() + "'";
  int rc = std::system(cmd.c_str());
  std::ifstream in(dir / "report.html", std::ios::binary);
  std::string html((std::istreambuf_iterator<char>(in)), {});
  std::error_code ec;
  fs::remove_all(dir, ec);
  ASSERT_EQ(rc, 0) << cmd;

  for (const char* bad : {"<script", "<img", "<link", "<i>", "<b>", "<a ", "<h2>not a heading", "<del>"})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad << " in\n" << html;
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);

  // The matrix: a header of 9 columns (tool, profile, 7 invariants) and 4 body rows of 9 cells.
  std::size_t t = html.find("<table>", html.find("<h2>Tool × invariant matrix</h2>"));
  ASSERT_NE(t, std::string::npos) << html;
  std::string table = html.substr(t, html.find("</table>", t) - t);
  EXPECT_EQ(count(table, "<th align="), 9u);
  EXPECT_EQ(count(table, "<tr>"), 5u);
  EXPECT_EQ(count(table, "<td"), 36u);
  EXPECT_NE(table.find("<td align=\"left\"><code>evil|tool`x`&lt;script&gt;alert(1)&lt;/script&gt;</code></td>"),
            std::string::npos)
      << table;

  // Evidence: the whole excerpt is one code block; every <details> is closed.
  std::string excerpt = reports::html_escape(reports::display_text(kHostileExcerpt, true));
  std::string quoted = std::regex_replace(excerpt, std::regex("&#39;"), "'");
  EXPECT_NE(html.find("<pre><code class=\"language-text\">" + quoted + "\n</code></pre>"), std::string::npos) << html;
  EXPECT_EQ(count(html, "<details>"), count(html, "</details>"));
  EXPECT_EQ(count(html, "<summary>request / response</summary>"), 6u);
}

}  // namespace
}  // namespace ctxo::test
