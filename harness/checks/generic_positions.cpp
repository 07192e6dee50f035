// SPDX-License-Identifier: MIT
// The generic position rules over every answer no profile judged (GenericPositions): POS-LINE,
// POS-UTF16, TR-VERBATIM and the cross-tool position rule, against the files of the workspace.
// Finding the anchors an answer holds: generic_anchors.cpp.
#include "checks/generic_positions.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <mutex>
#include <fstream>
#include <set>

#include "checks/envelope_util.h"
#include "checks/generic_positions_internal.h"
#include "core/json_bounded.h"
#include "core/cause.h"
#include "core/text.h"
#include "truncation/unicode.h"

namespace ctxo::checks {


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
  /// The workspace's files read so far, relative path -> content (nullopt: none), shared by a
  /// judge and its shards (fork): one bound on what they hold together, each file read once. An
  /// entry never changes once made, so what read() returns stays valid without the lock.
  struct Files {
    std::mutex m;
    std::map<std::string, std::optional<std::string>> read;
  };
  std::shared_ptr<Files> files = std::make_shared<Files>();
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
      const auto path = file_uri_path(f);  // another host's file is not the workspace's
      if (!path) return "";
      f = *path;
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
    static const std::optional<std::string> kNone;
    {
      std::lock_guard<std::mutex> hold(files->m);
      auto it = files->read.find(rel);
      if (it != files->read.end()) return it->second;
      if (files->read.size() >= generic::kMaxFiles) return kNone;
    }
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
    std::lock_guard<std::mutex> hold(files->m);
    if (files->read.size() >= generic::kMaxFiles && !files->read.count(rel)) return kNone;
    return files->read.emplace(rel, std::move(content)).first->second;  // another's, when it came first
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

std::unique_ptr<GenericPositions> GenericPositions::fork() const {
  auto shard = std::make_unique<GenericPositions>(std::nullopt);
  shard->s_->root = s_->root;
  shard->s_->files = s_->files;
  return shard;
}

void GenericPositions::absorb(GenericPositions& shard) {
  for (auto& [name, t] : shard.s_->tools) {
    State::Tool& mine = s_->tools[name];
    mine.declared0 = mine.declared0 || t.declared0;
    mine.standard += t.standard;
    mine.findings += t.findings;
    if (mine.warned.empty() && !t.warned.empty()) mine.warned.push_back(std::move(t.warned.front()));
  }
  shard.s_->tools.clear();
}

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
  return check(tool, tool_json, arguments, mcp::Answer(reply));
}

Outcomes GenericPositions::check(const std::string& tool, const json* tool_json, const json& arguments,
                                 const mcp::Answer& answer) {
  const mcp::Reply& reply = answer.reply();
  Outcomes out;
  try {
    if (reply.kind != mcp::Reply::Kind::kResult || reply.is_error_result()) return out;
    // Completeness against the workspace (generic_completeness.cpp), on the places found below or,
    // with none, on a numbered listing of the file the call named.
    auto judge_search = [&](const std::vector<Anchor>& places) {
      if (!s_->root) return;
      const bool declared0 = tool_json && generic::declares_zero_based(*tool_json);
      const generic::FileLookup files{
          [this](const std::string& f) { return s_->relative(f); },
          [this](const std::string& rel) -> const std::optional<std::string>& { return s_->read(rel); }};
      auto search = generic::search_omission(tool_json, arguments, answer, places, declared0, files);
      if (search.finding) {
        out.fail(std::move(*search.finding));
      } else if (search.judged) {
        out.pass("TR-HINT");
        if (search.claimed) out.pass("TR-COUNT");
      }
    };
    // A file read (the call names a workspace file and the answer holds its lines) relays the
    // file's text: positions written in it (a README's `src/a.ts:40`) are not the server's claims.
    if (s_->root) {
      const std::string all = answer.parts().empty() ? std::string() : answer.text() + "\n";
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
        if (seen >= 2 || (seen == 1 && lines == 1)) {
          // A read or a blame must hold every line it was asked for; else it may be a search.
          auto whole = generic::file_omission(tool_json, arguments, answer, rel, *content);
          if (whole.finding) {
            out.fail(std::move(*whole.finding));
          } else if (whole.judged) {
            out.pass("TR-HINT");
            if (whole.claimed) out.pass("TR-COUNT");
          } else {
            judge_search({});
          }
          return out;
        }
      }
    }
    const auto docs = generic::read_answer(answer);
    std::vector<Anchor> anchors;
    for (const auto& d : docs.docs)
      for (auto& a : generic::json_anchors(d)) anchors.push_back(std::move(a));
    for (const auto& p : docs.prose)
      for (auto& a : generic::text_anchors(p)) anchors.push_back(std::move(a));
    judge_search(anchors);
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
        if (v.verdict == generic::Verbatim::kMangled && v.cut_split) {
          // The cause the message's own lone surrogate is reported under (one root cause).
          Finding f = make("TR-VERBATIM", reply, {{"form", "cut-splits-character"}},
                           "a cut split a character: the " + a.snippet_key + " at " + a.where + " is cut from " + q(rel) +
                               " line " + std::to_string(v.line) + ", and " + v.detail +
                               " (cut on a character boundary: a half character reaches the agent as U+FFFD, or as "
                               "a lone surrogate that strict clients reject)");
          f.file = rel;
          f.line = v.line;
          verbatim.push_back(std::move(f));
        } else if (v.verdict == generic::Verbatim::kMangled) {
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
