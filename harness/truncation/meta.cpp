// SPDX-License-Identifier: MIT
// The meta profile (seed 003): a byte cap on the whole serialised response; the `data` array (or
// string) is cut and meta{truncated, total_count, returned_count, truncation_hint} announces it.
#include <exception>

#include "truncation/detail.h"
#include "truncation/truncate.h"

namespace ctxo::truncation {

using nlohmann::json;

namespace {

constexpr Measure kM = Measure::kUtf8Bytes;
const std::vector<std::string> kMetaKeys = {"truncated", "total_count", "returned_count", "truncation_hint"};

enum class Kind { kArray, kString, kNone };

struct MetaInput {
  json base;       // response without data and meta; ok/error/warnings defaulted
  json meta_base;  // members of an existing meta object we do not manage
  const json* data = nullptr;
  Kind kind = Kind::kNone;
  std::size_t n = 0;
  std::vector<std::size_t> sizes;    // kString: per-character sizes inside the literal
  std::vector<std::size_t> offsets;  // kString: byte offset of each character boundary
};

Result<MetaInput> prepare(const json& response, const MetaOptions& o) {
  if (!response.is_object()) return make_error("invalid_payload", "meta response must be a JSON object");
  const auto d = response.find("data");
  if (d == response.end()) return make_error("invalid_payload", "meta response has no `data` member");
  if (o.limit == 0) return make_error("invalid_limit", "meta byte cap must be a positive integer");
  if (auto e = detail::check_depth(response, o.max_depth)) return *e;
  MetaInput in;
  in.data = &*d;
  in.base = detail::copy_without(response, {"data", "meta"}, "", nullptr);
  if (!in.base.contains("ok")) in.base["ok"] = true;
  if (!in.base.contains("error")) in.base["error"] = nullptr;
  if (!in.base.contains("warnings")) in.base["warnings"] = json::array();
  in.meta_base = json::object();
  const auto m = response.find("meta");
  if (m != response.end() && m->is_object()) in.meta_base = detail::copy_without(*m, kMetaKeys, "", nullptr);
  if (d->is_array()) {
    in.kind = Kind::kArray;
    in.n = d->size();
  } else if (d->is_string()) {
    in.kind = Kind::kString;
    detail::string_steps(d->get_ref<const std::string&>(), kM, &in.sizes, &in.offsets);
    in.n = in.sizes.size();
  }
  return in;
}

json build(const MetaInput& in, const MetaOptions& o, std::size_t k, bool truncated) {
  json env = in.base;
  switch (in.kind) {
    case Kind::kArray:
      env["data"] = detail::prefix_of(*in.data, k);
      break;
    case Kind::kString:
      env["data"] = in.data->get_ref<const std::string&>().substr(0, in.offsets[k]);
      break;
    case Kind::kNone:
      env["data"] = *in.data;
      break;
  }
  json meta = in.meta_base;
  meta["truncated"] = truncated;
  meta["total_count"] = in.n;
  meta["returned_count"] = k;
  if (truncated)
    meta["truncation_hint"] =
        detail::render(o.hint_template, {{"returned", std::to_string(k)}, {"total", std::to_string(in.n)}});
  env["meta"] = std::move(meta);
  return env;
}

MetaEnvelope finish(const MetaInput& in, const MetaOptions& o, std::size_t k, bool truncated, bool fits) {
  MetaEnvelope r;
  r.json = build(in, o, k, truncated);
  r.text = to_js_json(r.json, o.indent);
  r.text_size = r.text.size();
  r.field = in.kind == Kind::kNone ? "" : "data";
  r.total_items = in.n;
  r.returned_items = k;
  r.truncated = truncated;
  r.fits = fits;
  return r;
}

Result<MetaEnvelope> exact(const json& response, const MetaOptions& o) {
  auto prepared = prepare(response, o);
  if (!prepared) return prepared.error();
  MetaInput& in = *prepared;
  const std::size_t n = in.n;
  if (in.kind == Kind::kNone) {
    MetaEnvelope r = finish(in, o, 0, false, true);
    r.fits = r.text_size <= o.limit;
    return r;
  }
  if (in.kind == Kind::kArray) in.sizes = detail::item_sizes(*in.data, kM, o.indent, 2);
  const detail::ArrayLayout layout = in.kind == Kind::kArray ? detail::array_layout(o.indent, 1) : detail::ArrayLayout{2, 0};
  std::size_t sum_all = 0;
  for (std::size_t s : in.sizes) sum_all += s;
  // Skeletons hold [] or "" (2 bytes) and returned_count 0.
  const std::size_t verbatim =
      js_json_measure(build(in, o, 0, false), kM, o.indent) - 2 + layout.cost(n, sum_all) + decimal_digits(n) - 1;
  std::size_t k = n, predicted = verbatim;
  bool truncated = false, fits = true;
  if (verbatim > o.limit) {
    if (n == 0) {
      fits = false;
    } else {
      const std::size_t occ = 1 + detail::count_placeholder(o.hint_template, "returned");
      const std::size_t base = js_json_measure(build(in, o, 0, true), kM, o.indent) - 2 - occ;
      auto size_at = [&](std::size_t kk, std::size_t sum) { return base + layout.cost(kk, sum) + decimal_digits(kk) * occ; };
      const auto best = detail::scan_largest(in.sizes, 0, n - 1,
                                             [&](std::size_t kk, std::size_t sum) { return size_at(kk, sum) <= o.limit; });
      truncated = true;
      fits = best.has_value();
      k = best.value_or(0);
      std::size_t sum = 0;
      for (std::size_t i = 0; i < k; ++i) sum += in.sizes[i];
      predicted = size_at(k, sum);
    }
  }
  MetaEnvelope r = finish(in, o, k, truncated, fits);
  if (r.text_size != predicted) return detail::size_mismatch("meta", predicted, r.text_size);
  return r;
}

Result<MetaEnvelope> naive(const json& response, const MetaOptions& o) {
  auto prepared = prepare(response, o);
  if (!prepared) return prepared.error();
  const MetaInput& in = *prepared;
  const std::size_t n = in.n;
  const std::size_t whole = to_js_json(build(in, o, n, false), o.indent).size();
  if (whole <= o.limit || in.kind == Kind::kNone || n == 0) return finish(in, o, n, false, whole <= o.limit);
  const auto best = largest_prefix_naive(
      n - 1, [&](std::size_t k) { return to_js_json(build(in, o, k, true), o.indent).size() <= o.limit; });
  return finish(in, o, best.value_or(0), true, best.has_value());
}

}  // namespace

Result<MetaEnvelope> truncate_meta(const json& response, const MetaOptions& options) {
  try {
    return exact(response, options);
  } catch (const std::exception& e) {
    return make_error("internal", std::string("truncate_meta: ") + e.what());
  }
}

Result<MetaEnvelope> truncate_meta_naive(const json& response, const MetaOptions& options) {
  try {
    return naive(response, options);
  } catch (const std::exception& e) {
    return make_error("internal", std::string("truncate_meta_naive: ") + e.what());
  }
}

}  // namespace ctxo::truncation
