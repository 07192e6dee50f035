// SPDX-License-Identifier: MIT
// Internal helpers shared by the envelope checks (envelope*.cpp): pointer access through profile
// fields, integer reading, sizes in a profile's unit, truncatable arrays and finding construction.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/envelope.h"
#include "core/finding.h"
#include "mcp/client.h"
#include "profile/profile.h"

namespace ctxo::checks::detail {

using nlohmann::json;

/// The value at `pointer` (nullptr when the pointer is unset or names nothing).
const json* at(const json& doc, const std::optional<std::string>& pointer);

/// A whole number (integer, or a float with no fraction) as int64; nullopt otherwise.
std::optional<std::int64_t> as_int(const json* v);

/// The last reference token of a JSON Pointer, unescaped ("" -> "the envelope").
std::string pointer_name(std::string_view pointer);

/// What the envelope's truncation flag says (absent counts as false when the profile allows it).
std::optional<bool> truncated_flag(const profile::Profile& p, const json& env);

/// One array (or string, with string_values) that the profile allows a server to cut.
struct Truncatable {
  std::string pointer;       ///< JSON Pointer into the envelope.
  const json* value = nullptr;
  std::size_t length = 0;    ///< Items, or code points for a string.
  bool is_string = false;
};

/// The truncatable values present in `env`, in the profile's order.
std::vector<Truncatable> truncatables(const profile::Profile& p, const json& env);

/// The cut array: the truncatable whose length equals `returned`; else the largest (first wins).
std::optional<Truncatable> cut_array(const std::vector<Truncatable>& cands, std::optional<std::int64_t> returned);

/// Size of `text` in the profile limit's own unit (bytes, characters, or estimated tokens).
std::int64_t limit_size(const profile::Profile& p, std::string_view text);

/// Name of that unit for diagnoses ("bytes", "UTF-16 units", "code points", "tokens").
std::string limit_unit_name(const profile::Profile& p);

/// The JSON.stringify indent of a text part: the first indented line's indent, else -1.
int detect_indent(std::string_view text);

/// The first of `keys` that `obj` has with a value `ok` accepts (its name into `key`), or nullptr.
template <std::size_t N>
const json* first_of(const json& obj, const char* const (&keys)[N], bool (*ok)(const json&), std::string* key = nullptr) {
  for (const char* k : keys) {
    auto it = obj.find(k);
    if (it != obj.end() && ok(*it)) {
      if (key) *key = k;
      return &*it;
    }
  }
  return nullptr;
}

/// A finding on one tools/call answer: its request, and an excerpt of what the server sent (the
/// raw message, else the result or error as JSON). Tool and replay are left empty.
Finding reply_finding(const char* id, const mcp::Reply& r, std::string diagnosis, Severity sev = Severity::kError);

/// E-SCHEMA's cause: the form and, for each violation, where (array indices as "*") and which
/// rule (valijson's words, numbers blanked); never the values the envelope held.
std::map<std::string, std::string> schema_cause(const profile::EnvelopeCheck& vc);

/// A finding with the house fields filled (tool and replay left empty).
/// `cause` (Finding::cause): the rule's form and the profile field or path it is about, never a
/// value the answer held.
Finding make_finding(const char* id, const ParsedEnvelope& env, std::map<std::string, std::string> cause,
                     std::string diagnosis);

/// `n` with thousands separators ("9,273").
std::string num(std::int64_t n);

/// `text` (a --flag's value, a cursor an answer gave) as the value of a property with schema
/// `prop`: a number for an integer or number property when it reads as one, a boolean for a
/// boolean one, else the text.
json typed_value(const std::string& text, const json& prop);

/// Removes the member `pointer` names from `doc` (no-op when it names nothing or the root).
void remove_at(json& doc, const std::string& pointer);

/// TR-BYTES: the diagnosis when `reported` (the profile's totalBytes) is not the UTF-8 size of
/// `full` without the totalBytes field's parent object, compact or with any of `indents` (at least
/// one; the first is the one the diagnosis shows); "" when it is. `where` is appended (e.g.
/// "(this call: ...)").
std::string total_bytes_problem(const profile::Profile& p, std::int64_t reported, const json& full,
                                std::initializer_list<int> indents, const std::string& where);

/// Per-response position checks (POS-BASE, POS-PATH, POS-UTF16).
void check_positions(const EnvelopeInput& in, const ParsedEnvelope& env, Outcomes& out);

}  // namespace ctxo::checks::detail
