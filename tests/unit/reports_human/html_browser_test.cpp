// SPDX-License-Identifier: MIT
// HTML report in a real browser: headless Chromium loads the file (no network, fresh profile),
// and the dumped DOM must show the matrix, the filter script having run (body data-ready="1",
// the filter bar shown, URL-hash filtering applied) and none of the hostile markup executed.
// Without Chromium the test fails, unless CTXO_SKIP_BROWSER=1 (then it is skipped).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "report_fixtures.h"
#include "reports/html.h"

extern char** environ;

namespace ctxo::test {
namespace {

namespace fs = std::filesystem;

std::string find_chromium() {
  if (const char* env = std::getenv("CTXO_CHROMIUM"); env && *env) return env;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
      fs::path p = fs::path(dir.empty() ? "." : dir) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  return {};
}

/// A fresh directory removed (recursively) when the test ends.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ctxo-html-XXXXXX").string();
    if (::mkdtemp(tmpl.data())) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

struct BrowserRun {
  bool started = false, timed_out = false;
  int status = -1;
  std::string dom, err;
};

/// Runs argv in its own process group with stdout/stderr to files and HOME in `home`; kills
/// the whole group after `timeout` (and any leftovers once it exits), always reaps it.
BrowserRun run_browser(const std::vector<std::string>& argv, const fs::path& dir, std::chrono::seconds timeout) {
  BrowserRun run;
  fs::path out = dir / "dom.html", err = dir / "stderr.txt", home = dir / "home";
  fs::create_directories(home);
  std::vector<std::string> env_store;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("HOME=", 0) == 0 || kv.rfind("XDG_CONFIG_HOME=", 0) == 0 || kv.rfind("XDG_CACHE_HOME=", 0) == 0)
      continue;
    env_store.push_back(kv);
  }
  env_store.push_back("HOME=" + home.string());
  env_store.push_back("XDG_CONFIG_HOME=" + (home / ".config").string());
  env_store.push_back("XDG_CACHE_HOME=" + (home / ".cache").string());
  std::vector<char*> envp, args;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_store = argv;
  for (auto& s : argv_store) args.push_back(s.data());
  args.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) return run;
  if (pid == 0) {
    ::setpgid(0, 0);
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = ::open("/dev/null", O_RDONLY);
    if (o < 0 || e < 0 || in < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: no race with the kill below
  run.started = true;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    siginfo_t info{};
    // WNOWAIT: the leader stays a zombie, so its group id cannot be reused before we kill it.
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      run.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(-pid, SIGKILL);  // helpers (renderer, zygote) of a finished or hung browser
  ::waitpid(pid, &run.status, 0);
  std::ifstream fo(out, std::ios::binary), fe(err, std::ios::binary);
  run.dom.assign(std::istreambuf_iterator<char>(fo), {});
  run.err.assign(std::istreambuf_iterator<char>(fe), {});
  return run;
}

class HtmlBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (chromium_.empty()) {
      const char* skip = std::getenv("CTXO_SKIP_BROWSER");
      if (skip && std::string(skip) == "1") GTEST_SKIP() << "no chromium; CTXO_SKIP_BROWSER=1";
      FAIL() << "chromium not found on PATH (install it: scripts/install-deps.sh installs Debian's "
                "'chromium'; or set CTXO_CHROMIUM=/path/to/chrome, or CTXO_SKIP_BROWSER=1 to skip)";
    }
  }

  /// Loads `html` (plus `fragment`) and returns the DOM after the scripts ran.
  BrowserRun dump_dom(const std::string& html, const std::string& fragment, const TempDir& dir) {
    fs::path file = dir.path / "report.html";
    std::ofstream(file, std::ios::binary) << html;
    fs::path profile = dir.path / "profile";
    fs::create_directories(profile);
    std::vector<std::string> argv = {chromium_, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                                     "--no-first-run", "--disable-background-networking",
                                     "--disable-component-update", "--disable-sync", "--disable-extensions",
                                     "--disable-crash-reporter", "--virtual-time-budget=3000",
                                     "--user-data-dir=" + profile.string(), "--dump-dom",
                                     "file://" + file.string() + fragment};
    return run_browser(argv, dir.path, std::chrono::seconds(60));
  }

  std::string chromium_;
};

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

TEST_F(HtmlBrowser, ScriptRunsAndMatrixRenders) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  BrowserRun run = dump_dom(reports::to_html(hostile_report(), "0.1.0"), "", dir);
  ASSERT_TRUE(run.started);
  ASSERT_FALSE(run.timed_out) << "chromium did not finish in 60 s\n" << run.err;
  ASSERT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << "status " << run.status << "\n" << run.err;
  const std::string& dom = run.dom;
  ASSERT_NE(dom.find("<table id=\"matrix\">"), std::string::npos) << run.err << dom.substr(0, 2000);

  // The inline script ran to its end (a CSP hash mismatch or a JS error would stop it first).
  EXPECT_TRUE(std::regex_search(dom, std::regex("<body[^>]* data-ready=\"1\""))) << dom.substr(0, 3000);
  EXPECT_NE(dom.find("<form id=\"filters\">"), std::string::npos) << "filter bar unhidden";
  EXPECT_NE(dom.find("<span id=\"f-count\">6 of 6 shown</span>"), std::string::npos);
  EXPECT_EQ(count(dom, "<button type=\"button\" class=\"copy\">Copy</button>"), 5u) << "copy buttons shown";

  // Matrix rows and cells as the browser parsed them.
  for (const char* row : {"<tr data-tool=\"\" class=\"server\">", "<tr data-tool=\"read_file\">",
                          "<tr data-tool=\"search\">",
                          "<tr data-tool=\"evil|tool`x`&lt;script&gt;alert(1)&lt;/script&gt;\">"})
    EXPECT_NE(dom.find(row), std::string::npos) << row;
  EXPECT_NE(dom.find("data-invariant=\"TR-HINT\" data-tool=\"search\" title=\"TR-HINT on search: fail (3 "
                     "occurrences)\">✗ 3</td>"),
            std::string::npos);
  EXPECT_NE(dom.find("data-invariant=\"TR-COUNT\" data-tool=\"read_file\" title=\"TR-COUNT on read_file: baselined (2 "
                     "occurrences)\">B 2</td>"),
            std::string::npos);

  // Hostile text stayed text: no element came from it, nothing it carried ran.
  EXPECT_EQ(dom.find("data-pwned"), std::string::npos);
  EXPECT_EQ(dom.find("<img"), std::string::npos);
  EXPECT_EQ(dom.find("<link"), std::string::npos);
  EXPECT_EQ(count(dom, "<script"), 1u);
  EXPECT_NE(dom.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

TEST_F(HtmlBrowser, HashPreselectsFilters) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  BrowserRun run = dump_dom(reports::to_html(failing_report(), "0.1.0"), "#tool=search&severity=error", dir);
  ASSERT_TRUE(run.started);
  ASSERT_FALSE(run.timed_out) << run.err;
  const std::string& dom = run.dom;
  ASSERT_TRUE(std::regex_search(dom, std::regex("<body[^>]* data-ready=\"1\""))) << run.err << dom.substr(0, 3000);
  EXPECT_NE(dom.find("<span id=\"f-count\">1 of 5 shown</span>"), std::string::npos);
  // Exactly the TR-HINT finding on search is visible.
  std::regex article(R"re(<article class="finding[^"]*" id="finding-\d+" data-invariant="([^"]*)" data-tool="([^"]*)" data-severity="[^"]*" data-baselined="[01]"( hidden="")?>)re");
  std::vector<std::string> visible;
  std::size_t total = 0;
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), article); it != std::sregex_iterator(); ++it) {
    ++total;
    if (!(*it)[3].matched) visible.push_back(std::string((*it)[1]) + "@" + std::string((*it)[2]));
  }
  EXPECT_EQ(total, 5u);
  EXPECT_EQ(visible, std::vector<std::string>{"TR-HINT@search"});
}

}  // namespace
}  // namespace ctxo::test
