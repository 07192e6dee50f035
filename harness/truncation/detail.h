// SPDX-License-Identifier: MIT
// Internal helpers shared by the profile implementations (not part of the public API): array
// layout arithmetic, placeholder templates, largest-fitting-prefix scans, fixed points.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "truncation/js_json.h"

namespace ctxo::truncation::detail {

using nlohmann::json;

/// Serialised size of a non-empty JSON array holding items of the given sizes is
/// open_close + sum(item + per_item); an empty one is always 2 ("[]").
struct ArrayLayout {
  std::size_t open_close = 1;
  std::size_t per_item = 1;
  std::size_t cost(std::size_t k, std::size_t item_sum) const { return k == 0 ? 2 : open_close + item_sum + per_item * k; }
};

/// Layout of an array value nested `depth` levels deep, for JSON.stringify with `indent`.
ArrayLayout array_layout(int indent, std::size_t depth);

/// Renders `tmpl`, replacing each {name} found in `values` in one pass (values are not rescanned).
std::string render(std::string_view tmpl, const std::map<std::string, std::string>& values);

/// Occurrences of "{name}" in `tmpl` as render() would replace them.
std::size_t count_placeholder(std::string_view tmpl, std::string_view name);

/// Largest k in [lo, hi] (inclusive) for which fits(k, item_sum_k) holds, scanning every k (no
/// monotonicity assumed); item_sum_k = sum of sizes[0..k). nullopt when none does or lo > hi.
template <typename Fits>
std::optional<std::size_t> scan_largest(const std::vector<std::size_t>& sizes, std::size_t lo, std::size_t hi,
                                        Fits fits) {
  std::optional<std::size_t> best;
  std::size_t sum = 0;
  for (std::size_t k = 0; k <= hi && k <= sizes.size(); ++k) {
    if (k > 0) sum += sizes[k - 1];
    if (k >= lo && fits(k, sum)) best = k;
  }
  return best;
}

/// Least u with u == ceil((base + digits(u)) / 4): the token count of a text whose size is
/// base plus the digits of the count itself.
std::size_t token_fixed_point(std::size_t base);

/// Least c with c == base + digits(c) + digits(c / 4): a character count reported inside the
/// text together with its quarter.
std::size_t chars_fixed_point(std::size_t base);

/// The truncatable field of `payload` with the most items (ties: first in `fields`), or nullptr.
const json* pick_largest_array(const json& payload, const std::vector<std::string>& fields, std::string* name);

/// `obj` (an object) without the given keys; `replace_key` (if non-empty) set to `replacement`.
json copy_without(const json& obj, const std::vector<std::string>& drop, const std::string& replace_key,
                  const json& replacement);

/// json array holding items [0, k) of `array`.
json prefix_of(const json& array, std::size_t k);

/// Item sizes of `array` measured at `item_depth`; *max_item_depth (if given) receives the
/// greatest json_depth() of the items.
std::vector<std::size_t> item_sizes(const json& array, Measure measure, int indent, std::size_t item_depth,
                                    std::size_t* max_item_depth = nullptr);

/// Sizes of the decoded characters of `text` inside a JSON string literal (escapes included),
/// and their byte offsets (offsets.size() == sizes.size() + 1).
void string_steps(std::string_view text, Measure measure, std::vector<std::size_t>* sizes,
                  std::vector<std::size_t>* offsets);

/// Size of `text` (the output) in `measure`; to_js_json output is valid UTF-8.
std::size_t measure_text(const std::string& text, Measure measure);

/// Error{"internal"} describing a predicted/actual size mismatch.
Error size_mismatch(const char* profile, std::size_t predicted, std::size_t actual);

/// Error{"too_deep"} when `value` nests deeper than `max_depth`, else nullopt.
std::optional<Error> check_depth(const json& value, std::size_t max_depth);

/// Error{"too_deep"} naming `depth` when it exceeds `max_depth`, else nullopt.
std::optional<Error> depth_error(std::size_t depth, std::size_t max_depth);

/// json_depth of the object `obj` ignoring its member `skip` (1 for an object with no other members).
std::size_t depth_without(const json& obj, const std::string& skip);

}  // namespace ctxo::truncation::detail
