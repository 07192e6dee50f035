// SPDX-License-Identifier: MIT
// Markdown report: heading and facts, the tool x invariant table (parsed as GFM would), the
// findings with their evidence blocks, baseline sections, and escaping of hostile text.
#include "reports/markdown.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/text.h"
#include "report_fixtures.h"
#include "reports/html.h"

namespace ctxo::test {
namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// Splits a GFM table row on unescaped pipes (what GitHub does before inline parsing).
std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      cur += line[i];
      cur += line[++i];
    } else if (line[i] == '|') {
      cells.push_back(cur);
      cur.clear();
    } else {
      cur += line[i];
    }
  }
  cells.push_back(cur);
  // Leading and trailing pipes give empty outer cells.
  if (!cells.empty() && cells.front().find_first_not_of(' ') == std::string::npos) cells.erase(cells.begin());
  if (!cells.empty() && cells.back().find_first_not_of(' ') == std::string::npos) cells.pop_back();
  for (auto& c : cells) {
    auto b = c.find_first_not_of(' '), e = c.find_last_not_of(' ');
    c = b == std::string::npos ? "" : c.substr(b, e - b + 1);
  }
  return cells;
}

/// The table right after `heading`: header cells, then rows (first cell -> cells).
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string cell(const std::string& row, const std::string& col) const {
    std::size_t c = 0;
    while (c < header.size() && header[c] != col) ++c;
    if (c == header.size()) return "<no column " + col + ">";
    for (const auto& r : rows)
      if (!r.empty() && r[0] == row) return c < r.size() ? r[c] : "<short row>";
    return "<no row " + row + ">";
  }
};

Table table_after(const std::string& md, const std::string& heading) {
  Table t;
  auto ls = lines_of(md);
  std::size_t i = 0;
  while (i < ls.size() && ls[i] != heading) ++i;
  while (i < ls.size() && (ls[i].empty() || ls[i][0] != '|')) ++i;
  if (i >= ls.size()) return t;
  t.header = split_row(ls[i]);
  i += 2;  // skip the delimiter row
  for (; i < ls.size() && !ls[i].empty() && ls[i][0] == '|'; ++i) t.rows.push_back(split_row(ls[i]));
  return t;
}

/// Fenced code blocks, closed by CommonMark's rule (a line of at least as many backticks).
std::vector<std::string> fenced_blocks(const std::string& md) {
  std::vector<std::string> blocks;
  auto ls = lines_of(md);
  for (std::size_t i = 0; i < ls.size(); ++i) {
    std::size_t n = ls[i].find_first_not_of('`');
    if (n == std::string::npos) n = ls[i].size();
    if (n < 3 || ls[i].find('`', n) != std::string::npos) continue;
    std::string body;
    std::size_t j = i + 1;
    for (; j < ls.size(); ++j) {
      std::size_t m = ls[j].find_first_not_of('`');
      if (m == std::string::npos && ls[j].size() >= n) break;
      body += ls[j] + "\n";
    }
    blocks.push_back(body);
    i = j;
  }
  return blocks;
}

/// The Markdown with fenced blocks and code spans removed: what GitHub parses as text/HTML.
std::string outside_code(const std::string& md) {
  std::string text;
  auto ls = lines_of(md);
  for (std::size_t i = 0; i < ls.size(); ++i) {
    std::size_t n = ls[i].find_first_not_of('`');
    if (n == std::string::npos) n = ls[i].size();
    if (n >= 3 && ls[i].find('`', n) == std::string::npos) {
      std::size_t j = i + 1;
      while (j < ls.size() && !(ls[j].find_first_not_of('`') == std::string::npos && ls[j].size() >= n)) ++j;
      i = j;
      continue;
    }
    const std::string& l = ls[i];
    for (std::size_t k = 0; k < l.size();) {
      if (l[k] == '\\' && k + 1 < l.size()) {
        text += l.substr(k, 2);
        k += 2;
      } else if (l[k] == '`') {
        std::size_t run = l.find_first_not_of('`', k);
        if (run == std::string::npos) run = l.size();
        std::size_t len = run - k, close = run;
        bool found = false;
        while ((close = l.find(std::string(len, '`'), close)) != std::string::npos) {
          std::size_t end = close + len;
          if ((close == 0 || l[close - 1] != '`') && (end >= l.size() || l[end] != '`')) {
            found = true;
            break;
          }
          close = l.find_first_not_of('`', close);
          if (close == std::string::npos) break;
        }
        if (found) k = close + len;
        else {
          text += l.substr(k, len);
          k = run;
        }
      } else {
        text += l[k++];
      }
    }
    text += "\n";
  }
  return text;
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

const std::string kMatrix = "## Tool × invariant matrix";

TEST(Markdown, PassingRunHeadingFactsAndMatrix) {
  std::string md = reports::to_markdown(passing_report(), "9.8.7");
  EXPECT_EQ(lines_of(md).at(0), "# ctxo-conform: PASS — 0 errors, 0 warnings on fixture-server 1.0.0");
  EXPECT_NE(md.find("\n\n| **Server** | fixture-server 1.0.0 |\n|---|---|\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| **Seed** | `42` |"), std::string::npos) << md;
  EXPECT_NE(md.find("| **Protocol** | 2025-11-25 (legacy) |"), std::string::npos);
  EXPECT_NE(md.find("| **Calls** | 17 to 2 of 3 tools |"), std::string::npos);
  EXPECT_NE(md.find("| **Duration** | 3.2 s |"), std::string::npos);
  EXPECT_NE(md.find("| **Harness** | ctxo-conform 9\\.8.7 |"), std::string::npos);
  EXPECT_NE(md.find("- 2 tools are not annotated readOnlyHint\\: delete\\_file"), std::string::npos);
  EXPECT_NE(md.find("## Findings (0)\n\nNone."), std::string::npos);
  EXPECT_EQ(md.find("<details>\n<summary>request / response"), std::string::npos);

  Table t = table_after(md, kMatrix);
  ASSERT_FALSE(t.header.empty()) << md;
  EXPECT_EQ(t.header[0], "tool");
  // Registry order: transport, protocol, ..., truncation.
  std::vector<std::string> want = {"tool", "profile", "T-SHUTDOWN", "P-INIT", "P-LIST", "P-RESULT", "P-ACCEPT", "TR-HINT", "TR-COUNT"};
  EXPECT_EQ(t.header, want);
  ASSERT_EQ(t.rows.size(), 3u);  // (server), read_file, search; delete_file was never called
  EXPECT_EQ(t.rows[0][0], "*(server)*");
  EXPECT_EQ(t.rows[1][0], "`read_file`");
  EXPECT_EQ(t.rows[2][0], "`search`");
  EXPECT_EQ(t.cell("*(server)*", "P-INIT"), "✓");
  EXPECT_EQ(t.cell("*(server)*", "P-RESULT"), "") << "not applicable: blank";
  EXPECT_EQ(t.cell("`search`", "P-ACCEPT"), "✓");
  EXPECT_EQ(t.cell("`read_file`", "P-ACCEPT"), "");
  for (const auto& r : t.rows) EXPECT_EQ(r.size(), t.header.size());
}

TEST(Markdown, StatusesNotObservedAndProfiles) {
  std::string md = reports::to_markdown(judged_report(), "1.0.0");
  Table t = table_after(md, kMatrix);
  ASSERT_FALSE(t.header.empty()) << md;
  EXPECT_EQ(t.cell("`search`", "TR-HINT"), "–") << md;
  EXPECT_EQ(t.cell("`search`", "TR-CAP"), "–");
  EXPECT_EQ(t.cell("`search`", "TR-COUNT"), "✓");
  EXPECT_EQ(t.cell("`read_file`", "TR-HINT"), "✓");
  EXPECT_EQ(t.cell("`read_file`", "TR-CAP"), "") << "not applicable: blank";
  EXPECT_EQ(std::find(t.header.begin(), t.header.end(), "B-USED"), t.header.end()) << "applies nowhere: no column";
  EXPECT_EQ(t.cell("`search`", "profile"), "ctxo");
  EXPECT_EQ(t.cell("`read_file`", "profile"), "*none*");
  EXPECT_EQ(t.cell("*(server)*", "profile"), "");
  EXPECT_NE(md.find("## Not observed\n"), std::string::npos) << md;
  EXPECT_NE(md.find("- `search`: `TR-HINT`, `TR-PREFIX` not observed (no answer was truncated)\n"), std::string::npos)
      << md;
  EXPECT_NE(md.find("- `search`: `TR-CAP` not observed (no call set a limit)\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("- `read_file`:"), std::string::npos);
  EXPECT_NE(md.find("| `search` | 9 | 9 | 0 |"), std::string::npos) << "successes in the tools table: " << md;
  EXPECT_NE(md.find("ctxo (detected from its answers)"), std::string::npos);
  EXPECT_EQ(reports::to_markdown(passing_report(), "1").find("## Not observed"), std::string::npos);
}

TEST(Markdown, CoverageTableFlagsToolsThatReachedNoData) {
  auto r = judged_report();
  EXPECT_EQ(reports::to_markdown(r, "1").find("## Coverage"), std::string::npos) << "no coverage: no table";
  // calls, data, empty, misses, errors, refusals, no_answer, largest_bytes, truncated[, leaks]
  r.tools[0].coverage = {42, 0, 0, 37, 0, 4, 0, 0, 0, 1};
  r.tools[0].second_pass_calls = 8;
  r.tools[1].coverage = {9, 7, 1, 0, 1, 0, 0, 2048, 3};
  r.tools[1].driven_calls = 2;
  std::string md = reports::to_markdown(r, "1.0.0");
  EXPECT_NE(md.find("## Coverage\n"), std::string::npos) << md;
  EXPECT_NE(md.find("⚠ 1 tool reached no data: its success answers were never checked."), std::string::npos) << md;
  Table t = table_after(md, "## Coverage");
  ASSERT_FALSE(t.header.empty()) << md;
  EXPECT_EQ(t.cell("`search`", "calls"), "42");
  EXPECT_EQ(t.cell("`search`", "leak"), "1");
  EXPECT_EQ(t.cell("`read_file`", "leak"), "0");
  EXPECT_EQ(t.cell("`search`", "data"), "⚠ **0**");
  EXPECT_EQ(t.cell("`search`", "miss"), "37");
  EXPECT_EQ(t.cell("`search`", "refused"), "4");
  EXPECT_EQ(t.cell("`search`", "2nd pass"), "8");
  EXPECT_EQ(t.cell("`read_file`", "data"), "7");
  EXPECT_EQ(t.cell("`read_file`", "largest"), "2048 B");
  EXPECT_EQ(t.cell("`read_file`", "truncated"), "3");
  EXPECT_EQ(t.cell("`read_file`", "driven"), "2");
  // Its unobserved rules share that one reason.
  EXPECT_NE(md.find("- `search`: `TR-HINT`, `TR-CAP`, `TR-PREFIX` not observed (0/42 calls reached data (37 graceful "
                    "misses, 1 leak, 4 refusals))\n"),
            std::string::npos)
      << md;
}

TEST(Markdown, UntestedVerdict) {
  std::string md = reports::to_markdown(untested_report(), "1.0.0");
  EXPECT_EQ(lines_of(md).at(0), "# ctxo-conform: UNTESTED — 0 errors, 0 warnings on fixture-server 1.0.0");
  EXPECT_NE(md.find("> **Untested** (exit code 4): no call reached the server's tools\\: all 17 calls were answered "
                    "with an error"),
            std::string::npos)
      << md;
}

TEST(Markdown, FailingRunFindingsBaselineAndStale) {
  std::string md = reports::to_markdown(failing_report(), "0.1.0");
  EXPECT_EQ(lines_of(md).at(0),
            "# ctxo-conform: FAIL — 3 errors, 1 warning (1 baselined) on fixture-server 1.0.0");
  Table t = table_after(md, kMatrix);
  EXPECT_EQ(t.cell("`search`", "TR-HINT"), "✗ 3");
  EXPECT_EQ(t.cell("`search`", "P-ACCEPT"), "⚠ 1");
  EXPECT_EQ(t.cell("`search`", "P-RESULT"), "✓");
  EXPECT_EQ(t.cell("`read_file`", "P-RESULT"), "✗ 1");
  EXPECT_EQ(t.cell("`read_file`", "TR-COUNT"), "baselined 2");
  EXPECT_EQ(t.cell("*(server)*", "P-LIST"), "✗ 1");
  EXPECT_EQ(t.cell("*(server)*", "T-SHUTDOWN"), "✓");

  // Errors first (report order), then the warning; the baselined one in its own section.
  std::size_t findings = md.find("## Findings (4)"), accepted = md.find("## Accepted by the baseline (1)"),
              stale = md.find("## Stale baseline entries (2)");
  ASSERT_NE(findings, std::string::npos) << md;
  ASSERT_NE(accepted, std::string::npos);
  ASSERT_NE(stale, std::string::npos);
  std::size_t h1 = md.find("### 1. `TR-HINT` error — tool `search` (3 times)");
  std::size_t h2 = md.find("### 2. `P-RESULT` error — tool `read_file`");
  std::size_t h3 = md.find("### 3. `P-LIST` error — server-level");
  std::size_t h4 = md.find("### 4. `P-ACCEPT` warning — tool `search`");
  std::size_t h5 = md.find("### 5. `TR-COUNT` error — tool `read_file` (2 times)");
  EXPECT_TRUE(findings < h1 && h1 < h2 && h2 < h3 && h3 < h4 && h4 < accepted && accepted < h5 && h5 < stale)
      << md;
  EXPECT_NE(md.find("- `E-MISS` on tool `search`"), std::string::npos);
  EXPECT_NE(md.find("- `T-SHUTDOWN` server-level"), std::string::npos);
  EXPECT_NE(md.find("remove them from the baseline"), std::string::npos);

  // Every finding has its evidence block; the server-level one says it has no request.
  EXPECT_EQ(count(md, "<details>\n<summary>request / response</summary>\n\n"), 5u);
  EXPECT_EQ(count(md, "</details>"), 7u);  // + tools + stderr
  EXPECT_NE(md.find("*none: a server-level finding*"), std::string::npos);
  EXPECT_NE(md.find("**Diagnosis:** \\_meta.truncated is true but \\_meta.hint is missing"), std::string::npos);
  EXPECT_EQ(count(md, "**Rule:** "), 5u) << "each finding quotes its invariant's summary";

  auto blocks = fenced_blocks(md);
  bool saw_request = false, saw_response = false, saw_replay = false;
  for (const auto& b : blocks) {
    if (b == "ctxo-conform replay case-TR-HINT.json\n") saw_replay = true;
    json j = json::parse(b, nullptr, false);
    if (!j.is_discarded() && j == call_request(7, "search", {{"query", "a"}, {"limit", 1}})) {
      saw_request = true;
      EXPECT_NE(b.find("\n  \"method\": \"tools/call\""), std::string::npos) << "pretty-printed:\n" << b;
    }
    if (!j.is_discarded() && j.contains("result") && j["id"] == 9) saw_response = true;
  }
  EXPECT_TRUE(saw_request);
  EXPECT_TRUE(saw_response);
  EXPECT_TRUE(saw_replay);
  EXPECT_NE(md.find("```text\n{\"returnedItems\":3\n```"), std::string::npos) << "a cut excerpt is shown as text";
}

TEST(Markdown, RunErrorIsShown) {
  std::string md = reports::to_markdown(error_report(), "0.1.0");
  EXPECT_EQ(lines_of(md).at(0), "# ctxo-conform: ERROR — run incomplete on (unnamed server)");
  EXPECT_NE(md.find("> **Run error** (`spawn`): cannot start './missing-server'\\: No such file or directory"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("No invariant was applied"), std::string::npos);
  EXPECT_NE(md.find("- nothing was called"), std::string::npos);
}

TEST(Markdown, HostileTextIsEscaped) {
  engine::RunReport r = hostile_report();
  std::string md = reports::to_markdown(r, "0.1.0");
  EXPECT_TRUE(is_valid_utf8(md));
  for (unsigned char c : md) EXPECT_FALSE(c < 0x20 && c != '\n') << "control byte " << int(c);

  // Heading: markup escaped, one line.
  EXPECT_EQ(lines_of(md).at(0),
            "# ctxo-conform: FAIL — 4 errors, 1 warning (1 baselined) on &lt;script&gt;alert(1)&lt;/script&gt;\\|srv\\` "
            "1.0\\\\x0A&lt;i&gt;x&lt;/i&gt;");

  // Outside code, the only HTML is ours.
  std::string text = outside_code(md);
  for (std::size_t p = text.find('<'); p != std::string::npos; p = text.find('<', p + 1)) {
    std::string tag = text.substr(p, text.find('>', p) - p + 1);
    EXPECT_TRUE(tag == "<br>" || tag == "<details>" || tag == "</details>" || tag == "<summary>" ||
                tag == "</summary>")
        << "raw HTML in Markdown text: " << tag;
  }
  EXPECT_EQ(text.find("<script"), std::string::npos);
  // No injected heading or list from a diagnosis newline.
  for (const auto& l : lines_of(text)) EXPECT_NE(l.rfind("## not a heading", 0), 0u) << l;

  // The table keeps its shape despite pipes and backticks in a tool name.
  Table t = table_after(md, kMatrix);
  ASSERT_EQ(t.rows.size(), 4u);
  for (const auto& row : t.rows) EXPECT_EQ(row.size(), t.header.size()) << row[0];
  EXPECT_EQ(t.rows[1][0], "``evil\\|tool`x`<script>alert(1)</script>``");
  EXPECT_EQ(t.cell("``evil\\|tool`x`<script>alert(1)</script>``", "P-RESULT"), "✗ 2");

  // Fences outlast the backtick runs inside: the whole excerpt is one block, verbatim (as shown).
  std::string shown = reports::display_text(kHostileExcerpt, true) + "\n";
  auto blocks = fenced_blocks(md);
  EXPECT_NE(std::find(blocks.begin(), blocks.end(), shown), blocks.end()) << md;
  EXPECT_NE(std::find(blocks.begin(), blocks.end(), "ctxo-conform replay '" + kScriptTag + "`x`'\n"), blocks.end());
  EXPECT_NE(md.find("`````text\n"), std::string::npos) << "fence longer than the 4-backtick run";
  // The request stays parseable JSON; invalid UTF-8 became U+FFFD.
  bool request_ok = false;
  for (const auto& b : blocks) {
    json j = json::parse(b, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.value("id", 0) == 13) {
      request_ok = j["params"]["arguments"]["q"] == "</script><script>alert(1)</script>" &&
                   j["params"]["arguments"]["raw"] == "\xEF\xBF\xBD\xEF\xBF\xBD";
    }
  }
  EXPECT_TRUE(request_ok);
  // Diagnosis: newline as <br>, control and invalid bytes visible, bidi override neutralised.
  std::size_t d = md.find("**Diagnosis:** diag &lt;script&gt;");
  ASSERT_NE(d, std::string::npos);
  std::string diag = md.substr(d, md.find('\n', d) - d);
  EXPECT_NE(diag.find("a\\|b \\`\\`\\` c<br>\\#\\# not a heading<br>&lt;img"), std::string::npos) << diag;
  EXPECT_NE(diag.find("bad\\\\xFF\\\\xFE utf8 \\\\x1B\\[31mred \\\\x00 nul \\\\u202E rtl &amp; &lt;b&gt;"),
            std::string::npos)
      << diag;
}

TEST(Markdown, EvidenceIsDroppedNearTheSizeLimit) {
  engine::RunReport r = failing_report();
  auto big = r.findings[1];
  big.finding.response_excerpt = std::string(100 * 1024, 'x');
  for (int i = 0; i < 80; ++i) {
    big.finding.diagnosis = "diag " + std::to_string(i);
    r.findings.push_back(big);
  }
  std::string md = reports::to_markdown(r, "0.1.0");
  EXPECT_LT(md.size(), 1024u * 1024u);
  EXPECT_NE(md.find("more bytes: see the JSON report"), std::string::npos);
  EXPECT_NE(md.find("shown without evidence (size limit)"), std::string::npos);
  EXPECT_NE(md.find("diag 79"), std::string::npos) << "every finding is still listed";
}

}  // namespace
}  // namespace ctxo::test
