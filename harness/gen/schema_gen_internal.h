// SPDX-License-Identifier: MIT
// Internal to the schema generator (schema_gen*.cpp), not part of gen's API: the helpers its files
// share (limits, schema keyword readers, generator combinators), the per-schema context (Ctx:
// validators and patterns compiled once) and the Builder, whose members the files split by concern.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include "gen/schema_gen.h"
#include "profile/pattern_re2.h"
#include "profile/schema_validator.h"

namespace ctxo::gen::detail {

std::string excerpt_of(const json& v);

// A schema's `default` or example value may be sent as it is: it names no host but loopback, or
// the user allowed it (--allow-remote-urls). Else the tool's plan says so, once.
bool sendable(const json& v, const GenOptions& o);

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
std::vector<json> enum_sample(const json& values);

// s with its local $refs followed (at most 8), or nullptr when one does not resolve.
const json* deref(const json& s, const json& root);

Gen fail_gen(const std::string& why);

// A discarded json marks "optional property absent" inside object generators.
json absent();

// Picks one of `options` by weight; shrinks towards the first option.
Gen weighted(std::vector<std::pair<std::size_t, Gen>> options);

Gen one_of(const std::vector<Gen>& gens);

Gen element_of(const std::vector<json>& values);

std::string utf8(const std::vector<std::uint32_t>& cps);

bool unique_items(const json& a);

bool is_int_value(double d);

// A JSON number: integral values within +-2^53 as integers (3, not 3.0).
json number_json(double d);

std::optional<double> number_at(const json& s, const char* key);

std::optional<std::size_t> size_at(const json& s, const char* key);

std::vector<std::string> type_list(const json& s);

bool has_any(const json& s, std::initializer_list<const char*> keys);

// Keywords that say nothing about validity.
bool annotation(const std::string& k);

// Keywords generated only approximately: the node is filtered with its validator.
bool needs_filter(const json& s);

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

std::string child(const Ptr& p, const std::string& a);
Ptr child(const Ptr& p, const std::string& a, const std::string& b);
Ptr child1(const Ptr& p, const std::string& a);

struct Built {
  Gen gen;
  bool exact;  // false: may produce values the schema rejects; an ancestor with a pointer filters
};

// Walks a schema once and composes its generator. Its members are defined by concern:
// schema_gen.cpp (the walk: refs, enums, unions, allOf merged), schema_gen_scalars.cpp (numbers,
// strings and formats), schema_gen_compound.cpp (arrays, objects and any value).
class Builder {
 public:
  explicit Builder(std::shared_ptr<Ctx> ctx) : ctx_(std::move(ctx)), opt_(ctx_->opt) {}

  // The generator for the subschema at `ptr`, filtered when it is not exact.
  Gen at(const std::string& ptr, int depth);

  Built build(const json& s, const Ptr& ptr, int depth);

  // True for a string format the generator writes values of (valijson does not check formats,
  // so a call's validity says nothing about them).
  static bool writes_format(const std::string& f) { return format_gen(f).has_value(); }

 private:
  // ---- the walk (schema_gen.cpp) ----
  Built finish(Built b, const Ptr& ptr);
  Built ref(const json& s, const std::string& ref, const Ptr& ptr, int depth);
  Built body(const json& s, const Ptr& ptr, int depth);
  Built typed(const json& s, const std::string& t, const Ptr& ptr, int depth);
  Built enum_gen(const json& values, const json& s, const Ptr& ptr);
  Built union_gen(const json& s, const char* key, const Ptr& ptr, int depth);
  json merge_all_of(const json& s);
  static void merge_key(json& out, const std::string& k, const json& v);

  // ---- scalars (schema_gen_scalars.cpp) ----
  struct Bounds {
    double lo = -static_cast<double>(kSafe);
    double hi = static_cast<double>(kSafe);
    bool lo_open = false;
    bool hi_open = false;
  };

  static Bounds bounds(const json& s);
  Built integer_gen(const json& s);
  Built number_gen(const json& s);
  static std::pair<std::uint32_t, std::uint32_t> edge_code_point(std::uint64_t x);
  static rc::Gen<std::uint32_t> edge_char();
  static Gen chars_gen(std::size_t lo, std::size_t hi, bool edges);
  Built string_gen(const json& s);
  static Gen digits(int lo, int hi, int width);
  static Gen cat(const std::vector<Gen>& parts);
  static Gen lit(const std::string& s);
  static Gen word(std::size_t lo, std::size_t hi);
  static Gen hex(std::size_t n);
  static std::optional<Gen> format_gen(const std::string& f);

  // ---- arrays and objects (schema_gen_compound.cpp) ----
  Built array_gen(const json& s, const Ptr& ptr, int depth);
  Built object_gen(const json& s, const Ptr& ptr, int depth);
  Gen any_gen(int depth) const;

  std::shared_ptr<Ctx> ctx_;
  GenOptions& opt_;
};

/// The shared copy of `root`: the options' root_schema when it is that document, else a new copy.
std::shared_ptr<const json> shared_root(const json& root, const GenOptions& options);

}  // namespace ctxo::gen::detail
