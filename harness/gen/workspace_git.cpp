// SPDX-License-Identifier: MIT
// The workspace's git history (Workspace::commits, branches, tags): what a git tool's `revision`,
// `target` or `rev` takes, and for a tool taking a revision and a file, a commit and a file it
// changed. Read with git's own commands as bounded, reaped children (transport::run_command), not
// with a library (see workspace.h): `log` for HEAD's newest commits, `for-each-ref` for branches
// and tags, `diff-tree` for the files each of the newest commits changed.
//
// A scanned project is not trusted: its .git/config may name programs (core.fsmonitor,
// core.hooksPath, gpg.program with log.showSignature, core.pager). Every command overrides those
// with `-c` (which wins over every config file), runs no pager and takes no optional lock, so
// reading the history runs nothing of the repository's and writes nothing into it. Environment
// variables (GIT_CONFIG_NOSYSTEM) cannot be passed through run_command; the `-c` options cover
// what they would.
#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "gen/workspace.h"
#include "transport/run_command.h"

namespace ctxo::gen {

namespace {

// git's argv for one command in `root`, with the overrides above.
std::vector<std::string> git_argv(const std::string& git, const std::string& root,
                                  std::initializer_list<std::string> args) {
  std::vector<std::string> argv = {git,  "--no-pager", "--no-optional-locks",      "-c", "core.fsmonitor=false",
                                   "-c", "core.hooksPath=/dev/null", "-c", "log.showSignature=false", "-C", root};
  argv.insert(argv.end(), args);
  return argv;
}

// A command's output, or nullopt when it did not run, failed, timed out or said too much.
std::optional<std::string> run_git(const std::vector<std::string>& argv, const WorkspaceOptions& o) {
  transport::CommandOptions co;
  co.limit = o.git_timeout;
  co.max_output = o.max_git_output;
  transport::CommandResult r = transport::run_command(argv, co);
  if (!r.started || r.timed_out || r.too_long || r.exit_code != 0) return std::nullopt;
  return std::move(r.output);
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  while (!s.empty()) {
    const std::size_t at = s.find(sep);
    out.emplace_back(s.substr(0, at));
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

bool hex_id(const std::string& s) {
  return s.size() >= 4 && s.size() <= 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// HEAD's newest commits: "<full>\0<short>\0<subject>" per line.
std::optional<std::vector<WorkspaceCommit>> read_commits(const std::string& git, const std::string& root,
                                                         const WorkspaceOptions& o) {
  auto out = run_git(git_argv(git, root, {"log", "-n", std::to_string(o.max_commits), "--no-color",
                                          "--format=%H%x00%h%x00%s", "HEAD", "--"}),
                     o);
  if (!out) return std::nullopt;
  std::vector<WorkspaceCommit> commits;
  for (const std::string& line : split(*out, '\n')) {
    std::vector<std::string> f = split(line, '\0');
    if (f.size() != 3 || !hex_id(f[0]) || !hex_id(f[1])) continue;
    WorkspaceCommit c{f[0], f[1], is_valid_utf8(f[2]) ? f[2] : std::string(), {}};
    commits.push_back(std::move(c));
  }
  return commits;
}

// Short ref names under `prefix`, newest first.
std::optional<std::vector<std::string>> read_refs(const std::string& git, const std::string& root, const char* prefix,
                                                  const char* sort, const WorkspaceOptions& o) {
  auto out = run_git(git_argv(git, root, {"for-each-ref", "--count=" + std::to_string(o.max_refs),
                                          std::string("--sort=") + sort, "--format=%(refname:short)", prefix}),
                     o);
  if (!out) return std::nullopt;
  std::vector<std::string> refs;
  for (std::string& r : split(*out, '\n'))
    if (!r.empty() && is_valid_utf8(r) && r.find_first_of(" \t") == std::string::npos) refs.push_back(std::move(r));
  return refs;
}

// The files `commit` changed under the root, relative to it (`--relative` drops the others;
// `--root` lists a first commit's files; `-z`: names as they are, never quoted).
std::optional<std::vector<std::string>> read_changed(const std::string& git, const std::string& root,
                                                     const std::string& commit, const WorkspaceOptions& o) {
  auto out = run_git(git_argv(git, root, {"diff-tree", "-z", "--no-commit-id", "--name-only", "-r", "--root",
                                          "--relative", "--no-renames", commit}),
                     o);
  if (!out) return std::nullopt;
  std::vector<std::string> files;
  for (std::string& f : split(*out, '\0'))
    if (!f.empty() && is_valid_utf8(f) && files.size() < o.max_changed_files) files.push_back(std::move(f));
  return files;
}

}  // namespace

void read_git_history(Workspace& ws, const std::string& git, const WorkspaceOptions& o) {
  ws.commits.clear();
  ws.branches.clear();
  ws.tags.clear();
  // No repository, no commit yet, or no git that works: no facts (and nothing said).
  auto commits = read_commits(git, ws.root, o);
  if (!commits || commits->empty()) return;
  auto branches = read_refs(git, ws.root, "refs/heads/", "-committerdate", o);
  auto tags = branches ? read_refs(git, ws.root, "refs/tags/", "-creatordate", o) : std::nullopt;
  if (!tags) return;  // a repository that half answers is not trusted with the rest
  // A commit too large to list (an import of thousands of files) ends the files, not the history.
  for (std::size_t i = 0; i < commits->size() && i < o.max_changed_commits; ++i) {
    auto files = read_changed(git, ws.root, (*commits)[i].id, o);
    if (!files) break;
    (*commits)[i].files = std::move(*files);
  }
  ws.commits = std::move(*commits);
  ws.branches = std::move(*branches);
  ws.tags = std::move(*tags);
}

}  // namespace ctxo::gen
