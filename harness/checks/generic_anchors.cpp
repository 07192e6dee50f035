// SPDX-License-Identifier: MIT
// Where an answer names places (checks/generic_positions.h): anchors in its JSON documents
// (path/line/column fields, LSP locations) and in its text (`path:line[:col]`), the documents and
// prose of an answer, and TR-VERBATIM's comparison of a quote with the file it is tied to. The
// rules that judge them against the workspace: generic_positions.cpp.
#include "checks/generic_positions.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include "checks/envelope_util.h"
#include "checks/generic_positions_internal.h"
#include "core/anchor.h"
#include "core/cause.h"
#include "core/json_bounded.h"
#include "core/text.h"
#include "truncation/unicode.h"

namespace ctxo::checks {

namespace generic {

namespace {

using detail::first_of;
using truncation::ColumnUnit;

constexpr std::size_t kMaxAnchors = 512;

constexpr const char* kFileKeys[] = {"file", "path", "filePath", "file_path", "uri", "targetUri", "filename", "fileName"};
constexpr const char* kLineKeys[] = {"line", "startLine", "lineNumber", "line_number", "start_line"};
constexpr const char* kColKeys[] = {"column", "col", "character", "startColumn", "startCol", "start_column"};
constexpr const char* kEndKeys[] = {"endLine", "end_line"};
constexpr const char* kNameKeys[] = {"name", "symbol", "symbolName", "symbol_name", "identifier"};
constexpr const char* kSnippetKeys[] = {"snippet", "lineText", "line_text", "preview", "text", "content", "source", "code"};
constexpr const char* kRangeKeys[] = {"targetSelectionRange", "selectionRange", "range", "targetRange"};

bool is_str(const json& j) { return j.is_string() && !j.get_ref<const std::string&>().empty(); }
bool is_int(const json& j) {
  if (j.is_number_integer() || j.is_number_unsigned()) return true;
  if (j.is_number_float()) {
    double d = j.get<double>();
    return d == static_cast<double>(static_cast<std::int64_t>(d));
  }
  return false;
}




std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void collect_descriptions(const json& j, std::string& out, int depth) {
  if (depth > 8 || out.size() > 64 * 1024) return;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "description" && it->is_string()) out += it->get<std::string>() + "\n";
      else if (it->is_structured()) collect_descriptions(*it, out, depth + 1);
    }
  } else if (j.is_array()) {
    for (const auto& e : j) collect_descriptions(e, out, depth + 1);
  }
}

}  // namespace

std::optional<std::int64_t> int_of(const json* j) {
  if (!j || !is_int(*j)) return std::nullopt;
  return j->is_number_float() ? static_cast<std::int64_t>(j->get<double>()) : j->get<std::int64_t>();
}

/// The identifier a name stands for: `runTask`, or the last segment of `Scheduler.start` /
/// `a::b`; "" when it is not one (a path, a sentence, a file's name).
std::string identifier_of(std::string_view s) {
  if (s.size() > 200) return "";
  std::size_t cut = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.' || s[i] == '#') cut = i + 1;
    else if (s[i] == ':' && i + 1 < s.size() && s[i + 1] == ':') cut = i + 2, ++i;
  }
  std::string_view id = s.substr(cut);
  while (!id.empty() && (id.back() == ')' || id.back() == '(')) id.remove_suffix(1);  // `run()`
  if (id.empty() || !ident_start(static_cast<unsigned char>(id[0]))) return "";
  for (char c : id)
    if (!ident_char(static_cast<unsigned char>(c))) return "";
  return std::string(id);
}

std::string trim_ws(std::string_view s, const char* ws) {
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return "";
  auto e = s.find_last_not_of(ws);
  return std::string(s.substr(b, e - b + 1));
}

bool declares_zero_based(const json& tool) {
  if (!tool.is_object()) return false;
  std::string d;
  collect_descriptions(tool, d, 0);
  d = lower(d);
  for (const char* w : {"0-based", "zero-based", "0-indexed", "zero-indexed", "0 based", "zero based",
                        "lsp position", "lsp-style position", "lsp range"})
    if (d.find(w) != std::string::npos) return true;
  return false;
}

std::vector<Anchor> json_anchors(const json& doc) {
  std::vector<Anchor> out;
  try {
    struct Item {
      const json* node;
      std::string ptr;
      std::string parent_name;  ///< The name of the object this one is the `location` of.
    };
    std::vector<Item> stack{{&doc, "", ""}};
    std::size_t visited = 0;
    while (!stack.empty() && out.size() < kMaxAnchors && ++visited < 200000) {
      Item it = std::move(stack.back());
      stack.pop_back();
      const json& n = *it.node;
      if (n.is_object()) {
        std::string fkey;
        const json* fv = first_of(n, kFileKeys, is_str, &fkey);
        const json* nv = first_of(n, kNameKeys, is_str);
        std::string skey;
        const json* sv = first_of(n, kSnippetKeys, is_str, &skey);
        std::string own_name = nv ? identifier_of(nv->get<std::string>()) : "";
        if (fv) {
          Anchor a;
          a.file = fv->get<std::string>();
          a.where = it.ptr.empty() ? "(root)" : it.ptr;
          a.name = own_name.empty() ? it.parent_name : own_name;
          if (sv) a.snippet = sv->get<std::string>(), a.snippet_key = skey;
          const json* range = nullptr;
          for (const char* k : kRangeKeys) {
            auto r = n.find(k);
            if (r != n.end() && r->is_object() && r->contains("start") && (*r)["start"].is_object()) {
              range = &*r;
              a.where += "/" + std::string(k);
              break;
            }
          }
          // A range of {line, column} points beside the path, not under a range key (ast-grep's
          // and tree-sitter tools' `start`/`end`).
          if (!range)
            if (auto st = n.find("start"); st != n.end() && st->is_object() && st->contains("line")) range = &n;
          if (range) {
            const json& st = (*range)["start"];
            a.line = int_of(st.contains("line") ? &st["line"] : nullptr);
            // LSP counts `character`; other ranges name it `column` (or `col`).
            const char* col = st.contains("character") ? "character" : st.contains("column") ? "column" : st.contains("col") ? "col" : nullptr;
            a.column = int_of(col ? &st[col] : nullptr);
            if (range->contains("end") && (*range)["end"].is_object() && (*range)["end"].contains("line"))
              a.end_line = int_of(&(*range)["end"]["line"]);
            a.lsp = !col || std::string_view(col) == "character";
          } else if (auto p = n.find("position"); p != n.end() && p->is_object() && p->contains("line")) {
            a.line = int_of(&(*p)["line"]);
            a.column = int_of(p->contains("character") ? &(*p)["character"] : nullptr);
            a.lsp = true;
          } else {
            a.line = int_of(first_of(n, kLineKeys, is_int));
            a.column = int_of(first_of(n, kColKeys, is_int));
            a.end_line = int_of(first_of(n, kEndKeys, is_int));
          }
          // A name that is the file's own name ({name: "app.ts", path: "src/app.ts"}) names no text.
          if (nv) {
            const std::string raw = nv->get<std::string>();
            const std::string base = a.file.substr(a.file.find_last_of('/') == std::string::npos ? 0 : a.file.find_last_of('/') + 1);
            if (raw == base || raw == a.file) a.name.clear();
          }
          if (a.line) out.push_back(std::move(a));
        }
        std::vector<Item> kids;
        for (auto c = n.begin(); c != n.end(); ++c)
          if (c->is_structured())
            kids.push_back({&*c, it.ptr + "/" + c.key(), c.key() == "location" || c.key() == "definition" ? own_name : ""});
        for (auto k = kids.rbegin(); k != kids.rend(); ++k) stack.push_back(std::move(*k));
      } else if (n.is_array()) {
        for (std::size_t i = n.size(); i-- > 0;)
          if (n[i].is_structured()) stack.push_back({&n[i], it.ptr + "/" + std::to_string(i), it.parent_name});
      }
    }
  } catch (...) {
  }
  return out;
}

std::vector<Anchor> text_anchors(std::string_view text) {
  std::vector<Anchor> out;
  auto path_char = [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c == '/' || c == '-' || c == '@' || c == '+' || c == '~'; };
  std::size_t line_start = 0;
  while (line_start < text.size() && out.size() < kMaxAnchors) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = text.substr(line_start, line_end - line_start);
    // The first backticked identifier on the line names the text at its anchors.
    std::string name;
    for (std::size_t b = line.find('`'); b != std::string_view::npos && name.empty(); b = line.find('`', b + 1)) {
      auto e = line.find('`', b + 1);
      if (e == std::string_view::npos) break;
      name = identifier_of(line.substr(b + 1, e - b - 1));
      b = e;
    }
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] != ':' || i == 0 || i + 1 >= line.size() || !std::isdigit(static_cast<unsigned char>(line[i + 1]))) continue;
      std::size_t b = i;
      while (b > 0 && path_char(static_cast<unsigned char>(line[b - 1]))) --b;
      std::string_view path = line.substr(b, i - b);
      // A path: a '/' or an extension, not a bare number or a time ("12:30"), not a URL's host.
      if (path.empty() || path.back() == '.' || path.back() == '/') continue;
      auto dot = path.find_last_of('.');
      auto slash = path.find_last_of('/');
      const bool ext = dot != std::string_view::npos && (slash == std::string_view::npos || dot > slash) && dot + 1 < path.size() &&
                       std::isalpha(static_cast<unsigned char>(path[dot + 1]));
      if (!ext && slash == std::string_view::npos) continue;
      if ((b > 0 && line[b - 1] == ':') || path.rfind("//", 0) == 0) continue;  // https://host:8080
      // The numbers (core/anchor.h, as the harvest reads them); an absurd one is no position.
      const auto lc = line_column_at(line, i);
      const bool has_col = !lc->column.empty();
      const auto ln = anchor_number(lc->line);
      const auto col = anchor_number(has_col ? lc->column : "0");  // "0": no column to bound
      if (!ln || !col) continue;
      const std::size_t j = lc->end;
      if (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || (line[j] == '.' && j + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[j + 1])))))
        continue;  // "a.ts:12abc", a version "x.js:1.2"
      Anchor a;
      a.file = std::string(path);
      a.line = *ln;
      if (has_col) a.column = *col;
      a.name = name;
      a.where = "text";
      // The line quoted after it: `path:line:col - text`, `path:line: text`, grep's `path:line:text`.
      std::string_view rest = line.substr(j);
      for (std::string_view sep : {" - ", ": ", ":"})
        if (rest.substr(0, sep.size()) == sep) {
          rest.remove_prefix(sep.size());
          if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
          if (!trim_ws(rest).empty()) {
            a.snippet = std::string(rest);
            a.snippet_key = "quoted line";
          }
          break;
        }
      out.push_back(std::move(a));
      i = j;
    }
    line_start = line_end + 1;
  }
  return out;
}

AnswerDocs read_answer(const mcp::Answer& a) {
  AnswerDocs out;
  const json* sc = a.structured();
  const bool structured = sc && sc->is_structured();
  if (structured) out.docs.push_back(*sc);
  for (const auto& part : a.read()) {
    if (!part.whole.is_discarded()) {
      if (part.whole.is_structured() && !structured) out.docs.push_back(part.whole);
      continue;
    }
    // JSON at the start, a Markdown footer after it.
    if (!part.leading.is_discarded() && !structured) out.docs.push_back(part.leading);
    // Fenced JSON blocks; the rest is prose (a code block's anchors are text too).
    const std::string_view t = *part.text;
    std::string prose;
    std::size_t pos = part.rest;
    for (const auto& b : part.fenced) {
      prose.append(t.substr(pos, b.open - pos));
      if (!b.value.is_discarded()) {
        if (!structured) out.docs.push_back(b.value);
      } else {
        prose.append(t.substr(b.open, b.end - b.open));
      }
      pos = b.end;
    }
    prose.append(t.substr(pos));
    if (prose.find_first_not_of(" \t\r\n") != std::string::npos) out.prose.push_back(std::move(prose));
  }
  return out;
}

AnswerDocs read_answer(const mcp::Reply& r) { return read_answer(mcp::Answer(r)); }

std::string code_point_label(char32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  std::string s = buf;
  if (cp == '\r') return s + " (carriage return)";
  if (cp == '\n') return s + " (line feed)";
  if (cp == '\t') return s + " (tab)";
  if (cp == ' ') return s + " (space)";
  if (cp < 0x20 || cp == 0x7F || cp == 0xFEFF || (cp >= 0x200B && cp <= 0x200F)) return s;
  std::string g;
  if (cp < 0x80) g += static_cast<char>(cp);
  else if (cp < 0x800) g += static_cast<char>(0xC0 | (cp >> 6)), g += static_cast<char>(0x80 | (cp & 0x3F));
  else if (cp < 0x10000)
    g += static_cast<char>(0xE0 | (cp >> 12)), g += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), g += static_cast<char>(0x80 | (cp & 0x3F));
  else
    g += static_cast<char>(0xF0 | (cp >> 18)), g += static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
        g += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), g += static_cast<char>(0x80 | (cp & 0x3F));
  return s + " (" + g + ")";
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t b = 0;
  while (true) {
    auto e = text.find('\n', b);
    if (e == std::string_view::npos) {
      out.push_back(text.substr(b));
      break;
    }
    out.push_back(text.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

std::string skeleton(std::string_view s) {
  std::string out;
  bool space = false;
  for (std::size_t i = 0; i < s.size();) {
    auto st = truncation::decode_utf8(s, i);
    if (st.length == 0) break;
    i += st.length;
    char32_t c = st.code_point;
    if (c >= 0x80 || c == '?') continue;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += static_cast<char>(c);
  }
  return out;
}

namespace {

std::string strip_ellipsis(std::string s) {
  for (const char* ell : {"\xE2\x80\xA6", "..."}) {
    std::string_view e(ell);
    std::string t = trim_ws(s, " \t");
    if (t.size() >= e.size() && t.compare(t.size() - e.size(), e.size(), e) == 0) return t.substr(0, t.size() - e.size());
  }
  return s;
}

/// The quote's lines, trimmed of spaces and tabs (a '\r' stays: it is a mangled line ending when
/// the file has none), blank lines at either end dropped; the last one's ellipsis dropped.
std::vector<std::string> quote_lines(std::string_view quote) {
  std::vector<std::string> out;
  for (auto l : split_lines(quote)) out.push_back(trim_ws(l, " \t"));
  while (!out.empty() && trim_ws(out.back()).empty()) out.pop_back();
  while (!out.empty() && trim_ws(out.front()).empty()) out.erase(out.begin());
  if (!out.empty()) out.back() = trim_ws(strip_ellipsis(out.back()), " \t");
  return out;
}

bool contained(std::string_view file_line, const std::string& q) { return q.empty() || file_line.find(q) != std::string_view::npos; }

/// A character of the kind a transport mangles: non-ASCII, '?', U+FFFD, '\r'.
bool mangled_kind(char32_t c) { return c >= 0x80 || c == '?' || c == '\r'; }

/// The first difference between quote line `q` and file line `f` (whose skeletons agree); "" when
/// it is not a character of the kind a transport mangles (spaces collapsed: not this rule's).
std::string first_difference(std::string_view f, std::string_view q, bool* cut_split) {
  // Align at the longest prefix of the quote found in the line.
  std::size_t p = std::string_view::npos;
  for (std::size_t n = std::min<std::size_t>(q.size(), 64); n > 0 && p == std::string_view::npos; --n) p = f.find(q.substr(0, n));
  if (p == std::string_view::npos) p = f.find_first_not_of(" \t");
  if (p == std::string_view::npos) p = 0;
  std::size_t i = p, j = 0;
  while (i < f.size() && j < q.size()) {
    auto a = truncation::decode_utf8(f, i), b = truncation::decode_utf8(q, j);
    if (a.code_point != b.code_point) {
      if (!mangled_kind(a.code_point) && !mangled_kind(b.code_point)) return "";
      const std::size_t col = truncation::utf16_length(f.substr(0, i)) + 1;
      // The quote's last character is U+FFFD where the file's is not ASCII: cut inside it.
      if (b.code_point == 0xFFFD && a.code_point >= 0x80 && (j + b.length == q.size() || cut_marker_at(q, j + b.length))) {
        *cut_split = true;
        return "the quote ends at column " + std::to_string(col) + " with U+FFFD where the file has " +
               code_point_label(a.code_point) + " (" + std::to_string(a.length) + " UTF-8 bytes" +
               (a.code_point > 0xFFFF ? ", two UTF-16 units" : "") + "): the cut fell inside that character";
      }
      return "at column " + std::to_string(col) + " the file has " + code_point_label(a.code_point) + ", the answer " +
             code_point_label(b.code_point);
    }
    i += a.length;
    j += b.length;
  }
  if (j < q.size()) {
    auto b = truncation::decode_utf8(q, j);
    if (!mangled_kind(b.code_point)) return "";
    return "the line ends where the answer has " + code_point_label(b.code_point);
  }
  const std::size_t col = truncation::utf16_length(f.substr(0, i)) + 1;
  if (i >= f.size()) return "";
  auto a = truncation::decode_utf8(f, i);
  if (!mangled_kind(a.code_point)) return "";
  return "at column " + std::to_string(col) + " the file has " + code_point_label(a.code_point) + " where the answer stops";
}

}  // namespace

VerbatimCheck compare_verbatim(std::string_view text, std::int64_t line, std::string_view quote) {
  VerbatimCheck out;
  const auto q = quote_lines(quote);
  if (q.empty() || q.size() > 400) return out;
  const auto lines = split_lines(text);
  const auto n = static_cast<std::int64_t>(lines.size());
  auto fits = [&](std::int64_t s, bool skel) {
    if (s < 1 || s + static_cast<std::int64_t>(q.size()) - 1 > n) return false;
    for (std::size_t i = 0; i < q.size(); ++i) {
      std::string_view f = lines[static_cast<std::size_t>(s - 1) + i];
      if (!skel ? !contained(f, q[i]) : !contained(skeleton(f), skeleton(q[i]))) return false;
    }
    return true;
  };
  std::vector<std::int64_t> order{line};
  for (std::int64_t d = 1; d <= 3; ++d) order.push_back(line - d), order.push_back(line + d);
  for (auto s : order)
    if (fits(s, false)) {
      out.verdict = Verbatim::kSame;
      return out;
    }
  // Too little text survives the skeleton to tell lines apart: no judgement.
  std::size_t kept = 0;
  for (const auto& l : q) kept += skeleton(l).size();
  if (kept < 8) return out;
  for (auto s : order) {
    if (!fits(s, true)) continue;
    for (std::size_t i = 0; i < q.size(); ++i) {
      std::string_view f = lines[static_cast<std::size_t>(s - 1) + i];
      if (contained(f, q[i])) continue;
      std::string diff = first_difference(f, q[i], &out.cut_split);
      if (diff.empty()) return out;
      out.verdict = Verbatim::kMangled;
      out.line = s + static_cast<std::int64_t>(i);
      out.detail = diff;
      return out;
    }
  }
  return out;
}

}  // namespace generic

}  // namespace ctxo::checks
