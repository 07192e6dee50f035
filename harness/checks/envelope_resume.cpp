// SPDX-License-Identifier: MIT
// TR-RESUME: following what a truncated answer says about fetching the rest (a cursor field, or a
// command hint's --flags) must continue the array exactly where it was cut.
#include <algorithm>
#include <cctype>

#include "checks/envelope.h"
#include "core/json_bounded.h"
#include "checks/envelope_util.h"
#include "core/text.h"

namespace ctxo::checks {

namespace {

using detail::as_int;
using detail::at;
using detail::make_finding;

std::string norm(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits a command line into words: whitespace-separated, '...' and "..." quoted, \ escapes.
std::vector<std::string> shell_words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < s.size()) cur += s[++i];
      else cur += c;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < s.size()) {
      cur += s[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(cur);
  return out;
}

const json* property_named(const json& props, const std::string& name) {
  for (auto it = props.begin(); it != props.end(); ++it)
    if (norm(it.key()) == norm(name)) return &it.value();
  return nullptr;
}

std::string property_key(const json& props, const std::string& name) {
  for (auto it = props.begin(); it != props.end(); ++it)
    if (norm(it.key()) == norm(name)) return it.key();
  return "";
}

}  // namespace

json detail::typed_value(const std::string& text, const json& prop) {
  std::string type = prop.is_object() && prop.contains("type") && prop["type"].is_string()
                         ? prop["type"].get<std::string>()
                         : "string";
  if (type == "integer" || type == "number") {
    json v = parse_bounded(text);
    if (!v.is_discarded() && v.is_number()) return v;
  }
  if (type == "boolean" && (text == "true" || text == "false")) return text == "true";
  return text;
}

const json* cut_items(const ParsedEnvelope& env) {
  if (!env.profile || !env.envelope.is_object()) return nullptr;
  try {
    const auto& p = *env.profile;
    auto cut = detail::cut_array(detail::truncatables(p, env.envelope), as_int(at(env.envelope, p.fields.returned_count)));
    if (!cut || cut->is_string || !cut->value || !cut->value->is_array()) return nullptr;
    return cut->value;
  } catch (...) {
    return nullptr;
  }
}

std::optional<json> resume_arguments(const ParsedEnvelope& env, const json& tool, const json& arguments) {
  try {
    if (!env.profile || !env.envelope.is_object() || !tool.is_object()) return std::nullopt;
    const auto& p = *env.profile;
    auto truncated = detail::truncated_flag(p, env.envelope);
    if (!truncated || !*truncated) return std::nullopt;
    const json* schema = tool.contains("inputSchema") ? &tool["inputSchema"] : nullptr;
    if (!schema || !schema->is_object() || !schema->contains("properties") || !(*schema)["properties"].is_object())
      return std::nullopt;
    const json& props = (*schema)["properties"];
    const std::string tool_name = tool.value("name", "");
    json next = arguments.is_object() ? arguments : json::object();

    // A cursor field in the envelope (top level, or beside the profile's truncation flag).
    std::vector<const json*> holders = {&env.envelope};
    if (p.fields.truncated) {
      std::string parent = p.fields.truncated->substr(0, p.fields.truncated->rfind('/'));
      if (!parent.empty())
        if (const json* h = profile::resolve_pointer(env.envelope, parent); h && h->is_object()) holders.push_back(h);
    }
    for (const json* h : holders) {
      for (const char* key : {"nextCursor", "next_cursor", "cursor"}) {
        if (!h->contains(key) || !(*h)[key].is_string() || (*h)[key].get<std::string>().empty()) continue;
        for (const char* param : {"cursor", "nextCursor", "after", "pageToken", "pageCursor"}) {
          std::string k = property_key(props, param);
          if (!k.empty()) {
            next[k] = (*h)[key];
            return next == arguments ? std::nullopt : std::optional<json>(next);
          }
        }
      }
    }

    // A command hint: `tool_name --flag value ...`.
    if (!p.hint || p.hint->kind != profile::HintKind::kCommand || !p.fields.hint) return std::nullopt;
    const json* hint = at(env.envelope, p.fields.hint);
    if (!hint || !hint->is_string()) return std::nullopt;
    auto words = shell_words(hint->get<std::string>());
    // The command must be for this tool: if it names another tool first, it is not a resume here.
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i].rfind("--", 0) == 0) break;
      if (words[i] == tool_name) break;
      bool tool_like = words[i].find('_') != std::string::npos || words[i].find('-') != std::string::npos;
      if (tool_like && i + 1 < words.size() && words[i + 1].rfind("--", 0) == 0) return std::nullopt;
    }
    bool any = false;
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i].rfind("--", 0) != 0 || words[i].size() < 3) continue;
      std::string flag = words[i].substr(2), value;
      if (auto eq = flag.find('='); eq != std::string::npos) {
        value = flag.substr(eq + 1);
        flag = flag.substr(0, eq);
      } else if (i + 1 < words.size() && words[i + 1].rfind("--", 0) != 0) {
        value = words[++i];
      } else {
        continue;
      }
      const json* prop = property_named(props, flag);
      if (!prop) continue;  // E-HINT-REF reports flags the tool does not have
      // Trailing sentence punctuation is not part of a value.
      while (!value.empty() && (value.back() == '.' || value.back() == ',' || value.back() == ';')) value.pop_back();
      next[property_key(props, flag)] = detail::typed_value(value, *prop);
      any = true;
    }
    if (!any || next == arguments) return std::nullopt;
    return next;
  } catch (...) {
    return std::nullopt;
  }
}

Outcomes check_resume(const std::vector<ParsedEnvelope>& pages, const json* full) {
  Outcomes out;
  try {
    if (pages.size() < 2) return out;
    out.pass("TR-RESUME");
    std::vector<json> got;
    for (std::size_t i = 0; i < pages.size(); ++i) {
      const json* items = cut_items(pages[i]);
      if (!items) {
        out.push_back(make_finding("TR-RESUME", pages[i], {{"form", "no-array"}},
                                   "following the hint of page " + std::to_string(i) +
                                       " returned an answer with no array to continue"));
        return out;
      }
      const std::size_t start = got.size();
      if (i > 0 && items->empty()) {
        auto truncated = detail::truncated_flag(*pages[i].profile, pages[i].envelope);
        if (!full || got.size() < full->size())
          out.push_back(make_finding("TR-RESUME", pages[i], {{"form", "empty-page"}},
                                     "following the hint after " + std::to_string(start) +
                                         " items returned an empty page" +
                                         (truncated && *truncated ? " that still says truncated" : std::string())));
        return out;
      }
      for (std::size_t k = 0; k < items->size(); ++k) {
        const json& item = (*items)[k];
        // Positions the full array has are compared with it; past its end (a hint that is the next
        // page of a listing may go on beyond the original call's items), only overlap is checked.
        const std::size_t at_index = start + k;
        if (full && at_index < full->size()) {
          if ((*full)[at_index] == item) continue;
          std::string what = "not the item that follows";
          const char* form = "wrong-item";
          for (std::size_t j = 0; j < full->size(); ++j) {
            if ((*full)[j] != item) continue;
            what = j < at_index ? "item " + std::to_string(j + 1) + " again (" + std::to_string(at_index - j) +
                                      " item(s) of overlap)"
                                : "item " + std::to_string(j + 1) + " (" + std::to_string(j - at_index) +
                                      " item(s) skipped)";
            form = j < at_index ? "overlap" : "skip";
            break;
          }
          out.push_back(make_finding("TR-RESUME", pages[i], {{"form", form}},
                                     "following the hint of page " + std::to_string(i) + " (after " +
                                         std::to_string(start) + " items) gave, as item " +
                                         std::to_string(at_index + 1) + " of the rebuilt array, " + what +
                                         "; the next page must start right after the returned prefix"));
          return out;
        }
        if (std::find(got.begin(), got.end(), item) != got.end() && i > 0) {
          out.push_back(make_finding("TR-RESUME", pages[i], {{"form", "overlap"}},
                                     "following the hint of page " + std::to_string(i) + " (after " +
                                         std::to_string(start) + " items) returned an item already returned: the "
                                         "pages overlap"));
          return out;
        }
      }
      for (const auto& item : *items) got.push_back(item);
    }
    auto last_truncated = detail::truncated_flag(*pages.back().profile, pages.back().envelope);
    if (full && !(last_truncated && *last_truncated) && got.size() < full->size())
      out.push_back(make_finding("TR-RESUME", pages.back(), {{"form", "ends-early"}},
                                 "following the hints rebuilt " + std::to_string(got.size()) + " of the " +
                                     std::to_string(full->size()) + " items, and the last page says it is complete"));
  } catch (...) {
  }
  return out;
}

}  // namespace ctxo::checks
