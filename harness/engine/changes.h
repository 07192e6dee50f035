// SPDX-License-Identifier: MIT
// What the server's tools changed in the project, observed rather than guessed: the project as
// the server sees it (the sandbox's copy, or the directory itself without a sandbox) is scanned
// after each tool's calls and compared with the scan before. Bounded: at most kMaxEntries
// entries are looked at per scan (node_modules and .git's objects are not looked into).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ctxo::engine {

/// Paths relative to the project (with the project's own path first when a run has several),
/// sorted, each list at most kMaxListed long; the counts are whole.
struct FileChanges {
  std::vector<std::string> created, changed, deleted;
  std::size_t created_count = 0, changed_count = 0, deleted_count = 0;
  bool empty() const { return created_count + changed_count + deleted_count == 0; }
  std::size_t count() const { return created_count + changed_count + deleted_count; }
  /// `other`'s changes added to these (a tool's changes over several phases).
  void add(const FileChanges& other);
  /// "created a.txt, changed README.md and 3 more" (at most `names` paths named).
  std::string describe(std::size_t names = 5) const;
  static constexpr std::size_t kMaxListed = 50;
};

class ChangeWatch {
 public:
  /// `dirs`: (the directory to scan, the name its paths are reported under: "" = relative only).
  explicit ChangeWatch(std::vector<std::pair<std::string, std::string>> dirs);
  /// The changes since the last call (or since construction).
  FileChanges take();
  static constexpr std::size_t kMaxEntries = 50000;

 private:
  struct Entry {
    char type = 0;  ///< 'f' file, 'd' directory, 'l' symlink, 'o' other
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0, ctime_ns = 0;
    std::uint64_t inode = 0;
    bool operator==(const Entry& o) const {
      return type == o.type && size == o.size && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns && inode == o.inode;
    }
  };
  std::map<std::string, Entry> scan() const;
  std::vector<std::pair<std::string, std::string>> dirs_;
  std::map<std::string, Entry> last_;
};

}  // namespace ctxo::engine
