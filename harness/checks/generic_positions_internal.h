// SPDX-License-Identifier: MIT
// What the two files of the generic position rules share (generic_anchors.cpp and
// generic_positions.cpp), internal to them: not part of checks/generic_positions.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/generic_positions.h"
#include "checks/outcome.h"
#include "mcp/answer.h"

namespace ctxo::checks::generic {

inline constexpr std::uintmax_t kMaxFileBytes = 8u * 1024u * 1024u;
inline constexpr std::size_t kMaxFiles = 64;  ///< Files kept read per run.
/// The arguments a call names its identifier in.
inline constexpr const char* kArgNameKeys[] = {"symbol", "symbolName", "symbol_name", "name", "identifier", "query"};

/// An integer (or a float with no fraction); nullopt otherwise.
std::optional<std::int64_t> int_of(const nlohmann::json* j);
/// The identifier a name stands for: `runTask`, or the last segment of `Scheduler.start` /
/// `a::b`; "" when it is not one (a path, a sentence, a file's name).
std::string identifier_of(std::string_view s);
/// The file's lines, each with its '\r' kept (a CRLF file's lines end in '\r'); a text ending in
/// '\n' has an empty last line.
std::vector<std::string_view> split_lines(std::string_view text);
/// The text with every non-ASCII code point, '?' and U+FFFD set aside and whitespace runs (with
/// '\r') made one space, trimmed: what a mangling transport leaves of a line.
std::string skeleton(std::string_view s);
/// `s` without the characters of `ws` at either end.
std::string trim_ws(std::string_view s, const char* ws = " \t\r\n");

/// The workspace's files as the position rules read them: a path an answer names made relative
/// to the workspace ("" outside it), and a relative path's content (nullopt: none, binary, too big).
struct FileLookup {
  std::function<std::string(const std::string&)> relative;
  std::function<const std::optional<std::string>&(const std::string&)> read;
};

/// Completeness against the workspace (generic_completeness.cpp): a text search for one literal
/// identifier (a `query`/`pattern`/... argument of at least 3 characters; a tool whose name or
/// description speaks of references, usages, symbols or meaning is not one) whose answer lists
/// places in workspace files must list, in each file it names, every line holding that literal
/// as a word: the lines missing are TR-COUNT when the answer says it is complete (a total equal
/// to its items, "Found N" as many as shown, a more-flag false), else TR-HINT. Judged only where
/// the truth is plain: every place is in the workspace, every line listed holds the literal (in
/// any case: not context lines, not matches by meaning), the answer signals no cut (the
/// vocabulary's flags, counts, ways on, pages; words such as "limit", "truncated", "more", "..."
/// outside the quoted lines), and no integer the call sent equals the file's count (a limit per
/// file asked for). Lines over 1,000 bytes are not counted (search tools skip minified lines).
struct SearchJudgement {
  bool judged = false;             ///< The answer was one the rule can redo (every condition held).
  bool claimed = false;            ///< It says it is complete (TR-COUNT applies, not only TR-HINT).
  std::optional<Finding> finding;  ///< The first file with lines missing.
};
SearchJudgement search_omission(const nlohmann::json* tool_json, const nlohmann::json& arguments,
                                const mcp::Answer& answer, const std::vector<Anchor>& anchors, bool zero_based,
                                const FileLookup& files);

/// Whole-file answers against the workspace (generic_completeness.cpp): a call that asks a
/// reading or blame tool for the lines of workspace file `rel` (all of them, or a start and end
/// line it sends) must get each of them, unless the answer says it was cut. A line is there when
/// its text (trimmed; or its skeleton, for a line whose characters were mangled: TR-VERBATIM's
/// business) is in the answer's text or in a string of its JSON. Judged only where the truth is
/// plain: the tool reads or blames by its name or description (not an outline, a search, a
/// diff); no integer argument but the range's; no argument naming a revision (`rev`, `commit`,
/// `ref`, `branch`...: the file at that commit is not the working tree's); at most 2,000 lines asked; at least 2 lines of 8+
/// characters asked; a reading tool's answer holds at least half of them (a blame tool's any);
/// no cut signal (the vocabulary's, or a cut word outside the file's own lines). The first
/// missing line is the finding: TR-COUNT when the answer says it is complete (a total of lines
/// equal to those it returned), else TR-HINT; cause form workspace-omission, `kind` lines-asked.
SearchJudgement file_omission(const nlohmann::json* tool_json, const nlohmann::json& arguments,
                              const mcp::Answer& answer, const std::string& rel, const std::string& content);

}  // namespace ctxo::checks::generic
