// SPDX-License-Identifier: MIT
// The workspace as a source of values (--root DIR, else --cwd DIR): a bounded, deterministic scan
// of its files into real paths (relative, absolute, file:// uris, directories), the identifiers
// declared in them (Universal Ctags when it is on PATH, else a small built-in tokenizer), the most
// frequent identifiers, real positions of those identifiers (1-based lines, UTF-16 columns; lines
// with astral or CJK text before the identifier first) and short snippets for query parameters;
// and, when the root is in a git work tree, its recent history: commits, branches, tags and the
// files each recent commit changed (workspace_git.cpp). The Harvest offers these values by kind
// next to the values harvested from answers.
//
// The history is read with git's own commands (log, for-each-ref, diff-tree), run as bounded,
// reaped children through transport::run_command as ctags is, not with a library: libgit2 is not
// among the project's dependencies, and git's plumbing and its --format output are git's own
// stable interface, the one every git MCP server itself drives.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctxo::gen {

using nlohmann::json;

enum class ValueKind;

/// Bounds of a scan (the defaults are what a run uses).
struct WorkspaceOptions {
  std::size_t max_files = 2000;          ///< Files kept (sorted walk: the first ones).
  std::size_t max_entries = 100000;      ///< Directory entries looked at, kept or skipped.
  std::uintmax_t max_file_bytes = 1u << 20;  ///< Larger files are skipped.
  std::uintmax_t max_total_bytes = 32u << 20;  ///< Bytes read for identifiers; later files are paths only.
  std::size_t max_identifiers = 256;
  std::size_t max_positions = 256;
  std::size_t max_snippets = 32;
  /// Run Universal Ctags (`ctags` on PATH) for declared names; false: the built-in tokenizer only.
  bool use_ctags = true;
  std::string ctags_program = "ctags";        ///< Looked up on PATH unless it has a '/'.
  std::chrono::milliseconds ctags_timeout{5000};
  std::size_t max_ctags_output = 16u << 20;   ///< Bytes of ctags output read; past it the output is dropped.
  /// Read the history of the git work tree the root is in (the root or a parent of it is one):
  /// `git` on PATH, each command under git_timeout, none running hooks or the repository's programs.
  bool use_git = true;
  std::string git_program = "git";            ///< Looked up on PATH unless it has a '/'.
  std::chrono::milliseconds git_timeout{3000};  ///< Per command (at most 3 + max_changed_commits of them).
  std::size_t max_git_output = 256u << 10;    ///< Bytes of one command's output; past it that command gives nothing.
  std::size_t max_commits = 20;               ///< Of HEAD's history, newest first.
  std::size_t max_refs = 20;                  ///< Branches, and tags (each).
  std::size_t max_changed_commits = 5;        ///< The newest commits whose changed files are read.
  std::size_t max_changed_files = 64;         ///< Files kept per commit.
};

/// One place an identifier is written.
struct WorkspacePosition {
  std::string path;        ///< Relative, '/' separated.
  std::string name;        ///< The identifier at (line, column).
  std::size_t line = 0;    ///< 1-based.
  std::size_t column = 0;  ///< 1-based, UTF-16 code units.
  bool wide = false;       ///< Astral or CJK text before it on its line.
  bool declaration = false;
};

/// One commit of the root's git history.
struct WorkspaceCommit {
  std::string id;        ///< The full object name (40 hex digits; 64 in a SHA-256 repository).
  std::string short_id;  ///< As git abbreviates it (`%h`).
  std::string subject;   ///< The first line of its message.
  /// The files it changed (added, modified or deleted) under the root, relative to it, '/'
  /// separated; read for the newest max_changed_commits commits only.
  std::vector<std::string> files;
};

/// What a scan found.
struct Workspace {
  std::string root;                      ///< Absolute, canonical; no trailing '/'.
  std::vector<std::string> files;        ///< Relative, ranked (files with wide positions, then most declarations, then name).
  std::vector<std::string> dirs;         ///< Relative directories holding kept files, sorted ("src", "src/lib").
  std::vector<std::string> declared;     ///< Declared identifiers, ranked (hubs: in most files first).
  std::vector<std::string> identifiers;  ///< `declared`, then the most frequent other identifiers.
  std::vector<WorkspacePosition> positions;  ///< Ranked: wide lines first, declarations next.
  std::vector<std::string> snippets;     ///< Short phrases from lines ("function runTask").
  /// Non-ASCII characters of the files' text, first seen first: up to two astral ones (4 UTF-8
  /// bytes: an emoji, 𝄞), then up to two others (é, 検). Regex parameters get classes of them.
  std::vector<std::string> characters;
  /// Module specifiers: each JavaScript/TypeScript file's from the root (`./src/util`) and each
  /// Python file's dotted name (`pkg.mod`), in `files`' order; then the specifiers the files'
  /// imports name, imported by most files first (`./util`, `react`).
  std::vector<std::string> modules;
  /// The git history (empty: the root is in no git work tree, git is not there, or it failed).
  std::vector<WorkspaceCommit> commits;  ///< HEAD's history, newest first.
  std::vector<std::string> branches;     ///< Short names (`main`, `feature/x`), most recently committed first.
  std::vector<std::string> tags;         ///< Short names (`v1.0`), most recently made first.
  std::string source;                    ///< "ctags" or "tokenizer": where `declared` came from.
  std::size_t skipped = 0;               ///< Entries skipped (ignored dirs, binary, too large, outside the root).

  /// The values of one kind, best first (at most `limit`): paths (relative files, their absolute
  /// paths, then directories), uris (file:// of files, then directories), names (identifiers),
  /// snippets (identifiers, then phrases), globs (`*.ext` and `**/*.ext` of the most common
  /// extensions, then `dir/**`), file types (those extensions), modules (`modules`), revisions
  /// (the newest commits' short ids, the branches, the tags, those commits' full ids, `HEAD` and
  /// `HEAD~1`, then the older commits' short and full ids); ids and cursors: none.
  std::vector<json> values_of(ValueKind kind, std::size_t limit = 128) const;
  /// The absolute path of relative `path`.
  std::string absolute(const std::string& path) const;
  /// The file:// uri of relative `path` (percent-encoded as RFC 8089 asks).
  std::string uri(const std::string& path) const;
  /// "14 files, 37 identifiers (ctags)", with ", 20 commits (git)" when the history was read.
  std::string summary() const;
};

/// Scans `dir` (nullopt: it is not a readable directory). Deterministic for the same tree. Never
/// follows a symlink out of the root, never descends a symlinked directory, skips `.git`,
/// `node_modules`, `build*`, `dist`, `target`, `.venv` and every hidden entry, binary files (a NUL
/// byte, or not UTF-8) and files over max_file_bytes.
std::optional<Workspace> scan_workspace(const std::string& dir, const WorkspaceOptions& options = {});

/// Fills `ws.commits`, `branches` and `tags` from the git work tree `ws.root` is in, running the
/// program `git` (a path: scan_workspace looks options.git_program up on PATH). Leaves them empty,
/// printing nothing, when `ws.root` is in no repository, the repository has no commit, or reading
/// the commits or the refs fails, times out or says too much (a commit whose files cannot be
/// listed ends the files, not the history). Never runs a hook, an fsmonitor, a signature program
/// or a pager, and takes no optional lock.
void read_git_history(Workspace& ws, const std::string& git, const WorkspaceOptions& options);

/// The module specifier of relative `path`, when it is a JavaScript/TypeScript or Python file:
/// `./src/util` for src/util.ts (`./util` from its own directory), `pkg.mod` for pkg/mod.py.
std::optional<std::string> module_of(const std::string& path, bool from_its_directory = false);

}  // namespace ctxo::gen
