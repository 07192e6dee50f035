// SPDX-License-Identifier: MIT
// The calls made to one tool, phase by phase: the deterministic boundary phase, random valid calls
// biased to the edges (fed with identifiers harvested from earlier answers), then labelled invalid
// calls. Every planned call carries a RapidCheck shrink tree, so a call that produced a finding can
// be shrunk by re-running smaller candidates against the server (see the engine).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "gen/schema_gen.h"
#include "gen/values.h"
#include "gen/workspace.h"

namespace ctxo::mcp {
class Answer;
}

namespace ctxo::profile {
class SchemaValidator;
}

namespace ctxo::gen {

using nlohmann::json;

enum class Phase { kBoundary, kRandom, kInvalid };

/// "boundary", "random" or "invalid".
const char* phase_name(Phase p);

/// One call to make and how it was made.
struct PlannedCall {
  Phase phase = Phase::kBoundary;
  std::string label;              ///< e.g. "'limit' maximum", "random #3", "missing required 'path'".
  rc::Shrinkable<json> arguments; ///< value() is the arguments object; shrinks() the smaller candidates.
};

/// Where a parameter named `property` takes a position: a line (`line`, `lineNumber`, `startLine`,
/// `row`, `lineNo`) or a column (`column`, `col`, `character`, `char`, `startColumn`,
/// `startCharacter`, `columnNumber`); none for anything else (`offset` is not one: it pages).
enum class PositionPart { kNone, kLine, kColumn };
PositionPart position_part(const std::string& property);

/// The kind of the values an answer carries under `key` (nullopt: not harvested).
std::optional<ValueKind> answer_kind(const std::string& key);

/// The kinds of value a parameter named `property` takes, best first (empty: none; a parameter
/// called `symbolId` takes ids, then names; `query` and `pattern` take names, then snippets; `uri`
/// uris, then absolute paths as `file://` uris).
std::vector<ValueKind> parameter_kinds(const std::string& property);

/// True when a parameter named `property` takes a git repository's work tree (`repo_path`,
/// `repositoryPath`, `repository`): the workspace root, never a file.
bool repository_parameter(const std::string& property);

/// What a revision parameter names: a branch (`branch`, `branchName`, `baseBranch`), a tag
/// (`tag`, `tagName`) or any revision (`revision`, `ref`, `commit`, `base`, ...). A branch
/// parameter is offered the workspace's branches only, a tag parameter its tags only: a server
/// that scopes by branch takes a branch's name, not a commit id.
enum class RevisionSort { kAny, kBranch, kTag };
RevisionSort revision_sort(const std::string& property);

/// Values seen in answers, pooled twice: by property name (case, '_' and '-' ignored) and by kind
/// (see ValueKind), so a `symbol` parameter is offered the `name`s a listing returned. Derived
/// values are pooled too: the path of a `src/a.ts:12` anchor, the path and name of a
/// `src/a.ts::run::function` id, the path of a `file://` uri. Read-only tools' prose and Markdown
/// answers feed the kind pools (take_result with `prose`). At most kPerName distinct values
/// per name and kPerKind per kind, first seen first.
///
/// A scanned workspace (set_workspace) is offered too: a parameter is offered the answers' values
/// under its own name first, then, kind by kind (parameter_kinds), the workspace's values and the
/// answers' values of that kind taken in turn (workspace first), each value once.
///
/// Answers steer the order (a black-box stand-in for coverage feedback). Each value is scored by
/// what it did: the calls that carried it and reached data, those that got a miss ("not found":
/// an empty list is no miss, `log` has no dependencies but forty importers) (outcome), and how many answers named it (mentions, counted for pooled values). Each
/// block of offers (the own name's, then each kind's) is ordered by a weight, equals in the order
/// above: 4 per call that reached data, plus the mentions of a hub (a value named by two answers
/// or more), minus 4 per miss; values that gave only misses come last, after every block's others
/// (a name the run made up and read back, self-made data counted as a miss, does not crowd out the
/// server's own names of the next block). So `log`,
/// named by forty answers, is tried before a method that led to data once, and a name that was a
/// miss on one tool is not the first thing the next tool gets.
class Harvest {
 public:
  static constexpr std::size_t kPerName = 16;
  static constexpr std::size_t kPerKind = 64;
  /// Values scored at most (a call's argument values past it are not scored).
  static constexpr std::size_t kMaxScored = 16384;
  /// Walks a tools/call result: its structuredContent, every text part that parses as JSON, and
  /// the JSON that starts a text part followed by a Markdown footer. With `prose` (the answer of a
  /// tool that only reads: see reading_tool), also the values the text names where it is not JSON
  /// (see prose_values in gen/prose.h), pooled by kind; with or without it, the ids the text
  /// names after a label (`Session ID: 7f3a`, labelled_values), pooled under the label's names
  /// (`sessionid`) and as ids. `exclude` holds the strings of the request that got this answer,
  /// never pooled from prose (a server that quotes its input).
  void take_result(const json& result, bool prose = false, const std::vector<std::string>& exclude = {});
  /// take_result on an answer already read (mcp/answer.h): its text parts are not parsed again.
  void take_answer(const mcp::Answer& answer, bool prose = false, const std::vector<std::string>& exclude = {});
  /// Walks any JSON value.
  void take(const json& value);
  /// Adds what `other` pooled, pool by pool in its order, and the scores it gathered since it was
  /// forked (a parallel run's per-tool harvests are absorbed in tool order, so the result does not
  /// depend on which tool finished first).
  void absorb(const Harvest& other);
  /// A copy for one piece of work (a tool's run in a phase): the same pools and scores, with
  /// nothing yet gathered for absorb() to hand back.
  Harvest fork() const;
  /// What this fork of `parent` gathered and absorb() hands back, without the parent's pools and
  /// scores: the values pooled since the fork (each pool's new tail, in order) and the fresh scores.
  /// `parent.absorb(gathered)` is `parent.absorb(*this)`, and `parent.fork()` absorbing it is this
  /// copy again; a phase keeps it per tool instead of a whole copy (thousands of tools, each with a
  /// copy of 16,384 scores, took gigabytes).
  Harvest gathered(const Harvest& parent) const;
  /// Moves the scores into a block its forks share instead of copying (no change in what is
  /// offered): a run does it before a phase forks a copy per tool (16,384 scores copied for each
  /// of 2,000 tools took most of a run's time).
  void share_scores();
  /// Scores the values a call carried (its arguments' strings and integers, at any depth): `data`
  /// when its answer carried data, else it was a miss. Empty answers, errors and refusals are not
  /// scored (an empty list says nothing of the value; an error may be another argument's).
  void outcome(const json& arguments, bool data);
  /// True when `value` was pooled from an answer (under any name or kind) or is a value the
  /// workspace offers: the run did not make it up (engine/self_made.h).
  bool knows(const json& value) const;
  /// Pooled values under exactly this property name (nullptr when none).
  const std::vector<json>* values_for(const std::string& property) const;
  /// Pooled values of one kind (first seen first).
  const std::vector<json>& values_of(ValueKind kind) const;
  /// What a parameter named `property` is offered, best match first: values seen under its own
  /// name, then those of each kind it takes (parameter_kinds), each value once.
  std::vector<json> offers(const std::string& property, bool with_workspace = true) const;
  /// SQL statements to offer a tool that runs SQL: `SELECT * FROM t` for the tables the answers
  /// named (values under `table`, `tables`, `tableName`, then SQL-identifier names), then the
  /// catalogue queries of SQLite and of information_schema, then `SELECT 1`.
  std::vector<json> sql_statements() const;
  /// Regular expressions to offer a regex parameter, each matching what the workspace or the
  /// answers name (`with_workspace`: the workspace's names too): `\bNAME\b` and `NAME\w*` for the
  /// first names, an alternation of two, and a declaration pattern (`(function|class|def|...)\s+\w+`).
  /// Written in the syntax every common engine shares (ECMAScript, PCRE, RE2, Rust, Python, ripgrep).
  std::vector<json> regex_patterns(bool with_workspace = true) const;
  /// Number of distinct values pooled from answers (by name and by kind; the workspace's not counted).
  std::size_t size() const;
  /// True when nothing is offered: no value from answers and no workspace.
  bool empty() const;
  /// The workspace whose values are offered too (null: none). Shared: copies of the harvest (one
  /// per tool with --jobs) share one scan.
  void set_workspace(std::shared_ptr<const Workspace> ws);
  const Workspace* workspace() const { return workspace_.get(); }

 private:
  void walk(const json& v, int depth);
  struct Score {
    std::uint32_t mentions = 0, data = 0, misses = 0;
  };
  /// Pools `x` (when there is room). keep_kind with `mention` also counts the answer being taken
  /// as one more that names it (once per answer; a value pooled by name and kind counts by kind).
  void keep_name(const std::string& key, const json& x);
  void keep_kind(ValueKind kind, const json& x, bool mention = true);
  void keep(std::vector<json>& values, std::size_t room, std::string seen_key, const json& x, bool mention);
  void score(const std::string& value, std::uint32_t Score::*field, std::uint32_t by = 1);
  /// The offers' order: the tier of a value (1: only misses, else 0) and its weight inside the
  /// tier (higher first).
  std::pair<int, std::uint32_t> rank(const json& v) const;
  void derive(const std::string& text, std::optional<ValueKind> kind);
  std::map<std::string, std::vector<json>> pool_;
  std::map<ValueKind, std::vector<json>> kinds_;
  std::set<std::string> seen_;  // pool key + '\x1f' + value text
  std::map<std::string, Score> scores_;  // a value's JSON text -> what it did (beside shared_scores_)
  /// Scores shared with the forks of this harvest (share_scores); a value's score is its entry
  /// here plus its entry in scores_.
  std::shared_ptr<const std::map<std::string, Score>> shared_scores_;
  std::size_t new_scored_ = 0;           // values in scores_ that shared_scores_ does not hold
  std::map<std::string, Score> fresh_;   // what this copy gathered since fork(), for absorb()
  std::set<std::string> mentioned_;      // the values the answer being taken has named so far
  std::shared_ptr<const Workspace> workspace_;
  /// The workspace's values by kind, made once by set_workspace (shared by the copies).
  std::shared_ptr<const std::map<ValueKind, std::vector<json>>> workspace_values_;
};

/// The tool runs SQL: its name or description says `sql` (SQL, SQLite, PostgreSQL, MySQL).
bool runs_sql(const json& tool);

/// A string parameter whose own description says it is a regular expression ("regex", "regexp",
/// "regular expression"), whatever its name (`pattern`, `query`, `search`).
bool described_as_regex(const json& property_schema);

/// The language a tool runs code in, as its name or description names it ("python", "javascript",
/// "typescript", "bash", "ruby", ...: a language of kPrograms), "" when it names none.
std::string code_language(const json& tool);

/// A one-line program for `language` (a language name or an alias a schema's enum uses: `python3`,
/// `js`, `node`, `sh`, `shell`, ...) that prints 42 and touches nothing; nullopt for a language
/// the table does not know. The table is data: one entry per language, its aliases and program.
std::optional<std::string> program_for(const std::string& language);

/// Normalised property name used as the Harvest key: lower case, '_' and '-' dropped.
std::string harvest_key(const std::string& property);

/// True when a parameter named `property` bounds the size of an answer: `limit`, `maxResults`,
/// `maxItems`, `topK`, `pageSize`, `tokenBudget`, `maxTokens`, `budget`, ...
bool budget_parameter(const std::string& property);

/// True when a parameter named `property` asks for more output when true: `include_*`
/// (`includeContent`, `include_source`), `with_*` (not `without_*` or `within_*`), `show_*`,
/// `verbose`, `details`, `detailed`, `full`. A call with real values sets these true (ToolPlan's
/// "real values only" calls, the second pass): an agent that names a real symbol asks for its source.
bool output_flag(const std::string& property);

/// How many calls each phase gets.
struct PhaseSizes {
  std::size_t boundary = 0, random = 0, invalid = 0;
};

/// `calls` = 0 (the default) sizes the phases to the schema: every boundary case (at most 48),
/// 24 random calls, 8 invalid ones. A positive `calls` caps the total: a fifth invalid, at least a
/// quarter random, the rest boundary cases in order.
PhaseSizes phase_sizes(std::size_t calls, std::size_t boundary_available, bool admits_invalid);

/// Shrinks a JSON value that did not come from a generator (boundary and harvested calls):
/// object members removed, then each member shrunk; strings by removing code points; integers
/// towards 0; reals towards 0; true to false; arrays by removing elements, then each element.
rc::Seq<json> shrink_json(const json& value);

/// A value with shrink_json's shrink tree.
rc::Shrinkable<json> shrinkable_json(const json& value);

/// The planned calls for one tool. Deterministic for (schema, calls, seed, the harvest it is fed).
class ToolPlan {
 public:
  ToolPlan(const json& input_schema, std::size_t calls, std::uint64_t seed, GenOptions options = {});
  /// The same on a schema the caller shares instead of one copied (a listing's schema can be
  /// megabytes; the engine passes the listing's own, which outlives the plan). A non-object
  /// schema takes objects. When `options.root_validator` is set it is this schema compiled (the
  /// judge's, shared) and is not compiled again.
  ToolPlan(std::shared_ptr<const json> input_schema, std::size_t calls, std::uint64_t seed, GenOptions options = {});

  /// The next call, or nullopt when the plan is done. Random calls may take values from `harvest`.
  std::optional<PlannedCall> next(const Harvest& harvest);

  /// The second pass (a tool whose calls reached no data, called again once other tools'
  /// answers filled the pools): up to `n` calls whose top-level parameters take the values
  /// `harvest` offers them, best match first (the k-th call the k-th offer), on the boundary
  /// phase's base call cut to its required parameters (lean_base: no optional parameter but
  /// those given real values, and the output flags set true). Only schema-valid calls not made
  /// before.
  ///
  /// The random phase's calls that take real values (harvested, workspace) carry only those, the
  /// required parameters and the output flags on the first kLeanFirst such calls and then on
  /// every kLeanEvery-th one (real_only; labelled "(harvested values only)"): a random optional
  /// beside a real name (`branch: "x7"` beside `name: "runTask"`) turns the call into a refusal,
  /// so the real name is tried first without them. Of these, every other one (the first first)
  /// keeps no optional parameter at all when a required one took a real value (the real name
  /// and `include_content: true` alone: a real `file` beside it may scope the lookup elsewhere,
  /// and makes the answer read as the file's). The others keep the random optionals (labelled
  /// "(harvested values)"), so the phase still explores.
  std::vector<PlannedCall> second_pass(const Harvest& harvest, std::size_t n);

  /// Budget and limit parameters driven small: `args` (a call that reached data) again with each
  /// such parameter (limit, maxResults, tokenBudget, ...: see budget_parameter) at its smallest
  /// valid value and four times that, so an answer that can be cut is, and at its schema maximum
  /// (when it has one), so the largest answer an agent can ask for is measured against the hosts'
  /// limits. Only schema-valid calls not made before.
  std::vector<PlannedCall> driven(const json& args, const std::string& after);

  /// Several named items in one call: `args` (a call that reached data) with its first array
  /// parameter named like ids, names or keys (`ids`, `taskIds`, `entityNames`), or its string
  /// parameter named like an id whose description says it takes comma-separated ids, given the
  /// item it holds, another one `harvest` offers, and one made up from the first (so it names
  /// nothing: a lookup must return each item or say which it could not). Only for a lookup
  /// (core/named_items.h: `tool`'s name and the parameter's noun). nullopt when the tool has
  /// no such parameter, nothing is offered, the call would not be schema-valid or was made before.
  std::optional<PlannedCall> several(const json& args, const Harvest& harvest, const std::string& tool,
                                     const std::string& after);

  const PhaseSizes& sizes() const { return sizes_; }
  /// What generation could not do exactly (unsupported patterns, remote refs...).
  std::vector<std::string> problems() const { return options_.problems.list(); }
  /// Why the schema admits no value the generator can make (a minLength past what it writes, an
  /// empty enum, an integer range past 2^53, ...), once the random phase has found out; else "".
  const std::string& cannot_generate() const { return cannot_generate_; }

 private:
  std::optional<PlannedCall> next_random(const Harvest& harvest);
  std::optional<PlannedCall> next_invalid();
  /// `args` with harvested values, or nullopt when it takes none.
  std::optional<json> harvested(const json& args, std::size_t index, const Harvest& harvest);
  /// A boundary case with every property that keeps the base case's value (not the one the case is
  /// about) given a real value from the workspace or the answers instead, when one keeps the call
  /// schema-valid; nullopt when none is (no workspace, a tool that writes, nothing fits).
  std::optional<json> grounded(const json& args, const Harvest& harvest) const;
  /// `args` with the k-th workspace position (a real identifier in a real file) given to every
  /// path, uri, name, line and column parameter it has, coherently (one file, its line, the
  /// identifier's column), 1-based or 0-based by k; nullopt when the tool takes no position or
  /// the workspace has none.
  std::optional<json> positioned(const json& args, std::size_t k, const Harvest& harvest) const;
  /// `args` of a tool that reads a git history (a revision parameter, or a repository path beside
  /// one that may be a revision: git_diff's `target`), given the workspace's history: the
  /// repository path the root, each revision parameter the k-th revision (two of them, two
  /// different ones; a branch parameter a branch, a tag parameter a tag); a tool that takes a file too (git_blame {path, rev}) gets, every other
  /// call, a commit and a file that commit changed. nullopt when the workspace has no history,
  /// the tool takes none or nothing fits (plan_git.cpp).
  std::optional<json> historied(const json& args, std::size_t k, const Harvest& harvest) const;
  std::optional<PlannedCall> fresh(json args, Phase phase, std::string label);
  /// The "real values only" form of `real`, a call harvested() made from the random draw `drawn`:
  /// the required parameters, the parameters that took a real value (those whose value differs
  /// from the draw's; with `required_only`, no optional one but the file or root a required
  /// line, column, module or path is relative to) and the output flags
  /// (output_flag) set true; nothing else. nullopt when no parameter kept took a real value or
  /// the call is not schema-valid.
  std::optional<json> real_only(const json& real, const json& drawn, bool required_only) const;
  /// `args` with every output flag (output_flag) the schema has set true, each kept only when the
  /// call stays schema-valid.
  json with_output_flags(json args) const;
  /// The boundary phase's base call cut to its required parameters, with the output flags set
  /// true (the second pass's base); the base call as it is when the cut one is not schema-valid.
  json lean_base() const;

  std::shared_ptr<const json> schema_;  ///< Never null.
  std::uint64_t seed_;
  GenOptions options_;
  PhaseSizes sizes_;
  std::vector<CallCase> boundary_;
  std::optional<rc::Gen<json>> valid_;
  std::optional<rc::Gen<InvalidCase>> invalid_;
  std::shared_ptr<const profile::SchemaValidator> validator_;  ///< Null when the schema does not compile.
  bool random_over_ = false;  ///< The schema admits no value the generator can make.
  std::string cannot_generate_;  ///< RapidCheck's reason when random_over_.
  std::size_t boundary_done_ = 0, random_done_ = 0, invalid_done_ = 0;
  std::set<std::string> sent_;  ///< Arguments text of every planned call (no call twice).
  /// `args` with a one-line program in its code parameter (`code`, `script`, `source`,
  /// `program`), in the language its language parameter's enum offers first among the known ones,
  /// else the tool's own (GenOptions::code_language); nullopt when the tool takes no code or no
  /// known language fits.
  std::optional<json> programmed(const json& args) const;
  bool takes_code_ = false;  ///< The schema has a code parameter and a language is known for it.
  std::size_t harvested_calls_ = 0;  ///< Random calls that took harvested values.
  std::size_t positioned_calls_ = 0;  ///< Random calls that took a workspace position.
  std::size_t historied_calls_ = 0;   ///< harvested() calls so far: historied()'s turn.
  /// Random calls harvested() gave real values (the "real values only" turns count these).
  std::size_t real_calls_ = 0;
  std::size_t lean_turns_ = 0;  ///< Of those, the "real values only" turns so far.
  static constexpr std::size_t kLeanFirst = 3;  ///< The first real-value calls made "real values only".
  static constexpr std::size_t kLeanEvery = 4;  ///< Then every kLeanEvery-th one.
};

}  // namespace ctxo::gen
