// SPDX-License-Identifier: MIT
#include "gen/simple.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <regex>
#include <set>

#include "core/text.h"
#include "profile/schema_validator.h"

namespace ctxo::gen {

namespace {

// A size keyword read without trusting it: absent or not a number -> `fallback`, negative -> 0,
// above `cap` (1e300, 2^64-1) -> `cap`. The values made here are small by design.
std::size_t size_of(const json& s, const char* key, std::size_t fallback, std::size_t cap = 16 * 1024) {
  auto it = s.find(key);
  if (it == s.end() || !it->is_number()) return fallback;
  const double d = it->get<double>();
  if (!(d > 0)) return 0;
  return d >= static_cast<double>(cap) ? cap : static_cast<std::size_t>(d);
}

constexpr int kMaxDepth = 8;

enum class Bound { kTypical, kLow, kHigh };

Bound bound_of(std::size_t variant) {
  switch (variant % 3) {
    case 1: return Bound::kLow;
    case 2: return Bound::kHigh;
    default: return Bound::kTypical;
  }
}

const json* resolve_ref(const json& schema, const json& root) {
  if (!schema.is_object() || !schema.contains("$ref") || !schema["$ref"].is_string()) return &schema;
  std::string ref = schema["$ref"].get<std::string>();
  if (ref.rfind("#", 0) != 0) return &schema;
  std::string ptr = ref.substr(1);
  try {
    const json& target = root.at(json::json_pointer(ptr));
    return &target;
  } catch (...) {
    return nullptr;
  }
}

std::string pick_type(const json& s) {
  if (s.contains("type")) {
    const json& t = s["type"];
    if (t.is_string()) return t.get<std::string>();
    if (t.is_array()) {
      for (const auto& x : t)
        if (x.is_string() && x != "null") return x.get<std::string>();
      if (!t.empty() && t[0].is_string()) return t[0].get<std::string>();
    }
  }
  if (s.contains("properties") || s.contains("required") || s.contains("additionalProperties")) return "object";
  if (s.contains("items") || s.contains("prefixItems") || s.contains("minItems")) return "array";
  if (s.contains("minLength") || s.contains("maxLength") || s.contains("pattern") || s.contains("format"))
    return "string";
  if (s.contains("minimum") || s.contains("maximum") || s.contains("exclusiveMinimum") ||
      s.contains("exclusiveMaximum") || s.contains("multipleOf"))
    return "number";
  return "string";
}

const std::vector<std::string>& sample_strings() {
  static const std::vector<std::string> v = {"hello", "a", "ünïcödé 漢字 😀", "test value", "x_1", "مرحبا"};
  return v;
}

std::string format_value(const std::string& fmt) {
  if (fmt == "date-time") return "2024-01-02T03:04:05Z";
  if (fmt == "date") return "2024-01-02";
  if (fmt == "time") return "03:04:05Z";
  // Never a real host: a server that fetches what it is given must only reach a closed loopback port.
  if (fmt == "uri" || fmt == "url" || fmt == "iri") return "http://127.0.0.1:9/ctxo-conform";
  if (fmt == "uri-reference") return "/a/b";
  if (fmt == "email" || fmt == "idn-email") return "user@example.invalid";
  if (fmt == "uuid") return "123e4567-e89b-12d3-a456-426614174000";
  if (fmt == "ipv4") return "127.0.0.1";
  if (fmt == "ipv6") return "::1";
  if (fmt == "hostname") return "localhost";
  return "";
}

std::size_t utf8_chars(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

json string_value(const json& s, std::size_t variant, std::uint64_t seed, bool remote) {
  const std::size_t min_len = size_of(s, "minLength", 0);
  const std::size_t max_len = size_of(s, "maxLength", std::numeric_limits<std::size_t>::max(),
                                      std::numeric_limits<std::size_t>::max());
  if (s.contains("format") && s["format"].is_string()) {
    auto v = format_value(s["format"].get<std::string>());
    if (!v.empty()) return v;
  }
  std::vector<std::string> candidates;
  if (s.contains("examples") && s["examples"].is_array())
    for (const auto& e : s["examples"])
      if (e.is_string() && (remote || stays_local(e))) candidates.push_back(e.get<std::string>());
  if (s.contains("default") && s["default"].is_string() && (remote || stays_local(s["default"])))
    candidates.push_back(s["default"].get<std::string>());
  Bound b = bound_of(variant);
  const auto& samples = sample_strings();
  if (b == Bound::kLow) candidates.push_back(std::string(std::max<std::size_t>(min_len, 1), 'a'));
  if (b == Bound::kHigh && max_len < 4096) candidates.push_back(std::string(max_len, 'z'));
  candidates.push_back(samples[(variant + seed) % samples.size()]);
  for (const auto& smp : samples) candidates.push_back(smp);
  for (const char* extra : {"abc", "123", "a-b", "A1"}) candidates.push_back(extra);
  std::optional<std::regex> re;
  if (s.contains("pattern") && s["pattern"].is_string() && !profile::pattern_problem(s["pattern"].get<std::string>())) {
    try {
      re.emplace(s["pattern"].get<std::string>(), std::regex::ECMAScript);
    } catch (...) {
      re.reset();
    }
  }
  for (auto c : candidates) {
    std::size_t len = utf8_chars(c);
    if (len < min_len) c += std::string(min_len - len, 'a');
    if (utf8_chars(c) > max_len) continue;
    if (re && c.size() <= profile::kMaxPatternSubject) {
      try {
        if (!std::regex_search(c, *re)) continue;
      } catch (...) {
        continue;
      }
    }
    return c;
  }
  return std::string(std::max<std::size_t>(min_len, 1), 'a');
}

json number_value(const json& s, bool integer, std::size_t variant) {
  double lo = -1e9, hi = 1e9;
  bool has_lo = false, has_hi = false;
  double step = integer ? 1 : 0.5;
  if (s.contains("minimum") && s["minimum"].is_number()) lo = s["minimum"].get<double>(), has_lo = true;
  if (s.contains("maximum") && s["maximum"].is_number()) hi = s["maximum"].get<double>(), has_hi = true;
  if (s.contains("exclusiveMinimum")) {
    if (s["exclusiveMinimum"].is_number()) {
      double e = s["exclusiveMinimum"].get<double>() + (integer ? 1 : 0.5);
      if (!has_lo || e > lo) lo = e;
      has_lo = true;
    } else if (s["exclusiveMinimum"] == true && has_lo) {
      lo += step;
    }
  }
  if (s.contains("exclusiveMaximum")) {
    if (s["exclusiveMaximum"].is_number()) {
      double e = s["exclusiveMaximum"].get<double>() - (integer ? 1 : 0.5);
      if (!has_hi || e < hi) hi = e;
      has_hi = true;
    } else if (s["exclusiveMaximum"] == true && has_hi) {
      hi -= step;
    }
  }
  if (integer) {
    lo = std::ceil(lo);
    hi = std::floor(hi);
  }
  double v;
  switch (bound_of(variant)) {
    case Bound::kLow: v = has_lo ? lo : (has_hi ? std::min(hi, 0.0) : 0); break;
    case Bound::kHigh: v = has_hi ? hi : (has_lo ? lo + 100 : 100); break;
    default: {
      double typical = integer ? 1 : 1.5;
      v = std::clamp(typical, lo, std::max(lo, hi));
      if (s.contains("default") && s["default"].is_number()) v = s["default"].get<double>();
    }
  }
  if (s.contains("multipleOf") && s["multipleOf"].is_number()) {
    double m = s["multipleOf"].get<double>();
    if (m > 0) {
      double k = std::ceil(v / m);
      v = k * m;
      if (v > hi) v = std::floor(hi / m) * m;
    }
  }
  if (integer) {
    if (v >= 9.2e18 || v <= -9.2e18) v = v > 0 ? 9007199254740991.0 : -9007199254740991.0;
    return static_cast<std::int64_t>(v);
  }
  return v;
}

json value_for(const json& schema_in, const json& root, std::size_t variant, std::uint64_t seed, int depth,
               bool remote) {
  if (depth > kMaxDepth) return nullptr;
  const json* sp = resolve_ref(schema_in, root);
  if (!sp || !sp->is_object()) return sp && *sp == false ? json(nullptr) : json("value");
  const json& s = *sp;
  if (s.contains("const")) return s["const"];
  if (s.contains("enum") && s["enum"].is_array() && !s["enum"].empty())
    return s["enum"][(variant + (variant >= 3 ? seed : 0)) % s["enum"].size()];
  for (const char* key : {"anyOf", "oneOf"}) {
    if (s.contains(key) && s[key].is_array() && !s[key].empty()) {
      const json& alts = s[key];
      // Prefer a non-null branch on the first variants: "absent" is covered by optionality.
      std::vector<std::size_t> order;
      for (std::size_t i = 0; i < alts.size(); ++i)
        if (!(alts[i].is_object() && alts[i].value("type", json()) == "null")) order.push_back(i);
      if (order.empty()) order.push_back(0);
      json merged = alts[order[(variant / 3) % order.size()]];
      // Sibling keywords (e.g. "properties" beside "anyOf") still apply.
      if (merged.is_object())
        for (auto it = s.begin(); it != s.end(); ++it)
          if (it.key() != key && !merged.contains(it.key())) merged[it.key()] = it.value();
      return value_for(merged, root, variant, seed, depth + 1, remote);
    }
  }
  if (s.contains("allOf") && s["allOf"].is_array()) {
    json merged = json::object();
    for (auto it = s.begin(); it != s.end(); ++it)
      if (it.key() != "allOf") merged[it.key()] = it.value();
    for (const auto& part_in : s["allOf"]) {
      const json* part = resolve_ref(part_in, root);
      if (!part || !part->is_object()) continue;
      for (auto it = part->begin(); it != part->end(); ++it) {
        if (it.key() == "properties" && merged.contains("properties")) merged["properties"].update(it.value());
        else if (it.key() == "required" && merged.contains("required"))
          for (const auto& r : it.value()) merged["required"].push_back(r);
        else merged[it.key()] = it.value();
      }
    }
    return value_for(merged, root, variant, seed, depth + 1, remote);
  }
  if (variant == 0 && s.contains("default") && (remote || stays_local(s["default"]))) return s["default"];
  const std::string type = pick_type(s);
  if (type == "string") return string_value(s, variant, seed, remote);
  if (type == "integer") return number_value(s, true, variant);
  if (type == "number") return number_value(s, false, variant);
  if (type == "boolean") return variant % 2 == 1;
  if (type == "null") return nullptr;
  if (type == "array") {
    const std::size_t min_items = size_of(s, "minItems", 0, 1024);
    const std::size_t max_items = size_of(s, "maxItems", 1000, 1024);
    std::size_t count = std::max<std::size_t>(min_items, bound_of(variant) == Bound::kLow ? 0 : 1);
    count = std::min(count, max_items);
    json out = json::array();
    const json* prefix = nullptr;
    if (s.contains("prefixItems") && s["prefixItems"].is_array()) prefix = &s["prefixItems"];
    else if (s.contains("items") && s["items"].is_array()) prefix = &s["items"];
    if (prefix) count = std::max(count, std::min(prefix->size(), max_items));
    for (std::size_t i = 0; i < count; ++i) {
      json item_schema = json::object();
      if (prefix && i < prefix->size()) item_schema = (*prefix)[i];
      else if (s.contains("items") && s["items"].is_object()) item_schema = s["items"];
      else if (s.contains("additionalItems") && s["additionalItems"].is_object()) item_schema = s["additionalItems"];
      out.push_back(value_for(item_schema, root, variant + i, seed, depth + 1, remote));
    }
    return out;
  }
  if (type == "object") {
    json out = json::object();
    std::vector<std::string> required;
    if (s.contains("required") && s["required"].is_array())
      for (const auto& r : s["required"])
        if (r.is_string()) required.push_back(r.get<std::string>());
    bool all = variant % 3 != 0;
    if (s.contains("properties") && s["properties"].is_object()) {
      for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it) {
        bool req = std::find(required.begin(), required.end(), it.key()) != required.end();
        if (req || all) out[it.key()] = value_for(it.value(), root, variant, seed, depth + 1, remote);
      }
    }
    for (const auto& r : required) {
      if (out.contains(r)) continue;
      json sub = json::object();
      if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) sub = s["additionalProperties"];
      out[r] = value_for(sub, root, variant, seed, depth + 1, remote);
    }
    return out;
  }
  return "value";
}

}  // namespace

json simple_value(const json& schema, const json& root, std::size_t variant, std::uint64_t seed, bool remote_urls) {
  return value_for(schema, root, variant, seed, 0, remote_urls);
}

bool identifier_like(const std::string& p) {
  std::string l;
  for (char c : p) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto ends = [&](const char* suf) {
    std::string s(suf);
    return l.size() >= s.size() && l.compare(l.size() - s.size(), s.size(), s) == 0;
  };
  auto starts = [&](const char* pre) { return l.rfind(pre, 0) == 0; };
  return l == "id" || l == "name" || l == "file" || l == "path" || l == "uri" || ends("id") || ends("_id") ||
         starts("symbol") || starts("node") || ends("file") || ends("path") || ends("filepath") || l == "filename";
}

namespace {
bool local_url(const std::string& s) {
  const std::size_t scheme = s.find("://");
  if (scheme == std::string::npos || s.rfind("file://", 0) == 0) return true;
  std::string host = s.substr(scheme + 3);
  host = host.substr(0, host.find_first_of("/?#"));
  if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  if (!host.empty() && host[0] == '[') host = host.substr(0, host.find(']') + 1);
  else host = host.substr(0, host.find(':'));
  for (auto& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return host == "localhost" || host == "127.0.0.1" || host == "[::1]";
}
}  // namespace

bool stays_local(const json& v) {
  std::vector<const json*> todo{&v};  // iterative: a default can be nested as deep as the schema
  while (!todo.empty()) {
    const json* x = todo.back();
    todo.pop_back();
    if (x->is_string() && !local_url(x->get_ref<const std::string&>())) return false;
    if (x->is_structured())
      for (const auto& e : *x) todo.push_back(&e);
  }
  return true;
}

namespace {
// `v` with every URL to a host other than loopback pointed at the closed port instead (its scheme
// kept).
json localised(const json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (local_url(s)) return v;
    return s.substr(0, s.find("://")) + "://127.0.0.1:9/ctxo-conform";
  }
  if (!v.is_structured()) return v;
  json out = v;
  for (auto& e : out) e = localised(e);
  return out;
}

void pin_local(const json& schema, const json& root, json& args, const std::string& path, int depth,
               std::vector<std::string>* pinned) {
  const json* sp = resolve_ref(schema, root);
  if (sp == nullptr || !sp->is_object() || !args.is_object() || depth > kMaxDepth) return;
  auto props = sp->find("properties");
  if (props == sp->end() || !props->is_object()) return;
  std::set<std::string> required;
  if (auto r = sp->find("required"); r != sp->end() && r->is_array())
    for (const auto& k : *r)
      if (k.is_string()) required.insert(k.get<std::string>());
  for (auto it = props->begin(); it != props->end(); ++it) {
    const json* ps = resolve_ref(it.value(), root);
    if (ps == nullptr || !ps->is_object()) continue;
    if (auto a = args.find(it.key()); a != args.end()) {
      if (a->is_object()) pin_local(*ps, root, *a, path + it.key() + ".", depth + 1, pinned);
      continue;
    }
    auto d = ps->find("default");
    if (d == ps->end() || required.count(it.key()) || stays_local(*d)) continue;
    args[it.key()] = localised(*d);
    if (pinned) pinned->push_back("'" + path + it.key() + "' (default " + excerpt(d->dump(), 60) + ")");
  }
}
}  // namespace

bool pin_local_defaults(const json& input_schema, json& args, std::vector<std::string>* pinned) {
  std::vector<std::string> found;
  pin_local(input_schema, input_schema, args, "", 0, &found);
  const bool any = !found.empty();
  if (pinned) *pinned = std::move(found);
  return any;
}

std::optional<json> absent_lookup(const json& input_schema, std::uint64_t seed, bool remote_urls) {
  if (!input_schema.is_object() || !input_schema.contains("properties") || !input_schema["properties"].is_object())
    return std::nullopt;
  json args = simple_value(input_schema, input_schema, 0, seed, remote_urls);
  if (!args.is_object()) return std::nullopt;
  bool any = false;
  for (auto it = input_schema["properties"].begin(); it != input_schema["properties"].end(); ++it) {
    const json* ps = resolve_ref(it.value(), input_schema);
    if (!ps || !ps->is_object() || !identifier_like(it.key())) continue;
    if (ps->contains("enum") || ps->contains("const") || ps->contains("format")) continue;
    if (pick_type(*ps) != "string") continue;
    std::string l = it.key();
    for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool pathish = l.find("file") != std::string::npos || l.find("path") != std::string::npos;
    args[it.key()] = pathish ? "no/such/ctxo-conform-absent.txt" : "ctxo-conform-absent-7f3a";
    any = true;
  }
  if (!any) return std::nullopt;
  return args;
}

}  // namespace ctxo::gen
