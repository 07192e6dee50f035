// SPDX-License-Identifier: MIT
// Parsing JSON a server sent, with its nesting bounded: every walk, dump and check downstream
// recurses once per level, so a message of a million nested `[` would overflow the stack.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctxo {

/// The deepest nesting kept from server-sent JSON; values below it are dropped while parsing.
inline constexpr int kMaxJsonNesting = 256;

namespace detail {

// Builds the DOM from SAX events, dropping every value nested deeper than kMaxJsonNesting (the
// top-level value is depth 0; a container's elements are one deeper). Linear in the input: the
// parser callback of nlohmann::json scans a container's elements again at each element's end
// (to remove the ones it discarded), so an answer of three million `{}` took minutes.
class BoundedDom {
 public:
  using json = nlohmann::json;
  /// `max_items`: the items kept of each array and the members of each object (its first ones;
  /// the rest are dropped); past `max_values` values kept in all, no array takes another item.
  explicit BoundedDom(json& root, std::size_t max_items = SIZE_MAX, std::size_t max_values = SIZE_MAX)
      : root_(root), max_items_(max_items), max_values_(max_values) {}

  bool null() { return put(nullptr); }
  bool boolean(bool v) { return put(v); }
  bool number_integer(json::number_integer_t v) { return put(v); }
  bool number_unsigned(json::number_unsigned_t v) { return put(v); }
  bool number_float(json::number_float_t v, const json::string_t&) { return put(v); }
  bool string(json::string_t& v) { return put(std::move(v)); }
  bool binary(json::binary_t& v) { return put(json::binary(std::move(v))); }
  bool start_object(std::size_t) { return open(json::value_t::object); }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json::value_t::array); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    if (skip_ == 0) key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t at, const std::string&, const nlohmann::detail::exception& e) {
    failed = true;
    error_at = at;
    error_id = e.id;
    return false;
  }

  bool deep = false;    ///< A value was dropped for its depth.
  bool failed = false;  ///< Not JSON.
  bool cut = false;     ///< An array's items or an object's members past max_items were dropped.
  std::size_t error_at = 0;  ///< failed: the parser's position (one past the token it refused).
  int error_id = 0;          ///< failed: nlohmann's exception id (406: a number out of a double's range).
  std::string duplicate;     ///< The first key an object held twice (the last value is kept, as JavaScript does).
  bool duplicated = false;

 private:
  // Where the next value goes (nullptr: dropped for its depth).
  json* place(json value) {
    if (skip_ > 0) return nullptr;
    if (stack_.size() > static_cast<std::size_t>(kMaxJsonNesting)) {
      deep = true;
      return nullptr;
    }
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      if (parent.size() >= max_items_ || values_ >= max_values_) {
        cut = true;
        return nullptr;
      }
      ++values_;
      parent.push_back(std::move(value));
      return &parent.back();
    }
    auto& members = parent.get_ref<json::object_t&>();
    // A sample keeps an object's first max_items members too (a map of a million keys is read as
    // its first thousand); a key it holds already is still replaced, as a parse would.
    // (max_values does not cut an object: an item is kept whole or dropped, never half-read.)
    if (members.size() >= max_items_ && members.find(key_) == members.end()) {
      cut = true;
      return nullptr;
    }
    ++values_;
    auto [it, fresh] = members.emplace(key_, nullptr);
    if (!fresh && !duplicated) {
      duplicated = true;
      duplicate = key_;
    }
    it->second = std::move(value);
    return &it->second;
  }
  bool put(json value) {
    place(std::move(value));
    return true;
  }
  bool open(json::value_t type) {
    if (skip_ > 0) {
      ++skip_;
      return true;
    }
    json* c = place(json(type));
    if (!c) {
      skip_ = 1;  // the container and all it holds are dropped
      return true;
    }
    stack_.push_back(c);
    return true;
  }
  bool close() {
    if (skip_ > 0) --skip_;
    else stack_.pop_back();
    return true;
  }

  json& root_;
  std::size_t max_items_;
  std::size_t max_values_;
  std::size_t values_ = 0;  ///< Values placed so far.
  std::vector<json*> stack_;
  std::size_t skip_ = 0;  ///< Open containers being dropped.
  json::string_t key_;
};

}  // namespace detail

/// json::parse(text, nullptr, false) (discarded when not JSON), except that values nested deeper
/// than kMaxJsonNesting are dropped; `too_deep`, when given, says whether any was. The parser
/// itself keeps its stacks on the heap, so any depth is read without recursion, in linear time.
inline nlohmann::json parse_bounded(std::string_view text, bool* too_deep = nullptr) {
  nlohmann::json j;
  detail::BoundedDom dom(j);
  const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &dom) && !dom.failed;
  if (too_deep) *too_deep = dom.deep;
  if (!ok) return nlohmann::json(nlohmann::json::value_t::discarded);
  return j;
}

/// What parse_message() saw beside the value.
struct MessageFacts {
  bool too_deep = false;   ///< Values nested deeper than kMaxJsonNesting were dropped.
  std::string duplicate;   ///< The first key an object holds twice ("" when none; the last value is kept).
  bool duplicated = false;
  /// Numbers too large for a double (1e999), each read as null; where the first was (npos: none).
  std::size_t overflow_at = std::string_view::npos;
  std::string overflow;    ///< The first such number, as sent.
};

/// parse_bounded() of a message, telling what JSON allows but its readers disagree on: a key held
/// twice in one object, a number no double holds (JavaScript reads Infinity, nlohmann and serde
/// refuse the message; here it is read as null, at most 16 of them).
inline nlohmann::json parse_message(std::string_view text, MessageFacts& facts) {
  std::string repaired;
  std::string_view src = text;
  for (int round = 0; round <= 16; ++round) {
    nlohmann::json j;
    detail::BoundedDom dom(j);
    const bool ok = nlohmann::json::sax_parse(src.begin(), src.end(), &dom) && !dom.failed;
    facts.too_deep = dom.deep;
    if (ok) {
      facts.duplicated = dom.duplicated;
      facts.duplicate = dom.duplicate;
      return j;
    }
    if (dom.error_id != 406 || round == 16) break;
    // The number the parser refused ends at error_at: find where it starts, and read it as null.
    std::size_t end = std::min(dom.error_at, src.size()), start = end;
    auto num = [](char c) { return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'; };
    while (end < src.size() && num(src[end])) ++end;
    while (start > 0 && num(src[start - 1])) --start;
    if (start == end) break;
    if (facts.overflow_at == std::string_view::npos) {
      facts.overflow_at = start;
      facts.overflow = std::string(src.substr(start, end - start));
    }
    repaired = std::string(src.substr(0, start)) + "null" + std::string(src.substr(end));
    src = repaired;
  }
  return nlohmann::json(nlohmann::json::value_t::discarded);
}

/// parse_bounded() keeping the first `max_items` items of every array and members of every
/// object, and no array item past `max_values` values in all (a sample of a huge answer in one
/// linear pass, never the whole DOM); `cut`, when given, says whether any was dropped.
inline nlohmann::json parse_sampled(std::string_view text, std::size_t max_items, std::size_t max_values,
                                    bool* cut = nullptr) {
  nlohmann::json j;
  detail::BoundedDom dom(j, max_items, max_values);
  const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &dom) && !dom.failed;
  if (cut) *cut = ok && dom.cut;
  if (!ok) return nlohmann::json(nlohmann::json::value_t::discarded);
  return j;
}

/// One past the end of the JSON object or array that starts at `text[start]` (`{` or `[`), by its
/// brackets, strings and escapes honoured (a JSON document at the head of a text part, with a
/// footer after it); npos when it does not close, or a bracket closes what was never opened. The
/// one scanner every reader of an answer uses: it only finds the end; parse_bounded() decides
/// whether what it bounds is JSON.
inline std::size_t json_value_end(std::string_view text, std::size_t start) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
      if (depth < 0) return std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

}  // namespace ctxo
