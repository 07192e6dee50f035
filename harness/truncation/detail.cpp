// SPDX-License-Identifier: MIT
// Internal helpers of the profile implementations; see detail.h.
#include "truncation/detail.h"

#include <algorithm>

#include "truncation/unicode.h"

namespace ctxo::truncation::detail {

ArrayLayout array_layout(int indent, std::size_t depth) {
  const std::size_t w = indent <= 0 ? 0 : indent > 10 ? 10 : static_cast<std::size_t>(indent);
  if (w == 0) return {1, 1};
  // "[" + k * ("\n" + indent(depth+1)) + items + (k-1) "," + "\n" + indent(depth) + "]"
  return {2 + w * depth, 2 + w * (depth + 1)};
}

std::string render(std::string_view tmpl, const std::map<std::string, std::string>& values) {
  std::string out;
  std::size_t i = 0;
  while (i < tmpl.size()) {
    if (tmpl[i] == '{') {
      const std::size_t close = tmpl.find('}', i + 1);
      if (close != std::string_view::npos) {
        const auto it = values.find(std::string(tmpl.substr(i + 1, close - i - 1)));
        if (it != values.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    }
    out.push_back(tmpl[i++]);
  }
  return out;
}

std::size_t count_placeholder(std::string_view tmpl, std::string_view name) {
  std::size_t n = 0, i = 0;
  while (i < tmpl.size()) {
    if (tmpl[i] == '{') {
      const std::size_t close = tmpl.find('}', i + 1);
      if (close != std::string_view::npos && tmpl.substr(i + 1, close - i - 1) == name) {
        ++n;
        i = close + 1;
        continue;
      }
    }
    ++i;
  }
  return n;
}

std::size_t token_fixed_point(std::size_t base) {
  std::size_t u = 0;
  // f(u) = ceil((base + digits(u)) / 4) is non-decreasing, so iterating from 0 climbs to the
  // least fixed point; digits() grows so slowly that this takes a handful of steps.
  for (int i = 0; i < 64; ++i) {
    const std::size_t next = (base + decimal_digits(u) + 3) / 4;
    if (next == u) break;
    u = next;
  }
  return u;
}

std::size_t chars_fixed_point(std::size_t base) {
  std::size_t c = 0;
  for (int i = 0; i < 64; ++i) {
    const std::size_t next = base + decimal_digits(c) + decimal_digits(c / 4);
    if (next == c) break;
    c = next;
  }
  return c;
}

const json* pick_largest_array(const json& payload, const std::vector<std::string>& fields, std::string* name) {
  const json* best = nullptr;
  if (!payload.is_object()) return nullptr;
  for (const auto& f : fields) {
    const auto it = payload.find(f);
    if (it == payload.end() || !it->is_array()) continue;
    if (best == nullptr || it->size() > best->size()) {
      best = &*it;
      *name = f;
    }
  }
  return best;
}

json copy_without(const json& obj, const std::vector<std::string>& drop, const std::string& replace_key,
                  const json& replacement) {
  json out = json::object();
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool skip = false;
    for (const auto& d : drop) skip = skip || it.key() == d;
    if (skip) continue;
    if (!replace_key.empty() && it.key() == replace_key) {
      out[it.key()] = replacement;
    } else {
      out[it.key()] = it.value();
    }
  }
  return out;
}

json prefix_of(const json& array, std::size_t k) {
  json out = json::array();
  auto& vec = out.get_ref<json::array_t&>();
  vec.reserve(k);
  const auto& src = array.get_ref<const json::array_t&>();
  for (std::size_t i = 0; i < k && i < src.size(); ++i) vec.push_back(src[i]);
  return out;
}

std::vector<std::size_t> item_sizes(const json& array, Measure measure, int indent, std::size_t item_depth,
                                    std::size_t* max_item_depth) {
  std::vector<std::size_t> sizes;
  sizes.reserve(array.size());
  JsonMeasurer m(measure, indent);
  m.measure_items(array.get_ref<const json::array_t&>(), static_cast<int>(item_depth), &sizes);
  if (max_item_depth) *max_item_depth = m.max_depth();
  return sizes;
}

void string_steps(std::string_view text, Measure measure, std::vector<std::size_t>* sizes,
                  std::vector<std::size_t>* offsets) {
  std::size_t i = 0;
  offsets->push_back(0);
  while (i < text.size()) {
    const Utf8Step st = decode_utf8(text, i);
    sizes->push_back(js_string_measure(text.substr(i, st.length), measure) - 2);
    i += st.length;
    offsets->push_back(i);
  }
}

std::size_t measure_text(const std::string& text, Measure measure) {
  return measure == Measure::kUtf8Bytes ? text.size() : text_measure(text, measure);
}

Error size_mismatch(const char* profile, std::size_t predicted, std::size_t actual) {
  return make_error("internal", std::string(profile) + ": predicted envelope size " + std::to_string(predicted) +
                                    " but serialised " + std::to_string(actual) + " (a bug in the truncation core)");
}

std::size_t depth_without(const json& obj, const std::string& skip) {
  std::size_t d = 1;
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (it.key() != skip) d = std::max(d, 1 + json_depth(it.value()));
  return d;
}

std::optional<Error> check_depth(const json& value, std::size_t max_depth) {
  return depth_error(json_depth(value), max_depth);
}

std::optional<Error> depth_error(std::size_t d, std::size_t max_depth) {
  if (d > max_depth)
    return make_error("too_deep", "payload nests " + std::to_string(d) + " levels deep; the limit is " +
                                      std::to_string(max_depth));
  return std::nullopt;
}

}  // namespace ctxo::truncation::detail
