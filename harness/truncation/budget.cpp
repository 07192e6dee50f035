// SPDX-License-Identifier: MIT
// The budget profile (seed 001): token budgets measured as ceil(UTF-16 units / 4) of the envelope,
// list cutting with the dropped note in place while measuring, snippet elision as a last resort.
#include <algorithm>
#include <exception>

#include "truncation/detail.h"
#include "truncation/truncate.h"
#include "truncation/unicode.h"

namespace ctxo::truncation {

using nlohmann::json;

namespace {

constexpr Measure kM = Measure::kUtf16Units;

// One attempt: the data as given, or with snippets elided.
struct Pass {
  const json* data = nullptr;
  const json* array = nullptr;  // list inside *data that may be cut
  std::string field;
  json rest;                    // *data with the list replaced by []
  std::size_t elided = 0;       // snippet members removed for this pass
};

struct Plan {
  bool verbatim = true;
  std::size_t k = 0;  // items kept when !verbatim
  bool fits = true;
  std::size_t used = 0;
  std::size_t predicted = 0;  // exact plans: UTF-16 units of the text
  std::size_t kept() const { return k; }
};

struct Ctx {
  const BudgetOptions& o;
  std::int64_t requested;
};

Pass make_pass(const json& data, const BudgetOptions& o, std::size_t elided) {
  Pass p;
  p.data = &data;
  p.elided = elided;
  p.array = detail::pick_largest_array(data, o.list_fields, &p.field);
  p.rest = p.array ? detail::copy_without(data, {}, p.field, json::array()) : data;
  return p;
}

std::size_t elide_snippets(json& root, const std::string& key) {
  std::size_t removed = 0;
  std::vector<json*> stack{&root};
  while (!stack.empty()) {
    json* v = stack.back();
    stack.pop_back();
    if (v->is_object()) removed += v->erase(key);
    if (v->is_structured())
      for (auto& child : *v)
        if (child.is_structured()) stack.push_back(&child);
  }
  return removed;
}

json build(const Pass& p, const Ctx& c, bool verbatim, std::size_t k, std::size_t used) {
  const BudgetOptions& o = c.o;
  json env = json::object();
  env["ok"] = true;
  json data = p.rest;
  const std::size_t n = p.array ? p.array->size() : 0;
  if (p.array) data[p.field] = detail::prefix_of(*p.array, k);
  env["data"] = std::move(data);
  env["tokenBudget"] = json{{"requested", c.requested}, {"used", used}, {"max", o.max_budget}};
  json warnings = json::array();
  for (const auto& w : o.warnings) warnings.push_back(w);
  const std::string req = std::to_string(c.requested);
  if (p.elided > 0)
    warnings.push_back(detail::render(o.snippet_warning, {{"count", std::to_string(p.elided)}, {"requested", req}}));
  env["warnings"] = std::move(warnings);
  if (verbatim) {
    env["truncated"] = p.elided > 0;
    if (p.elided > 0) {
      const std::map<std::string, std::string> v = {
          {"count", std::to_string(p.elided)}, {"kind", o.snippet_kind}, {"requested", req}};
      env["dropped"] = json{{"kind", o.snippet_kind}, {"count", p.elided}, {"note", detail::render(o.note_template, v)}};
    }
  } else {
    env["truncated"] = true;
    const std::string kind = o.kind.empty() ? p.field : o.kind;
    const std::map<std::string, std::string> v = {{"count", std::to_string(n - k)}, {"kind", kind}, {"requested", req}};
    env["dropped"] = json{{"kind", kind}, {"count", n - k}, {"note", detail::render(o.note_template, v)}};
  }
  return env;
}

Plan plan_exact(const Pass& p, const Ctx& c) {
  const BudgetOptions& o = c.o;
  const std::size_t R = static_cast<std::size_t>(c.requested);
  const std::size_t n = p.array ? p.array->size() : 0;
  std::vector<std::size_t> sizes;
  if (p.array) sizes = detail::item_sizes(*p.array, kM, o.indent, 3);
  const detail::ArrayLayout layout = detail::array_layout(o.indent, 2);
  std::size_t sum_all = 0;
  for (std::size_t s : sizes) sum_all += s;
  // Skeletons carry used = 0 (one digit) and, when there is a list, "[]" in its place.
  const std::size_t array_delta = p.array ? layout.cost(n, sum_all) - 2 : 0;
  const std::size_t base_v = js_json_measure(build(p, c, true, 0, 0), kM, o.indent) - 1 + array_delta;
  Plan plan;
  plan.k = n;
  plan.used = detail::token_fixed_point(base_v);
  plan.predicted = base_v + decimal_digits(plan.used);
  if (plan.used <= R) return plan;
  if (!p.array || n == 0) {
    plan.fits = false;
    return plan;
  }
  const std::size_t occ = 1 + detail::count_placeholder(o.note_template, "count");
  // Truncated skeleton: k = 0 items, so dropped.count = n.
  const std::size_t base_t =
      js_json_measure(build(p, c, false, 0, 0), kM, o.indent) - 1 - 2 - decimal_digits(n) * occ;
  auto base_at = [&](std::size_t k, std::size_t sum) { return base_t + layout.cost(k, sum) + decimal_digits(n - k) * occ; };
  const auto best = detail::scan_largest(sizes, 0, n - 1, [&](std::size_t k, std::size_t sum) {
    return detail::token_fixed_point(base_at(k, sum)) <= R;
  });
  plan.verbatim = false;
  plan.fits = best.has_value();
  plan.k = best.value_or(0);
  std::size_t sum = 0;
  for (std::size_t i = 0; i < plan.k; ++i) sum += sizes[i];
  const std::size_t b = base_at(plan.k, sum);
  plan.used = detail::token_fixed_point(b);
  plan.predicted = b + decimal_digits(plan.used);
  return plan;
}

// Finds used by serialising until ceil(units / 4) is stable, as a server would.
std::size_t used_naive(const Pass& p, const Ctx& c, bool verbatim, std::size_t k) {
  std::size_t u = 0;
  for (int i = 0; i < 64; ++i) {
    const std::size_t units = utf16_length(to_js_json(build(p, c, verbatim, k, u), c.o.indent));
    const std::size_t next = (units + 3) / 4;
    if (next == u) break;
    u = next;
  }
  return u;
}

Plan plan_naive(const Pass& p, const Ctx& c) {
  const std::size_t R = static_cast<std::size_t>(c.requested);
  const std::size_t n = p.array ? p.array->size() : 0;
  Plan plan;
  plan.k = n;
  plan.used = used_naive(p, c, true, n);
  if (plan.used <= R) return plan;
  if (!p.array || n == 0) {
    plan.fits = false;
    return plan;
  }
  const auto best = largest_prefix_naive(n - 1, [&](std::size_t k) { return used_naive(p, c, false, k) <= R; });
  plan.verbatim = false;
  plan.fits = best.has_value();
  plan.k = best.value_or(0);
  plan.used = used_naive(p, c, false, plan.k);
  return plan;
}

template <typename Planner>
Result<BudgetEnvelope> run(const json& data, const BudgetOptions& o, Planner planner, bool check) {
  if (o.min_budget < 1 || o.min_budget > o.max_budget)
    return make_error("invalid_options", "token budget bounds must satisfy 1 <= min <= max (got " +
                                             std::to_string(o.min_budget) + ", " + std::to_string(o.max_budget) + ")");
  // The envelope puts data two levels below the root.
  if (auto e = detail::check_depth(data, o.max_depth)) return *e;
  const Ctx c{o, std::clamp(o.token_budget.value_or(o.default_budget), o.min_budget, o.max_budget)};

  Pass pass = make_pass(data, o, 0);
  Plan plan = planner(pass, c);
  json elided_data;
  Pass elided_pass;
  const bool enough = plan.fits && (plan.verbatim || plan.k >= 1);
  if (!enough && !o.snippet_key.empty()) {
    elided_data = data;
    const std::size_t removed = elide_snippets(elided_data, o.snippet_key);
    if (removed > 0) {
      elided_pass = make_pass(elided_data, o, removed);
      Plan q = planner(elided_pass, c);
      if (q.fits && (!plan.fits || q.kept() > plan.kept())) {
        pass = std::move(elided_pass);
        plan = q;
      }
    }
  }
  BudgetEnvelope r;
  r.json = build(pass, c, plan.verbatim, plan.k, plan.used);
  r.text = to_js_json(r.json, o.indent);
  r.text_size = utf16_length(r.text);
  const std::size_t n = pass.array ? pass.array->size() : 0;
  r.field = pass.array ? pass.field : "";
  r.total_items = n;
  r.returned_items = plan.kept();
  r.truncated = r.json["truncated"].get<bool>();
  r.fits = plan.fits;
  r.requested = c.requested;
  r.used = plan.used;
  r.dropped_count = r.json.contains("dropped") ? r.json["dropped"]["count"].get<std::size_t>() : 0;
  r.snippets_elided = pass.elided;
  if (check && r.text_size != plan.predicted) return detail::size_mismatch("budget", plan.predicted, r.text_size);
  if ((r.text_size + 3) / 4 != r.used)
    return make_error("internal", "budget: used " + std::to_string(r.used) + " is not ceil(" +
                                      std::to_string(r.text_size) + " / 4)");
  return r;
}

}  // namespace

Result<BudgetEnvelope> truncate_budget(const json& data, const BudgetOptions& options) {
  try {
    return run(data, options, plan_exact, true);
  } catch (const std::exception& e) {
    return make_error("internal", std::string("truncate_budget: ") + e.what());
  }
}

Result<BudgetEnvelope> truncate_budget_naive(const json& data, const BudgetOptions& options) {
  try {
    return run(data, options, plan_naive, false);
  } catch (const std::exception& e) {
    return make_error("internal", std::string("truncate_budget_naive: ") + e.what());
  }
}

}  // namespace ctxo::truncation
