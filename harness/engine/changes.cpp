// SPDX-License-Identifier: MIT
#include "engine/changes.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace ctxo::engine {

namespace fs = std::filesystem;

namespace {

void push(std::vector<std::string>& list, std::size_t& count, const std::string& path) {
  ++count;
  if (list.size() < FileChanges::kMaxListed) list.push_back(path);
}

}  // namespace

void FileChanges::add(const FileChanges& o) {
  auto merge = [](std::vector<std::string>& into, std::size_t& count, const std::vector<std::string>& from, std::size_t n) {
    for (const auto& p : from)
      if (into.size() < kMaxListed && std::find(into.begin(), into.end(), p) == into.end()) into.push_back(p);
    std::sort(into.begin(), into.end());
    count += n;
  };
  merge(created, created_count, o.created, o.created_count);
  merge(changed, changed_count, o.changed, o.changed_count);
  merge(deleted, deleted_count, o.deleted, o.deleted_count);
}

std::string FileChanges::describe(std::size_t names) const {
  std::string s;
  std::size_t named = 0;
  auto part = [&](const char* verb, const std::vector<std::string>& list, std::size_t count) {
    if (count == 0) return;
    s += (s.empty() ? "" : "; ") + std::string(verb) + " ";
    std::string these;
    std::size_t here = 0;
    for (const auto& p : list) {
      if (named >= names) break;
      these += (these.empty() ? "" : ", ") + p;
      ++named;
      ++here;
    }
    if (here < count) these += (these.empty() ? "" : " and ") + std::to_string(count - here) + (here ? " more" : " files");
    s += these;
  };
  part("created", created, created_count);
  part("changed", changed, changed_count);
  part("deleted", deleted, deleted_count);
  return s;
}

ChangeWatch::ChangeWatch(std::vector<std::pair<std::string, std::string>> dirs) : dirs_(std::move(dirs)) {
  last_ = scan();
}

std::map<std::string, ChangeWatch::Entry> ChangeWatch::scan() const {
  std::map<std::string, Entry> out;
  std::size_t seen = 0;
  for (const auto& [dir, name] : dirs_) {
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      if (++seen > kMaxEntries) return out;
      const fs::path rel = it->path().lexically_relative(dir);
      const std::string key = name.empty() ? rel.generic_string() : name + "/" + rel.generic_string();
      struct stat st {};
      if (::lstat(it->path().c_str(), &st) != 0) continue;
      Entry e;
      e.type = S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' : 'o';
      // A directory's own times move with every file made in it: its files say what changed.
      if (e.type != 'd') {
        e.size = static_cast<std::uint64_t>(st.st_size);
        e.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
        e.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
        e.inode = static_cast<std::uint64_t>(st.st_ino);
      }
      out.emplace(key, e);
      if (e.type == 'd') {
        const auto fname = it->path().filename();
        const auto parent = it->path().parent_path().filename();
        if (fname == "node_modules" || (fname == "objects" && parent == ".git")) it.disable_recursion_pending();
      }
    }
  }
  return out;
}

FileChanges ChangeWatch::take() {
  auto now = scan();
  FileChanges c;
  for (const auto& [path, e] : now) {
    auto it = last_.find(path);
    if (it == last_.end()) push(c.created, c.created_count, path);
    else if (!(it->second == e)) push(c.changed, c.changed_count, path);
  }
  for (const auto& [path, e] : last_)
    if (!now.count(path)) push(c.deleted, c.deleted_count, path);
  last_ = std::move(now);
  return c;
}

}  // namespace ctxo::engine
