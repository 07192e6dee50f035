// SPDX-License-Identifier: MIT
#include "gen/prose.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <set>

#include "core/anchor.h"
#include "core/text.h"

namespace ctxo::gen {

namespace {

using sv = std::string_view;

constexpr std::size_t kMaxValueBytes = 512;
constexpr std::size_t kMaxCandidates = 1024;  // distinct values looked at per answer, kept or not
constexpr std::size_t kMaxArgumentStrings = 256;
constexpr std::size_t kMaxArgumentBytes = 16 * 1024;
constexpr std::size_t kMaxCodeSpan = 512;  // a backticked span closes within this many bytes

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_alpha(char c) { return is_lower(c) || is_upper(c); }
bool is_high(char c) { return static_cast<unsigned char>(c) >= 0x80; }

sv trim(sv s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts(sv s, sv prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends(sv s, sv suffix) { return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix; }

std::string lower(sv s) {
  std::string out(s);
  for (auto& c : out)
    if (is_upper(c)) c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool ascii(sv s) { return std::none_of(s.begin(), s.end(), is_high); }
bool has_alpha(sv s) { return std::any_of(s.begin(), s.end(), [](char c) { return is_alpha(c) || is_high(c); }); }

bool in(sv word, std::initializer_list<sv> words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// Strips characters of `set` from the front (`front`) or the back.
sv strip_front(sv s, sv set) {
  while (!s.empty() && set.find(s.front()) != sv::npos) s.remove_prefix(1);
  return s;
}
sv strip_back(sv s, sv set) {
  while (!s.empty() && set.find(s.back()) != sv::npos) s.remove_suffix(1);
  return s;
}

bool is_identifier(sv s) {
  if (s.empty() || s.size() > 128 || !ident_start(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return ident_char(static_cast<unsigned char>(c)); });
}

// The extension of a path's last segment ("ts" of "src/app.ts"; "gitignore" of ".gitignore"),
// when it is 1-10 letters and digits with a letter.
std::optional<sv> extension(sv path) {
  const std::size_t slash = path.rfind('/');
  const sv last = slash == sv::npos ? path : path.substr(slash + 1);
  const std::size_t dot = last.rfind('.');
  if (dot == sv::npos || dot + 1 >= last.size()) return std::nullopt;
  const sv ext = last.substr(dot + 1);
  if (ext.size() > 10 || !std::all_of(ext.begin(), ext.end(), [](char c) { return is_alpha(c) || is_digit(c); }) ||
      !std::any_of(ext.begin(), ext.end(), is_alpha))
    return std::nullopt;
  return ext;
}

// Extensions that make a bare `name.ext` a file name in running prose.
bool known_extension(sv ext) {
  const std::string e = lower(ext);
  return in(e, {"ts",   "tsx",  "mts",  "cts",   "js",   "jsx",  "mjs",  "cjs",  "py",    "pyi",  "rb",   "go",
                "rs",   "java", "kt",   "kts",   "scala", "c",   "h",    "cc",   "cpp",   "cxx",  "hpp",  "hh",
                "cs",   "fs",   "swift", "m",    "mm",   "php",  "pl",   "lua",  "dart",  "ex",   "exs",  "erl",
                "hs",   "ml",   "clj",  "r",     "jl",   "zig",  "nim",  "vue",  "svelte", "astro", "json", "jsonc",
                "yaml", "yml",  "toml", "ini",   "cfg",  "conf", "xml",  "html", "htm",   "css",  "scss", "less",
                "md",   "mdx",  "rst",  "txt",   "csv",  "tsv",  "sql",  "sh",   "bash",  "zsh",  "ps1",  "bat",
                "proto", "graphql", "gql", "tf", "lock", "env", "gradle", "cmake", "mk", "dockerfile", "ipynb"});
}

// Characters a path value may hold: no blank, control, quote, shell or glob character, no scheme.
bool path_chars(sv s) {
  if (s.empty() || s.size() > 1024 || s.front() == '-' || s.find("://") != sv::npos) return false;
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || sv(" \"'<>|*?`:,;()[]{}").find(c) != sv::npos) return false;
  return has_alpha(s);
}

// Where a text came from: running prose, a backticked span, or a Markdown structure (list item,
// table cell, heading, a line of its own).
enum class Ctx { kProse, kCode, kStruct };

// What a list item or a table row says next to its first token.
enum class Evidence { kNone, kPath, kKind };

bool path_value(sv s, Ctx ctx) {
  if (!path_chars(s) || s.find("//") != sv::npos) return false;
  if (s.find('/') != sv::npos) {
    if (s == "/" || (s.size() >= 2 && s.substr(s.size() - 2) == "/.")) return false;
    if (extension(s)) return true;
    if (starts(s, "/") || starts(s, "./") || starts(s, "../") || starts(s, "~/")) return true;
    return ctx != Ctx::kProse;  // `src/util`, a [DIR] line, a table cell: yes; "and/or": no
  }
  const auto ext = extension(s);
  if (!ext) return false;
  if (ext->size() == s.size() - 1) return ctx != Ctx::kProse;  // a dotfile: `.env`, [FILE] .gitignore
  const std::string e = lower(*ext);
  if (in(e, {"com", "org", "net", "io", "dev", "ai"})) return false;  // a domain, not a file
  if (ctx == Ctx::kProse && e == "js" && is_upper(s.front())) return false;  // Node.js, Vue.js
  return known_extension(*ext);
}

// Camel-case words that are product names, not code.
bool brand_word(sv s) {
  const std::string l = lower(s);
  return in(l, {"javascript", "typescript", "github", "gitlab", "postgresql", "mysql", "sqlite", "mongodb", "macos",
                "ios", "iphone", "ipad", "youtube", "linkedin", "openai", "powershell", "vscode", "websocket",
                "nodejs", "graphql", "devops", "pypi", "ecmascript", "webassembly", "nextjs", "dotnet"});
}

// An ASCII identifier that reads as code, not as a word: camelCase, snake_case, `$`, letters
// with digits (job01; not an all-caps code such as UTF8 or ES2020).
bool code_like(sv s) {
  if (!is_identifier(s) || !ascii(s) || brand_word(s)) return false;
  if (s.find('$') != sv::npos) return std::any_of(s.begin(), s.end(), is_alpha);  // $el, not $5
  if (s.find('_') != sv::npos) return has_alpha(s);
  for (std::size_t i = 0; i + 1 < s.size(); ++i)
    if (is_lower(s[i]) && is_upper(s[i + 1])) return true;
  const bool digits = std::any_of(s.begin(), s.end(), is_digit);
  const bool lowers = std::any_of(s.begin(), s.end(), is_lower);
  return digits && lowers && s.size() >= 3;
}

// Plain words never taken as names, even where the structure around them says code.
bool stop_word(sv s) {
  const std::string l = lower(s);
  return l.size() < 2 ||
         in(l, {"the", "an", "and", "or", "of", "in", "on", "at", "to", "by", "for", "from", "with", "is", "are",
                "was", "be", "it", "this", "that", "these", "no", "not", "none", "yes", "ok", "all", "any", "see",
                "found", "total", "name", "names", "kind", "type", "file", "files", "path", "line", "lines", "col",
                "column", "location", "symbol", "symbols", "function", "method", "class", "defined", "called",
                "calls", "caller", "callers", "reference", "references", "result", "results", "match", "matches",
                "error", "warning", "note", "summary", "description", "details", "value", "id", "size", "count",
                "dir", "directory", "todo", "true", "false", "null", "undefined", "nan"});
}

// Kinds a code-intelligence answer prints next to a name: "(function)", "| class |".
bool kind_word(sv s) {
  const std::string l = lower(strip_back(strip_front(s, "([{*_`"), ")]}*_`:,"));
  return in(l, {"function", "func", "fn", "method", "class", "interface", "type", "typedef", "enum", "struct", "trait",
                "variable", "var", "let", "const", "constant", "property", "field", "module", "namespace",
                "package", "constructor", "member", "macro", "def", "impl", "alias", "component", "hook"});
}

// Nouns that, before a colon, make what follows a list of code names: "Found 3 symbols: a, b".
bool code_noun(sv word) {
  const std::string l = lower(strip_back(strip_front(word, "*_`(["), "*_`)]:"));
  auto noun = [](sv w) {
    return in(w, {"symbol", "function", "class", "method", "identifier", "definition", "caller", "callee",
                  "reference", "export", "import", "name", "variable", "entity", "node", "dependency", "module",
                  "file", "member", "field", "property", "interface", "usage", "implementation"});
  };
  if (noun(l)) return true;
  if (ends(l, "s") && noun(sv(l).substr(0, l.size() - 1))) return true;
  if (ends(l, "es") && noun(sv(l).substr(0, l.size() - 2))) return true;
  return ends(l, "ies") && noun(l.substr(0, l.size() - 3) + "y");
}

}  // namespace

// The forms are prose's; the numbers are core/anchor.h's; the path rule is path_chars' (above).
std::optional<std::string_view> anchor_path(std::string_view t) {
  const auto anchor = parse_anchor(t, AnchorForms{.trailing_colons = true, .parenthesised = true, .github_line = true});
  if (!anchor) return std::nullopt;
  const sv path = anchor->path;
  if (!path_chars(path) || (path.find('/') == sv::npos && !extension(path))) return std::nullopt;
  if (auto ext = extension(path); ext && path.find('/') == sv::npos && in(lower(*ext), {"com", "org", "net", "io"}))
    return std::nullopt;  // example.com:443
  return path;
}

namespace {

class Scanner {
 public:
  Scanner(const std::vector<std::string>& exclude) : exclude_(exclude) {}

  void text(sv all) {
    if (all.size() > kProseMaxBytes) {
      all = all.substr(0, kProseMaxBytes);
      if (const std::size_t nl = all.rfind('\n'); nl != sv::npos) all = all.substr(0, nl);
    }
    bool fence = false;
    std::size_t at = 0;
    while (at < all.size() && !full()) {
      std::size_t nl = all.find('\n', at);
      if (nl == sv::npos) nl = all.size();
      const sv line = all.substr(at, nl - at);
      at = nl + 1;
      const sv l = trim(line);
      if (starts(l, "```") || starts(l, "~~~")) {
        fence = !fence;
        continue;
      }
      if (fence) {
        tokens(l, true);  // code: only its anchors
        continue;
      }
      this->line(l);
    }
  }

  std::vector<ProseValue> out;

 private:
  bool full() const { return out.size() >= kProseMaxValues || looked_ >= kMaxCandidates; }

  bool excluded(sv v) const {
    for (const auto& e : exclude_) {
      if (e.empty()) continue;
      if (e.find(v) != std::string::npos) return true;  // our own string, or a piece of it
      if (v.size() > e.size() && ends(v, e) && v[v.size() - e.size() - 1] == '/') return true;  // made absolute
    }
    return false;
  }

  void emit(ValueKind kind, sv v) {
    if (full()) return;
    v = trim(v);
    if (v.empty() || v.size() > kMaxValueBytes) return;
    std::string key(1, static_cast<char>('0' + static_cast<int>(kind)));
    key.append(v);
    if (!seen_.insert(std::move(key)).second) return;  // each value judged once
    ++looked_;
    if (!is_valid_utf8(v) ||
        std::any_of(v.begin(), v.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      return;
    if (!excluded(v)) out.push_back(ProseValue{kind, std::string(v)});
  }

  // One token of `ctx`: a uri, an anchor, an id, a path or a name. `evidence`: what the structure
  // around it names right after it (see evidence()): a plain lower-case word next to a path or a
  // kind is a name, a capitalised one only next to a kind ("Shape (class)", not "Open src/a.ts").
  // True when it was a value.
  bool token(sv t, Ctx ctx, Evidence evidence = Evidence::kNone) {
    if (t.empty() || t.size() > kMaxValueBytes) return false;
    if (starts(t, "file://")) {
      t = strip_back(t, ".,;:)]}>\"'");
      if (starts(t, "file:///") && path_chars(t.substr(7))) {
        emit(ValueKind::kUri, t);
        return true;
      }
      return false;
    }
    if (t.find("://") != sv::npos) return false;  // another scheme: never offered
    if (auto p = anchor_path(t)) {
      emit(ValueKind::kPath, *p);
      return true;
    }
    if (const std::size_t sep = t.find("::"); sep != sv::npos && sep > 0) {
      const sv first = t.substr(0, sep);
      if (path_chars(first) && (first.find('/') != sv::npos || extension(first))) {  // src/a.ts::run::function
        emit(ValueKind::kId, t);
        return true;
      }
      bool parts = true;  // Shape::area
      for (std::size_t at = 0; parts;) {
        const std::size_t next = t.find("::", at);
        parts = is_identifier(t.substr(at, next == sv::npos ? sv::npos : next - at));
        if (next == sv::npos) break;
        at = next + 2;
      }
      if (parts) emit(ValueKind::kName, t);
      return parts;
    }
    if (path_value(t, ctx)) {
      emit(ValueKind::kPath, t);
      return true;
    }
    if (is_identifier(t)) {
      bool name = false;
      if (ctx == Ctx::kCode) name = !in(lower(t), {"true", "false", "null", "undefined", "nan", "none", "nil"});
      else if (code_like(t)) name = true;
      else if (ctx == Ctx::kStruct && ascii(t) && !stop_word(t))
        name = evidence == Evidence::kKind || (evidence == Evidence::kPath && !is_upper(t[0]));
      if (name) emit(ValueKind::kName, t);
      return name;
    }
    // Shape.area, this.store.get, Class#method: every part an identifier (in prose, of 2+ characters
    // and not a domain).
    if (t.find('.') != sv::npos || t.find('#') != sv::npos) {
      std::size_t at = 0;
      int n = 0;
      for (;;) {
        const std::size_t next = t.find_first_of(".#", at);
        const sv part = t.substr(at, next == sv::npos ? sv::npos : next - at);
        if (!is_identifier(part) || (ctx != Ctx::kCode && part.size() < 2)) return false;
        ++n;
        if (next == sv::npos) break;
        at = next + 1;
      }
      const std::size_t last = t.find_last_of(".#");
      const sv tail = t.substr(last + 1);
      if (n < 2 || in(lower(tail), {"com", "org", "net", "io", "dev"})) return false;
      if (ctx == Ctx::kProse && known_extension(tail)) return false;  // Node.js: a product, not a file or a name
      emit(ValueKind::kName, t);
      return true;
    }
    return false;
  }

  // A backticked span: one token (`log`, `src/a.ts:3`), or a call (`log(msg)`: its name).
  void code(sv s) {
    s = trim(s);
    if (s.empty()) return;
    if (const std::size_t paren = s.find('('); paren != sv::npos && paren > 0 && s.back() == ')') {
      const sv callee = s.substr(0, paren);
      if (callee.find(' ') == sv::npos && !anchor_path(s)) {
        token(callee, Ctx::kCode);
        return;
      }
    }
    if (s.find_first_of(" \t") != sv::npos) return;  // a snippet, not a name
    token(s, Ctx::kCode);
  }

  // Running text: backticked spans and tokens. `anchors_only`: a fenced code block's line.
  void tokens(sv line, bool anchors_only = false) {
    std::size_t i = 0;
    while (i < line.size() && !full()) {
      if (line[i] == '`' && !anchors_only) {
        std::size_t n = 0;
        while (i + n < line.size() && line[i + n] == '`') ++n;
        // A span opened by 1-3 backticks closes with a run exactly as long, within kMaxCodeSpan
        // bytes (so a line of unclosed runs is still read in linear time).
        const sv window = line.substr(i + n, kMaxCodeSpan);
        std::size_t close = sv::npos;
        for (std::size_t k = 0; n <= 3 && k < window.size(); ++k) {
          if (window[k] != '`') continue;
          std::size_t m = 0;
          while (k + m < window.size() && window[k + m] == '`') ++m;
          if (m == n && (k + m < window.size() || i + n + k + m == line.size())) {
            close = k;
            break;
          }
          k += m;
        }
        if (close != sv::npos) {
          code(window.substr(0, close));
          i += n + close + n;
          continue;
        }
        i += n;
        continue;
      }
      if (is_space(line[i]) || line[i] == '`' || line[i] == '|') {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < line.size() && !is_space(line[j]) && line[j] != '`' && line[j] != '|') ++j;
      const sv raw = line.substr(i, j - i);
      i = j;
      // A Markdown link, [text](target): both halves.
      if (const std::size_t link = raw.find("]("); link != sv::npos && !anchors_only) {
        word(raw.substr(0, link), false);
        word(raw.substr(link + 2), false);
        continue;
      }
      word(raw, anchors_only);
    }
  }

  // One blank-separated word of running text, its punctuation taken off.
  void word(sv raw, bool anchors_only) {
    {
      // Markdown emphasis (*x*, _x_) and quotes are not part of a word ("_private" in prose is lost).
      sv t = strip_front(raw, "([{<\"'*>~_");
      t = strip_back(t, ",;!?\"'*>.~_");
      if (anchors_only) {
        if (auto p = anchor_path(t)) emit(ValueKind::kPath, *p);
        else if (auto q = anchor_path(strip_back(t, ")]}"))) emit(ValueKind::kPath, *q);
        return;
      }
      if (anchor_path(t)) {
        token(t, Ctx::kProse);
        return;
      }
      // Code in the text: `runTask(1);`, `x=makeShape()`: the pieces between its punctuation.
      for (std::size_t at = 0; at < t.size();) {
        std::size_t end = t.find_first_of("()[]{},;=<>!&|+", at);
        if (end == sv::npos) end = t.size();
        const sv piece = strip_back(strip_front(t.substr(at, end - at), ".:\"'"), ".:\"'");
        if (!piece.empty()) token(piece, Ctx::kProse);
        at = end + 1;
      }
    }
  }

  // What the first `window` tokens of `rest` (the rest of a list item or of a table row) name: a
  // kind ("(function)", "| class |") first, else a path or an anchor.
  static Evidence evidence(sv rest, int window) {
    Evidence found = Evidence::kNone;
    std::size_t i = 0;
    for (int n = 0; n < window && i < rest.size(); ++n) {
      while (i < rest.size() && (is_space(rest[i]) || rest[i] == '|' || rest[i] == '`')) ++i;
      std::size_t j = i;
      while (j < rest.size() && !is_space(rest[j]) && rest[j] != '|' && rest[j] != '`') ++j;
      const sv t = strip_back(strip_front(rest.substr(i, j - i), "([{<\"'*"), ",;.\"'*>");
      i = j;
      if (t.empty()) continue;
      if (kind_word(t)) return Evidence::kKind;
      if (anchor_path(t) || path_value(strip_back(t, ")]}:"), Ctx::kStruct)) found = Evidence::kPath;
    }
    return found;
  }

  // The first token of a list item or a table cell (Markdown emphasis, backticks and a trailing
  // ':' or ',' taken off).
  static sv first_token(sv s) {
    s = trim(s);
    if (starts(s, "[ ] ") || starts(s, "[x] ") || starts(s, "[X] ")) s = trim(s.substr(4));
    const std::size_t end = s.find_first_of(" \t");
    sv t = s.substr(0, end);
    t = strip_back(strip_front(t, "*_`\"'"), "*_`\"':,;");
    return t;
  }

  // "Found 3 symbols: a, b, c": after a code noun and a colon, a comma list of one-token items.
  void comma_list(sv l) {
    const std::size_t colon = l.find(": ");
    if (colon == sv::npos || l.find(',', colon) == sv::npos) return;
    bool noun = false;
    for (std::size_t i = 0; i < colon && !noun;) {
      while (i < colon && is_space(l[i])) ++i;
      std::size_t j = i;
      while (j < colon && !is_space(l[j])) ++j;
      noun = code_noun(l.substr(i, j - i));
      i = j;
    }
    if (!noun) return;
    std::vector<sv> items;
    sv rest = l.substr(colon + 2);
    for (std::size_t at = 0; at <= rest.size();) {
      std::size_t comma = rest.find(',', at);
      if (comma == sv::npos) comma = rest.size();
      sv item = trim(rest.substr(at, comma - at));
      if (starts(item, "and ")) item = trim(item.substr(4));
      item = strip_back(strip_front(item, "`*\"'"), "`*\"'.;");
      if (item.empty() || item.find_first_of(" \t") != sv::npos) return;  // prose, not a list of names
      items.push_back(item);
      at = comma + 1;
    }
    for (sv item : items) token(item, Ctx::kStruct, Evidence::kKind);
  }

  void table_row(sv l) {
    // A separator row (|---|:--:|) holds nothing.
    if (std::all_of(l.begin(), l.end(), [](char c) { return c == '|' || c == '-' || c == ':' || is_space(c); })) return;
    std::vector<sv> cells;
    for (std::size_t at = 1; at < l.size();) {  // l[0] == '|'
      std::size_t bar = at;
      while (bar < l.size() && !(l[bar] == '|' && l[bar - 1] != '\\')) ++bar;
      cells.push_back(trim(l.substr(at, bar - at)));
      at = bar + 1;
    }
    bool first = true;
    for (std::size_t k = 0; k < cells.size(); ++k) {
      if (cells[k].empty()) continue;
      const sv t = first_token(cells[k]);
      if (first) {
        const std::size_t after = static_cast<std::size_t>(cells[k].data() - l.data()) + cells[k].size();
        token(t, Ctx::kStruct, evidence(l.substr(std::min(after, l.size())), 4));
        first = false;
      } else {
        token(t, Ctx::kStruct);
      }
    }
  }

  void line(sv l) {
    if (l.empty()) return;
    // server-filesystem's list_directory: "[FILE] name" / "[DIR] name".
    for (sv tag : {sv("[FILE] "), sv("[DIR] ")})
      if (starts(l, tag)) {
        sv name = trim(l.substr(tag.size()));
        name = trim(name.substr(0, name.find("  ")));  // list_directory_with_sizes pads the name, then the size
        if (!name.empty() && name.size() <= 1024 && name.find("://") == sv::npos) emit(ValueKind::kPath, name);
        return;
      }
    if (l[0] == '#') {
      std::size_t n = 0;
      while (n < l.size() && l[n] == '#') ++n;
      if (n <= 6 && n < l.size() && is_space(l[n])) {
        const sv h = strip_back(trim(strip_back(trim(l.substr(n)), "#")), ":");
        if (h.find_first_of(" \t") == sv::npos) token(strip_back(strip_front(h, "`*_"), "`*_"), Ctx::kStruct);
        tokens(h);
        return;
      }
    }
    if (l[0] == '|') {
      table_row(l);
      tokens(l);
      return;
    }
    // A list item: "- x", "* x", "+ x", "1. x", "1) x".
    std::size_t marker = 0;
    if ((l[0] == '-' || l[0] == '*' || l[0] == '+') && l.size() > 1 && is_space(l[1])) {
      marker = 2;
    } else {
      std::size_t d = 0;
      while (d < l.size() && d < 9 && is_digit(l[d])) ++d;
      if (d > 0 && d + 1 < l.size() && (l[d] == '.' || l[d] == ')') && is_space(l[d + 1])) marker = d + 2;
    }
    if (marker > 0) {
      const sv item = trim(l.substr(marker));
      const sv first = first_token(item);
      const std::size_t after = item.find_first_of(" \t");
      token(first, Ctx::kStruct, after == sv::npos ? Evidence::kNone : evidence(item.substr(after), 2));
      comma_list(item);
      tokens(item);
      return;
    }
    // "src/app.ts:4:24:text" (ripgrep --vimgrep, compilers): the anchor, then the text.
    if (const std::size_t colon = l.find(':'); colon != sv::npos && colon > 0 && colon + 1 < l.size() &&
                                               is_digit(l[colon + 1]) && l.find_first_of(" \t") > colon) {
      std::size_t e = colon + 1;
      for (int groups = 0; groups < 2 && e < l.size() && is_digit(l[e]); ++groups) {
        while (e < l.size() && is_digit(l[e])) ++e;
        if (e < l.size() && l[e] == ':') ++e;
      }
      if (auto p = anchor_path(l.substr(0, e))) {
        emit(ValueKind::kPath, *p);
        tokens(l.substr(e));
        return;
      }
    }
    // A line that is one token: a path listing (search_files prints one absolute path a line).
    if (l.find_first_of(" \t") == sv::npos) {
      const sv t = strip_back(l, ",;");
      if (path_value(t, Ctx::kStruct) || anchor_path(t)) {
        token(t, Ctx::kStruct);
        return;
      }
    }
    comma_list(l);
    tokens(l);
  }

  const std::vector<std::string>& exclude_;
  std::set<std::string> seen_;
  std::size_t looked_ = 0;
};

void collect_strings(const nlohmann::json& v, std::vector<std::string>& out, std::size_t& bytes, int depth) {
  if (depth > 16 || out.size() >= kMaxArgumentStrings || bytes >= kMaxArgumentBytes) return;
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    const std::string cut = s.substr(0, kMaxArgumentBytes - bytes);
    bytes += cut.size();
    if (!cut.empty()) out.push_back(cut);
  } else if (v.is_structured()) {
    for (const auto& x : v) collect_strings(x, out, bytes, depth + 1);
  }
}

// The words of a tool name: "find_callers" -> find, callers; "getSymbolInfo" -> get, symbol, info.
std::vector<std::string> name_words(const std::string& name) {
  std::vector<std::string> words;
  std::string w;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!is_alpha(c) && !is_digit(c)) {
      if (!w.empty()) words.push_back(lower(w));
      w.clear();
      continue;
    }
    if (is_upper(c) && !w.empty() && is_lower(w.back())) {
      words.push_back(lower(w));
      w.clear();
    }
    w += c;
  }
  if (!w.empty()) words.push_back(lower(w));
  return words;
}

}  // namespace

std::vector<ProseValue> prose_values(std::string_view text, const std::vector<std::string>& exclude) {
  Scanner s(exclude);
  s.text(text);
  return std::move(s.out);
}

std::vector<std::string> argument_strings(const nlohmann::json& arguments) {
  std::vector<std::string> out;
  std::size_t bytes = 0;
  collect_strings(arguments, out, bytes, 0);
  return out;
}

bool reading_tool(const nlohmann::json& tool) {
  if (!tool.is_object()) return false;
  if (auto a = tool.find("annotations"); a != tool.end() && a->is_object()) {
    if (a->value("destructiveHint", false) == true) return false;
    if (auto r = a->find("readOnlyHint"); r != a->end() && r->is_boolean()) return r->get<bool>();
  }
  if (!tool.contains("name") || !tool["name"].is_string()) return false;
  const std::vector<std::string> words = name_words(tool["name"].get<std::string>());
  // "log" reads a history only beside a word of version control (git_log, hg_log, repo_log,
  // view_history_log); alone or beside anything else it may write one (log, log_event,
  // log_message, audit_log). shortlog and reflog are git's own and read.
  const bool history = std::any_of(words.begin(), words.end(), [](const std::string& w) {
    return in(w, {"git", "hg", "svn", "vcs", "repo", "repository", "commits", "history"});
  });
  bool reads = false;
  std::string before;  // the word before
  for (const auto& w : words) {
    // "type" is typing (browser_type, type_text), but a noun after a reading verb:
    // typescript-mcp's get_type_at_symbol reads.
    const bool noun = w == "type" && in(before, {"get", "find", "show", "describe", "lookup", "resolve", "infer", "read"});
    before = w;
    if (noun) continue;
    if (in(w, {"write", "create", "delete", "del", "remove", "rm", "update", "upsert", "set", "run", "exec",
               "execute", "eval", "evaluate", "edit", "move", "mv", "rename", "insert", "drop", "put", "post",
               "patch", "add", "apply", "commit", "push", "install", "uninstall", "kill", "start", "stop", "send",
               "upload", "save", "modify", "replace", "reset", "clear", "append", "deploy", "restart", "truncate",
               "fix", "refactor", "build", "compile", "invoke", "trigger", "sync", "merge", "generate", "store",
               "destroy", "publish", "approve", "cancel", "navigate", "click", "type", "fill", "submit"}))
      return false;
    reads = reads || in(w, {"list", "ls", "get", "find", "search", "read", "show", "describe", "query", "lookup",
                            "look", "outline", "references", "refs", "reference", "definition", "definitions",
                            "hover", "fetch", "view", "inspect", "grep", "tree", "info", "stat", "stats", "status",
                            "explain", "resolve", "symbols", "callers", "callees", "usages", "implementations",
                            "diagnostics", "count", "diff", "blame", "history", "browse", "cat", "head", "tail",
                            "locate", "which", "signature", "docs", "documentation", "shortlog", "reflog"}) ||
            (w == "log" && history);
  }
  return reads;
}

}  // namespace ctxo::gen
