// SPDX-License-Identifier: MIT
// The items a request names, each accounted for (issue 42): a lookup given several ids or names
// (an array `ids: ["T1", "T2", "T9"]`, or a comma-separated `id: "3.2,99,4"`) must return each or
// say which it could not; entries for some and not a word on the others is a silent omission. An
// agent reads the silence as "these do not matter" or never notices the gap. Precision first: the
// rule stays silent wherever the answer may account for an item in a way this reading cannot see.
#include <algorithm>
#include <cctype>
#include <set>

#include "checks/generic.h"
#include "checks/generic_internal.h"
#include "core/named_items.h"
#include "core/text.h"

namespace ctxo::checks {

using generic_detail::tick;

namespace {

constexpr std::size_t kMaxItems = 32;

// An item's text, when it can be looked for: a name of one or two letters ("a", "of") is a word of
// any prose, so it is not.
std::optional<std::string> item_text(std::string_view text) {
  std::string s(trim_space(text));
  const bool digit = std::any_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (s.empty() || s.size() > 200 || (s.size() < 3 && !digit)) return std::nullopt;
  return s;
}

std::optional<std::string> item_text(const json& v) {
  if (v.is_string()) return item_text(std::string_view(v.get_ref<const std::string&>()));
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  return std::nullopt;
}

struct Named {
  std::string argument;
  std::vector<std::string> items;  // as the request gave them, deduplicated without case
};

std::optional<Named> named_items(const json& arguments, const std::string& tool) {
  if (!arguments.is_object()) return std::nullopt;
  std::optional<Named> found;
  for (auto it = arguments.begin(); it != arguments.end(); ++it) {
    std::vector<std::string> items;
    if (it->is_array() && names_items(it.key())) {
      for (const auto& e : *it) {
        auto t = item_text(e);
        if (!t) return std::nullopt;  // a list of objects or of mixed values: not a list of names
        items.push_back(std::move(*t));
      }
    } else if (it->is_string() && takes_ids(it.key()) && it->get_ref<const std::string&>().find(',') != std::string::npos) {
      const std::string& s = it->get_ref<const std::string&>();
      for (std::size_t from = 0; from <= s.size();) {
        std::size_t to = s.find(',', from);
        if (to == std::string::npos) to = s.size();
        auto part = item_text(std::string_view(s).substr(from, to - from));
        if (!part || part->find(' ') != std::string::npos) return std::nullopt;  // prose, not ids
        items.push_back(std::move(*part));
        from = to + 1;
      }
    } else {
      continue;
    }
    if (!about_the_tool(it.key(), tool)) continue;
    std::vector<std::string> unique;
    std::set<std::string> seen;
    for (auto& i : items)
      if (seen.insert(ascii_lower(i)).second) unique.push_back(std::move(i));
    if (unique.size() < 2 || unique.size() > kMaxItems) continue;
    if (found) return std::nullopt;  // two lists of names: which one the answer answers is not plain
    found = Named{it.key(), std::move(unique)};
  }
  if (found && !lookup_tool(tool)) return std::nullopt;  // asked last: most answers name no items
  return found;
}

// `item` (lowered) in `text` (lowered) with no letter or digit right before or after it: "T1" is
// in "T1:" and "(T1)", not in "T10" or "AT1". Generous on purpose: an item seen anywhere counts as
// accounted for.
bool mentions(const std::string& text, const std::string& item) {
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t at = text.find(item); at != std::string::npos; at = text.find(item, at + 1)) {
    const std::size_t end = at + item.size();
    const bool before = at == 0 || !alnum(text[at - 1]) || !alnum(item.front());
    const bool after = end >= text.size() || !alnum(text[end]) || !alnum(item.back());
    if (before && after) return true;
  }
  return false;
}

// Words that may say an item was not returned without naming it ("1 id not found", "errors").
constexpr const char* kAccounting[] = {"not found", "notfound", "not_found", "missing", "unknown", "no such",
                                       "not exist", "n't exist", "nonexist", "non-exist", "could not", "couldn't",
                                       "cannot", "can't", "invalid", "skipped", "failed", "error", "unavailable",
                                       "no match", "ignored", "absent", "unresolved", "not available", "omitted"};

bool accounts(const std::string& lower) {
  return std::any_of(std::begin(kAccounting), std::end(kAccounting),
                     [&](const char* w) { return lower.find(w) != std::string::npos; });
}

// The text where an answer would say what it could not return: the text outside the JSON, and the
// JSON's keys and string values outside lists (an item's own title may say "error"); for Markdown
// and prose, all of it.
std::string accounting_text(const GenericAnswer& a) {
  if (!a.data->is_structured()) return ascii_lower(a.text);
  std::string out = a.rest;
  const auto walk = [&](const json& o, const auto& self, int depth) -> void {
    if (!o.is_object() || depth > 3) return;
    for (auto it = o.begin(); it != o.end(); ++it) {
      out += "\n" + it.key();
      if (it->is_string()) out += "\n" + it->get<std::string>();
      else if (it->is_array() && it->empty()) out += "\n[]";
      else if (it->is_array() && !it->front().is_structured()) out += "\n" + it->dump();  // `notFound: ["T9"]`
      else self(*it, self, depth + 1);
    }
  };
  walk(*a.data, walk, 0);
  return ascii_lower(out);
}

}  // namespace

std::optional<NamedOmission> named_items_missing(const GenericAnswer& a, const json& request, const ListFacts& f,
                                                 bool cut, bool* judged) {
  static const json kNone = json::object();
  const json* params = request.is_object() && request.contains("params") ? &request["params"] : &kNone;
  const json* arguments = params->is_object() && params->contains("arguments") ? &(*params)["arguments"] : &kNone;
  const std::string tool = params->is_object() ? params->value("name", std::string()) : "";
  const auto named = named_items(*arguments, tool);
  if (!named || a.reading == Reading::kNone || cut) return std::nullopt;
  // An entry per item asked for, or more: the answer answered each, in words this reading may not see.
  if (f.items && !f.ambiguous && *f.items >= static_cast<std::int64_t>(named->items.size())) {
    if (judged) *judged = true;
    return std::nullopt;
  }
  std::string haystack = a.text;
  if (a.where == "structuredContent") haystack += "\n" + a.data->dump();
  haystack = ascii_lower(haystack);
  NamedOmission out;
  out.argument = named->argument;
  for (const auto& item : named->items)
    (mentions(haystack, ascii_lower(item)) ? out.present : out.missing).push_back(item);
  // Nothing named came back: an answer of another kind (a count, a confirmation), not a lookup.
  if (out.present.empty()) return std::nullopt;
  if (judged) *judged = true;
  if (out.missing.empty() || accounts(accounting_text(a))) return std::nullopt;
  const auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? ", " : "") + excerpt(v[i], 40);
    if (v.size() > 8) s += " and " + std::to_string(v.size() - 8) + " more";
    return s;
  };
  out.detail = "the call named " + std::to_string(named->items.size()) + " items in " + tick(named->argument) + " (" +
               list(named->items) + "); the answer has " + list(out.present) + " but not a word on " +
               list(out.missing) + ": no entry, no \"not found\", nothing that says it was left out";
  return out;
}

}  // namespace ctxo::checks
