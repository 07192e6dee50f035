// SPDX-License-Identifier: MIT
// Fuzz target: the truncation core's invariants (fits, prefix, counts, maximal, idempotent,
// budget arithmetic) on arbitrary payloads and limits, for all four profiles.
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "truncation/truncate.h"
#include "truncation/unicode.h"

namespace {

using nlohmann::json;
using ctxo::fuzz::require;
namespace tr = ctxo::truncation;

// Errors are fine only for the inputs the contract names; "internal" never is.
template <typename R>
bool usable(const R& r) {
  if (r.ok()) return true;
  const auto& code = r.error().code;
  require(code == "invalid_payload" || code == "invalid_limit" || code == "too_deep" || code == "invalid_options",
          "unexpected error code");
  return false;
}

void check_prefix(const json& original, const json& out, std::size_t returned) {
  require(out.is_array() && out.size() == returned, "returned count differs from the array length");
  require(original.is_array() && original.size() >= returned, "more items returned than existed");
  for (std::size_t i = 0; i < returned; ++i) require(ctxo::fuzz::same_json(out[i], original[i]), "not a prefix");
}

void check_common(const tr::Envelope& r, int indent) {
  require(r.text == tr::to_js_json(r.json, indent), "text is not the serialised envelope");
  require(r.returned_items <= r.total_items, "returned > total");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ctxo::fuzz::FuzzInput in(data, size);
  const std::uint8_t profile = in.byte();
  const std::size_t limit = in.u16() % 6000;
  const int indent = in.byte() % 4 == 0 ? 2 : -1;
  switch (profile % 4) {
    case 0: {
      const json payload = ctxo::fuzz::make_payload(in, tr::default_ctxo_fields());
      tr::CtxoOptions o;
      o.limit = limit;
      o.indent = indent;
      auto r = tr::truncate_ctxo(payload, o);
      if (!usable(r)) return 0;
      check_common(*r, indent);
      require(r->text_size == r->text.size(), "text_size");
      if (r->fits) require(r->text.size() <= limit, "does not fit");
      if (r->field.empty()) return 0;
      const json& full = payload[r->field];
      check_prefix(full, r->json[r->field], r->returned_items);
      require(r->truncated == (r->returned_items < r->total_items), "truncated flag");
      require(r->fits || r->returned_items == 0, "gave up with items");
      if (r->truncated && r->fits && r->returned_items + 1 < r->total_items) {
        json more = r->json;
        more[r->field].push_back(full[r->returned_items]);
        more["_meta"]["returnedItems"] = r->returned_items + 1;
        require(tr::to_js_json(more, indent).size() > limit, "not maximal");
      }
      auto again = tr::truncate_ctxo(r->json, o);
      require(again.ok(), "re-truncation failed");
      if (r->fits) require(ctxo::fuzz::same_json(again->json[r->field], r->json[r->field]), "not idempotent");
      break;
    }
    case 1: {
      tr::BudgetOptions o;
      const json d = ctxo::fuzz::make_payload(in, o.list_fields);
      o.token_budget = static_cast<std::int64_t>(limit) - 100;
      o.indent = indent;
      auto r = tr::truncate_budget(d, o);
      if (!usable(r)) return 0;
      check_common(*r, indent);
      require(r->used == (tr::utf16_length(r->text) + 3) / 4, "used is not ceil(chars/4)");
      if (r->fits) require(r->used <= static_cast<std::size_t>(r->requested), "used > requested");
      require(r->requested >= 100 && r->requested <= 10000, "clamp");
      require(r->json["truncated"] == r->json.contains("dropped"), "truncated without a dropped note");
      if (!r->field.empty() && r->snippets_elided == 0)
        check_prefix(d[r->field], r->json["data"][r->field], r->returned_items);
      break;
    }
    case 2: {
      json resp = ctxo::fuzz::make_payload(in, {"data"});
      tr::MetaOptions o;
      o.limit = limit;
      o.indent = indent;
      auto r = tr::truncate_meta(resp, o);
      if (!usable(r)) return 0;
      check_common(*r, indent);
      if (r->fits) require(r->text.size() <= limit, "does not fit");
      require(r->json["meta"]["truncated"] == (r->returned_items < r->total_items), "truncated flag");
      if (resp["data"].is_array()) check_prefix(resp["data"], r->json["data"], r->returned_items);
      break;
    }
    default: {
      const json payload = ctxo::fuzz::make_payload(in, {"results"});
      tr::TruncationInfoOptions o;
      o.character_limit = limit;
      o.indent = indent;
      auto r = tr::truncate_truncation_info(payload, o);
      if (!usable(r)) return 0;
      check_common(*r, indent);
      require(r->json["truncation_info"]["estimated_chars"] == r->text_size, "estimated_chars");
      if (r->fits) require(r->text_size <= r->limit_chars, "does not fit");
      if (!r->field.empty()) check_prefix(payload[r->field], r->json[r->field], r->returned_items);
      break;
    }
  }
  return 0;
}
