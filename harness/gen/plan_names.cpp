// SPDX-License-Identifier: MIT
// What a name says: the kinds of value a property takes or an answer's key holds (parameter_kinds,
// answer_kind), positions and budgets, and what a tool's name or description says (runs SQL, runs
// code in a language, a regex parameter), with the one-line program for each known language.
#include "gen/plan.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string_view>

#include "core/text.h"
#include "gen/plan_internal.h"

namespace ctxo::gen {

using namespace detail;

std::string harvest_key(const std::string& property) {
  std::string k;
  for (char c : property) {
    if (c == '_' || c == '-') continue;
    k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return k;
}

namespace detail {

bool ends_with(const std::string& s, std::string_view suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

bool one_of(const std::string& k, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return k == w; });
}

bool anchor_word(const std::string& k) {
  return one_of(k, {"root", "rootdir", "rootpath", "projectroot", "projectdir", "projectpath", "workspaceroot",
                    "workspacefolder", "workspacedir", "workspacepath", "cwd", "workdir", "workingdir",
                    "workingdirectory", "basedir", "basepath", "repopath", "repositorypath", "repodir", "repositorydir",
                    "repository"}) ||
         ends_with(k, "root");
}

bool query_word(const std::string& k) {
  return one_of(k, {"query", "q", "pattern", "search", "searchterm", "term", "keyword", "keywords", "needle", "regex",
                    "prefix", "text"}) ||
         ends_with(k, "query") || ends_with(k, "pattern");
}

bool regex_word(const std::string& k) {
  return one_of(k, {"regex", "regexp", "regularexpression", "regexpattern", "searchregex", "rx"}) ||
         ends_with(k, "regex") || ends_with(k, "regexp");
}

}  // namespace detail

namespace {

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

/// A git repository's work tree (mcp-server-git's `repo_path`): the workspace root, never a file
/// (`repo` alone is left out: GitHub's servers take `owner/name` under it).
bool repository_word(const std::string& k) {
  return one_of(k, {"repopath", "repositorypath", "repository", "gitrepo", "gitrepopath", "repodirectory",
                    "repositorydirectory"});
}

/// What git resolves to a commit: `revision`, `rev`, `ref`, `commit`, `sha`, `branch`, `tag`,
/// `commitish`, `treeish`, the two ends of a range (`from`/`to`, `base`/`head`, `since`/`until`,
/// `fromRef`, `baseRef`). Not `commitId` (an id word: servers with their own ids take it) nor
/// `target` (a name word; a git tool's `target` is given revisions by ToolPlan::historied).
bool revision_word(const std::string& k) {
  return one_of(k, {"revision", "rev", "ref", "commit", "sha", "commitsha", "hash", "commithash", "commitish",
                    "treeish", "branch", "tag", "since", "until", "from", "to", "fromref", "toref", "base", "head",
                    "baseref", "headref", "fromrev", "torev", "fromrevision", "torevision", "fromcommit", "tocommit",
                    "basecommit", "headcommit", "basesha", "headsha", "basebranch", "headbranch", "sourcebranch",
                    "targetbranch"});
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

/// A file glob: `glob`, `fileGlob`, `filePattern`, `include`, `pathPattern` (before query_word,
/// which takes any `*pattern`).
bool glob_word(const std::string& k) {
  return one_of(k, {"glob", "globpattern", "filepattern", "filespattern", "include", "includepattern", "pathpattern",
                    "filefilter", "filemask"}) ||
         ends_with(k, "glob");
}

bool sql_word(const std::string& k) { return one_of(k, {"sql", "sqlquery", "sqlstatement", "statement", "querysql"}); }

bool file_type_word(const std::string& k) {
  // Not a bare `type`: that can be anything.
  return one_of(k, {"filetype", "filetypes", "extension", "extensions", "ext", "fileextension"});
}

bool cursor_word(const std::string& k) {
  return k.find("cursor") != std::string::npos || k == "pagetoken" || k == "nextpagetoken";
}

bool uri_word(const std::string& k) { return k == "uri" || ends_with(k, "uri"); }

}  // namespace

std::optional<ValueKind> answer_kind(const std::string& key) {
  const std::string k = harvest_key(key);
  // (Harvest::walk pools these only when the value looks like a commit id.)
  if (one_of(k, {"sha", "commit", "commitsha", "hash", "commithash", "revision", "rev"})) return ValueKind::kRevision;
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
  if (repository_word(k)) return {ValueKind::kDirectory};
  if (revision_word(k)) return {ValueKind::kRevision};
  // A branch's or a tag's name is a revision first, still a name (what it took before).
  if (one_of(k, {"branchname", "tagname"})) return {ValueKind::kRevision, ValueKind::kName, ValueKind::kId};
  // A target is most often a symbol; in a git repository it may be a revision (git_diff's).
  if (k == "target") return {ValueKind::kName, ValueKind::kId, ValueKind::kRevision};
  if (directory_word(k)) return {ValueKind::kDirectory, ValueKind::kPath};
  if (path_word(k)) return {ValueKind::kPath};
  if (name_word(k)) return {ValueKind::kName, ValueKind::kId};
  if (query_word(k)) return {ValueKind::kName, ValueKind::kSnippet};
  return {};
}

bool repository_parameter(const std::string& property) { return repository_word(harvest_key(property)); }

RevisionSort revision_sort(const std::string& property) {
  std::string k = harvest_key(property);
  if (k.size() > 2 && k.back() == 's') k.pop_back();  // `tags`, `branchNames`
  if (ends_with(k, "branch") || ends_with(k, "branchname")) return RevisionSort::kBranch;
  if (k == "tag" || k == "tagname") return RevisionSort::kTag;
  return RevisionSort::kAny;
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

}  // namespace

namespace detail {

bool code_word(const std::string& key) { return one_of(key, {"code", "script", "source", "sourcecode", "program"}); }
bool language_word(const std::string& key) {
  return one_of(key, {"language", "lang", "runtime", "interpreter", "languageid", "langid", "languagename"}) ||
         ends_with(key, "language");
}

}  // namespace detail

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

}  // namespace ctxo::gen
