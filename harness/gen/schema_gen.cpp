// SPDX-License-Identifier: MIT
// JSON Schema -> rc::Gen<json>. A Builder walks the schema once and composes RapidCheck
// generators; every subschema is addressed by its JSON Pointer into the root so that keywords we
// only approximate can be filtered with a SchemaValidator compiled for exactly that subschema.
#include "gen/schema_gen.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <utility>

#include "core/text.h"
#include "gen/pattern_gen.h"
#include "gen/rc_util.h"
#include "gen/simple.h"
#include "profile/pattern_re2.h"
#include "profile/schema_validator.h"

namespace ctxo::gen {

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

namespace {

std::string excerpt_of(const json& v) { return excerpt(v.dump(), 40); }

// A schema's `default` or example value may be sent as it is: it names no host but loopback, or
// the user allowed it (--allow-remote-urls). Else the tool's plan says so, once.
bool sendable(const json& v, const GenOptions& o) {
  if (o.allow_remote_urls || stays_local(v)) return true;
  Problems sink = o.problems;  // shares the list
  sink.add(std::string(kRemoteUrlProblem) + " (" + excerpt_of(v) + "); --allow-remote-urls sends it");
  return false;
}


using Gen = rc::Gen<json>;
using Ptr = std::optional<std::string>;  // JSON Pointer into the root; nullopt for merged schemas

constexpr std::int64_t kSafe = 9007199254740992;  // 2^53
constexpr int kHardDepth = 6;                      // $ref levels past max_depth before giving up
// What the generator makes at most, whatever a schema asks: a minLength or minItems above these
// is a schema it cannot honour (a problem, and a generator that fails), never gigabytes.
constexpr std::size_t kMaxGenLength = 16 * 1024;   // code points in one string
constexpr std::size_t kMaxGenItems = 1024;         // items in one array
constexpr std::size_t kMaxEnumValues = 256;        // enum values considered (evenly spread)

// At most kMaxEnumValues of `values`, evenly spread, the first and the last among them: an enum of
// 100,000 values is sampled, not validated value by value.
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

// s with its local $refs followed (at most 8), or nullptr when one does not resolve.
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

// A discarded json marks "optional property absent" inside object generators.
json absent() { return json(json::value_t::discarded); }

// Picks one of `options` by weight; shrinks towards the first option.
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

// A JSON number: integral values within +-2^53 as integers (3, not 3.0).
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

// Keywords that say nothing about validity.
bool annotation(const std::string& k) {
  static const std::set<std::string> kAnn{"title",    "description", "default", "examples", "$comment", "$schema",
                                          "$id",      "$defs",       "definitions", "deprecated", "readOnly",
                                          "writeOnly", "$anchor",   "markdownDescription"};
  return kAnn.count(k) > 0;
}

// Keywords generated only approximately: the node is filtered with its validator.
bool needs_filter(const json& s) {
  return has_any(s, {"not", "oneOf", "allOf", "if", "dependencies", "dependentRequired", "dependentSchemas",
                     "minProperties", "maxProperties", "patternProperties", "contains", "propertyNames",
                     "unevaluatedProperties", "unevaluatedItems"}) ||
         (s.contains("multipleOf") && s["multipleOf"].is_number() && !is_int_value(s["multipleOf"].get<double>()));
}

// ---- shared context -----------------------------------------------------------------------

// A `pattern` as the validator reads it (profile/schema_validator.cpp): RE2 when it can express
// it (linear time, never backtracking), else std::regex.
struct Pattern {
  std::shared_ptr<const re2::RE2> re2;
  std::shared_ptr<const std::regex> fallback;
  bool search(const std::string& s) const { return re2 ? profile::re2_search(*re2, s) : std::regex_search(s, *fallback); }
};

struct Ctx {
  std::shared_ptr<const json> root;  // shared with the ToolPlan when it is the plan's (GenOptions::root_schema)
  GenOptions opt;
  std::mutex mu;
  std::map<std::string, std::optional<profile::SchemaValidator>> validators;
  std::map<std::string, std::shared_ptr<const Pattern>> regexes;

  // A validator for the subschema at `ptr`: the root document with `$ref` to it at the top
  // (draft-07 ignores the root's other keywords next to $ref), so local refs still resolve.
  const profile::SchemaValidator* validator(const std::string& ptr) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = validators.find(ptr);
    if (it == validators.end()) {
      std::optional<profile::SchemaValidator> v;
      json doc = *root;
      if (!ptr.empty() && doc.is_object()) {
        doc["$ref"] = "#" + ptr;
      }
      auto r = profile::SchemaValidator::compile(doc);
      if (r) v = std::move(*r);
      it = validators.emplace(ptr, std::move(v)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  std::shared_ptr<const Pattern> regex(const std::string& pattern) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = regexes.find(pattern);
    if (it != regexes.end()) return it->second;
    std::shared_ptr<const Pattern> re;
    if (auto why = profile::pattern_problem(pattern)) {
      opt.problems.add(*why);
    } else if (auto fast = profile::compile_re2(pattern)) {
      re = std::make_shared<const Pattern>(Pattern{std::move(fast), nullptr});
    } else {
      try {
        re = std::make_shared<const Pattern>(
            Pattern{nullptr, std::make_shared<const std::regex>(pattern, std::regex::ECMAScript)});
      } catch (const std::regex_error&) {
        opt.problems.add("pattern std::regex cannot compile: " + pattern);
      }
    }
    regexes.emplace(pattern, re);
    return re;
  }
};

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

struct Built {
  Gen gen;
  bool exact;  // false: may produce values the schema rejects; an ancestor with a pointer filters
};

class Builder {
 public:
  explicit Builder(std::shared_ptr<Ctx> ctx) : ctx_(std::move(ctx)), opt_(ctx_->opt) {}

  // The generator for the subschema at `ptr`, filtered when it is not exact.
  Gen at(const std::string& ptr, int depth) {
    const json* s = profile::resolve_pointer(*ctx_->root, ptr);
    if (s == nullptr) {
      opt_.problems.add("unresolvable pointer #" + ptr);
      return fail_gen("unresolvable pointer #" + ptr);
    }
    return finish(build(*s, ptr, depth), ptr).gen;
  }

  Built build(const json& s, const Ptr& ptr, int depth) {
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

  // True for a string format the generator writes values of (valijson does not check formats,
  // so a call's validity says nothing about them).
  static bool writes_format(const std::string& f) { return format_gen(f).has_value(); }

 private:
  Built finish(Built b, const Ptr& ptr) {
    if (b.exact || !ptr) return b;
    const auto* v = ctx_->validator(*ptr);
    if (v == nullptr) return b;
    profile::SchemaValidator copy = *v;
    return {such_that(b.gen, [copy](const json& x) { return copy.is_valid(x); }), true};
  }

  Built ref(const json& s, const std::string& ref, const Ptr& ptr, int depth) {
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

  Built body(const json& s, const Ptr& ptr, int depth) {
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

  Built typed(const json& s, const std::string& t, const Ptr& ptr, int depth) {
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

  Built enum_gen(const json& values, const json& s, const Ptr& ptr) {
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

  Built union_gen(const json& s, const char* key, const Ptr& ptr, int depth) {
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
  json merge_all_of(const json& s) {
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

  static void merge_key(json& out, const std::string& k, const json& v) {
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

  // ---- scalars ----

  struct Bounds {
    double lo = -static_cast<double>(kSafe);
    double hi = static_cast<double>(kSafe);
    bool lo_open = false;
    bool hi_open = false;
  };

  static Bounds bounds(const json& s) {
    Bounds b;
    if (auto m = number_at(s, "minimum")) b.lo = std::max(b.lo, *m);
    if (auto m = number_at(s, "maximum")) b.hi = std::min(b.hi, *m);
    if (auto it = s.find("exclusiveMinimum"); it != s.end()) {
      if (it->is_boolean()) {
        b.lo_open = it->get<bool>() && s.contains("minimum");
      } else if (it->is_number() && it->get<double>() >= b.lo) {
        b.lo = it->get<double>();
        b.lo_open = true;
      }
    }
    if (auto it = s.find("exclusiveMaximum"); it != s.end()) {
      if (it->is_boolean()) {
        b.hi_open = it->get<bool>() && s.contains("maximum");
      } else if (it->is_number() && it->get<double>() <= b.hi) {
        b.hi = it->get<double>();
        b.hi_open = true;
      }
    }
    return b;
  }

  Built integer_gen(const json& s) {
    Bounds b = bounds(s);
    double lo_d = b.lo_open ? std::floor(b.lo) + 1 : std::ceil(b.lo);
    double hi_d = b.hi_open ? std::ceil(b.hi) - 1 : std::floor(b.hi);
    lo_d = std::max(lo_d, -static_cast<double>(kSafe));
    hi_d = std::min(hi_d, static_cast<double>(kSafe));
    if (lo_d > hi_d) {
      const bool past = std::ceil(b.lo) > static_cast<double>(kSafe) || std::floor(b.hi) < -static_cast<double>(kSafe);
      if (!past) return {fail_gen("empty integer range"), true};
      const std::string why = "an integer range past 2^53 (integers there have no exact JSON number in most clients)";
      opt_.problems.add(why);
      return {fail_gen(why), true};
    }
    auto lo = static_cast<std::int64_t>(lo_d);
    auto hi = static_cast<std::int64_t>(hi_d);
    std::int64_t step = 1;
    if (auto m = number_at(s, "multipleOf"); m && *m > 0 && is_int_value(*m) && *m < 1e15) step = static_cast<std::int64_t>(*m);
    // Work in multiples of step: k in [klo, khi], value = k * step.
    auto div_ceil = [](std::int64_t a, std::int64_t d) { return a / d + ((a % d != 0 && a > 0) ? 1 : 0); };
    auto div_floor = [](std::int64_t a, std::int64_t d) { return a / d - ((a % d != 0 && a < 0) ? 1 : 0); };
    std::int64_t klo = div_ceil(lo, step);
    std::int64_t khi = div_floor(hi, step);
    if (klo > khi) return {fail_gen("no multiple in range"), true};
    auto as_json = [step](std::int64_t k) { return json(k * step); };
    std::int64_t target = std::clamp<std::int64_t>(0, klo, khi);
    std::vector<std::int64_t> edges;  // in multiples of step
    auto add_edge = [&](std::int64_t v) {
      if (v % step != 0 || v < lo || v > hi) return;
      if (std::find(edges.begin(), edges.end(), v / step) == edges.end()) edges.push_back(v / step);
    };
    for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1}, lo, lo + 1, hi - 1, hi, kSafe, -kSafe,
                           kSafe - 1, -(kSafe - 1)})
      add_edge(v);
    add_edge(klo * step);
    add_edge(khi * step);
    std::int64_t slo = std::max(klo, std::int64_t{-100});
    std::int64_t shi = std::min(khi, std::int64_t{100});
    if (slo > shi) {
      slo = klo;
      shi = std::min(khi, klo + 100);
    }
    Gen small = rc::gen::map(any_in<std::int64_t>(slo, shi, std::clamp(target, slo, shi)), as_json);
    Gen wide = rc::gen::map(any_in<std::int64_t>(klo, khi, target), as_json);
    if (!opt_.edge_bias) return {weighted({{4, small}, {1, wide}}), true};
    // Edges shrink like any other number: towards the in-range value nearest 0.
    Gen edge = rc::gen::map(rc::gen::shrink(rc::gen::noShrink(rc::gen::elementOf(edges)),
                                            [target](std::int64_t k) { return rc::shrink::towards<std::int64_t>(k, target); }),
                            as_json);
    return {weighted({{4, small}, {3, edge}, {2, wide}}), true};
  }

  Built number_gen(const json& s) {
    Bounds b = bounds(s);
    if (b.lo > b.hi || (b.lo == b.hi && (b.lo_open || b.hi_open))) return {fail_gen("empty number range"), true};
    auto ok = [b](double v) {
      return std::isfinite(v) && (b.lo_open ? v > b.lo : v >= b.lo) && (b.hi_open ? v < b.hi : v <= b.hi);
    };
    std::optional<double> mult = number_at(s, "multipleOf");
    if (mult && *mult > 0 && is_int_value(*mult)) return integer_gen(s);  // multiples of an integer are integers
    std::vector<Gen> parts;
    json int_schema = s;
    int_schema.erase("multipleOf");
    // Integers inside the range, when there are any.
    if (std::ceil(b.lo) <= std::floor(b.hi)) parts.push_back(integer_gen(int_schema).gen);
    double lo = b.lo;
    double hi = b.hi;
    Gen frac = rc::gen::map(any_in<std::int64_t>(0, 1000000, 0), [lo, hi](std::int64_t k) {
      double span = std::min(hi - lo, 2000.0);
      double base = (hi - lo <= 2000.0) ? lo : std::clamp(-1000.0, lo, hi - span);
      double v = base + span * static_cast<double>(k) / 1e6;
      double rounded = std::round(v * 1000.0) / 1000.0;  // 3 decimals: readable, and the filter keeps bounds
      return number_json(rounded >= lo && rounded <= hi ? rounded : v);
    });
    parts.push_back(frac);
    if (opt_.edge_bias) {
      std::vector<json> edges;
      for (double v : {0.5, -0.5, 1e-9, lo, hi, std::nextafter(lo, hi), std::nextafter(hi, lo), 0.1, 1e300})
        if (ok(v)) edges.push_back(number_json(v));
      if (!edges.empty()) parts.push_back(element_of(edges));
    }
    Gen g = such_that(one_of(parts), [ok](const json& j) { return ok(j.get<double>()); });
    return {g, !mult.has_value()};
  }

  // Code-point generators, ASCII first so shrinking lands on plain letters.
  // One code point from edge-heavy blocks, drawn with a single random number (strings of
  // thousands of characters stay cheap). Shrinks to 'a', else towards the start of its block.
  struct Block {
    std::uint32_t weight, lo, hi;
  };
  static constexpr Block kBlocks[] = {
      {40, 'a', 'z'},
      {15, 0x20, 0x7E},
      {10, 0x1F600, 0x1F64F},  // astral emoji
      {10, 0x4E00, 0x9FFF},    // CJK
      {5, 0x05D0, 0x05EA},     // Hebrew (RTL)
      {4, 0x0627, 0x064A},     // Arabic (RTL)
      {6, 0x0300, 0x036F},     // combining marks
      {4, 0x01, 0x1F},         // control characters, never NUL
      {1, 0x200B, 0x200F},     // zero-width space and direction marks
      {1, 0xFEFF, 0xFEFF},     // byte order mark
  };

  // The code point edge_char makes of random number x, and the start of its block.
  static std::pair<std::uint32_t, std::uint32_t> edge_code_point(std::uint64_t x) {
    std::uint64_t total = 0;
    for (const auto& b : kBlocks) total += b.weight;
    std::uint64_t pick = x % total;
    const Block* block = &kBlocks[0];
    for (const auto& b : kBlocks) {
      if (pick < b.weight) {
        block = &b;
        break;
      }
      pick -= b.weight;
    }
    return {static_cast<std::uint32_t>(block->lo + (x / total) % (block->hi - block->lo + 1)), block->lo};
  }

  static rc::Gen<std::uint32_t> edge_char() {
    return rc::Gen<std::uint32_t>([](const rc::Random& random, int) {
      auto [cp, lo] = edge_code_point(rc::Random(random).next());
      return rc::shrinkable::shrinkRecur(cp, [lo = lo](std::uint32_t c) {
        rc::Seq<std::uint32_t> towards = c > lo ? rc::shrink::towards<std::uint32_t>(c, lo) : rc::Seq<std::uint32_t>();
        if (c == 'a') return towards;
        return rc::seq::concat(rc::seq::just(std::uint32_t{'a'}), std::move(towards));
      });
    });
  }

  // Strings of lo to hi code points (edge_char's, else 'a'..'z'). The value is drawn whole, with
  // the very random numbers bounded_vector and the per-character generators would draw; the
  // shrink tree (a Shrinkable per character) is the RapidCheck composition's, built only when a
  // failing call is shrunk.
  static Gen chars_gen(std::size_t lo, std::size_t hi, bool edges) {
    rc::Gen<std::uint32_t> ch = edges ? edge_char() : any_in<std::uint32_t>('a', 'z', 'a');
    Gen tree = rc::gen::map(bounded_vector<std::uint32_t>(lo, hi - lo, ch),
                            [](const std::vector<std::uint32_t>& v) { return json(utf8(v)); });
    const std::size_t extra = hi - lo;
    // any_in('a', 'z') is inRange('a', 'z' + 1) at the nominal size.
    const std::uint64_t letters = rc::gen::detail::scaleInteger(std::uint64_t{'z' - 'a'}, rc::kNominalSize) + 1;
    return Gen([tree, lo, extra, edges, letters](const rc::Random& random, int size) {
      std::string text;
      auto put = [&](const rc::Random& r) {
        const std::uint64_t x = rc::Random(r).next();
        append_utf8(text, static_cast<char32_t>(edges ? edge_code_point(x).first
                                                      : static_cast<std::uint32_t>('a' + x % letters)));
      };
      // bounded_vector: a tuple of `lo` elements and a container of up to `cap` more.
      const auto s = static_cast<std::size_t>(std::clamp(size, 0, rc::kNominalSize));
      const std::size_t cap = (extra * s + rc::kNominalSize - 1) / rc::kNominalSize;
      rc::Random r(random);
      rc::Random fixed = r.split();
      rc::Random more = r.split();
      text.reserve((lo + cap) * (edges ? 2 : 1));
      for (std::size_t i = 0; i < lo; ++i) put(fixed.split());
      const std::size_t count = more.split().next() % (cap + 1);
      for (std::size_t i = 0; i < count; ++i) put(more.split());
      return lazy_tree(json(std::move(text)), tree, random, size);
    });
  }

  Built string_gen(const json& s) {
    std::size_t min_len = size_at(s, "minLength").value_or(0);
    std::size_t max_len = size_at(s, "maxLength").value_or(std::numeric_limits<std::size_t>::max());
    if (min_len > max_len) return {fail_gen("minLength > maxLength"), true};
    if (min_len > kMaxGenLength) {
      const std::string why = "minLength " + s["minLength"].dump() + " is more than the " +
                              std::to_string(kMaxGenLength) + " characters the generator writes";
      opt_.problems.add(why);
      return {fail_gen(why), true};
    }
    std::optional<std::string> pattern;
    if (auto it = s.find("pattern"); it != s.end() && it->is_string()) pattern = it->get<std::string>();
    std::string format = s.value("format", std::string());

    auto len_ok = [min_len, max_len](const json& j) {
      std::size_t n = code_points(j.get<std::string>());
      return n >= min_len && n <= max_len;
    };
    std::shared_ptr<const Pattern> re = pattern ? ctx_->regex(*pattern) : nullptr;
    auto filter = [len_ok, re](const Gen& g) {
      return such_that(g, [len_ok, re](const json& j) {
        // A subject longer than kMaxPatternSubject is never matched (std::regex recurses per
        // character): it is not sent as a value of a patterned string.
        const auto& text = j.get_ref<const std::string&>();
        return len_ok(j) && (re == nullptr || (text.size() <= profile::kMaxPatternSubject && re->search(text)));
      });
    };

    if (std::optional<Gen> f = format_gen(format)) return {filter(*f), true};
    if (pattern) {
      if (auto bad = profile::pattern_problem(*pattern)) return {fail_gen(*bad), true};  // noted by ctx_->regex
      std::string why;
      if (auto pg = pattern_gen(*pattern, why)) {
        return {filter(rc::gen::map(*pg, [](const std::string& x) { return json(x); })), true};
      }
      opt_.problems.add("pattern outside the generator's subset (" + why + "), values filtered: " + *pattern);
      return {filter(chars_gen(min_len, std::min(max_len, min_len + 16), false)), true};
    }
    std::size_t short_hi = std::min(max_len, min_len + 24);
    std::vector<std::pair<std::size_t, Gen>> opts{{10, chars_gen(min_len, short_hi, opt_.edge_bias)}};
    if (opt_.edge_bias) {
      if (min_len == 0) opts.emplace_back(2, rc::gen::just(json("")));
      opts.emplace_back(2, chars_gen(min_len, std::min(min_len + 1, max_len), true));  // at the lower bound
      if (max_len <= kMaxGenLength) opts.emplace_back(2, chars_gen(max_len, max_len, false));  // at the upper bound
      std::size_t long_lo = std::clamp(opt_.long_string_min, min_len, max_len);
      std::size_t long_hi = std::clamp(opt_.long_string_max, min_len, max_len);
      if (long_hi > short_hi) opts.emplace_back(1, chars_gen(long_lo, long_hi, true));
    }
    return {weighted(std::move(opts)), true};
  }

  static Gen digits(int lo, int hi, int width) {
    return rc::gen::map(any_in(lo, hi, lo), [width](int v) {
      std::string s = std::to_string(v);
      if (static_cast<int>(s.size()) < width) s.insert(0, static_cast<std::size_t>(width) - s.size(), '0');
      return json(s);
    });
  }

  static Gen cat(const std::vector<Gen>& parts) {
    Gen acc = rc::gen::just(json(""));
    for (const auto& p : parts) {
      acc = rc::gen::map(rc::gen::tuple(acc, p), [](const std::tuple<json, json>& t) {
        return json(std::get<0>(t).get<std::string>() + std::get<1>(t).get<std::string>());
      });
    }
    return acc;
  }

  static Gen lit(const std::string& s) { return rc::gen::just(json(s)); }

  static Gen word(std::size_t lo, std::size_t hi) {
    auto ch = weighted_pick<std::uint32_t>({{5, any_in<std::uint32_t>('a', 'z', 'a')}, {1, any_in<std::uint32_t>('0', '9', '0')}});
    return rc::gen::map(rc::gen::resize(rc::kNominalSize, bounded_vector<std::uint32_t>(lo, hi - lo, ch)),
                        [](const std::vector<std::uint32_t>& v) { return json(utf8(v)); });
  }

  static Gen hex(std::size_t n) {
    return rc::gen::map(rc::gen::container<std::vector<int>>(n, any_in(0, 15, 0)), [](const std::vector<int>& v) {
      std::string s;
      for (int d : v) s += "0123456789abcdef"[d];
      return json(s);
    });
  }

  static std::optional<Gen> format_gen(const std::string& f) {
    Gen date = cat({digits(1970, 2099, 4), lit("-"), digits(1, 12, 2), lit("-"), digits(1, 28, 2)});
    Gen time = cat({digits(0, 23, 2), lit(":"), digits(0, 59, 2), lit(":"), digits(0, 59, 2),
                    one_of({lit(""), cat({lit("."), digits(0, 999, 3)})}), one_of({lit("Z"), lit("+05:30"), lit("-08:00")})});
    if (f == "date-time") {
      return one_of({cat({date, lit("T"), time}), rc::gen::element(json("1970-01-01T00:00:00Z"), json("2024-02-29T23:59:59.999+14:00"))});
    }
    if (f == "date") return one_of({date, lit("2024-02-29")});
    if (f == "time") return time;
    if (f == "email" || f == "idn-email") return cat({word(1, 12), lit("@"), rc::gen::element(json("example.invalid"), json("mail.example.invalid"))});
    if (f == "uuid") return cat({hex(8), lit("-"), hex(4), lit("-4"), hex(3), lit("-a"), hex(3), lit("-"), hex(12)});
    // Never a real host (a tool may connect to, fetch from or mail what it is given): loopback
    // addresses, the closed port 9 on 127.0.0.1, the reserved .invalid domain, IPv6's documentation prefix.
    if (f == "ipv4") return cat({lit("127."), digits(0, 255, 1), lit("."), digits(0, 255, 1), lit("."), digits(1, 254, 1)});
    if (f == "ipv6") return one_of({lit("::1"), cat({lit("2001:db8::"), hex(4)})});
    if (f == "hostname" || f == "idn-hostname") return cat({word(1, 12), lit(".invalid")});
    if (f == "uri" || f == "iri" || f == "uri-reference" || f == "iri-reference" || f == "url") {
      return one_of({cat({lit("https://127.0.0.1:9/"), word(0, 12)}), cat({lit("file:///tmp/"), word(1, 12)}),
                     lit("urn:ctxo:example"), cat({lit("http://127.0.0.1:9/"), word(0, 8), lit("?q="), word(0, 6)})});
    }
    return std::nullopt;
  }

  // ---- arrays and objects ----

  Built array_gen(const json& s, const Ptr& ptr, int depth) {
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

  Built object_gen(const json& s, const Ptr& ptr, int depth) {
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
  Gen any_gen(int depth) const {
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

  std::shared_ptr<Ctx> ctx_;
  GenOptions& opt_;
};

/// The shared copy of `root`: the options' root_schema when it is that document, else a new copy.
std::shared_ptr<const json> shared_root(const json& root, const GenOptions& options) {
  return options.root_schema.get() == &root ? options.root_schema : std::make_shared<const json>(root);
}

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

// ---- invalid values -----------------------------------------------------------------------

namespace {

struct Site {
  std::string path;  // where to put `value` (discarded: erase the key there)
  json value;
  std::string label;
};

std::string where(const std::string& path) { return path.empty() ? "" : " at " + path; }

std::string type_of(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

bool type_allows(const std::vector<std::string>& types, const std::string& t) {
  for (const auto& x : types) {
    if (x == t || (x == "number" && t == "integer")) return true;
  }
  return false;
}

// Replaces the value at `path` (a JSON Pointer into `doc`) with `v`, or erases it when v is discarded.
json replaced(const json& doc, const std::string& path, const json& v) {
  if (path.empty()) return v;
  json out = doc;
  json::json_pointer p(path);
  if (v.is_discarded()) {
    json& parent = out[p.parent_pointer()];
    const std::string& last = p.back();
    if (parent.is_object()) parent.erase(last);
    return out;
  }
  out[p] = v;
  return out;
}

class Breaker {
 public:
  explicit Breaker(const json& root) : root_(root) {}

  std::vector<Site> sites;

  void walk(const json& schema, const json& value, const std::string& path, int depth) {
    if (depth > 12 || !schema.is_object()) return;
    const json* s = deref(schema, root_);
    if (s == nullptr || !s->is_object()) return;
    if (auto it = s->find("allOf"); it != s->end() && it->is_array()) {
      for (const auto& b : *it) walk(b, value, path, depth + 1);
    }
    bool top_object = path.empty() && value.is_object();
    std::vector<std::string> types = type_list(*s);
    if (!types.empty() && !top_object) {
      for (const json& w : {json("ctxo"), json(7), json(true), json(nullptr), json::array(), json::object(), json(0.5)}) {
        std::string t = type_of(w);
        if (!type_allows(types, t)) {
          add(path, w, "wrong type" + where(path) + " (" + t + " instead of " + types[0] + ")");
          break;
        }
      }
    }
    if (auto it = s->find("enum"); it != s->end() && it->is_array() && !top_object) {
      add(path, json("ctxo-not-in-enum"), "not in enum" + where(path));
      add(path, json(987654321), "not in enum" + where(path));
    }
    if (s->contains("const") && !top_object) add(path, json("ctxo-not-const"), "not the const" + where(path));
    if (value.is_number()) {
      if (auto m = number_at(*s, "minimum")) add(path, json(std::floor(*m) - 1), "out of range" + where(path) + " (below minimum " + json(*m).dump() + ")");
      if (auto m = number_at(*s, "maximum")) add(path, json(std::ceil(*m) + 1), "out of range" + where(path) + " (above maximum " + json(*m).dump() + ")");
      if (auto m = number_at(*s, "exclusiveMinimum")) add(path, json(*m), "out of range" + where(path) + " (at exclusiveMinimum)");
      if (auto m = number_at(*s, "exclusiveMaximum")) add(path, json(*m), "out of range" + where(path) + " (at exclusiveMaximum)");
      if (std::find(types.begin(), types.end(), "integer") != types.end() &&
          std::find(types.begin(), types.end(), "number") == types.end())
        add(path, json(value.get<double>() + 0.5), "not an integer" + where(path));
    }
    if (value.is_string()) {
      if (auto m = size_at(*s, "minLength"); m && *m > 0 && *m <= kMaxGenLength) add(path, json(std::string(*m - 1, 'a')), "too short" + where(path) + " (minLength " + std::to_string(*m) + ")");
      if (auto m = size_at(*s, "maxLength"); m && *m < 60000) add(path, json(std::string(*m + 1, 'a')), "too long" + where(path) + " (maxLength " + std::to_string(*m) + ")");
      if (s->contains("pattern")) {
        add(path, json(""), "pattern mismatch" + where(path));
        add(path, json("\u00a7 ctxo \u00a7"), "pattern mismatch" + where(path));
      }
      if (s->contains("format")) add(path, json("not a " + s->value("format", std::string())), "bad format" + where(path));
    }
    if (value.is_array()) {
      if (auto m = size_at(*s, "minItems"); m && *m > 0 && *m <= value.size()) {
        json a = value;
        a.erase(a.begin() + static_cast<std::ptrdiff_t>(*m - 1), a.end());
        add(path, a, "too few items" + where(path));
      }
      if (auto m = size_at(*s, "maxItems"); m && *m < 2000) {
        json a = value;
        json filler = a.empty() ? json(nullptr) : a.back();
        while (a.size() <= *m) a.push_back(filler);
        add(path, a, "too many items" + where(path));
      }
      if (s->value("uniqueItems", false) && !value.empty()) {
        json a = value;
        a.push_back(a.front());
        add(path, a, "duplicate items" + where(path));
      }
      const json* items = s->contains("items") && (*s)["items"].is_object() ? &(*s)["items"] : nullptr;
      for (std::size_t i = 0; i < value.size() && i < 3; ++i) {
        const json* sub = items;
        if (auto pi = s->find("prefixItems"); pi != s->end() && pi->is_array() && i < pi->size()) sub = &(*pi)[i];
        if (auto ti = s->find("items"); ti != s->end() && ti->is_array() && i < ti->size()) sub = &(*ti)[i];
        if (sub != nullptr) walk(*sub, value[i], path + "/" + std::to_string(i), depth + 1);
      }
    }
    if (value.is_object()) {
      if (auto it = s->find("required"); it != s->end() && it->is_array()) {
        for (const auto& r : *it) {
          if (r.is_string() && value.contains(r.get<std::string>()))
            add(path + "/" + profile::escape_pointer_token(r.get<std::string>()), absent(),
                "missing required '" + r.get<std::string>() + "'" + where(path));
        }
      }
      auto ap = s->find("additionalProperties");
      bool closed = (ap != s->end() && ap->is_boolean() && !ap->get<bool>()) ||
                    (s->contains("unevaluatedProperties") && (*s)["unevaluatedProperties"] == json(false));
      if (closed) {
        json o = value;
        o["zz_ctxo_unknown"] = 1;
        add(path, o, "unknown property 'zz_ctxo_unknown'" + where(path));
      }
      if (auto it = s->find("properties"); it != s->end() && it->is_object()) {
        for (const auto& [k, sub] : it->items()) {
          if (value.contains(k)) walk(sub, value[k], path + "/" + profile::escape_pointer_token(k), depth + 1);
        }
      }
    }
  }

 private:
  void add(const std::string& path, const json& v, std::string label) {
    sites.push_back({path, v, std::move(label)});
  }

  const json& root_;
};

}  // namespace

rc::Gen<InvalidCase> invalid_value(const json& schema, const json& root, const GenOptions& options) {
  const bool at_root = (&schema == &root || schema == root);
  std::shared_ptr<const profile::SchemaValidator> validator = at_root ? options.root_validator : nullptr;
  if (!validator) {
    std::optional<json> graft;
    if (!at_root) {
      graft = root.is_object() ? root : json::object();
      (*graft)["$ctxo-target"] = schema;
      (*graft)["$ref"] = "#/$ctxo-target";
    }
    if (auto r = profile::SchemaValidator::compile(graft ? *graft : root))
      validator = std::make_shared<const profile::SchemaValidator>(std::move(*r));
  }
  // Shared, not captured by value: RapidCheck copies a mapcat's mapper on every draw. At the root
  // the schema and the root are one copy.
  auto rootc = shared_root(root, options);
  auto sub = at_root ? rootc : std::make_shared<const json>(schema);
  rc::Gen<InvalidCase> g = rc::gen::mapcat(valid_value(schema, root, options), [sub, rootc](const json& v) {
    Breaker b(*rootc);
    b.walk(*sub, v, "", 0);
    if (b.sites.empty()) return rc::gen::just(InvalidCase{v, ""});
    auto sites = std::make_shared<const std::vector<Site>>(std::move(b.sites));
    auto value = std::make_shared<const json>(v);
    return rc::gen::map(any_in<std::size_t>(0, sites->size() - 1, 0), [sites, value](std::size_t i) {
      const Site& s = (*sites)[i];
      return InvalidCase{replaced(*value, s.path, s.value), s.label};
    });
  });
  return such_that(g, [validator](const InvalidCase& c) {
    return !c.label.empty() && validator && !validator->is_valid(c.value);
  });
}

bool admits_invalid(const json& schema, const json& root, const GenOptions& options) {
  auto g = invalid_value(schema, root, options);
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    try {
      (void)g(rc::Random(seed), 30).value();
      return true;
    } catch (const rc::GenerationFailure&) {
    }
  }
  return false;
}

// ---- boundary phase -----------------------------------------------------------------------

namespace {

std::vector<std::pair<json, std::string>> boundary_values(const json& s, const json& root, const GenOptions& o) {
  std::vector<std::pair<json, std::string>> out;
  const json* p = deref(s, root);
  if (p == nullptr || !p->is_object()) return out;
  const json& x = *p;
  if (x.contains("const")) out.emplace_back(x["const"], "const");
  if (auto it = x.find("enum"); it != x.end() && it->is_array()) {
    for (const auto& v : enum_sample(*it)) out.emplace_back(v, "enum value " + excerpt_of(v));
  }
  if (x.contains("default") && sendable(x["default"], o)) out.emplace_back(x["default"], "default");
  for (const char* key : {"anyOf", "oneOf"}) {
    if (auto it = x.find(key); it != x.end() && it->is_array()) {
      for (const auto& b : *it) {
        for (auto& v : boundary_values(b, root, o)) out.push_back(std::move(v));
      }
    }
  }
  std::vector<std::string> types = type_list(x);
  auto has = [&](const char* t) { return std::find(types.begin(), types.end(), t) != types.end(); };
  if (has("null")) out.emplace_back(json(nullptr), "null");
  if (has("boolean")) {
    out.emplace_back(json(false), "false");
    out.emplace_back(json(true), "true");
  }
  if (has("integer") || has("number")) {
    bool integer = has("integer") && !has("number");
    auto num = [integer](double d) { return integer ? json(static_cast<std::int64_t>(d)) : number_json(d); };
    auto put = [&](double v, const std::string& what) {
      if (std::isfinite(v) && std::fabs(v) <= static_cast<double>(kSafe)) out.emplace_back(num(v), what);
    };
    if (auto m = number_at(x, "minimum")) {
      put(*m, "minimum");
      put(*m + 1, "minimum+1");
    }
    if (auto m = number_at(x, "maximum")) {
      put(*m, "maximum");
      put(*m - 1, "maximum-1");
    }
    if (auto m = number_at(x, "exclusiveMinimum")) {
      put(*m + 1, "exclusiveMinimum+1");
      if (!integer) put(std::nextafter(*m, HUGE_VAL), "just above exclusiveMinimum");
    }
    if (auto m = number_at(x, "exclusiveMaximum")) {
      put(*m - 1, "exclusiveMaximum-1");
      if (!integer) put(std::nextafter(*m, -HUGE_VAL), "just below exclusiveMaximum");
    }
    put(0, "zero");
    put(-1, "-1");
  }
  // Padding strings ("", "aaa") are no value of a format ("uri", "email", ...): the random phase
  // gives these strings formatted values and their edges.
  if (has("string") && !(x.contains("format") && x["format"].is_string() &&
                         Builder::writes_format(x["format"].get<std::string>()))) {
    std::size_t lo = size_at(x, "minLength").value_or(0);
    if (lo < kMaxGenLength) {
      out.emplace_back(json(std::string(lo, 'a')), lo == 0 ? "empty string" : "minLength string");
      out.emplace_back(json(std::string(lo + 1, 'a')), "minLength+1 string");
    }
    if (auto m = size_at(x, "maxLength"); m && *m <= kMaxGenLength) {
      out.emplace_back(json(std::string(*m, 'a')), "maxLength string");
      if (*m > 0) out.emplace_back(json(std::string(*m - 1, 'a')), "maxLength-1 string");
    }
  }
  if (has("array")) {
    std::size_t lo = size_at(x, "minItems").value_or(0);
    if (lo == 0) out.emplace_back(json::array(), "empty array");
  }
  return out;
}

// Values quoted in a description ("e.g. 'src/main.ts'", "like \"foo\"", "`main`"): at most 4.
std::vector<std::string> quoted_values(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size() && out.size() < 4; ++i) {
    const char q = text[i];
    if (q != '\'' && q != '"' && q != '`') continue;
    // An apostrophe inside a word ("don't") opens nothing.
    if (q == '\'' && i > 0 && std::isalnum(static_cast<unsigned char>(text[i - 1]))) continue;
    const std::size_t end = text.find(q, i + 1);
    if (end == std::string::npos) break;
    const std::string inner = text.substr(i + 1, end - i - 1);
    if (!inner.empty() && inner.size() <= 200 && inner.find('\n') == std::string::npos &&
        std::find(out.begin(), out.end(), inner) == out.end())
      out.push_back(inner);
    i = end;
  }
  return out;
}

// What a property's schema suggests sending (examples, example, default, const, enum, values
// quoted in its description), in that order, local values only, at most 8.
std::vector<std::pair<json, std::string>> hint_values(const json& s, const json& root, const GenOptions& o) {
  std::vector<std::pair<json, std::string>> out;
  const json* p = deref(s, root);
  if (p == nullptr || !p->is_object()) return out;
  const json& x = *p;
  auto add = [&](const json& v, std::string what) {
    if (out.size() < 8 && sendable(v, o)) out.emplace_back(v, std::move(what));
  };
  if (auto it = x.find("examples"); it != x.end() && it->is_array())
    for (const auto& v : *it) add(v, "example " + excerpt_of(v));
  if (auto it = x.find("example"); it != x.end()) add(*it, "example " + excerpt_of(*it));
  if (x.contains("default")) add(x["default"], "default");
  if (x.contains("const")) add(x["const"], "const");
  if (auto it = x.find("enum"); it != x.end() && it->is_array() && !it->empty()) add(it->front(), "enum value " + excerpt_of(it->front()));
  std::vector<std::string> types = type_list(x);
  const bool stringy = types.empty() || std::find(types.begin(), types.end(), "string") != types.end();
  if (stringy && x.contains("description") && x["description"].is_string())
    for (const auto& q : quoted_values(x["description"].get<std::string>())) add(json(q), "value from its description " + excerpt_of(json(q)));
  return out;
}

// Boundary values of an object property `value` (its typical value) with schema s: each
// property's boundary values in turn, the others as they are, two levels down at most. Labels
// name the property's path from `path` ("'options.limit' maximum").
void nested_boundaries(const json& s, const json& root, const json& value, const std::string& path, int depth,
                       const GenOptions& o, std::vector<std::pair<json, std::string>>* out) {
  const json* p = deref(s, root);
  if (p == nullptr || !p->is_object() || !value.is_object()) return;
  auto props = p->find("properties");
  if (props == p->end() || !props->is_object()) return;
  for (const auto& [k, sub] : props->items()) {
    const std::string at = path + "." + k;
    for (auto& [v, what] : boundary_values(sub, root, o)) {
      json w = value;
      w[k] = std::move(v);
      out->emplace_back(std::move(w), "'" + at + "' " + what);
    }
    if (depth < 2 && value.contains(k)) {
      std::vector<std::pair<json, std::string>> inner;
      nested_boundaries(sub, root, value[k], at, depth + 1, o, &inner);
      for (auto& [v, what] : inner) {
        json w = value;
        w[k] = std::move(v);
        out->emplace_back(std::move(w), std::move(what));
      }
    }
  }
}

// A plain value for the boundary phase's base call: no edge bias, and not an empty string or
// array when a few seeds give something else. `shared_root`: the caller's shared copy of `root`
// (GenOptions::root_schema), used instead of a copy of its own.
json typical(const json& schema, const json& root, std::uint64_t seed, std::shared_ptr<const json> shared_root) {
  GenOptions o;
  o.edge_bias = false;
  o.root_schema = std::move(shared_root);
  json first = absent();
  const rc::Gen<json> gen = valid_value(schema, root, o);  // built once: it shares or copies the root
  for (std::uint64_t k = 0; k < 6; ++k) {
    try {
      json v = gen(rc::Random(seed * 7919 + k), 30).value();
      if (first.is_discarded()) first = v;
      bool empty = (v.is_string() && v.get<std::string>().empty()) || (v.is_array() && v.empty());
      if (!empty) return v;
    } catch (const rc::GenerationFailure&) {
    }
  }
  return first;
}

}  // namespace

std::vector<CallCase> boundary_cases(const json& schema, const GenOptions& options) {
  std::vector<CallCase> out;
  if (!schema.is_object()) return out;
  std::shared_ptr<const profile::SchemaValidator> validator = options.root_validator;
  if (!validator)
    if (auto r = profile::SchemaValidator::compile(schema)) validator = std::make_shared<const profile::SchemaValidator>(std::move(*r));
  std::map<std::string, std::size_t> seen;  // arguments text -> index in out
  auto push = [&](const json& args, const std::string& label) {
    if (!args.is_object()) return;
    if (validator && !validator->is_valid(args)) return;
    auto [it, fresh] = seen.emplace(args.dump(), out.size());
    if (fresh) {
      out.push_back({args, label});
    } else {
      std::string& said = out[it->second].label;  // one call, every reason it is a boundary
      if (("; " + said + "; ").find("; " + label + "; ") == std::string::npos) said += "; " + label;
    }
  };
  static const json kNoProperties = json::object();
  const auto props_it = schema.find("properties");
  const json& props = props_it != schema.end() && props_it->is_object() ? *props_it : kNoProperties;  // not copied
  std::set<std::string> required;
  if (auto it = schema.find("required"); it != schema.end() && it->is_array()) {
    for (const auto& r : *it)
      if (r.is_string()) required.insert(r.get<std::string>());
  }
  // Base: every required property at a typical value (deterministic: fixed seeds).
  json base = json::object();
  json full = json::object();
  std::uint64_t seed = 1;
  std::map<std::string, json> typical_of;
  for (const auto& [k, sub] : props.items()) {
    json v = typical(sub, schema, seed++, options.root_schema);
    if (v.is_discarded()) continue;
    typical_of[k] = v;
    full[k] = v;
    if (required.count(k)) base[k] = v;
  }
  // Schema hints first: every hinted property at its first hint, then each hint on its own.
  std::map<std::string, std::vector<std::pair<json, std::string>>> hints;
  for (const auto& [k, sub] : props.items())
    if (auto h = hint_values(sub, schema, options); !h.empty()) hints.emplace(k, std::move(h));
  if (!hints.empty()) {
    json hinted = base;
    for (const auto& [k, h] : hints) {
      json trial = hinted;
      trial[k] = h.front().first;
      if (!validator || validator->is_valid(trial)) hinted = std::move(trial);
    }
    push(hinted, "schema hints");
    for (const auto& [k, h] : hints)
      for (const auto& [v, what] : h) {
        json a = base;
        a[k] = v;
        push(a, "'" + k + "' " + what);
      }
  }
  push(base, "required only");
  push(full, "all properties");
  for (const auto& [k, v] : typical_of) {
    if (required.count(k) == 0) {
      json a = base;
      a[k] = v;
      push(a, "optional '" + k + "' present");
    }
  }
  for (const auto& [k, sub] : props.items()) {
    for (const auto& [v, what] : boundary_values(sub, schema, options)) {
      json a = base;
      a[k] = v;
      push(a, "'" + k + "' " + what);
    }
  }
  // Then inside object properties (at their typical value), after every top-level case.
  for (const auto& [k, v] : typical_of) {
    std::vector<std::pair<json, std::string>> inner;
    nested_boundaries(props[k], schema, v, k, 1, options, &inner);
    for (const auto& [o, what] : inner) {
      json a = base;
      a[k] = o;
      push(a, what);
    }
  }
  return out;
}

}  // namespace ctxo::gen
