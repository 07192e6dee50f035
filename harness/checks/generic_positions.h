// SPDX-License-Identifier: MIT
// Positions anywhere, and verbatim text, judged against the workspace (issue 29): the generic
// reading of POS-BASE, POS-UTF16 and TR-VERBATIM for answers no envelope profile matched. Real
// servers (LSP bridges, code-graph servers) speak their own dialects: `{file, line, column}`,
// LSP `Location`s and ranges, `path:line:col` anchors in Markdown. Each position is resolved in
// the workspace (--root, else --cwd) and judged only when it resolves confidently: the file
// exists, the line exists, and the answer names the text that is there (a name, a snippet, or the
// identifier the call asked about). docs/ENVELOPE-CHECKS.md ("Generic positions") is the contract.
// Every finding says profile "generic" and where in the workspace it points.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/outcome.h"
#include "mcp/answer.h"
#include "mcp/client.h"

namespace ctxo::checks {

namespace generic {

using nlohmann::json;

/// What a tool's listing says about how it counts: its description (and its schemas'
/// descriptions) saying "0-based", "zero-based", "0-indexed" or "LSP position(s)".
bool declares_zero_based(const json& tool);

/// One position found in an answer.
struct Anchor {
  std::string file;                    ///< As the answer wrote it (relative, absolute or file://).
  std::optional<std::int64_t> line;    ///< As written (not converted).
  std::optional<std::int64_t> column;  ///< As written.
  std::optional<std::int64_t> end_line;
  std::string name;     ///< The identifier the answer says is there ("" = none).
  std::string snippet;  ///< The text the answer quotes at that line ("" = none).
  std::string snippet_key;  ///< The field the snippet came from ("snippet", "content", ...).
  std::string where;    ///< "/results/0", "/references/2/range", or "text" for a text anchor.
  bool lsp = false;     ///< From an LSP Location / range (`{uri, range:{start:{line, character}}}`).
};

/// The positions in one JSON document (objects with a path/file/filePath/uri/targetUri and a
/// line/startLine/lineNumber, or an LSP range/targetSelectionRange/targetRange/selectionRange/
/// position with start.line). At most 512, document order.
std::vector<Anchor> json_anchors(const json& doc);

/// `path:line` and `path:line:col` anchors in text (a path with a '/' or an extension). The name
/// is the first backticked identifier on the same line, if any. The rest of the line after
/// `: ` or ` - ` (grep's `path:line:text` too) is the quoted line (snippet_key "quoted line"):
/// typescript-mcp's `src/app.ts:4:24 - const label = ...`. At most 512.
std::vector<Anchor> text_anchors(std::string_view text);

/// The JSON documents and the prose of one answer: structuredContent; each text part that is JSON;
/// JSON at the start of a text part (the rest is prose); fenced ```json blocks (the rest is prose).
/// Read from the answer's one reading (mcp/answer.h), as checks/generic.h's read_answer is.
struct AnswerDocs {
  std::vector<json> docs;
  std::vector<std::string> prose;
};
AnswerDocs read_answer(const mcp::Answer& a);
AnswerDocs read_answer(const mcp::Reply& r);

/// TR-VERBATIM's comparison of a quoted text with the workspace file it is tied to.
enum class Verbatim {
  kSame,       ///< Verbatim: each trimmed line of the quote is contained in the file's line there.
  kMangled,    ///< The same text once non-ASCII characters, '?', U+FFFD and '\r' are set aside,
               ///< but not verbatim: a character was dropped, replaced or a line ending mangled.
  kUnrelated,  ///< Neither (not this text, or too short to tell): no judgement.
};
struct VerbatimCheck {
  Verbatim verdict = Verbatim::kUnrelated;
  std::int64_t line = 0;  ///< kMangled: the 1-based file line of the first difference.
  std::string detail;     ///< kMangled: the first differing character, as code points.
  /// kMangled: the quote ends (its cut marker aside) with U+FFFD where the file has a character
  /// that is not ASCII: a cut fell inside that character.
  bool cut_split = false;
};
/// Compares `quote` with `text` at 1-based `line` (a window of 3 lines either side is searched,
/// for a quote that starts a little before or after). A quote ending in "..." or "…" may stop early.
VerbatimCheck compare_verbatim(std::string_view text, std::int64_t line, std::string_view quote);

/// "U+1F680 (🚀)" for a code point (control and invisible ones without the glyph).
std::string code_point_label(char32_t cp);

}  // namespace generic

/// The generic position rules over every answer no profile judged, per judge (one run): it keeps
/// the files it read and what each tool's positions agreed with, for the cross-tool rule.
class GenericPositions {
 public:
  /// `workspace`: the directory positions refer to (--root, else --cwd); nullopt: nothing is
  /// judged (every rule, the cheap ones too, needs the file the position names to exist).
  explicit GenericPositions(std::optional<std::string> workspace);
  ~GenericPositions();
  GenericPositions(const GenericPositions&) = delete;
  GenericPositions& operator=(const GenericPositions&) = delete;

  /// POS-BASE, POS-UTF16 and TR-VERBATIM on one success answer of `tool` (its listing `tool_json`,
  /// may be null) to a call with `arguments`. Statuses only for a tool whose answer held a position.
  Outcomes check(const std::string& tool, const nlohmann::json* tool_json, const nlohmann::json& arguments,
                 const mcp::Answer& answer);
  Outcomes check(const std::string& tool, const nlohmann::json* tool_json, const nlohmann::json& arguments,
                 const mcp::Reply& reply);

  /// The cross-tool rule, once every answer is judged: a tool whose 0-based positions were only a
  /// warning (it declares them) is an error when another tool of the server answers 1-based.
  std::map<std::string, Outcomes> finish();

  /// A shard for one piece of parallel work (engine/workers.cpp): the same workspace and the same
  /// files read (one cache, one bound, shared under a lock of its own), nothing judged. absorb()
  /// adds what a shard judged, as if this object had judged it.
  std::unique_ptr<GenericPositions> fork() const;
  void absorb(GenericPositions& shard);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace ctxo::checks
