// SPDX-License-Identifier: MIT
// JSON serialisation that matches JavaScript's JSON.stringify byte for byte, and the sizes of that
// serialisation (UTF-8 bytes, UTF-16 units, code points) computed without building the string.
// Deliberately not nlohmann's dump(): its doubles and escapes differ from what a Node server sends.
//
// Rules (JSON.stringify(value) or JSON.stringify(value, null, indent)):
//  - objects in nlohmann's stored key order (sorted; sizes never depend on order),
//  - strings as raw UTF-8; escapes \" \\ \b \f \n \r \t; other controls < 0x20 as \u00xx
//    (lowercase hex); nothing else escaped; ill-formed UTF-8 subparts become U+FFFD (see unicode.h),
//  - numbers as JavaScript's Number#toString: integers |n| <= 2^53 as is, everything else through
//    the double they round to (9007199254740993 prints 9007199254740992, 1e21 prints "1e+21",
//    1e-7 prints "1e-7", -0 prints "0"); NaN and +-Infinity print "null",
//  - nlohmann binary values as {"bytes":[...],"subtype":n|null} (nlohmann's own convention),
//    discarded values as null,
//  - indent <= 0 compact; indent 1..10 as JS's gap of that many spaces; > 10 clamps to 10.
// Nesting depth is unlimited: the walkers are iterative.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctxo::truncation {

/// What a size counts.
enum class Measure {
  kUtf8Bytes,   ///< UTF-8 bytes (byte limits: ctxo, meta).
  kUtf16Units,  ///< UTF-16 code units, a JavaScript string's length (budget, truncation-info).
  kCodePoints,  ///< Unicode code points, a Python str's len().
};

/// JSON.stringify(value) (indent <= 0) or JSON.stringify(value, null, indent). Never throws
/// except std::bad_alloc.
std::string to_js_json(const nlohmann::json& value, int indent = -1);

/// UTF-8 bytes of to_js_json(value, indent), computed without building the string.
std::size_t js_json_size(const nlohmann::json& value, int indent = -1);

/// UTF-16 code units of to_js_json(value, indent) (the JavaScript string's length).
std::size_t js_json_utf16_size(const nlohmann::json& value, int indent = -1);

/// Size of to_js_json(value, indent) in `measure`, for `value` nested `depth` levels deep in a
/// larger document (depth only matters when indent > 0: it sets the indentation of inner lines).
std::size_t js_json_measure(const nlohmann::json& value, Measure measure, int indent = -1, int depth = 0);

/// Measures many values in one measure/indent without allocating per value (it keeps its walk
/// stack between calls), and records the deepest nesting seen. Not thread-safe; cheap to create.
class JsonMeasurer {
 public:
  JsonMeasurer(Measure measure, int indent) : measure_(measure), indent_(indent) {}
  /// Same as js_json_measure(value, measure, indent, depth).
  std::size_t measure(const nlohmann::json& value, int depth = 0);
  /// Sum of measure(item, depth) over `items`, in one call for the whole array (the per-item fast
  /// path for objects of scalars lives here). The item sizes are appended to *sizes while their
  /// running sum stays <= keep_sum, plus the first one that takes it over; then only summed (a
  /// caller looking for a fitting prefix needs no more, and keeps no O(n) array).
  std::size_t measure_items(const nlohmann::json::array_t& items, int depth, std::vector<std::size_t>* sizes,
                            std::size_t keep_sum = static_cast<std::size_t>(-1));
  /// Greatest json_depth() of the values measured so far.
  std::size_t max_depth() const { return max_depth_; }

  /// Implementation detail of the iterative walk: one open container.
  struct Frame {
    const nlohmann::json* node;
    nlohmann::json::const_iterator it;
    bool first;
  };

  /// Implementation detail of the counting walk: one open array (ait/aend) or object (oit/oend).
  struct CountFrame {
    const nlohmann::json* ait;
    const nlohmann::json* aend;
    nlohmann::json::object_t::const_iterator oit;
    nlohmann::json::object_t::const_iterator oend;
    bool is_object;
  };

 private:
  Measure measure_;
  int indent_;
  std::size_t max_depth_ = 0;
  std::vector<CountFrame> stack_;
};

/// Size of a JSON string literal (quotes and escapes included) of `text` in `measure`.
std::size_t js_string_measure(std::string_view text, Measure measure);

/// Size of `text` (no quotes, no escaping) in `measure`; ill-formed subparts count as U+FFFD.
std::size_t text_measure(std::string_view text, Measure measure);

/// Number#toString of `value` for finite values ("1.5", "1e+21", "0" for -0); "null" otherwise.
std::string js_number(double value);

/// js_number(value).size(), computed without formatting the digits (what the sizers use).
std::size_t js_number_length(double value);

/// Number of decimal digits of `n` (1 for 0).
std::size_t decimal_digits(std::size_t n);

/// Greatest nesting depth of `value` (a scalar is 0, [] is 1, [[1]] is 2). Iterative.
std::size_t json_depth(const nlohmann::json& value);

}  // namespace ctxo::truncation
