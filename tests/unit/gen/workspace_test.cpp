// SPDX-License-Identifier: MIT
// The workspace scan (--root/--cwd as a source of values) and what the plan makes of it: real
// paths in every form, declared names from Universal Ctags and from the built-in tokenizer,
// positions with exact UTF-16 columns (wide lines first), the skip rules, the symlink refusal,
// and calls whose file, line and column name one real identifier.
#include "gen/workspace.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "gen/plan.h"

namespace ctxo::gen {
namespace {

namespace fs = std::filesystem;

// A fresh directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ctxo-ws-XXXXXX").string();
    path = fs::canonical(::mkdtemp(tmpl.data()));
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel, std::ios::binary) << text;
  }
};

// The tree most tests scan: two source files with wide text before a symbol, and one of each
// thing the scan must leave out.
struct Tree : TempDir {
  TempDir outside;  // a directory next to the root: nothing of it may be offered
  Tree() {
    write("src/app.ts",
          "export function runTask(value: number): number {\n"
          "  return value * 2;\n"
          "}\n"
          "const label = \"\xF0\x9F\x9A\x80 go\"; runTask(1);\n"           // 🚀: 4 UTF-8 bytes, 2 UTF-16 units
          "const \xE5\x90\x8D\xE5\x89\x8D = \"\xE6\xA4\x9C\xE7\xB4\xA2\"; runTask(2);\n"  // 名前 = "検索"
          "export class Scheduler {\n"
          "  start() { return runTask(3); }\n"
          "}\n");
    write("src/lib/util.py", "def format_name(text):\n    return text.strip()\n\nclass Shouter:\n    pass\n");
    write("src/jobs.ts", "export const job01 = () => runTask(1);\nexport const job02 = () => runTask(2);\n");
    write("README.md", "# The runTask demo\n");
    write("node_modules/dep/index.js", "export function hidden_in_deps() {}\n");
    write(".git/config", "[core]\n");
    write("build-release/out.js", "function built_output() {}\n");
    write("dist/bundle.js", "function bundled() {}\n");
    write("target/x.rs", "fn compiled_target() {}\n");
    write(".venv/lib.py", "def venv_only(): pass\n");
    write(".cache/c.ts", "function cached_thing() {}\n");
    write(".env", "SECRET=1\n");
    write("blob.bin", std::string("ab\0cd", 5));
    write("latin1.txt", "caf\xE9\n");  // not UTF-8: binary
    write("big.txt", std::string(3000, 'x'));
    outside.write("secret.ts", "export function outsideSecret() {}\n");
    fs::create_symlink(outside.path / "secret.ts", path / "escape.ts");
    fs::create_directory_symlink(outside.path, path / "escape_dir");
    fs::create_symlink(path / "src" / "jobs.ts", path / "jobs_link.ts");  // inside: kept
  }
};

WorkspaceOptions small(bool ctags) {
  WorkspaceOptions o;
  o.use_ctags = ctags;
  o.max_file_bytes = 2000;  // big.txt (3000 bytes) is too large
  return o;
}

std::vector<std::string> strings(const std::vector<json>& v) {
  std::vector<std::string> out;
  for (const auto& x : v) out.push_back(x.get<std::string>());
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST(Workspace, OffersRelativeAbsoluteUriAndDirectoryPaths) {
  Tree t;
  auto ws = scan_workspace(t.path.string(), small(false));
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->root, t.path.generic_string());
  std::set<std::string> files(ws->files.begin(), ws->files.end());
  EXPECT_EQ(files, (std::set<std::string>{"README.md", "jobs_link.ts", "src/app.ts", "src/jobs.ts", "src/lib/util.py"}));
  EXPECT_EQ(ws->dirs, (std::vector<std::string>{"src", "src/lib"}));
  EXPECT_EQ(ws->files.front(), "src/app.ts") << "the file with wide text before a symbol comes first";

  const auto paths = strings(ws->values_of(ValueKind::kPath));
  EXPECT_TRUE(contains(paths, "src/app.ts"));
  EXPECT_TRUE(contains(paths, (t.path / "src/app.ts").string()));
  EXPECT_TRUE(contains(paths, "src/lib"));
  EXPECT_TRUE(contains(paths, (t.path / "src").string()));
  EXPECT_EQ(paths.front(), "src/app.ts");
  const auto uris = strings(ws->values_of(ValueKind::kUri));
  EXPECT_TRUE(contains(uris, "file://" + (t.path / "src/app.ts").string()));
  EXPECT_TRUE(contains(uris, "file://" + (t.path / "src/lib").string()));
  EXPECT_TRUE(ws->values_of(ValueKind::kId).empty());
  EXPECT_TRUE(ws->values_of(ValueKind::kCursor).empty());
}

TEST(Workspace, UrisArePercentEncoded) {
  TempDir d;
  d.write("my dir/a#1.ts", "export function spaced() {}\n");
  auto ws = scan_workspace(d.path.string(), small(false));
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->uri("my dir/a#1.ts"), "file://" + d.path.string() + "/my%20dir/a%231.ts");
}

TEST(Workspace, NeverOffersAnythingOutsideTheRoot) {
  Tree t;
  for (bool ctags : {false, true}) {
    auto ws = scan_workspace(t.path.string(), small(ctags));
    ASSERT_TRUE(ws);
    EXPECT_FALSE(contains(ws->files, "escape.ts")) << "a link to a file outside the root";
    for (const auto& f : ws->files) EXPECT_EQ(f.rfind("escape_dir", 0), std::string::npos) << f;
    EXPECT_FALSE(contains(ws->identifiers, "outsideSecret"));
    for (ValueKind k : {ValueKind::kPath, ValueKind::kUri, ValueKind::kName, ValueKind::kSnippet})
      for (const auto& v : strings(ws->values_of(k))) {
        EXPECT_EQ(v.find(".."), std::string::npos) << v;
        EXPECT_EQ(v.find(t.outside.path.string()), std::string::npos) << v;
        if (!v.empty() && v[0] == '/') {
          EXPECT_EQ(v.rfind(t.path.string() + "/", 0), 0u) << v;
        }
      }
  }
  EXPECT_FALSE(scan_workspace((t.path / "README.md").string())) << "a file is no workspace";
  EXPECT_FALSE(scan_workspace((t.path / "no-such-dir").string()));
}

TEST(Workspace, SkipsIgnoredDirectoriesHiddenBinaryAndLargeFiles) {
  Tree t;
  auto ws = scan_workspace(t.path.string(), small(false));
  ASSERT_TRUE(ws);
  for (const auto& f : ws->files)
    for (const char* banned : {"node_modules", ".git", "build-release", "dist/", "target/", ".venv", ".cache", ".env",
                               "blob.bin", "latin1.txt", "big.txt"})
      EXPECT_EQ(f.find(banned), std::string::npos) << f;
  for (const char* name : {"hidden_in_deps", "built_output", "bundled", "compiled_target", "venv_only", "cached_thing"})
    EXPECT_FALSE(contains(ws->identifiers, name)) << name;
  EXPECT_GE(ws->skipped, 10u);
  // Bounded: the first files of the sorted walk.
  WorkspaceOptions two = small(false);
  two.max_files = 2;
  auto few = scan_workspace(t.path.string(), two);
  ASSERT_TRUE(few);
  EXPECT_EQ(std::set<std::string>(few->files.begin(), few->files.end()),
            (std::set<std::string>{"README.md", "jobs_link.ts"}));
}

void expect_declared(const Workspace& ws) {
  for (const char* name : {"runTask", "Scheduler", "start", "format_name", "Shouter", "job01", "job02", "label"})
    EXPECT_TRUE(contains(ws.declared, name)) << name << " in " << json(ws.declared).dump();
  EXPECT_EQ(ws.declared.front(), "runTask") << "the hub (written in three files) first: " << json(ws.declared).dump();
  EXPECT_FALSE(contains(ws.declared, "return"));
  EXPECT_FALSE(contains(ws.declared, "number"));
  // The identifiers start with the declared names; frequent words follow ("value", twice in app.ts).
  ASSERT_GE(ws.identifiers.size(), ws.declared.size());
  EXPECT_TRUE(std::equal(ws.declared.begin(), ws.declared.end(), ws.identifiers.begin()));
  EXPECT_TRUE(contains(ws.identifiers, "value"));
  EXPECT_FALSE(contains(ws.identifiers, "const")) << "keywords are not identifiers";
}

TEST(Workspace, TheBuiltInTokenizerFindsDeclaredNames) {
  Tree t;
  auto ws = scan_workspace(t.path.string(), small(false));
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->source, "tokenizer");
  expect_declared(*ws);
  EXPECT_EQ(ws->summary(), std::to_string(ws->files.size()) + " files, " + std::to_string(ws->identifiers.size()) +
                               " identifiers (tokenizer)");
}

TEST(Workspace, UniversalCtagsFindsDeclaredNames) {
  if (::access("/usr/bin/ctags", X_OK) != 0 && std::system("ctags --version >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "Universal Ctags is not installed (scripts/install-deps.sh installs it)";
  Tree t;
  auto ws = scan_workspace(t.path.string(), small(true));
  ASSERT_TRUE(ws);
  ASSERT_EQ(ws->source, "ctags");
  expect_declared(*ws);
}

TEST(Workspace, AMissingOrBrokenCtagsFallsBackToTheTokenizer) {
  Tree t;
  WorkspaceOptions o = small(true);
  o.ctags_program = "ctxo-no-such-ctags";
  auto ws = scan_workspace(t.path.string(), o);
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->source, "tokenizer");
  expect_declared(*ws);
  o.ctags_program = "/bin/false";  // runs, fails
  ws = scan_workspace(t.path.string(), o);
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->source, "tokenizer");
  o.ctags_program = "/bin/echo";  // runs, says something that is not ctags' JSON
  ws = scan_workspace(t.path.string(), o);
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->source, "tokenizer");
  o.ctags_program = "/usr/bin/yes";  // says too much: killed at max_ctags_output
  o.max_ctags_output = 4096;
  ws = scan_workspace(t.path.string(), o);
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->source, "tokenizer");
}

// A ctags that does not end is killed at its time limit (and reaped); the tokenizer takes over.
TEST(Workspace, ACtagsPastItsTimeLimitFallsBackToTheTokenizer) {
  Tree t;
  const std::filesystem::path slow =
      std::filesystem::temp_directory_path() / ("ctxo-slow-ctags-" + std::to_string(::getpid()) + ".sh");
  {
    std::ofstream f(slow);
    f << "#!/bin/sh\nsleep 30\n";
  }
  std::filesystem::permissions(slow, std::filesystem::perms::owner_all);
  WorkspaceOptions o = small(true);
  o.ctags_program = slow.string();
  o.ctags_timeout = std::chrono::milliseconds(300);
  const auto t0 = std::chrono::steady_clock::now();
  auto ws = scan_workspace(t.path.string(), o);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  std::filesystem::remove(slow);
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->source, "tokenizer");
  expect_declared(*ws);
}

TEST(Workspace, PositionsOnWideLinesComeFirstWithExactUtf16Columns) {
  Tree t;
  for (bool ctags : {false, true}) {
    auto ws = scan_workspace(t.path.string(), small(ctags));
    ASSERT_TRUE(ws);
    ASSERT_GE(ws->positions.size(), 4u);
    // `const label = "🚀 go"; runTask(1);`: runTask at UTF-16 column 24 (26 in UTF-8 bytes, 23 in code points).
    const auto& first = ws->positions[0];
    EXPECT_TRUE(first.wide);
    std::set<std::tuple<std::string, std::size_t, std::size_t>> wide;
    for (const auto& p : ws->positions)
      if (p.wide) wide.emplace(p.name, p.line, p.column);
    EXPECT_TRUE(wide.count({"runTask", 4, 24})) << "the emoji line";
    EXPECT_TRUE(wide.count({"runTask", 5, 18})) << "the CJK line: 名前 and 検索 are one unit each";
    // Every wide position precedes every other one.
    bool narrow_seen = false;
    for (const auto& p : ws->positions) {
      if (!p.wide) narrow_seen = true;
      else EXPECT_FALSE(narrow_seen) << p.name << " " << p.line;
    }
    // Declarations are marked: runTask on line 1 of src/app.ts, column 17.
    bool decl = false;
    for (const auto& p : ws->positions)
      decl = decl || (p.path == "src/app.ts" && p.name == "runTask" && p.line == 1 && p.column == 17 && p.declaration);
    EXPECT_TRUE(decl);
  }
}

TEST(Workspace, SnippetsAreShortPhrasesOfTheFiles) {
  Tree t;
  auto ws = scan_workspace(t.path.string(), small(false));
  ASSERT_TRUE(ws);
  EXPECT_TRUE(contains(ws->snippets, "function runTask")) << json(ws->snippets).dump();
  for (const auto& s : ws->snippets) EXPECT_LE(s.size(), 64u);
  const auto offered = strings(ws->values_of(ValueKind::kSnippet));
  EXPECT_EQ(offered.front(), "runTask");
}

TEST(Workspace, TheScanIsDeterministic) {
  Tree t;
  auto a = scan_workspace(t.path.string(), small(false));
  auto b = scan_workspace(t.path.string(), small(false));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->files, b->files);
  EXPECT_EQ(a->identifiers, b->identifiers);
  EXPECT_EQ(a->snippets, b->snippets);
  ASSERT_EQ(a->positions.size(), b->positions.size());
  for (std::size_t i = 0; i < a->positions.size(); ++i) {
    EXPECT_EQ(a->positions[i].path, b->positions[i].path);
    EXPECT_EQ(a->positions[i].line, b->positions[i].line);
    EXPECT_EQ(a->positions[i].column, b->positions[i].column);
  }
}

// ---- what the plan makes of it ----

const json kLsp = json::parse(R"({
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "minLength": 1},
    "line": {"type": "integer", "minimum": 0},
    "character": {"type": "integer", "minimum": 0}
  },
  "required": ["file_path", "line", "character"]
})");

// The line `line` (1-based) of a file.
std::string line_of(const fs::path& file, std::size_t line) {
  std::ifstream in(file);
  std::string s;
  for (std::size_t i = 0; i < line && std::getline(in, s); ++i) {
  }
  return s;
}

// The UTF-8 bytes of `line` from UTF-16 column `col0` (0-based).
std::string from_utf16_column(const std::string& line, std::size_t col0) {
  std::size_t units = 0, i = 0;
  while (i < line.size() && units < col0) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    const std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    units += n == 4 ? 2 : 1;
    i += n;
  }
  return line.substr(i);
}

// A regex parameter gets patterns over the workspace's own names, each of which matches a line of
// a workspace file (checked with std::regex's ECMAScript grammar: the syntax the patterns keep to
// is the one every common engine shares); a `pattern` described as a regex gets them first.
TEST(WorkspacePlan, RegexParametersGetPatternsThatMatchTheWorkspace) {
  Tree t;
  Harvest h;
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(t.path.string(), small(false))));
  std::string all;
  for (const auto& f : h.workspace()->files) {
    std::ifstream in(t.path / f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    all += text.str() + "\n";
  }
  const auto offered = strings(h.offers("regex"));
  ASSERT_GE(offered.size(), 5u);
  std::size_t patterns = 0;
  for (const auto& p : offered) {
    if (p.find_first_of("\\(") == std::string::npos) continue;  // the names themselves come after
    ++patterns;
    EXPECT_TRUE(std::regex_search(all, std::regex(p))) << p << " matches nothing in the workspace";
  }
  EXPECT_GE(patterns, 5u) << offered.size();
  EXPECT_EQ(offered.front().rfind("\\b", 0), 0u) << offered.front();
  EXPECT_TRUE(contains(offered, "(function|class|def|interface|struct|const)\\s+\\w+"));
  // Classes of the workspace's own non-ASCII characters (the rocket first: astral ones are where an
  // engine without Unicode mode splits a character), each matching the workspace's text.
  EXPECT_TRUE(contains(offered, "[\xF0\x9F\x9A\x80]")) << ::testing::PrintToString(offered);
  for (const auto& p : offered)
    if (p.size() > 2 && p.front() == '[' && p.back() == ']' && static_cast<unsigned char>(p[1]) >= 0x80) {
      EXPECT_NE(all.find(p.substr(1, p.size() - 2).substr(0, static_cast<unsigned char>(p[1]) >= 0xF0 ? 4 : static_cast<unsigned char>(p[1]) >= 0xE0 ? 3 : 2)),
                std::string::npos) << p;
    }
  EXPECT_EQ(parameter_kinds("searchRegex").front(), ValueKind::kRegex);

  EXPECT_TRUE(described_as_regex(json{{"type", "string"}, {"description", "The search pattern (regex by default)"}}));
  EXPECT_TRUE(described_as_regex(json{{"description", "A regular expression to match"}}));
  EXPECT_FALSE(described_as_regex(json{{"description", "A glob such as *.ts"}}));
  EXPECT_FALSE(described_as_regex(json{{"description", "Plain text to find"}}));
  const json rg = json::parse(R"J({"type":"object","properties":{
    "pattern":{"type":"string","description":"The search pattern (regex by default)"}},"required":["pattern"]})J");
  ToolPlan plan(rg, 0, 3);
  std::size_t regexes = 0;
  while (auto c = plan.next(h))
    if (c->label.find("harvested") != std::string::npos &&
        c->arguments.value().value("pattern", "").find_first_of("\\(") != std::string::npos)
      ++regexes;
  EXPECT_GT(regexes, 0u) << "a pattern described as a regex is given regexes";
}

// A project root or working directory parameter (lsmcp's `root`: relative file paths resolve
// against it) gets the workspace root first, then "." and its directories; never a file.
TEST(WorkspacePlan, DirectoryParametersGetTheWorkspaceRootFirst) {
  Tree t;
  Harvest h;
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(t.path.string(), small(false))));
  for (const char* p : {"root", "projectRoot", "workspaceFolder", "cwd", "baseDir", "directory", "folder"}) {
    SCOPED_TRACE(p);
    EXPECT_EQ(parameter_kinds(p).front(), ValueKind::kDirectory);
    const auto offered = strings(h.offers(p));
    ASSERT_GE(offered.size(), 3u);
    EXPECT_EQ(offered[0], t.path.string());
    EXPECT_EQ(offered[1], ".");
    EXPECT_TRUE(fs::is_directory(t.path / offered[2])) << offered[2];
  }
  EXPECT_EQ(parameter_kinds("repo"), std::vector<ValueKind>{}) << "owner/name, often: no directory";
  EXPECT_EQ(parameter_kinds("filePath"), std::vector<ValueKind>{ValueKind::kPath});
}

TEST(WorkspacePlan, PositionParametersNameARealIdentifierInTheChosenFile) {
  Tree t;
  Harvest h;
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(t.path.string(), small(false))));
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h.size(), 0u) << "size() counts the answers' values only";
  ToolPlan plan(kLsp, 0, 3);
  std::size_t positioned = 0, zero_based = 0, one_based = 0, absolute = 0;
  while (auto c = plan.next(h)) {
    const json a = c->arguments.value();
    if (c->phase != Phase::kRandom || c->label.find("harvested") == std::string::npos) continue;
    ++positioned;
    const std::string file = a["file_path"].get<std::string>();
    const fs::path full = file[0] == '/' ? fs::path(file) : t.path / file;
    if (file[0] == '/') ++absolute;
    ASSERT_TRUE(fs::exists(full)) << a.dump();
    const auto line = a["line"].get<std::size_t>(), col = a["character"].get<std::size_t>();
    // 1-based (line, column) or 0-based (line - 1, column - 1): an identifier starts there.
    const std::string at1 = line >= 1 && col >= 1 ? from_utf16_column(line_of(full, line), col - 1) : "";
    const std::string at0 = from_utf16_column(line_of(full, line + 1), col);
    auto starts_ident = [](const std::string& s) {
      return !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_' ||
                            static_cast<unsigned char>(s[0]) >= 0x80);
    };
    const bool ok1 = starts_ident(at1) && (line_of(full, line).size() > 0);
    const bool ok0 = starts_ident(at0);
    EXPECT_TRUE(ok1 || ok0) << a.dump();
    // The declared-identifier check, exactly: the text at the position begins with a declared name.
    bool named = false;
    for (const auto& name : h.workspace()->declared)
      named = named || (ok1 && at1.rfind(name, 0) == 0) || (ok0 && at0.rfind(name, 0) == 0);
    EXPECT_TRUE(named) << a.dump();
    if (ok1 && !ok0) ++one_based;
    if (ok0 && !ok1) ++zero_based;
  }
  EXPECT_GE(positioned, 6u);
  EXPECT_GT(one_based + zero_based, 0u);
  EXPECT_GT(zero_based, 0u) << "0-based positions are tried";
  EXPECT_GT(one_based, 0u) << "1-based positions are tried";
  EXPECT_GT(absolute, 0u) << "absolute paths are tried";
}

// typescript-mcp's get_type_at_symbol: `filePath` is resolved against `root`. Each call that names
// a workspace file names the workspace root with it (a file paired with another directory is only
// "ENOENT"), while the files go round; and a `line` that may be a number or a string still gets
// a real position.
TEST(WorkspacePlan, ARootStaysOnTheWorkspaceWhileThePathsGoRound) {
  Tree t;
  Harvest h;
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(t.path.string(), small(false))));
  const json schema = json::parse(R"J({"type":"object","properties":{
    "root":{"type":"string","description":"Root directory for resolving relative paths"},
    "filePath":{"type":"string","description":"File path (relative to root)"},
    "line":{"type":["number","string"],"description":"Line number (1-based) or string to match in the line"},
    "symbolName":{"type":"string"},"symbolIndex":{"type":"number"}},
    "required":["root","filePath","line","symbolName"],"additionalProperties":false})J");
  ToolPlan plan(schema, 0, 40);
  std::set<std::string> files;
  std::size_t named = 0;
  while (auto c = plan.next(h)) {
    const json a = c->arguments.value();
    if (c->label.find("harvested") == std::string::npos || !a["filePath"].is_string()) continue;
    const std::string file = a["filePath"].get<std::string>();
    std::error_code ec;
    if (file.empty() || !fs::is_regular_file(file[0] == '/' ? fs::path(file) : t.path / file, ec)) continue;
    ++named;
    files.insert(file);
    EXPECT_EQ(a.value("root", ""), t.path.string()) << a.dump();
  }
  EXPECT_GE(named, 5u);
  EXPECT_GE(files.size(), 3u) << "the paths go round";
}

// Module parameters (typescript-mcp's get_module_symbols `moduleName`) get specifiers: each
// JavaScript/TypeScript file's from the root, each Python file's dotted name, then what the
// workspace's imports name, imported by most files first.
TEST(WorkspacePlan, ModuleParametersGetTheSpecifiersOfTheWorkspace) {
  TempDir d;
  d.write("src/util.ts", "export function log(m: string) {}\n");
  d.write("src/a.ts", "import { log } from \"./util\";\nimport fs from 'node:fs';\n");
  d.write("src/b.ts", "import { log } from './util';\nconst x = require(\"lodash\");\n");
  d.write("pkg/mod.py", "from pkg.helpers import thing\nimport os\n");
  d.write("README.md", "import this from \"nowhere\"? prose\n");
  Harvest h;
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(d.path.string(), small(false))));
  for (const char* p : {"module", "moduleName", "modulePath", "specifier", "modules"})
    EXPECT_EQ(parameter_kinds(p).front(), ValueKind::kModule) << p;
  const auto offered = strings(h.offers("moduleName"));
  auto at = [&](const std::string& v) {
    return static_cast<std::size_t>(std::find(offered.begin(), offered.end(), v) - offered.begin());
  };
  for (const char* v : {"./src/util", "./src/a", "./src/b", "pkg.mod", "./util", "node:fs", "lodash", "pkg.helpers", "os"})
    EXPECT_LT(at(v), offered.size()) << v;
  EXPECT_LT(at("./src/a"), at("./util")) << "the files' own first";
  EXPECT_LT(at("./util"), at("lodash")) << "imported by two files before one";
  EXPECT_EQ(at("./README"), offered.size()) << "not a module";
  // A module and a name together (get_type_in_module): the name is declared in that module's
  // file; with the file named too, the module is the file's own specifier from its directory.
  d.write("src/shapes.ts", "export class Circle {}\nexport function area(r: number) { return r; }\n");
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(d.path.string(), small(false))));
  for (const bool with_file : {false, true}) {
    SCOPED_TRACE(with_file);
    json schema = json::parse(R"({"type":"object","properties":{"moduleName":{"type":"string"},
      "typeName":{"type":"string"}},"required":["moduleName","typeName"]})");
    if (with_file) schema["properties"]["filePath"] = {{"type", "string"}};
    ToolPlan plan(schema, 0, 30);
    std::size_t paired = 0;
    while (auto c = plan.next(h)) {
      const json a = c->arguments.value();
      if (c->label.find("harvested") == std::string::npos) continue;
      const std::string m = a.value("moduleName", ""), name = a.value("typeName", "");
      if (m.rfind("./", 0) != 0) continue;
      const std::string file = with_file ? a.value("filePath", "") : m.substr(2) + ".ts";
      if (with_file) {
        EXPECT_EQ("./" + fs::path(file).stem().string(), m) << a.dump();
      }
      std::ifstream in(d.path / file);
      std::stringstream text;
      text << in.rdbuf();
      EXPECT_TRUE(std::regex_search(text.str(), std::regex("(function|class|const) " + name + "\\b"))) << a.dump();
      ++paired;
    }
    EXPECT_GE(paired, 3u);
  }
}

// A tool that may write (GenOptions::workspace_values off, as the engine sets it for a tool that
// is not a reading tool) is never handed a real workspace file: a delete must not get src/app.ts.
TEST(WorkspacePlan, AWriterIsNeverOfferedTheWorkspace) {
  Tree t;
  Harvest h;
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(t.path.string(), small(false))));
  GenOptions writer;
  writer.workspace_values = false;
  ToolPlan plan(kLsp, 0, 3, writer);
  std::size_t calls = 0;
  while (auto c = plan.next(h)) {
    ++calls;
    const json a = c->arguments.value();
    if (!a.contains("file_path") || !a["file_path"].is_string()) continue;
    const std::string file = a["file_path"].get<std::string>();
    std::error_code ec;  // generated names can be too long for the file system: not a file either
    const fs::path full = !file.empty() && file[0] == '/' ? fs::path(file) : t.path / file;
    EXPECT_FALSE(!file.empty() && fs::is_regular_file(full, ec)) << a.dump();
  }
  EXPECT_GT(calls, 10u);
  EXPECT_TRUE(h.offers("file_path", false).empty());
  EXPECT_FALSE(h.offers("file_path").empty());
}

// The boundary phase tries each bound on real data: the properties a case is not about take a
// workspace value (a file that exists), the one it is about keeps its boundary value.
TEST(WorkspacePlan, BoundaryCasesRunOnRealValues) {
  Tree t;
  const json schema = json::parse(R"({"type":"object","properties":{"path":{"type":"string","minLength":1,"maxLength":200},
    "maxResults":{"type":"integer","minimum":1,"maximum":100}},"required":["path"]})");
  auto boundary = [&](const Harvest& h, const GenOptions& o) {
    ToolPlan plan(schema, 0, 1, o);
    std::vector<PlannedCall> out;
    while (auto c = plan.next(h))
      if (c->phase == Phase::kBoundary) out.push_back(std::move(*c));
    return out;
  };
  Harvest h;
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(t.path.string(), small(false))));
  std::size_t real = 0, about_path = 0;
  for (const auto& c : boundary(h, GenOptions{})) {
    const json a = c.arguments.value();
    const std::string path = a["path"].get<std::string>();
    std::error_code ec;
    const bool exists = !path.empty() && fs::exists(path[0] == '/' ? fs::path(path) : t.path / path, ec);
    if (c.label.find("(workspace values)") != std::string::npos) {
      EXPECT_TRUE(exists) << c.label << " " << a.dump();
      ++real;
    } else if (!exists) {
      ++about_path;  // a case about `path` itself (its longest value, ...)
    }
  }
  EXPECT_GE(real, 3u) << "the required-only case and the bounds of maxResults, on a real file";
  EXPECT_GT(about_path, 0u) << "the cases about path keep their own values";
  // No workspace, or a tool that may write: the cases as the schema gives them.
  GenOptions writer;
  writer.workspace_values = false;
  for (const auto& c : boundary(h, writer)) EXPECT_EQ(c.label.find("workspace values"), std::string::npos) << c.label;
  for (const auto& c : boundary(Harvest{}, GenOptions{})) EXPECT_EQ(c.label.find("workspace values"), std::string::npos) << c.label;
}

// A glob parameter (`filePattern`, `glob`, `include`) is offered globs that match workspace
// files, the most common extension first; a `pattern` or `query` is not.
TEST(WorkspacePlan, GlobParametersGetGlobsThatMatchFiles) {
  Tree t;
  Harvest h;
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(t.path.string(), small(false))));
  for (const char* p : {"filePattern", "glob", "include", "fileGlob"}) {
    SCOPED_TRACE(p);
    EXPECT_EQ(parameter_kinds(p), std::vector<ValueKind>{ValueKind::kGlob});
    const auto offers = h.offers(p);
    ASSERT_FALSE(offers.empty());
    const std::string first = offers.front().get<std::string>();
    ASSERT_EQ(first.rfind("*.", 0), 0u) << first;
    bool matches = false;
    const std::string ext = first.substr(1);  // ".ts"
    for (const auto& f : h.workspace()->files)
      matches = matches || (f.size() > ext.size() && f.compare(f.size() - ext.size(), std::string::npos, ext) == 0);
    EXPECT_TRUE(matches) << first;
  }
  // A file type parameter is offered the extensions themselves.
  EXPECT_EQ(parameter_kinds("fileType"), std::vector<ValueKind>{ValueKind::kFileType});
  ASSERT_FALSE(h.offers("fileType").empty());
  EXPECT_EQ("*." + h.offers("fileType").front().get<std::string>(), h.offers("glob").front().get<std::string>());
  EXPECT_TRUE(parameter_kinds("type").empty()) << "a bare `type` is anything";
  EXPECT_NE(parameter_kinds("pattern"), std::vector<ValueKind>{ValueKind::kGlob});
  EXPECT_NE(parameter_kinds("query"), std::vector<ValueKind>{ValueKind::kGlob});
}

TEST(WorkspacePlan, AFileAndSymbolPairIsCoherentAndTheFirstPositionIsWide) {
  Tree t;
  Harvest h;
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(t.path.string(), small(false))));
  const json schema = json::parse(R"({"type":"object","properties":{"file_path":{"type":"string"},
    "symbol":{"type":"string"}},"required":["file_path","symbol"]})");
  ToolPlan plan(schema, 0, 1);
  auto pass = plan.second_pass(h, 4);
  ASSERT_FALSE(pass.empty());
  const json a = pass[0].arguments.value();
  EXPECT_EQ(a["file_path"], "src/app.ts") << a.dump();
  EXPECT_EQ(a["symbol"], "runTask") << a.dump();
  for (const auto& c : pass) {
    const json x = c.arguments.value();
    std::string file = x["file_path"].get<std::string>();
    if (file[0] == '/') file = file.substr(t.path.string().size() + 1);
    std::ifstream in(t.path / file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(x["symbol"].get<std::string>()), std::string::npos) << x.dump();
  }
}

TEST(WorkspacePlan, OffersMixWorkspaceAndAnswerValuesKindByKind) {
  Tree t;
  Harvest h;
  h.take(json::parse(R"({"items":[{"name":"fromAnswer","file":"lib/answer.ts"}],"symbol":"ownName"})"));
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(t.path.string(), small(false))));
  const auto offers = strings(h.offers("symbol"));
  ASSERT_GE(offers.size(), 4u);
  EXPECT_EQ(offers[0], "ownName") << "values under the parameter's own name first";
  EXPECT_EQ(offers[1], "runTask") << "then the workspace's and the answers' names in turn";
  EXPECT_EQ(offers[2], "fromAnswer");
  const auto files = strings(h.offers("file"));
  EXPECT_EQ(files[0], "lib/answer.ts") << "own name";
  EXPECT_EQ(files[1], "src/app.ts");
  const auto query = strings(h.offers("query"));
  EXPECT_TRUE(contains(query, "function runTask")) << "a query takes snippets after names";
  // A copy (one per tool with --jobs) and an absorbing harvest share the workspace.
  Harvest other;
  other.absorb(h);
  EXPECT_EQ(other.workspace(), h.workspace());
}

// ---- the git history (workspace_git.cpp) ----

bool sh(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; }

// What a command printed, its last newline dropped.
std::string captured(const std::string& command) {
  std::string out;
  if (FILE* f = ::popen(command.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, f)) out += buf;
    ::pclose(f);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// A git repository in a fresh directory: "first" adds src/app.ts and README.md; "second" changes
// src/app.ts and README.md and adds src/new.ts; then the tag v1 and the branch feature.
struct GitRepo : TempDir {
  bool ok = false;
  GitRepo() {
    write("src/app.ts", "export function runTask() {}\n");
    write("README.md", "# demo\n");
    ok = git("init -q -b main") && git("add -A") && git("commit -q -m first");
    write("src/app.ts", "export function runTask() { return 1; }\n");
    write("src/new.ts", "export const fresh = 1;\n");
    write("README.md", "# demo 2\n");
    ok = ok && git("add -A") && git("commit -q -m second") && git("tag v1") && git("branch feature");
  }
  std::string prefix() const {
    return "git -C '" + path.string() + "' -c user.name=t -c user.email=t@t.invalid -c commit.gpgsign=false ";
  }
  bool git(const std::string& args) const { return sh(prefix() + args); }
  std::string rev(const std::string& what) const { return captured(prefix() + "rev-parse " + what); }
};

#define REQUIRE_GIT_REPO(repo)                                                   \
  do {                                                                           \
    if (!sh("git --version")) GTEST_SKIP() << "git is not installed";            \
    ASSERT_TRUE((repo).ok) << "could not make the test repository";              \
  } while (0)

TEST(WorkspaceGit, ReadsCommitsBranchesTagsAndTheFilesEachCommitChanged) {
  GitRepo r;
  REQUIRE_GIT_REPO(r);
  auto ws = scan_workspace(r.path.string(), small(false));
  ASSERT_TRUE(ws);
  ASSERT_EQ(ws->commits.size(), 2u);
  const WorkspaceCommit& last = ws->commits[0];
  EXPECT_EQ(last.id, r.rev("HEAD"));
  EXPECT_EQ(last.short_id, r.rev("--short HEAD"));
  EXPECT_EQ(last.subject, "second");
  EXPECT_EQ(last.files, (std::vector<std::string>{"README.md", "src/app.ts", "src/new.ts"}));
  EXPECT_EQ(ws->commits[1].id, r.rev("HEAD~1"));
  EXPECT_EQ(ws->commits[1].files, (std::vector<std::string>{"README.md", "src/app.ts"})) << "a first commit's files too";
  EXPECT_EQ(std::set<std::string>(ws->branches.begin(), ws->branches.end()), (std::set<std::string>{"feature", "main"}));
  EXPECT_EQ(ws->tags, std::vector<std::string>{"v1"});
  const auto revisions = strings(ws->values_of(ValueKind::kRevision));
  ASSERT_GE(revisions.size(), 9u);
  EXPECT_EQ(revisions[0], last.short_id) << "the newest commit's short id first";
  EXPECT_EQ(revisions[1], ws->commits[1].short_id);
  for (const std::string& v : {last.id, std::string("feature"), std::string("main"), std::string("v1"),
                               std::string("HEAD"), std::string("HEAD~1")})
    EXPECT_TRUE(contains(revisions, v)) << v;
  EXPECT_NE(ws->summary().find(", 2 commits (git)"), std::string::npos) << ws->summary();
}

// A root below the repository's top: the changed files are relative to the root, those outside it
// dropped; the history is the repository's.
TEST(WorkspaceGit, ARootInsideTheRepositoryKeepsOnlyItsOwnFiles) {
  GitRepo r;
  REQUIRE_GIT_REPO(r);
  auto ws = scan_workspace((r.path / "src").string(), small(false));
  ASSERT_TRUE(ws);
  ASSERT_EQ(ws->commits.size(), 2u);
  EXPECT_EQ(ws->commits[0].files, (std::vector<std::string>{"app.ts", "new.ts"}));
  EXPECT_EQ(ws->commits[1].files, std::vector<std::string>{"app.ts"});
}

TEST(WorkspaceGit, NoRepositoryNoGitOrNoCommitGivesNoHistory) {
  Tree t;  // a fake .git/config is no repository
  if (sh("git --version") && !sh("git -C '" + t.path.string() + "' rev-parse --git-dir")) {
    auto ws = scan_workspace(t.path.string(), small(false));
    ASSERT_TRUE(ws);
    EXPECT_TRUE(ws->commits.empty());
    EXPECT_TRUE(ws->branches.empty());
    EXPECT_TRUE(ws->values_of(ValueKind::kRevision).empty());
    EXPECT_EQ(ws->summary().find("git"), std::string::npos);
  }
  GitRepo r;
  REQUIRE_GIT_REPO(r);
  WorkspaceOptions off = small(false);
  off.use_git = false;
  EXPECT_TRUE(scan_workspace(r.path.string(), off)->commits.empty()) << "use_git = false";
  WorkspaceOptions missing = small(false);
  missing.git_program = "ctxo-no-such-git";
  EXPECT_TRUE(scan_workspace(r.path.string(), missing)->commits.empty()) << "no git on PATH";
  TempDir empty;
  ASSERT_TRUE(sh("git -C '" + empty.path.string() + "' init -q"));
  auto none = scan_workspace(empty.path.string(), small(false));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->commits.empty()) << "a repository without a commit";
  EXPECT_TRUE(none->tags.empty());
}

// The project's own config may name programs (an fsmonitor, hooks, a pager): reading its history
// runs none of them. The trap is armed (`git status` with the repository's config sets it off).
TEST(WorkspaceGit, ReadingTheHistoryRunsNoProgramTheRepositoryNames) {
  GitRepo r;
  REQUIRE_GIT_REPO(r);
  TempDir side;
  const fs::path marker = side.path / "ran", trap = side.path / "trap.sh";
  {
    std::ofstream f(trap);
    f << "#!/bin/sh\necho \"$0 $*\" >> '" << marker.string() << "'\nexit 1\n";
  }
  fs::permissions(trap, fs::perms::owner_all);
  fs::create_directories(side.path / "hooks");
  for (const char* hook : {"post-checkout", "post-commit", "reference-transaction", "post-index-change", "pre-auto-gc"}) {
    fs::copy_file(trap, side.path / "hooks" / hook);
    fs::copy_file(trap, r.path / ".git" / "hooks" / hook, fs::copy_options::overwrite_existing);
  }
  ASSERT_TRUE(r.git("config core.fsmonitor '" + trap.string() + "'"));
  ASSERT_TRUE(r.git("config core.hooksPath '" + (side.path / "hooks").string() + "'"));
  ASSERT_TRUE(r.git("config core.pager '" + trap.string() + "'"));
  sh("git -C '" + r.path.string() + "' status");
  ASSERT_TRUE(fs::exists(marker)) << "the trap is not armed: the test proves nothing";
  fs::remove(marker);
  auto ws = scan_workspace(r.path.string(), small(false));
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->commits.size(), 2u) << "the history is still read";
  EXPECT_FALSE(fs::exists(marker)) << captured("cat '" + marker.string() + "'");
  EXPECT_FALSE(fs::exists(r.path / ".git" / "index.lock"));
}

TEST(WorkspaceGit, AGitPastItsTimeLimitGivesNoHistory) {
  GitRepo r;
  REQUIRE_GIT_REPO(r);
  TempDir side;
  const fs::path slow = side.path / "git";
  {
    std::ofstream f(slow);
    f << "#!/bin/sh\nsleep 30\n";
  }
  fs::permissions(slow, fs::perms::owner_all);
  WorkspaceOptions o = small(false);
  o.git_program = slow.string();
  o.git_timeout = std::chrono::milliseconds(300);
  const auto t0 = std::chrono::steady_clock::now();
  auto ws = scan_workspace(r.path.string(), o);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  ASSERT_TRUE(ws);
  EXPECT_TRUE(ws->commits.empty());
}

// mcp-server-git's tools: the repository path is the root, the revisions the project's commits,
// branches and tags, and git_blame's {path, rev} a commit with a file it changed.
TEST(WorkspacePlan, AHistoryToolGetsTheProjectAndItsCommits) {
  GitRepo r;
  REQUIRE_GIT_REPO(r);
  Harvest h;
  h.set_workspace(std::make_shared<const Workspace>(*scan_workspace(r.path.string(), small(false))));
  const Workspace& ws = *h.workspace();
  const auto revisions = strings(ws.values_of(ValueKind::kRevision));
  EXPECT_EQ(strings(h.offers("revision")), revisions) << "git_show's revision: the history, nothing else";
  EXPECT_EQ(strings(h.offers("repo_path"))[0], r.path.string());
  const auto branches = strings(h.offers("branch_name"));
  ASSERT_GE(branches.size(), 2u);
  EXPECT_EQ(std::set<std::string>(branches.begin(), branches.begin() + 2), (std::set<std::string>{"feature", "main"}))
      << "a branch parameter: the branches, no commit id (then names: a branch name is a name too)";
  for (const auto& b : branches) EXPECT_FALSE(contains(revisions, b) && b != "feature" && b != "main") << b;
  EXPECT_EQ(strings(h.offers("tag")), std::vector<std::string>{"v1"});
  const auto changed_by = [&](const std::string& rev, const std::string& file) {
    for (const auto& c : ws.commits)
      if ((c.id == rev || c.short_id == rev) && contains(c.files, file)) return true;
    return false;
  };
  const json blame = json::parse(R"({"type":"object","properties":{"repo_path":{"type":"string"},
    "path":{"type":"string"},"rev":{"type":"string"}},"required":["repo_path","path"]})");
  const json diff = json::parse(R"({"type":"object","properties":{"repo_path":{"type":"string"},
    "target":{"type":"string"}},"required":["repo_path","target"]})");
  std::size_t pairs = 0, targets = 0, harvested = 0;
  for (const json* schema : {&blame, &diff}) {
    ToolPlan plan(*schema, 0, 7);
    while (auto c = plan.next(h)) {
      if (c->phase != Phase::kRandom || c->label.find("harvested") == std::string::npos) continue;
      const json a = c->arguments.value();
      ++harvested;
      EXPECT_EQ(a.value("repo_path", ""), r.path.string()) << a.dump();
      if (schema == &diff) targets += contains(revisions, a.value("target", "")) ? 1 : 0;
      if (schema == &blame) pairs += changed_by(a.value("rev", ""), a.value("path", "")) ? 1 : 0;
    }
  }
  EXPECT_GE(harvested, 8u);
  EXPECT_GE(pairs, 3u) << "git_blame gets a commit and a file it changed";
  EXPECT_GE(targets, 3u) << "git_diff's target (a name word) is a revision in a tool that takes a repository";
}

TEST(WorkspacePlan, PositionParts) {
  EXPECT_EQ(position_part("line"), PositionPart::kLine);
  EXPECT_EQ(position_part("lineNumber"), PositionPart::kLine);
  EXPECT_EQ(position_part("start_line"), PositionPart::kLine);
  EXPECT_EQ(position_part("character"), PositionPart::kColumn);
  EXPECT_EQ(position_part("col"), PositionPart::kColumn);
  EXPECT_EQ(position_part("column"), PositionPart::kColumn);
  EXPECT_EQ(position_part("offset"), PositionPart::kNone);
  EXPECT_EQ(position_part("limit"), PositionPart::kNone);
}

}  // namespace
}  // namespace ctxo::gen
