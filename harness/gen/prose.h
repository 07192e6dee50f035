// SPDX-License-Identifier: MIT
// Values named in prose and Markdown answers: most real servers answer in text, not JSON, and the
// names, paths and anchors they print (`log`, `src/shapes.ts:3`, `[FILE] package.json`) are what
// their other tools take. Hand-written scanning, linear in the text, bounded; precise rather than
// greedy: an English word is never a name, and nothing our own request said is taken back.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gen/values.h"

namespace ctxo::gen {

/// One value found in a text answer.
struct ProseValue {
  ValueKind kind = ValueKind::kName;
  std::string value;
  bool operator==(const ProseValue&) const = default;
};

/// At most this many values per answer, first seen first.
inline constexpr std::size_t kProseMaxValues = 64;
/// Text past this many bytes is not read (cut at the last line break before it).
inline constexpr std::size_t kProseMaxBytes = 256 * 1024;

/// The values a prose or Markdown text names, in order of appearance, each (kind, value) once, at
/// most kProseMaxValues:
/// - paths: `path:line[:col]` and `path(line,col)` anchors anywhere (ripgrep and compiler style),
///   `[FILE] x` / `[DIR] x` listing lines, a line that is one path, a heading that is one path, and
///   tokens shaped like paths (a '/' and a file extension, or an absolute or ./ path; bare
///   `name.ext` only with a known source extension or in a Markdown structure);
/// - names: backticked code spans (`log`, `Shape.area`, `run()`), tokens that look like code
///   (camelCase, snake_case, letters with digits, `a::b`, `a.b`), and, as the first token of a
///   list item or a table row, a plain word when the same item also names a path, an anchor or a
///   kind (`- log (function) src/util.ts:40`, `| log | src/util.ts | 40 |`), and the items of a
///   comma list after a code noun (`Found 3 symbols: a, b, c`);
/// - `file://` uris (kUri) and `path::name::kind` ids (kId).
/// A value equal to one of `exclude` (the strings of the request that got this answer), a part of
/// one, or a path ending in "/" + one of them is left out: a server that quotes its input ("Created
/// file zzz", "No symbol named zzz") must not feed our own random strings back.
std::vector<ProseValue> prose_values(std::string_view text, const std::vector<std::string>& exclude = {});

/// The path of a token that is one anchor as prose prints it: `path:line[:col]`, with ':'s after
/// it (ripgrep's `src/a.ts:12:5:`), `path(line[,col])` (tsc, MSBuild) or `path#Lline[-...]`
/// (core/anchor.h's parse_anchor), when the path has a '/' or an extension (not a domain's:
/// `example.com:443`) and none of the characters path values never hold (blanks, quotes,
/// brackets, ':', a scheme's "://"). A view into `token`.
std::optional<std::string_view> anchor_path(std::string_view token);

/// An id a text gives after a label that says what it is (prose_labels.cpp).
struct LabelledValue {
  std::vector<std::string> names;  ///< The parameter names it is offered to, as harvest_key spells them.
  std::string value;
};
/// Ids after a label whose last word is id, uuid, session, output, job, task, run, search,
/// request, handle, token or cursor, then ':' or '=' (`Session ID: 7f3a-19`, "search session:
/// `a1b2c3`", `outputId=out_93b1`): a backticked or quoted span, or a token holding a digit, a '-'
/// or '_', or both cases (not "none", "pending"...). At most 16 per text, each offered under the
/// label's last two words joined (`searchsession`, `sessionid`) and, for a noun other than id,
/// the noun alone and the noun with "id" (`session`, `sessionid`). A value inside one of `exclude`
/// (the request's own strings) is left out.
std::vector<LabelledValue> labelled_values(std::string_view text, const std::vector<std::string>& exclude = {});

/// Every string in a call's arguments (nested too; at most 256 of them), for prose_values' exclude.
std::vector<std::string> argument_strings(const nlohmann::json& arguments);

/// Whether a tool (its tools/list entry) only reads: its prose answers are harvested, and it is
/// offered the workspace's real paths and names (a tool that may write, move or delete never is).
/// Annotated `destructiveHint: true` or `readOnlyHint: false`: no. Annotated `readOnlyHint: true`:
/// yes. Not annotated: yes when a word of its name says it reads (list, get, find, search, read,
/// show, describe, query, lookup, outline, references, definition, hover, ...; `log` only beside a
/// version-control word: git_log reads, log_event does not) and none says it
/// writes or runs (write, create, delete, update, set, run, exec, move, rename, ...).
bool reading_tool(const nlohmann::json& tool);

}  // namespace ctxo::gen
