// SPDX-License-Identifier: MIT
// The rules are tabled in inband.h. Every marker is a literal a runtime or a database engine
// prints (never a word an author would write in prose), and every answer is read as a failure
// first (isError, or content_reach's error or miss): a file or a listing that merely mentions
// "TypeError" is data and never read here.
#include "checks/inband.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <set>
#include <vector>

#include "checks/reach.h"
#include "core/json_bounded.h"
#include "checks/envelope_util.h"
#include "core/text.h"

namespace ctxo::checks {

namespace {

using nlohmann::json;
using mcp::Reply;
constexpr auto npos = std::string_view::npos;

constexpr std::size_t kScan = 16 * 1024;  ///< Bytes of an answer read for an internal error.
constexpr std::size_t kShort = 300;       ///< A data answer this short may still be a bare engine error.
constexpr std::size_t kHeldPerTool = 16;  ///< P-ISERROR findings kept per tool until finish().

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }



/// `needle` in `hay` with no letter or digit touching it on either side.
bool has_token(std::string_view hay, std::string_view needle, std::size_t* where = nullptr) {
  for (std::size_t at = hay.find(needle); at != npos; at = hay.find(needle, at + 1)) {
    const std::size_t end = at + needle.size();
    const bool left = at == 0 || !word_char(hay[at - 1]) || !word_char(needle.front());
    const bool right = end >= hay.size() || !word_char(hay[end]) || !word_char(needle.back());
    if (left && right) {
      if (where) *where = at;
      return true;
    }
  }
  return false;
}

/// Lines of `text` (its first kScan bytes), trimmed, empty ones left out.
std::vector<std::string_view> lines_of(std::string_view text) {
  text = text.substr(0, kScan);
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t nl = text.find('\n', at);
    if (nl == npos) nl = text.size();
    const std::string_view t = trim_space(text.substr(at, nl - at));
    if (!t.empty()) out.push_back(t);
    at = nl + 1;
  }
  return out;
}

/// A JavaScript exception with a message: "TypeError: x is not a function" (not "TypeError:" alone).
bool js_exception(std::string_view line) {
  for (std::string_view name : {"TypeError: ", "ReferenceError: ", "RangeError: "}) {
    std::size_t at = 0;
    if (!has_token(line, name.substr(0, name.size() - 2), &at)) continue;
    if (line.compare(at, name.size(), name) != 0) continue;
    if (!trim_space(line.substr(at + name.size())).empty()) return true;
  }
  return false;
}

bool runtime_marker(std::string_view line) {
  if (js_exception(line)) return true;
  static constexpr std::array<std::string_view, 12> kPhrases = {
      "is not a function", "is not iterable", "Cannot read properties of undefined",
      "Cannot read properties of null", "Cannot set properties of undefined", "Cannot set properties of null",
      "Cannot destructure property", "undefined is not an object", "Maximum call stack size exceeded",
      "Traceback (most recent call last)", "'NoneType' object", "AttributeError: "};
  for (auto p : kPhrases)
    if (line.find(p) != npos) return true;
  // Node before v16: "Cannot read property 'x' of undefined".
  if (line.find("Cannot read property '") != npos &&
      (line.find("' of undefined") != npos || line.find("' of null") != npos))
    return true;
  // A stack frame with a source position: "at f (file.js:1:2)".
  return line.rfind("at ", 0) == 0 && stack_frame_line(line) && line.find(':') != npos;
}

constexpr std::array<std::string_view, 17> kDatabasePhrases = {
      "fts5: ", "malformed MATCH expression", "SQLITE_ERROR", "SQLITE_MISMATCH", "SQLITE_RANGE", "SqliteError",
      "SQLiteError", "no such column", "no such table", "no such function: ", "datatype mismatch",
      "syntax error at or near", "unrecognized token: ", "You have an error in your SQL syntax", "ER_PARSE_ERROR",
      "ER_BAD_FIELD_ERROR", "ER_NO_SUCH_TABLE"};

bool database_marker(std::string_view line) {
  for (auto p : kDatabasePhrases)
    if (line.find(p) != npos) return true;
  // SQLite: `near "x": syntax error`; Postgres: `relation "x" does not exist`.
  if (line.find("near \"") != npos && line.find("\": syntax error") != npos) return true;
  return line.find("relation \"") != npos && line.find("\" does not exist") != npos;
}

/// A POSIX shell's own parse error: "/bin/sh: 1: Syntax error: \")\" unexpected" (dash), "sh: -c:
/// line 0: syntax error near unexpected token `('" (bash), "zsh:1: parse error near `)'". The
/// shell names itself first, so prose about syntax errors never reads as one.
bool shell_marker(std::string_view line) {
  static constexpr std::array<std::string_view, 6> kPhrases = {
      "Syntax error: ", "syntax error near unexpected token", "unexpected EOF while looking for matching",
      "syntax error: unexpected end of file", "parse error near", "Unterminated quoted string"};
  for (std::string_view shell : {"sh:", "bash:", "dash:", "zsh:"}) {
    std::size_t at = 0;
    if (!has_token(line, shell.substr(0, shell.size() - 1), &at) || line.compare(at, shell.size(), shell) != 0)
      continue;
    // "sh" itself, or the last part of a path to it ("/bin/sh"), not a word ending in it ("bash" is its own).
    if (at > 0 && line[at - 1] != '/' && line[at - 1] != ' ' && line[at - 1] != '\t') continue;
    const std::string_view rest = line.substr(at + shell.size());
    for (auto p : kPhrases)
      if (rest.find(p) != npos) return true;
  }
  return false;
}

/// A message that starts with a database engine's error, after at most two error heads
/// ("Error: SqliteError: no such column: b"), not a sentence that mentions one.
bool database_start(std::string_view line) {
  for (int heads = 0; heads <= 2; ++heads) {
    for (auto p : kDatabasePhrases)
      if (line.substr(0, p.size()) == p) return true;
    if (line.rfind("near \"", 0) == 0 && line.find("\": syntax error") != npos) return true;
    if (line.rfind("relation \"", 0) == 0 && line.find("\" does not exist") != npos) return true;
    const std::size_t colon = line.find(": ");
    if (colon == npos || colon > 40) return false;
    const std::string_view head = line.substr(0, colon);
    if (head.find("rror") == npos && head.find("RROR") == npos && head.find("SQLITE") == npos) return false;
    line = trim_space(line.substr(colon + 2));
  }
  return false;
}

/// What `evidence` may say inside "(this call: ...)": one line, an unmatched ')' left out (it
/// would end the part finding_key leaves out of the cause).
std::string tail_safe(std::string_view s, std::size_t max = 200) {
  std::string e = excerpt(s, max);
  std::string out;
  int depth = 0;
  for (char c : e) {
    if (c == '(') ++depth;
    if (c == ')') {
      if (depth == 0) continue;
      --depth;
    }
    out += c;
  }
  return out;
}

void string_args(const json& v, int depth, std::vector<std::string>& out) {
  if (depth > 8 || out.size() > 64) return;
  if (v.is_string()) out.push_back(v.get<std::string>());
  else if (v.is_structured())
    for (const auto& e : v) string_args(e, depth + 1, out);
}

/// Lower-case words of `s` (split at anything but a letter or a digit).
std::set<std::string> words(std::string_view s) {
  std::set<std::string> out;
  std::string w;
  for (char c : s.substr(0, 4096)) {
    if (word_char(c)) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      out.insert(w);
      w.clear();
    }
  }
  if (!w.empty()) out.insert(w);
  return out;
}

/// The tool's name and description, and each string property's name and description.
struct Described {
  std::string tool;                     ///< name + description, lower-case.
  std::vector<std::string> properties;  ///< name + description of each property, lower-case.
  std::vector<std::string> names;       ///< Property names, lower-case.
};

Described described(const json* tool) {
  Described d;
  if (!tool || !tool->is_object()) return d;
  d.tool = ascii_lower(tool->value("name", std::string()) + " " + tool->value("description", std::string()));
  const json* props = nullptr;
  if (auto s = tool->find("inputSchema"); s != tool->end() && s->is_object())
    if (auto p = s->find("properties"); p != s->end() && p->is_object()) props = &*p;
  if (!props) return d;
  for (const auto& [k, v] : props->items()) {
    std::string text = k;
    if (v.is_object() && v.contains("description") && v["description"].is_string())
      text += " " + v["description"].get<std::string>();
    d.properties.push_back(ascii_lower(text));
    d.names.push_back(ascii_lower(k));
  }
  return d;
}

bool any_word_in(const std::string& text, std::initializer_list<std::string_view> vocabulary) {
  const auto ws = words(text);
  for (auto v : vocabulary)
    if (ws.count(std::string(v))) return true;
  return false;
}

bool any_phrase_in(const std::string& text, std::initializer_list<std::string_view> phrases) {
  for (auto p : phrases)
    if (text.find(p) != std::string::npos) return true;
  return false;
}

/// The first string value under `v` that is exactly a leaked value, as "`/pointer` is \"undefined\"".
std::string json_leak(const json& v, const std::string& pointer, int depth, const std::vector<std::string>& ours,
                      std::size_t& budget) {
  if (depth > 8 || budget == 0) return "";
  --budget;
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if ((s == "undefined" || s == "NaN" || s == "[object Object]") &&
        std::find(ours.begin(), ours.end(), s) == ours.end())
      return "`" + (pointer.empty() ? std::string("/") : pointer) + "` is \"" + s + "\"";
    return "";
  }
  if (v.is_array()) {
    std::size_t i = 0;
    for (const auto& e : v) {
      std::string r = json_leak(e, pointer + "/" + std::to_string(i++), depth + 1, ours, budget);
      if (!r.empty()) return r;
    }
  } else if (v.is_object()) {
    for (const auto& [k, e] : v.items()) {
      // The JavaScript type of something ({"type":"undefined"}) is a value, not a leak.
      const std::string lk = ascii_lower(k);
      if (lk == "type" || lk == "typeof" || lk == "kind" || lk == "datatype" || lk == "returns" || lk == "return_type")
        continue;
      std::string r = json_leak(e, pointer + "/" + k, depth + 1, ours, budget);
      if (!r.empty()) return r;
    }
  }
  return "";
}

/// `read`: the answer `text` is the sections of, read once (nullptr: `text` is parsed here).
std::string leak_evidence_of(std::string_view text, const json* structured, const json& arguments, bool text_lines,
                             const mcp::Answer* read = nullptr) {
  std::vector<std::string> ours;
  string_args(arguments, 0, ours);
  std::size_t budget = 20000;
  if (structured && !structured->is_null()) return json_leak(*structured, "", 0, ours, budget);
  const std::string_view t = trim_space(text);
  if (!t.empty() && (t.front() == '{' || t.front() == '[')) {
    // One part read once: its JSON, not parsed again.
    if (read && read->parts().size() == 1) {
      if (read->read().front().whole.is_structured()) return json_leak(read->read().front().whole, "", 0, ours, budget);
    } else {
      const json doc = parse_bounded(t);
      if (!doc.is_discarded()) return json_leak(doc, "", 0, ours, budget);
    }
  }
  if (!text_lines) return "";
  // Our own argument printed back ("Echo: undefined") is not the server's leak.
  for (const auto& a : ours)
    for (std::string_view token : {"undefined", "NaN", "[object Object]"})
      if (a.find(token) != std::string::npos) return "";
  for (auto line : lines_of(text))
    if (leak_line(line)) return "`" + tail_safe(line, 160) + "`";
  return "";
}

/// The call asked for an error: an argument that is the word itself (server-everything's
/// get-annotated-message {messageType: "error"} answers "Error: Operation failed" as asked).
bool asked_for_error(const json& arguments) {
  std::vector<std::string> args;
  string_args(arguments, 0, args);
  for (const auto& a : args) {
    const std::string l = ascii_lower(trim_space(a));
    if (l == "error" || l == "errors" || l == "fail" || l == "failure" || l == "failed" || l == "exception" ||
        l == "throw")
      return true;
  }
  return false;
}

/// A batch: several content parts, sections between `---` lines, or a call that passes a list
/// (server-filesystem's read_multiple_files answers one section per path). Each error in it is one item's answer, and
/// the call that asked for them all did not fail.
bool batch(const mcp::Answer& a, std::string_view text, const json& arguments) {
  if (a.parts().size() > 1) return true;
  // A call that passes a list (read_multiple_files {paths: [...]}) is answered item by item, even
  // for one item (": Error - EISDIR: illegal operation on a directory, read" for the path "").
  if (arguments.is_object())
    for (const auto& [k, v] : arguments.items())
      if (v.is_array() && !v.empty()) return true;
  for (auto line : lines_of(text))
    if (line.size() >= 3 && std::string_view("-=*_").find(line.front()) != npos &&
        line.find_first_not_of(line.front()) == npos)
      return true;
  return false;
}

Finding make(const char* id, const Reply& r, std::string diagnosis, Severity sev,
             const std::map<std::string, std::string>& env) {
  Finding f = detail::reply_finding(id, r, std::move(diagnosis), sev);
  f.env = env;
  return f;
}

/// What the answer says, for "(this call: ...)": its first line, or its JSON.
std::string said(std::string_view text, const json* structured) {
  if (structured && !structured->is_null()) return "`" + tail_safe(structured->dump(), 160) + "`";
  const auto ls = lines_of(text);
  return ls.empty() ? std::string("an empty answer") : "`" + tail_safe(ls.front(), 160) + "`";
}

}  // namespace

InternalError internal_error(std::string_view text, bool strict) {
  InternalError out;
  const auto ls = lines_of(text);
  if (strict) {
    // A bare engine error as the whole message: the marker within the first line's first bytes.
    if (ls.empty() || !database_start(ls.front())) return out;
    out.kind = InternalKind::kDatabase;
    out.evidence = std::string(ls.front());
    return out;
  }
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const std::string_view line = ls[i];
    if (database_marker(line)) {
      out.kind = InternalKind::kDatabase;
      out.evidence = std::string(line);
      return out;
    }
    if (shell_marker(line)) {
      out.kind = InternalKind::kShell;
      out.evidence = std::string(line);
      return out;
    }
    if (runtime_marker(line)) {
      out.kind = InternalKind::kRuntime;
      out.evidence = std::string(line);
      // The exception's line and its first frame, when the frame follows.
      if (i + 1 < ls.size() && ls[i + 1].rfind("at ", 0) == 0 && !stack_frame_line(line))
        out.evidence += " \u2026 " + std::string(ls[i + 1]);
      return out;
    }
  }
  return out;
}

bool environment_failure(std::string_view text) {
  text = text.substr(0, kScan);
  static constexpr std::array<std::string_view, 16> kCodes = {
      "ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOENT",
      "EACCES", "EPERM", "EISDIR", "ENOTDIR", "EMFILE", "EPIPE", "SQLITE_BUSY", "SQLITE_CANTOPEN"};
  for (auto c : kCodes)
    if (has_token(text, c)) return true;
  const std::string l = ascii_lower(text);
  static constexpr std::array<std::string_view, 11> kPhrases = {
      "fetch failed", "socket hang up", "getaddrinfo", "network error", "network request failed",
      "database is locked", "unable to open database file", "aborterror", "timeouterror", "aborted due to timeout",
      "certificate"};
  for (auto p : kPhrases)
    if (l.find(p) != std::string::npos) return true;
  return false;
}

bool query_language_call(const json* tool, const json& arguments) {
  std::vector<std::string> args;
  string_args(arguments, 0, args);
  static constexpr std::array<std::string_view, 11> kStatements = {
      "select ", "insert ", "update ", "delete ", "with ", "create ", "drop ", "alter ", "pragma ", "explain ",
      "replace "};
  for (const auto& a : args) {
    const std::string l = ascii_lower(trim_space(a).substr(0, 16));
    for (auto k : kStatements)
      if (l.rfind(k, 0) == 0) return true;
  }
  const Described d = described(tool);
  auto query_words = [](const std::string& s) {
    return any_word_in(s, {"sql", "mysql", "postgresql", "tsql", "cypher", "sparql", "fts", "fts5"}) ||
           any_phrase_in(s, {"query syntax", "match syntax", "full-text query", "full text query"});
  };
  if (query_words(d.tool)) return true;
  return std::any_of(d.properties.begin(), d.properties.end(), query_words);
}

bool code_call(const json* tool, const json& arguments) {
  (void)arguments;
  if (!tool || !tool->is_object()) return false;
  const std::string name = ascii_lower(tool->value("name", std::string()));
  if (any_word_in(name, {"eval", "evaluate", "exec", "execute", "repl", "script", "javascript", "js", "python", "run"}))
    return true;
  const Described d = described(tool);
  if (any_phrase_in(d.tool, {"evaluate", "run code", "execute code", "executes code", "runs code", "javascript code",
                             "python code", "run a script", "run script", "execute a script", "expression"}))
    return true;
  static constexpr std::array<std::string_view, 10> kParams = {"code", "script", "expression", "expr", "javascript",
                                                               "js", "source", "function", "snippet", "program"};
  for (const auto& n : d.names)
    if (std::find(kParams.begin(), kParams.end(), n) != kParams.end()) return true;
  return false;
}

bool shell_call(const json* tool, const json& arguments) {
  if (code_call(tool, arguments)) return true;
  const Described d = described(tool);
  if (any_word_in(d.tool, {"shell", "bash", "terminal", "command", "commands", "cmd", "exec", "execute", "sh"}))
    return true;
  static constexpr std::array<std::string_view, 8> kParams = {"command", "cmd", "commandline", "cmdline",
                                                              "commands", "shell", "bash", "shellcommand"};
  for (const auto& n : d.names)
    if (std::find(kParams.begin(), kParams.end(), n) != kParams.end()) return true;
  return false;
}

std::string leak_evidence(std::string_view text, const json* structured, const json& arguments) {
  return leak_evidence_of(text, structured, arguments, true);
}

// ---------------------------------------------------------------------------------------------

struct Inband::State {
  struct Tool {
    std::vector<Finding> held;  ///< P-ISERROR, in the order the answers came.
    std::size_t answers = 0;    ///< Answers that were held (past kHeldPerTool: counted only).
  };
  std::map<std::string, Tool> unflagged;  ///< Tools that answered a failure without isError.
  std::set<std::string> flagged;          ///< Tools that set isError:true on a valid call's failure.
};

Inband::Inband() : s_(std::make_unique<State>()) {}
Inband::~Inband() = default;

void Inband::absorb(Inband& shard) {
  for (auto& [name, t] : shard.s_->unflagged) {
    State::Tool& mine = s_->unflagged[name];
    mine.answers += t.answers;
    for (auto& f : t.held)
      if (mine.held.size() < kHeldPerTool) mine.held.push_back(std::move(f));
  }
  s_->flagged.insert(shard.s_->flagged.begin(), shard.s_->flagged.end());
  shard.s_->unflagged.clear();
  shard.s_->flagged.clear();
}

Outcomes Inband::judge(const std::string& name, const json* tool, const json& arguments, const Reply& r, bool valid,
                       const std::map<std::string, std::string>& env) {
  return judge(name, tool, arguments, mcp::Answer(r), valid, env);
}

Outcomes Inband::judge(const std::string& name, const json* tool, const json& arguments, const mcp::Answer& a,
                       bool valid, const std::map<std::string, std::string>& env) {
  Outcomes out;
  const Reply& r = a.reply();
  if (r.kind != Reply::Kind::kResult || !r.result.is_object() || !valid) return out;
  const bool is_error = r.is_error_result();
  const json* structured = a.structured();
  // Text parts apart, as sections of one answer.
  const std::string& text = a.sections();
  if (!structured && trim_space(text).empty()) return out;  // nothing in words (an image, an empty result)
  const Reach reach = is_error ? Reach::kError : content_reach(a);
  out.pass("P-ISERROR");
  if (!is_error) out.pass("P-LEAK");

  // Internal errors: read only where the answer is a failure (or a bare short message).
  const std::string scan = text.empty() && structured ? structured->dump() : text;
  InternalError ie;
  if (is_error || reach == Reach::kError || reach == Reach::kMiss) ie = internal_error(scan);
  else if (trim_space(scan).size() <= kShort) ie = internal_error(scan, true);
  if (ie.kind != InternalKind::kNone && environment_failure(scan)) ie = {};
  if (ie.kind == InternalKind::kDatabase && query_language_call(tool, arguments)) ie = {};
  if (ie.kind == InternalKind::kRuntime && code_call(tool, arguments)) ie = {};
  if (ie.kind == InternalKind::kShell && shell_call(tool, arguments)) ie = {};
  if (ie.kind == InternalKind::kRuntime && ie.evidence.find("ReferenceError: ") != std::string::npos) {
    // "ReferenceError: zzz is not defined" naming the call's own argument: the tool ran it as code.
    std::vector<std::string> ours;
    string_args(arguments, 0, ours);
    for (const auto& arg : ours)
      if (!arg.empty() && ie.evidence.find(arg + " is not defined") != std::string::npos) ie = {};
  }
  if (ie.kind != InternalKind::kNone) {
    if (is_error) s_->flagged.insert(name);
    const std::string flag = is_error ? "isError:true" : "no isError";
    const std::string diagnosis =
        ie.kind == InternalKind::kDatabase
            ? "a call valid for the tool's inputSchema got the database engine's own error back: the tool built a "
              "query from the argument without escaping or checking it (P-NO-THROW for results: an exception "
              "escaped into the answer instead of a domain answer). Bind or quote the argument, or answer bad input "
              "with a message of your own"
        : ie.kind == InternalKind::kShell
            ? "a call valid for the tool's inputSchema got a shell's own syntax error back: the tool pasted the "
              "argument into a command line unquoted and the shell parsed it as code, so a value with `;` or "
              "`$(...)` runs commands of the caller's choosing (command injection; P-NO-THROW for results: the "
              "failure escaped into the answer). Pass arguments as an argument list (execFile, or spawn without "
              "shell: true), or quote every one"
            : "a call valid for the tool's inputSchema made the handler throw, and the runtime's exception reached "
              "the agent as the answer (P-NO-THROW for results: an exception must never escape; here it escaped "
              "into the content instead of the protocol). Fix the bug this input exposes, and answer failures with "
              "a message of your own";
    // Quoted whole (a shell's `")" unexpected` included): the finding's cause is explicit, so its
    // text's parentheses do not matter to grouping.
    Finding f = make("P-NO-THROW", r, diagnosis + " (this call: " + flag + ", " + "`" + excerpt(ie.evidence, 200) + "`)",
                     Severity::kError, env);
    // The exception's text is the server's (and may quote the input): the cause is its kind.
    f.cause = {{"form", "exception-in-result"},
               {"kind", ie.kind == InternalKind::kDatabase ? "database-engine-error"
                        : ie.kind == InternalKind::kShell  ? "shell-syntax-error"
                                                           : "runtime-exception"}};
    out.fail(std::move(f));
    return out;
  }
  if (is_error) {
    s_->flagged.insert(name);
    return out;
  }
  if (reach == Reach::kError && !asked_for_error(arguments) && !batch(a, text, arguments)) {
    auto& t = s_->unflagged[name];
    ++t.answers;
    if (t.held.size() < kHeldPerTool) {
      t.held.push_back(make("P-ISERROR", r,
                            "a call valid for the tool's inputSchema failed, and the answer says so only in its "
                            "content: the result has no isError:true, so a host or an agent that reads the flag "
                            "takes the error for data (this call: " + said(text, structured) + ")",
                            Severity::kWarning, env));
      t.held.back().cause = {{"form", "error-without-iserror"}};
    }
    return out;
  }
  // A leak: an answer that is one (content_reach), or a JSON value that is exactly one.
  if (reach == Reach::kLeak || reach == Reach::kData || reach == Reach::kEmpty) {
    std::string ev = leak_evidence_of(text, structured, arguments, reach == Reach::kLeak, &a);
    if (ev.empty() && reach == Reach::kLeak) ev = said(text, structured);
    if (!ev.empty()) {
      Finding f = make("P-LEAK", r,
                    "the answer prints a JavaScript non-value where a value belongs (undefined, NaN or [object "
                    "Object]: a missing field, a failed number conversion or an object turned into a string), so "
                    "the agent reads a broken value as the answer (this call: " + ev + ")",
                    Severity::kWarning, env);
      f.cause = {{"form", "non-value"}};
      out.fail(std::move(f));
    }
  }
  return out;
}

std::map<std::string, Outcomes> Inband::finish() {
  std::map<std::string, Outcomes> out;
  auto& tools = s_->unflagged;
  if (tools.size() >= 2 && s_->flagged.empty()) {
    // No tool ever flags a failure, and several fail in content: the server's habit, one finding.
    std::size_t answers = 0;
    std::string names;
    for (const auto& [name, t] : tools) {
      answers += t.answers;
      names += (names.empty() ? "" : ", ") + name;
    }
    Finding f = std::move(tools.begin()->second.held.front());
    f.tool.clear();
    f.server_level = true;
    f.diagnosis = "no tool of this server sets isError:true on a failure: " + std::to_string(tools.size()) +
                  " tools answered " + std::to_string(answers) +
                  " failed valid calls as ordinary results with the error only in their content (" + names +
                  "), so a host or an agent that reads the flag takes every error for data. Set isError:true where "
                  "the server builds its failure results";
    out[""].fail(std::move(f));
  } else {
    for (auto& [name, t] : tools)
      for (auto& f : t.held) out[name].fail(std::move(f));
  }
  tools.clear();
  return out;
}

}  // namespace ctxo::checks
