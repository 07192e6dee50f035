// SPDX-License-Identifier: MIT
// Safe by default (issue 40): a desktop-commander-shaped server (tests/npm/fixtures/safety,
// official SDK) with kill, shell, write and delete tools and no annotations, run with default
// flags from inside a git project. In the sandbox every tool is called and nothing outside it
// changes: the project (git status), a $HOME, a process of ours a pid -1 kill would reach.
// Without one, nothing dangerous is called and the run says so. A read-only-annotated tool that
// writes is P-ANNOTATION. And a real npm server with write tools runs in the sandbox with the
// project unchanged.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "../support/npm.h"
#include "../support/run_harness.h"
#include "../support/sandbox.h"

namespace ctxo::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string desktop() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/safety/desktop.mjs"; }


fs::path scratch(const std::string& name) {
  const fs::path d = fs::path(CTXO_BINARY_DIR) / "test-tmp" / ("safety-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Every file under `dir` (.git included) with its bytes: what "unchanged" is compared on.
std::map<std::string, std::string> contents(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    if (it->is_symlink()) out[rel] = "-> " + fs::read_symlink(it->path()).string();
    else if (it->is_directory()) out[rel + "/"] = "";
    else {
      std::ifstream in(it->path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      out[rel] = ss.str();
    }
  }
  return out;
}

std::string sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  ::pclose(p);
  return out;
}

// A small git project with source files, as a user's would be, and a $HOME with the server's state.
struct Project {
  fs::path dir, home;
  explicit Project(const std::string& name) {
    dir = scratch(name + "-project");
    home = scratch(name + "-home");
    fs::create_directories(dir / "src");
    std::ofstream(dir / "README.md") << "# demo\n\nA project.\n";
    std::ofstream(dir / "package.json") << "{\"name\": \"demo\", \"version\": \"1.0.0\"}\n";
    std::ofstream(dir / "src" / "index.ts") << "export function greet(name: string) {\n  return `hi ${name} 👋`;\n}\n";
    const std::string q = "'" + dir.string() + "'";
    EXPECT_EQ(std::system(("git -C " + q + " init -q && git -C " + q + " add -A && git -C " + q +
                           " -c user.name=t -c user.email=t@t commit -qm init")
                              .c_str()),
              0);
    std::ofstream(home / ".desktop-fixture.json") << "{\"theme\": \"dark\"}\n";
  }
  std::string git_status() const { return sh("git -C '" + dir.string() + "' status --porcelain"); }
};

// A process of ours outside the run: a kill the sandbox let out would reach it.
struct Sentinel {
  pid_t pid = -1;
  Sentinel() {
    pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/sleep", "sleep", "300", static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  bool alive() const {
    int st = 0;
    return ::waitpid(pid, &st, WNOHANG) == 0;
  }
  ~Sentinel() {
    ::kill(pid, SIGKILL);
    int st = 0;
    ::waitpid(pid, &st, 0);
  }
};

const json* row(const HarnessRun& r, const std::string& tool) {
  for (const auto& t : r.report["tools"])
    if (t["name"] == tool) return &t;
  return nullptr;
}

std::size_t change_count(const json& t) {
  if (!t.contains("changes")) return 0;
  const json& c = t["changes"]["counts"];
  return c.value("created", 0u) + c.value("changed", 0u) + c.value("deleted", 0u);
}

std::vector<std::string> annotation_tools(const HarnessRun& r) {
  std::vector<std::string> out;
  for (const auto& f : r.report["findings"])
    if (f["invariant"] == "P-ANNOTATION") out.push_back(f.value("tool", std::string()));
  return out;
}

TEST(Safety, InTheSandboxEveryToolIsCalledAndNothingOutsideChanges) {
  REQUIRE_NPM(sdk_dir());
  REQUIRE_SANDBOX();
  Project p("sandboxed");
  const auto before = contents(p.dir);
  const auto home_before = contents(p.home);
  Sentinel sentinel;
  // Case files go where a run from inside the project puts them by default (.ctxo-conform/cases):
  // git ignores them, so `git status` stays clean.
  const std::string md = (scratch("sandboxed-md") / "summary.md").string();
  auto r = run_harness({"--seed", "1", "--cases", (p.dir / ".ctxo-conform" / "cases").string(), "--cwd", p.dir.string(),
                        "--root", p.dir.string(), "--env", "HOME=" + p.home.string(), "--env", "PEEK_WRITES=1",
                        "--markdown", md, "--", "node", desktop()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["sandbox"]["used"].get<bool>()) << r.report["sandbox"].dump();
  EXPECT_NE(r.out.find("sandbox: bubblewrap"), std::string::npos) << "the banner names the sandbox\n" << r.out;
  // Every tool was called, the dangerous ones included.
  for (const char* tool : {"kill_process", "execute_command", "write_file", "delete_file", "save_note", "read_file",
                           "list_directory", "peek_stats", "get_config", "list_processes"}) {
    const json* t = row(r, tool);
    ASSERT_NE(t, nullptr) << tool;
    EXPECT_GT((*t)["calls"].get<int>(), 0) << tool << " was not called: " << t->dump();
    EXPECT_FALSE(t->contains("skipped_for_safety")) << tool;
  }
  // What the writers did was observed in the copy (the summary shows the count)...
  EXPECT_GT(change_count(*row(r, "write_file")), 0u) << row(r, "write_file")->dump();
  std::ifstream mdin(md);
  const std::string summary((std::istreambuf_iterator<char>(mdin)), std::istreambuf_iterator<char>());
  EXPECT_NE(summary.find(std::to_string(change_count(*row(r, "write_file"))) + " file change(s)"), std::string::npos)
      << summary;
  // ...and only there: the project, its git state, the home and our process are as they were.
  EXPECT_EQ(p.git_status(), "") << "case files and the server's writes leave git status clean";
  EXPECT_TRUE(fs::exists(p.dir / ".ctxo-conform" / ".gitignore"));
  EXPECT_FALSE(r.report["findings"].empty());
  // The P-ANNOTATION case replays in a sandbox too, and says so; its printed replay line runs the
  // server under bwrap.
  for (const auto& f : r.report["findings"]) {
    if (f["invariant"] != "P-ANNOTATION") continue;
    EXPECT_NE(f["replay"].get<std::string>().find("bwrap --ro-bind / /"), std::string::npos) << f["replay"];
    ASSERT_TRUE(f.contains("case_file")) << f.dump(2);
    HarnessRun again = run_harness({"replay", f["case_file"].get<std::string>()}, false);
    EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
    EXPECT_NE(again.out.find("sandbox: bubblewrap"), std::string::npos) << again.out;
    EXPECT_NE(again.out.find("still fails: P-ANNOTATION on peek_stats"), std::string::npos) << again.out;
  }
  fs::remove_all(p.dir / ".ctxo-conform");  // the run's own case files: the rest is byte for byte
  EXPECT_EQ(contents(p.dir), before);
  EXPECT_EQ(contents(p.home), home_before);
  EXPECT_TRUE(sentinel.alive()) << "a kill from inside the sandbox reached a process outside it";
  // The server's state under $HOME is still read.
  EXPECT_GT((*row(r, "get_config"))["coverage"]["data"].get<int>(), 0) << row(r, "get_config")->dump();
  // The read-only-annotated tool that writes its cache: P-ANNOTATION, on it alone.
  EXPECT_EQ(annotation_tools(r), std::vector<std::string>({"peek_stats"})) << r.out;
  EXPECT_EQ(r.exit_code, 1);
  for (const auto& f : r.report["findings"])
    if (f["invariant"] == "P-ANNOTATION") {
      EXPECT_NE(f["diagnosis"].get<std::string>().find(".peek-cache.json"), std::string::npos) << f["diagnosis"];
      EXPECT_EQ(f["severity"], "error");
    }
}

TEST(Safety, TheConformantTwinHasNoAnnotationFinding) {
  REQUIRE_NPM(sdk_dir());
  REQUIRE_SANDBOX();
  Project p("twin");
  const auto before = contents(p.dir);
  auto r = run_harness({"--seed", "1", "--no-cases", "--cwd", p.dir.string(), "--env", "HOME=" + p.home.string(),
                        "--env", "PEEK_WRITES=0", "--", "node", desktop()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(annotation_tools(r).empty()) << r.out;
  EXPECT_EQ((*row(r, "peek_stats"))["outcomes"].value("P-ANNOTATION", std::string()), "passed")
      << row(r, "peek_stats")->dump();
  EXPECT_EQ(change_count(*row(r, "peek_stats")), 0u);
  EXPECT_EQ(contents(p.dir), before);
}

TEST(Safety, WithoutASandboxNothingDangerousIsCalled) {
  REQUIRE_NPM(sdk_dir());
  Project p("unsandboxed");
  const auto before = contents(p.dir);
  const fs::path log = scratch("unsandboxed-log") / "dangerous.jsonl";
  Sentinel sentinel;
  for (const bool quiet : {false, true}) {
    std::vector<std::string> args = {"--seed", "1", "--no-cases", "--no-sandbox", "--cwd", p.dir.string(), "--root",
                                     p.dir.string(), "--env", "HOME=" + p.home.string(), "--env",
                                     "SAFETY_LOG=" + log.string(), "--env", "PEEK_WRITES=0"};
    if (quiet) args.push_back("-q");
    args.insert(args.end(), {"--", "node", desktop()});
    auto r = run_harness(args);
    ASSERT_TRUE(r.report.is_object()) << r.err;
    EXPECT_FALSE(r.report["sandbox"]["used"].get<bool>());
    EXPECT_EQ(r.report["sandbox"]["why_not"], "--no-sandbox");
    const std::map<std::string, std::string> want = {{"kill_process", "process"}, {"execute_command", "exec"},
                                                     {"write_file", "write"},     {"delete_file", "write"},
                                                     {"save_note", "write"}};
    for (const auto& [tool, cls] : want) {
      const json* t = row(r, tool);
      ASSERT_NE(t, nullptr) << tool;
      EXPECT_EQ(t->value("skipped_for_safety", std::string()), cls) << t->dump();
      EXPECT_EQ((*t)["calls"].get<int>(), 0) << tool;
    }
    for (const char* tool : {"read_file", "list_directory", "peek_stats", "get_config", "list_processes"})
      EXPECT_GT((*row(r, tool))["calls"].get<int>(), 0) << tool;
    EXPECT_EQ(r.report["verdict"], "partial") << "tools skipped for safety were not tested";
    EXPECT_EQ(r.exit_code, 0);
    // One line says there is no sandbox, and the note names the tools not called and how to
    // call them: with -q too (issue 45: -q quiets progress, not what was left untested).
    const std::string console = r.out + r.err;
    EXPECT_NE(console.find("no sandbox (--no-sandbox)"), std::string::npos) << console;
    EXPECT_NE(console.find(" tool(s) skipped for safety (no sandbox): "), std::string::npos) << console;
    EXPECT_NE(console.find("kill_process (process)"), std::string::npos) << console;
    EXPECT_NE(console.find("--allow-destructive"), std::string::npos) << console;
    if (quiet) {
      EXPECT_EQ(console.find("note: ", console.find("note: ") + 1), std::string::npos) << "one note under -q:\n" << console;
    }
  }
  EXPECT_FALSE(fs::exists(log)) << "a dangerous tool was called outside a sandbox";
  EXPECT_EQ(contents(p.dir), before);
  EXPECT_TRUE(sentinel.alive());
}

TEST(Safety, AllowedOutsideASandboxAKillGetsNoRealPid) {
  REQUIRE_NPM(sdk_dir());
  Project p("allowed");
  const fs::path log = scratch("allowed-log") / "dangerous.jsonl";
  auto r = run_harness({"--seed", "1", "--no-cases", "--no-sandbox", "--allow-destructive", "process", "--calls", "12",
                        "--cwd", p.dir.string(), "--tools", "list_processes,kill_process", "--env",
                        "SAFETY_LOG=" + log.string(), "--", "node", desktop()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_GT((*row(r, "kill_process"))["calls"].get<int>(), 0);
  std::ifstream in(log);
  std::string line;
  std::size_t kills = 0;
  while (std::getline(in, line)) {
    const json j = json::parse(line);
    EXPECT_EQ(j["action"], "killed");
    EXPECT_EQ(j["target"], 4194305) << "a pid was made up or harvested outside a sandbox: " << line;
    ++kills;
  }
  EXPECT_GT(kills, 0u);
}

TEST(Safety, TheRealFilesystemServerWritesOnlyInTheSandbox) {
  const std::string fsserver = std::string(CTXO_SOURCE_DIR) +
                               "/tests/npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js";
  REQUIRE_NPM(fsserver);
  REQUIRE_SANDBOX();
  Project p("filesystem");
  const auto before = contents(p.dir);
  auto r = run_harness({"--seed", "1", "--no-cases", "--cwd", p.dir.string(), "--root", p.dir.string(),
                        "--time-budget", "60", "--", "node", fsserver, p.dir.string()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_TRUE(r.report["sandbox"]["used"].get<bool>());
  std::size_t changed = 0;
  for (const char* tool : {"write_file", "edit_file", "create_directory", "move_file"}) {
    const json* t = row(r, tool);
    ASSERT_NE(t, nullptr) << tool;
    EXPECT_GT((*t)["calls"].get<int>(), 0) << tool;
    changed += change_count(*t);
  }
  EXPECT_GT(changed, 0u) << "the writers changed nothing even in the sandbox";
  EXPECT_EQ(contents(p.dir), before);
  EXPECT_EQ(p.git_status(), "");
  EXPECT_TRUE(annotation_tools(r).empty()) << "server-filesystem's read-only tools write nothing";
}

}  // namespace
}  // namespace ctxo::test
