// SPDX-License-Identifier: MIT
#include "core/named_items.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

namespace ctxo {

namespace {

// `k` without '_' and '-', lowered: "task_ids" and "taskIds" are "taskids".
std::string key_of(const std::string& k) {
  std::string out;
  for (char c : k)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool ends_with(const std::string& s, std::string_view suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

// The words of a name: "get_tasks", "getTasks", "get-tasks" are {get, tasks}.
std::vector<std::string> words_of(const std::string& name) {
  std::vector<std::string> words;
  std::string w;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) || (std::isupper(u) && !w.empty() && !std::isupper(static_cast<unsigned char>(w.back())))) {
      if (!w.empty()) words.push_back(w);
      w.clear();
      if (!std::isalnum(u)) continue;
    }
    w += c;
  }
  if (!w.empty()) words.push_back(w);
  for (auto& x : words) x = key_of(x);
  return words;
}

}  // namespace

bool names_items(const std::string& argument) {
  const std::string k = key_of(argument);
  return ends_with(k, "ids") || ends_with(k, "names") || ends_with(k, "keys");
}

bool takes_ids(const std::string& argument) {
  const std::string k = key_of(argument);
  return k == "id" || ends_with(k, "ids") || (ends_with(k, "id") && !ends_with(k, "valid") && !ends_with(k, "paid"));
}

bool lookup_tool(const std::string& tool) {
  constexpr std::string_view kVerbs[] = {"list", "search", "filter", "query", "count", "delete", "remove", "create",
                                         "add", "update", "insert", "write", "set", "move", "rename", "find"};
  const auto words = words_of(tool);
  return std::none_of(words.begin(), words.end(), [&](const std::string& w) {
    return std::find(std::begin(kVerbs), std::end(kVerbs), w) != std::end(kVerbs);
  });
}

bool about_the_tool(const std::string& argument, const std::string& tool) {
  std::string k = key_of(argument);
  for (std::string_view suffix : {"ids", "names", "keys", "id"})
    if (ends_with(k, suffix)) {
      k.resize(k.size() - suffix.size());
      break;
    }
  if (k.empty() || k == "u") return true;  // `ids`, `names`, `keys`, `id`, `uuids`
  return key_of(tool).find(k.substr(0, std::min<std::size_t>(k.size(), 5))) != std::string::npos;
}

}  // namespace ctxo
