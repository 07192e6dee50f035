// SPDX-License-Identifier: MIT
// Generic largest-prefix functions and the ctxo profile (seed 000), exact and naive.
#include <algorithm>
#include <exception>

#include "truncation/detail.h"
#include "truncation/truncate.h"

namespace ctxo::truncation {

using nlohmann::json;

std::optional<std::size_t> largest_prefix_exact(std::span<const std::size_t> item_sizes, std::size_t fixed_size,
                                                std::size_t separator_size, std::size_t limit) {
  if (fixed_size > limit) return std::nullopt;
  std::size_t used = fixed_size, k = 0;
  for (; k < item_sizes.size(); ++k) {
    const std::size_t add = item_sizes[k] + (k > 0 ? separator_size : 0);
    if (add > limit - used) break;  // sizes are non-negative: once over, always over
    used += add;
  }
  return k;
}

std::optional<std::size_t> largest_prefix_naive(std::size_t n, const std::function<bool(std::size_t)>& fits) {
  if (!fits(0)) return std::nullopt;
  std::size_t lo = 0, hi = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

std::vector<std::string> default_ctxo_fields() {
  return {"impactedSymbols", "importers", "deadSymbols", "unusedExports", "results", "rankings",
          "context",         "hierarchies", "scaffolding", "deadFiles",   "files"};
}

namespace {

const std::vector<std::string> kCtxoMetaKeys = {"totalItems", "returnedItems", "truncated", "totalBytes", "hint"};

// Validated input shared by the exact and the naive algorithm.
struct CtxoInput {
  const json* array = nullptr;  // the array to cut, or nullptr
  std::string field;
  json rest;       // payload without _meta, the cut array replaced by []
  json meta_base;  // members of an existing _meta object we do not manage
};

// check_items_depth: when false the caller checks the cut array's depth itself while sizing its
// items (saves a pass over the largest part of the payload).
Result<CtxoInput> prepare(const json& payload, const CtxoOptions& o, bool check_items_depth) {
  if (!payload.is_object()) return make_error("invalid_payload", "ctxo payload must be a JSON object");
  if (o.limit == 0) return make_error("invalid_limit", "ctxo byte limit must be a positive integer");
  CtxoInput in;
  in.array = detail::pick_largest_array(payload, o.truncatable_fields, &in.field);
  if (auto e = check_items_depth || !in.array ? detail::check_depth(payload, o.max_depth)
                                               : detail::depth_error(detail::depth_without(payload, in.field), o.max_depth))
    return *e;
  in.rest = detail::copy_without(payload, {"_meta"}, in.field, json::array());
  in.meta_base = json::object();
  const auto m = payload.find("_meta");
  if (m != payload.end() && m->is_object()) in.meta_base = detail::copy_without(*m, kCtxoMetaKeys, "", nullptr);
  return in;
}

// The envelope with items [0, k) of the cut array; `truncated` adds the hint.
json build(const CtxoInput& in, const CtxoOptions& o, std::size_t k, bool truncated, std::size_t total_bytes) {
  json env = in.rest;
  json meta = in.meta_base;
  const std::size_t n = in.array ? in.array->size() : 0;
  meta["totalItems"] = n;
  meta["returnedItems"] = in.array ? k : 0;
  meta["truncated"] = truncated;
  meta["totalBytes"] = total_bytes;
  if (truncated && !o.hint.empty()) meta["hint"] = o.hint;
  if (in.array) env[in.field] = detail::prefix_of(*in.array, k);
  env["_meta"] = std::move(meta);
  return env;
}

CtxoEnvelope finish(const CtxoInput& in, const CtxoOptions& o, json env, std::size_t k, bool truncated,
                    std::size_t total_bytes, bool fits) {
  CtxoEnvelope r;
  r.text = to_js_json(env, o.indent);
  r.text_size = r.text.size();
  r.json = std::move(env);
  r.field = in.array ? in.field : "";
  r.total_items = in.array ? in.array->size() : 0;
  r.returned_items = in.array ? k : 0;
  r.truncated = truncated;
  r.fits = fits;
  r.total_bytes = total_bytes;
  return r;
}

Result<CtxoEnvelope> exact(const json& payload, const CtxoOptions& o) {
  auto prepared = prepare(payload, o, false);
  if (!prepared) return prepared.error();
  const CtxoInput& in = *prepared;
  constexpr Measure kM = Measure::kUtf8Bytes;
  if (!in.array) {
    const std::size_t tb = js_json_measure(in.rest, kM, o.indent);
    json env = build(in, o, 0, false, tb);
    const std::size_t size = js_json_measure(env, kM, o.indent);
    return finish(in, o, std::move(env), 0, false, tb, size <= o.limit);
  }
  const std::size_t n = in.array->size();
  // Every item is measured (totalBytes needs them all), but only the sizes of the prefix whose
  // sum reaches the limit are kept: no k beyond it can fit (an envelope is larger than its items).
  std::vector<std::size_t> sizes;
  JsonMeasurer measurer(kM, o.indent);
  const std::size_t sum_all = measurer.measure_items(in.array->get_ref<const json::array_t&>(), 2, &sizes, o.limit);
  const std::size_t item_depth = measurer.max_depth();
  // payload { array [ items ] }: the payload's depth is at least 2 + the deepest item.
  if (auto e = detail::depth_error(std::max(detail::depth_without(payload, in.field), 2 + item_depth), o.max_depth))
    return *e;
  const detail::ArrayLayout layout = detail::array_layout(o.indent, 1);
  const std::size_t full_array = layout.cost(n, sum_all);
  // in.rest holds "[]" (2) where the array goes.
  const std::size_t tb = js_json_measure(in.rest, kM, o.indent) - 2 + full_array;

  std::size_t k = n, predicted = 0;
  bool truncated = false, fits = true;
  const std::size_t verbatim = js_json_measure(build(in, o, 0, false, tb), kM, o.indent) - 2 + full_array +
                               decimal_digits(n) - 1;  // the skeleton says returnedItems 0
  if (verbatim <= o.limit) {
    predicted = verbatim;
  } else {
    truncated = true;
    const std::size_t base = js_json_measure(build(in, o, 0, true, tb), kM, o.indent) - 2 - 1;
    auto size_at = [&](std::size_t kk, std::size_t sum) { return base + layout.cost(kk, sum) + decimal_digits(kk); };
    // size_at grows with k (item sizes >= 1, digits(k) non-decreasing), so the largest k < n that
    // fits is the one before the first that does not: stop there instead of scanning all n. It
    // stops within `sizes`: size_at(k, sum) > sum, and sizes ends once its sum passes the limit.
    std::optional<std::size_t> best;
    std::size_t sum = 0, best_sum = 0;
    for (std::size_t kk = 0; kk < n && kk <= sizes.size(); ++kk) {
      if (kk > 0) sum += sizes[kk - 1];
      if (size_at(kk, sum) > o.limit) break;
      best = kk;
      best_sum = sum;
    }
    k = best.value_or(0);
    fits = best.has_value();
    predicted = size_at(k, best.has_value() ? best_sum : 0);
    if (n == 0) {  // an empty array that does not fit is sent as is
      truncated = false;
      predicted = verbatim;
    }
  }
  CtxoEnvelope r = finish(in, o, build(in, o, k, truncated, tb), k, truncated, tb, fits);
  if (r.text_size != predicted) return detail::size_mismatch("ctxo", predicted, r.text_size);
  return r;
}

Result<CtxoEnvelope> naive(const json& payload, const CtxoOptions& o) {
  auto prepared = prepare(payload, o, true);
  if (!prepared) return prepared.error();
  const CtxoInput& in = *prepared;
  json full = in.rest;
  if (in.array) full[in.field] = *in.array;
  const std::size_t tb = to_js_json(full, o.indent).size();
  const std::size_t n = in.array ? in.array->size() : 0;
  json whole = build(in, o, n, false, tb);
  const std::size_t whole_size = to_js_json(whole, o.indent).size();
  if (!in.array || n == 0 || whole_size <= o.limit)
    return finish(in, o, std::move(whole), n, false, tb, whole_size <= o.limit);
  const auto best = largest_prefix_naive(n - 1, [&](std::size_t k) {
    return to_js_json(build(in, o, k, true, tb), o.indent).size() <= o.limit;
  });
  const std::size_t k = best.value_or(0);
  return finish(in, o, build(in, o, k, true, tb), k, true, tb, best.has_value());
}

}  // namespace

Result<CtxoEnvelope> truncate_ctxo(const json& payload, const CtxoOptions& options) {
  try {
    return exact(payload, options);
  } catch (const std::exception& e) {
    return make_error("internal", std::string("truncate_ctxo: ") + e.what());
  }
}

Result<CtxoEnvelope> truncate_ctxo_naive(const json& payload, const CtxoOptions& options) {
  try {
    return naive(payload, options);
  } catch (const std::exception& e) {
    return make_error("internal", std::string("truncate_ctxo_naive: ") + e.what());
  }
}

}  // namespace ctxo::truncation
