// SPDX-License-Identifier: MIT
#include "gen/plan.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <string_view>

#include <rapidcheck/seq/Create.h>
#include <rapidcheck/seq/Transform.h>
#include <rapidcheck/shrink/Shrink.h>
#include <rapidcheck/shrinkable/Create.h>
#include <rapidcheck/shrinkable/Transform.h>

#include "core/json_bounded.h"
#include "core/text.h"
#include "gen/prose.h"
#include "gen/rc_util.h"
#include "gen/simple.h"
#include "profile/schema_validator.h"

namespace ctxo::gen {

namespace {

constexpr std::size_t kAutoBoundaryMax = 48;
constexpr std::size_t kAutoRandom = 24;
constexpr std::size_t kAutoInvalid = 8;
constexpr int kHarvestDepth = 12;
constexpr int kDrawAttempts = 4;  // draws per slot before a duplicate random call is given up

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Code points of UTF-8 text, each as its byte sequence (so shrinking never splits a character;
// a byte that starts no well-formed sequence stands alone).
std::vector<std::string> split_code_points(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = std::max<std::size_t>(utf8_char_at(s, i).length, 1);
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

// A schema's `properties` object (an empty one when it has none), not copied.
const json& properties_of(const json& schema) {
  static const json kNone = json::object();
  auto it = schema.find("properties");
  return it != schema.end() && it->is_object() ? *it : kNone;
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += p;
  return s;
}

}  // namespace

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::kBoundary: return "boundary";
    case Phase::kRandom: return "random";
    case Phase::kInvalid: return "invalid";
  }
  return "?";
}

// ---- Harvest -------------------------------------------------------------------------------

std::string harvest_key(const std::string& property) {
  std::string k;
  for (char c : property) {
    if (c == '_' || c == '-') continue;
    k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return k;
}

namespace {

bool ends_with(const std::string& s, std::string_view suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

bool one_of(const std::string& k, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return k == w; });
}

// `key` as written ends in an "Id" word: "id", "symbolId", "node_id", "UUID" (not "valid", "paid").
bool id_word(const std::string& key) {
  const std::string k = harvest_key(key);
  if (one_of(k, {"id", "uuid", "guid", "oid"})) return true;
  if (key.size() < 3) return false;
  const std::string tail = key.substr(key.size() - 2);
  const char before = key[key.size() - 3];
  return (tail == "Id" || tail == "ID") || ((tail == "id" || tail == "ID") && (before == '_' || before == '-'));
}

bool path_word(const std::string& k) {
  if (one_of(k, {"profile", "tile", "mobile", "compile"})) return false;
  return one_of(k, {"file", "path", "filepath", "filename", "relativepath", "relpath", "dir", "directory", "folder",
                    "absolutepath", "fullpath", "sourcefile"}) ||
         ends_with(k, "file") || ends_with(k, "path") || ends_with(k, "filename") || ends_with(k, "dir");
}

/// A directory a tool works in or under: `root`, `projectRoot`, `workspaceFolder`, `cwd`,
/// `baseDir`, `dir`, `directory`, `folder` (not `repo`: that is often `owner/name`).
bool directory_word(const std::string& k) {
  return one_of(k, {"root", "rootdir", "rootpath", "projectroot", "projectdir", "projectpath", "workspaceroot",
                    "workspacefolder", "workspacedir", "workspacepath", "cwd", "workdir", "workingdir",
                    "workingdirectory", "basedir", "basepath", "dir", "directory", "folder", "dirpath",
                    "directorypath", "folderpath"}) ||
         ends_with(k, "dir") || ends_with(k, "directory") || ends_with(k, "folder") || ends_with(k, "root");
}

// A directory other paths are resolved against (lsmcp's and typescript-mcp's `root`): a call
// whose `filePath` names a workspace file reaches it only with the workspace root here.
bool anchor_word(const std::string& k) {
  return one_of(k, {"root", "rootdir", "rootpath", "projectroot", "projectdir", "projectpath", "workspaceroot",
                    "workspacefolder", "workspacedir", "workspacepath", "cwd", "workdir", "workingdir",
                    "workingdirectory", "basedir", "basepath"}) ||
         ends_with(k, "root");
}

// A module as an import names it (typescript-mcp's get_module_symbols `moduleName`).
bool module_word(const std::string& k) {
  return one_of(k, {"module", "modulename", "modulepath", "modulespecifier", "specifier", "importpath",
                    "importspecifier", "importsource"});
}

bool name_word(const std::string& k) {
  if (ends_with(k, "filename")) return false;
  return one_of(k, {"name", "symbol", "symbolname", "qualifiedname", "fullname", "fqn", "identifier", "function",
                    "method", "class", "entity", "target", "table", "tables"}) ||
         ends_with(k, "name") || k.rfind("symbol", 0) == 0;
}

bool query_word(const std::string& k) {
  return one_of(k, {"query", "q", "pattern", "search", "searchterm", "term", "keyword", "keywords", "needle", "regex",
                    "prefix", "text"}) ||
         ends_with(k, "query") || ends_with(k, "pattern");
}

/// A file glob: `glob`, `fileGlob`, `filePattern`, `include`, `pathPattern` (before query_word,
/// which takes any `*pattern`).
bool glob_word(const std::string& k) {
  return one_of(k, {"glob", "globpattern", "filepattern", "filespattern", "include", "includepattern", "pathpattern",
                    "filefilter", "filemask"}) ||
         ends_with(k, "glob");
}

bool sql_word(const std::string& k) { return one_of(k, {"sql", "sqlquery", "sqlstatement", "statement", "querysql"}); }

bool regex_word(const std::string& k) {
  return one_of(k, {"regex", "regexp", "regularexpression", "regexpattern", "searchregex", "rx"}) ||
         ends_with(k, "regex") || ends_with(k, "regexp");
}

bool file_type_word(const std::string& k) {
  // Not a bare `type`: that can be anything.
  return one_of(k, {"filetype", "filetypes", "extension", "extensions", "ext", "fileextension"});
}

bool cursor_word(const std::string& k) {
  return k.find("cursor") != std::string::npos || k == "pagetoken" || k == "nextpagetoken";
}

bool uri_word(const std::string& k) { return k == "uri" || ends_with(k, "uri"); }

// "src/a.ts:12" or "src/a.ts:12:5": the path (it has an extension or a '/', no space).
std::optional<std::string> anchor_path(const std::string& s) {
  std::size_t end = s.size();
  int numbers = 0;
  while (numbers < 2) {
    std::size_t colon = s.rfind(':', end - 1);
    if (colon == std::string::npos || colon == 0 || colon + 1 >= end) break;
    if (!std::all_of(s.begin() + static_cast<std::ptrdiff_t>(colon) + 1, s.begin() + static_cast<std::ptrdiff_t>(end),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
      break;
    end = colon;
    ++numbers;
  }
  if (numbers == 0) return std::nullopt;
  std::string path = s.substr(0, end);
  if (path.empty() || path.find_first_of(" \t\n:") != std::string::npos) return std::nullopt;
  if (path.find('/') == std::string::npos && path.find('.') == std::string::npos) return std::nullopt;
  return path;
}

// The path of a file:// uri ("file:///w/src/a.ts" -> "/w/src/a.ts"), '%XX' decoded.
std::optional<std::string> file_uri_path(const std::string& s) {
  if (s.rfind("file://", 0) != 0) return std::nullopt;
  std::string rest = s.substr(7);
  if (rest.rfind("localhost/", 0) == 0) rest = rest.substr(9);
  if (rest.empty() || rest[0] != '/') return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out += static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += rest[i];
    }
  }
  return out;
}

void offer_once(std::vector<json>& out, std::set<std::string>& given, const json& v) {
  if (given.insert(v.dump()).second) out.push_back(v);
}

bool identifier_text(const std::string& s) {
  if (s.empty() || s.size() > 200) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$' || c == '.' || c == '#' ||
           static_cast<unsigned char>(c) >= 0x80;
  });
}

}  // namespace

const char* kind_name(ValueKind k) {
  switch (k) {
    case ValueKind::kId: return "id";
    case ValueKind::kName: return "name";
    case ValueKind::kPath: return "path";
    case ValueKind::kUri: return "uri";
    case ValueKind::kCursor: return "cursor";
    case ValueKind::kSnippet: return "snippet";
    case ValueKind::kGlob: return "glob";
    case ValueKind::kFileType: return "file type";
    case ValueKind::kSql: return "sql";
    case ValueKind::kRegex: return "regex";
    case ValueKind::kDirectory: return "directory";
    case ValueKind::kModule: return "module";
  }
  return "?";
}

std::optional<ValueKind> answer_kind(const std::string& key) {
  const std::string k = harvest_key(key);
  if (k == "cursor" || k == "nextcursor" || k == "pagetoken" || k == "nextpagetoken") return ValueKind::kCursor;
  if (uri_word(k)) return ValueKind::kUri;
  if (id_word(key)) return ValueKind::kId;
  if (path_word(k)) return ValueKind::kPath;
  if (name_word(k)) return ValueKind::kName;
  return std::nullopt;
}

std::vector<ValueKind> parameter_kinds(const std::string& property) {
  const std::string k = harvest_key(property);
  // A plural (`names`, `entityNames`, `paths`, `symbolIds`) takes what its singular takes.
  if (k.size() > 2 && k.back() == 's' && k != "address" && !cursor_word(k)) {
    auto singular = parameter_kinds(property.substr(0, property.size() - 1));
    if (!singular.empty()) return singular;
  }
  if (cursor_word(k)) return {ValueKind::kCursor};
  if (uri_word(k)) return {ValueKind::kUri, ValueKind::kPath};
  if (module_word(k)) return {ValueKind::kModule, ValueKind::kPath};
  if (id_word(property)) return {ValueKind::kId, ValueKind::kName};
  if (sql_word(k)) return {ValueKind::kSql};
  if (regex_word(k)) return {ValueKind::kRegex, ValueKind::kName};  // (a snippet quotes regex metacharacters)
  if (glob_word(k)) return {ValueKind::kGlob};
  if (file_type_word(k)) return {ValueKind::kFileType};
  if (directory_word(k)) return {ValueKind::kDirectory, ValueKind::kPath};
  if (path_word(k)) return {ValueKind::kPath};
  if (name_word(k)) return {ValueKind::kName, ValueKind::kId};
  if (query_word(k)) return {ValueKind::kName, ValueKind::kSnippet};
  return {};
}

PositionPart position_part(const std::string& property) {
  const std::string k = harvest_key(property);
  if (one_of(k, {"line", "linenumber", "lineno", "startline", "row", "ln", "lnum"})) return PositionPart::kLine;
  if (one_of(k, {"column", "col", "character", "char", "startcolumn", "startcol", "startcharacter", "columnnumber",
                 "colno", "ch"}))
    return PositionPart::kColumn;
  return PositionPart::kNone;
}

bool budget_parameter(const std::string& property) {
  const std::string k = harvest_key(property);
  return one_of(k, {"limit", "maxresults", "maxitems", "maxcount", "maxmatches", "topk", "k", "pagesize", "perpage",
                    "count", "first", "tokenbudget", "maxtokens", "budget", "maxbytes", "maxchars", "maxlength",
                    "maxlines", "maxoutput", "maxresultsize"}) ||
         ends_with(k, "limit") || ends_with(k, "budget") || (k.rfind("max", 0) == 0 && k.size() > 3);
}

void Harvest::take_result(const json& result, bool prose, const std::vector<std::string>& exclude) {
  if (!result.is_object()) return;
  mentioned_.clear();  // one answer names a value once, however often it prints it
  if (auto it = result.find("structuredContent"); it != result.end()) walk(*it, 0);
  if (auto it = result.find("content"); it != result.end() && it->is_array()) {
    for (const auto& part : *it) {
      if (!part.is_object() || part.value("type", "") != "text" || !part.contains("text") || !part["text"].is_string())
        continue;
      const std::string& text = part["text"].get_ref<const std::string&>();
      json doc = parse_bounded(text);
      if (!doc.is_discarded()) {
        walk(doc, 0);
        continue;
      }
      // Not JSON as a whole: JSON followed by a Markdown footer, or prose.
      const TextSplit split = split_leading_json(text);
      if (!split.json.empty()) walk(parse_bounded(split.json), 0);
      if (!prose || split.prose.empty()) continue;
      for (const ProseValue& v : prose_values(split.prose, exclude)) {
        const json x(v.value);
        if (v.kind == ValueKind::kUri || v.kind == ValueKind::kId) derive(v.value, v.kind);  // its path and name
        if (v.kind != ValueKind::kUri) keep_kind(v.kind, x);
      }
    }
  }
}

void Harvest::take(const json& value) {
  mentioned_.clear();
  walk(value, 0);
}

void Harvest::keep_name(const std::string& key, const json& x) {
  keep(pool_[key], kPerName, key + '\x1f' + x.dump(), x, false);  // mentions are counted by kind
}

void Harvest::keep_kind(ValueKind kind, const json& x, bool mention) {
  keep(kinds_[kind], kPerKind, std::string("\x1e") + kind_name(kind) + '\x1f' + x.dump(), x, mention);
}

// A value pooled once (first seen first, while there is room); a mention counted for a pooled
// value each time an answer names it, so the scores stay as bounded as the pools.
void Harvest::keep(std::vector<json>& values, std::size_t room, std::string seen_key, const json& x, bool mention) {
  bool pooled = seen_.count(seen_key) > 0;
  if (!pooled && values.size() < room) {
    seen_.insert(std::move(seen_key));
    values.push_back(x);
    pooled = true;
  }
  if (pooled && mention)
    if (std::string text = x.dump(); mentioned_.insert(text).second) score(text, &Score::mentions);
}

void Harvest::score(const std::string& value, std::uint32_t Score::*field, std::uint32_t by) {
  if (by == 0) return;
  auto it = scores_.find(value);
  if (it == scores_.end()) {
    if (scores_.size() >= kMaxScored) return;
    it = scores_.emplace(value, Score{}).first;
  }
  it->second.*field += by;
  fresh_[value].*field += by;
}

void Harvest::outcome(const json& arguments, bool data) {
  std::vector<const json*> stack{&arguments};
  std::set<std::string> scored;  // a value carried twice by one call counts once
  for (std::size_t n = 0; !stack.empty() && n < 256; ++n) {
    const json* v = stack.back();
    stack.pop_back();
    if (v->is_structured()) {
      for (const auto& x : *v) stack.push_back(&x);
    } else if ((v->is_string() && !v->get_ref<const std::string&>().empty() && v->get_ref<const std::string&>().size() <= 512) ||
               v->is_number_integer()) {
      if (std::string text = v->dump(); scored.insert(text).second) score(text, data ? &Score::data : &Score::misses);
    }
  }
}

Harvest Harvest::fork() const {
  Harvest copy = *this;
  copy.fresh_.clear();
  return copy;
}

std::pair<int, std::uint32_t> Harvest::rank(const json& v) const {
  auto it = scores_.find(v.dump());
  if (it == scores_.end()) return {0, 0};
  const Score& s = it->second;
  if (s.misses > 0 && s.data == 0) return {1, 0};  // only misses: after every other value
  // A call that reached data weighs as four answers naming the value, a miss takes one back; a
  // value named once is not a hub (every pooled value was named once).
  const std::int64_t weight = 4 * static_cast<std::int64_t>(s.data) + (s.mentions >= 2 ? std::min<std::uint32_t>(s.mentions, 1024) : 0) -
                              4 * static_cast<std::int64_t>(s.misses);
  return {0, static_cast<std::uint32_t>(std::max<std::int64_t>(weight, 0))};
}

// Values inside a value: the path of an anchor or a file:// uri, the parts of a path::name::kind id.
void Harvest::derive(const std::string& text, std::optional<ValueKind> kind) {
  if (auto p = file_uri_path(text)) {
    keep_kind(ValueKind::kUri, json(text));
    keep_kind(ValueKind::kPath, json(*p));
    return;
  }
  if (text.find("://") != std::string::npos) return;
  if (auto p = anchor_path(text); p && kind != ValueKind::kName) keep_kind(ValueKind::kPath, json(*p));
  if (const std::size_t sep = text.find("::"); sep != std::string::npos && sep > 0 && text.find(' ') == std::string::npos) {
    std::vector<std::string> parts;
    for (std::size_t at = 0;;) {
      const std::size_t next = text.find("::", at);
      parts.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
      if (next == std::string::npos) break;
      at = next + 2;
    }
    const bool pathy = parts[0].find('/') != std::string::npos || parts[0].find('.') != std::string::npos;
    if (parts.size() >= 2 && pathy && !parts[1].empty()) {
      keep_kind(ValueKind::kPath, json(parts[0]));
      if (identifier_text(parts[1])) keep_kind(ValueKind::kName, json(parts[1]));
    }
  }
}

void Harvest::walk(const json& v, int depth) {
  if (depth > kHarvestDepth) return;
  if (v.is_array()) {
    for (const auto& x : v) walk(x, depth + 1);
    return;
  }
  if (!v.is_object()) return;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const json& x = it.value();
    std::string key = harvest_key(it.key());
    if (key == "nextcursor") key = "cursor";  // a page's nextCursor is the next call's cursor
    const bool text = x.is_string() && !x.get_ref<const std::string&>().empty() &&
                      x.get_ref<const std::string&>().size() <= 512;
    const std::optional<ValueKind> kind = answer_kind(it.key());
    if (text) {
      const std::string& s = x.get_ref<const std::string&>();
      derive(s, kind);
      // A uri of another scheme (https://...) is never offered: generated calls stay local.
      const bool remote = s.find("://") != std::string::npos && s.rfind("file://", 0) != 0;
      if (kind && !remote && !(kind == ValueKind::kUri && s.rfind("file://", 0) != 0)) {
        keep_name(key, x);
        if (kind != ValueKind::kUri) keep_kind(*kind, x);
      } else if (!remote && (identifier_like(it.key()) || key == "cursor")) {
        keep_name(key, x);
      }
    } else if (x.is_number_integer() && (kind == ValueKind::kId || identifier_like(it.key()))) {
      keep_name(key, x);
      if (kind == ValueKind::kId) keep_kind(ValueKind::kId, x);
    }
    if (x.is_structured()) walk(x, depth + 1);
  }
}

const std::vector<json>* Harvest::values_for(const std::string& property) const {
  auto it = pool_.find(harvest_key(property));
  return it == pool_.end() || it->second.empty() ? nullptr : &it->second;
}

const std::vector<json>& Harvest::values_of(ValueKind kind) const {
  static const std::vector<json> kNone;
  auto it = kinds_.find(kind);
  return it == kinds_.end() ? kNone : it->second;
}

void Harvest::set_workspace(std::shared_ptr<const Workspace> ws) {
  workspace_ = std::move(ws);
  workspace_values_.reset();
  if (!workspace_) return;
  auto values = std::make_shared<std::map<ValueKind, std::vector<json>>>();
  for (ValueKind k : {ValueKind::kId, ValueKind::kName, ValueKind::kPath, ValueKind::kUri, ValueKind::kCursor,
                      ValueKind::kSnippet, ValueKind::kGlob, ValueKind::kFileType, ValueKind::kDirectory,
                      ValueKind::kModule}) {
    auto v = workspace_->values_of(k);
    if (!v.empty()) values->emplace(k, std::move(v));
  }
  workspace_values_ = std::move(values);
}

bool Harvest::empty() const {
  return (!workspace_values_ || workspace_values_->empty()) && pool_.empty() &&
         std::all_of(kinds_.begin(), kinds_.end(), [](const auto& kv) { return kv.second.empty(); });
}

std::vector<json> Harvest::offers(const std::string& property, bool with_workspace) const {
  std::vector<json> out;
  std::set<std::string> given;
  const std::vector<ValueKind> kinds = parameter_kinds(property);
  auto offer = [&](ValueKind k, const json& v) {
    // A uri parameter takes absolute paths as file:// uris.
    if (k == ValueKind::kPath && !kinds.empty() && kinds.front() == ValueKind::kUri) {
      if (v.is_string() && !v.get_ref<const std::string&>().empty() && v.get_ref<const std::string&>()[0] == '/')
        offer_once(out, given, json("file://" + v.get<std::string>()));
      return;
    }
    offer_once(out, given, v);
  };
  std::vector<std::size_t> blocks;  // where each block starts: the own name's, then each kind's
  blocks.push_back(0);
  if (const auto* own = values_for(property))
    for (const auto& v : *own) offer_once(out, given, v);
  static const std::vector<json> kNone;
  for (ValueKind k : kinds) {
    blocks.push_back(out.size());
    if (k == ValueKind::kSql) {
      for (const auto& v : sql_statements()) offer_once(out, given, v);
      continue;
    }
    if (k == ValueKind::kRegex) {
      for (const auto& v : regex_patterns(with_workspace)) offer_once(out, given, v);
      continue;
    }
    // The workspace's values and the answers' of this kind in turn, the workspace's first.
    const std::vector<json>* ws = &kNone;
    if (workspace_values_ && with_workspace)
      if (auto it = workspace_values_->find(k); it != workspace_values_->end()) ws = &it->second;
    const std::vector<json>& answers = values_of(k);
    for (std::size_t i = 0; i < std::max(ws->size(), answers.size()); ++i) {
      if (i < ws->size()) offer(k, (*ws)[i]);
      if (i < answers.size()) offer(k, answers[i]);
    }
  }
  // Steered by what the values did (see the class comment), block by block (the kinds stay in
  // the parameter's order: a `symbolId` takes ids before names whatever the names did); equals
  // keep the order above.
  if (scores_.empty()) return out;
  blocks.push_back(out.size());
  std::vector<json> ranked;
  ranked.reserve(out.size());
  for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
    std::vector<std::pair<std::pair<int, std::uint32_t>, std::size_t>> order;
    for (std::size_t i = blocks[b]; i < blocks[b + 1]; ++i) order.emplace_back(rank(out[i]), i);
    std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
      return x.first.first != y.first.first ? x.first.first < y.first.first : x.first.second > y.first.second;
    });
    for (const auto& [r, i] : order) ranked.push_back(std::move(out[i]));
  }
  return ranked;
}

bool runs_sql(const json& tool) {
  if (!tool.is_object()) return false;
  for (const char* k : {"name", "description"}) {
    auto it = tool.find(k);
    if (it == tool.end() || !it->is_string()) continue;
    const std::string& text = it->get_ref<const std::string&>();
    if (ascii_lower(std::string_view(text).substr(0, 4096)).find("sql") != std::string::npos) return true;
  }
  return false;
}

namespace {

// The program table: a language, the names a tool or an enum gives it, and a one-line program
// that prints 42 and touches nothing.
struct Program {
  const char* language;
  std::initializer_list<const char*> names;
  const char* program;
};
const std::initializer_list<Program> kPrograms = {
    {"python", {"python", "python3", "py"}, "print(6 * 7)"},
    {"javascript", {"javascript", "js", "node", "nodejs"}, "console.log(6 * 7)"},
    {"typescript", {"typescript", "ts", "deno"}, "console.log(6 * 7)"},
    {"bash", {"bash", "sh", "shell", "zsh"}, "echo $((6 * 7))"},
    {"ruby", {"ruby", "rb"}, "puts 6 * 7"},
    {"r", {"r"}, "print(6 * 7)"},
    {"php", {"php"}, "<?php echo 6 * 7;"},
    {"lua", {"lua"}, "print(6 * 7)"},
    {"perl", {"perl"}, "print 6 * 7"},
};

bool code_word(const std::string& key) { return one_of(key, {"code", "script", "source", "sourcecode", "program"}); }
bool language_word(const std::string& key) {
  return one_of(key, {"language", "lang", "runtime", "interpreter", "languageid", "langid", "languagename"}) ||
         ends_with(key, "language");
}

}  // namespace

std::optional<std::string> program_for(const std::string& language) {
  const std::string l = ascii_lower(language);
  for (const auto& p : kPrograms)
    for (const char* n : p.names)
      if (l == n) return std::string(p.program);
  return std::nullopt;
}

std::string code_language(const json& tool) {
  if (!tool.is_object()) return "";
  std::string text;
  for (const char* k : {"name", "description"})
    if (auto it = tool.find(k); it != tool.end() && it->is_string())
      text += " " + ascii_lower(std::string_view(it->get_ref<const std::string&>()).substr(0, 4096)) + " ";
  // A language named as a word (the name's `_` and `-` count as spaces): "run_python", "Runs Python code".
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = ' ';
  for (const auto& p : kPrograms)
    for (const char* n : p.names)
      if (std::string(n).size() >= 4 && text.find(std::string(" ") + n + " ") != std::string::npos) return p.language;
  return "";
}

std::vector<json> Harvest::sql_statements() const {
  std::vector<json> out;
  std::set<std::string> tables;
  const auto sql_identifier = [](const std::string& s) {
    return !s.empty() && s.size() <= 64 && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; });
  };
  auto add_tables = [&](const std::vector<json>* values, std::size_t most) {
    if (!values) return;
    for (const auto& v : *values) {
      if (tables.size() >= 8 || most-- == 0) return;
      if (v.is_string() && sql_identifier(v.get<std::string>()) && tables.insert(v.get<std::string>()).second)
        out.emplace_back("SELECT * FROM " + v.get<std::string>());
    }
  };
  for (const char* key : {"table", "tables", "tablename", "tablenames"}) add_tables(values_for(key), 8);
  add_tables(&values_of(ValueKind::kName), 4);
  for (const char* s : {"SELECT name FROM sqlite_master WHERE type = 'table'",
                        "SELECT table_name FROM information_schema.tables", "SELECT 1"})
    out.emplace_back(s);
  return out;
}

std::vector<json> Harvest::regex_patterns(bool with_workspace) const {
  // Names a pattern can quote as they are: word characters only (no escaping to get wrong).
  std::vector<std::string> names;
  auto add_names = [&](const std::vector<json>& values) {
    for (const auto& v : values) {
      if (names.size() >= 4) return;
      if (!v.is_string()) continue;
      const std::string& n = v.get_ref<const std::string&>();
      if (n.size() < 2 || n.size() > 64 || std::isdigit(static_cast<unsigned char>(n[0])) ||
          !std::all_of(n.begin(), n.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
        continue;
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  };
  if (with_workspace && workspace_values_)
    if (auto it = workspace_values_->find(ValueKind::kName); it != workspace_values_->end()) add_names(it->second);
  add_names(values_of(ValueKind::kName));
  std::vector<json> out;
  for (std::size_t i = 0; i < names.size() && i < 2; ++i) {
    out.emplace_back("\\b" + names[i] + "\\b");
    out.emplace_back(names[i].substr(0, std::max<std::size_t>(3, names[i].size() / 2)) + "\\w*");
  }
  if (names.size() >= 2) out.emplace_back("(" + names[0] + "|" + names[1] + ")");
  out.emplace_back("(function|class|def|interface|struct|const)\\s+\\w+");
  return out;
}

bool described_as_regex(const json& property_schema) {
  if (!property_schema.is_object()) return false;
  auto it = property_schema.find("description");
  if (it == property_schema.end() || !it->is_string()) return false;
  std::string text = ascii_lower(std::string_view(it->get_ref<const std::string&>()).substr(0, 1024));
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = ' ';
  text = " " + text + " ";
  for (const char* w : {" regex ", " regexp ", " regexes ", " regular expression ", " regular expressions "})
    if (text.find(w) != std::string::npos) return true;
  return false;
}

void Harvest::absorb(const Harvest& other) {
  if (!workspace_ && other.workspace_) {
    workspace_ = other.workspace_;
    workspace_values_ = other.workspace_values_;
  }
  for (const auto& [key, values] : other.pool_)
    for (const auto& x : values) keep_name(key, x);
  for (const auto& [kind, values] : other.kinds_)
    for (const auto& x : values) keep_kind(kind, x, false);
  for (const auto& [value, s] : other.fresh_) {
    score(value, &Score::mentions, s.mentions);
    score(value, &Score::data, s.data);
    score(value, &Score::misses, s.misses);
  }
}

std::size_t Harvest::size() const {
  std::set<std::string> distinct;
  for (const auto& [k, v] : pool_)
    for (const auto& x : v) distinct.insert(x.dump());
  for (const auto& [k, v] : kinds_)
    for (const auto& x : v) distinct.insert(x.dump());
  return distinct.size();
}

// ---- phases --------------------------------------------------------------------------------

PhaseSizes phase_sizes(std::size_t calls, std::size_t boundary_available, bool admits_invalid) {
  PhaseSizes s;
  if (calls == 0) {
    s.boundary = std::min(boundary_available, kAutoBoundaryMax);
    s.random = kAutoRandom;
    s.invalid = admits_invalid ? kAutoInvalid : 0;
    return s;
  }
  s.invalid = admits_invalid ? calls / 5 : 0;
  const std::size_t random_min = calls / 4;
  s.boundary = std::min(boundary_available, calls - s.invalid - random_min);
  s.random = calls - s.invalid - s.boundary;
  return s;
}

// ---- shrinking plain values ------------------------------------------------------------------

/// The longest string whose shrinks include removeChunks' (shorter ones are halved first).
constexpr std::size_t kChunkedCodePoints = 64;

rc::Seq<json> shrink_json(const json& value) {
  if (value.is_object()) {
    std::vector<std::string> keys;
    for (auto it = value.begin(); it != value.end(); ++it) keys.push_back(it.key());
    auto removals = rc::seq::map(rc::seq::fromContainer(keys), [value](const std::string& k) {
      json smaller = value;
      smaller.erase(k);
      return smaller;
    });
    auto members = rc::seq::mapcat(rc::seq::fromContainer(keys), [value](const std::string& k) {
      return rc::seq::map(shrink_json(value[k]), [value, k](json v) {
        json smaller = value;
        smaller[k] = std::move(v);
        return smaller;
      });
    });
    return rc::seq::concat(std::move(removals), std::move(members));
  }
  if (value.is_array()) {
    std::vector<json> items(value.begin(), value.end());
    auto fewer = rc::seq::map(rc::shrink::removeChunks(items), [](const std::vector<json>& v) { return json(v); });
    auto each = rc::seq::map(rc::shrink::eachElement(items, &shrink_json), [](const std::vector<json>& v) { return json(v); });
    return rc::seq::concat(std::move(fewer), std::move(each));
  }
  if (value.is_string()) {
    auto cps = std::make_shared<const std::vector<std::string>>(split_code_points(value.get<std::string>()));
    // The string without each half, then each quarter, ... each 64th (made when looked at): the
    // steps delta debugging takes, so a failure that needs one part of a long string keeps it in
    // a few steps. removeChunks (every chunk removed, the largest first) only once the string is
    // short: on a long one its first thousands of candidates are all near-empty strings.
    std::vector<std::pair<std::size_t, std::size_t>> parts;  // (pieces, which one is left out)
    for (std::size_t pieces = 2; pieces <= 64 && pieces <= cps->size(); pieces *= 2)
      for (std::size_t i = 0; i < pieces; ++i) parts.emplace_back(pieces, i);
    auto halves = rc::seq::map(rc::seq::fromContainer(std::move(parts)), [cps](const std::pair<std::size_t, std::size_t>& p) {
      const std::size_t n = cps->size(), from = n * p.second / p.first, to = n * (p.second + 1) / p.first;
      std::vector<std::string> kept(cps->begin(), cps->begin() + static_cast<std::ptrdiff_t>(from));
      kept.insert(kept.end(), cps->begin() + static_cast<std::ptrdiff_t>(to), cps->end());
      return json(join(kept));
    });
    if (cps->size() > kChunkedCodePoints) return halves;
    return rc::seq::concat(std::move(halves), rc::seq::map(rc::shrink::removeChunks(*cps), [](const std::vector<std::string>& v) {
                             return json(join(v));
                           }));
  }
  if (value.is_boolean()) {
    return value.get<bool>() ? rc::seq::just(json(false)) : rc::Seq<json>();
  }
  if (value.is_number_integer()) {
    auto n = value.get<std::int64_t>();
    return rc::seq::map(rc::shrink::towards<std::int64_t>(n, 0), [](std::int64_t x) { return json(x); });
  }
  if (value.is_number_unsigned()) {
    auto n = value.get<std::uint64_t>();
    return rc::seq::map(rc::shrink::towards<std::uint64_t>(n, 0), [](std::uint64_t x) { return json(x); });
  }
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (!std::isfinite(d)) return rc::Seq<json>();
    return rc::seq::map(rc::shrink::real(d), [](double x) { return json(x); });
  }
  return rc::Seq<json>();
}

rc::Shrinkable<json> shrinkable_json(const json& value) { return rc::shrinkable::shrinkRecur(value, &shrink_json); }

// ---- ToolPlan ------------------------------------------------------------------------------

ToolPlan::ToolPlan(const json& input_schema, std::size_t calls, std::uint64_t seed, GenOptions options)
    : ToolPlan(std::make_shared<const json>(input_schema), calls, seed, std::move(options)) {}

ToolPlan::ToolPlan(std::shared_ptr<const json> input_schema, std::size_t calls, std::uint64_t seed, GenOptions options)
    : schema_(input_schema && input_schema->is_object() ? std::move(input_schema)
                                                        : std::make_shared<const json>(json{{"type", "object"}})),
      seed_(seed),
      options_(std::move(options)) {
  const json& schema = *schema_;
  // Compiled once (or given), used by the boundary and invalid phases too; the schema is shared
  // with every generator whose root it is.
  validator_ = options_.root_validator;
  if (!validator_)
    if (auto compiled = profile::SchemaValidator::compile_borrowed(schema))
      validator_ = std::make_shared<const profile::SchemaValidator>(std::move(*compiled));
  options_.root_validator = validator_;
  options_.root_schema = schema_;
  boundary_ = boundary_cases(schema, options_);
  GenOptions probe;  // the defaults, as always: only the compiled validator and the schema are shared
  probe.root_validator = validator_;
  probe.root_schema = schema_;
  bool invalid_possible = admits_invalid(schema, schema, probe);
  sizes_ = phase_sizes(calls, boundary_.size(), invalid_possible);
  valid_ = valid_value(schema, schema, options_);
  if (invalid_possible) invalid_ = invalid_value(schema, schema, options_);
  takes_code_ = programmed(boundary_.empty() ? json::object() : boundary_.front().arguments).has_value();
}

std::optional<json> ToolPlan::programmed(const json& args) const {
  if (!validator_ || !args.is_object()) return std::nullopt;
  const json& props = properties_of(*schema_);
  std::string code_key, language_key;
  for (auto it = props.begin(); it != props.end(); ++it) {
    const std::string key = harvest_key(it.key());
    if (code_word(key) && code_key.empty()) code_key = it.key();
    if (language_word(key) && language_key.empty()) language_key = it.key();
  }
  if (code_key.empty()) return std::nullopt;
  json out = args;
  std::optional<std::string> program;
  const json* lang = language_key.empty() ? nullptr : &props.at(language_key);
  if (lang && lang->is_object() && lang->contains("enum") && lang->at("enum").is_array()) {
    // The first value of the language's enum the table knows.
    for (const auto& v : lang->at("enum"))
      if (v.is_string() && (program = program_for(v.get<std::string>()))) {
        out[language_key] = v;
        break;
      }
  } else {
    // The tool's own language; a free-text language parameter with none named gets Python's.
    const std::string l = !options_.code_language.empty() ? options_.code_language : lang ? "python" : "";
    if (!l.empty()) program = program_for(l);
    if (program && lang) out[language_key] = l;
  }
  if (!program) return std::nullopt;
  out[code_key] = *program;
  if (!validator_->is_valid(out)) return std::nullopt;
  return out;
}

std::optional<PlannedCall> ToolPlan::next(const Harvest& harvest) {
  while (boundary_done_ < sizes_.boundary && boundary_done_ < boundary_.size()) {
    const CallCase& c = boundary_[boundary_done_++];
    // A boundary is tried on real data where the workspace has some: a bound of `maxResults`
    // checked with a path that does not exist tells nothing.
    if (std::optional<json> real = grounded(c.arguments, harvest)) {
      if (!sent_.insert(real->dump()).second) continue;
      return PlannedCall{Phase::kBoundary, c.label + " (workspace values)", shrinkable_json(*real)};
    }
    if (!sent_.insert(c.arguments.dump()).second) continue;
    return PlannedCall{Phase::kBoundary, c.label, shrinkable_json(c.arguments)};
  }
  while (!random_over_ && random_done_ < sizes_.random) {
    if (auto c = next_random(harvest)) return c;
  }
  while (invalid_done_ < sizes_.invalid) {
    if (auto c = next_invalid()) return c;
  }
  return std::nullopt;
}

std::optional<PlannedCall> ToolPlan::next_random(const Harvest& harvest) {
  const std::size_t index = random_done_++;
  // Sizes ramp up across the phase, like RapidCheck's own test loop: small values first.
  const std::size_t total = std::max<std::size_t>(sizes_.random, 1);
  const int size = static_cast<int>(std::min<std::size_t>(rc::kNominalSize, 5 + index * rc::kNominalSize / total));
  for (int attempt = 0; attempt < kDrawAttempts; ++attempt) {
    rc::Shrinkable<json> drawn = rc::shrinkable::just(json::object());
    json value;
    try {
      drawn = (*valid_)(rc::Random(mix(seed_, index * 16 + static_cast<std::size_t>(attempt))), size);
      value = drawn.value();  // valid_value keeps its value: this is a copy, not a second draw
    } catch (const rc::GenerationFailure& e) {
      random_over_ = true;  // the schema admits no value we can make
      cannot_generate_ = e.what();
      return std::nullopt;
    }
    std::string label = "random #" + std::to_string(index + 1);
    if (std::optional<json> with_harvest = harvested(value, index, harvest)) {
      label += " (harvested values)";
      value = std::move(*with_harvest);
      drawn = shrinkable_json(value);
    }
    if (!sent_.insert(value.dump()).second) continue;
    return PlannedCall{Phase::kRandom, std::move(label), std::move(drawn)};
  }
  return std::nullopt;
}

// `args` with `property` set to `value`, or to `[value]` when only an array fits; nullopt when
// neither keeps the call schema-valid.
namespace {
std::optional<json> with_value(const profile::SchemaValidator& v, const json& args, const std::string& property,
                               const json& value) {
  json trial = args;
  trial[property] = value;
  if (v.is_valid(trial)) return trial;
  trial[property] = json::array({value});
  if (v.is_valid(trial)) return trial;
  return std::nullopt;
}
}  // namespace

// Replaces, on about half of the random calls, each top-level property that is offered harvested
// values by one of them (kept only when the arguments stay schema-valid): the n-th such call takes
// the n-th offer, so the best matches come first and later calls reach further down the pools.
namespace {
// The string fields of objects inside a top-level array (`observations: [{entityName, contents}]`,
// `edits: [{path}]`) given the `k`-th harvested value offered for their name, each kept only when
// the whole call stays valid. Returns the fields filled ("observations[].entityName").
std::string fill_nested(json& args, const Harvest& harvest, std::size_t k, const profile::SchemaValidator& v,
                        bool workspace_values) {
  std::set<std::string> filled;
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (!it->is_array()) continue;
    for (std::size_t i = 0; i < it->size() && i < 8; ++i) {
      if (!(*it)[i].is_object()) continue;
      std::vector<std::string> keys;
      for (auto f = (*it)[i].begin(); f != (*it)[i].end(); ++f)
        if (f->is_string()) keys.push_back(f.key());
      for (const auto& key : keys) {
        const std::vector<json> offers = harvest.offers(key, workspace_values);
        if (offers.empty()) continue;
        json& field = (*it)[i][key];
        json saved = field;
        field = offers[(k + i) % offers.size()];
        if (v.is_valid(args)) filled.insert(it.key() + "[]." + key);
        else field = std::move(saved);
      }
    }
  }
  std::string out;
  for (const auto& f : filled) out += (out.empty() ? "" : ", ") + f;
  return out;
}
}  // namespace

namespace {
std::set<std::string> anchoring(const json& props);
}  // namespace

std::optional<json> ToolPlan::harvested(const json& args, std::size_t index, const Harvest& harvest) {
  // A tool that runs SQL is offered the catalogue queries even before any answer named a table.
  if (!validator_ || !args.is_object() || (harvest.empty() && !options_.sql && !takes_code_) ||
      mix(seed_ ^ 0x4841525645535400ull, index) % 2 == 0)
    return std::nullopt;
  json out = args;
  const json& props = properties_of(*schema_);
  bool any = false;
  const std::set<std::string> anchors = anchoring(props);
  for (auto it = props.begin(); it != props.end(); ++it) {
    const bool anchored = anchors.count(it.key()) > 0;
    std::vector<json> offers = harvest.offers(it.key(), options_.workspace_values);
    // A tool that runs SQL: its query is a statement over the tables its server named.
    if (options_.sql && query_word(harvest_key(it.key()))) {
      std::vector<json> sql = harvest.sql_statements();
      sql.insert(sql.end(), offers.begin(), offers.end());
      offers = std::move(sql);
    }
    // A `pattern` or `query` its description calls a regex: patterns first, then the names.
    if (query_word(harvest_key(it.key())) && !regex_word(harvest_key(it.key())) && described_as_regex(it.value())) {
      std::vector<json> rx = harvest.regex_patterns(options_.workspace_values);
      rx.insert(rx.end(), offers.begin(), offers.end());
      offers = std::move(rx);
    }
    // Each offer in turn until one fits the property's type, format, pattern and bounds.
    for (std::size_t k = 0; k < offers.size(); ++k) {
      if (auto trial = with_value(*validator_, out, it.key(), offers[((anchored ? 0 : harvested_calls_) + k) % offers.size()])) {
        out = std::move(*trial);
        any = true;
        break;
      }
    }
  }
  if (!fill_nested(out, harvest, harvested_calls_, *validator_, options_.workspace_values).empty()) any = true;
  if (any) ++harvested_calls_;
  // A tool that takes a position gets a real one, coherent across its parameters.
  if (auto pos = positioned(out, positioned_calls_, harvest)) {
    out = std::move(*pos);
    ++positioned_calls_;
  }
  // A tool that runs code gets a program that runs (a random string is only a syntax error).
  if (takes_code_)
    if (auto p = programmed(out)) out = std::move(*p);
  if (out == args) return std::nullopt;
  return out;
}

std::optional<json> ToolPlan::grounded(const json& args, const Harvest& harvest) const {
  if (!validator_ || !options_.workspace_values || !harvest.workspace() || boundary_.empty() || !args.is_object())
    return std::nullopt;
  const json& base = boundary_.front().arguments;
  json out = args;
  for (auto it = args.begin(); it != args.end(); ++it) {
    // Only a string the case shares with the base case: the property the case is about keeps its value.
    if (!it->is_string() || !base.is_object() || !base.contains(it.key()) || base[it.key()] != *it) continue;
    for (const json& offer : harvest.offers(it.key(), true))
      if (auto trial = with_value(*validator_, out, it.key(), offer)) {
        out = std::move(*trial);
        break;
      }
  }
  if (out == args) return std::nullopt;
  return out;
}

namespace {

// Where a position goes in a tool's arguments.
struct PositionSlots {
  std::vector<std::string> paths, uris, modules, names, lines, columns;
  std::vector<std::string> nested;  // object properties holding a line and a column (LSP's `position`)
  bool any_position() const { return !lines.empty() || !columns.empty() || !nested.empty(); }
};

PositionSlots position_slots(const json& props) {
  PositionSlots s;
  for (auto it = props.begin(); it != props.end(); ++it) {
    switch (position_part(it.key())) {
      case PositionPart::kLine: s.lines.push_back(it.key()); continue;
      case PositionPart::kColumn: s.columns.push_back(it.key()); continue;
      case PositionPart::kNone: break;
    }
    const std::vector<ValueKind> kinds = parameter_kinds(it.key());
    if (!kinds.empty()) {
      if (kinds.front() == ValueKind::kUri) s.uris.push_back(it.key());
      else if (kinds.front() == ValueKind::kPath) s.paths.push_back(it.key());
      else if (kinds.front() == ValueKind::kModule) s.modules.push_back(it.key());
      else if (std::find(kinds.begin(), kinds.end(), ValueKind::kName) != kinds.end()) s.names.push_back(it.key());
      continue;
    }
    const json& inner = properties_of(it.value());  // (a non-object has no `properties`)
    bool line = false, column = false;
    for (auto in = inner.begin(); in != inner.end(); ++in) {
      line = line || position_part(in.key()) == PositionPart::kLine;
      column = column || position_part(in.key()) == PositionPart::kColumn;
    }
    if (line && column) s.nested.push_back(it.key());
  }
  return s;
}

// The parameters of a tool that takes a path and a root to resolve it against: the root keeps
// its first offer (the workspace's) while the paths go round, since a file paired with another
// directory is only a miss.
std::set<std::string> anchoring(const json& props) {
  const PositionSlots slots = position_slots(props);
  std::set<std::string> out;
  if (slots.paths.empty() && slots.uris.empty()) return out;
  for (auto it = props.begin(); it != props.end(); ++it)
    if (anchor_word(harvest_key(it.key()))) out.insert(it.key());
  return out;
}

}  // namespace

std::optional<json> ToolPlan::positioned(const json& args, std::size_t k, const Harvest& harvest) const {
  const Workspace* ws = options_.workspace_values ? harvest.workspace() : nullptr;
  if (!validator_ || !ws || ws->positions.empty() || !args.is_object()) return std::nullopt;
  const PositionSlots slots = position_slots(properties_of(*schema_));
  const bool located = !slots.paths.empty() || !slots.uris.empty() || !slots.modules.empty();
  if (!slots.any_position() && !(located && !slots.names.empty())) return std::nullopt;
  // A module and a name: where the name is declared (a module that only uses it has no declaration of it).
  std::vector<const WorkspacePosition*> where;
  for (const auto& q : ws->positions)
    if (slots.modules.empty() || (q.declaration && module_of(q.path))) where.push_back(&q);
  if (where.empty()) return std::nullopt;
  const std::size_t n = where.size();
  const WorkspacePosition& p = *where[k % n];
  // 1-based and 0-based in turn (a position seen again on the next round takes the other base);
  // relative and absolute paths in turn, two calls each.
  const bool zero_first = (k + k / n) % 2 == 1;
  const bool absolute = (k / 2) % 2 == 1;
  auto fill = [&](bool zero, std::size_t& placed) {
    json out = args;
    auto set = [&](const std::string& key, const json& v) {
      if (auto t = with_value(*validator_, out, key, v)) {
        out = std::move(*t);
        return true;
      }
      return false;
    };
    const std::string rel = p.path, abs = ws->absolute(p.path);
    for (const auto& key : slots.paths)
      if (!set(key, absolute ? abs : rel)) set(key, absolute ? rel : abs);
    for (const auto& key : slots.uris) set(key, ws->uri(p.path));
    // The file as a module (typescript-mcp's get_type_in_module): from the root, or from its own
    // directory when the call names the file too (a specifier resolves against the file).
    if (auto m = module_of(p.path, !slots.paths.empty() || !slots.uris.empty()))
      for (const auto& key : slots.modules) set(key, *m);
    // A name the schema calls a regex is every other time the name as a whole word (`\bNAME\b`):
    // still a match in the file, and a pattern the tool must read as one.
    const bool word = !p.name.empty() && std::all_of(p.name.begin(), p.name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    for (const auto& key : slots.names)
      set(key, word && k % 2 == 1 && described_as_regex(properties_of(*schema_)[key]) ? "\\b" + p.name + "\\b" : p.name);
    const auto line = static_cast<std::int64_t>(zero ? p.line - 1 : p.line);
    const auto column = static_cast<std::int64_t>(zero ? p.column - 1 : p.column);
    for (const auto& key : slots.lines) placed += set(key, line) ? 1 : 0;
    for (const auto& key : slots.columns) placed += set(key, column) ? 1 : 0;
    for (const auto& key : slots.nested) {
      json inner = out.contains(key) && out[key].is_object() ? out[key] : json::object();
      const json& props = properties_of(properties_of(*schema_)[key]);
      for (auto it = props.begin(); it != props.end(); ++it) {
        if (position_part(it.key()) == PositionPart::kLine) inner[it.key()] = line;
        if (position_part(it.key()) == PositionPart::kColumn) inner[it.key()] = column;
      }
      placed += set(key, inner) ? 2 : 0;
    }
    return out;
  };
  const std::size_t wanted = slots.lines.size() + slots.columns.size() + 2 * slots.nested.size();
  std::size_t placed = 0;
  json out = fill(zero_first, placed);
  if (placed < wanted) {
    // The schema refuses this base (a `minimum: 1` line): the other one.
    std::size_t other = 0;
    json again = fill(!zero_first, other);
    if (other > placed) out = std::move(again);
  }
  if (out == args) return std::nullopt;
  return out;
}

std::optional<PlannedCall> ToolPlan::fresh(json args, Phase phase, std::string label) {
  if (!args.is_object() || (validator_ && !validator_->is_valid(args))) return std::nullopt;
  if (!sent_.insert(args.dump()).second) return std::nullopt;
  return PlannedCall{phase, std::move(label), shrinkable_json(args)};
}

std::vector<PlannedCall> ToolPlan::second_pass(const Harvest& harvest, std::size_t n) {
  std::vector<PlannedCall> out;
  if (!validator_ || (harvest.empty() && !takes_code_)) return out;
  const json base = boundary_.empty() ? json::object() : boundary_.front().arguments;
  const json& props = properties_of(*schema_);
  std::map<std::string, std::vector<json>> offers;
  std::size_t deepest = 0;
  for (auto it = props.begin(); it != props.end(); ++it) {
    auto o = harvest.offers(it.key(), options_.workspace_values);
    if (o.empty()) continue;
    deepest = std::max(deepest, o.size());
    offers.emplace(it.key(), std::move(o));
  }
  if (takes_code_) deepest = std::max<std::size_t>(deepest, 1);  // its program, at least
  const std::set<std::string> anchors = anchoring(props);
  // A tool whose only harvestable fields are inside objects in arrays (fill_nested) is tried too.
  if (deepest == 0 && base.is_object())
    for (auto it = base.begin(); it != base.end(); ++it)
      if (it->is_array() && !it->empty() && it->front().is_object()) deepest = n;
  for (std::size_t k = 0; k < deepest && out.size() < n; ++k) {
    json args = base;
    std::string used;
    for (const auto& [name, values] : offers) {
      // The k-th offer of each parameter (its last when it has fewer), kept when the call stays valid.
      if (auto trial = with_value(*validator_, args, name, values[anchors.count(name) ? 0 : std::min(k, values.size() - 1)])) {
        args = std::move(*trial);
        used += (used.empty() ? "" : ", ") + name;
      }
    }
    if (auto pos = positioned(args, k, harvest)) {
      args = std::move(*pos);
      used += std::string(used.empty() ? "" : ", ") + "a workspace position";
    }
    if (std::string nested = fill_nested(args, harvest, k, *validator_, options_.workspace_values); !nested.empty())
      used += (used.empty() ? "" : ", ") + nested;
    if (auto p = takes_code_ ? programmed(args) : std::nullopt) {
      args = std::move(*p);
      used += std::string(used.empty() ? "" : ", ") + "a one-line program";
    }
    if (used.empty()) continue;
    if (auto c = fresh(std::move(args), Phase::kRandom, "second pass #" + std::to_string(out.size() + 1) +
                                                            " (harvested " + used + ")"))
      out.push_back(std::move(*c));
  }
  return out;
}

std::vector<PlannedCall> ToolPlan::driven(const json& args, const std::string& after) {
  std::vector<PlannedCall> out;
  if (!args.is_object()) return out;
  const json& props = properties_of(*schema_);
  for (auto it = props.begin(); it != props.end(); ++it) {
    if (!budget_parameter(it.key()) || !it.value().is_object()) continue;
    const json& ps = it.value();
    const std::string type = ps.contains("type") && ps["type"].is_string() ? ps["type"].get<std::string>() : "";
    if (type != "integer" && type != "number") continue;
    double lo = 1;
    if (ps.contains("minimum") && ps["minimum"].is_number()) lo = std::max(lo, ps["minimum"].get<double>());
    if (ps.contains("exclusiveMinimum") && ps["exclusiveMinimum"].is_number())
      lo = std::max(lo, std::floor(ps["exclusiveMinimum"].get<double>()) + 1);
    if (!std::isfinite(lo) || lo > 1e12) continue;
    // And at its maximum, when the schema has one: the largest answer the tool lets an agent
    // ask for must still fit the hosts that read it (H-SIZE).
    std::optional<double> hi;
    if (ps.contains("maximum") && ps["maximum"].is_number()) hi = std::floor(ps["maximum"].get<double>());
    if (ps.contains("exclusiveMaximum") && ps["exclusiveMaximum"].is_number())
      hi = std::min(hi.value_or(HUGE_VAL), std::ceil(ps["exclusiveMaximum"].get<double>()) - 1);
    std::vector<double> values = {lo, lo * 4};
    if (hi && std::isfinite(*hi) && *hi > lo * 4 && *hi <= 1e9) values.push_back(*hi);
    for (double v : values) {
      json a = args;
      a[it.key()] = static_cast<std::int64_t>(std::ceil(v));
      if (a == args) continue;
      if (auto c = fresh(std::move(a), Phase::kRandom,
                         "'" + it.key() + "' driven to " + std::to_string(static_cast<std::int64_t>(std::ceil(v))) +
                             " (" + after + ")"))
        out.push_back(std::move(*c));
    }
  }
  return out;
}

std::optional<PlannedCall> ToolPlan::next_invalid() {
  const std::size_t index = invalid_done_++;
  for (int attempt = 0; attempt < kDrawAttempts; ++attempt) {
    try {
      auto drawn = (*invalid_)(rc::Random(mix(seed_ ^ 0x494e56414c4944ull, index * 16 + static_cast<std::size_t>(attempt))), 30);
      InvalidCase c = drawn.value();  // invalid_value keeps its value: a copy, not a second draw
      if (!sent_.insert(c.value.dump()).second) continue;
      auto args = cached(std::move(c.value),
                         rc::shrinkable::map(std::move(drawn), [](const InvalidCase& ic) { return ic.value; }));
      return PlannedCall{Phase::kInvalid, std::move(c.label), std::move(args)};
    } catch (const rc::GenerationFailure&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace ctxo::gen
