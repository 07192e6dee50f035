// SPDX-License-Identifier: MIT
// JSON Schema -> rc::Gen<json>. A Builder walks the schema once and composes RapidCheck
// generators; every subschema is addressed by its JSON Pointer into the root so that keywords we
// only approximate can be filtered with a SchemaValidator compiled for exactly that subschema.
// This file: Problems, the helpers the schema_gen files share, the walk (refs, enums, unions,
// allOf merged) and valid_value. The Builder's scalars and compound values, the invalid values
// and the boundary phase are in schema_gen_*.cpp.
#include "gen/schema_gen.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <utility>

#include "core/text.h"
#include "gen/pattern_gen.h"
#include "gen/rc_util.h"
#include "gen/schema_gen_internal.h"
#include "gen/simple.h"
#include "profile/schema_validator.h"

namespace ctxo::gen {

using namespace detail;

// ---- Problems -----------------------------------------------------------------------------

struct Problems::Impl {
  std::mutex mu;
  std::vector<std::string> items;
  std::set<std::string> seen;
};

Problems::Problems() : impl_(std::make_shared<Impl>()) {}

void Problems::add(const std::string& message) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->seen.insert(message).second) impl_->items.push_back(message);
}

std::vector<std::string> Problems::list() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->items;
}

std::size_t code_points(const std::string& utf8) {
  std::size_t n = 0;
  for (char c : utf8) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

namespace detail {

std::string excerpt_of(const json& v) { return excerpt(v.dump(), 40); }

bool sendable(const json& v, const GenOptions& o) {
  if (o.allow_remote_urls || stays_local(v)) return true;
  Problems sink = o.problems;  // shares the list
  sink.add(std::string(kRemoteUrlProblem) + " (" + excerpt_of(v) + "); --allow-remote-urls sends it");
  return false;
}

std::vector<json> enum_sample(const json& values) {
  std::vector<json> out;
  const std::size_t n = values.size();
  if (n <= kMaxEnumValues) {
    out.assign(values.begin(), values.end());
    return out;
  }
  for (std::size_t i = 0; i < kMaxEnumValues; ++i) out.push_back(values[i * (n - 1) / (kMaxEnumValues - 1)]);
  return out;
}

const json* deref(const json& s, const json& root) {
  const json* p = &s;
  for (int hops = 0; hops < 8 && p->is_object() && p->contains("$ref") && (*p)["$ref"].is_string(); ++hops) {
    std::string r = (*p)["$ref"].get<std::string>();
    const json* t = r.rfind('#', 0) == 0 ? profile::resolve_pointer(root, r.substr(1)) : nullptr;
    if (t == nullptr) return nullptr;
    p = t;
  }
  return p;
}

Gen fail_gen(const std::string& why) {
  return Gen([why](const rc::Random&, int) -> rc::Shrinkable<json> { throw rc::GenerationFailure(why); });
}

json absent() { return json(json::value_t::discarded); }

Gen weighted(std::vector<std::pair<std::size_t, Gen>> options) {
  bool any = std::any_of(options.begin(), options.end(), [](const auto& o) { return o.first > 0; });
  if (!any) return fail_gen("no option");
  return weighted_pick<json>(std::move(options));
}

Gen one_of(const std::vector<Gen>& gens) {
  std::vector<std::pair<std::size_t, Gen>> w;
  for (const auto& g : gens) w.emplace_back(1, g);
  return weighted(std::move(w));
}

Gen element_of(const std::vector<json>& values) {
  if (values.empty()) return fail_gen("no value left");
  // Shared, not captured by value: the mapper is copied into every value drawn.
  auto shared = std::make_shared<const std::vector<json>>(values);
  return rc::gen::map(any_in<std::size_t>(0, values.size() - 1, 0), [shared](std::size_t i) { return (*shared)[i]; });
}

std::string utf8(const std::vector<std::uint32_t>& cps) {
  std::string s;
  for (auto cp : cps) append_utf8(s, static_cast<char32_t>(cp));
  return s;
}

bool unique_items(const json& a) {
  std::set<std::string> seen;
  for (const auto& x : a) {
    if (!seen.insert(x.dump()).second) return false;
  }
  return true;
}

bool is_int_value(double d) { return std::isfinite(d) && std::floor(d) == d; }

json number_json(double d) {
  if (is_int_value(d) && std::fabs(d) <= 9007199254740992.0) return json(static_cast<std::int64_t>(d));
  return json(d);
}

std::optional<double> number_at(const json& s, const char* key) {
  auto it = s.find(key);
  if (it == s.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<std::size_t> size_at(const json& s, const char* key) {
  auto it = s.find(key);
  if (it == s.end() || !it->is_number() || it->get<double>() < 0) return std::nullopt;
  double d = it->get<double>();
  return d > 1e9 ? std::size_t{1000000000} : static_cast<std::size_t>(d);
}

std::vector<std::string> type_list(const json& s) {
  std::vector<std::string> out;
  auto it = s.find("type");
  if (it == s.end()) return out;
  if (it->is_string()) out.push_back(it->get<std::string>());
  if (it->is_array()) {
    for (const auto& t : *it)
      if (t.is_string()) out.push_back(t.get<std::string>());
  }
  return out;
}

bool has_any(const json& s, std::initializer_list<const char*> keys) {
  return std::any_of(keys.begin(), keys.end(), [&](const char* k) { return s.contains(k); });
}

bool annotation(const std::string& k) {
  static const std::set<std::string> kAnn{"title",    "description", "default", "examples", "$comment", "$schema",
                                          "$id",      "$defs",       "definitions", "deprecated", "readOnly",
                                          "writeOnly", "$anchor",   "markdownDescription"};
  return kAnn.count(k) > 0;
}

bool needs_filter(const json& s) {
  return has_any(s, {"not", "oneOf", "allOf", "if", "dependencies", "dependentRequired", "dependentSchemas",
                     "minProperties", "maxProperties", "patternProperties", "contains", "propertyNames",
                     "unevaluatedProperties", "unevaluatedItems"}) ||
         (s.contains("multipleOf") && s["multipleOf"].is_number() && !is_int_value(s["multipleOf"].get<double>()));
}

std::string child(const Ptr& p, const std::string& a) {
  return *p + "/" + profile::escape_pointer_token(a);
}
Ptr child(const Ptr& p, const std::string& a, const std::string& b) {
  if (!p) return std::nullopt;
  return child(p, a) + "/" + profile::escape_pointer_token(b);
}
Ptr child1(const Ptr& p, const std::string& a) {
  if (!p) return std::nullopt;
  return child(p, a);
}

// ---- the walk -----------------------------------------------------------------------------

Gen Builder::at(const std::string& ptr, int depth) {
  const json* s = profile::resolve_pointer(*ctx_->root, ptr);
  if (s == nullptr) {
    opt_.problems.add("unresolvable pointer #" + ptr);
    return fail_gen("unresolvable pointer #" + ptr);
  }
  return finish(build(*s, ptr, depth), ptr).gen;
}

Built Builder::build(const json& s, const Ptr& ptr, int depth) {
  if (s.is_boolean()) return {s.get<bool>() ? any_gen(depth) : fail_gen("schema false"), true};
  if (!s.is_object()) return {any_gen(depth), true};
  if (depth > opt_.max_depth + kHardDepth) return {fail_gen("nesting deeper than the generator goes"), true};

  if (auto it = s.find("$ref"); it != s.end() && it->is_string()) return ref(s, it->get<std::string>(), ptr, depth);

  Built b = body(s, ptr, depth);
  if (needs_filter(s)) b.exact = false;
  if (opt_.edge_bias && s.contains("default") && ptr && sendable(s["default"], opt_)) {
    const auto* v = ctx_->validator(*ptr);
    if (v != nullptr && v->is_valid(s["default"])) b.gen = weighted({{8, b.gen}, {1, rc::gen::just(s["default"])}});
  }
  return finish(b, ptr);
}

Built Builder::finish(Built b, const Ptr& ptr) {
  if (b.exact || !ptr) return b;
  const auto* v = ctx_->validator(*ptr);
  if (v == nullptr) return b;
  profile::SchemaValidator copy = *v;
  return {such_that(b.gen, [copy](const json& x) { return copy.is_valid(x); }), true};
}

Built Builder::ref(const json& s, const std::string& ref, const Ptr& ptr, int depth) {
  if (ref.empty() || ref[0] != '#') {
    opt_.problems.add("non-local $ref not followed: " + ref);
    return {any_gen(depth), false};
  }
  std::string target = ref.substr(1);
  if (profile::resolve_pointer(*ctx_->root, target) == nullptr) {
    opt_.problems.add("unresolvable $ref: " + ref);
    return {fail_gen("unresolvable $ref " + ref), true};
  }
  auto ctx = ctx_;
  Gen g = rc::gen::lazy([ctx, target, depth] { return Builder(ctx).at(target, depth + 1); });
  bool siblings = false;
  for (const auto& [k, v] : s.items()) {
    if (k != "$ref" && !annotation(k)) siblings = true;
  }
  return finish({g, !siblings}, ptr);
}

Built Builder::body(const json& s, const Ptr& ptr, int depth) {
  if (s.contains("const")) return {rc::gen::just(s["const"]), true};
  if (auto it = s.find("enum"); it != s.end() && it->is_array()) return enum_gen(*it, s, ptr);
  if (s.contains("allOf") && s["allOf"].is_array()) return {build(merge_all_of(s), std::nullopt, depth).gen, false};
  for (const char* key : {"anyOf", "oneOf"}) {
    if (auto it = s.find(key); it != s.end() && it->is_array() && !it->empty()) return union_gen(s, key, ptr, depth);
  }
  std::vector<std::string> types = type_list(s);
  if (types.empty()) {
    if (has_any(s, {"properties", "required", "additionalProperties", "patternProperties", "propertyNames"}))
      types = {"object"};
    else if (has_any(s, {"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"}))
      types = {"array"};
    else if (has_any(s, {"minLength", "maxLength", "pattern", "format"}))
      types = {"string"};
    else if (has_any(s, {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}))
      types = {"number"};
  }
  if (opt_.nullable_allows_null && s.value("nullable", false) &&
      std::find(types.begin(), types.end(), "null") == types.end() && !types.empty())
    types.push_back("null");
  if (types.empty()) return {any_gen(depth), true};
  // "integer" and "number" together: number covers both.
  std::vector<Gen> gens;
  bool exact = true;
  for (const auto& t : types) {
    Built b = typed(s, t, ptr, depth);
    gens.push_back(b.gen);
    exact = exact && b.exact;
  }
  return {gens.size() == 1 ? gens[0] : one_of(gens), exact};
}

Built Builder::typed(const json& s, const std::string& t, const Ptr& ptr, int depth) {
  if (t == "null") return {rc::gen::just(json(nullptr)), true};
  if (t == "boolean") return {rc::gen::element(json(false), json(true)), true};
  if (t == "integer") return integer_gen(s);
  if (t == "number") return number_gen(s);
  if (t == "string") return string_gen(s);
  if (t == "array") return array_gen(s, ptr, depth);
  if (t == "object") return object_gen(s, ptr, depth);
  opt_.problems.add("unknown type '" + t + "'");
  return {fail_gen("unknown type " + t), true};
}

Built Builder::enum_gen(const json& values, const json& s, const Ptr& ptr) {
  std::vector<json> keep;
  // An enum beside other constraints (a type, a pattern...) keeps only the values they admit,
  // read by the subschema's validator; alone, every value is valid and no validator (a copy of
  // the whole schema, enum included) is compiled.
  if (values.size() > kMaxEnumValues)
    opt_.problems.add("an enum of " + std::to_string(values.size()) + " values: " + std::to_string(kMaxEnumValues) +
                      " of them, evenly spread, are used");
  const bool alone = std::all_of(s.items().begin(), s.items().end(),
                                 [](const auto& kv) { return kv.key() == "enum" || annotation(kv.key()); });
  if (alone) return {element_of(enum_sample(values)), true};
  const profile::SchemaValidator* v = ptr ? ctx_->validator(*ptr) : nullptr;
  for (const auto& x : enum_sample(values)) {
    if (v == nullptr || v->is_valid(x)) keep.push_back(x);
  }
  return {element_of(keep), v != nullptr || !ptr};
}

Built Builder::union_gen(const json& s, const char* key, const Ptr& ptr, int depth) {
  json base = json::object();
  for (const auto& [k, v] : s.items()) {
    if (k != key && !annotation(k)) base[k] = v;
  }
  std::vector<Gen> gens;
  bool exact = std::string(key) == "anyOf";
  const json& branches = s[key];
  for (std::size_t i = 0; i < branches.size(); ++i) {
    if (base.empty()) {
      Built b = build(branches[i], child(ptr, key, std::to_string(i)), depth);
      gens.push_back(b.gen);
      exact = exact && b.exact;
    } else {
      json merged = merge_all_of(json{{"allOf", json::array({base, branches[i]})}});
      gens.push_back(build(merged, std::nullopt, depth).gen);
      exact = false;
    }
  }
  return {one_of(gens), exact};
}

// allOf merged into one schema where that is simple (types intersected, bounds tightened,
// properties and required united); the caller filters the result with the original node.
json Builder::merge_all_of(const json& s) {
  json out = json::object();
  for (const auto& [k, v] : s.items()) {
    if (k != "allOf") out[k] = v;
  }
  for (json branch : s["allOf"]) {
    for (int hops = 0; hops < 8 && branch.is_object() && branch.contains("$ref") && branch["$ref"].is_string(); ++hops) {
      std::string r = branch["$ref"].get<std::string>();
      const json* t = r.rfind('#', 0) == 0 ? profile::resolve_pointer(*ctx_->root, r.substr(1)) : nullptr;
      if (t == nullptr) break;
      json rest = branch;
      rest.erase("$ref");
      branch = *t;
      if (branch.is_object()) branch.update(rest);
    }
    if (branch.is_object() && branch.contains("allOf")) branch = merge_all_of(branch);
    if (!branch.is_object()) continue;
    for (const auto& [k, v] : branch.items()) merge_key(out, k, v);
  }
  return out;
}

void Builder::merge_key(json& out, const std::string& k, const json& v) {
  if (!out.contains(k)) {
    out[k] = v;
    return;
  }
  json& cur = out[k];
  if (k == "properties" && cur.is_object() && v.is_object()) {
    for (const auto& [p, sub] : v.items()) {
      if (!cur.contains(p)) {
        cur[p] = sub;
      } else if (cur[p] != sub) {
        cur[p] = json{{"allOf", json::array({cur[p], sub})}};
      }
    }
  } else if (k == "required" && cur.is_array() && v.is_array()) {
    for (const auto& r : v) {
      if (std::find(cur.begin(), cur.end(), r) == cur.end()) cur.push_back(r);
    }
  } else if (k == "type") {
    std::vector<std::string> a = type_list(json{{"type", cur}});
    std::vector<std::string> b = type_list(json{{"type", v}});
    json both = json::array();
    for (const auto& t : a) {
      bool in_b = std::find(b.begin(), b.end(), t) != b.end() ||
                  (t == "integer" && std::find(b.begin(), b.end(), "number") != b.end());
      if (in_b) both.push_back(t);
    }
    for (const auto& t : b) {
      if (t == "integer" && std::find(a.begin(), a.end(), "number") != a.end() &&
          std::find(both.begin(), both.end(), "integer") == both.end())
        both.push_back(t);
    }
    cur = both;
  } else if ((k == "minimum" || k == "minLength" || k == "minItems" || k == "minProperties") && cur.is_number() &&
             v.is_number()) {
    if (v.get<double>() > cur.get<double>()) cur = v;
  } else if ((k == "maximum" || k == "maxLength" || k == "maxItems" || k == "maxProperties") && cur.is_number() &&
             v.is_number()) {
    if (v.get<double>() < cur.get<double>()) cur = v;
  } else if (k == "enum" && cur.is_array() && v.is_array()) {
    std::set<json> in_v(v.begin(), v.end());  // n log n: enums of 100,000 values exist
    json both = json::array();
    for (const auto& x : cur) {
      if (in_v.count(x)) both.push_back(x);
    }
    cur = both;
  } else if (k == "additionalProperties" && v.is_boolean() && !v.get<bool>()) {
    cur = v;
  }
}

std::shared_ptr<const json> shared_root(const json& root, const GenOptions& options) {
  return options.root_schema.get() == &root ? options.root_schema : std::make_shared<const json>(root);
}

}  // namespace detail

namespace {

std::shared_ptr<Ctx> make_ctx(const json& root, const GenOptions& options) {
  auto ctx = std::make_shared<Ctx>();
  ctx->root = shared_root(root, options);
  ctx->opt = options;
  return ctx;
}

// The pointer of `schema` inside `root`, when it is the root itself or a direct subschema we can
// find by identity; otherwise a synthetic root is used.
Gen top_gen(const json& schema, const json& root, const GenOptions& options) {
  if (&schema == &root || schema == root) {
    auto ctx = make_ctx(root, options);
    return Builder(ctx).at("", 0);
  }
  // One of the root's properties (the boundary phase's typical values): its pointer, not a
  // grafted copy of the root and the schema.
  if (auto props = root.find("properties"); root.is_object() && props != root.end() && props->is_object())
    for (const auto& [k, sub] : props->items())
      if (&sub == &schema) {
        auto ctx = make_ctx(root, options);
        return Builder(ctx).at("/properties/" + profile::escape_pointer_token(k), 0);
      }
  // A schema given apart from its root: graft it under a private key so local refs still resolve.
  json doc = root.is_object() ? root : json::object();
  doc["$ctxo-target"] = schema;
  auto ctx = make_ctx(doc, options);
  return Builder(ctx).at("/$ctxo-target", 0);
}

}  // namespace

rc::Gen<json> valid_value(const json& schema, const json& root, const GenOptions& options) {
  Gen g = top_gen(schema, root, options);
  std::size_t limit = options.max_value_bytes;
  return such_that(g, [limit](const json& v) { return v.dump().size() < limit; });
}

}  // namespace ctxo::gen
