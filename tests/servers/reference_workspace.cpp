// SPDX-License-Identifier: MIT
// Loading and searching the reference server's fixture workspace.
#include "reference_workspace.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

#include "truncation/unicode.h"

namespace ctxo::reference {

namespace fs = std::filesystem;

namespace {

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& content) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < content.size()) {
    std::size_t end = content.find('\n', start);
    if (end == std::string::npos) end = content.size();
    std::string line = content.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

}  // namespace

Result<Workspace> Workspace::load(const std::string& root) {
  std::error_code ec;
  fs::path base = fs::weakly_canonical(fs::absolute(fs::path(root), ec), ec);
  if (ec || !fs::is_directory(base, ec)) {
    return make_error("io", "workspace is not a directory: " + root);
  }
  Workspace ws;
  ws.root_ = base.generic_string();
  fs::recursive_directory_iterator it(base, fs::directory_options::skip_permission_denied, ec);
  if (ec) return make_error("io", "cannot read workspace " + root + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return make_error("io", "cannot read workspace " + root + ": " + ec.message());
    if (!it->is_regular_file(ec)) continue;
    std::ifstream in(it->path(), std::ios::binary);
    if (!in) return make_error("io", "cannot read " + it->path().string());
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SourceFile file;
    file.path = it->path().lexically_relative(base).generic_string();
    file.bytes = content.size();
    file.lines = split_lines(content);
    ws.files_.push_back(std::move(file));
  }
  if (ws.files_.empty()) return make_error("io", "workspace holds no file: " + root);
  std::sort(ws.files_.begin(), ws.files_.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  return ws;
}

const SourceFile* Workspace::find(std::string_view path) const {
  std::size_t i = index_of(path);
  return i < files_.size() ? &files_[i] : nullptr;
}

std::size_t Workspace::index_of(std::string_view path) const {
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (files_[i].path == path) return i;
  }
  return files_.size();
}

std::vector<LineMatch> Workspace::search(std::string_view query) const {
  std::vector<LineMatch> out;
  if (query.empty()) return out;
  const std::string needle = ascii_lower(query);
  const std::string first = needle.substr(0, first_char_length(needle));
  for (std::size_t f = 0; f < files_.size(); ++f) {
    const auto& lines = files_[f].lines;
    for (std::size_t l = 0; l < lines.size(); ++l) {
      const std::string hay = ascii_lower(lines[l]);
      LineMatch m;
      m.file = f;
      m.line = l + 1;
      std::size_t pos = hay.find(needle);
      std::size_t len = needle.size();
      m.exact = pos != std::string::npos;
      if (!m.exact) {
        pos = hay.find(first);
        len = first.size();
      }
      if (pos == std::string::npos) continue;
      m.byte_offset = pos;
      m.text = lines[l].substr(pos, len);
      out.push_back(std::move(m));
    }
  }
  return out;
}

std::size_t utf16_column(std::string_view line, std::size_t byte_offset) {
  return truncation::utf16_length(line.substr(0, std::min(byte_offset, line.size()))) + 1;
}

std::size_t first_char_length(std::string_view text) {
  if (text.empty()) return 0;
  const auto lead = static_cast<unsigned char>(text[0]);
  std::size_t n = 1;
  if (lead >= 0xF0 && lead < 0xF8) {
    n = 4;
  } else if (lead >= 0xE0) {
    n = lead < 0xF0 ? 3 : 1;
  } else if (lead >= 0xC0) {
    n = 2;
  }
  return std::min(n, text.size());
}

}  // namespace ctxo::reference
