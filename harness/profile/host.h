// SPDX-License-Identifier: MIT
// Host profiles as data: what one MCP host (Claude Code, Claude Desktop, a model provider) does
// with a server's tools and answers. Loaded from schemas/hosts/*.json (or the user's own file,
// validated against schemas/host.schema.json); the H-* checks (checks/hosts.*) read nothing else.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/result.h"

#include <nlohmann/json.hpp>

namespace re2 {
class RE2;
}

namespace ctxo::profile {

/// What a host does with what is past one of its limits or rules.
enum class Past {
  kWarned,     ///< Shown whole, with a warning.
  kDiverted,   ///< Written to a file; the model sees a preview.
  kTruncated,  ///< Silently cut.
  kRejected,   ///< Refused: the model (or the whole request) gets an error.
};

/// "warned", "diverted", "truncated", "rejected".
const char* to_string(Past p);
/// What the host does, in words for a diagnosis ("writes it to a file and shows the model a preview").
const char* describe(Past p);
/// The finding severity of crossing it: error when the answer is cut or refused, warning when it
/// is diverted or only warned about.
Severity severity_of(Past p);

enum class Unit { kTokens, kChars, kBytes, kLines };
/// "tokens", "chars", "bytes", "lines".
const char* to_string(Unit u);

/// One size limit on a tool answer.
struct HostLimit {
  std::string id;
  Unit unit = Unit::kChars;
  /// What is measured: the text of the answer's text blocks, the whole CallToolResult
  /// serialised, or the largest image (audio) content block's base64 `data` as sent.
  enum class Of { kText, kResult, kImage, kAudio } of = Of::kText;
  enum class Applies { kAny, kSuccess, kError } applies = Applies::kAny;
  std::int64_t max = 0;
  Past past = Past::kWarned;
  std::string raised_by;             ///< e.g. MAX_MCP_OUTPUT_TOKENS ("" = fixed).
  bool replaced_by_declared = false;  ///< A declared ceiling takes its place.
  bool exempt_when_declared = false;  ///< A tool with a declared ceiling is not held to it.
  bool verified = true;               ///< False: findings are warnings whatever `past` says.
  /// Where the host cuts an answer past it: nowhere said (kNone), the middle (the first and last
  /// halves kept), or the end (the head kept).
  enum class Cut { kNone, kMiddle, kHeadKept } cut = Cut::kNone;
  std::string marker;  ///< What the model sees where the host cut ("" = nothing said).
  std::vector<std::string> sources;
  Severity severity() const { return verified ? severity_of(past) : Severity::kWarning; }
};

/// A cap on how many tools the host offers the model (H-TOOLS).
struct ToolCap {
  std::int64_t max = 0;
  bool across_servers = true;  ///< Shared by all the host's servers (false: per server).
  Past past = Past::kTruncated;
  std::string says;            ///< What the host does past it, for the diagnosis.
  bool verified = true;
  std::vector<std::string> sources;
  Severity severity() const { return verified ? severity_of(past) : Severity::kWarning; }
};

/// What the host does with text that is no Unicode (H-UNICODE): a lone UTF-16 surrogate.
struct UnicodeRule {
  Past past = Past::kRejected;
  std::string says;  ///< What happens, for the diagnosis.
  bool verified = true;
  std::vector<std::string> sources;
  Severity severity() const { return verified ? severity_of(past) : Severity::kWarning; }
};

/// A ceiling a tool may declare in its tools/list entry's `_meta`.
struct DeclaredCeiling {
  std::string meta_key;
  Unit unit = Unit::kChars;
  std::int64_t min = 1, max = 0;
  Past past = Past::kDiverted;
  std::string note;
  std::vector<std::string> sources;
};

struct NameRule {
  /// The name the rule is matched on: "" = the tool's own name, else a template of `{server}` and
  /// `{tool}` (e.g. "mcp__{server}__{tool}") the host sends to the model.
  std::string prefixed;
  /// Characters of the server and tool names the host replaces in the prefixed name (RE2, one
  /// character per match), and what with.
  std::shared_ptr<const re2::RE2> replace;
  std::string replace_with;
  std::string pattern;
  /// Compiled by RE2 (linear time, never backtracking): see matches_name().
  std::shared_ptr<const re2::RE2> re;
  std::string says;
  Past past = Past::kRejected;
  std::vector<std::string> sources;
};

/// The whole of `name` matches `rule` (false for a rule without a compiled pattern).
bool matches_name(const NameRule& rule, const std::string& name);

struct SchemaRule {
  bool anywhere = false;  ///< false: the inputSchema root only.
  std::vector<std::string> keywords, formats;
  std::string says;
  Past past = Past::kRejected;
  std::vector<std::string> sources;
};

/// A cut of the text the model reads about a server: a tool's description, or the server's
/// `instructions` (initialize result).
struct DescriptionLimit {
  enum class Applies { kToolDescription, kInstructions } applies = Applies::kToolDescription;
  Unit unit = Unit::kChars;
  std::int64_t max = 0;
  Past past = Past::kTruncated;
  std::vector<std::string> sources;
};

struct Host {
  std::string name, title, kind;
  bool is_default = false;
  double chars_per_token = 4;
  std::vector<HostLimit> limits;
  std::optional<DeclaredCeiling> declared;
  std::vector<NameRule> names;
  std::vector<SchemaRule> schemas;
  std::vector<DescriptionLimit> descriptions;
  std::optional<ToolCap> tools;               ///< "tools": a cap on tools offered.
  std::optional<UnicodeRule> lone_surrogate;  ///< "unicode.loneSurrogate".
  std::string origin;  ///< The file it came from.

  /// ceil(chars / chars_per_token).
  std::int64_t tokens(std::int64_t utf16_chars) const;
};

/// Names of the built-in hosts (`<schemas_dir>/hosts/*.json`), sorted.
std::vector<std::string> builtin_host_names();

/// Loads a host file. Errors: "io", "parse", "host" (breaks schemas/host.schema.json, or a name
/// pattern is not a regular expression), "config" (no schemas directory to validate against).
[[nodiscard]] Result<Host> load_host_file(const std::string& path);

/// Loads a host profile from a parsed document (`origin` names it in messages). Same errors as
/// load_host_file but "io" and "parse". Never throws.
[[nodiscard]] Result<Host> load_host_json(const nlohmann::json& doc, const std::string& origin = "<json>");

/// The hosts `--host VALUE` names: "" or "default" = the built-ins marked default (none when the
/// schemas directory cannot be found: the caller notes that host checks are off), "none" = none,
/// "all" = every built-in, else a comma-separated list of built-in names and FILE.json paths (a value with '/' or ending
/// in .json is a file). Errors: "usage" for an unknown name (the message lists the built-ins),
/// else load_host_file's.
[[nodiscard]] Result<std::vector<Host>> load_hosts(const std::string& value);

}  // namespace ctxo::profile
