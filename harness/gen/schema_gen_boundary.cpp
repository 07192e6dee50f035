// SPDX-License-Identifier: MIT
// The deterministic boundary phase (boundary_cases): a base call of typical values, the schema's
// hints (examples, default, const, enum, values quoted in descriptions), then each property at its
// bounds (minimum, maximum, lengths, enum values, null, booleans), nested objects two levels down.
#include "gen/schema_gen.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "gen/schema_gen_internal.h"
#include "profile/schema_validator.h"

namespace ctxo::gen {

using namespace detail;

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

// Whether the clause around text[from, to) (up to a '.', ';', '!', '?', a line break or a
// bracket on either side) forbids: `Must not start with "-"`, "never 'master'", "'..' is rejected".
// A value quoted there is a counter-example, not one to send.
bool in_prohibition(const std::string& text, std::size_t from, std::size_t to) {
  const auto stop = [](char c) { return c == '.' || c == ';' || c == '!' || c == '?' || c == '\n' || c == '(' || c == ')'; };
  std::size_t b = from, e = to;
  while (b > 0 && !stop(text[b - 1])) --b;
  while (e < text.size() && !stop(text[e])) ++e;
  std::string clause = text.substr(b, e - b);
  for (char& c : clause) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* w : {"must not", "mustn't", "never", "cannot", "can't", "do not", "don't",
                        "should not", "shouldn't", "not allowed", "disallowed", "forbidden", "rejected", "invalid",
                        "not permitted", "may not"})
    if (clause.find(w) != std::string::npos) return true;
  return false;
}

// Values quoted in a description ("e.g. 'src/main.ts'", "like \"foo\"", "`main`"): at most 4.
// One quoted in a prohibition (in_prohibition) is left out.
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
        std::find(out.begin(), out.end(), inner) == out.end() && !in_prohibition(text, i, end + 1))
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
