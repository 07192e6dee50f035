// SPDX-License-Identifier: MIT
// Fuzz target: differential test of the exact (linear, size arithmetic) truncation against the
// naive binary search over full serialisations; both must produce the same bytes, every profile.
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "truncation/truncate.h"

namespace {

using nlohmann::json;
using ctxo::fuzz::require;
namespace tr = ctxo::truncation;

template <typename R>
void same(const R& exact, const R& naive) {
  require(exact.ok() == naive.ok(), "exact and naive disagree on success");
  if (!exact.ok()) {
    require(exact.error().code == naive.error().code, "exact and naive disagree on the error");
    require(exact.error().code != "internal", "internal error");
    return;
  }
  require(exact->text == naive->text, "exact and naive produced different envelopes");
  require(exact->fits == naive->fits, "exact and naive disagree on fits");
  require(exact->returned_items == naive->returned_items, "exact and naive disagree on the count");
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
      same(tr::truncate_ctxo(payload, o), tr::truncate_ctxo_naive(payload, o));
      break;
    }
    case 1: {
      tr::BudgetOptions o;
      const json d = ctxo::fuzz::make_payload(in, o.list_fields);
      o.token_budget = static_cast<std::int64_t>(limit) - 100;
      o.indent = indent;
      same(tr::truncate_budget(d, o), tr::truncate_budget_naive(d, o));
      break;
    }
    case 2: {
      const json resp = ctxo::fuzz::make_payload(in, {"data"});
      tr::MetaOptions o;
      o.limit = limit;
      o.indent = indent;
      same(tr::truncate_meta(resp, o), tr::truncate_meta_naive(resp, o));
      break;
    }
    default: {
      const json payload = ctxo::fuzz::make_payload(in, {"results"});
      tr::TruncationInfoOptions o;
      o.character_limit = limit;
      o.measure = static_cast<tr::Measure>(profile / 4 % 3);
      o.indent = indent;
      same(tr::truncate_truncation_info(payload, o), tr::truncate_truncation_info_naive(payload, o));
      break;
    }
  }
  return 0;
}
