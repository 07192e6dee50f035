// SPDX-License-Identifier: MIT
#include "checks/generic_positions.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include "checks/envelope_util.h"
#include "core/json_bounded.h"
#include "core/cause.h"
#include "core/text.h"
#include "truncation/unicode.h"

namespace ctxo::checks {

namespace generic {

namespace {

using detail::first_of;
using truncation::ColumnUnit;

constexpr std::size_t kMaxAnchors = 512;
constexpr std::uintmax_t kMaxFileBytes = 8u * 1024u * 1024u;
constexpr std::size_t kMaxFiles = 64;  ///< Files kept read per run.

constexpr const char* kFileKeys[] = {"file", "path", "filePath", "file_path", "uri", "targetUri", "filename", "fileName"};
constexpr const char* kLineKeys[] = {"line", "startLine", "lineNumber", "line_number", "start_line"};
constexpr const char* kColKeys[] = {"column", "col", "character", "startColumn", "startCol", "start_column"};
constexpr const char* kEndKeys[] = {"endLine", "end_line"};
constexpr const char* kNameKeys[] = {"name", "symbol", "symbolName", "symbol_name", "identifier"};
constexpr const char* kSnippetKeys[] = {"snippet", "lineText", "line_text", "preview", "text", "content", "source", "code"};
constexpr const char* kRangeKeys[] = {"targetSelectionRange", "selectionRange", "range", "targetRange"};
constexpr const char* kArgNameKeys[] = {"symbol", "symbolName", "symbol_name", "name", "identifier", "query"};

bool is_str(const json& j) { return j.is_string() && !j.get_ref<const std::string&>().empty(); }
bool is_int(const json& j) {
  if (j.is_number_integer() || j.is_number_unsigned()) return true;
  if (j.is_number_float()) {
    double d = j.get<double>();
    return d == static_cast<double>(static_cast<std::int64_t>(d));
  }
  return false;
}
std::optional<std::int64_t> int_of(const json* j) {
  if (!j || !is_int(*j)) return std::nullopt;
  return j->is_number_float() ? static_cast<std::int64_t>(j->get<double>()) : j->get<std::int64_t>();
}

bool ident_start(unsigned char c) { return std::isalpha(c) || c == '_' || c == '$'; }
bool ident_char(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$'; }

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

std::string trim_ws(std::string_view s, const char* ws = " \t\r\n") {
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return "";
  auto e = s.find_last_not_of(ws);
  return std::string(s.substr(b, e - b + 1));
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
          if (range) {
            const json& st = (*range)["start"];
            a.line = int_of(st.contains("line") ? &st["line"] : nullptr);
            a.column = int_of(st.contains("character") ? &st["character"] : nullptr);
            if (range->contains("end") && (*range)["end"].is_object() && (*range)["end"].contains("line"))
              a.end_line = int_of(&(*range)["end"]["line"]);
            a.lsp = true;
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
      std::size_t j = i + 1;
      std::int64_t ln = 0, col = 0;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j])) && ln < 100000000) ln = ln * 10 + (line[j++] - '0');
      bool has_col = false;
      if (j + 1 < line.size() && line[j] == ':' && std::isdigit(static_cast<unsigned char>(line[j + 1]))) {
        ++j;
        while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j])) && col < 100000000) col = col * 10 + (line[j++] - '0');
        has_col = true;
      }
      if (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || (line[j] == '.' && j + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[j + 1])))))
        continue;  // "a.ts:12abc", a version "x.js:1.2"
      Anchor a;
      a.file = std::string(path);
      a.line = ln;
      if (has_col) a.column = col;
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

namespace {

/// The end of a JSON value starting at `text[i]` ('{' or '['), string-aware; npos when unclosed.
std::size_t json_end(std::string_view text, std::size_t i) {
  int depth = 0;
  bool str = false, esc = false;
  for (std::size_t j = i; j < text.size(); ++j) {
    char c = text[j];
    if (str) {
      if (esc) esc = false;
      else if (c == '\\') esc = true;
      else if (c == '"') str = false;
      continue;
    }
    if (c == '"') str = true;
    else if (c == '{' || c == '[') ++depth;
    else if ((c == '}' || c == ']') && --depth == 0) return j + 1;
  }
  return std::string_view::npos;
}

}  // namespace

AnswerDocs read_answer(const mcp::Reply& r) {
  AnswerDocs out;
  bool structured = false;
  if (r.result.is_object())
    if (auto s = r.result.find("structuredContent"); s != r.result.end() && s->is_structured()) {
      out.docs.push_back(*s);
      structured = true;
    }
  for (const std::string* part : r.text_parts()) {
    std::string_view t = *part;
    json whole = parse_bounded(t);
    if (!whole.is_discarded()) {
      if (whole.is_structured() && !structured) out.docs.push_back(std::move(whole));
      continue;
    }
    // JSON at the start, a Markdown footer after it.
    std::size_t b = t.find_first_not_of(" \t\r\n");
    if (b != std::string_view::npos && (t[b] == '{' || t[b] == '[')) {
      std::size_t e = json_end(t, b);
      if (e != std::string_view::npos) {
        json head = parse_bounded(t.substr(b, e - b));
        if (!head.is_discarded() && head.is_structured()) {
          if (!structured) out.docs.push_back(std::move(head));
          t = t.substr(e);
        }
      }
    }
    // Fenced JSON blocks; the rest is prose.
    std::string prose;
    std::size_t pos = 0;
    while (pos < t.size()) {
      std::size_t f = t.find("```", pos);
      if (f == std::string_view::npos) {
        prose.append(t.substr(pos));
        break;
      }
      prose.append(t.substr(pos, f - pos));
      std::size_t nl = t.find('\n', f);
      std::size_t close = nl == std::string_view::npos ? std::string_view::npos : t.find("\n```", nl);
      if (close == std::string_view::npos) {
        prose.append(t.substr(f));
        break;
      }
      std::string lang = lower(trim_ws(t.substr(f + 3, nl - f - 3)));
      std::string_view body = t.substr(nl + 1, close - nl - 1);
      json j = (lang.empty() || lang == "json" || lang == "jsonc") ? parse_bounded(body) : json(json::value_t::discarded);
      if (!j.is_discarded() && j.is_structured()) {
        if (!structured) out.docs.push_back(std::move(j));
      } else {
        prose.append(t.substr(f, close + 4 - f));  // a code block: its anchors are text too
      }
      pos = close + 4;
    }
    if (prose.find_first_not_of(" \t\r\n") != std::string::npos) out.prose.push_back(std::move(prose));
  }
  return out;
}

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

namespace {

/// The file's lines, each with its '\r' kept (a CRLF file's lines end in '\r').
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

/// The text with every non-ASCII code point, '?' and U+FFFD set aside and whitespace runs (with
/// '\r') made one space, trimmed: what a mangling transport leaves of a line.
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
std::string first_difference(std::string_view f, std::string_view q) {
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
      std::string diff = first_difference(f, q[i]);
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

// ---------------------------------------------------------------------------------------------

namespace {

using generic::Anchor;
using nlohmann::json;
using truncation::ColumnUnit;

struct Reading {
  const char* label;
  std::int64_t dl, dc;  ///< Added to the server's line and column to make them 1-based.
  ColumnUnit unit;
};

// Index 0 is the rule (1-based lines, UTF-16 columns); the others are how servers count instead.
const Reading kReadings[] = {
    {"1-based lines and UTF-16 columns", 0, 0, ColumnUnit::kUtf16},
    {"columns in UTF-8 bytes", 0, 0, ColumnUnit::kUtf8Bytes},
    {"columns in code points", 0, 0, ColumnUnit::kCodePoints},
    {"0-based lines and columns", 1, 1, ColumnUnit::kUtf16},
    {"0-based lines", 1, 0, ColumnUnit::kUtf16},
    {"0-based columns", 0, 1, ColumnUnit::kUtf16},
    {"0-based lines and columns in UTF-8 bytes", 1, 1, ColumnUnit::kUtf8Bytes},
    {"0-based columns in UTF-8 bytes", 0, 1, ColumnUnit::kUtf8Bytes},
    {"0-based lines and columns in code points", 1, 1, ColumnUnit::kCodePoints},
};
constexpr std::size_t kN = sizeof(kReadings) / sizeof(kReadings[0]);
using Mask = std::uint32_t;

bool zero_based(std::size_t r) { return kReadings[r].dl || kReadings[r].dc; }
/// A reading the LSP convention explains (0-based, UTF-16): a warning where the tool declares it.
bool lsp_reading(std::size_t r) { return zero_based(r) && kReadings[r].unit == ColumnUnit::kUtf16; }


bool word_at(std::string_view rest, const std::string& name) {
  if (rest.substr(0, name.size()) != name) return false;
  return rest.size() == name.size() || !(std::isalnum(static_cast<unsigned char>(rest[name.size()])) || rest[name.size()] == '_' || rest[name.size()] == '$');
}

bool word_on_line(std::string_view line, const std::string& name) {
  for (auto p = line.find(name); p != std::string_view::npos; p = line.find(name, p + 1)) {
    const bool before_ok = p == 0 || !(std::isalnum(static_cast<unsigned char>(line[p - 1])) || line[p - 1] == '_' || line[p - 1] == '$');
    if (before_ok && word_at(line.substr(p), name)) return true;
  }
  return false;
}

/// Whether the expected text is at (line, col) under reading `r`.
bool at_reading(std::string_view text, std::int64_t line, std::optional<std::int64_t> col, const std::string& name,
                const std::string& snip, std::size_t r) {
  const Reading& R = kReadings[r];
  const std::int64_t l = line + R.dl;
  auto lt = line_text(text, l);
  if (!lt) return false;
  if (!col) {
    // A line-only position: readings differ by their line only.
    if (R.dc || R.unit != ColumnUnit::kUtf16) return false;
    if (!name.empty()) {
      if (!word_on_line(*lt, name)) return false;
      if (R.dl == 0) return true;
      // Off by a line: only when the name is on no other line around (a name written on many lines,
      // or a caller listed at its call site, proves nothing about how lines are counted).
      for (std::int64_t o = l - 2; o <= l + 1; ++o)
        if (o != l)
          if (auto other = line_text(text, o); other && word_on_line(*other, name)) return false;
      return true;
    }
    std::string s = generic::trim_ws(snip.substr(0, snip.find('\n')));
    return s.size() >= 3 && lt->find(s) != std::string_view::npos;
  }
  const std::int64_t c = *col + R.dc;
  if (c < 1) return false;
  auto off = truncation::position_to_offset(text, static_cast<std::size_t>(l), static_cast<std::size_t>(c), R.unit);
  if (!off) return false;
  std::string_view rest = text.substr(*off);
  if (!name.empty()) {
    if (!word_at(rest, name)) return false;
    // The name starts a word there.
    return *off == 0 || !(std::isalnum(static_cast<unsigned char>(text[*off - 1])) || text[*off - 1] == '_' || text[*off - 1] == '$');
  }
  // A snippet: the text from the column on starts with it (or the column is in its indentation).
  std::string s = generic::trim_ws(snip);
  if (s.empty()) return false;
  s = s.substr(0, s.find('\n'));
  if (!s.empty() && s.back() == '\r') s.pop_back();
  auto nonblank = rest.find_first_not_of(" \t");
  return rest.substr(0, s.size()) == s || (nonblank != std::string_view::npos && rest.substr(nonblank, s.size()) == s);
}

}  // namespace

struct GenericPositions::State {
  std::optional<std::string> root;  ///< Canonical workspace directory.
  std::map<std::string, std::optional<std::string>> files;  ///< Relative path -> content (nullopt: none).
  struct Tool {
    bool declared0 = false;
    std::size_t standard = 0;   ///< Positions that only the rule's counting explains.
    std::size_t findings = 0;   ///< Position findings on its answers.
    std::vector<Finding> warned;  ///< Its declared-0-based warnings (the first is kept).
  };
  std::map<std::string, Tool> tools;

  /// The workspace-relative path an answer's file names, or "" (outside the workspace, a URL).
  std::string relative(const std::string& file) const {
    if (!root) return "";
    std::string f = file;
    if (f.rfind("file://", 0) == 0) {
      f = f.substr(7);
      if (!f.empty() && f[0] != '/') {  // file://host/path
        auto s = f.find('/');
        if (s == std::string::npos) return "";
        f = f.substr(s);
      }
      std::string d;  // percent-decoding
      for (std::size_t i = 0; i < f.size(); ++i) {
        if (f[i] == '%' && i + 2 < f.size() && std::isxdigit(static_cast<unsigned char>(f[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(f[i + 2]))) {
          d += static_cast<char>(std::stoi(f.substr(i + 1, 2), nullptr, 16));
          i += 2;
        } else {
          d += f[i];
        }
      }
      f = d;
    } else if (f.find("://") != std::string::npos) {
      return "";
    }
    std::error_code ec;
    std::filesystem::path p(f);
    if (p.is_absolute()) {
      auto rel = std::filesystem::weakly_canonical(p, ec).lexically_relative(*root);
      if (ec || rel.empty() || rel.native().rfind("..", 0) == 0) return "";
      return rel.generic_string();
    }
    auto norm = p.lexically_normal();
    if (norm.empty() || norm.native().rfind("..", 0) == 0) return "";
    return norm.generic_string();
  }

  const std::optional<std::string>& read(const std::string& rel) {
    auto it = files.find(rel);
    if (it != files.end()) return it->second;
    static const std::optional<std::string> kNone;
    if (files.size() >= generic::kMaxFiles) return kNone;
    std::optional<std::string> content;
    std::error_code ec;
    std::filesystem::path p = std::filesystem::path(*root) / rel;
    if (std::filesystem::is_regular_file(p, ec)) {
      auto size = std::filesystem::file_size(p, ec);
      if (!ec && size <= generic::kMaxFileBytes) {
        std::ifstream f(p, std::ios::binary);
        std::string s(static_cast<std::size_t>(size), '\0');
        if (f.read(s.data(), static_cast<std::streamsize>(size)) && s.find('\0') == std::string::npos) content = std::move(s);
      }
    }
    return files.emplace(rel, std::move(content)).first->second;
  }
};

GenericPositions::GenericPositions(std::optional<std::string> workspace) : s_(std::make_unique<State>()) {
  if (workspace && !workspace->empty()) {
    std::error_code ec;
    auto c = std::filesystem::weakly_canonical(*workspace, ec);
    if (!ec && std::filesystem::is_directory(c, ec)) s_->root = c.string();
  }
}
GenericPositions::~GenericPositions() = default;

namespace {

// `cause`: the rule's form and where in the answer (array indices as "*"), never the file or text.
Finding make(const char* id, const mcp::Reply& r, std::map<std::string, std::string> cause, std::string diagnosis,
             Severity sev = Severity::kError) {
  Finding f = detail::reply_finding(id, r, std::move(diagnosis), sev);
  f.cause = std::move(cause);
  f.profile = "generic";
  return f;
}

std::string q(const std::string& s) { return "`" + s + "`"; }

std::string position_text(const Anchor& a) {
  std::string s = "line " + std::to_string(*a.line);
  if (a.column) s += ", " + std::string(a.lsp ? "character " : "column ") + std::to_string(*a.column);
  return s;
}

}  // namespace

Outcomes GenericPositions::check(const std::string& tool, const json* tool_json, const json& arguments,
                                 const mcp::Reply& reply) {
  Outcomes out;
  try {
    if (reply.kind != mcp::Reply::Kind::kResult || reply.is_error_result()) return out;
    // A file read (the call names a workspace file and the answer holds its lines) relays the
    // file's text: positions written in it (a README's `src/a.ts:40`) are not the server's claims.
    if (s_->root) {
      std::string all;
      for (const std::string* part : reply.text_parts()) all += *part + "\n";
      std::vector<const json*> todo{&arguments};
      for (std::size_t i = 0; i < todo.size() && i < 256; ++i) {
        if (todo[i]->is_structured()) {
          for (const auto& v : *todo[i]) todo.push_back(&v);
          continue;
        }
        if (!todo[i]->is_string()) continue;
        const std::string rel = s_->relative(todo[i]->get<std::string>());
        if (rel.empty()) continue;
        const auto& content = s_->read(rel);
        if (!content) continue;
        std::size_t seen = 0, lines = 0;
        std::size_t b = 0;
        while (b < content->size() && lines < 200) {
          auto e = content->find('\n', b);
          if (e == std::string::npos) e = content->size();
          std::string l = generic::trim_ws(std::string_view(*content).substr(b, e - b));
          b = e + 1;
          if (l.size() < 8) continue;
          ++lines;
          if (all.find(l) != std::string::npos && ++seen >= 2) break;
        }
        if (seen >= 2 || (seen == 1 && lines == 1)) return out;
      }
    }
    auto docs = generic::read_answer(reply);
    std::vector<Anchor> anchors;
    for (const auto& d : docs.docs)
      for (auto& a : generic::json_anchors(d)) anchors.push_back(std::move(a));
    for (const auto& p : docs.prose)
      for (auto& a : generic::text_anchors(p)) anchors.push_back(std::move(a));
    if (anchors.empty()) return out;
    auto& st = s_->tools[tool];
    st.declared0 = tool_json && generic::declares_zero_based(*tool_json);
    // The identifier the call asked about: what a reference or definition points at.
    std::string asked;
    if (arguments.is_object())
      for (const char* k : generic::kArgNameKeys)
        if (auto it = arguments.find(k); it != arguments.end() && it->is_string()) {
          std::string id = it->get<std::string>();
          if (generic::identifier_of(id) == id && id.size() >= 3) {
            asked = id;
            break;
          }
        }

    // Numbers the call itself sent: a position that repeats them is the caller's, echoed (a hover
    // that answers the position it was asked about, "No hover information at a.ts:9999:1").
    std::set<std::int64_t> sent;
    std::vector<const json*> todo{&arguments};
    for (std::size_t i = 0; i < todo.size() && i < 256; ++i) {
      if (todo[i]->is_structured())
        for (const auto& v : *todo[i]) todo.push_back(&v);
      else if (auto n = generic::int_of(todo[i])) sent.insert(*n);
    }
    auto echoed = [&](const Anchor& a) {
      return sent.count(*a.line) && (!a.column || sent.count(*a.column));
    };
    struct Judged {
      const Anchor* a;
      std::string rel;
      Mask mask = 0;  ///< Readings under which the expected text is there.
      std::string expected;
    };
    std::vector<Judged> named;
    std::vector<Finding> base, utf16, verbatim;
    bool resolved = false, quoted = false;
    const std::int64_t first_line = st.declared0 ? 0 : 1;
    for (const auto& a : anchors) {
      const std::string rel = s_->relative(a.file);
      const std::optional<std::string>* content = rel.empty() ? nullptr : &s_->read(rel);
      const bool exists = content && content->has_value();
      if (!exists) continue;  // precision first: a file the workspace does not hold is not judged
      if (echoed(a)) continue;
      const bool prose = a.where == "text";
      // Prose with no name at it is judged by its quote alone (TR-VERBATIM), not its position.
      const bool quote_only = prose && a.name.empty() && asked.empty();
      if (quote_only && a.snippet.empty()) continue;
      if (!quote_only) resolved = true;
      const std::string& text = **content;
      const auto nlines = static_cast<std::int64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
      auto locate = [&](Finding f) {
        f.file = rel;
        f.line = std::max<std::int64_t>(*a.line + (st.declared0 ? 1 : 0), 0);
        f.column = a.column ? std::max<std::int64_t>(*a.column + (st.declared0 ? 1 : 0), 0) : 0;
        return f;
      };
      // The cheap checks (not on prose anchors: text may cite lines that have moved since; those
      // are judged only where they name the text there).
      if (!prose && *a.line < first_line) {
        base.push_back(locate(make("POS-BASE", reply, {{"form", "line-below-1"}, {"anchor", path_shape(a.where)}},
                                   "the position at " + a.where + " (" + q(a.file) + ") has line " + std::to_string(*a.line) +
                                       "; lines are 1-based (and the tool's description does not say it counts from 0)")));
        continue;
      }
      const std::int64_t line1 = *a.line + (st.declared0 ? 1 : 0);
      if (!prose && line1 > nlines) {
        utf16.push_back(locate(make("POS-UTF16", reply, {{"form", "line-past-end"}, {"anchor", path_shape(a.where)}},
                                    "the position at " + a.where + " points at line " + std::to_string(*a.line) + " but " +
                                        q(rel) + " has " + std::to_string(nlines) + " lines")));
        continue;
      }
      // TR-VERBATIM: a quote tied to a file and line is the workspace's text there.
      if (!a.snippet.empty()) {
        auto v = generic::compare_verbatim(text, line1, a.snippet);
        if (v.verdict != generic::Verbatim::kUnrelated) quoted = true;
        if (v.verdict == generic::Verbatim::kMangled) {
          Finding f = make("TR-VERBATIM", reply,
                           {{"form", "quote-mangled"}, {"anchor", path_shape(a.where)}, {"field", a.snippet_key}},
                           "the " + a.snippet_key + " at " + a.where + " is not the text of " + q(rel) + " line " +
                               std::to_string(v.line) + ": " + v.detail +
                               " (a dropped or replaced character: text is passed on verbatim, as UTF-8)");
          f.file = rel;
          f.line = v.line;
          verbatim.push_back(std::move(f));
        }
      }
      if (quote_only) continue;
      Judged j{&a, rel, 0, ""};
      j.expected = !a.name.empty() ? a.name : asked;
      if (j.expected.size() < 3 && a.snippet.empty()) continue;
      const std::string snip = j.expected.empty() ? a.snippet : "";
      for (std::size_t r = 0; r < kN; ++r)
        if (at_reading(text, *a.line, a.column, j.expected, snip, r)) j.mask |= Mask(1) << r;
      if (j.mask) named.push_back(std::move(j));
    }
    // One counting must explain every position whose text was found: a reading that only some
    // of them agree with is chance, never a finding.
    Mask all = ~Mask(0);
    bool off_rule = false;
    for (const auto& j : named) {
      all &= j.mask;
      if (!(j.mask & 1)) off_rule = true;
    }
    if (!named.empty() && !off_rule) {
      for (const auto& j : named)
        if (j.mask == 1) ++st.standard;
    }
    if (!named.empty() && off_rule && all) {
      std::size_t r = 1;
      while (r < kN && !(all & (Mask(1) << r))) ++r;
      const Judged* bad = nullptr;
      std::size_t misplaced = 0;
      for (const auto& j : named)
        if (!(j.mask & 1)) {
          ++misplaced;
          if (!bad) bad = &j;
        }
      if (bad && r < kN) {
        const Anchor& a = *bad->a;
        const Reading& R = kReadings[r];
        const std::string& text = *s_->read(bad->rel);
        const bool warn = st.declared0 && lsp_reading(r);
        std::string what = bad->expected.empty() ? "the quoted text" : q(bad->expected);
        std::string diag = "the server counts " + std::string(R.label) + ": " + what + " is at ";
        const std::int64_t l1 = *a.line + R.dl;
        diag += "line " + std::to_string(l1);
        if (a.column) {
          // Where it really is, in UTF-16 columns.
          auto off = truncation::position_to_offset(text, static_cast<std::size_t>(l1),
                                                    static_cast<std::size_t>(*a.column + R.dc), R.unit);
          if (off) {
            auto pos = truncation::offset_to_position(text, *off);
            if (pos) diag += ", UTF-16 column " + std::to_string(pos->column);
          }
        }
        diag += " of " + q(bad->rel) + ", the server says " + position_text(a) + " (at " + a.where + ")";
        if (misplaced > 1) diag += "; " + std::to_string(misplaced) + " positions of this answer are off the same way";
        if (warn)
          diag += ". The tool's description says it counts from 0 (LSP's convention), so this is a warning: agents "
                  "that read positions as 1-based (MCP, editors' line numbers) land one line and column early";
        const char* id = zero_based(r) ? "POS-BASE" : "POS-UTF16";
        Finding f = make(id, reply, {{"form", "counted-otherwise"}, {"counted", R.label}, {"anchor", path_shape(a.where)}},
                         std::move(diag), warn ? Severity::kWarning : Severity::kError);
        f.file = bad->rel;
        f.line = std::max<std::int64_t>(l1, 0);
        f.column = 0;
        if (a.column) {
          auto off = truncation::position_to_offset(text, static_cast<std::size_t>(l1), static_cast<std::size_t>(*a.column + R.dc), R.unit);
          if (off)
            if (auto pos = truncation::offset_to_position(text, *off)) f.column = static_cast<std::int64_t>(pos->column);
        }
        if (warn) {
          if (st.warned.empty()) st.warned.push_back(f);
        } else {
          ++st.findings;
        }
        (zero_based(r) ? base : utf16).push_back(std::move(f));
      }
    }
    if (!base.empty() || !utf16.empty()) {
      for (const auto& f : base)
        if (f.severity == Severity::kError) ++st.findings;
    }
    // Statuses: a tool whose answer held a position has the rules applied.
    const std::string none = s_->root ? "no position named a file in the workspace (" + *s_->root + ")"
                                      : "needs the workspace the positions refer to (--root DIR or --cwd DIR)";
    for (const char* id : {"POS-BASE", "POS-UTF16"}) {
      if (resolved) out.pass(id);
      else out.unobserved(id, none);
    }
    if (quoted) out.pass("TR-VERBATIM");
    else out.unobserved("TR-VERBATIM", "no answer quoted text tied to a file and line of the workspace");
    // One finding per rule and answer: the first position stands for the others.
    for (auto* v : {&base, &utf16, &verbatim})
      if (!v->empty()) {
        Finding f = std::move(v->front());
        if (v->size() > 1 && f.diagnosis.find("positions of this answer") == std::string::npos)
          f.diagnosis += " (" + std::to_string(v->size()) + " such positions in this answer)";
        out.fail(std::move(f));
      }
  } catch (...) {
  }
  return out;
}

std::map<std::string, Outcomes> GenericPositions::finish() {
  std::map<std::string, Outcomes> out;
  // A server whose tools count two ways: one declares 0-based positions (a warning alone), another
  // answers 1-based ones. An agent cannot read both with one rule.
  std::string one_based;
  for (const auto& [name, t] : s_->tools)
    if (t.standard > 0 && t.findings == 0 && t.warned.empty() && !t.declared0) {
      one_based = name;
      break;
    }
  if (one_based.empty()) return out;
  for (auto& [name, t] : s_->tools) {
    if (t.warned.empty()) continue;
    Finding f = t.warned.front();
    f.severity = Severity::kError;
    f.diagnosis = "the server mixes position conventions: " + q(name) +
                  " counts from 0 (as its description says) but " + q(one_based) +
                  " answers 1-based lines and UTF-16 columns, so no one rule reads both. " + f.diagnosis;
    out[name].fail(std::move(f));
  }
  return out;
}

}  // namespace ctxo::checks
