// SPDX-License-Identifier: MIT
// The sandbox a server runs in (Linux, bubblewrap): its own PID namespace (a kill tool reaches
// only the server's own processes), the whole file system read-only (the user's files and $HOME
// are read, never written), writes to the project landing in a throwaway copy bound at its own
// path, /tmp a scratch directory of each instance's own (a slot), the network as it is (or
// loopback only: offline). The scratch directories are removed when the Sandbox is destroyed.
// The harness itself, its reports, case files and transcripts stay outside.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"

namespace ctxo::transport {

/// Whether a sandbox can be made here, and with what.
struct SandboxSupport {
  bool usable = false;
  std::string bwrap;    ///< The bwrap executable (absolute), when found.
  std::string version;  ///< "bubblewrap 0.8.0".
  /// Why not, in a line a user can act on ("bwrap not found: install bubblewrap (Debian/Ubuntu:
  /// apt install bubblewrap)", "bwrap cannot create namespaces here: ...").
  std::string why_not;
};

/// Finds bwrap in PATH and starts one throwaway sandbox (`true` inside) to prove namespaces can be
/// made (user namespaces may be disabled, e.g. Ubuntu 24.04's AppArmor restriction). Linux only;
/// elsewhere never usable. Bounded: a bwrap that does not answer in 5 s is not usable.
SandboxSupport probe_sandbox();

struct SandboxOptions {
  /// Directories whose writes land in a copy (the project: --root, --cwd, the current directory).
  /// A directory inside another one listed is covered by it.
  std::vector<std::string> projects;
  /// Of `projects`, those the user did not name (the current directory): one git ignores (a
  /// build directory) is not copied.
  std::vector<std::string> implicit;
  /// Paths the server is given (its command and arguments, its environment's values): an entry
  /// of /tmp or $HOME that holds one is bound at its own path, so its real path is what the
  /// server was given; the others are symlinks into one read-only bind of the real directory (a
  /// bind per entry costs bwrap a reading of the whole mount table: 65 ms for 200, 0.9 s for
  /// 1,000, at every start).
  std::vector<std::string> given;
  bool offline = false;  ///< Only the sandbox's own loopback: no network.
  /// A project larger than this (bytes of regular files, or entries) is not copied: it is bound
  /// read-only, and writes to it fail.
  std::uint64_t max_copy_bytes = 256ull << 20;
  std::size_t max_copy_entries = 50000;
  /// A file larger than this is bound read-only in the copy instead of copied.
  std::uint64_t max_copy_file_bytes = 8ull << 20;
  std::string scratch_parent;  ///< Where the scratch directory is made ("" = $TMPDIR or /tmp).
  std::string home;            ///< The server's $HOME ("" = ours).
};

/// One project directory as the sandbox shows it.
struct SandboxProject {
  std::string real;  ///< Its path (absolute, canonical): the server sees it there.
  std::string view;  ///< Where its copy is on the host ("" = not copied: bound read-only).
  std::string why_not_copied;  ///< Why it was not ("" when copied).
  std::size_t files = 0;       ///< Regular files copied.
  std::uint64_t bytes = 0;     ///< Their bytes.
  /// Directories (node_modules, what git ignores, .git/objects/pack) and large files bound
  /// read-only inside the copy instead of copied, relative.
  std::vector<std::string> bound;
};

class Sandbox {
 public:
  /// Makes the scratch directory and the projects' copies. Errors: "sandbox" (cannot make the
  /// scratch directory).
  static Result<std::shared_ptr<Sandbox>> create(const SandboxSupport& support, const SandboxOptions& options);
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  /// The bwrap command line up to and including "--": the server's argv follows (its argv[0]
  /// resolved to an absolute path first). Slot 0's (see below), with its /tmp's symlinks made.
  const std::vector<std::string>& prefix() const {
    links_made();
    return prefix_;
  }
  /// The command line of an instance in `slot`: its /tmp is the slot's own directory in the
  /// scratch (made here on first use), with the real /tmp's entries in it read-only (a symlink
  /// into the real /tmp bound read-only at /tmp/.ctxo-host, or a bind at its own path for an
  /// entry holding a path the server is given), as in every slot; a symlink an instance removed
  /// is made again here. Instances that run at once each take a slot of their own (two servers
  /// that name a file by their pid, the same small pid in each PID namespace, do not meet); one
  /// started again in the same slot finds what the earlier one left there. npm's cache is one for
  /// every slot. Only the /tmp bind differs from prefix(): the real /tmp was read once, by
  /// create(). Thread-safe.
  std::vector<std::string> prefix(std::size_t slot) const;
  /// A slot no instance has had (1, 2, ...): a session's, for all its instances. Thread-safe.
  std::size_t new_slot() const { return ++slots_; }
  /// A slot whose /tmp holds nothing an instance left: one release() gave back, else a new one
  /// (a fresh instance's, a probe's). Thread-safe.
  std::size_t fresh_slot() const;
  /// Empties a fresh_slot()'s /tmp of what its instance left (bwrap's mount points stay: the next
  /// instance there starts as fast as one started again) and lends it to the next fresh_slot().
  /// Slot 0 is never given back. Thread-safe.
  void release(std::size_t slot) const;
  /// Environment the server gets on top of the run's: TMPDIR, npm's cache in the scratch. The
  /// same for every slot: the paths are the instance's own /tmp as it sees it.
  const std::map<std::string, std::string>& env() const { return env_; }
  const std::vector<SandboxProject>& projects() const { return projects_; }
  bool offline() const { return offline_; }
  const std::string& scratch() const { return scratch_; }
  /// One line for the banner and the report: "bubblewrap 0.8.0: own PID namespace; /p copied
  /// (12 files, 80 KB): writes land in the copy; $HOME and the rest read-only; /tmp scratch, its
  /// own per instance; network shared".
  std::string describe() const;

 private:
  Sandbox() = default;
  std::string slot_dir(std::size_t slot) const;
  /// Waits for create()'s symlinks (made on a thread of their own). Thread-safe.
  void links_made() const;
  std::vector<std::string> prefix_;
  std::size_t tmp_arg_ = 0;  ///< The index in prefix_ of the /tmp bind's source (the slot's).
  mutable std::atomic<std::size_t> slots_{0};
  mutable std::mutex free_mutex_;
  mutable std::vector<std::size_t> free_;  ///< Released slots, emptied.
  /// What bwrap puts at the top of every slot's /tmp: the real /tmp's entries (their names, and a
  /// symlink's target, "" for a bind's mount point) and npm's cache; release() keeps these.
  std::map<std::string, std::string> mount_points_;
  /// The real /tmp's entries as symlinks at the top of every slot's /tmp, and $HOME's at the top
  /// of its scratch: name, target.
  std::map<std::string, std::string> links_, home_links_;
  /// Slot 0's and $HOME's symlinks of links_ and home_links_ being made (create()); read-only after.
  std::shared_future<void> links_made_;
  std::map<std::string, std::string> env_;
  std::vector<SandboxProject> projects_;
  std::string scratch_, version_, tmpdir_;
  bool offline_ = false;
  bool home_layered_ = false;  ///< $HOME's top takes new entries (in the scratch).
};

/// A slot of its own (Sandbox::fresh_slot) for one fresh instance, released (emptied, lent again)
/// when this is destroyed; slot 0 and nothing to release without a sandbox. Movable.
class SandboxSlot {
 public:
  SandboxSlot() = default;
  explicit SandboxSlot(std::shared_ptr<const Sandbox> sandbox)
      : sandbox_(std::move(sandbox)), slot_(sandbox_ ? sandbox_->fresh_slot() : 0) {}
  ~SandboxSlot() {
    if (sandbox_) sandbox_->release(slot_);
  }
  SandboxSlot(SandboxSlot&& o) noexcept : sandbox_(std::move(o.sandbox_)), slot_(o.slot_) { o.sandbox_.reset(); }
  SandboxSlot& operator=(SandboxSlot&& o) noexcept {
    if (this != &o) {
      if (sandbox_) sandbox_->release(slot_);
      sandbox_ = std::move(o.sandbox_);
      slot_ = o.slot_;
      o.sandbox_.reset();
    }
    return *this;
  }
  SandboxSlot(const SandboxSlot&) = delete;
  SandboxSlot& operator=(const SandboxSlot&) = delete;
  std::size_t id() const { return slot_; }

 private:
  std::shared_ptr<const Sandbox> sandbox_;
  std::size_t slot_ = 0;
};

}  // namespace ctxo::transport
