// SPDX-License-Identifier: MIT
// Completeness against the workspace (issue 42): a text search's answer, in each file it reports,
// must list every line of that file holding the literal it was asked for, unless it says it was
// cut. The workspace is the oracle no self-consistency rule has: a server that keeps two matches
// per file and counts what it kept agrees with itself. Precision first: judged only where the
// truth is plain (see search_omission in generic_positions_internal.h).
#include <algorithm>
#include <cctype>
#include <set>

#include "checks/envelope_util.h"
#include "checks/generic.h"
#include "checks/generic_positions_internal.h"
#include "core/text.h"

namespace ctxo::checks::generic {

namespace {

using nlohmann::json;

// The arguments a text search takes its query in (not a symbol's name: a reference finder, given
// `symbol`, rightly leaves out the comments and strings that mention it).
constexpr const char* kQueryKeys[] = {"query", "pattern", "search", "searchTerm", "search_term", "term",
                                      "regex", "q", "needle", "grep", "keyword", "text_query"};
// A tool that says it finds these is not a text search: its answer is a selection by meaning.
constexpr const char* kNotText[] = {"reference", "usage", "definition", "symbol", "caller", "callee", "import",
                                    "semantic", "similar", "embedding", "fuzzy", "relevan", "rank"};
// Words in an answer that may announce a cut the vocabulary does not know: judged as a signal.
constexpr const char* kCutWords[] = {"truncat", "limit", "max", "per file", "first ", "top ", "omitted", "more",
                                     "…", "...", "partial", "capped", "exceed"};

bool has(const std::string& lower_text, const char* word) { return lower_text.find(word) != std::string::npos; }

// Whether `line` holds `literal` as a whole identifier (case as given).
bool holds_word(std::string_view line, const std::string& literal) {
  for (std::size_t at = line.find(literal); at != std::string_view::npos; at = line.find(literal, at + 1)) {
    const bool before = at == 0 || !ident_char(static_cast<unsigned char>(line[at - 1]));
    const std::size_t end = at + literal.size();
    const bool after = end >= line.size() || !ident_char(static_cast<unsigned char>(line[end]));
    if (before && after) return true;
  }
  return false;
}

// The lines of a file or an answer as a reader counts them: split_lines without the '\r' of a CRLF
// line, and without the empty "line" after a final '\n'.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out = split_lines(text);
  for (auto& l : out)
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  if (out.size() > 1 && out.back().empty() && text.back() == '\n') out.pop_back();
  return out;
}

std::string list_lines(const std::vector<std::int64_t>& lines) {
  std::string s;
  for (std::size_t i = 0; i < lines.size() && i < 8; ++i) s += (i ? ", " : "") + std::to_string(lines[i]);
  if (lines.size() > 8) s += ", ... (" + std::to_string(lines.size()) + " in all)";
  return s;
}

// ripgrep's answer for one file it was given (`rg -n PATTERN FILE`): "4:the line" per match,
// no path. The places, tied to the file a string argument names; none unless every line is one.
std::vector<Anchor> numbered_listing(const json& arguments, const std::string& text, const FileLookup& files) {
  std::string rel;
  for (const auto& [k, v] : arguments.items())
    if (v.is_string())
      if (std::string r = files.relative(v.get<std::string>()); !r.empty() && files.read(r)) {
        rel = r;
        break;
      }
  std::vector<Anchor> out;
  if (rel.empty()) return out;
  for (std::string_view l : lines_of(text)) {
    if (trim_ws(l).empty()) continue;
    std::size_t i = 0;
    std::int64_t n = 0;
    while (i < l.size() && i < 9 && l[i] >= '0' && l[i] <= '9') n = n * 10 + (l[i++] - '0');
    if (i == 0 || i >= l.size() || l[i] != ':') return {};
    Anchor a;
    a.file = rel;
    a.line = n;
    a.where = "text";
    out.push_back(std::move(a));
  }
  return out;
}

// Whether the integer argument `key` (sent as `n`) may be a limit per file: its description says
// so, or no more than `n` lines were listed in all (a limit on the whole answer, reached).
bool limit_per_file(const json* tool_json, const std::string& key, std::int64_t n, std::size_t listed) {
  if (static_cast<std::int64_t>(listed) <= n) return true;
  if (!tool_json) return false;
  const json* props = nullptr;
  if (auto s = tool_json->find("inputSchema"); s != tool_json->end() && s->is_object())
    if (auto p = s->find("properties"); p != s->end() && p->is_object()) props = &*p;
  if (!props || !props->contains(key) || !(*props)[key].is_object()) return false;
  const std::string d = ascii_lower((*props)[key].value("description", ""));
  return d.find("per file") != std::string::npos || d.find("each file") != std::string::npos ||
         d.find("per-file") != std::string::npos;
}

}  // namespace

SearchJudgement search_omission(const json* tool_json, const json& arguments, const mcp::Answer& answer,
                                const std::vector<Anchor>& found, bool zero_based, const FileLookup& files) {
  SearchJudgement out;
  if (!arguments.is_object()) return out;
  const std::vector<Anchor> listing = found.empty() ? numbered_listing(arguments, answer.text(), files) : std::vector<Anchor>{};
  const std::vector<Anchor>& anchors = found.empty() ? listing : found;
  if (anchors.empty()) return out;
  // The query: one literal identifier, in a text search's query argument.
  std::string literal, key;
  for (const char* k : kQueryKeys)
    if (auto it = arguments.find(k); it != arguments.end() && it->is_string()) {
      const std::string v = it->get<std::string>();
      if (v.size() >= 3 && identifier_of(v) == v && v.find_first_of(".:") == std::string::npos) literal = v, key = k;
      break;
    }
  if (literal.empty()) return out;
  // Not a search by meaning, by its name or its description.
  if (tool_json) {
    std::string about = ascii_lower(tool_json->value("name", "") + " " + tool_json->value("description", ""));
    for (const char* w : kNotText)
      if (has(about, w)) return out;
  }
  // No cut said: not by the vocabulary (a more-flag, "N more", a way on, a page), nor by a word.
  const auto& v = builtin_vocabulary();
  if (!v) return out;
  const GenericAnswer read = checks::read_answer(answer);
  const ListFacts facts = list_facts(read, *v);
  if (facts.says_cut()) return out;
  // The lines reported, per workspace file.
  std::map<std::string, std::set<std::int64_t>> reported;
  std::map<std::string, std::vector<std::string_view>> file_lines;  // each reported file, split once
  for (const auto& a : anchors) {
    if (!a.line) return out;
    const std::string rel = files.relative(a.file);
    if (rel.empty()) return out;  // a place outside the workspace: not the search we can redo
    reported[rel].insert(*a.line + (zero_based ? 1 : 0));
  }
  // Per file: every reported line holds the literal, in any case (a search that reports other
  // lines, context or matches by meaning, is not judged); the lines holding it as a word, in its
  // case, are what any text search for it finds there.
  const std::string lower_literal = ascii_lower(literal);
  std::string said = ascii_lower(answer.text());
  for (const auto& [rel, shown] : reported) {
    const auto& content = files.read(rel);
    if (!content) return out;
    const auto& lines = file_lines[rel] = lines_of(*content);
    for (std::int64_t l : shown) {
      if (l < 1 || l > static_cast<std::int64_t>(lines.size())) return out;
      const std::string low = ascii_lower(lines[static_cast<std::size_t>(l - 1)]);
      if (low.find(lower_literal) == std::string::npos) return out;
      // The quoted lines are the files' words, not the answer's.
      const std::string quoted(trim_ws(low));
      for (std::size_t at = quoted.empty() ? std::string::npos : said.find(quoted); at != std::string::npos;
           at = said.find(quoted, at))
        said.erase(at, quoted.size());
    }
  }
  for (const char* w : kCutWords)
    if (has(said, w)) return out;
  const std::string claim = facts.says_complete();
  out.judged = true;
  out.claimed = !claim.empty();
  std::size_t listed = 0;
  for (const auto& [rel, shown] : reported) listed += shown.size();
  for (const auto& [rel, shown] : reported) {
    const auto& lines = file_lines[rel];
    std::vector<std::int64_t> missing;
    std::size_t truth = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].size() > 1000 || !holds_word(lines[i], literal)) continue;  // a minified line: tools skip them
      ++truth;
      if (!shown.count(static_cast<std::int64_t>(i) + 1)) missing.push_back(static_cast<std::int64_t>(i) + 1);
    }
    if (missing.empty()) continue;
    // A limit the call sent that the file's count meets, and that may be a limit per file (its
    // description says so, or the answer lists no more lines in all): asked for, not judged.
    std::string limit;
    for (const auto& [k, val] : arguments.items())
      if (auto n = int_of(&val); n && *n == static_cast<std::int64_t>(shown.size())) {
        if (limit_per_file(tool_json, k, *n, listed)) return SearchJudgement{};
        limit = "`" + k + "` " + std::to_string(*n);
      }
    std::string diag = "`" + rel + "` has " + std::to_string(truth) + " lines with `" + literal + "` (the call's " + key +
                       "), and the answer lists " + std::to_string(shown.size()) + " of them: lines " + list_lines(missing) +
                       " are missing";
    diag += claim.empty() ? ", and nothing in the answer says it was cut (no more-flag, count, hint or footer)"
                          : ", while the answer says it is complete (" + claim + ")";
    if (!limit.empty())
      diag += "; the call's " + limit + " was applied to each file, though the answer lists " + std::to_string(listed) +
              " lines in all and the parameter's description does not say it counts per file";
    diag += ". An agent reads the answer as every match in that file";
    Finding f = detail::reply_finding(claim.empty() ? "TR-HINT" : "TR-COUNT", answer.reply(), std::move(diag));
    f.cause = {{"form", "workspace-omission"}, {"claim", claim.empty() ? "silent" : "complete"}};
    f.profile = "generic";
    f.file = rel;
    f.line = missing.front();
    out.finding = std::move(f);
    return out;
  }
  return out;
}

namespace {

// A tool that reads a file's lines, by a whole word of its name (`read_file`, `getFileContents`,
// `cat`; not `thread`, `category`), or blames them (every line, with its commit).
constexpr const char* kReadWords[] = {"read", "cat", "view", "content", "contents", "open", "print", "show", "display"};
constexpr const char* kBlameWords[] = {"blame", "annotate"};
// A tool that says it gives less than the lines: an outline, a search, a diff, a summary.
constexpr const char* kNotWhole[] = {"outline", "symbol", "structure", "summar", "search", "grep", "find", "match",
                                     "diff", "list", "tree", "definition", "reference", "signature", "preview",
                                     "head", "tail", "snippet", "excerpt", "chunk", "semantic", "context"};
// The same said in a description (which may name optional parameters: `head`, `tail`).
constexpr const char* kNotWholeAbout[] = {"outline", "symbols", "summar", "search", "diff", "signature", "semantic",
                                          "snippet", "excerpt", "chunk"};
// Arguments that name a revision (lowered, `_` and `-` dropped): the file asked for is the file at
// that commit, branch or tag, and the workspace holds only the working tree's (a blame at an older
// commit of a file that gained lines since is whole).
constexpr const char* kRevisionKeys[] = {"ref", "rev", "revision", "commit", "commitid", "sha", "hash", "commithash",
                                         "branch", "branchname", "tag", "tagname", "treeish", "commitish", "object",
                                         "version", "at", "since", "until", "from", "to", "base", "head", "target"};
constexpr const char* kStartKeys[] = {"startLine", "start_line", "lineStart", "line_start", "fromLine", "from_line",
                                      "firstLine", "first_line", "startLineNumber", "start"};
constexpr const char* kEndKeys[] = {"endLine", "end_line", "lineEnd", "line_end", "toLine", "to_line",
                                    "lastLine", "last_line", "endLineNumber", "end"};

// The words of a tool's name, lowered: split at `_`, `-`, `.`, `/`, blanks and camelCase humps.
std::vector<std::string> name_words(const std::string& name) {
  std::vector<std::string> out(1);
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    const bool hump = std::isupper(c) && i > 0 && std::islower(static_cast<unsigned char>(name[i - 1]));
    if (!std::isalnum(c) || hump) {
      if (!out.back().empty()) out.emplace_back();
      if (!std::isalnum(c)) continue;
    }
    out.back() += static_cast<char>(std::tolower(c));
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

// A diff (a commit shown, a working tree's changes): its lines are the changed ones and their
// context, not the file.
bool diff_shaped(std::string_view text) {
  return text.rfind("diff --git", 0) == 0 || text.find("\ndiff --git") != std::string_view::npos ||
         text.find("\n@@ ") != std::string_view::npos || text.rfind("@@ ", 0) == 0 ||
         text.find("\n+++ ") != std::string_view::npos;
}

// Every string of a JSON value (bounded), joined by '\n'.
void strings_of(const json& j, std::string& out, std::size_t& budget) {
  if (budget == 0) return;
  --budget;
  if (j.is_string()) {
    out += j.get_ref<const std::string&>();
    out += '\n';
  } else if (j.is_structured()) {
    for (const auto& v : j) strings_of(v, out, budget);
  }
}

// A claim that the answer holds every line: an integer field about lines (totalLines, lineCount,
// lines) equal to the lines it shows.
std::string lines_claim(const json& j, std::size_t shown, std::size_t& budget) {
  if (budget == 0 || !j.is_structured()) return "";
  --budget;
  if (j.is_object())
    for (const auto& [k, v] : j.items()) {
      const std::string low = ascii_lower(k);
      if (low.find("line") != std::string::npos && (low.find("total") != std::string::npos ||
                                                     low.find("count") != std::string::npos || low == "lines"))
        if (auto n = int_of(&v); n && *n == static_cast<std::int64_t>(shown))
          return "`" + k + "` is " + std::to_string(*n) + ", the lines it returned";
    }
  for (const auto& v : j)
    if (std::string c = lines_claim(v, shown, budget); !c.empty()) return c;
  return "";
}

}  // namespace

SearchJudgement file_omission(const json* tool_json, const json& arguments, const mcp::Answer& answer,
                              const std::string& rel, const std::string& content) {
  SearchJudgement out;
  if (!tool_json || !arguments.is_object()) return out;
  // A tool that reads or blames whole files, by its name and description.
  const std::string name = ascii_lower(tool_json->value("name", ""));
  const std::string about = name + " " + ascii_lower(tool_json->value("description", ""));
  bool blame = false, read = false;
  for (const char* w : kBlameWords) blame = blame || has(about, w);
  for (const std::string& token : name_words(tool_json->value("name", "")))
    for (const char* w : kReadWords) read = read || token == w;
  if (!blame && !read) return out;
  for (const char* w : kNotWhole)
    if (has(name, w)) return out;
  for (const char* w : kNotWholeAbout)
    if (has(about, w)) return out;
  // The lines asked for: a start and an end the call sent, else all. Any other integer (a limit,
  // an offset, a count) makes what was asked ambiguous.
  std::optional<std::int64_t> start, end;
  auto in = [](const auto& keys, const std::string& k) {
    return std::any_of(std::begin(keys), std::end(keys), [&](const char* x) { return k == x; });
  };
  for (const auto& [k, v] : arguments.items()) {
    std::string key;
    for (char c : k)
      if (c != '_' && c != '-') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (in(kRevisionKeys, key) && v.is_string() && !v.get_ref<const std::string&>().empty() && v != "HEAD")
      return out;  // the file at another revision: the workspace cannot tell
    const bool is_start = in(kStartKeys, k), is_end = in(kEndKeys, k);
    if (is_start || is_end) {
      const auto n = int_of(&v);
      if (!n) return out;
      (is_start ? start : end) = *n;
    } else if (v.is_number() || v.is_structured()) {
      return out;  // a limit, an offset, a range of another shape: not a plain question
    }
  }
  if (start.has_value() != end.has_value()) return out;
  const std::vector<std::string_view> lines = lines_of(content);
  const auto nlines = static_cast<std::int64_t>(lines.size());
  const std::int64_t a = start ? *start : 1, b = end ? std::min(*end, nlines) : nlines;
  if (a < 1 || b < a || b - a + 1 > 2000) return out;
  // What the answer shows: its text and every string of its JSON.
  const GenericAnswer rd = checks::read_answer(answer);
  std::string hay = answer.text();
  hay += '\n';
  std::size_t budget = 100000;
  if (rd.data->is_structured()) strings_of(*rd.data, hay, budget);
  if (diff_shaped(hay)) return out;
  // A blame by hunks (a commit per range of lines, with the range's first line) shows its lines
  // as ranges: not judged line by line.
  if (blame && rd.data->is_structured()) {
    std::vector<const json*> todo{rd.data};
    for (std::size_t i = 0; i < todo.size() && i < 10000; ++i) {
      if (todo[i]->is_object())
        for (const auto& [k, val] : todo[i]->items())
          if (val.is_number() &&
              (in(kEndKeys, k) || ascii_lower(k).find("count") != std::string::npos || ascii_lower(k) == "lines"))
            return out;
      if (todo[i]->is_structured())
        for (const auto& val : *todo[i]) todo.push_back(&val);
    }
  }
  const std::string hay_skeleton = skeleton(hay);
  std::vector<std::int64_t> missing;
  std::size_t judged = 0, present = 0;
  std::string said = ascii_lower(hay);
  for (std::int64_t l = a; l <= b; ++l) {
    const std::string t = trim_ws(lines[static_cast<std::size_t>(l - 1)]);
    if (t.size() < 8 || t.size() > 1000) continue;  // too short to tell apart, or minified
    ++judged;
    const std::string sk = skeleton(t);
    if (hay.find(t) != std::string::npos || (sk.size() >= 8 && hay_skeleton.find(sk) != std::string::npos)) {
      ++present;
      const std::string low = ascii_lower(t);
      if (auto at = said.find(low); at != std::string::npos) said.erase(at, low.size());
    } else {
      missing.push_back(l);
    }
  }
  if (judged < 2 || (!blame && present * 2 < judged) || present == 0) return out;
  // No cut said: not by the vocabulary, nor by a cut word outside the file's own lines.
  const auto& v = builtin_vocabulary();
  if (!v) return out;
  const ListFacts facts = list_facts(rd, *v);
  if (facts.says_cut()) return out;
  for (const char* w : kCutWords)
    if (has(said, w)) return out;
  out.judged = true;
  std::size_t claim_budget = 10000;
  std::string claim = facts.says_complete();
  // A count of lines equal to the entries the answer lists (its list, else the lines it shows).
  if (claim.empty() && rd.data->is_structured())
    claim = lines_claim(*rd.data, facts.items ? static_cast<std::size_t>(*facts.items) : present, claim_budget);
  out.claimed = !claim.empty();
  if (missing.empty()) return out;
  std::string diag = "the call asks for " + (start ? "lines " + std::to_string(a) + " to " + std::to_string(b) + " of `" + rel + "`"
                                                   : "`" + rel + "` (all its " + std::to_string(nlines) + " lines)") +
                     ", and the answer leaves out " + std::to_string(missing.size()) + " of the " + std::to_string(judged) +
                     " lines of 8 or more characters there: lines " + list_lines(missing);
  diag += claim.empty() ? ", and nothing in the answer says it was cut (no more-flag, count, hint or footer)"
                        : ", while the answer says it is complete (" + claim + ")";
  diag += blame ? ". An agent reads a blame as every line's commit" : ". An agent reads the answer as the file's text";
  Finding f = detail::reply_finding(claim.empty() ? "TR-HINT" : "TR-COUNT", answer.reply(), std::move(diag));
  f.cause = {{"form", "workspace-omission"}, {"claim", claim.empty() ? "silent" : "complete"}, {"kind", "lines-asked"}};
  f.profile = "generic";
  f.file = rel;
  f.line = missing.front();
  out.finding = std::move(f);
  return out;
}

}  // namespace ctxo::checks::generic
