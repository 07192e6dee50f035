// SPDX-License-Identifier: MIT
// The truncation-info profile (seed 004): a character limit with a safety margin, cut at result
// boundaries, and the single-result-too-large case; estimated_chars is exact, not estimated.
#include <exception>

#include "truncation/detail.h"
#include "truncation/truncate.h"

namespace ctxo::truncation {

using nlohmann::json;

namespace {

const std::vector<std::string> kManagedKeys = {"total_count", "returned_count", "truncated", "truncation_info"};
constexpr const char* kCharacterLimit = "character_limit";
constexpr const char* kSingleTooLarge = "single_result_too_large";

struct TiInput {
  json rest;                    // payload without managed keys, results replaced by []
  const json* array = nullptr;  // the results array, or nullptr
  std::size_t n = 0;
  std::size_t limit = 0;        // effective limit
};

Result<TiInput> prepare(const json& payload, const TruncationInfoOptions& o) {
  if (!payload.is_object()) return make_error("invalid_payload", "truncation-info payload must be a JSON object");
  TiInput in;
  in.limit = static_cast<std::size_t>(static_cast<unsigned long long>(o.character_limit) * o.margin_percent / 100);
  if (in.limit == 0) return make_error("invalid_limit", "truncation-info effective character limit is 0");
  if (auto e = detail::check_depth(payload, o.max_depth)) return *e;
  const auto it = payload.find(o.results_field);
  if (it != payload.end() && it->is_array()) {
    in.array = &*it;
    in.n = it->size();
  }
  in.rest = detail::copy_without(payload, kManagedKeys, in.array ? o.results_field : "", json::array());
  return in;
}

// reason "" means null (not truncated).
json build(const TiInput& in, const TruncationInfoOptions& o, std::size_t k, const std::string& reason,
           std::size_t chars) {
  json env = in.rest;
  if (in.array) env[o.results_field] = detail::prefix_of(*in.array, k);
  env["total_count"] = in.n;
  env["returned_count"] = k;
  env["truncated"] = !reason.empty();
  env["truncation_info"] = json{{"reason", reason.empty() ? json(nullptr) : json(reason)},
                                {"original_count", in.n},
                                {"returned_count", k},
                                {"estimated_chars", chars},
                                {"limit_chars", in.limit},
                                {"estimated_tokens", chars / 4},
                                {"limit_tokens", in.limit / 4}};
  return env;
}

Result<TruncationInfoEnvelope> finish(const TiInput& in, const TruncationInfoOptions& o, std::size_t k,
                                      const std::string& reason, std::size_t chars, bool check) {
  TruncationInfoEnvelope r;
  r.json = build(in, o, k, reason, chars);
  r.text = to_js_json(r.json, o.indent);
  r.text_size = detail::measure_text(r.text, o.measure);
  r.field = in.array ? o.results_field : "";
  r.total_items = in.n;
  r.returned_items = k;
  r.truncated = !reason.empty();
  r.fits = r.text_size <= in.limit;
  r.reason = reason;
  r.estimated_chars = chars;
  r.limit_chars = in.limit;
  if (check && r.text_size != chars) return detail::size_mismatch("truncation-info", chars, r.text_size);
  return r;
}

Result<TruncationInfoEnvelope> exact(const json& payload, const TruncationInfoOptions& o) {
  auto prepared = prepare(payload, o);
  if (!prepared) return prepared.error();
  const TiInput& in = *prepared;
  const Measure m = o.measure;
  const std::size_t n = in.n;
  std::vector<std::size_t> sizes;
  if (in.array) sizes = detail::item_sizes(*in.array, m, o.indent, 2);
  const detail::ArrayLayout layout = detail::array_layout(o.indent, 1);
  std::size_t sum_all = 0;
  for (std::size_t s : sizes) sum_all += s;
  // Skeletons: results [] (2, only when there is an array), returned_count 0 twice, estimated
  // chars and tokens 0 (one digit each).
  const std::size_t hole = in.array ? 2 : 0;
  auto skeleton = [&](const std::string& reason) { return js_json_measure(build(in, o, 0, reason, 0), m, o.indent) - hole - 2 - 2; };
  auto base_at = [&](std::size_t sk, std::size_t k, std::size_t sum) {
    return sk + (in.array ? layout.cost(k, sum) : 0) + 2 * decimal_digits(k);
  };
  const std::size_t verbatim = detail::chars_fixed_point(base_at(skeleton(""), n, sum_all));
  if (verbatim <= in.limit || n == 0) return finish(in, o, n, "", verbatim, true);
  const std::size_t sk = skeleton(kCharacterLimit);
  const auto best = detail::scan_largest(sizes, 1, n - 1, [&](std::size_t k, std::size_t sum) {
    return detail::chars_fixed_point(base_at(sk, k, sum)) <= in.limit;
  });
  if (best) {
    std::size_t sum = 0;
    for (std::size_t i = 0; i < *best; ++i) sum += sizes[i];
    return finish(in, o, *best, kCharacterLimit, detail::chars_fixed_point(base_at(sk, *best, sum)), true);
  }
  return finish(in, o, 1, kSingleTooLarge, detail::chars_fixed_point(base_at(skeleton(kSingleTooLarge), 1, sizes[0])),
                true);
}

std::size_t chars_naive(const TiInput& in, const TruncationInfoOptions& o, std::size_t k, const std::string& reason) {
  std::size_t c = 0;
  for (int i = 0; i < 64; ++i) {
    const std::size_t next = detail::measure_text(to_js_json(build(in, o, k, reason, c), o.indent), o.measure);
    if (next == c) break;
    c = next;
  }
  return c;
}

Result<TruncationInfoEnvelope> naive(const json& payload, const TruncationInfoOptions& o) {
  auto prepared = prepare(payload, o);
  if (!prepared) return prepared.error();
  const TiInput& in = *prepared;
  const std::size_t n = in.n;
  const std::size_t whole = chars_naive(in, o, n, "");
  if (whole <= in.limit || n == 0) return finish(in, o, n, "", whole, false);
  if (n >= 2) {
    // Keys k in [1, n-1] are searched as j = k - 1 in [0, n-2].
    const auto best = largest_prefix_naive(
        n - 2, [&](std::size_t j) { return chars_naive(in, o, j + 1, kCharacterLimit) <= in.limit; });
    if (best) return finish(in, o, *best + 1, kCharacterLimit, chars_naive(in, o, *best + 1, kCharacterLimit), false);
  }
  return finish(in, o, 1, kSingleTooLarge, chars_naive(in, o, 1, kSingleTooLarge), false);
}

}  // namespace

Result<TruncationInfoEnvelope> truncate_truncation_info(const json& payload, const TruncationInfoOptions& options) {
  try {
    return exact(payload, options);
  } catch (const std::exception& e) {
    return make_error("internal", std::string("truncate_truncation_info: ") + e.what());
  }
}

Result<TruncationInfoEnvelope> truncate_truncation_info_naive(const json& payload,
                                                              const TruncationInfoOptions& options) {
  try {
    return naive(payload, options);
  } catch (const std::exception& e) {
    return make_error("internal", std::string("truncate_truncation_info_naive: ") + e.what());
  }
}

}  // namespace ctxo::truncation
