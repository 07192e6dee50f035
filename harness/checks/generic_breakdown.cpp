// SPDX-License-Identifier: MIT
// A breakdown that does not add up (issue 42): per-value counts beside a list (pending 6, done 0,
// in progress 3) that disagree with the items the list shows, or whose sum is not the total the
// answer states. Judged only where the counts are plainly a partition of the list: their keys are
// the values of one string field of the list's items, every value the items have among them.
#include <map>

#include "checks/generic.h"
#include "checks/generic_internal.h"
#include "core/cause.h"

namespace ctxo::checks {

using generic_detail::tick;

namespace {

// "in-progress", "in_progress", "In Progress" and "inProgress" are one key.
std::string norm(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// An object of at least 2 counts: every member a non-negative integer.
bool counts_object(const json& j) {
  if (!j.is_object() || j.size() < 2 || j.size() > 64) return false;
  for (const auto& [k, v] : j.items())
    if (!v.is_number_integer() && !v.is_number_unsigned()) return false;
    else if (v.is_number_integer() && v.get<std::int64_t>() < 0) return false;
  return true;
}

constexpr const char* kTotals[] = {"total", "totalCount", "total_count", "totalItems", "total_items", "totalTasks",
                                   "total_tasks", "count"};

struct Candidate {
  const json* counts;
  std::string counts_path;
  const json* list;
  std::string list_path;
  const json* total = nullptr;
  std::string total_path;
};

// The string field of the list's items whose values the counts' keys name ("" when none): present
// in most items, and every value it takes is one of the keys.
std::string partition_field(const json& list, const json& counts) {
  std::map<std::string, std::size_t> seen;  // field -> items holding a string there
  for (const auto& item : list)
    if (item.is_object())
      for (const auto& [k, v] : item.items())
        if (v.is_string()) ++seen[k];
  std::map<std::string, bool> keys;
  for (const auto& [k, v] : counts.items()) keys[norm(k)] = true;
  for (const auto& [field, n] : seen) {
    if (n * 2 < list.size() || n < 2) continue;
    bool all = true;
    std::size_t named = 0;
    for (const auto& item : list) {
      auto it = item.is_object() ? item.find(field) : item.end();
      if (!item.is_object() || it == item.end() || !it->is_string()) continue;
      if (!keys.count(norm(it->get<std::string>()))) {
        all = false;
        break;
      }
      ++named;
    }
    if (all && named >= 2) return field;
  }
  return "";
}

}  // namespace

std::optional<Breakdown> breakdown_mismatch(const json& data, bool more) {
  if (!data.is_object()) return std::nullopt;
  // Objects to look in: the root and its object members (a `summary`, a `stats` beside the list).
  std::vector<std::pair<const json*, std::string>> holders{{&data, ""}};
  for (const auto& [k, v] : data.items())
    if (v.is_object()) holders.emplace_back(&v, k);
  const json* list = nullptr;
  std::string list_path;
  for (const auto& [k, v] : data.items())
    if (v.is_array() && v.size() >= 2) {
      if (list) return std::nullopt;  // two lists: which one the counts describe is not plain
      list = &v;
      list_path = k;
    }
  if (!list || list->size() > 100000) return std::nullopt;
  const json* total = nullptr;
  std::string total_path;
  for (const auto& [h, path] : holders)
    for (const char* t : kTotals)
      if (auto it = h->find(t); it != h->end() && it->is_number_integer()) {
        if (!total) total = &*it, total_path = path.empty() ? t : path + "." + t;
      }
  for (const auto& [h, path] : holders)
    for (const auto& [k, v] : h->items()) {
      if (!counts_object(v)) continue;
      const std::string field = partition_field(*list, v);
      if (field.empty()) continue;
      Breakdown b;
      b.counts = path.empty() ? k : path + "." + k;
      b.list = list_path;
      std::int64_t sum = 0;
      std::string said;
      for (const auto& [key, n] : v.items()) {
        sum += n.get<std::int64_t>();
        said += (said.empty() ? "" : ", ") + key + " " + std::to_string(n.get<std::int64_t>());
      }
      // What the list shows, by the same keys.
      std::map<std::string, std::int64_t> shown;
      for (const auto& item : *list)
        if (item.is_object())
          if (auto it = item.find(field); it != item.end() && it->is_string()) ++shown[norm(it->get<std::string>())];
      std::string truth;
      bool differs = false;
      for (const auto& [key, n] : v.items()) {
        const std::int64_t s = shown.count(norm(key)) ? shown[norm(key)] : 0;
        truth += (truth.empty() ? "" : ", ") + key + " " + std::to_string(s);
        if (s != n.get<std::int64_t>()) differs = true;
      }
      const auto items = static_cast<std::int64_t>(list->size());
      const bool whole = !more && (!total || total->get<std::int64_t>() == items);
      if (total && sum != total->get<std::int64_t>()) {
        b.detail = tick(b.counts) + " counts " + said + " (" + std::to_string(sum) + " in all), but " + tick(total_path) +
                   " is " + std::to_string(total->get<std::int64_t>());
        if (whole) b.detail += ", and " + tick(list_path) + " lists " + std::to_string(items) + " items by `" + field + "`: " + truth;
        return b;
      }
      if (whole && differs) {
        b.detail = tick(b.counts) + " counts " + said + ", but " + tick(list_path) + " lists all " + std::to_string(items) +
                   " items, and by `" + field + "` they are " + truth;
        return b;
      }
      return std::nullopt;  // the first breakdown that describes the list, and it agrees
    }
  return std::nullopt;
}

}  // namespace ctxo::checks
