// SPDX-License-Identifier: MIT
// The rules are tabled in reach.h. Everything here errs towards data: a phrase counts only where
// it makes up the answer (a short answer, or the first line of one whose rest is a stack trace or
// a few words), never inside code, a listing or a search hit.
#include "checks/reach.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "core/json_bounded.h"
#include "core/text.h"

namespace ctxo::checks {

namespace {

using nlohmann::json;
constexpr auto npos = std::string_view::npos;

constexpr std::size_t kShort = 300;    ///< Bytes: an answer (or the rest after its first line) this short is a message.
constexpr std::size_t kLineMax = 300;  ///< A longer line is never read for a phrase, only for an error head.
constexpr std::size_t kScan = 4096;    ///< Bytes of a line looked at for an error head.
constexpr int kMaxDepth = 8;           ///< JSON levels (and JSON-in-a-string readings) looked into.

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }



bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

/// `needle` in `hay` as whole words: no word character touches either of its word-character ends.
bool has_word(std::string_view hay, std::string_view needle, std::size_t* where = nullptr) {
  for (std::size_t at = hay.find(needle); at != npos; at = hay.find(needle, at + 1)) {
    const std::size_t end = at + needle.size();
    const bool left = at == 0 || !is_word(hay[at - 1]) || !is_word(needle.front());
    const bool right = end == hay.size() || !is_word(hay[end]) || !is_word(needle.back());
    if (left && right) {
      if (where) *where = at;
      return true;
    }
  }
  return false;
}

template <std::size_t N>
bool any_word(std::string_view hay, const std::array<std::string_view, N>& needles) {
  return std::any_of(needles.begin(), needles.end(), [&](std::string_view n) { return has_word(hay, n); });
}

template <std::size_t N>
bool any_start(std::string_view s, const std::array<std::string_view, N>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return starts(s, p); });
}

// ---------------------------------------------------------------------------------------------
// Lines

/// ":12:5" or ":12" ending `s` (inside a closing parenthesis): a source position.
bool ends_with_position(std::string_view s) {
  if (!s.empty() && s.back() == ')') s.remove_suffix(1);
  int groups = 0;
  while (groups < 2) {
    std::size_t n = 0;
    while (n < s.size() && is_digit(s[s.size() - 1 - n])) ++n;
    if (n == 0 || n == s.size() || s[s.size() - 1 - n] != ':') break;
    s.remove_suffix(n + 1);
    ++groups;
  }
  return groups > 0;
}

/// "at f (file.js:1:2)", "at file.js:1:2", "at async f (node:internal/x:3:9)", "at <anonymous>".
bool js_frame(std::string_view t) {
  if (!starts(t, "at ")) return false;
  return ends_with_position(t) || t == "at <anonymous>" || ends(t, "(<anonymous>)") || ends(t, "(native)");
}

/// `File "x.py", line 3, in f` (a Python traceback's frame).
bool py_frame(std::string_view t) { return starts(t, "File \"") && t.find("\", line ") != npos; }

/// A line that carries data whatever it says: a list item, a table row, a search hit's
/// `path:line` anchor (or a bare `12:` line number), a `[FILE] name` listing.
bool data_like(std::string_view t) {
  static constexpr std::array<std::string_view, 7> kItem = {"- ", "* ", "+ ", "\u2022 ", "\u2013 ", "|", "[file]"};
  if (any_start(t, kItem) || starts(ascii_lower(t.substr(0, 6)), "[file]") || starts(ascii_lower(t.substr(0, 5)), "[dir]"))
    return true;
  std::size_t i = 0;
  while (i < t.size() && is_digit(t[i])) ++i;
  if (i > 0 && i + 1 < t.size() && (t[i] == '.' || t[i] == ')') && t[i + 1] == ' ') return true;  // "1. x"
  if (i > 0 && i < t.size() && t[i] == ':') return true;                                         // "12: x"
  // path:line — a first token with no space, naming a file (a dot or a slash), then ":<digits>".
  const std::size_t colon = t.find(':');
  if (colon == npos || colon == 0 || colon + 1 >= t.size() || !is_digit(t[colon + 1])) return false;
  const std::string_view head = t.substr(0, colon);
  return head.find(' ') == npos && head.find_first_of("./\\") != npos;
}

/// Leading Markdown and decoration ("## ", "> ", "**", "❌ ") and trailing emphasis, removed.
std::string_view strip_marks(std::string_view t) {
  std::size_t b = 0, decoration = 0;
  while (b < t.size()) {
    const unsigned char c = static_cast<unsigned char>(t[b]);
    if (c == '#' || c == '>' || c == '*' || c == '_' || c == '`' || c == '~' || c == ' ' || c == '\t') {
      ++b;
    } else if (c >= 0x80 && decoration < 16) {  // an emoji or a symbol such as ⚠ or ✗
      ++b, ++decoration;
    } else {
      break;
    }
  }
  t.remove_prefix(b);
  while (!t.empty() && std::string_view("*_`~ \t").find(t.back()) != npos) t.remove_suffix(1);
  return t;
}

/// Code, not a message: a phrase in it is the program's text (`throw new Error("not found")`).
bool code_like(std::string_view s, const std::string& l) {
  if (s.empty()) return false;
  if (std::string_view(";{}[(,").find(s.back()) != npos) return true;
  static constexpr std::array<std::string_view, 8> kMarks = {"=>", "===", "!==", "/*", "${", "::", "();", "\\n"};
  for (auto m : kMarks)
    if (s.find(m) != npos) return true;
  for (std::size_t at = s.find("//"); at != npos; at = s.find("//", at + 2))
    if (at == 0 || s[at - 1] != ':') return true;  // a comment, not a URL's scheme
  static constexpr std::array<std::string_view, 26> kKeywords = {
      "const ", "let ", "var ", "function ", "function(", "def ", "class ", "import ", "export ", "return ",
      "throw ", "if (", "if(", "else ", "for (", "while (", "async ", "await ", "public ", "private ",
      "protected ", "static ", "interface ", "enum ", "fn ", "#include"};
  if (any_start(l, kKeywords)) return true;
  // A hover: "(parameter) x: undefined", "(method) Foo.bar(): void".
  if (l.size() > 2 && l[0] == '(') {
    const std::size_t close = l.find(')');
    if (close != npos && close + 1 < l.size() && l[close + 1] == ' ' &&
        std::all_of(l.begin() + 1, l.begin() + static_cast<std::ptrdiff_t>(close), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == ' '; }))
      return true;
  }
  // A call with a string argument (`log("fetch failed")`), or a method call (`map.get(id)`).
  for (std::size_t at = s.find('('); at != npos; at = s.find('(', at + 1)) {
    if (at == 0 || !is_word(s[at - 1])) continue;
    if (at + 1 < s.size() && std::string_view("\"'`").find(s[at + 1]) != npos) return true;
    std::size_t w = at;
    while (w > 0 && is_word(s[w - 1])) --w;
    if (w > 0 && s[w - 1] == '.' && w >= 2 && is_word(s[w - 2])) return true;
  }
  return false;
}

/// Where a message (not a sentence about one) begins: the line's start, or after ": " or " - ".
std::vector<std::size_t> message_starts(const std::string& l) {
  std::vector<std::size_t> at = {0};
  for (std::size_t i = l.find(": "); i != npos; i = l.find(": ", i + 1)) at.push_back(i + 2);
  for (std::size_t i = l.find(" - "); i != npos; i = l.find(" - ", i + 1)) at.push_back(i + 3);
  return at;
}

/// An error head at the line's start: `Error:`, `Error …:`, `TypeError:`, `MCP error -32603`, ...
bool error_head(std::string_view s, const std::string& l) {
  // "Error: x", "ERROR x", "Error searching libraries: x" (a few words, then a colon).
  if (starts(l, "error:") || starts(l, "error -") || starts(l, "[error]") || starts(l, "error!") || l == "error" ||
      l == "error.")
    return true;
  // "Error <a few words>: <what>", not a heading ("Error codes:" over a list of them).
  if (starts(l, "error ") && s.size() <= kLineMax) {
    const std::size_t colon = l.find(':');
    if (colon != npos && colon <= 80 && colon + 1 < l.size() &&
        std::count(l.begin(), l.begin() + static_cast<std::ptrdiff_t>(colon), ' ') <= 6)
      return true;
  }
  // "TypeError: x", "McpError: x", "java.io.IOException: x", "Uncaught TypeError: x".
  std::string_view rest = l;
  if (starts(rest, "uncaught ")) rest.remove_prefix(9);
  std::size_t i = 0;
  while (i < rest.size() && (is_word(rest[i]) || rest[i] == '.')) ++i;
  const std::string_view token = rest.substr(0, i);
  if (i < rest.size() && rest[i] == ':' && (ends(token, "error") || ends(token, "exception"))) return true;
  static constexpr std::array<std::string_view, 14> kHeads = {
      "mcp error ", "traceback (most recent call last)", "an error occurred", "an error has occurred",
      "an unexpected error", "unexpected error", "internal error", "internal server error",
      "something went wrong", "fatal:", "permission denied", "access denied", "request failed", "panic:"};
  if (any_start(l, kHeads)) return true;
  return starts(l, "failed to ") && s.size() <= kLineMax;
}

/// A JavaScript or Node failure in message position ("Request failed: fetch failed").
bool js_failure(std::string_view s, const std::string& l) {
  static constexpr std::array<std::string_view, 12> kTokens = {
      "typeerror:", "referenceerror:", "syntaxerror:", "rangeerror:", "evalerror:", "urierror:", "fetch failed",
      "cannot read properties of", "cannot read property", "cannot set properties of", "unexpected token", "socket hang up"};
  for (std::size_t at : message_starts(l))
    for (auto t : kTokens)
      if (l.compare(at, t.size(), t) == 0) return true;
  // Phrases that end a message: "x.map is not a function", "TypeError: fetch failed".
  std::string_view tail = l;
  while (!tail.empty() && std::string_view(".!)'\" ").find(tail.back()) != npos) tail.remove_suffix(1);
  if (ends(tail, "is not a function") || ends(tail, "fetch failed") || ends(tail, "is not iterable")) return true;
  if (l.find("is not a function (") != npos || l.find("in json at position") != npos || l.find("is not valid json") != npos)
    return true;
  // Node's system errors: "ENOENT: no such file", "connect ECONNREFUSED 127.0.0.1:80", "spawn rg ENOENT".
  static constexpr std::array<std::string_view, 13> kCodes = {
      "ECONNREFUSED", "ECONNRESET", "ENOENT", "EACCES", "EPERM", "ETIMEDOUT", "ENOTFOUND",
      "EAI_AGAIN", "EHOSTUNREACH", "EPIPE", "EISDIR", "ENOTDIR", "EMFILE"};
  for (auto code : kCodes) {
    std::size_t at = 0;
    if (!has_word(s, code, &at)) continue;
    const std::size_t end = at + code.size();
    if (end == s.size() || s[end] == ':' || s[end] == ',') return true;
    const std::string before = ascii_lower(s.substr(0, at));
    for (std::string_view verb : {"connect ", "getaddrinfo ", "spawn ", "read ", "write ", "open ", "stat "})
      if (ends(before, verb)) return true;
  }
  return false;
}

/// A JavaScript value printed where a value should be: "schema for zzz: undefined".
bool leak(std::string_view s) {
  if (s.find("[object Object]") != npos) return true;
  if (s == "undefined" || s == "NaN") return true;
  for (std::string_view token : {std::string_view("undefined"), std::string_view("NaN")}) {
    for (std::size_t at = s.find(token); at != npos; at = s.find(token, at + 1)) {
      const std::size_t end = at + token.size();
      if ((at > 0 && is_word(s[at - 1])) || (end < s.size() && is_word(s[end]))) continue;
      if (end < s.size() && std::string_view(" ,.;)]}\"'").find(s[end]) == npos) continue;
      const std::string_view before = trim_space(s.substr(0, at));
      if (before.empty() || (before.back() != ':' && before.back() != '=')) continue;
      // "Returns: undefined", "Type: undefined": the value's type, not a leaked value.
      const std::string label = ascii_lower(before.substr(before.size() > 24 ? before.size() - 24 : 0));
      if (label.find("type") != npos || label.find("return") != npos || label.find("kind") != npos) continue;
      return true;
    }
  }
  return false;
}

/// A number of one or more things ("3 results", "12 files"): the answer found something.
bool positive_count(const std::string& l) {
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (!is_digit(l[i]) || (i > 0 && (is_word(l[i - 1]) || l[i - 1] == '.'))) continue;
    std::size_t j = i;
    bool nonzero = false;
    while (j < l.size() && is_digit(l[j])) nonzero |= l[j++] != '0';
    // "3 results", not "404 not found".
    if (nonzero && j + 1 < l.size() && l[j] == ' ' && std::isalpha(static_cast<unsigned char>(l[j + 1])) &&
        l.compare(j + 1, 4, "not ") != 0)
      return true;
    i = j;
  }
  return false;
}

/// A graceful miss: "not found", "No generators found", "0 results".
bool miss(const std::string& l) {
  static constexpr std::array<std::string_view, 29> kPhrases = {
      "not found", "could not find", "couldn't find", "could not be found", "cannot be found", "can't be found",
      "unable to find", "unable to locate", "could not locate", "does not exist", "doesn't exist", "do not exist",
      "did not exist", "no such", "no results", "no result", "no matches", "no match", "no matching",
      "nothing found", "nothing matched", "found nothing", "found 0", "0 results", "0 matches", "zero results",
      "returned no", "did not match any", "didn't match any"};
  if (positive_count(l)) return false;
  if (any_word(l, kPhrases)) return true;
  if (starts(l, "no ")) {
    static constexpr std::array<std::string_view, 15> kWhat = {
        "found", "available", "configured", "exist", "exists", "matching", "results", "matches", "entries",
        "records", "known", "defined", "registered", "indexed", "loaded"};
    if (any_word(l, kWhat)) return true;
    // A short sentence naming what was looked for: "No symbol named `x`.", "No definition for y".
    static constexpr std::array<std::string_view, 6> kNaming = {"named", "called", "for", "with", "matches", "like"};
    if (l.size() <= 160 && any_word(l, kNaming)) return true;
  }
  static constexpr std::array<std::string_view, 6> kStarts = {
      "there is no ", "there are no ", "there were no ", "there was no ", "nothing to ", "unknown "};
  return any_start(l, kStarts) && l.size() <= 160;
}

/// "Could not connect", "Cannot open", "Unable to parse": a failure, said politely.
bool soft_error(const std::string& l) {
  static constexpr std::array<std::string_view, 6> kStarts = {"cannot ", "can't ", "could not ", "couldn't ",
                                                              "unable to ", "failed "};
  return any_start(l, kStarts);
}

/// A one-sentence refusal of the input: "URL must be from the same domain as https://...",
/// "Parameter 'path' is required", "Query must not be empty". Only for an answer that is this one
/// short line (documentation saying what must be is data when it says more).
bool refusal_sentence(const std::string& l) {
  if (l.size() > 300) return false;
  static constexpr std::array<std::string_view, 12> kSays = {
      " must be ",       " must not ",        " must start ",    " must end ",
      " must contain ",  " must match ",      " is required",    " are required",
      " is not allowed", " are not allowed",  " is not a valid", " is invalid"};
  const std::string padded = " " + l;
  for (auto w : kSays)
    if (padded.find(w) != std::string::npos) return true;
  return l.rfind("invalid ", 0) == 0 || l.rfind("missing required ", 0) == 0;
}

/// The whole answer says it is empty.
bool empty_word(const std::string& l) {
  std::string_view w = l;
  while (!w.empty() && w.back() == '.') w.remove_suffix(1);
  static constexpr std::array<std::string_view, 10> kWords = {"(empty)", "empty", "<empty>", "(none)", "none",
                                                              "(no output)", "no output", "n/a", "no data", "no content"};
  return std::find(kWords.begin(), kWords.end(), w) != kWords.end();
}

/// Stronger first: an error anywhere in the message beats a leak, a leak beats a miss.
int rank(Reach r) {
  switch (r) {
    case Reach::kError: return 4;
    case Reach::kLeak: return 3;
    case Reach::kMiss: return 2;
    case Reach::kEmpty: return 1;
    default: return 0;
  }
}

std::optional<Reach> line_reach(std::string_view t) {
  const std::string_view s = strip_marks(t);
  if (s.empty()) return std::nullopt;
  const std::string l = ascii_lower(s.substr(0, kScan));
  if (error_head(s, l)) return Reach::kError;
  if (s.size() > kLineMax || code_like(s, l)) return std::nullopt;
  if (js_failure(s, l)) return Reach::kError;
  if (leak(s)) return Reach::kLeak;
  if (miss(l)) return Reach::kMiss;
  if (soft_error(l)) return Reach::kError;
  return std::nullopt;
}

Reach text_reach(std::string_view text, int depth);

// ---------------------------------------------------------------------------------------------
// JSON

/// Keys that describe an answer rather than carry its data (compared lower-case).
constexpr std::array<std::string_view, 62> kMeta = {
    "type", "kind", "status", "state", "code", "statuscode", "status_code", "message", "msg", "error", "errors",
    "errorcode", "error_code", "errormessage", "error_message", "success", "ok", "iserror", "is_error", "found",
    "exists", "hint", "hints", "suggestion", "reason", "details", "_meta", "meta", "metadata", "timestamp", "time",
    "took", "took_ms", "elapsed", "elapsed_ms", "duration", "duration_ms", "version", "query", "q", "term", "input",
    "request", "requestid", "request_id", "total", "count", "totalcount", "total_count", "totalitems",
    "returneditems", "totalresults", "total_results", "page", "pages", "pagesize", "page_size", "offset", "limit",
    "cursor", "nextcursor", "hasmore"};

bool is_meta(std::string_view key) {
  const std::string k = ascii_lower(key);
  return std::find(kMeta.begin(), kMeta.end(), k) != kMeta.end() || k == "next_cursor" || k == "has_more" ||
         k == "truncated";
}

/// No data in it: null, blank text, [] and {}, or containers of only those and metadata.
bool empty_value(const json& v, int depth) {
  if (depth > kMaxDepth) return false;
  if (v.is_null()) return true;
  if (v.is_string()) return trim_space(v.get_ref<const std::string&>()).empty();
  if (v.is_array()) return std::all_of(v.begin(), v.end(), [&](const json& e) { return empty_value(e, depth + 1); });
  if (v.is_object()) {
    for (const auto& [k, e] : v.items())
      if (!is_meta(k) && !empty_value(e, depth + 1)) return false;
    return true;
  }
  return false;  // a number or a boolean is a value
}

bool leak_string(const json& v) {
  if (!v.is_string()) return false;
  const std::string_view s = trim_space(v.get_ref<const std::string&>());
  return s == "undefined" || s == "NaN" || s.find("[object Object]") != npos;
}

/// A leaked value anywhere under a data key (bounded).
bool has_leak(const json& v, int depth) {
  if (depth > kMaxDepth) return false;
  if (leak_string(v)) return true;
  if (v.is_array())
    return std::any_of(v.begin(), v.end(), [&](const json& e) { return has_leak(e, depth + 1); });
  if (v.is_object())
    for (const auto& [k, e] : v.items())
      if (!is_meta(k) && has_leak(e, depth + 1)) return true;
  return false;
}

bool blank(const json& v) { return v.is_null() || (v.is_string() && trim_space(v.get_ref<const std::string&>()).empty()) || (v.is_structured() && v.empty()); }

const json* field(const json& o, std::initializer_list<std::string_view> names) {
  for (const auto& [k, v] : o.items()) {
    const std::string lk = ascii_lower(k);
    for (auto n : names)
      if (lk == n) return &v;
  }
  return nullptr;
}

bool is_false(const json* v) { return v && v->is_boolean() && !v->get<bool>(); }
bool is_true(const json* v) { return v && v->is_boolean() && v->get<bool>(); }
bool status_is(const json* v, std::initializer_list<std::string_view> words) {
  if (!v || !v->is_string()) return false;
  const std::string s = ascii_lower(trim_space(v->get_ref<const std::string&>()));
  return std::find(words.begin(), words.end(), s) != words.end();
}

Reach object_reach(const json& o, int depth) {
  if (o.empty()) return Reach::kEmpty;
  std::vector<const json*> data, leaks;
  bool empty_field = false;
  for (const auto& [k, v] : o.items()) {
    if (is_meta(k)) continue;
    if (empty_value(v, depth + 1)) {
      empty_field = true;
    } else {
      data.push_back(&v);
      if (leak_string(v)) leaks.push_back(&v);
    }
  }
  const json* error = field(o, {"error"});
  const json* errors = field(o, {"errors"});
  const json* error_message = field(o, {"errormessage", "error_message"});
  const bool error_signal = is_true(field(o, {"iserror", "is_error"})) || is_false(field(o, {"success"})) ||
                            is_false(field(o, {"ok"})) ||
                            status_is(field(o, {"status"}), {"error", "failed", "failure", "fail", "err"}) ||
                            (error && !blank(*error) && !is_false(error)) || (errors && !blank(*errors)) ||
                            (error_message && !blank(*error_message));
  const bool miss_signal = is_false(field(o, {"found"})) || is_false(field(o, {"exists"})) ||
                           status_is(field(o, {"status"}), {"not_found", "notfound", "not found", "missing", "no_results"});
  if (data.empty() && error_signal) return Reach::kError;
  if (data.empty() && miss_signal) return Reach::kMiss;
  if (!leaks.empty() && leaks.size() == data.size()) return Reach::kLeak;
  if (!data.empty() && has_leak(o, depth) && o.dump().size() <= kShort) return Reach::kLeak;
  if (data.empty()) {
    if (empty_field) return Reach::kEmpty;
    // Only metadata: its message may still say what happened ({"message":"No generators found"}).
    if (const json* m = field(o, {"message", "msg"}); m && m->is_string() && depth < kMaxDepth) {
      const Reach r = text_reach(m->get_ref<const std::string&>(), depth + 1);
      if (r != Reach::kData && r != Reach::kEmpty) return r;
    }
    return Reach::kData;
  }
  // One prose field carrying the answer ({"result":"Error: fetch failed"}) says what the text would.
  if (data.size() == 1 && data.front()->is_string() && depth < kMaxDepth) {
    static constexpr std::array<std::string_view, 11> kProse = {"result", "text", "content", "output", "response",
                                                                "answer", "data", "value", "body", "summary", "schema"};
    for (const auto& [k, v] : o.items())
      if (&v == data.front() && std::find(kProse.begin(), kProse.end(), ascii_lower(k)) != kProse.end())
        return text_reach(v.get_ref<const std::string&>(), depth + 1);
  }
  return Reach::kData;
}

Reach json_reach_at(const json& v, int depth) {
  if (v.is_null()) return Reach::kEmpty;
  if (v.is_string()) return depth < kMaxDepth ? text_reach(v.get_ref<const std::string&>(), depth + 1) : Reach::kData;
  if (v.is_array()) {
    if (empty_value(v, depth)) return Reach::kEmpty;
    if (std::all_of(v.begin(), v.end(), leak_string)) return Reach::kLeak;
    return Reach::kData;
  }
  if (v.is_object()) return object_reach(v, depth);
  return Reach::kData;  // a number or a boolean
}

// ---------------------------------------------------------------------------------------------
// Text

/// A line such as "---" or "===": it separates the parts of an answer (read_multiple_files).
bool separator(std::string_view t) {
  return t.size() >= 3 && std::string_view("-=*_").find(t.front()) != npos &&
         t.find_first_not_of(t.front()) == npos;
}

Reach section_reach(std::string_view text, int depth);

/// Each part between separator lines read on its own: the answer is data when one part is (one
/// file read, one not), else the strongest category of its parts.
Reach text_reach(std::string_view text, int depth) {
  std::vector<std::string_view> parts;
  std::size_t from = 0;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t nl = text.find('\n', at);
    if (nl == npos) nl = text.size();
    if (separator(trim_space(text.substr(at, nl - at)))) {
      parts.push_back(text.substr(from, at - from));
      from = std::min(nl + 1, text.size());
    }
    at = nl + 1;
  }
  if (parts.empty()) return section_reach(text, depth);
  parts.push_back(text.substr(from));
  Reach best = Reach::kEmpty;
  bool any = false;
  for (auto part : parts) {
    if (trim_space(part).empty()) continue;
    const Reach r = section_reach(part, depth);
    if (r == Reach::kData) return Reach::kData;
    if (!any || rank(r) > rank(best)) best = r;
    any = true;
  }
  return any ? best : Reach::kEmpty;
}

Reach section_reach(std::string_view text, int depth) {
  const std::string_view all = trim_space(text);
  if (all.empty()) return Reach::kEmpty;
  if (std::string_view("{[\"").find(all.front()) != npos || all == "null") {
    const json doc = parse_bounded(all);
    if (!doc.is_discarded()) return json_reach_at(doc, depth);
  }
  // The message lines, with stack frames set aside; a long rest after the first line is data.
  std::vector<std::string_view> body;
  std::size_t frames = 0, bytes = 0;
  bool under_py_frame = false;
  for (std::size_t at = 0; at <= all.size();) {
    std::size_t nl = all.find('\n', at);
    if (nl == npos) nl = all.size();
    const std::string_view raw = all.substr(at, nl - at);
    at = nl + 1;
    const std::string_view t = trim_space(raw);
    if (t.empty()) continue;
    if (js_frame(t) || py_frame(t)) {
      ++frames;
      under_py_frame = py_frame(t);
      continue;
    }
    if (under_py_frame && (raw.front() == ' ' || raw.front() == '\t')) {  // the source line a Python frame quotes
      under_py_frame = false;
      continue;
    }
    under_py_frame = false;
    if (data_like(t)) return Reach::kData;
    body.push_back(t);
    bytes += t.size();
    if (bytes - body.front().size() > kShort) return Reach::kData;
  }
  if (body.empty()) return frames ? Reach::kError : Reach::kEmpty;
  const std::size_t lines = bytes <= kShort ? body.size() : 1;
  if (body.size() == 1 && empty_word(ascii_lower(strip_marks(body.front())))) return Reach::kEmpty;
  if (body.size() == 1 && frames == 0 && refusal_sentence(ascii_lower(strip_marks(body.front())))) return Reach::kError;
  Reach best = Reach::kData;
  for (std::size_t i = 0; i < lines; ++i)
    if (auto r = line_reach(body[i]); r && rank(*r) > rank(best)) best = *r;
  return best;
}

}  // namespace

Reach json_reach(const json& value) { return json_reach_at(value, 0); }

bool leak_line(std::string_view line) {
  const std::string_view s = strip_marks(trim_space(line));
  if (s.empty() || s.size() > kLineMax) return false;
  return !code_like(s, ascii_lower(s)) && leak(s);
}

bool stack_frame_line(std::string_view line) {
  const std::string_view t = trim_space(line);
  return js_frame(t) || py_frame(t);
}

Reach content_reach(std::string_view text, const json* structured) {
  if (structured && !structured->is_null()) return json_reach_at(*structured, 0);
  return text_reach(text, 0);
}

Reach content_reach(const mcp::Answer& answer) {
  if (answer.structured()) return json_reach_at(*answer.structured(), 0);
  // One part that is one JSON value holds no separator line (JSON has no line of dashes): it is
  // one section, read as JSON when section_reach would parse it.
  if (answer.parts().size() == 1) {
    const json& whole = answer.read().front().whole;
    if (whole.is_structured() || whole.is_string() || whole.is_null()) return json_reach_at(whole, 0);
  }
  return text_reach(answer.sections(), 0);
}

}  // namespace ctxo::checks
