// SPDX-License-Identifier: MIT
// Anchors in envelope payloads and the position checks POS-BASE, POS-PATH and POS-UTF16 (the
// last reads files under --root, bounded, and explains which other counting would match).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

#include "checks/envelope.h"
#include "checks/envelope_util.h"
#include "core/cause.h"
#include "core/text.h"
#include "truncation/unicode.h"

namespace ctxo::checks {

namespace {

using detail::first_of;

constexpr const char* kFileKeys[] = {"file", "path", "filePath", "uri"};
constexpr const char* kLineKeys[] = {"line", "startLine", "lineNumber"};
constexpr const char* kColKeys[] = {"col", "column", "character", "startColumn", "startCol"};
constexpr const char* kSnippetKeys[] = {"snippet", "text", "preview", "lineText"};
constexpr std::uintmax_t kMaxFileBytes = 8u * 1024u * 1024u;

bool is_str(const json& j) { return j.is_string(); }
bool is_num(const json& j) { return j.is_number(); }

/// True when `s` starts with a URI scheme of two or more characters ("file:", "https:").
bool has_scheme(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '+' || s[i] == '-' || s[i] == '.')) ++i;
  return i >= 2 && i < s.size() && s[i] == ':' && std::isalpha(static_cast<unsigned char>(s[0]));
}

std::string path_problem(const std::string& f) {
  if (has_scheme(f)) return "";
  if (!f.empty() && f[0] == '/') return "is absolute";
  if (f.find('\\') != std::string::npos) return "has a backslash (paths use /)";
  if (f.size() >= 2 && std::isalpha(static_cast<unsigned char>(f[0])) && f[1] == ':') return "has a drive letter";
  std::size_t b = 0;
  while (b <= f.size()) {
    auto e = f.find('/', b);
    if (e == std::string::npos) e = f.size();
    if (f.compare(b, e - b, "..") == 0 && e - b == 2) return "has a `..` segment";
    b = e + 1;
  }
  return "";
}

std::string first_line_of(const std::string& s) {
  std::string l = s.substr(0, s.find('\n'));
  if (!l.empty() && l.back() == '\r') l.pop_back();
  for (const char* ell : {"\xE2\x80\xA6", "..."}) {
    auto p = l.find(ell);
    if (p != std::string::npos && p > 0) l = l.substr(0, p);
  }
  while (!l.empty() && std::isspace(static_cast<unsigned char>(l.back()))) l.pop_back();
  return l;
}

std::string ltrim(std::string_view s) {
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return std::string(s.substr(b));
}


bool snippet_at(std::string_view text, std::int64_t line, std::int64_t col, truncation::ColumnUnit unit,
                const std::string& snip) {
  if (line < 1 || col < 1) return false;
  auto off = truncation::position_to_offset(text, static_cast<std::size_t>(line), static_cast<std::size_t>(col), unit);
  if (!off) return false;
  std::string_view rest = text.substr(*off);
  std::string s = ltrim(snip);
  if (s.empty()) return false;
  // The text from the column on starts with the snippet (the column may also point at the
  // indentation before it).
  return rest.substr(0, s.size()) == s || rest.substr(rest.find_first_not_of(" \t") == std::string_view::npos ? rest.size() : rest.find_first_not_of(" \t")).substr(0, s.size()) == s;
}

/// The snippet is the line itself (a common convention) rather than the text from the column on.
bool snippet_is_line(std::string_view line, const std::string& snip) {
  std::string l = ltrim(line), s = ltrim(snip);
  while (!l.empty() && std::isspace(static_cast<unsigned char>(l.back()))) l.pop_back();
  if (s.empty() || l.empty()) return false;
  return l.rfind(s, 0) == 0 || s.rfind(l, 0) == 0;
}

struct Reading {
  const char* label;
  std::int64_t dl, dc;
  truncation::ColumnUnit unit;
};

const Reading kReadings[] = {
    {"columns in UTF-8 bytes", 0, 0, truncation::ColumnUnit::kUtf8Bytes},
    {"columns in code points", 0, 0, truncation::ColumnUnit::kCodePoints},
    {"0-based columns", 0, 1, truncation::ColumnUnit::kUtf16},
    {"0-based lines", 1, 0, truncation::ColumnUnit::kUtf16},
    {"0-based lines and columns", 1, 1, truncation::ColumnUnit::kUtf16},
    {"0-based columns in UTF-8 bytes", 0, 1, truncation::ColumnUnit::kUtf8Bytes},
};

// A position that is right once read 0-based breaks POS-BASE (positions are 1-based), not the
// UTF-16 rule: report it under the rule the server actually broke.
const char* position_rule(const std::string& how) {
  return how.find("0-based") != std::string::npos ? "POS-BASE" : "POS-UTF16";
}

constexpr std::size_t kNoReading = sizeof(kReadings) / sizeof(kReadings[0]);
constexpr auto kUtf16 = truncation::ColumnUnit::kUtf16;

// Whether the identifier `name` starts at (line, col) read with `unit` (not inside a longer word).
bool word_at(std::string_view text, std::int64_t line, std::int64_t col, truncation::ColumnUnit unit,
             const std::string& name) {
  if (line < 1 || col < 1) return false;
  auto off = truncation::position_to_offset(text, static_cast<std::size_t>(line), static_cast<std::size_t>(col), unit);
  if (!off || text.substr(*off, name.size()) != name) return false;
  const bool before = *off == 0 || !ident_char(static_cast<unsigned char>(text[*off - 1]));
  const std::size_t end = *off + name.size();
  return before && (end >= text.size() || !ident_char(static_cast<unsigned char>(text[end])));
}

// The name an anchor points at: its own `name`/`symbol`/`symbolName` field, else the identifier
// the call asked about (`symbol`, `name`, `identifier`, `query`); "" when neither is an
// identifier of 3 characters or more.
std::string anchor_name(const json& anchor, const json& arguments) {
  auto ident = [](const json* v) -> std::string {
    if (!v || !v->is_string()) return "";
    const std::string s = v->get<std::string>();
    if (s.size() < 3 || !ident_start(static_cast<unsigned char>(s[0]))) return "";
    for (unsigned char c : s)
      if (!ident_char(c)) return "";
    return s;
  };
  for (const char* k : {"name", "symbol", "symbolName"})
    if (auto it = anchor.find(k); it != anchor.end()) return ident(&*it);
  if (arguments.is_object())
    for (const char* k : {"symbol", "symbolName", "name", "identifier", "query"})
      if (auto it = arguments.find(k); it != arguments.end()) return ident(&*it);
  return "";
}

// The first reading of kReadings (trying `preferred` first) under which the snippet is at the
// position; kNoReading when none is.
std::size_t matching_reading(std::string_view text, std::int64_t line, std::int64_t col, const std::string& snip,
                             std::size_t preferred) {
  if (snip.empty()) return kNoReading;
  if (preferred < kNoReading) {
    const auto& r = kReadings[preferred];
    if (snippet_at(text, line + r.dl, col + r.dc, r.unit, snip)) return preferred;
  }
  for (std::size_t i = 0; i < kNoReading; ++i) {
    const auto& r = kReadings[i];
    if (snippet_at(text, line + r.dl, col + r.dc, r.unit, snip)) return i;
  }
  return kNoReading;
}

// How the server seems to have counted, as a clause for the diagnosis ("" when no reading fits).
// A short snippet can match by chance under a wrong reading; the server counts one way for all
// its anchors, so `preferred` (the reading that explains most anchors of the envelope) goes first.
std::string how_counted(std::string_view text, std::int64_t line, std::int64_t col, const std::string& snip,
                        std::size_t preferred) {
  std::size_t r = matching_reading(text, line, col, snip, preferred);
  if (r == kNoReading) return "";
  return "; the snippet is there if the server counted " + std::string(kReadings[r].label);
}

}  // namespace

std::vector<std::string> find_anchors(const json& payload) {
  std::vector<std::string> out;
  try {
    std::vector<std::pair<const json*, std::string>> stack{{&payload, ""}};
    while (!stack.empty()) {
      auto [node, ptr] = stack.back();
      stack.pop_back();
      if (node->is_object()) {
        if (first_of(*node, kFileKeys, is_str) && first_of(*node, kLineKeys, is_num)) out.push_back(ptr);
        std::vector<std::pair<const json*, std::string>> kids;
        for (auto it = node->begin(); it != node->end(); ++it)
          if (it->is_structured()) kids.emplace_back(&*it, ptr + "/" + profile::escape_pointer_token(it.key()));
        for (auto k = kids.rbegin(); k != kids.rend(); ++k) stack.push_back(*k);
      } else if (node->is_array()) {
        for (std::size_t i = node->size(); i-- > 0;)
          if ((*node)[i].is_structured()) stack.emplace_back(&(*node)[i], ptr + "/" + std::to_string(i));
      }
    }
  } catch (...) {
  }
  return out;
}

namespace detail {

void check_positions(const EnvelopeInput& in, const ParsedEnvelope& env, Outcomes& out) {
  std::map<std::string, std::optional<std::string>> cache;
  auto read = [&](const std::string& rel) -> const std::optional<std::string>& {
    auto it = cache.find(rel);
    if (it != cache.end()) return it->second;
    std::optional<std::string> content;
    std::error_code ec;
    std::filesystem::path p = std::filesystem::path(*in.root) / rel;
    if (std::filesystem::is_regular_file(p, ec)) {
      auto size = std::filesystem::file_size(p, ec);
      if (!ec && size <= kMaxFileBytes) {
        std::ifstream f(p, std::ios::binary);
        std::string s(static_cast<std::size_t>(size), '\0');
        if (f.read(s.data(), static_cast<std::streamsize>(size))) content = std::move(s);
      } else {
        content = std::string("\x01too-large");  // sentinel: skip, never a finding
      }
    }
    return cache.emplace(rel, std::move(content)).first->second;
  };

  const auto anchors = find_anchors(env.envelope);
  for (const char* id : {"POS-BASE", "POS-PATH", "POS-UTF16"}) {
    if (anchors.empty()) out.unobserved(id, "no answer held a position (an object with a file and a line)");
    else if (std::string_view(id) == "POS-UTF16" && !in.root) out.unobserved(id, "needs --root DIR, the workspace the positions refer to");
    else out.pass(id);
  }
  // Pre-pass: which reading explains the misplaced snippets best (see how_counted).
  std::size_t preferred = kNoReading;
  if (in.root) {
    std::size_t votes[kNoReading + 1] = {};
    for (const auto& ptr : anchors) {
      const json* a = profile::resolve_pointer(env.envelope, ptr);
      if (!a || !a->is_object()) continue;
      const json* fv = first_of(*a, kFileKeys, is_str);
      const json* sv = first_of(*a, kSnippetKeys, is_str);
      auto line = as_int(first_of(*a, kLineKeys, is_num));
      auto col = as_int(first_of(*a, kColKeys, is_num));
      if (!fv || !sv || !line || !col || has_scheme(fv->get<std::string>()) || !path_problem(fv->get<std::string>()).empty())
        continue;
      const auto& content = read(fv->get<std::string>());
      if (!content || content->rfind("\x01too-large", 0) == 0) continue;
      std::string snip = first_line_of(sv->get<std::string>());
      if (snippet_at(*content, *line, *col, truncation::ColumnUnit::kUtf16, snip)) continue;
      for (std::size_t i = 0; i < kNoReading; ++i) {
        const auto& r = kReadings[i];
        if (snippet_at(*content, *line + r.dl, *col + r.dc, r.unit, snip)) ++votes[i];
      }
    }
    std::size_t best = kNoReading;
    for (std::size_t i = 0; i < kNoReading; ++i)
      if (votes[i] > 0 && (best == kNoReading || votes[i] > votes[best])) best = i;
    preferred = best;
  }

  for (const auto& ptr : anchors) {
    const json* a = profile::resolve_pointer(env.envelope, ptr);
    if (!a || !a->is_object()) continue;
    std::string fkey, lkey, ckey, skey;
    const json* fv = first_of(*a, kFileKeys, is_str, &fkey);
    const json* lv = first_of(*a, kLineKeys, is_num, &lkey);
    const json* cv = first_of(*a, kColKeys, is_num, &ckey);
    const json* ev = a->contains("endLine") && (*a)["endLine"].is_number() ? &(*a)["endLine"] : nullptr;
    const json* sv = first_of(*a, kSnippetKeys, is_str, &skey);
    if (!fv || !lv) continue;
    std::string where = "the anchor at " + (ptr.empty() ? std::string("(root)") : ptr);
    // The cause: which rule, the anchor's place (array indices as "*") and, for a wrong position,
    // how the server seems to count (our words, numbers blanked); never the file or the values.
    auto cause = [&](const char* form, const std::string& field, const std::string& how = "") {
      std::map<std::string, std::string> c = {{"form", form}, {"anchor", path_shape(ptr)}, {"field", field}};
      if (!how.empty()) c["counted"] = digits_blanked(how);
      return c;
    };
    auto line = as_int(lv);
    auto col = as_int(cv);
    auto end = as_int(ev);
    // Every finding this anchor produces points at the anchor's place in the workspace (SARIF
    // physical locations), when its path is a usable repo-relative one.
    struct Locate {
      Outcomes& out;
      std::size_t mark;
      std::string file;
      std::int64_t line, col;
      ~Locate() {
        if (file.empty()) return;
        for (std::size_t i = mark; i < out.size(); ++i) {
          out[i].file = file;
          out[i].line = std::max<std::int64_t>(line, 0);
          out[i].column = std::max<std::int64_t>(col, 0);
        }
      }
    } locate{out, out.size(),
             path_problem(fv->get<std::string>()).empty() && !has_scheme(fv->get<std::string>()) ? fv->get<std::string>()
                                                                                                : std::string(),
             line.value_or(0), col.value_or(0)};
    bool base_ok = true;
    if (!line || *line < 1) {
      out.push_back(make_finding("POS-BASE", env, cause("line-below-1", lkey), where + " has " + lkey + " " + lv->dump() + "; lines are 1-based whole numbers"));
      base_ok = false;
    }
    if (cv && (!col || *col < 1)) {
      out.push_back(make_finding("POS-BASE", env, cause("column-below-1", ckey), where + " has " + ckey + " " + cv->dump() + "; columns are 1-based whole numbers"));
      base_ok = false;
    }
    if (line && end && *end < *line)
      out.push_back(make_finding("POS-BASE", env, cause("end-before-start", "endLine"), where + " ends on line " + std::to_string(*end) + ", before its start line " + std::to_string(*line)));
    const std::string file = fv->get<std::string>();
    auto prob = path_problem(file);
    if (!prob.empty()) {
      out.push_back(make_finding("POS-PATH", env, cause("path", fkey, prob), where + ": " + fkey + " \"" + file + "\" " + prob + "; anchors use repo-relative paths with / separators"));
      continue;
    }
    if (!in.root || !base_ok || has_scheme(file) || file.empty()) continue;
    const auto& content = read(file);
    if (!content) {
      out.push_back(make_finding("POS-UTF16", env, cause("no-such-file", fkey), where + ": " + fkey + " \"" + file + "\" does not exist under " + *in.root));
      continue;
    }
    if (content->rfind("\x01too-large", 0) == 0) continue;
    const std::string& text = *content;
    std::string snip = sv ? first_line_of(sv->get<std::string>()) : std::string();
    auto lt = line_text(text, *line);
    if (!lt) {
      auto lines = static_cast<std::int64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
      std::string how = how_counted(text, *line, col.value_or(1), snip, preferred);
      out.push_back(make_finding(position_rule(how), env, cause("line-past-end", lkey, how), where + " points at line " + std::to_string(*line) + " but \"" +
                                                               file + "\" has " + std::to_string(lines) + " lines" + how));
      continue;
    }
    if (!col) {
      if (!snip.empty() && !snippet_is_line(*lt, snip) && lt->find(ltrim(snip)) == std::string_view::npos) {
        std::string diag = where + ": the " + skey + " \"" + snip + "\" is not on line " + std::to_string(*line) + " of \"" + file + "\"";
        std::string how;
        if (auto prev = line_text(text, *line + 1); prev && prev->find(ltrim(snip)) != std::string_view::npos)
          how = "; it is on the next line, as if the server counted 0-based lines";
        out.push_back(make_finding(position_rule(how), env, cause("snippet-not-on-line", skey, how), diag + how));
      }
      continue;
    }
    auto len16 = static_cast<std::int64_t>(truncation::utf16_length(*lt));
    if (*col > len16 + 1) {
      std::string diag = where + " has " + ckey + " " + std::to_string(*col) + " but line " + std::to_string(*line) +
                         " of \"" + file + "\" is " + std::to_string(len16) + " UTF-16 units long";
      std::string how = how_counted(text, *line, *col, snip, preferred);
      if (how.empty() && *col <= static_cast<std::int64_t>(lt->size()) + 1 && static_cast<std::int64_t>(lt->size()) != len16)
        how = "; the column fits the line's " + std::to_string(lt->size()) + " UTF-8 bytes, as if the server counted columns in bytes";
      out.push_back(make_finding(position_rule(how), env, cause("column-past-end", ckey, how), diag + how));
      continue;
    }
    auto off = truncation::position_to_offset(text, static_cast<std::size_t>(*line), static_cast<std::size_t>(*col));
    if (!off) {
      std::string how = how_counted(text, *line, *col, snip, preferred);
      out.push_back(make_finding(position_rule(how), env, cause("column-inside-character", ckey, how),
                                 where + " has " + ckey + " " + std::to_string(*col) + ", which falls inside a character on line " +
                                                               std::to_string(*line) + " of \"" + file + "\"" + how));
      continue;
    }
    if (snip.empty() || snippet_is_line(*lt, snip)) {
      // No snippet, or the whole line: the column is judged by the name the anchor is about (its
      // own name field, else the identifier the call asked about), when that name is on the line.
      const std::string name = anchor_name(*a, in.arguments);
      if (name.empty() || lt->find(name) == std::string_view::npos || word_at(text, *line, *col, kUtf16, name)) continue;
      std::size_t r = kNoReading;
      for (std::size_t i = 0; i < kNoReading && r == kNoReading; ++i)
        if (word_at(text, *line + kReadings[i].dl, *col + kReadings[i].dc, kReadings[i].unit, name)) r = i;
      if (r == kNoReading) continue;  // no counting explains it: stay silent
      const std::string how = "; `" + name + "` is there if the server counted " + std::string(kReadings[r].label);
      out.push_back(make_finding(position_rule(how), env, cause("name-not-at-position", ckey, how),
                                 where + " has " + ckey + " " + std::to_string(*col) + " on line " + std::to_string(*line) +
                                     " of \"" + file + "\", where `" + name + "` does not start (UTF-16 columns)" + how));
      continue;
    }
    if (snippet_at(text, *line, *col, truncation::ColumnUnit::kUtf16, snip)) continue;
    std::string how = how_counted(text, *line, *col, snip, preferred);
    if (how.empty() && lt->find(ltrim(snip)) != std::string_view::npos) continue;  // elsewhere on the line: a column drift we cannot explain; stay silent
    out.push_back(make_finding(position_rule(how), env, cause("snippet-not-at-position", skey, how), where + ": the " + skey + " \"" + snip + "\" is not at line " + std::to_string(*line) + ", " +
                                                     ckey + " " + std::to_string(*col) + " (UTF-16) of \"" + file + "\"" + how));
  }
}

}  // namespace detail

}  // namespace ctxo::checks
