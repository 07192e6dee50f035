// SPDX-License-Identifier: MIT
// The bubblewrap sandbox (transport/sandbox.h), for real: a process started through it sees the
// project's copy at the project's path, cannot write anywhere else, and lives in its own PID
// namespace. Skipped where no sandbox can be made (no bwrap, no user namespaces), unless
// CTXO_REQUIRE_SANDBOX=1 (CI installs bubblewrap).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "../../support/sandbox.h"
#include "transport/sandbox.h"
#include "transport/transport.h"

namespace ctxo::transport {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;


fs::path scratch(const std::string& name) {
  const fs::path d = fs::path(CTXO_BINARY_DIR) / "test-tmp" / ("sandbox-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `script` with /bin/sh in `sb` (in `slot`), cwd `cwd`: its stdout lines.
std::vector<std::string> run_in(const Sandbox& sb, const std::string& cwd, const std::string& script,
                                std::size_t slot = 0) {
  SpawnOptions so;
  so.argv = {"/bin/sh", "-c", script};
  so.cwd = cwd;
  so.wrapper = sb.prefix(slot);
  so.new_session = true;
  for (const auto& [k, v] : sb.env()) so.env[k] = v;
  auto t = spawn_stdio(so);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  std::vector<std::string> lines;
  if (!t.ok()) return lines;
  for (;;) {
    auto r = t.value()->receive(5000ms);
    if (r.status != ReadStatus::kFrame) break;
    lines.push_back(r.frame.body);
  }
  (void)t.value()->close(1000ms);
  return lines;
}

TEST(Sandbox, TheProjectIsACopyAndEverythingElseIsReadOnly) {
  REQUIRE_SANDBOX();
  const auto support = probe_sandbox();
  const fs::path proj = scratch("project"), outside = scratch("outside");
  fs::create_directories(proj / "node_modules" / "dep");
  fs::create_directories(proj / "dist");
  std::ofstream(proj / "README.md") << "# the real one\n";
  std::ofstream(proj / ".gitignore") << "dist/\n";
  std::ofstream(proj / "dist" / "index.js") << "built\n";
  ASSERT_EQ(std::system(("git init -q '" + proj.string() + "'").c_str()), 0);
  std::ofstream(proj / "node_modules" / "dep" / "index.js") << "module.exports = 1;\n";
  std::ofstream(proj / "big.bin") << std::string(2 << 20, 'x');
  SandboxOptions o;
  o.projects = {proj.string(), (proj / "node_modules").string()};  // the second is inside the first
  o.max_copy_file_bytes = 1 << 20;
  std::string scratch_dir;
  {
    auto sb = Sandbox::create(support, o);
    ASSERT_TRUE(sb.ok()) << sb.error().message;
    const Sandbox& s = *sb.value();
    scratch_dir = s.scratch();
    ASSERT_EQ(s.projects().size(), 1u) << "a project inside another is covered by it";
    const auto& pr = s.projects()[0];
    ASSERT_FALSE(pr.view.empty()) << pr.why_not_copied;
    auto bound = pr.bound;
    std::sort(bound.begin(), bound.end());
    EXPECT_EQ(bound, std::vector<std::string>({".git/objects/pack", "big.bin", "dist", "node_modules"}));
    EXPECT_NE(s.describe().find("own PID namespace"), std::string::npos);
    const auto lines = run_in(s, proj.string(),
                              "cat /proc/1/comm; echo changed > README.md && echo wrote-readme; "
                              "echo new > made.txt && echo made; "
                              "(echo x > node_modules/dep/index.js) 2>/dev/null || echo node_modules-ro; "
                              "(echo x > big.bin) 2>/dev/null || echo big-ro; "
                              "cat dist/index.js; (echo x > dist/index.js) 2>/dev/null || echo dist-ro; "
                              "(echo x > " + (outside / "x.txt").string() + ") 2>/dev/null || echo outside-ro; "
                              "echo t > $TMPDIR/t && echo tmp-ok; "
                              "[ \"$(cat /proc/1/comm)\" = bwrap ] && kill -9 -1 2>/dev/null; echo alive");
    const std::vector<std::string> want = {"bwrap", "wrote-readme", "made", "node_modules-ro", "big-ro", "built",
                                           "dist-ro", "outside-ro", "tmp-ok", "alive"};
    EXPECT_EQ(lines, want);
    // The copy took the writes; the project did not.
    EXPECT_EQ(slurp(fs::path(pr.view) / "README.md"), "changed\n");
    EXPECT_TRUE(fs::exists(fs::path(pr.view) / "made.txt"));
  }
  EXPECT_EQ(slurp(proj / "README.md"), "# the real one\n");
  EXPECT_FALSE(fs::exists(proj / "made.txt"));
  EXPECT_EQ(slurp(proj / "node_modules" / "dep" / "index.js"), "module.exports = 1;\n");
  EXPECT_FALSE(fs::exists(outside / "x.txt"));
  EXPECT_FALSE(fs::exists(scratch_dir)) << "the scratch directory is removed with the sandbox";
}

// Instances in different slots, each the same pid in its own PID namespace, write the same /tmp
// file name and do not meet, also while they run at once; an instance started again in its slot
// finds what the earlier one left; npm's cache is one for all; a released slot is emptied and
// lent again; the sandbox takes every slot's /tmp with it.
TEST(Sandbox, EachSlotHasATmpOfItsOwnKeptAcrossItsInstances) {
  REQUIRE_SANDBOX();
  const auto support = probe_sandbox();
  const fs::path outside = scratch("slots-outside");
  fs::create_directories(outside / "inner");
  std::ofstream(outside / "inner" / "kept") << "x";
  fs::permissions(outside / "inner", fs::perms::owner_read | fs::perms::owner_exec);
  std::string scratch_dir;
  {
    auto sb = Sandbox::create(support, {});
    ASSERT_TRUE(sb.ok()) << sb.error().message;
    const Sandbox& s = *sb.value();
    scratch_dir = s.scratch();
    EXPECT_NE(s.describe().find("scratch, its own per instance"), std::string::npos) << s.describe();
    const std::size_t a = s.new_slot(), b = s.new_slot();
    EXPECT_NE(a, b);
    EXPECT_NE(a, 0u);
    EXPECT_EQ(s.prefix(0), s.prefix());
    EXPECT_EQ(s.prefix(a).size(), s.prefix().size()) << "only the /tmp bind's source differs";
    // Each writes its pid-named file, waits for the other to have written its own, and reads.
    const std::string script = "f=/tmp/x-$$; echo $1 > $f; echo $1 > $TMPDIR/same; : > /tmp/ready-$1; "
                               "i=0; while [ ! -e /tmp/go ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; "
                               "echo $$; cat $f; cat $TMPDIR/same; ls /tmp | grep -c '^ready-'";
    std::vector<std::string> in_a, in_b;
    std::thread ta([&] { in_a = run_in(s, "", "set -- a; " + script, a); });
    std::thread tb([&] { in_b = run_in(s, "", "set -- b; " + script, b); });
    // Both wrote (each in its own /tmp), then both read.
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (!(fs::exists(s.scratch() + "/tmp-" + std::to_string(a) + "/ready-a") &&
             fs::exists(s.scratch() + "/tmp-" + std::to_string(b) + "/ready-b")) &&
           std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(20ms);
    for (std::size_t slot : {a, b}) std::ofstream(s.scratch() + "/tmp-" + std::to_string(slot) + "/go").close();
    ta.join();
    tb.join();
    ASSERT_EQ(in_a.size(), 4u);
    ASSERT_EQ(in_b.size(), 4u);
    EXPECT_EQ(in_a[0], in_b[0]) << "the same pid in each PID namespace: the same file name";
    EXPECT_EQ(std::vector<std::string>(in_a.begin() + 1, in_a.end()), (std::vector<std::string>{"a", "a", "1"}));
    EXPECT_EQ(std::vector<std::string>(in_b.begin() + 1, in_b.end()), (std::vector<std::string>{"b", "b", "1"}));
    // Started again in its slot, an instance finds what the earlier one left; slot 0 saw none.
    EXPECT_EQ(run_in(s, "", "cat /tmp/x-$$ $TMPDIR/same", a), (std::vector<std::string>{"a", "a"}));
    EXPECT_EQ(run_in(s, "", "cat /tmp/x-$$ 2>/dev/null || echo none"), (std::vector<std::string>{"none"}));
    // What the real /tmp holds is there in every slot; npm's cache is one.
    EXPECT_EQ(run_in(s, "", "echo cached > $npm_config_cache/pkg; [ -d /tmp/npm-cache ] && echo ok", a),
              (std::vector<std::string>{"ok"}));
    EXPECT_EQ(run_in(s, "", "cat $npm_config_cache/pkg", b), (std::vector<std::string>{"cached"}));
    EXPECT_EQ(run_in(s, "", "cat $npm_config_cache/pkg"), (std::vector<std::string>{"cached"}));
    // Released, a slot keeps no file an instance made there, and is the next fresh one.
    const fs::path b_dir = s.scratch() + "/tmp-" + std::to_string(b);
    s.release(b);
    for (const char* made : {"same", "ready-b", "go"}) EXPECT_FALSE(fs::exists(b_dir / made)) << made;
    EXPECT_TRUE(fs::exists(b_dir / "npm-cache")) << "bwrap's mount points stay";
    EXPECT_EQ(run_in(s, "", "cat $npm_config_cache/pkg", a), (std::vector<std::string>{"cached"}));
    {
      // A SandboxSlot is a fresh slot, released when it ends.
      SandboxSlot fresh(sb.value());
      EXPECT_EQ(fresh.id(), b);
      EXPECT_EQ(run_in(s, "", "cat /tmp/x-$$ 2>/dev/null || echo none; ls /tmp | grep -c '^ready-'; : > /tmp/mine",
                       fresh.id()),
                (std::vector<std::string>{"none", "0"}));
      EXPECT_TRUE(fs::exists(b_dir / "mine"));
      // A symlink it made out of its /tmp is removed, never followed.
      EXPECT_TRUE(run_in(s, "", "ln -s " + outside.string() + " /tmp/link", fresh.id()).empty());
      SandboxSlot other(sb.value());
      EXPECT_NE(other.id(), b);
      EXPECT_NE(other.id(), a);
    }
    EXPECT_FALSE(fs::exists(b_dir / "mine"));
    EXPECT_FALSE(fs::is_symlink(b_dir / "link"));
    EXPECT_TRUE(fs::exists(outside / "inner" / "kept"));
    EXPECT_EQ(fs::status(outside / "inner").permissions() & fs::perms::owner_write, fs::perms::none);
    EXPECT_EQ(run_in(s, "", "cat /tmp/x-$$", a), (std::vector<std::string>{"a"})) << "a session's slot is not lent";
    EXPECT_EQ(SandboxSlot().id(), 0u) << "no sandbox: slot 0, nothing to remove";
  }
  EXPECT_FALSE(fs::exists(scratch_dir)) << "every slot's /tmp is removed with the sandbox";
  fs::permissions(outside / "inner", fs::perms::owner_all);
}

// The real /tmp's entries in a slot's /tmp: each readable and unwritable; one holding a path the
// server is given is bound at its own path (its real path is its own), the others are symlinks
// into one read-only bind of the real /tmp (no bind of their own: a bind per entry costs bwrap a
// reading of the mount table, 0.9 s per start for 1,000 entries). One an instance removed
// is there again for the next; the real files are untouched; the scratch is not seen through it.
TEST(Sandbox, TheRealTmpIsSeenReadOnlyWithOneBindForWhatTheServerIsNotGiven) {
  REQUIRE_SANDBOX();
  const auto support = probe_sandbox();
  const std::string tag = "ctxo-sandbox-test-" + std::to_string(::getpid());
  const fs::path given = fs::path("/tmp") / (tag + "-given"), other = fs::path("/tmp") / (tag + "-other");
  fs::create_directories(given);
  std::ofstream(given / "f") << "given\n";
  std::ofstream(other) << "other\n";
  // $HOME the same way.
  const fs::path home = scratch("home");
  fs::create_directories(home / ".config" / "tool");
  std::ofstream(home / ".config" / "tool" / "rc") << "rc\n";
  fs::create_directories(home / "bin");
  {
    SandboxOptions o;
    o.home = home.string();
    o.given = {(given / "f").string(), (home / "bin").string()};
    auto sb = Sandbox::create(support, o);
    ASSERT_TRUE(sb.ok()) << sb.error().message;
    const Sandbox& s = *sb.value();
    const auto& a = s.prefix();
    EXPECT_NE(std::find(a.begin(), a.end(), given.string()), a.end()) << "the given entry is bound at its path";
    EXPECT_EQ(std::find(a.begin(), a.end(), other.string()), a.end()) << "the other is no bind of its own";
    const std::string script = "cat " + (given / "f").string() + " " + other.string() + "; realpath " +
                               (given / "f").string() + "; realpath " + other.string() + "; (echo x > " +
                               other.string() + ") 2>/dev/null || echo other-ro; (echo x > " + (given / "f").string() +
                               ") 2>/dev/null || echo given-ro; rm " + other.string() + " && echo removed; "
                               "ls -a /tmp/.ctxo-host/" + fs::path(s.scratch()).filename().string() + " | wc -l";
    const auto lines = run_in(s, "", script);
    const std::vector<std::string> want = {"given", "other", (given / "f").string(),
                                           "/tmp/.ctxo-host/" + tag + "-other", "other-ro", "given-ro", "removed",
                                           "2"};
    EXPECT_EQ(lines, want);
    EXPECT_EQ(run_in(s, "", "cat " + other.string()), (std::vector<std::string>{"other"}))
        << "a symlink an instance removed is there again for the next";
    const std::size_t slot = s.new_slot();
    EXPECT_EQ(run_in(s, "", "cat " + other.string() + "; echo new > /tmp/" + tag + "-made", slot),
              (std::vector<std::string>{"other"}));
    EXPECT_FALSE(fs::exists("/tmp/" + tag + "-made")) << "what an instance makes at /tmp's top lands in its slot";
    const std::string h = home.string();
    EXPECT_EQ(run_in(s, "", "cat " + h + "/.config/tool/rc; realpath " + h + "/.config " + h + "/bin; (echo x > " + h +
                                "/.config/tool/rc) 2>/dev/null || echo rc-ro; echo n > " + h + "/made && echo made"),
              (std::vector<std::string>{"rc", h + "/.ctxo-host/.config", h + "/bin", "rc-ro", "made"}));
    EXPECT_FALSE(fs::exists(home / "made")) << "what is made at $HOME's top lands in the scratch";
  }
  EXPECT_EQ(slurp(home / ".config" / "tool" / "rc"), "rc\n");
  EXPECT_EQ(slurp(other), "other\n");
  EXPECT_EQ(slurp(given / "f"), "given\n");
  fs::remove_all(given);
  fs::remove(other);
}

TEST(Sandbox, AProjectPastTheBoundsIsReadOnly) {
  REQUIRE_SANDBOX();
  const auto support = probe_sandbox();
  const fs::path proj = scratch("large");
  ASSERT_EQ(std::system(("git init -q '" + proj.string() + "'").c_str()), 0);
  for (int i = 0; i < 20; ++i) std::ofstream(proj / ("f" + std::to_string(i))) << "x";
  // (git's own files count too: the bound is what the copy would hold)
  SandboxOptions o;
  o.projects = {proj.string()};
  o.max_copy_entries = 10;
  auto sb = Sandbox::create(support, o);
  ASSERT_TRUE(sb.ok());
  const auto& pr = sb.value()->projects().at(0);
  EXPECT_TRUE(pr.view.empty());
  EXPECT_NE(pr.why_not_copied.find("more than 10 entries"), std::string::npos) << pr.why_not_copied;
  EXPECT_NE(sb.value()->describe().find("read-only (not copied"), std::string::npos);
  const auto lines = run_in(*sb.value(), proj.string(), "(echo x > f0) 2>/dev/null || echo ro");
  EXPECT_EQ(lines, std::vector<std::string>({"ro"}));
  EXPECT_EQ(slurp(proj / "f0"), "x");
}

TEST(Sandbox, ABuildDirectoryGitIgnoresIsNotCopied) {
  REQUIRE_SANDBOX();
  const auto support = probe_sandbox();
  const fs::path repo = scratch("repo");
  ASSERT_EQ(std::system(("git init -q '" + repo.string() + "'").c_str()), 0);
  std::ofstream(repo / ".gitignore") << "/build/\n";
  fs::create_directories(repo / "build" / "tests");
  SandboxOptions o;
  o.implicit = {(repo / "build" / "tests").string()};  // the current directory, not named
  auto sb = Sandbox::create(support, o);
  ASSERT_TRUE(sb.ok());
  const auto& pr = sb.value()->projects().at(0);
  EXPECT_TRUE(pr.view.empty());
  EXPECT_EQ(pr.why_not_copied, "git ignores it (a build or output directory)");
  // Named (--cwd, --root), it is the project all the same.
  SandboxOptions named;
  named.projects = o.implicit;
  auto sb2 = Sandbox::create(support, named);
  ASSERT_TRUE(sb2.ok());
  EXPECT_FALSE(sb2.value()->projects().at(0).view.empty()) << sb2.value()->projects().at(0).why_not_copied;
}

TEST(Sandbox, OfflineHasOnlyItsOwnLoopback) {
  REQUIRE_SANDBOX();
  const auto support = probe_sandbox();
  SandboxOptions o;
  o.offline = true;
  auto sb = Sandbox::create(support, o);
  ASSERT_TRUE(sb.ok());
  EXPECT_NE(sb.value()->describe().find("network loopback only"), std::string::npos);
  const auto lines = run_in(*sb.value(), "", "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
  EXPECT_EQ(lines, std::vector<std::string>({"lo"}));
}

TEST(Sandbox, AMissingCommandIsOurErrorNotBwraps) {
  REQUIRE_SANDBOX();
  const auto support = probe_sandbox();
  auto sb = Sandbox::create(support, {});
  ASSERT_TRUE(sb.ok());
  SpawnOptions so;
  so.argv = {"no-such-server-ctxo"};
  so.wrapper = sb.value()->prefix();
  so.new_session = true;
  auto t = spawn_stdio(so);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, "spawn");
  EXPECT_NE(t.error().message.find("no-such-server-ctxo"), std::string::npos) << t.error().message;
}

TEST(Sandbox, ASignalledServerIsReportedAsSignalled) {
  REQUIRE_SANDBOX();
  const auto support = probe_sandbox();
  auto sb = Sandbox::create(support, {});
  ASSERT_TRUE(sb.ok());
  SpawnOptions so;
  so.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  so.wrapper = sb.value()->prefix();
  so.new_session = true;
  auto t = spawn_stdio(so);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.value()->receive(5000ms).status, ReadStatus::kEof);
  const ExitStatus st = t.value()->close(1000ms);
  EXPECT_EQ(st.how, ExitStatus::How::kSignaled) << st.describe();
  EXPECT_EQ(st.code, 11);
}

}  // namespace
}  // namespace ctxo::transport
