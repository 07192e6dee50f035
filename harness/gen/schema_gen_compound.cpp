// SPDX-License-Identifier: MIT
// The schema generator's compound values (Builder members, see schema_gen_internal.h): arrays
// (tuples, prefixItems, homogeneous items, min/maxItems, uniqueItems), objects (required and
// optional properties, additionalProperties as a record) and any small value for `{}` and `true`.
#include "gen/schema_gen_internal.h"

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include "gen/rc_util.h"
#include "gen/schema_gen.h"

namespace ctxo::gen::detail {

Built Builder::array_gen(const json& s, const Ptr& ptr, int depth) {
  std::vector<Gen> prefix;
  bool exact = true;
  std::optional<Gen> rest;  // nullopt: no further items allowed
  const char* rest_key = "items";
  const json* tuple = nullptr;
  if (auto it = s.find("prefixItems"); it != s.end() && it->is_array()) {
    tuple = &*it;
    for (std::size_t i = 0; i < it->size(); ++i) {
      Built b = build((*it)[i], child(ptr, "prefixItems", std::to_string(i)), depth + 1);
      prefix.push_back(b.gen);
      exact = exact && b.exact;
    }
  } else if (auto jt = s.find("items"); jt != s.end() && jt->is_array()) {
    tuple = &*jt;
    rest_key = "additionalItems";
    for (std::size_t i = 0; i < jt->size(); ++i) {
      Built b = build((*jt)[i], child(ptr, "items", std::to_string(i)), depth + 1);
      prefix.push_back(b.gen);
      exact = exact && b.exact;
    }
  }
  if (tuple == nullptr || s.contains(rest_key)) {
    const char* key = tuple == nullptr ? "items" : rest_key;
    auto it = s.find(key);
    if (it == s.end()) {
      rest = any_gen(depth + 1);
    } else if (!(it->is_boolean() && !it->get<bool>())) {
      Built b = build(*it, child1(ptr, key), depth + 1);
      rest = b.gen;
      exact = exact && b.exact;
    }
  } else {
    rest = any_gen(depth + 1);
  }
  std::size_t min_items = size_at(s, "minItems").value_or(0);
  std::size_t max_items = size_at(s, "maxItems").value_or(std::numeric_limits<std::size_t>::max());
  if (!rest) max_items = std::min(max_items, prefix.size());
  if (min_items > max_items) return {fail_gen("minItems > maxItems"), true};
  if (min_items > kMaxGenItems) {
    const std::string why = "minItems " + s["minItems"].dump() + " is more than the " +
                            std::to_string(kMaxGenItems) + " items the generator writes";
    opt_.problems.add(why);
    return {fail_gen(why), true};
  }
  std::size_t cap = depth >= opt_.max_depth ? min_items : std::max(min_items, prefix.size()) + opt_.max_items;
  std::size_t hi = std::min(max_items, cap);
  bool unique = s.value("uniqueItems", false);

  auto exactly = [prefix, rest, unique](std::size_t n) -> Gen {
    Gen acc = rc::gen::just(json::array());
    std::size_t k = std::min(n, prefix.size());
    for (std::size_t i = 0; i < k; ++i) {
      acc = rc::gen::map(rc::gen::tuple(acc, prefix[i]), [](const std::tuple<json, json>& t) {
        json a = std::get<0>(t);
        a.push_back(std::get<1>(t));
        return a;
      });
    }
    if (n > k) {
      Gen more = rc::gen::map(rc::gen::container<std::vector<json>>(n - k, *rest), [](const std::vector<json>& v) {
        return json(v);
      });
      acc = rc::gen::map(rc::gen::tuple(acc, more), [](const std::tuple<json, json>& t) {
        json a = std::get<0>(t);
        for (const auto& x : std::get<1>(t)) a.push_back(x);
        return a;
      });
    }
    return unique ? such_that(acc, unique_items) : acc;
  };
  Gen main = rc::gen::mapcat(any_in<std::size_t>(min_items, hi, min_items), exactly);
  if (prefix.empty() && rest) {
    // Homogeneous arrays: the tail beyond minItems shrinks by removing any element.
    Gen body = rc::gen::map(bounded_vector<json>(min_items, hi - min_items, *rest),
                            [](const std::vector<json>& v) { return json(v); });
    main = unique ? such_that(body, unique_items) : body;
  }
  std::vector<std::pair<std::size_t, Gen>> opts{
      {6, main}};
  if (opt_.edge_bias) {
    opts.emplace_back(2, exactly(min_items));
    if (max_items <= 64 && max_items != hi) opts.emplace_back(1, exactly(max_items));
    if (hi != min_items) opts.emplace_back(1, exactly(hi));
  }
  return {weighted(std::move(opts)), exact};
}

Built Builder::object_gen(const json& s, const Ptr& ptr, int depth) {
  std::set<std::string> required;
  if (auto it = s.find("required"); it != s.end() && it->is_array()) {
    for (const auto& r : *it)
      if (r.is_string()) required.insert(r.get<std::string>());
  }
  bool exact = true;
  Gen acc = rc::gen::just(json::object());
  auto add = [&acc](const std::string& key, const Gen& g) {
    acc = rc::gen::map(rc::gen::tuple(acc, g), [key](const std::tuple<json, json>& t) {
      json o = std::get<0>(t);
      if (!std::get<1>(t).is_discarded()) o[key] = std::get<1>(t);
      return o;
    });
  };
  std::set<std::string> defined;
  if (auto it = s.find("properties"); it != s.end() && it->is_object()) {
    for (const auto& [key, sub] : it->items()) {
      defined.insert(key);
      bool req = required.count(key) > 0;
      if (!req && depth >= opt_.max_depth) continue;
      Built b = build(sub, child(ptr, "properties", key), depth + 1);
      exact = exact && b.exact;
      add(key, req ? b.gen : weighted({{1, rc::gen::just(absent())}, {2, b.gen}}));
    }
  }
  for (const auto& key : required) {
    if (defined.count(key) == 0) {
      add(key, any_gen(depth + 1));
      defined.insert(key);
    }
  }
  // additionalProperties given as a schema (a record): a few extra keys.
  if (auto it = s.find("additionalProperties"); it != s.end() && it->is_object() && depth < opt_.max_depth &&
                                                !s.contains("patternProperties")) {
    Built vb = build(*it, child1(ptr, "additionalProperties"), depth + 1);
    exact = exact && vb.exact;
    Gen key_gen = such_that(word(1, 10), [defined](const json& k) { return defined.count(k.get<std::string>()) == 0; });
    if (auto pn = s.find("propertyNames"); pn != s.end() && pn->is_object()) {
      key_gen = such_that(build(*pn, child1(ptr, "propertyNames"), depth + 1).gen, [defined](const json& k) {
        return k.is_string() && defined.count(k.get<std::string>()) == 0;
      });
    }
    rc::Gen<std::vector<json>> entries = rc::gen::container<std::vector<json>>(
        rc::gen::map(rc::gen::tuple(key_gen, vb.gen), [](const std::tuple<json, json>& t) {
          return json::array({std::get<0>(t), std::get<1>(t)});
        }));
    Gen extra = rc::gen::map(rc::gen::resize(3, entries), [](const std::vector<json>& v) { return json(v); });
    acc = rc::gen::map(rc::gen::tuple(acc, extra), [](const std::tuple<json, json>& t) {
      json o = std::get<0>(t);
      for (const auto& kv : std::get<1>(t)) o[kv[0].get<std::string>()] = kv[1];
      return o;
    });
  }
  return {acc, exact};
}

// Any small JSON value, for `{}`, `true` and missing item schemas.
Gen Builder::any_gen(int depth) const {
  std::vector<std::pair<std::size_t, Gen>> scalars{
      {2, rc::gen::just(json(nullptr))},
      {2, rc::gen::element(json(false), json(true))},
      {3, rc::gen::map(any_in<std::int64_t>(-100, 100, 0), [](std::int64_t v) { return json(v); })},
      {3, chars_gen(0, 12, opt_.edge_bias)},
  };
  Gen scalar = weighted(scalars);
  if (depth >= opt_.max_depth) return scalar;
  Gen arr = rc::gen::map(rc::gen::resize(4, rc::gen::container<std::vector<json>>(scalar)),
                         [](const std::vector<json>& v) { return json(v); });
  Gen obj = rc::gen::map(rc::gen::resize(3, rc::gen::container<std::vector<std::tuple<json, json>>>(rc::gen::tuple(word(1, 6), scalar))),
                         [](const std::vector<std::tuple<json, json>>& v) {
                           json o = json::object();
                           for (const auto& [k, x] : v) o[k.get<std::string>()] = x;
                           return o;
                         });
  return weighted({{8, scalar}, {1, arr}, {1, obj}});
}

}  // namespace ctxo::gen::detail
