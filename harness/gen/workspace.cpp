// SPDX-License-Identifier: MIT
#include "gen/workspace.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>
#include <tuple>

#include "core/text.h"
#include "gen/values.h"
#include "transport/run_command.h"
#include "truncation/unicode.h"

namespace ctxo::gen {

namespace fs = std::filesystem;

namespace {

bool ignored_dir(const std::string& name) {
  return name.empty() || name[0] == '.' || name == "node_modules" || name == "dist" || name == "target" ||
         name.rfind("build", 0) == 0 || name == "__pycache__";
}

// True when `inner` is `root` or below it (both canonical).
bool inside(const fs::path& root, const fs::path& inner) {
  auto r = root.begin(), i = inner.begin();
  for (; r != root.end(); ++r, ++i)
    if (i == inner.end() || *r != *i) return false;
  return true;
}

bool cjk(char32_t c) {
  return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x20000 && c <= 0x3FFFF);
}

// A code point that may be part of an identifier: ASCII letters, digits, '_' and '$', Latin
// letters with marks, CJK and Hangul (not emoji, not punctuation).
bool ident_cp(char32_t c) {
  if (c < 0x80) return std::isalnum(static_cast<int>(c)) != 0 || c == '_' || c == '$';
  return (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7) || (c >= 0x370 && c <= 0x52F) ||
         (c >= 0x3040 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF);
}

bool ident_start(char32_t c) { return ident_cp(c) && !(c >= '0' && c <= '9'); }

struct Token {
  std::size_t begin, end;  // bytes in the line
  std::string text;
};

// The identifiers of one line, in order.
std::vector<Token> tokens(const std::string& line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    Utf8Char c = utf8_char_at(line, i);
    const std::size_t n = std::max<std::size_t>(c.length, 1);
    if (c.length == 0 || !ident_start(c.code_point)) {
      // A digit run is skipped whole ("12ab" is no identifier).
      if (c.length == 1 && c.code_point >= '0' && c.code_point <= '9') {
        while (i < line.size() && ident_cp(static_cast<unsigned char>(line[i])) && static_cast<unsigned char>(line[i]) < 0x80) ++i;
        continue;
      }
      i += n;
      continue;
    }
    std::size_t j = i;
    while (j < line.size()) {
      Utf8Char d = utf8_char_at(line, j);
      if (d.length == 0 || !ident_cp(d.code_point)) break;
      j += d.length;
    }
    out.push_back(Token{i, j, line.substr(i, j - i)});
    i = j;
  }
  return out;
}

const std::set<std::string>& keywords() {
  static const std::set<std::string> k = {
      "abstract", "and",     "any",      "as",        "async",     "await",    "bool",     "boolean",  "break",
      "byte",     "case",    "catch",    "char",      "class",     "const",    "continue", "def",      "default",
      "defer",    "del",     "delete",   "do",        "double",    "elif",     "else",     "enum",     "except",
      "export",   "extends", "extern",   "false",     "final",     "finally",  "float",    "fn",       "for",
      "from",     "func",    "function", "global",    "go",        "goto",     "if",       "impl",     "implements",
      "import",   "in",      "include",  "inline",    "instanceof", "int",     "interface", "is",      "lambda",
      "let",      "long",    "loop",     "match",     "mod",       "module",   "mut",      "namespace", "new",
      "nil",      "none",    "None",     "not",       "null",      "number",   "object",   "or",       "override",
      "package",  "pass",    "private",  "protected", "pub",       "public",   "raise",    "readonly", "return",
      "self",     "short",   "signed",   "static",    "str",       "string",   "struct",   "super",    "switch",
      "this",     "throw",   "throws",   "trait",     "true",      "True",     "False",    "try",      "type",
      "typeof",   "undefined", "union",  "unsigned",  "use",       "using",    "var",      "void",     "volatile",
      "where",    "while",   "with",     "yield",     "get",       "set",      "require",  "then",     "end",
      "elsif",    "unless",  "begin"};
  return k;
}

// Keywords after which the built-in tokenizer takes the next identifier as a declared name.
bool declaring(const std::string& w) {
  static const std::set<std::string> k = {"function", "class", "def",    "const", "let",  "var",   "type",
                                          "interface", "struct", "fn",   "func",  "enum", "trait", "module"};
  return k.count(w) > 0;
}

// Names the built-in tokenizer declares on one line: after a declaring keyword (Go's
// `func (r *T) Name`: after the receiver), and a method `name(...) {` at the start of a line.
std::vector<std::string> declared_on(const std::string& line, const std::vector<Token>& toks) {
  std::vector<std::string> out;
  for (std::size_t t = 0; t + 1 < toks.size(); ++t) {
    if (!declaring(toks[t].text)) continue;
    std::size_t next = t + 1;
    if (toks[t].text == "func") {
      const std::size_t after = line.find_first_not_of(" \t", toks[t].end);
      if (after != std::string::npos && line[after] == '(') {
        const std::size_t close = line.find(')', after);
        if (close == std::string::npos) continue;
        while (next < toks.size() && toks[next].begin < close) ++next;
        if (next >= toks.size()) continue;
      }
    }
    // Only whitespace (or a `*`, `async`) between the keyword and the name.
    const std::string between = line.substr(toks[t].end, toks[next].begin - toks[t].end);
    if (between.find_first_not_of(" \t*") != std::string::npos) continue;
    if (!keywords().count(toks[next].text)) out.push_back(toks[next].text);
  }
  // A method: `  name(args) {` (or `async name(`), the line's first identifier.
  if (!toks.empty()) {
    std::size_t t = 0;
    while (t < toks.size() && (toks[t].text == "async" || toks[t].text == "static" || toks[t].text == "public" ||
                               toks[t].text == "private" || toks[t].text == "protected"))
      ++t;
    if (t < toks.size() && !keywords().count(toks[t].text) && line.find_first_not_of(" \t") == toks[0].begin &&
        toks[0].begin > 0 && toks[t].end < line.size() && line[toks[t].end] == '(') {
      const std::size_t close = line.find(')', toks[t].end);
      if (close != std::string::npos && line.find('{', close) != std::string::npos &&
          line.find(';', toks[t].end) > line.find('{', close))
        out.push_back(toks[t].text);
    }
  }
  return out;
}

// The module specifiers a line imports: JavaScript/TypeScript `from "x"`, `import "x"`,
// `require("x")`, `import("x")`; Python `from x import`, `import x`.
std::vector<std::string> imported_on(const std::string& line) {
  std::vector<std::string> out;
  auto quoted_after = [&](std::size_t at) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '(')) ++at;
    if (at >= line.size() || (line[at] != '"' && line[at] != '\'')) return;
    const std::size_t close = line.find(line[at], at + 1);
    if (close == std::string::npos || close == at + 1 || close - at > 200) return;
    const std::string spec = line.substr(at + 1, close - at - 1);
    if (spec.find_first_of(" \t\\`$") == std::string::npos) out.push_back(spec);
  };
  for (const char* word : {"from", "import", "require"}) {
    const std::string w = word;
    for (std::size_t at = line.find(w); at != std::string::npos; at = line.find(w, at + 1)) {
      const bool starts = at == 0 || !(std::isalnum(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == '_' ||
                                       line[at - 1] == '.' || line[at - 1] == '$');
      if (starts) quoted_after(at + w.size());
    }
  }
  // Python: the line starts with the statement.
  std::size_t lead = line.find_first_not_of(" \t");
  if (lead != std::string::npos && out.empty()) {
    std::string_view rest(line);
    rest.remove_prefix(lead);
    for (std::string_view word : {"from ", "import "})
      if (rest.substr(0, word.size()) == word) {
        rest.remove_prefix(word.size());
        std::size_t n = 0;
        while (n < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[n])) || rest[n] == '_' || rest[n] == '.')) ++n;
        const std::string_view name = rest.substr(0, n);
        const std::string_view after = rest.substr(n);
        if (n > 0 && (word == "import " || after.substr(0, 8) == " import ")) out.emplace_back(name);
      }
  }
  return out;
}

}  // namespace

std::optional<std::string> module_of(const std::string& path, bool from_its_directory) {
  const std::size_t slash = path.rfind('/'), dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return std::nullopt;
  const std::string ext = path.substr(dot + 1), stem = path.substr(0, dot);
  for (const char* js : {"ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"})
    if (ext == js) return "./" + (from_its_directory && slash != std::string::npos ? stem.substr(slash + 1) : stem);
  if (ext == "py") {
    std::string dotted = stem;
    std::replace(dotted.begin(), dotted.end(), '/', '.');
    if (std::all_of(dotted.begin(), dotted.end(),
                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }))
      return dotted;
  }
  return std::nullopt;
}

namespace {

struct FileText {
  std::string path;  // relative
  std::vector<std::string> lines;
};

// Reads a regular file whose size was checked; nullopt when it is binary (a NUL byte, not UTF-8).
std::optional<std::string> read_text(const fs::path& p, std::uintmax_t max) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::string s;
  s.resize(static_cast<std::size_t>(max) + 1);
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  s.resize(static_cast<std::size_t>(in.gcount()));
  if (s.size() > max) return std::nullopt;
  if (s.find('\0') != std::string::npos || !is_valid_utf8(s)) return std::nullopt;
  return s;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < s.size()) {
    std::size_t nl = s.find('\n', at);
    std::string line = s.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

// The program's path: `name` itself when it has a '/', else the first executable of PATH.
std::optional<std::string> on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? std::optional(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    const std::string full = dir + "/" + name;
    if (::access(full.c_str(), X_OK) == 0) return full;
  }
  return std::nullopt;
}

// Runs Universal Ctags over `files` (relative to `root`) and returns (path, name, line) of each
// tag; nullopt when it is not there, fails, times out or says too much. The child is killed and
// reaped whatever happens (transport::run_command).
std::optional<std::vector<std::tuple<std::string, std::string, std::size_t>>> run_ctags(
    const std::string& root, const std::vector<std::string>& files, const WorkspaceOptions& o) {
  auto program = on_path(o.ctags_program);
  if (!program || files.empty()) return std::nullopt;
  std::vector<std::string> argv = {*program, "--output-format=json", "--fields=+n", "--sort=no", "-f", "-"};
  for (const auto& f : files) argv.push_back("./" + f);
  transport::CommandOptions co;
  co.cwd = root;
  co.limit = o.ctags_timeout;
  co.max_output = o.max_ctags_output;
  const transport::CommandResult run = transport::run_command(argv, co);
  if (!run.started || run.timed_out || run.too_long || run.exit_code != 0) return std::nullopt;
  const std::string& text = run.output;
  std::vector<std::tuple<std::string, std::string, std::size_t>> tags;
  std::stringstream lines(text);
  std::string line;
  bool any_json = false;
  while (std::getline(lines, line)) {
    json t = json::parse(line, nullptr, false);
    if (t.is_discarded() || !t.is_object()) continue;
    any_json = true;
    if (t.value("_type", "") != "tag" || !t.contains("name") || !t["name"].is_string() || !t.contains("path") ||
        !t["path"].is_string() || !t.contains("line") || !t["line"].is_number_unsigned())
      continue;
    std::string path = t["path"].get<std::string>();
    if (path.rfind("./", 0) == 0) path = path.substr(2);
    tags.emplace_back(std::move(path), t["name"].get<std::string>(), t["line"].get<std::size_t>());
  }
  if (!any_json && !text.empty()) return std::nullopt;  // not Universal Ctags' JSON
  std::sort(tags.begin(), tags.end());
  return tags;
}

std::string percent_encode_path(const std::string& p) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : p) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// True when every code point of `s` may be in an identifier (ctags names "anonymousFunction0a1b"
// and operators too; those with other characters are dropped).
bool clean_identifier(const std::string& s) {
  if (s.empty() || s.size() > 128) return false;
  auto toks = tokens(s);
  return toks.size() == 1 && toks[0].begin == 0 && toks[0].end == s.size() && s.rfind("__anon", 0) != 0 &&
         s.rfind("AnonymousFunction", 0) != 0;
}

}  // namespace

std::string Workspace::absolute(const std::string& path) const { return path.empty() ? root : root + "/" + path; }

std::string Workspace::uri(const std::string& path) const { return "file://" + percent_encode_path(absolute(path)); }

std::string Workspace::summary() const {
  return std::to_string(files.size()) + (files.size() == 1 ? " file, " : " files, ") +
         std::to_string(identifiers.size()) + (identifiers.size() == 1 ? " identifier (" : " identifiers (") + source + ")" +
         (commits.empty() ? ""
                          : ", " + std::to_string(commits.size()) + (commits.size() == 1 ? " commit (git)" : " commits (git)"));
}

std::vector<json> Workspace::values_of(ValueKind kind, std::size_t limit) const {
  std::vector<json> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& s) {
    if (out.size() < limit && !s.empty() && seen.insert(s).second) out.emplace_back(s);
  };
  constexpr std::size_t kFirst = 8;  // files offered in both forms before the directories and the rest
  switch (kind) {
    case ValueKind::kPath:
      for (std::size_t i = 0; i < files.size() && i < kFirst; ++i) add(files[i]);
      for (std::size_t i = 0; i < files.size() && i < kFirst; ++i) add(absolute(files[i]));
      for (std::size_t i = 0; i < dirs.size() && i < 4; ++i) add(dirs[i]);
      for (std::size_t i = 0; i < dirs.size() && i < 4; ++i) add(absolute(dirs[i]));
      for (std::size_t i = kFirst; i < files.size(); ++i) add(files[i]);
      for (std::size_t i = kFirst; i < files.size(); ++i) add(absolute(files[i]));
      break;
    case ValueKind::kDirectory:
      // The workspace root itself first (a project root, a working directory), as given and as
      // ".", then its directories, relative and absolute.
      add(root);
      add(".");
      for (std::size_t i = 0; i < dirs.size() && i < 4; ++i) add(dirs[i]);
      for (std::size_t i = 0; i < dirs.size() && i < 4; ++i) add(absolute(dirs[i]));
      break;
    case ValueKind::kUri:
      for (const auto& f : files) add(uri(f));
      for (const auto& d : dirs) add(uri(d));
      break;
    case ValueKind::kName:
      for (const auto& i : identifiers) add(i);
      break;
    case ValueKind::kModule:
      for (const auto& m : modules) add(m);
      break;
    case ValueKind::kSnippet:
      for (std::size_t i = 0; i < identifiers.size() && i < 8; ++i) add(identifiers[i]);
      for (const auto& s : snippets) add(s);
      break;
    case ValueKind::kGlob:
    case ValueKind::kFileType: {
      // The extensions the most files have, as `*.ext` and `**/*.ext`, then the first
      // directories' `dir/**`: each matches files that exist (file types: the extensions).
      std::map<std::string, std::size_t> count;
      for (const auto& f : files) {
        const std::size_t slash = f.rfind('/'), dot = f.rfind('.');
        if (dot != std::string::npos && (slash == std::string::npos || dot > slash + 1) && dot + 1 < f.size())
          ++count[f.substr(dot + 1)];
      }
      std::vector<std::pair<std::size_t, std::string>> ranked;
      for (const auto& [ext, n] : count) ranked.emplace_back(n, ext);
      std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      if (kind == ValueKind::kFileType) {
        for (std::size_t i = 0; i < ranked.size() && i < 8; ++i) add(ranked[i].second);
        break;
      }
      for (std::size_t i = 0; i < ranked.size() && i < 4; ++i) add("*." + ranked[i].second);
      for (std::size_t i = 0; i < ranked.size() && i < 4; ++i) add("**/*." + ranked[i].second);
      for (std::size_t i = 0; i < dirs.size() && i < 4; ++i) add(dirs[i] + "/**");
      break;
    }
    case ValueKind::kRevision: {
      // What people type first (the newest commits' short ids), then the names, the full ids, and
      // HEAD and its parent (spellings a server must resolve itself), then the older commits.
      constexpr std::size_t kNewest = 4;
      for (std::size_t i = 0; i < commits.size() && i < kNewest; ++i) add(commits[i].short_id);
      for (const auto& b : branches) add(b);
      for (const auto& t : tags) add(t);
      for (std::size_t i = 0; i < commits.size() && i < kNewest; ++i) add(commits[i].id);
      if (!commits.empty()) add("HEAD");
      if (commits.size() >= 2) add("HEAD~1");
      for (std::size_t i = kNewest; i < commits.size(); ++i) add(commits[i].short_id);
      for (std::size_t i = kNewest; i < commits.size(); ++i) add(commits[i].id);
      break;
    }
    case ValueKind::kId:
    case ValueKind::kCursor:
    case ValueKind::kSql:  // made from what the server's answers name (Harvest::sql_statements)
    case ValueKind::kRegex:  // made from the names (Harvest::regex_patterns)
      break;
  }
  return out;
}

std::optional<Workspace> scan_workspace(const std::string& dir, const WorkspaceOptions& o) {
  std::error_code ec;
  const fs::path root = fs::canonical(fs::absolute(dir, ec), ec);
  if (ec || !fs::is_directory(root, ec)) return std::nullopt;
  Workspace ws;
  ws.root = root.generic_string();
  while (ws.root.size() > 1 && ws.root.back() == '/') ws.root.pop_back();

  // ---- the walk: sorted, depth first, bounded; each text file read as it is kept ----
  std::vector<std::string> kept;   // relative files, walk order
  std::vector<FileText> texts;     // those read (a byte budget: later files are paths only)
  std::set<std::string> dirs;
  std::size_t entries = 0;
  std::uintmax_t read = 0;
  std::vector<fs::path> stack = {fs::path()};
  while (!stack.empty() && kept.size() < o.max_files && entries < o.max_entries) {
    const fs::path rel = stack.back();
    stack.pop_back();
    std::vector<fs::directory_entry> here;
    for (fs::directory_iterator it(root / rel, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end && entries < o.max_entries; it.increment(ec)) {
      ++entries;
      here.push_back(*it);
    }
    ec.clear();
    std::sort(here.begin(), here.end(),
              [](const fs::directory_entry& a, const fs::directory_entry& b) { return a.path().filename() < b.path().filename(); });
    std::vector<fs::path> subdirs;
    for (const auto& e : here) {
      if (kept.size() >= o.max_files) break;
      const std::string name = e.path().filename().string();
      const fs::path child = rel / name;
      const fs::file_status ls = e.symlink_status(ec);
      if (ec) {
        ec.clear();
        ++ws.skipped;
        continue;
      }
      if (fs::is_directory(ls)) {
        if (ignored_dir(name)) ++ws.skipped;
        else subdirs.push_back(child);
        continue;
      }
      if (!name.empty() && name[0] == '.') {  // hidden files (.env and the like)
        ++ws.skipped;
        continue;
      }
      fs::path target = e.path();
      if (fs::is_symlink(ls)) {
        // A link is kept only when it ends at a regular file inside the root; a linked
        // directory is never descended (the walk reaches what it holds inside the root anyway).
        const fs::path real = fs::canonical(e.path(), ec);
        if (ec || !inside(root, real) || !fs::is_regular_file(real, ec)) {
          ec.clear();
          ++ws.skipped;
          continue;
        }
        target = real;
      } else if (!fs::is_regular_file(ls)) {
        ++ws.skipped;
        continue;
      }
      const std::uintmax_t size = fs::file_size(target, ec);
      if (ec || size > o.max_file_bytes) {
        ec.clear();
        ++ws.skipped;
        continue;
      }
      const std::string path = child.generic_string();
      if (read + size > o.max_total_bytes) {
        kept.push_back(path);  // a path still, but not read
        continue;
      }
      auto t = read_text(target, o.max_file_bytes);
      if (!t) {  // binary
        ++ws.skipped;
        continue;
      }
      read += t->size();
      kept.push_back(path);
      texts.push_back(FileText{path, split_lines(*t)});
    }
    // Depth first, in name order: push in reverse.
    for (auto it = subdirs.rbegin(); it != subdirs.rend(); ++it) stack.push_back(*it);
  }
  for (const auto& f : kept) {
    const auto slash = f.rfind('/');
    for (std::size_t at = f.find('/'); at != std::string::npos && at <= slash; at = f.find('/', at + 1))
      dirs.insert(f.substr(0, at));
  }

  // ---- declared names: ctags, else the tokenizer ----
  std::map<std::string, std::set<std::pair<std::string, std::size_t>>> decl;  // name -> (path, line)
  std::vector<std::string> text_paths;
  for (const auto& t : texts) text_paths.push_back(t.path);
  std::optional<std::vector<std::tuple<std::string, std::string, std::size_t>>> tags;
  if (o.use_ctags) tags = run_ctags(ws.root, text_paths, o);
  const std::set<std::string> readable(text_paths.begin(), text_paths.end());
  if (tags) {
    ws.source = "ctags";
    for (const auto& [path, name, line] : *tags)
      if (readable.count(path) && clean_identifier(name)) decl[name].emplace(path, line);
  } else {
    ws.source = "tokenizer";
  }
  // Word counts (and the tokenizer's declarations): in how many files, how often.
  std::map<std::string, std::set<std::string>> files_of;
  std::map<std::string, std::size_t> count;
  std::map<std::string, std::set<std::string>> importers;  // specifier -> the files importing it
  for (const auto& t : texts) {
    for (std::size_t i = 0; i < t.lines.size(); ++i) {
      if (t.lines[i].size() > 4096) continue;  // minified text: no words worth offering
      for (auto& spec : imported_on(t.lines[i]))
        if (importers.size() < 1024 || importers.count(spec)) importers[spec].insert(t.path);
      auto toks = tokens(t.lines[i]);
      for (const auto& tok : toks) {
        files_of[tok.text].insert(t.path);
        ++count[tok.text];
      }
      if (!tags)
        for (const auto& name : declared_on(t.lines[i], toks)) decl[name].emplace(t.path, i + 1);
    }
  }
  // Ranked: in most files first (hubs), then most often, then by name.
  auto rank = [&](const std::string& a, const std::string& b) {
    const auto fa = files_of[a].size(), fb = files_of[b].size();
    if (fa != fb) return fa > fb;
    if (count[a] != count[b]) return count[a] > count[b];
    return a < b;
  };
  for (const auto& [name, where] : decl) ws.declared.push_back(name);
  std::sort(ws.declared.begin(), ws.declared.end(), rank);
  if (ws.declared.size() > o.max_identifiers) ws.declared.resize(o.max_identifiers);
  ws.identifiers = ws.declared;
  {
    std::set<std::string> have(ws.identifiers.begin(), ws.identifiers.end());
    std::vector<std::string> frequent;
    for (const auto& [word, n] : count)
      if (!have.count(word) && truncation::utf16_length(word) >= 3 && !keywords().count(word) && n >= 2) frequent.push_back(word);
    std::sort(frequent.begin(), frequent.end(), rank);
    for (const auto& w : frequent) {
      if (ws.identifiers.size() >= o.max_identifiers) break;
      ws.identifiers.push_back(w);
    }
  }

  // ---- positions of the declared names; snippets ----
  const std::set<std::string> wanted(ws.declared.begin(), ws.declared.end());
  std::map<std::string, std::size_t> per_name;
  std::vector<WorkspacePosition> positions;
  std::vector<std::pair<bool, std::string>> phrases;  // (wide, phrase)
  std::vector<std::string> astral, other;  // Workspace::characters
  for (const auto& t : texts) {
    for (std::size_t i = 0; i < t.lines.size(); ++i) {
      const std::string& line = t.lines[i];
      if (line.size() > 4096) continue;
      for (std::size_t b = 0; b < line.size() && (astral.size() < 2 || other.size() < 2);) {
        const Utf8Char c = utf8_char_at(line, b);
        if (c.length > 1) {
          auto& into = c.length == 4 ? astral : other;
          const std::string ch = line.substr(b, c.length);
          if (into.size() < 2 && std::find(into.begin(), into.end(), ch) == into.end()) into.push_back(ch);
        }
        b += std::max<std::size_t>(c.length, 1);
      }
      auto toks = tokens(line);
      for (std::size_t k = 0; k < toks.size(); ++k) {
        const Token& tok = toks[k];
        if (!wanted.count(tok.text) || per_name[tok.text] >= 16) continue;
        WorkspacePosition p;
        p.path = t.path;
        p.name = tok.text;
        p.line = i + 1;
        const std::string before = line.substr(0, tok.begin);
        p.column = truncation::utf16_length(before) + 1;  // as a JavaScript string counts
        for (std::size_t b = 0; b < before.size();) {
          Utf8Char c = utf8_char_at(before, b);
          if (c.length == 4 || (c.length > 0 && cjk(c.code_point))) p.wide = true;
          b += std::max<std::size_t>(c.length, 1);
        }
        p.declaration = decl[tok.text].count({t.path, i + 1}) > 0;
        ++per_name[tok.text];
        positions.push_back(p);
        if (k > 0 && phrases.size() < 4 * o.max_snippets) {
          std::string phrase = line.substr(toks[k - 1].begin, tok.end - toks[k - 1].begin);
          if (phrase.size() <= 64 && phrase.find_first_of("\"'`") == std::string::npos)
            phrases.emplace_back(p.wide, std::move(phrase));
        }
      }
    }
  }
  ws.characters = std::move(astral);
  ws.characters.insert(ws.characters.end(), other.begin(), other.end());
  std::map<std::string, std::size_t> order;
  for (std::size_t i = 0; i < ws.declared.size(); ++i) order[ws.declared[i]] = i;
  std::stable_sort(positions.begin(), positions.end(), [&](const WorkspacePosition& a, const WorkspacePosition& b) {
    if (a.wide != b.wide) return a.wide;
    if (a.declaration != b.declaration) return a.declaration;
    return order[a.name] < order[b.name];
  });
  // Wide lines first, all of them; within each group one position per (name, declaration or
  // not) first, so the first few are varied, then the rest.
  for (bool wide : {true, false}) {
    std::vector<WorkspacePosition> firsts, rest;
    std::set<std::pair<std::string, bool>> shown;
    for (auto& p : positions)
      if (p.wide == wide) (shown.insert({p.name, p.declaration}).second ? firsts : rest).push_back(p);
    for (auto* group : {&firsts, &rest})
      for (auto& p : *group)
        if (ws.positions.size() < o.max_positions) ws.positions.push_back(std::move(p));
  }
  std::stable_sort(phrases.begin(), phrases.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  {
    std::set<std::string> have;
    for (const auto& [wide, phrase] : phrases)
      if (ws.snippets.size() < o.max_snippets && have.insert(phrase).second) ws.snippets.push_back(phrase);
  }

  // ---- files ranked: wide positions, then declarations, then walk order ----
  std::map<std::string, std::pair<std::size_t, std::size_t>> score;  // path -> (wide, declarations)
  for (const auto& p : ws.positions) {
    if (p.wide) ++score[p.path].first;
    if (p.declaration) ++score[p.path].second;
  }
  ws.files = kept;
  std::stable_sort(ws.files.begin(), ws.files.end(), [&](const std::string& a, const std::string& b) {
    const auto& sa = score[a];
    const auto& sb = score[b];
    if ((sa.first > 0) != (sb.first > 0)) return sa.first > 0;
    return sa.second > sb.second;
  });
  // Modules: the files' own specifiers, then what the imports name, imported by most files first.
  {
    std::set<std::string> have;
    for (const auto& f : ws.files)
      if (auto m = module_of(f); m && ws.modules.size() < 64 && have.insert(*m).second) ws.modules.push_back(*m);
    std::vector<std::pair<std::size_t, std::string>> ranked;
    for (const auto& [spec, files] : importers) ranked.emplace_back(files.size(), spec);
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [n, spec] : ranked)
      if (ws.modules.size() < 128 && have.insert(spec).second) ws.modules.push_back(spec);
  }
  ws.dirs.assign(dirs.begin(), dirs.end());
  if (o.use_git)
    if (auto git = on_path(o.git_program)) read_git_history(ws, *git, o);
  return ws;
}

}  // namespace ctxo::gen
