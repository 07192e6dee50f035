// SPDX-License-Identifier: MIT
// The generic reading of an answer no envelope profile matched, and the generic truncation rules
// on it (TR-HINT, TR-COUNT reported with Finding::profile "generic"). docs/ENVELOPE-CHECKS.md,
// "Generic reading" and "Generic truncation rules", is their exact contract.
//
// For other checks, the one call to know is read_answer(): it says how an answer was read and
// gives its JSON when it has any (GenericAnswer::data), whatever wraps it (structuredContent, a
// text part that is JSON, JSON followed by a Markdown footer, JSON in a fenced block).
//
// The truncation words (flags, ways on, counts, prose patterns) are data:
// <schemas_dir>/generic/vocabulary.json, checked against vocabulary.schema.json beside it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/outcome.h"
#include "core/result.h"
#include "mcp/answer.h"
#include "mcp/client.h"

namespace re2 {
class RE2;
}

namespace ctxo::checks {

using nlohmann::json;

/// How an answer was read, most structured first.
enum class Reading {
  kNone,          ///< No text and no structuredContent (an image, an empty content list).
  kJson,          ///< structuredContent, or a text part that is exactly a JSON object or array.
  kJsonMarkdown,  ///< A text part that starts with JSON and goes on with Markdown or prose (a footer).
  kFencedJson,    ///< JSON inside a fenced block (```json ... ```) of a text part.
  kMarkdown,      ///< Markdown structure: list items, table rows or headings.
  kProse,         ///< Plain text.
};

/// "none", "json", "json+markdown", "fenced-json", "markdown", "prose" (the JSON report's words).
const char* to_string(Reading r);
/// "JSON", "JSON+Markdown", "fenced JSON", "Markdown", "prose" (the console's words).
const char* label(Reading r);

/// Markdown structure counted in text, outside code fences.
struct MarkdownShape {
  std::size_t list_items = 0;  ///< Top-level list items (`- `, `* `, `+ `, `1. `), not indented ones.
  std::size_t table_rows = 0;  ///< Table body rows (not the header or its `|---|` line).
  std::size_t headings = 0;    ///< ATX headings (`# ...`).
  /// The counts headings give in parentheses or after a colon ("## Results (12)", "# Matches: 3").
  std::vector<std::int64_t> heading_counts;
  bool any() const { return list_items || table_rows || headings; }
  /// The items the Markdown shows: table rows when it has a table, else top-level list items.
  std::size_t items() const { return table_rows ? table_rows : list_items; }
};

/// One answer, read generically.
struct GenericAnswer {
  Reading reading = Reading::kNone;
  /// The JSON (object or array) for kJson, kJsonMarkdown and kFencedJson; null otherwise. Never
  /// a null pointer. Not a copy: it points into the mcp::Answer it was read from (its
  /// structuredContent or a text part's document), which must outlive this reading, or at
  /// `owned`.
  const json* data = &no_data();
  /// The JSON `data` points at when this reading keeps its own: read_answer of a Reply or of
  /// parts, whose Answer is gone when it returns. Shared, so that a copy points at the same.
  std::shared_ptr<const json> owned;
  /// The null `data` points at when there is none.
  static const json& no_data();
  /// Where `data` came from: "structuredContent", "text part 2" (1-based); "" without data.
  std::string where;
  /// Every text part, joined by "\n".
  std::string text;
  /// The text outside `data`: the footer after the JSON, the text around a fence, the other text
  /// parts; the whole text for kMarkdown and kProse.
  std::string rest;
  MarkdownShape markdown;  ///< Of `rest`.
};

/// Reads one answer (a tools/call result; an error or an isError result is read the same way):
/// the first text part that is JSON, else JSON with a footer, else fenced JSON, else Markdown or
/// prose (structuredContent before all). Never throws. Its `data` points into `answer`.
GenericAnswer read_answer(const mcp::Answer& answer);
/// The same of a reply, read here: its `data` is its own copy (GenericAnswer::owned).
GenericAnswer read_answer(const mcp::Reply& reply);
/// The same from its parts: the text parts in order and structuredContent (nullptr: none); its
/// `data` is its own copy.
GenericAnswer read_answer(const std::vector<std::string>& text_parts, const json* structured);

/// Markdown structure of `text` (code fences skipped).
MarkdownShape markdown_shape(std::string_view text);

/// The truncation vocabulary (schemas/generic/vocabulary.json), compiled.
struct Vocabulary {
  std::vector<std::string> more_flags;                   ///< true = there is more.
  std::vector<std::string> way_fields;                   ///< A value names the way to the rest.
  std::vector<std::vector<std::string>> way_together;    ///< Fields that are a way on together.
  std::vector<std::string> hint_fields;                  ///< Non-empty text says how.
  std::vector<std::shared_ptr<const re2::RE2>> footer;   ///< Text that says how to get more.
  std::vector<std::string> returned, total, either;      ///< Count fields by what they count.
  /// Count names that may count something else (`total` a price, `count` occurrences): compared
  /// only where the object is a page of results (see ListFacts::page_like).
  std::vector<std::string> ambiguous;
  std::vector<std::shared_ptr<const re2::RE2>> found;    ///< One group: N found.
  std::vector<std::shared_ptr<const re2::RE2>> showing;  ///< Two groups: N shown of M.
  std::vector<std::shared_ptr<const re2::RE2>> more;     ///< One group: N more left out.
  /// footer, found, showing and more in one pattern: a text it does not match is matched by none
  /// of them (one pass over the text of nearly every answer, instead of one per pattern).
  std::shared_ptr<const re2::RE2> any_prose;
  std::vector<std::string> pages;  ///< Past the first page when above 0 (page: above 1) or a cursor.
  /// TR-RESUME: a field of the answer that names the next page by value (`nextCursor`,
  /// `nextOffset`) and the arguments that take it (`cursor`, `offset`).
  struct Resume {
    std::vector<std::string> answer, argument;
  };
  std::vector<Resume> resume;
};

/// Compiles a vocabulary document. Errors: "vocabulary" (breaks the schema, or a pattern RE2
/// cannot compile or with the wrong number of groups).
Result<Vocabulary> load_vocabulary(const json& doc);
/// The built-in vocabulary, loaded once from <schemas_dir>/generic/vocabulary.json; an error when
/// it cannot be (the generic rules are then off, and the run says why).
const Result<Vocabulary>& builtin_vocabulary();

/// What one answer says about the list it carries: its length and what its counts, flags and
/// prose claim about it. Absent facts are nullopt.
struct ListFacts {
  std::optional<std::int64_t> items;  ///< Items returned: the JSON list's length, else Markdown items.
  std::string list;                   ///< What `items` counted ("`results`", "Markdown list items").
  std::optional<bool> more;           ///< The first more-flag near the list (true: there is more).
  std::string more_name;
  std::optional<std::int64_t> returned, total, either;  ///< Count fields near the list.
  std::string returned_name, total_name, either_name;
  std::optional<std::int64_t> found;                    ///< Prose "Found N".
  std::optional<std::pair<std::int64_t, std::int64_t>> showing;  ///< Prose "showing N of M".
  std::optional<std::int64_t> more_prose;               ///< Prose "N more", "and N others".
  bool flagged = false;     ///< Some more-flag anywhere in the JSON (not inside a list) is true.
  std::string flag_name;    ///< The first such flag ("`pagination.truncated`").
  std::string way_on;       ///< What names the way to the rest ("" = nothing).
  /// The first field (not inside a list) naming the next page by value, not null: a TR-RESUME
  /// answer field (`pagination.nextOffset`, `nextCursor`, `next_page`). "" = none.
  std::string next_name;
  bool paged = false;       ///< The answer is a later page (an offset, page or cursor past the first).
  /// The list's object reads as a page of results: a more-flag, a page or way-on field beside the
  /// list, or its counts inside an object of their own (`pagination`, `meta`).
  bool page_like = false;
  /// The list is not the first page, or its facts are ambiguous (several lists side by side):
  /// the count-against-list comparisons do not apply.
  bool ambiguous = false;
  /// The answer says there is no more: a more-flag false, a total equal to what it returned, or a
  /// prose "Found N" equal to the items it returned, and nothing else in it says there is more (see
  /// false_flag_contradicted; a false `truncated` may only mean the page was not cut to fit a
  /// size budget, beside `hasMore: true`). "" = it does not say, or its signals disagree.
  std::string says_complete() const;
  /// The answer says it holds less than there is: a more-flag true, "N more", "showing N of M"
  /// with N < M.
  bool says_less() const;
  /// Its counts say so: a total above the items of its one list.
  bool counts_more() const;
  /// Something besides a false more-flag says there is more: another flag true, "N more",
  /// "showing N of M" with N < M, or a next page named by value (next_name). A false flag then
  /// claims nothing: which of them the server meant is not known, so neither is judged.
  bool false_flag_contradicted() const;
  /// That, or it names a way to more (a way-on field, a hint text) or is a later page.
  bool says_cut() const;
};

/// The list facts of one answer read generically.
ListFacts list_facts(const GenericAnswer& a, const Vocabulary& v);

/// A breakdown that disagrees with the list beside it (generic_breakdown.cpp).
struct Breakdown {
  std::string counts;  ///< Path of the counts object ("summary.byStatus").
  std::string list;    ///< Path of the list it describes.
  std::string detail;  ///< What disagrees, with both sides.
};
/// Per-value counts (an object of 2+ non-negative integers, at the root or in an object member of
/// it) whose keys are the values of one string field of the items of the answer's one list (every
/// value the items take among the keys, in at least 2 items): their sum must be the total the
/// answer states (`total`, `totalCount`, `count`...), and, when the list is whole (no more-flag
/// true, its length the total), each count must be the number of items with that value. Keys
/// compare without case or punctuation ("in-progress" is `inProgress`). nullopt: none, or agreed.
std::optional<Breakdown> breakdown_mismatch(const json& data, bool more);

/// Items a request named that its answer does not account for (generic_named.cpp).
struct NamedOmission {
  std::string argument;                       ///< The argument naming them (`ids`, `id` comma-separated).
  std::vector<std::string> present, missing;  ///< The items the answer mentions, and the others.
  std::string detail;                         ///< The diagnosis.
};
/// A request naming several items (an array argument named like ids, names or keys: `ids`,
/// `taskIds`, `entityNames`; or a string argument named like an id holding comma-separated ids;
/// of a lookup: the tool's name has no word such as list, search, filter, count, delete, create,
/// and the argument's noun, if any, is in the tool's name) whose answer mentions some of them (the item's text, case ignored, with no letter or digit
/// beside it) and says nothing of the others: no mention, and no word that may account for them
/// without naming them ("not found", "missing", "invalid", "error"... in the text outside the
/// JSON's lists, or anywhere in Markdown and prose). Silent when `cut`, when the answer lists at
/// least as many items as were named, when it mentions none of them (not a lookup: a count, a
/// confirmation) and when two arguments name items. `judged` is set when the answer was held to
/// the rule. nullopt: nothing missing, or not judged.
std::optional<NamedOmission> named_items_missing(const GenericAnswer& a, const json& request, const ListFacts& f,
                                                 bool cut, bool* judged);

/// TR-HINT and TR-COUNT (per answer) on an answer no profile matched, with their statuses.
/// `request` is the tools/call that produced it (the findings' evidence) and its `arguments` tell
/// a later page (offset, page, cursor) from the first. Findings have profile "generic".
Outcomes check_generic(const GenericAnswer& a, const Vocabulary& v, const json& request, const std::string& raw);

/// One answer of the same call at one value of a limit parameter (the engine's "driven small").
struct OmissionPoint {
  std::string parameter;             ///< The limit parameter, e.g. "limit".
  std::optional<std::int64_t> limit; ///< Its value in the call (nullopt: not given, the default).
  json request;                      ///< The tools/call request.
  std::string excerpt;               ///< What the server answered (the finding's excerpt).
  ListFacts facts;
};

/// TR-COUNT (silent omission across calls): `small` says there is no more (ListFacts::
/// says_complete) while `large`, the same call with a larger limit, returned more items. An
/// answer with no signal at all is not held to anything (an agent that asked for 2 may expect 2).
/// Passed when `small` says it is complete and `large` agrees.
Outcomes check_omission(const OmissionPoint& small, const OmissionPoint& large);

/// The items of the answer's list, each as compact JSON (a Markdown list item or table row: its
/// text without the list marker), in order; nullopt when the answer has no single list or its
/// items pass `max_bytes` in all.
std::optional<std::vector<std::string>> list_items(const GenericAnswer& a, std::size_t max_bytes = 64 * 1024);

/// One answered call that reached data, for the comparisons across calls (TR-COUNT's silent
/// omission, TR-RESUME's pages).
struct ListedCall {
  json arguments;       ///< The call's arguments.
  json request;         ///< The tools/call request.
  std::string excerpt;  ///< What the server answered.
  ListFacts facts;      ///< What it said about its list.
  std::vector<std::string> items;  ///< Its list's items (list_items); empty when too large to keep.
  bool says_more = false;          ///< A more-flag true, a total above the items, "showing N of M" with N < M.
  std::string next_field;          ///< The answer field naming the next page (Vocabulary::resume); "" = none.
  json next_value;                 ///< Its value.
};

/// Listed calls kept per tool (a live run and `check` of its transcript keep the same ones).
inline constexpr std::size_t kListedKept = 128;

/// `reply` to a call with `arguments`, read generically under the built-in vocabulary; nullopt
/// when its list has no length to compare (or the vocabulary is missing).
/// Callers leave out an answer the judge checked on a sample (Judged::sample): a sample's counts
/// say nothing, and reading the whole answer again here cost a million-key answer 80 MB more.
/// `answer`: the judge's reading (Judged::read), so that the answer is not read again.
std::optional<ListedCall> listed_call(const mcp::Answer& answer, const json& arguments);
std::optional<ListedCall> listed_call(const mcp::Reply& reply, const json& arguments);

/// TR-COUNT (silent omission) over the calls of one tool: each call that says there is no more is
/// compared (check_omission) with the calls whose arguments differ from its own only in one limit
/// parameter (`is_limit` names them), given larger or left to the default, against the one that
/// returned the most items. One finding per group (the parameter and the other arguments); groups
/// in `reported` are skipped and new findings' groups added to it (nullptr: none kept). At most
/// the first 256 calls are compared.
Outcomes check_omissions(const std::vector<ListedCall>& calls, const std::function<bool(const std::string&)>& is_limit,
                         std::set<std::string>* reported = nullptr);

/// TR-RESUME's calls, for the calls of one tool that say there is more and name the next page by
/// value: the arguments that fetch that page (the tool's own property for it, from
/// `input_schema`, typed by it) and, when a limit parameter (`is_limit`) is given or declared, the
/// same call with twice the items (the list the pages must rebuild). Those already among `calls`
/// are left out; at most `max_chains` calls that say more are followed.
std::vector<json> resume_calls(const std::vector<ListedCall>& calls, const json& input_schema,
                               const std::function<bool(const std::string&)>& is_limit, std::size_t max_chains = 2);

/// TR-RESUME (generic) over the calls of one tool: each call that says there is more and names
/// the next page is paired with the call that fetched it (its arguments plus that value) and,
/// when there is one, with the same call at a larger limit that returned more items. The next
/// page must go on where the first ended: it must not start again inside the first page
/// (repeated items) or further on in the larger list (skipped items). One finding per way on
/// (answer field and argument), `reported` as for check_omissions; not observed when no call
/// named a next page that was fetched.
Outcomes check_resumes(const std::vector<ListedCall>& calls, const std::function<bool(const std::string&)>& is_limit,
                       std::set<std::string>* reported = nullptr);

/// A success answer no profile matched says it holds less than there is (a more-flag true, "showing
/// N of M" with N < M, "N more"), read under the built-in vocabulary: the coverage's `truncated`
/// count. Answers over 4 MiB are not read for it.
/// `read`: read_answer(answer) when the caller made it (nullptr: made here, when it applies).
bool says_truncated(const mcp::Answer& answer, const GenericAnswer* read = nullptr);
bool says_truncated(const mcp::Reply& reply);

/// The judge's part (checks/judge.cpp): every success answer no envelope profile matched is read
/// here, its reading counted, and TR-HINT and TR-COUNT run on it under the built-in vocabulary
/// (none when the vocabulary cannot be loaded). isError answers and errors are left alone.
class GenericJudge {
 public:
  /// `read`: read_answer(answer).
  void judge(const mcp::Answer& answer, const GenericAnswer& read, Outcomes& out);
  /// Answers per reading (to_string(Reading) -> count), "none" left out.
  const std::map<std::string, std::size_t>& readings() const { return readings_; }
  /// Adds the counts of another GenericJudge (a shard's, engine/workers.cpp).
  void absorb(const GenericJudge& shard) {
    for (const auto& [reading, n] : shard.readings_) readings_[reading] += n;
  }

 private:
  std::map<std::string, std::size_t> readings_;
};

}  // namespace ctxo::checks
