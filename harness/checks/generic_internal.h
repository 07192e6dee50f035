// SPDX-License-Identifier: MIT
// What the three files of the generic reading share (generic.cpp, generic_lists.cpp,
// generic_across.cpp), internal to them: not part of checks/generic.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/generic.h"

namespace ctxo::checks::generic_detail {

using nlohmann::json;

/// Only white space.
bool blank(std::string_view s);
/// `s` in backticks, as diagnoses quote a field name.
std::string tick(const std::string& s);
/// Markdown structure of `text`; `list` and `rows` (when given) get the top-level list items'
/// text without their marker and the table body rows, trimmed.
MarkdownShape scan_markdown(std::string_view text, std::vector<std::string>* list, std::vector<std::string>* rows);
bool contains(const std::vector<std::string>& names, const std::string& k);
/// A value that names something (a cursor, an offset): not null, false or "".
bool has_value(const json& v);
/// The object holding the answer's list: the first object (breadth first, outside lists) with
/// exactly one array member. `list_name` gets the path to the list.
const json* list_holder(const json& root, std::string& list_name, std::string& holder_path, bool& ambiguous);
/// Reads one field of `o` (or of an object member of `o`, such as `pagination`) by the names it
/// may go by. `name` gets its path.
const json* near(const json& o, const std::vector<std::string>& names, const std::string& holder, std::string& name);

}  // namespace ctxo::checks::generic_detail
