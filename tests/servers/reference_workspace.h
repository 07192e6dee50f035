// SPDX-License-Identifier: MIT
// The reference server's fixture workspace: text files read once, searched line by line, with
// positions as the envelope profiles want them (1-based lines, 1-based UTF-16 columns).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ctxo::reference {

/// One file of the workspace.
struct SourceFile {
  std::string path;                ///< Relative to the root, '/' separators.
  std::vector<std::string> lines;  ///< Without line terminators; a final newline adds no line.
  std::size_t bytes = 0;           ///< Size on disk.
};

/// One line that matched a search.
struct LineMatch {
  std::size_t file = 0;         ///< Index into Workspace::files().
  std::size_t line = 0;         ///< 1-based line number.
  std::size_t byte_offset = 0;  ///< Where the match starts in the line (UTF-8 bytes).
  std::string text;             ///< The matched text as it is in the file.
  bool exact = false;           ///< True when the whole query matched, false for the first-character match.
};

/// A read-only snapshot of a directory of text files.
class Workspace {
 public:
  /// Reads every regular file under `root` (recursively, sorted by relative path). Error "io"
  /// when `root` is not a readable directory or holds no file.
  [[nodiscard]] static Result<Workspace> load(const std::string& root);

  /// Absolute, normalised root directory.
  const std::string& root() const { return root_; }
  /// Files in path order.
  const std::vector<SourceFile>& files() const { return files_; }
  /// The file with this relative path, or nullptr.
  const SourceFile* find(std::string_view path) const;
  /// Index of the file with this relative path in files(), or files().size() when absent.
  std::size_t index_of(std::string_view path) const;

  /// Every line that contains `query` (ASCII case-insensitively), else its first character
  /// (code point, same folding), one match per line at the first occurrence, in file/line order.
  /// An empty query matches nothing.
  std::vector<LineMatch> search(std::string_view query) const;

 private:
  std::string root_;
  std::vector<SourceFile> files_;
};

/// 1-based UTF-16 column of the byte `byte_offset` of `line`.
std::size_t utf16_column(std::string_view line, std::size_t byte_offset);

/// Length of the UTF-8 sequence starting at `text[0]` (1 for ASCII or an invalid lead byte,
/// capped at text.size()); 0 for empty text.
std::size_t first_char_length(std::string_view text);

}  // namespace ctxo::reference
