// SPDX-License-Identifier: MIT
// Profile loading: finds the schemas directory, validates profile files against the compiled-in
// schemas/profile.schema.json, and turns them into typed Profiles with compiled form schemas.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "profile/profile.h"

namespace ctxo::profile {

// Generated at configure time from schemas/profile.schema.json (profile_schema_embed.cpp.in).
extern const char* const kProfileSchemaText;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Schema and profile files larger than this are refused rather than read.
constexpr std::uintmax_t kMaxFileBytes = 16u << 20;
// At most this many violations are quoted when a profile file is invalid.
constexpr std::size_t kMaxQuotedViolations = 4;

bool is_schemas_dir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "profiles", ec);
}

Result<std::string> read_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return make_error("io", "cannot read '" + path.string() + "': " +
                                (fs::exists(path, ec) ? "not a regular file" : "no such file"));
  const auto size = fs::file_size(path, ec);
  if (ec) return make_error("io", "cannot read '" + path.string() + "': " + ec.message());
  if (size > kMaxFileBytes)
    return make_error("io", "'" + path.string() + "' is larger than " + std::to_string(kMaxFileBytes) + " bytes");
  // Read no more than the size stat reported: pseudo-files (/proc/...) report 0 and may block.
  std::string text(static_cast<std::size_t>(size), '\0');
  if (size == 0) return text;
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("io", "cannot open '" + path.string() + "'");
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.gcount() != static_cast<std::streamsize>(text.size()))
    return make_error("io", "error reading '" + path.string() + "'");
  return text;
}

// The compiled profile meta-schema, built once.
const Result<SchemaValidator>& profile_meta_schema() {
  static const Result<SchemaValidator> compiled = []() -> Result<SchemaValidator> {
    auto doc = parse_json_text(kProfileSchemaText);
    if (!doc) return make_error("internal", "embedded profile.schema.json: " + doc.error().message);
    return SchemaValidator::compile(*doc);
  }();
  return compiled;
}

// Summarises violations for a person: valijson's "failed to validate against ..." messages only
// echo a deeper violation, duplicates say nothing new, and the deepest message comes first.
std::string describe(std::vector<Violation> violations) {
  auto is_echo = [](const Violation& v) {
    for (std::string_view prefix : {"Failed to validate against schema associated with property name",
                                    "Failed to validate item #", "Failed to validate against child schema",
                                    "Failed to validate against any child schemas"})
      if (v.message.rfind(prefix, 0) == 0) return true;
    return false;
  };
  if (!std::all_of(violations.begin(), violations.end(), is_echo))
    violations.erase(std::remove_if(violations.begin(), violations.end(), is_echo), violations.end());
  std::vector<Violation> unique;
  for (auto& v : violations)
    if (std::none_of(unique.begin(), unique.end(),
                     [&v](const Violation& u) { return u.pointer == v.pointer && u.message == v.message; }))
      unique.push_back(std::move(v));
  violations = std::move(unique);
  std::stable_sort(violations.begin(), violations.end(), [](const Violation& a, const Violation& b) {
    return std::count(a.pointer.begin(), a.pointer.end(), '/') > std::count(b.pointer.begin(), b.pointer.end(), '/');
  });
  std::string out;
  for (std::size_t i = 0; i < violations.size() && i < kMaxQuotedViolations; ++i) {
    if (i) out += "; ";
    out += to_string(violations[i]);
  }
  if (violations.size() > kMaxQuotedViolations)
    out += " (and " + std::to_string(violations.size() - kMaxQuotedViolations) + " more)";
  return out;
}

const json* member(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string str(const json& obj, const char* key, std::string fallback = {}) {
  const json* v = member(obj, key);
  return v && v->is_string() ? v->get<std::string>() : fallback;
}

std::optional<std::string> opt_str(const json& obj, const char* key) {
  const json* v = member(obj, key);
  if (v && v->is_string()) return v->get<std::string>();
  return std::nullopt;
}

bool flag(const json& obj, const char* key, bool fallback) {
  const json* v = member(obj, key);
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

std::optional<std::int64_t> opt_int(const json& obj, const char* key) {
  const json* v = member(obj, key);
  if (v && v->is_number_integer()) return v->get<std::int64_t>();
  return std::nullopt;
}

double number(const json& obj, const char* key, double fallback) {
  const json* v = member(obj, key);
  return v && v->is_number() ? v->get<double>() : fallback;
}

std::vector<std::string> strings(const json& obj, const char* key) {
  std::vector<std::string> out;
  if (const json* v = member(obj, key); v && v->is_array())
    for (const auto& item : *v)
      if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

std::vector<Condition> conditions(const json& list) {
  std::vector<Condition> out;
  if (!list.is_array()) return out;
  for (const auto& c : list) {
    Condition cond;
    cond.pointer = str(c, "pointer");
    cond.absent = flag(c, "absent", false);
    if (const json* t = member(c, "type")) {
      if (t->is_string()) cond.types.push_back(t->get<std::string>());
      if (t->is_array())
        for (const auto& item : *t)
          if (item.is_string()) cond.types.push_back(item.get<std::string>());
    }
    if (const json* e = member(c, "equals")) cond.equals = *e;
    out.push_back(std::move(cond));
  }
  return out;
}

// The number of distinct fields a detection rule requires to be present. The root pointer does
// not count (every envelope has it), nor does an `absent` test (it says what the envelope is not).
int required_fields(const DetectionRule& rule) {
  std::vector<std::string_view> seen;
  for (const auto& c : rule.all)
    if (!c.absent && !c.pointer.empty() && std::find(seen.begin(), seen.end(), c.pointer) == seen.end())
      seen.push_back(c.pointer);
  return static_cast<int>(seen.size());
}

struct Context {
  std::string origin;
  std::string base_dir;
};

Result<std::optional<Form>> load_form(const json& forms, const char* kind, const Context& ctx) {
  const json* f = member(forms, kind);
  if (!f || !f->is_object()) return std::optional<Form>();
  Form form;
  const std::string where = "/forms/" + std::string(kind) + "/schema";
  const json& schema = (*f)["schema"];
  if (schema.is_string()) {
    fs::path path = schema.get<std::string>();
    if (path.is_relative() && !ctx.base_dir.empty()) path = fs::path(ctx.base_dir) / path;
    path = path.lexically_normal();
    form.schema_path = path.string();
    auto text = read_file(path);
    if (!text) return make_error("schema", ctx.origin + ": at " + where + ": " + text.error().message);
    auto doc = parse_json_text(*text);
    if (!doc)
      return make_error("schema", ctx.origin + ": at " + where + ": '" + form.schema_path +
                                      "' is not JSON: " + doc.error().message);
    form.schema_document = std::move(*doc);
  } else {
    form.schema_document = schema;
  }
  auto compiled = SchemaValidator::compile(form.schema_document);
  if (!compiled) {
    const std::string what = form.schema_path.empty() ? "inline schema" : "'" + form.schema_path + "'";
    return make_error("schema", ctx.origin + ": at " + where + ": " + what + ": " + compiled.error().message);
  }
  form.validator = std::move(*compiled);
  form.when = conditions(f->contains("when") ? (*f)["when"] : json::array());
  form.message_pointer = opt_str(*f, "message");
  form.code_pointer = opt_str(*f, "code");
  form.hint_pointer = opt_str(*f, "hint");
  form.codes = strings(*f, "codes");
  form.miss_codes = strings(*f, "missCodes");
  form.covers_invalid_input = std::string_view(kind) == "error" && flag(*f, "invalidInput", false);
  return std::optional<Form>(std::move(form));
}

Result<Profile> build_profile(const json& doc, const Context& ctx) {
  const auto& meta = profile_meta_schema();
  if (!meta) return meta.error();
  if (auto violations = meta->check(doc); !violations.empty())
    return make_error("profile", ctx.origin + " is not a valid profile: " + describe(std::move(violations)));

  auto fail = [&ctx](const std::string& where, const std::string& what) {
    return make_error("profile", ctx.origin + " is not a valid profile: at " + where + ": " + what);
  };

  Profile p;
  p.origin = ctx.origin;
  p.document = doc;
  p.name = str(doc, "name");
  p.title = str(doc, "title");
  p.description = str(doc, "description");
  p.source = str(doc, "source");
  p.notes = strings(doc, "notes");

  const json& envelope = doc["envelope"];
  p.location = str(envelope, "location") == "none" ? Location::kNone : Location::kTextJson;
  p.is_error_text = flag(envelope, "isErrorText", false);

  const json& forms = doc["forms"];
  for (auto [key, slot] : {std::pair{"success", &p.success}, std::pair{"miss", &p.miss}, std::pair{"error", &p.error}}) {
    auto form = load_form(forms, key, ctx);
    if (!form) return form.error();
    *slot = std::move(*form);
  }
  if (p.location == Location::kTextJson && !p.success)
    return fail("/forms/success", "a text-json profile needs a success form");
  if (p.location == Location::kNone && (p.success || p.miss || p.error))
    return fail("/forms", "a profile with envelope location none has no forms (use false)");

  if (const json* t = member(doc, "truncation")) {
    Truncation tr;
    tr.container = str(*t, "container");
    tr.fields = strings(*t, "fields");
    const std::string sel = str(*t, "selection");
    tr.selection = sel == "any" ? Selection::kAny : sel == "container" ? Selection::kContainer : Selection::kLargest;
    tr.any_array = flag(*t, "anyArray", false);
    tr.string_values = str(*t, "boundary", "item") == "item-or-string";
    tr.verbatim_under_limit = flag(*t, "verbatimUnderLimit", true);
    tr.no_array_means_full = flag(*t, "noArrayMeansFull", false);
    if (tr.selection != Selection::kContainer && tr.fields.empty() && !tr.any_array)
      return fail("/truncation/fields", "selection " + sel + " needs named fields (or anyArray)");
    p.truncation = std::move(tr);
  }

  if (const json* l = member(doc, "limit")) {
    Limit lim;
    const std::string kind = str(*l, "kind");
    lim.kind = kind == "tokens" ? LimitKind::kTokens : kind == "chars" ? LimitKind::kChars : LimitKind::kBytes;
    const std::string unit = str(*l, "unit", lim.kind == LimitKind::kBytes ? "utf8" : "utf16");
    lim.unit = unit == "utf16" ? CountUnit::kUtf16 : unit == "codepoint" ? CountUnit::kCodePoint : CountUnit::kUtf8;
    if (lim.kind == LimitKind::kBytes && lim.unit != CountUnit::kUtf8)
      return fail("/limit/unit", "a byte limit counts utf8");
    lim.measure = str(*l, "measure", "text") == "envelope" ? Measure::kEnvelope : Measure::kText;
    lim.env = opt_str(*l, "env");
    lim.default_value = opt_int(*l, "default");
    lim.margin = number(*l, "margin", 1.0);
    lim.chars_per_token = opt_int(*l, "charsPerToken");
    if (lim.kind == LimitKind::kTokens && !lim.chars_per_token)
      return fail("/limit", "a token limit needs charsPerToken");
    lim.round_up = str(*l, "rounding", "ceil") == "ceil";
    if (const json* s = member(*l, "sweep")) {
      Sweep sw{(*s)["small"].get<std::int64_t>(), (*s)["default"].get<std::int64_t>(), (*s)["large"].get<std::int64_t>()};
      if (!(sw.small <= sw.normal && sw.normal <= sw.large))
        return fail("/limit/sweep", "needs small <= default <= large");
      lim.sweep = sw;
    }
    p.limit = std::move(lim);
  }

  if (const json* b = member(doc, "budget")) {
    Budget bud;
    bud.parameter = str(*b, "parameter");
    bud.default_value = (*b)["default"].get<std::int64_t>();
    bud.min = (*b)["min"].get<std::int64_t>();
    bud.max = (*b)["max"].get<std::int64_t>();
    bud.tolerance = number(*b, "tolerance", 0.2);
    const json& ptrs = (*b)["pointers"];
    bud.requested_pointer = str(ptrs, "requested");
    bud.used_pointer = str(ptrs, "used");
    bud.max_pointer = str(ptrs, "max");
    if (!(bud.min <= bud.default_value && bud.default_value <= bud.max))
      return fail("/budget", "needs min <= default <= max");
    p.budget = std::move(bud);
  }

  if (const json* f = member(doc, "fields")) {
    p.fields.ok = opt_str(*f, "ok");
    p.fields.truncated = opt_str(*f, "truncated");
    p.fields.truncated_may_be_absent = flag(*f, "truncatedMayBeAbsent", false);
    p.fields.total_count = opt_str(*f, "totalCount");
    p.fields.returned_count = opt_str(*f, "returnedCount");
    p.fields.total_bytes = opt_str(*f, "totalBytes");
    p.fields.hint = opt_str(*f, "hint");
    p.fields.dropped_count = opt_str(*f, "droppedCount");
    p.fields.dropped_kind = opt_str(*f, "droppedKind");
    p.fields.warnings = opt_str(*f, "warnings");
  }

  if (const json* h = member(doc, "hint")) {
    Hint hint;
    const std::string kind = str(*h, "kind");
    hint.kind = kind == "note"      ? HintKind::kNote
                : kind == "command" ? HintKind::kCommand
                : kind == "reason"  ? HintKind::kReason
                                    : HintKind::kSuggestion;
    hint.stable = flag(*h, "stable", false);
    hint.must_mention = strings(*h, "mustMention");
    hint.values = strings(*h, "values");
    p.hint = std::move(hint);
  }

  const json& det = doc["detection"];
  if (const json* pr = member(det, "priority"); pr && pr->is_number_integer()) {
    // Clamp: the schema allows any integer, the model an int.
    const auto v = pr->get<std::int64_t>();
    p.detection.priority = static_cast<int>(std::clamp<std::int64_t>(v, -1000000, 1000000));
  }
  for (const auto& rule : det["anyOf"]) p.detection.any_of.push_back({str(rule, "name"), conditions(rule["all"])});
  // One generic key ({"error": ...}, {"found": false}) would claim any server's answers, or a
  // Markdown answer quoting such JSON, for this profile: a rule must name distinctive fields.
  for (std::size_t i = 0; i < p.detection.any_of.size(); ++i) {
    const DetectionRule& rule = p.detection.any_of[i];
    const int fields = required_fields(rule);
    if (fields < kMinDetectionFields)
      return fail("/detection/anyOf/" + std::to_string(i) + "/all",
                  "detection rule " + (rule.name.empty() ? "#" + std::to_string(i) : "'" + rule.name + "'") +
                      " requires " + std::to_string(fields) + " field(s) to be present; a rule needs at least " +
                      std::to_string(kMinDetectionFields) +
                      " (distinct pointers other than \"\", without absent), so that one generic key cannot "
                      "detect the profile");
  }
  return p;
}

Result<Profile> load_doc(const json& doc, const Context& ctx) {
  try {
    return build_profile(doc, ctx);
  } catch (const std::exception& e) {
    // The meta-schema guarantees the types read above; reaching this is a bug in this file.
    return make_error("internal", ctx.origin + ": unexpected error while loading: " + e.what());
  }
}

}  // namespace

Result<std::string> schemas_dir() {
  if (const char* env = std::getenv("CTXO_SCHEMAS_DIR"); env != nullptr && *env != '\0') {
    if (is_schemas_dir(env)) return std::string(env);
    return make_error("config", std::string("CTXO_SCHEMAS_DIR=") + env + " is not a schemas directory (no profiles/ in it)");
  }
  std::vector<std::string> tried;
  // An installed binary uses the schemas installed with it (<prefix>/share/ctxo-conform/schemas),
  // whether or not the source tree it was built from is still there; a build-tree binary, those
  // of its source tree.
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path dir = (exe.parent_path() / ".." / "share" / "ctxo-conform" / "schemas").lexically_normal();
    if (is_schemas_dir(dir)) return dir.string();
    tried.push_back(dir.string());
  }
#ifdef CTXO_SCHEMAS_DIR
  if (is_schemas_dir(CTXO_SCHEMAS_DIR)) return std::string(CTXO_SCHEMAS_DIR);
  tried.emplace_back(CTXO_SCHEMAS_DIR);
#endif
  std::string list;
  for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
  return make_error("config", "cannot find the schemas directory (set CTXO_SCHEMAS_DIR; tried: " + list + ")");
}

Result<SchemaValidator> compile_bundled_schema(const std::string& file) {
  auto dir = schemas_dir();
  if (!dir) return dir.error();
  auto doc = read_json_file(*dir + "/" + file);
  if (!doc) return doc.error();
  return SchemaValidator::compile(*doc);
}

std::vector<std::string> bundled_names(std::string_view subdir) {
  std::vector<std::string> names;
  auto dir = schemas_dir();
  if (!dir) return names;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(*dir) / subdir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() == ".json" && it->is_regular_file(ec)) names.push_back(p.stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> builtin_names() { return bundled_names("profiles"); }

bool well_formed_builtin_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && name.find("..") == std::string_view::npos &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
         });
}

Result<Profile> load_builtin(std::string_view name) {
  auto dir = schemas_dir();
  if (!dir) return dir.error();
  const bool well_formed = well_formed_builtin_name(name);
  const fs::path path = fs::path(*dir) / "profiles" / (std::string(name) + ".json");
  std::error_code ec;
  if (!well_formed || !fs::is_regular_file(path, ec)) {
    std::string known;
    for (const auto& n : builtin_names()) known += (known.empty() ? "" : ", ") + n;
    return make_error("usage", "unknown profile '" + std::string(name) + "' (built-in: " + known + ")");
  }
  auto profile = load_file(path.string());
  if (profile && profile->name != name)
    return make_error("profile", path.string() + " names itself '" + profile->name + "', expected '" +
                                     std::string(name) + "'");
  return profile;
}

Result<std::vector<Profile>> load_builtins() {
  std::vector<Profile> out;
  for (const auto& name : builtin_names()) {
    auto p = load_builtin(name);
    if (!p) return p.error();
    out.push_back(std::move(*p));
  }
  if (out.empty()) {
    auto dir = schemas_dir();
    if (!dir) return dir.error();
    return make_error("config", "no built-in profiles in " + *dir + "/profiles");
  }
  return out;
}

Result<json> read_json_file(const std::string& path, bool allow_comments) {
  auto text = read_file(path);
  if (!text) return text.error();
  auto doc = parse_json_text(*text, allow_comments);
  if (!doc) return make_error("parse", "'" + path + "' is not JSON: " + doc.error().message);
  return doc;
}

Result<Profile> load_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  const std::string base = fs::path(path).parent_path().string();
  return load_text(*text, path, base.empty() ? "." : base);
}

Result<Profile> load_text(std::string_view text, std::string_view origin, const std::string& base_dir) {
  auto doc = parse_json_text(text);
  if (!doc) return make_error("parse", std::string(origin) + " is not JSON: " + doc.error().message);
  return load_doc(*doc, Context{std::string(origin), base_dir});
}

Result<Profile> load_json(const json& doc, const std::string& base_dir) {
  if (json_depth(doc) > kMaxJsonDepth)
    return make_error("profile", "<json> is not a valid profile: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  return load_doc(doc, Context{"<json>", base_dir});
}

}  // namespace ctxo::profile
