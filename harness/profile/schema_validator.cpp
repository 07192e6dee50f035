// SPDX-License-Identifier: MIT
// SchemaValidator: the schema checks valijson needs before it compiles, large enums, and the
// calls into valijson. It throws on many malformed schemas (and recurses forever on cyclic $ref
// chains), so every call into it is guarded here and nowhere else. The JSON helpers declared
// beside it are in json_helpers.cpp; compile_re2 and pattern_problem in patterns.cpp.
#include "profile/schema_validator.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <optional>
#include <regex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <memory>
#include <set>
#include <unordered_map>

#include <re2/re2.h>

#include "profile/pattern_re2.h"

// valijson matches `pattern` and `patternProperties` with std::regex, whose backtracking is
// exponential in the subject for patterns such as ^(a+)+$: a server's outputSchema could stop a run
// for ever. valijson has no regex hook, so within this file (the only one that includes valijson:
// no other translation unit instantiates its templates) its `std::regex` is spelled
// `std::ctxo_regex`, a PatternRegex: RE2 (linear time, no backtracking) for every pattern RE2 can
// express, std::regex only for the rest (lookaround, backreferences...: the guarded path,
// pattern_problem() and kMaxPatternSubject). The names go in namespace std because valijson calls
// them qualified (std::regex_search).
namespace ctxo::profile::detail {

// What valijson knows as std::regex: RE2 when it can, else std::regex (which throws, as before,
// on what neither accepts).
class PatternRegex {
 public:
  PatternRegex(const std::string& pattern) : pattern_(pattern), re2_(compile_re2(pattern)) {  // NOLINT: implicit, as std::regex
    if (!re2_) std_ = std::make_shared<const std::regex>(pattern);
  }
  PatternRegex(const char* pattern) : PatternRegex(std::string(pattern)) {}  // NOLINT: implicit, as std::regex

  bool search(const std::string& s) const { return re2_ ? RE2::PartialMatch(s, *re2_) : std::regex_search(s, *std_); }
  bool match(const std::string& s) const { return re2_ ? RE2::FullMatch(s, *re2_) : std::regex_match(s, *std_); }
  // With submatches (valijson's date and date-time formats, fixed patterns): std::regex.
  bool match(const std::string& s, std::smatch& m) const {
    if (std_) return std::regex_match(s, m, *std_);
    const std::regex re(pattern_);
    return std::regex_match(s, m, re);
  }

 private:
  std::string pattern_;
  std::shared_ptr<const RE2> re2_;
  std::shared_ptr<const std::regex> std_;
};

}  // namespace ctxo::profile::detail

namespace std {  // NOLINT(cert-dcl58-cpp): valijson calls these qualified; see above
using ctxo_regex = ::ctxo::profile::detail::PatternRegex;
inline bool regex_search(const std::string& s, const ctxo_regex& r) { return r.search(s); }
inline bool regex_match(const std::string& s, const ctxo_regex& r) { return r.match(s); }
inline bool regex_match(const std::string& s, std::smatch& m, const ctxo_regex& r) { return r.match(s, m); }
}  // namespace std

#define regex ctxo_regex  // NOLINT(cppcoreguidelines-macro-usage): valijson's std::regex, see above
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/constraint_builder.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
#undef regex

namespace ctxo::profile {
namespace {

using nlohmann::json;

// Percent-decodes and unescapes one reference token the way valijson's json_pointer does, so that
// cycle detection follows exactly the references valijson would. nullopt where valijson throws.
std::optional<std::string> valijson_token(std::string token) {
  auto replace_all = [&token](std::string_view from, std::string_view to) {
    for (std::size_t pos = token.find(from); pos != std::string::npos; pos = token.find(from, pos + to.size()))
      token.replace(pos, from.size(), to);
  };
  replace_all("~1", "/");
  replace_all("~0", "~");
  for (std::size_t n = token.find('%'); n != std::string::npos; n = token.find('%', n + 1)) {
    std::string digits = token.substr(n + 1, 2);
    if (digits.size() != 2) return std::nullopt;
    char* end = nullptr;
    const unsigned long value = std::strtoul(digits.c_str(), &end, 16);
    if (end != digits.c_str() && *end != '\0') return std::nullopt;
    token.replace(n, 3, 1, static_cast<char>(value));
  }
  return token;
}

// Resolves a pointer with valijson's rules (empty tokens skipped, %-escapes, stoul indices).
const json* valijson_resolve(const json& root, const std::string& pointer) {
  const json* node = &root;
  std::size_t pos = 0;
  while (pos < pointer.size()) {
    if (pointer[pos] != '/') return nullptr;
    std::size_t next = pointer.find('/', pos + 1);
    if (next == std::string::npos) next = pointer.size();
    auto token = valijson_token(pointer.substr(pos + 1, next - pos - 1));
    pos = next;
    if (!token) return nullptr;
    if (token->empty()) continue;
    if (node->is_array()) {
      if (*token == "-") return nullptr;
      unsigned long index = 0;
      try {
        index = std::stoul(*token);
      } catch (...) {
        return nullptr;
      }
      if (index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else if (node->is_object()) {
      auto it = node->find(*token);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else {
      return nullptr;
    }
  }
  return node;
}

// The pointer part of a $ref as valijson keys it: after '#', trailing slashes trimmed. A reference
// without '#' names a whole document; it is treated as the root of this one, which can only make
// cycle detection more cautious (valijson itself refuses remote references).
std::string ref_pointer(const std::string& ref) {
  const std::size_t hash = ref.find('#');
  std::string p = hash == std::string::npos ? std::string() : ref.substr(hash + 1);
  p.erase(p.find_last_not_of('/') + 1);
  return p;
}

// Visits every object and array in `doc` without recursion.
template <typename F>
void for_each_node(const json& doc, F&& visit) {
  std::vector<const json*> stack{&doc};
  while (!stack.empty()) {
    const json* node = stack.back();
    stack.pop_back();
    if (!node->is_structured()) continue;
    visit(*node);
    for (const auto& child : *node) stack.push_back(&child);
  }
}

// A chain of objects whose only way forward is "$ref" loops forever in valijson (it caches a
// reference only once the chain reaches a concrete schema). Finds such a chain, if any.
std::optional<std::string> find_ref_cycle(const json& root) {
  std::unordered_set<const json*> terminating;
  std::optional<std::string> cycle;
  for_each_node(root, [&](const json& node) {
    if (cycle || !node.is_object()) return;
    std::vector<const json*> chain;
    std::unordered_set<const json*> seen;
    const json* cur = &node;
    while (cur->is_object() && !terminating.count(cur)) {
      auto it = cur->find("$ref");
      if (it == cur->end() || !it->is_string()) break;
      if (!seen.insert(cur).second) {
        cycle = it->get<std::string>();
        return;
      }
      chain.push_back(cur);
      const json* target = valijson_resolve(root, ref_pointer(it->get<std::string>()));
      if (target == nullptr) break;  // valijson reports the unresolvable reference itself
      cur = target;
    }
    terminating.insert(chain.begin(), chain.end());
  });
  return cycle;
}

// Checks every "pattern" string is a regex std::regex accepts, within our nesting limits.
std::optional<std::string> find_bad_pattern(const json& root) {
  std::optional<std::string> bad;
  auto check = [&bad](const std::string& re) {
    // RE2 runs in linear time whatever the pattern; std::regex only runs what RE2 cannot express.
    if (!bad && !compile_re2(re)) bad = pattern_problem(re);
  };
  for_each_node(root, [&](const json& node) {
    if (!node.is_object()) return;
    auto it = node.find("pattern");
    if (it != node.end() && it->is_string()) check(it->get<std::string>());
    auto pp = node.find("patternProperties");
    if (pp != node.end() && pp->is_object())
      for (const auto& item : pp->items()) check(item.key());
  });
  return bad;
}

// A multipleOf that is not a number above 0: the spec forbids it, and valijson divides by it (an
// integer division by zero is SIGFPE).
std::optional<std::string> find_bad_multiple_of(const json& root) {
  std::optional<std::string> bad;
  for_each_node(root, [&](const json& node) {
    if (bad || !node.is_object()) return;
    auto it = node.find("multipleOf");
    if (it == node.end()) return;
    if (!it->is_number() || !(it->get<double>() > 0) || !std::isfinite(it->get<double>()))
      bad = "multipleOf must be a number greater than 0, not " + it->dump();
  });
  return bad;
}

// The schema with every string-valued "pattern" and "format" keyword removed (valijson checks
// formats such as date-time with std::regex, too).
json without_patterns(const json& schema) {
  json copy = schema;
  std::vector<json*> stack{&copy};
  while (!stack.empty()) {
    json* node = stack.back();
    stack.pop_back();
    if (node->is_object()) {
      for (const char* keyword : {"pattern", "format"}) {
        auto it = node->find(keyword);
        if (it != node->end() && it->is_string()) node->erase(it);
      }
    }
    if (node->is_structured())
      for (auto& child : *node) stack.push_back(&child);
  }
  return copy;
}

// True when some object in `schema` has a string-valued "pattern" or "format" (what
// without_patterns removes).
bool names_pattern_or_format(const json& schema) {
  bool found = false;
  for_each_node(schema, [&](const json& node) {
    if (found || !node.is_object()) return;
    for (const char* keyword : {"pattern", "format"}) {
      auto it = node.find(keyword);
      if (it != node.end() && it->is_string()) found = true;
    }
  });
  return found;
}

bool has_long_string(const json& doc) {
  bool found = false;
  for_each_node(doc, [&](const json& node) {
    if (found) return;
    if (node.is_object()) {
      for (const auto& item : node.items())
        if (item.key().size() > kMaxPatternSubject ||
            (item.value().is_string() && item.value().get_ref<const std::string&>().size() > kMaxPatternSubject))
          found = true;
    } else {
      for (const auto& child : node)
        if (child.is_string() && child.get_ref<const std::string&>().size() > kMaxPatternSubject) found = true;
    }
  });
  return found || (doc.is_string() && doc.get_ref<const std::string&>().size() > kMaxPatternSubject);
}

valijson::SchemaParser::Version version_of(const json& schema) {
  if (schema.is_object()) {
    auto it = schema.find("$schema");
    if (it != schema.end() && it->is_string()) {
      const auto& uri = it->get_ref<const std::string&>();
      if (uri.find("draft-04") != std::string::npos) return valijson::SchemaParser::kDraft4;
      if (uri.find("draft-03") != std::string::npos) return valijson::SchemaParser::kDraft3;
    }
  }
  return valijson::SchemaParser::kDraft7;
}

// valijson context "<root>", "[key]", "[3]" -> JSON Pointer.
std::string context_to_pointer(const std::vector<std::string>& context) {
  std::string pointer;
  for (const auto& part : context) {
    if (part == "<root>") continue;
    std::string_view token = part;
    if (token.size() >= 2 && token.front() == '[' && token.back() == ']') token = token.substr(1, token.size() - 2);
    pointer += '/';
    pointer += escape_pointer_token(token);
  }
  return pointer;
}

// valijson reports a value rejected by a `false` subschema only on its parent ("Failed to validate
// against schema associated with property name 'x'."); adds the violation at the value itself.
void add_false_schema_violations(std::vector<Violation>& out) {
  const std::size_t n = out.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& msg = out[i].message;
    std::string child;
    static constexpr std::string_view kProperty = "Failed to validate against schema associated with property name '";
    static constexpr std::string_view kItem = "Failed to validate item #";
    if (msg.rfind(kProperty, 0) == 0 && msg.size() >= kProperty.size() + 2) {
      child = out[i].pointer + "/" +
              escape_pointer_token(std::string_view(msg).substr(kProperty.size(), msg.size() - kProperty.size() - 2));
    } else if (msg.rfind(kItem, 0) == 0) {
      // "... against corresponding item schema." is already reported at the item itself.
      if (msg.find("corresponding item schema") != std::string::npos) continue;
      const std::size_t end = msg.find_first_not_of("0123456789", kItem.size());
      if (end == kItem.size()) continue;
      child = out[i].pointer + "/" + msg.substr(kItem.size(), end - kItem.size());
    } else {
      continue;
    }
    const bool explained = std::any_of(out.begin(), out.end(), [&child](const Violation& v) {
      return v.pointer.rfind(child, 0) == 0 && (v.pointer.size() == child.size() || v.pointer[child.size()] == '/');
    });
    if (!explained) out.push_back({child, "Value not allowed here (its schema is false)."});
  }
}

// --- large enums -----------------------------------------------------------------------------
// valijson keeps a copy of every enum value (a tree several times the listing's text) and makes
// a second one while compiling, so a schema with an enum of 100,000 objects cost about 16 times
// its size. An enum of more than kBigEnum values is checked here instead, against its values'
// canonical texts, sorted: about the size of the enum's own text, and a lookup in log time.
constexpr std::size_t kBigEnum = 64;
// The keyword a large enum is replaced by in the copy valijson compiles; its value is the index
// of the enum in EnumTable. Any occurrence of it in the server's own schema is dropped from that
// copy (an unknown keyword means nothing to JSON Schema).
constexpr const char* kBigEnumKeyword = "x-ctxo-enum-index";

using EnumValues = std::vector<std::string>;  // canonical texts, sorted, unique
using EnumTable = std::vector<std::shared_ptr<const EnumValues>>;

// A canonical text of a JSON value as valijson's strict equality sees it: numbers compare as
// doubles (1 and 1.0 are one value, -0 and 0 too), object members in name order, strings by
// their bytes (length-prefixed, so no two values share a text).
void canonical(const valijson::adapters::Adapter& a, std::string& out) {
  if (a.isNull()) {
    out += 'z';
  } else if (a.isBool()) {
    out += a.getBool() ? 't' : 'f';
  } else if (a.isNumber()) {
    double d = a.getNumber();
    if (d == 0) d = 0;  // -0
    char buf[40];
    std::snprintf(buf, sizeof buf, "n%.17g;", d);
    out += buf;
  } else if (a.isString()) {
    const std::string v = a.getString();
    out += 's' + std::to_string(v.size()) + ':';
    out += v;
  } else if (a.isArray()) {
    out += '[';
    a.applyToArray([&out](const valijson::adapters::Adapter& item) {
      canonical(item, out);
      return true;
    });
    out += ']';
  } else if (a.isObject()) {
    std::vector<std::pair<std::string, std::string>> members;
    a.applyToObject([&members](const std::string& name, const valijson::adapters::Adapter& value) {
      members.emplace_back(name, std::string());
      canonical(value, members.back().second);
      return true;
    });
    std::sort(members.begin(), members.end());
    out += '{';
    for (const auto& [name, value] : members) out += 's' + std::to_string(name.size()) + ':' + name + value;
    out += '}';
  } else {
    out += '?';
  }
}

std::string canonical(const json& value) {
  std::string out;
  canonical(valijson::adapters::NlohmannJsonAdapter(value), out);
  return out;
}

// Validates what valijson's enum would, against one of EnumTable's sets.
class BigEnumConstraint : public valijson::constraints::PolyConstraint {
 public:
  explicit BigEnumConstraint(std::shared_ptr<const EnumValues> values) : values_(std::move(values)) {}
  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    if (!values_) return true;
    std::string key;
    canonical(target, key);
    if (std::binary_search(values_->begin(), values_->end(), key)) return true;
    if (results) results->pushError(context, "Failed to match against any enum values.");
    return false;
  }

 private:
  Constraint* cloneInto(void* where) const override { return new (where) BigEnumConstraint(values_); }
  std::size_t sizeOf() const override { return sizeof(BigEnumConstraint); }
  std::shared_ptr<const EnumValues> values_;
};

class BigEnumBuilder : public valijson::ConstraintBuilder {
 public:
  explicit BigEnumBuilder(std::shared_ptr<const EnumTable> table) : table_(std::move(table)) {}
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override {
    // The copier wrote every index; anything else under the keyword (the server's own, inside a
    // subschema copied as it was) is an unknown keyword, which constrains nothing.
    std::int64_t i = -1;
    if (!value.isInteger() || !value.getInteger(i) || i < 0 || static_cast<std::size_t>(i) >= table_->size())
      return new BigEnumConstraint(nullptr);
    return new BigEnumConstraint((*table_)[static_cast<std::size_t>(i)]);
  }

 private:
  std::shared_ptr<const EnumTable> table_;
};

// `schema` with each enum of more than kBigEnum values replaced by kBigEnumKeyword (its sets
// appended to `table`), or nullopt when it has none. The values of keywords that hold data, not
// schemas (const, enum, default, examples), are copied as they are.
std::optional<json> without_big_enums(const json& schema, EnumTable& table) {
  bool any = false;
  for_each_node(schema, [&any](const json& node) {
    if (any || !node.is_object()) return;
    auto it = node.find("enum");
    if (it != node.end() && it->is_array() && it->size() > kBigEnum) any = true;
  });
  if (!any) return std::nullopt;
  struct Copier {
    EnumTable& table;
    json operator()(const json& node) {
      if (node.is_array()) {
        json out = json::array();
        for (const auto& item : node) out.push_back((*this)(item));
        return out;
      }
      if (!node.is_object()) return node;
      json out = json::object();
      for (const auto& [key, value] : node.items()) {
        if (key == kBigEnumKeyword) continue;
        if (key == "enum" && value.is_array() && value.size() > kBigEnum) {
          auto values = std::make_shared<EnumValues>();
          values->reserve(value.size());
          for (const auto& v : value) {
            values->push_back(canonical(v));
            values->back().shrink_to_fit();
          }
          std::sort(values->begin(), values->end());
          values->erase(std::unique(values->begin(), values->end()), values->end());
          values->shrink_to_fit();
          out[kBigEnumKeyword] = table.size();
          table.push_back(std::move(values));
        } else if (key == "const" || key == "enum" || key == "default" || key == "examples") {
          out[key] = value;
        } else {
          out[key] = (*this)(value);
        }
      }
      return out;
    }
  };
  return Copier{table}(schema);  // depth is bounded: compile_into checked kMaxJsonDepth
}

std::unique_ptr<valijson::Schema> build(const json& doc, const std::shared_ptr<const EnumTable>& enums,
                                        std::string* error) {
  auto schema = std::make_unique<valijson::Schema>();
  try {
    valijson::SchemaParser parser(version_of(doc));
    if (!enums->empty()) parser.addConstraintBuilder(kBigEnumKeyword, new BigEnumBuilder(enums));
    valijson::adapters::NlohmannJsonAdapter adapter(doc);
    parser.populateSchema(adapter, *schema);
  } catch (const std::exception& e) {
    *error = e.what();
    return nullptr;
  } catch (...) {
    *error = "unknown error";
    return nullptr;
  }
  return schema;
}

}  // namespace

struct SchemaValidator::Impl {
  json document;                                     // the schema, unless borrowed
  const json* borrowed = nullptr;                    // compile_borrowed: the caller's schema
  std::unique_ptr<valijson::Schema> schema;          // null: the schema `true`
  std::unique_ptr<valijson::Schema> without_pattern; // null: no pattern keyword in the schema
};

std::string to_string(const Violation& v) {
  return "at " + (v.pointer.empty() ? std::string("(root)") : v.pointer) + ": " + v.message;
}

SchemaValidator::SchemaValidator() : impl_(std::make_shared<Impl>(Impl{json(true), nullptr, nullptr, nullptr})) {}

SchemaValidator::SchemaValidator(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Result<SchemaValidator> SchemaValidator::compile(const json& schema) {
  auto impl = std::make_shared<Impl>();
  impl->document = schema;
  const json& document = impl->document;  // (not `impl->document` beside std::move(impl): argument order is unspecified)
  return compile_into(std::move(impl), document);
}

Result<SchemaValidator> SchemaValidator::compile_borrowed(const json& schema) {
  auto impl = std::make_shared<Impl>();
  impl->borrowed = &schema;
  return compile_into(std::move(impl), schema);
}

Result<SchemaValidator> SchemaValidator::compile_into(std::shared_ptr<Impl> impl, const json& schema) {
  if (!schema.is_object() && !schema.is_boolean())
    return make_error("schema", std::string("a schema is an object or a boolean, not ") + schema.type_name());
  if (json_depth(schema) > kMaxJsonDepth)
    return make_error("schema", "schema nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  if (auto cycle = find_ref_cycle(schema))
    return make_error("schema", "cyclic $ref chain through \"" + *cycle + "\"");
  if (auto bad = find_bad_pattern(schema)) return make_error("schema", *bad);
  if (auto bad = find_bad_multiple_of(schema)) return make_error("schema", *bad);

  std::string error;
  auto enums = std::make_shared<EnumTable>();
  const std::optional<json> small = without_big_enums(schema, *enums);
  const json& doc = small ? *small : schema;
  impl->schema = build(doc, enums, &error);
  if (!impl->schema) return make_error("schema", "invalid schema: " + error);
  if (names_pattern_or_format(doc)) {  // else the stripped copy would be the schema itself
    json stripped = without_patterns(doc);
    if (stripped != doc) {
      impl->without_pattern = build(stripped, enums, &error);
      if (!impl->without_pattern) return make_error("schema", "invalid schema: " + error);
    }
  }
  return SchemaValidator(std::move(impl));
}

std::vector<Violation> SchemaValidator::check(const json& instance) const {
  std::vector<Violation> out;
  if (!impl_->schema) return out;
  if (json_depth(instance) > kMaxJsonDepth) {
    out.push_back({"", "document nested deeper than " + std::to_string(kMaxJsonDepth) + " levels; not validated"});
    return out;
  }
  const valijson::Schema* schema = impl_->schema.get();
  if (impl_->without_pattern && has_long_string(instance)) schema = impl_->without_pattern.get();
  try {
    valijson::Validator validator(valijson::Validator::kStrongTypes);
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(instance);
    if (!validator.validate(*schema, target, &results)) {
      for (const auto& e : results) out.push_back({context_to_pointer(e.context), e.description});
      add_false_schema_violations(out);
      if (out.empty()) out.push_back({"", "document does not match the schema"});
    }
  } catch (const std::exception& e) {
    out.push_back({"", std::string("validator error: ") + e.what()});
  } catch (...) {
    out.push_back({"", "validator error"});
  }
  return out;
}

std::vector<std::string> SchemaValidator::validate(const json& instance) const {
  std::vector<std::string> out;
  for (const auto& v : check(instance)) out.push_back(to_string(v));
  return out;
}

bool SchemaValidator::is_valid(const json& instance) const {
  if (!impl_->schema) return true;
  if (json_depth(instance) > kMaxJsonDepth) return false;
  const valijson::Schema* schema = impl_->schema.get();
  if (impl_->without_pattern && has_long_string(instance)) schema = impl_->without_pattern.get();
  try {
    valijson::Validator validator(valijson::Validator::kStrongTypes);
    valijson::adapters::NlohmannJsonAdapter target(instance);
    return validator.validate(*schema, target, nullptr);
  } catch (...) {
    return false;
  }
}

const json& SchemaValidator::schema() const { return impl_->borrowed ? *impl_->borrowed : impl_->document; }

}  // namespace ctxo::profile
