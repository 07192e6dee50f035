// SPDX-License-Identifier: MIT
// Invalid values (invalid_value, admits_invalid): a valid value drawn, then one thing in it broken
// where its schema says (a wrong type, out of range, too long, a missing required property, an
// unknown property of a closed object...), each labelled and checked with the validator.
#include "gen/schema_gen.h"

#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>

#include "gen/rc_util.h"
#include "gen/schema_gen_internal.h"
#include "profile/schema_validator.h"

namespace ctxo::gen {

using namespace detail;

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

}  // namespace ctxo::gen
