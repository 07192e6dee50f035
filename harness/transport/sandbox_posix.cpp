// SPDX-License-Identifier: MIT
// The bubblewrap sandbox (sandbox.h). Debian 12 ships bwrap 0.8, which has no overlay mounts
// (--overlay came in 0.9): a project's writes land in a bounded copy bound at the project's own
// path, and everything else is bound read-only (writes fail there).
#include "transport/sandbox.h"

#include "transport/run_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <fstream>
#include <future>
#include <system_error>

namespace ctxo::transport {

namespace fs = std::filesystem;

namespace {

// Runs argv (argv[0] absolute) to its end, killed past `limit`: (its exit code, or -1 when it did
// not exit by itself, with why; its output, at most `keep` bytes, its last line ends trimmed).
// `with_stderr`: its stderr joined to its stdout.
std::pair<int, std::string> run_captured(const std::vector<std::string>& args, std::chrono::milliseconds limit,
                                         std::size_t keep = 4096, bool with_stderr = true) {
  CommandOptions o;
  o.limit = limit;
  o.max_output = keep;
  o.with_stderr = with_stderr;
  CommandResult r = run_command(args, o);
  if (!r.started) return {-1, "cannot start " + args.front()};
  if (r.timed_out) return {-1, "no answer within " + std::to_string(limit.count()) + " ms"};
  std::string out = std::move(r.output);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  // Past `keep` it was stopped: what it wrote up to there stands, as if it had ended.
  return {r.too_long ? 0 : r.exit_code.value_or(-1), out};
}

std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    const std::size_t end = std::min(p.find(':', start), p.size());
    std::string dir = p.substr(start, end - start);
    if (!dir.empty() && dir.front() == '/') {
      const std::string cand = dir + "/" + name;
      if (::access(cand.c_str(), X_OK) == 0) return cand;
    }
    start = end + 1;
  }
  return {};
}

std::string human_bytes(std::uint64_t b) {
  char buf[32];
  if (b >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(b) / (1 << 20));
  else if (b >= 1024) std::snprintf(buf, sizeof buf, "%llu KB", static_cast<unsigned long long>(b / 1024));
  else std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(b));
  return buf;
}

constexpr std::size_t kMaxLayerEntries = 2000;
constexpr std::size_t kMaxBinds = 256;

bool is_under(const std::string& inner, const std::string& outer) {
  if (outer == "/") return true;
  return inner == outer || (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
                            inner[outer.size()] == '/');
}

// What git ignores in `dir` (a repository's work tree or a folder in one): nullopt when git is
// not there or `dir` is in no repository; {"."} when `dir` itself is ignored (a build directory);
// else the ignored directories, relative ("build", "dist", "node_modules").
std::optional<std::set<std::string>> git_ignored(const std::string& dir) {
  const std::string git = find_in_path("git");
  if (git.empty()) return std::nullopt;
  const auto [self, o1] = run_captured({git, "-C", dir, "check-ignore", "-q", "."}, std::chrono::milliseconds(5000));
  if (self == 0) return std::set<std::string>{"."};
  if (self != 1) return std::nullopt;  // 128: not in a repository
  const auto [code, out] =
      run_captured({git, "-C", dir, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"},
                   std::chrono::milliseconds(10000), 1u << 20, false);
  if (code != 0) return std::nullopt;
  std::set<std::string> dirs;
  std::size_t start = 0;
  while (start < out.size()) {
    const std::size_t end = std::min(out.find('\0', start), out.size());
    std::string e = out.substr(start, end - start);
    if (!e.empty() && e.back() == '/') dirs.insert(e.substr(0, e.size() - 1));
    start = end + 1;
  }
  return dirs;
}

// Copies `from` into `to` (made), without following symlinks: regular files (with their
// permission bits), directories, symlinks as they are; sockets and devices are left out.
// Directories named node_modules are made empty and listed in `bound` (bound read-only over the
// copy). False (with `why`) past the bounds.
bool copy_tree(const fs::path& from, const fs::path& to, const SandboxOptions& o, const std::set<std::string>& ignored,
               SandboxProject& pr, std::string& why) {
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) {
    why = "cannot make its copy: " + ec.message();
    return false;
  }
  std::size_t entries = 0;
  fs::recursive_directory_iterator it(from, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) {
    why = "cannot read it: " + ec.message();
    return false;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) {
      why = "cannot read it: " + ec.message();
      return false;
    }
    if (++entries > o.max_copy_entries) {
      why = "more than " + std::to_string(o.max_copy_entries) + " entries to copy";
      return false;
    }
    const fs::path rel = it->path().lexically_relative(from);
    const fs::path dst = to / rel;
    const auto st = it->symlink_status(ec);
    if (ec) continue;
    if (fs::is_symlink(st)) {
      const auto target = fs::read_symlink(it->path(), ec);
      if (!ec) fs::create_symlink(target, dst, ec);
    } else if (fs::is_directory(st)) {
      fs::create_directory(dst, ec);
      // Bound read-only, not copied: dependencies, what git ignores (builds, outputs), and git's
      // packs (immutable; new objects are loose, in the copy).
      const std::string r = rel.generic_string();
      if (it->path().filename() == "node_modules" || ignored.count(r) || r == ".git/objects/pack") {
        if (pr.bound.size() >= kMaxBinds) {
          why = "more than " + std::to_string(kMaxBinds) + " directories to bind";
          return false;
        }
        pr.bound.push_back(r);
        it.disable_recursion_pending();
      }
    } else if (fs::is_regular_file(st)) {
      const auto size = it->file_size(ec);
      if (ec) continue;
      if (size > o.max_copy_file_bytes) {
        // A large file (a build's binary, a database, a model) is bound read-only, not copied.
        if (pr.bound.size() >= kMaxBinds) {
          why = "more than " + std::to_string(kMaxBinds) + " files larger than " + human_bytes(o.max_copy_file_bytes);
          return false;
        }
        std::ofstream(dst).close();  // the mount point
        pr.bound.push_back(rel.generic_string());
        continue;
      }
      pr.bytes += size;
      if (pr.bytes > o.max_copy_bytes) {
        why = "larger than " + human_bytes(o.max_copy_bytes);
        return false;
      }
      fs::copy_file(it->path(), dst, fs::copy_options::overwrite_existing, ec);
      if (ec) continue;  // unreadable: absent in the copy too
      ++pr.files;
    }
  }
  return true;
}

// The name, in a layered directory, of the read-only bind of the real one.
constexpr const char* kHostView = ".ctxo-host";

// `dir` as a scratch directory (`scratch`, bound at its path) in which what `dir` holds is read
// and kept: what is made at its top lands in the scratch. A bind per entry would make bwrap read
// the whole mount table again for each (the time grows with the square of their number: 65 ms for 200 entries, 0.9 s for 1,000, at every server start), so
// the real `dir` is bound once, read-only, at `dir`/.ctxo-host, and each of its entries is a
// symlink into it (`links`: name to target, made by make_links in the scratch; no mount). An
// entry that holds a path the server is given (`given`: its command, arguments, environment,
// projects) is bound read-only at its own path instead: its real path stays its own (a server
// that compares real paths with the paths it was given sees no difference; the real path of any
// other entry is still under `dir`). A symlink of the real `dir` stays the symlink it is. `skip`
// (the scratch directory) is neither an entry nor seen through the view. False (nothing added)
// past kMaxLayerEntries entries or when `dir` cannot be read.
bool layer(std::vector<std::string>& a, const std::string& dir, const std::string& scratch, const std::string& skip,
           const std::vector<std::string>& given, std::map<std::string, std::string>& links) {
  std::vector<std::pair<std::string, std::string>> entries;  // (path, symlink target or "")
  std::error_code ec;
  for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string path = dir + "/" + name;
    if (is_under(skip, path) || name == kHostView) continue;
    if (entries.size() >= kMaxLayerEntries) return false;
    std::error_code e2;
    if (it->is_symlink(e2)) entries.emplace_back(path, fs::read_symlink(it->path(), e2).string());
    else entries.emplace_back(path, std::string());
  }
  if (ec) return false;
  const std::string view = dir + "/" + kHostView;
  a.insert(a.end(), {"--bind", scratch, dir, "--ro-bind", dir, view});
  if (is_under(skip, dir)) a.insert(a.end(), {"--tmpfs", view + skip.substr(dir.size())});
  for (const auto& [path, target] : entries) {
    const std::string name = path.substr(dir.size() + 1);
    bool held = false;
    for (const auto& g : given) held = held || is_under(g, path);
    if (!target.empty()) links[name] = target;
    else if (held) a.insert(a.end(), {"--ro-bind-try", path, path});
    else links[name] = view + "/" + name;
  }
  return true;
}

// The symlinks of `links` in `dir` (a slot's /tmp on this side), those missing made again (an
// instance may have removed one). A name an instance made something else at is left as it is.
void make_links(const std::string& dir, const std::map<std::string, std::string>& links) {
  for (const auto& [name, target] : links) (void)::symlink(target.c_str(), (dir + "/" + name).c_str());
}

// Removes `dir` and what it holds. A copy a server made read-only (chmod 0500 on a directory)
// cannot be emptied until its permissions are given back. A symlink (a server's, in its /tmp) is
// removed itself, never followed.
void remove_tree(const std::string& dir) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(dir, ec))) {
    fs::remove(dir, ec);
    return;
  }
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it->is_directory(e2) && !it->is_symlink(e2)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, e2);
  }
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(dir, ec);
}

}  // namespace

SandboxSupport probe_sandbox() {
  SandboxSupport s;
#if !defined(__linux__)
  s.why_not = "no sandbox on this system (bubblewrap needs Linux)";
  return s;
#else
  s.bwrap = find_in_path("bwrap");
  if (s.bwrap.empty()) {
    s.why_not = "bwrap not found: install bubblewrap (Debian/Ubuntu: apt install bubblewrap)";
    return s;
  }
  // Its version is asked while the probe runs (two short processes at once, not one after the other).
  auto asked = std::async(std::launch::async, [bwrap = s.bwrap] {
    return run_captured({bwrap, "--version"}, std::chrono::milliseconds(5000));
  });
  // The namespaces a run's sandbox makes, around `true`.
  std::vector<std::string> args = {s.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                   "--unshare-pid", "--unshare-ipc"};
  if (::geteuid() == 0) {
    args.push_back("--cap-drop");
    args.push_back("ALL");
  }
  args.push_back("--");
  args.push_back("/bin/true");
  const auto [code, out] = run_captured(args, std::chrono::milliseconds(5000));
  if (const auto [vcode, version] = asked.get(); vcode == 0) s.version = version;
  if (code != 0) {
    std::string o = out.substr(0, out.find('\n'));
    s.why_not = "bwrap cannot make a sandbox here (" + (o.empty() ? std::string("exit ") + std::to_string(code) : o) +
                "): user namespaces may be disabled (Ubuntu 24.04: sysctl kernel.apparmor_restrict_unprivileged_userns=0)";
    return s;
  }
  s.usable = true;
  return s;
#endif
}

Result<std::shared_ptr<Sandbox>> Sandbox::create(const SandboxSupport& support, const SandboxOptions& o) {
  if (!support.usable) return make_error("sandbox", support.why_not);
  std::shared_ptr<Sandbox> sb(new Sandbox());
  sb->offline_ = o.offline;
  sb->version_ = support.version.empty() ? std::string("bubblewrap") : support.version;
  std::string parent = o.scratch_parent;
  if (parent.empty()) {
    const char* t = std::getenv("TMPDIR");
    parent = t && *t ? t : "/tmp";
  }
  std::string templ = parent + "/ctxo-sandbox-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr)
    return make_error("sandbox", "cannot make a scratch directory in " + parent + ": " + std::strerror(errno));
  sb->scratch_ = templ;
  std::error_code ec;
  fs::create_directories(sb->scratch_ + "/tmp", ec);
  fs::create_directories(sb->scratch_ + "/tmp/npm-cache", ec);  // the mount point of npm's cache
  fs::create_directories(sb->scratch_ + "/npm-cache", ec);
  ::chmod((sb->scratch_ + "/tmp").c_str(), 01777);

  // The projects, outermost first; one inside another is covered by it.
  std::vector<std::string> dirs;
  std::set<std::string> implicit;
  auto canonical = [&](const std::string& p) -> std::string {
    if (p.empty()) return {};
    auto c = fs::weakly_canonical(fs::absolute(p, ec), ec);
    if (ec || !fs::is_directory(c, ec)) return {};
    return c.string();
  };
  for (const auto& p : o.projects)
    if (auto c = canonical(p); !c.empty()) dirs.push_back(c);
  for (const auto& p : o.implicit)
    if (auto c = canonical(p); !c.empty()) implicit.insert(c);
  for (const auto& p : o.implicit)
    if (auto c = canonical(p); !c.empty() && std::find(dirs.begin(), dirs.end(), c) == dirs.end()) dirs.push_back(c);
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  const char* home_env = std::getenv("HOME");
  const std::string home_given = !o.home.empty() ? o.home : home_env ? std::string(home_env) : std::string();
  const std::string home = !home_given.empty() ? fs::weakly_canonical(home_given, ec).string() : std::string();
  for (const auto& d : dirs) {
    bool covered = false;
    for (const auto& pr : sb->projects_) covered = covered || (!pr.view.empty() && is_under(d, pr.real));
    if (covered) continue;
    SandboxProject pr;
    pr.real = d;
    if (d == "/" || (!home.empty() && d == home) || is_under(sb->scratch_, d)) {
      pr.why_not_copied = d == "/" ? "the root directory" : is_under(sb->scratch_, d) ? "it holds the scratch directory" : "the home directory";
    } else if (const auto ignored = git_ignored(d); ignored && ignored->count(".") && implicit.count(d)) {
      pr.why_not_copied = "git ignores it (a build or output directory)";
    } else {
      const std::string view = sb->scratch_ + "/project-" + std::to_string(sb->projects_.size());
      std::string why;
      auto skip = ignored.value_or(std::set<std::string>());
      skip.erase(".");
      if (copy_tree(d, view, o, skip, pr, why)) {
        pr.view = view;
      } else {
        pr.why_not_copied = why;
        pr.bound.clear();
        fs::remove_all(view, ec);
      }
    }
    sb->projects_.push_back(std::move(pr));
  }

  auto& a = sb->prefix_;
  a = {support.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"};
  // /tmp is the scratch's, with what the real /tmp holds bound read-only into it (servers and
  // projects live there too); a /tmp of too many entries stays read-only, TMPDIR the scratch.
  // Slot 0's /tmp; prefix(slot) puts another slot's directory at tmp_arg_ (the bind's source).
  std::string tmpdir = "/tmp";
  sb->tmp_arg_ = a.size() + 1;
  std::vector<std::string> given = o.given;
  given.insert(given.end(), dirs.begin(), dirs.end());
  if (!layer(a, "/tmp", sb->scratch_ + "/tmp", sb->scratch_, given, sb->links_)) {
    tmpdir = sb->scratch_ + "/tmp";
    a.insert(a.end(), {"--bind", tmpdir, tmpdir});
  }
  // What bwrap and make_links put at the top of a slot's /tmp (release() keeps them): mount
  // points (""), symlinks (their target).
  for (std::size_t i = sb->tmp_arg_ + 2; tmpdir == "/tmp" && i + 2 < a.size(); i += 3) {
    if (a[i] == "--tmpfs") {
      --i;  // one argument
      continue;
    }
    const fs::path dest(a[i + 2]);
    if (dest.parent_path() == "/tmp")
      sb->mount_points_[dest.filename().string()] = a[i] == "--symlink" ? a[i + 1] : std::string();
  }
  for (const auto& [name, target] : sb->links_) sb->mount_points_[name] = target;
  sb->mount_points_["npm-cache"] = "";
  // One npm cache for every slot (npm's cache takes concurrent use): a package is fetched once
  // per run, not once per instance.
  a.insert(a.end(), {"--bind", sb->scratch_ + "/npm-cache", tmpdir + "/npm-cache"});
  // $HOME the same way: what it holds is read (an index registry, a config, a model cache) and
  // stays unchanged; a file or directory a server makes at its top lands in the scratch.
  if (!home.empty() && home != "/" && fs::is_directory(home, ec)) {
    fs::create_directories(sb->scratch_ + "/home", ec);
    sb->home_layered_ = layer(a, home, sb->scratch_ + "/home", sb->scratch_, given, sb->home_links_);
  }
  // The symlinks of slot 0's /tmp and of $HOME's scratch: one new inode each (a few ms for a /tmp
  // of 200 entries on a quiet disk, up to 1 ms apiece on a busy one), made on a thread of their
  // own while the run gets on with its start-up; prefix() waits for them before any instance
  // starts, the destructor before the scratch goes.
  auto links = [tmp = sb->scratch_ + "/tmp", home = sb->scratch_ + "/home", sbp = sb.get()] {
    make_links(tmp, sbp->links_);
    make_links(home, sbp->home_links_);
  };
  try {
    sb->links_made_ = std::async(std::launch::async, links).share();
  } catch (const std::system_error&) {
    links();  // no thread to be had: made here
  }
  for (const auto& pr : sb->projects_) {
    if (pr.view.empty()) continue;  // read-only, as everything else
    a.insert(a.end(), {"--bind", pr.view, pr.real});
    for (const auto& b : pr.bound) a.insert(a.end(), {"--ro-bind", pr.real + "/" + b, pr.real + "/" + b});
  }
  a.insert(a.end(), {"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"});
  if (o.offline) a.push_back("--unshare-net");
  // As root, bwrap keeps every capability unless told: a server with CAP_SYS_ADMIN could remount
  // the read-only binds. Without root, the user namespace has none to give outside it.
  if (::geteuid() == 0) a.insert(a.end(), {"--cap-drop", "ALL"});
  a.push_back("--");
  sb->tmpdir_ = tmpdir;
  sb->env_["TMPDIR"] = tmpdir;
  // npm writes its cache even to run an installed `npx -y pkg`: a cache of the run's own.
  sb->env_["npm_config_cache"] = tmpdir + "/npm-cache";
  return sb;
}

std::string Sandbox::slot_dir(std::size_t slot) const {
  return slot == 0 ? scratch_ + "/tmp" : scratch_ + "/tmp-" + std::to_string(slot);
}

std::vector<std::string> Sandbox::prefix(std::size_t slot) const {
  links_made();
  if (tmp_arg_ == 0 || tmp_arg_ >= prefix_.size()) return prefix_;
  const std::string dir = slot_dir(slot);
  // Made once (an instance started again finds it); mkdir is atomic, so two threads may race.
  if (slot != 0 && ::mkdir(dir.c_str(), 0700) == 0) {
    ::chmod(dir.c_str(), 01777);
    ::mkdir((dir + "/npm-cache").c_str(), 0700);
  }
  make_links(dir, links_);
  if (home_layered_) make_links(scratch_ + "/home", home_links_);
  if (slot == 0) return prefix_;
  std::vector<std::string> a = prefix_;
  a[tmp_arg_] = dir;
  return a;
}

std::size_t Sandbox::fresh_slot() const {
  {
    std::lock_guard<std::mutex> hold(free_mutex_);
    if (!free_.empty()) {
      const std::size_t slot = free_.back();
      free_.pop_back();
      return slot;
    }
  }
  return new_slot();
}

void Sandbox::release(std::size_t slot) const {
  if (slot == 0 || scratch_.empty()) return;
  // What an instance made at the top of its /tmp goes; the mount points bwrap made stay, unless
  // the instance changed them (a bind's is an empty file or directory; a symlink, its target).
  const std::string dir = slot_dir(slot);
  std::error_code ec;
  std::vector<fs::path> made;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    const auto mp = mount_points_.find(it->path().filename().string());
    bool kept = mp != mount_points_.end();
    if (kept && it->is_symlink(e2)) kept = fs::read_symlink(it->path(), e2).string() == mp->second;
    else if (kept) kept = mp->second.empty() && fs::is_empty(it->path(), e2) && !e2;
    if (!kept) made.push_back(it->path());
  }
  if (ec) return;  // not emptied: not lent again
  for (const auto& p : made) remove_tree(p.string());
  std::lock_guard<std::mutex> hold(free_mutex_);
  free_.push_back(slot);
}

void Sandbox::links_made() const {
  const std::shared_future<void> made = links_made_;  // a copy per caller: waited on by several threads
  if (made.valid()) made.wait();
}

Sandbox::~Sandbox() {
  links_made();
  if (!scratch_.empty()) remove_tree(scratch_);
}

std::string Sandbox::describe() const {
  std::string s = version_ + ": own PID namespace";
  for (const auto& pr : projects_) {
    if (!pr.view.empty())
      s += "; " + pr.real + " copied (" + std::to_string(pr.files) + " files, " + human_bytes(pr.bytes) +
           "): its writes land in the copy" +
           (pr.bound.empty() ? std::string()
                            : ", " + std::to_string(pr.bound.size()) +
                                  " read-only (node_modules, what git ignores, git's packs, files over 8 MB)");
    else
      s += "; " + pr.real + " read-only (not copied: " + pr.why_not_copied + ")";
  }
  s += home_layered_ ? "; $HOME read-only, new entries at its top in scratch; the rest read-only; "
                     : "; $HOME and the rest read-only; ";
  s += tmpdir_ + " scratch, its own per instance; network ";
  s += offline_ ? "loopback only" : "shared";
  return s;
}

}  // namespace ctxo::transport
