// SPDX-License-Identifier: MIT
// Profile loader: the built-ins load and say what the seeds say; broken user files give errors
// naming the file, the JSON Pointer and the problem; a fifth profile works end to end as data.
#include "profile/profile.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;
using namespace ctxo::profile;
using nlohmann::json;

// Sets (or unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A fresh directory under the build tree, removed afterwards.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(fs::path(CTXO_BINARY_DIR) / "tests-tmp" / (name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string& file, const std::string& text) const {
    const fs::path p = path_ / file;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

Profile must_load(std::string_view name) {
  auto p = load_builtin(name);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return p.ok() ? std::move(*p) : Profile{};
}

TEST(SchemasDir, CompiledInPathIsFound) {
  ScopedEnv env("CTXO_SCHEMAS_DIR", nullptr);
  auto dir = schemas_dir();
  ASSERT_TRUE(dir.ok()) << dir.error().message;
  EXPECT_TRUE(fs::exists(fs::path(*dir) / "profile.schema.json"));
}

TEST(SchemasDir, EnvironmentWinsAndIsChecked) {
  TempDir tmp("schemas-env");
  fs::create_directories(tmp.path() / "profiles");
  {
    ScopedEnv env("CTXO_SCHEMAS_DIR", tmp.path().c_str());
    auto dir = schemas_dir();
    ASSERT_TRUE(dir.ok());
    EXPECT_EQ(*dir, tmp.path().string());
    EXPECT_TRUE(builtin_names().empty());
    EXPECT_FALSE(load_builtins().ok());
  }
  {
    ScopedEnv env("CTXO_SCHEMAS_DIR", "/nonexistent/ctxo-schemas");
    auto dir = schemas_dir();
    ASSERT_FALSE(dir.ok());
    EXPECT_EQ(dir.error().code, "config");
    EXPECT_NE(dir.error().message.find("/nonexistent/ctxo-schemas"), std::string::npos);
    EXPECT_FALSE(load_builtin("ctxo").ok());
  }
}

TEST(Builtins, AllLoad) {
  const auto names = builtin_names();
  EXPECT_EQ(names, (std::vector<std::string>{"budget", "ctxo", "meta", "none", "truncation-info"}));
  auto all = load_builtins();
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), names.size());
  for (const auto& p : *all) {
    EXPECT_FALSE(p.description.empty()) << p.name;
    if (p.location == Location::kTextJson) {
      ASSERT_TRUE(p.success) << p.name;
      EXPECT_FALSE(p.success->schema_path.empty());
      EXPECT_TRUE(p.success->schema_document.is_object());
      EXPECT_FALSE(p.detection.any_of.empty()) << p.name;
    }
  }
}

TEST(Builtins, DetectionRulesNameDistinctiveSuccessFields) {
  auto all = load_builtins();
  ASSERT_TRUE(all.ok()) << all.error().message;
  for (const auto& p : *all) {
    for (const auto& rule : p.detection.any_of) {
      SCOPED_TRACE(p.name + " rule " + rule.name);
      EXPECT_FALSE(rule.name.empty());
      int present = 0;
      for (const auto& c : rule.all) present += !c.absent && !c.pointer.empty();
      EXPECT_GE(present, kMinDetectionFields);
      // Rules describe success answers: none matches on the error or miss form's own marker.
      for (const auto& c : rule.all) {
        EXPECT_NE(c.pointer, "/found");
        EXPECT_TRUE(c.pointer != "/error" || !c.absent);
      }
    }
  }
}

TEST(Builtins, ErrorFormsSayWhetherTheyCoverInvalidInput) {
  const std::pair<const char*, bool> expected[] = {
      {"ctxo", true}, {"budget", true}, {"meta", true}, {"truncation-info", false}};
  for (const auto& [name, covers] : expected) {
    SCOPED_TRACE(name);
    Profile p = must_load(name);
    ASSERT_TRUE(p.error);
    EXPECT_EQ(p.error->covers_invalid_input, covers);
    ASSERT_TRUE(p.success);
    EXPECT_FALSE(p.success->covers_invalid_input);
    EXPECT_FALSE(p.miss && p.miss->covers_invalid_input);
  }
}

TEST(Builtins, CtxoSaysWhatSeed000Says) {
  Profile p = must_load("ctxo");
  EXPECT_EQ(p.location, Location::kTextJson);
  ASSERT_TRUE(p.limit);
  EXPECT_EQ(p.limit->kind, LimitKind::kBytes);
  EXPECT_EQ(p.limit->unit, CountUnit::kUtf8);
  EXPECT_EQ(p.limit->measure, Measure::kText);
  EXPECT_EQ(p.limit->env, "CTXO_RESPONSE_LIMIT");
  EXPECT_EQ(p.limit->default_value, 8192);
  ASSERT_TRUE(p.limit->sweep);
  EXPECT_LT(p.limit->sweep->small, 8192);
  EXPECT_EQ(p.limit->sweep->normal, 8192);
  EXPECT_GT(p.limit->sweep->large, 8192);
  ASSERT_TRUE(p.truncation);
  EXPECT_EQ(p.truncation->selection, Selection::kLargest);
  EXPECT_EQ(p.truncation->fields,
            (std::vector<std::string>{"impactedSymbols", "importers", "deadSymbols", "unusedExports", "results",
                                      "rankings", "context", "hierarchies", "scaffolding", "deadFiles", "files"}));
  EXPECT_TRUE(p.truncation->no_array_means_full);
  EXPECT_EQ(p.fields.truncated, "/_meta/truncated");
  EXPECT_EQ(p.fields.total_count, "/_meta/totalItems");
  EXPECT_EQ(p.fields.returned_count, "/_meta/returnedItems");
  EXPECT_EQ(p.fields.total_bytes, "/_meta/totalBytes");
  EXPECT_EQ(p.fields.hint, "/_meta/hint");
  ASSERT_TRUE(p.miss);
  EXPECT_EQ(p.miss->hint_pointer, "/hint");
  ASSERT_TRUE(p.error);
  EXPECT_EQ(p.error->message_pointer, "/message");
  EXPECT_TRUE(p.error->codes.empty());
  EXPECT_FALSE(p.budget);
  ASSERT_TRUE(p.hint);
  EXPECT_TRUE(p.hint->stable);
}

TEST(Builtins, BudgetSaysWhatSeed001Says) {
  Profile p = must_load("budget");
  ASSERT_TRUE(p.budget);
  EXPECT_EQ(p.budget->parameter, "tokenBudget");
  EXPECT_EQ(p.budget->default_value, 2000);
  EXPECT_EQ(p.budget->min, 100);
  EXPECT_EQ(p.budget->max, 10000);
  EXPECT_DOUBLE_EQ(p.budget->tolerance, 0.2);
  EXPECT_EQ(p.budget->requested_pointer, "/tokenBudget/requested");
  EXPECT_EQ(p.budget->used_pointer, "/tokenBudget/used");
  EXPECT_EQ(p.budget->max_pointer, "/tokenBudget/max");
  ASSERT_TRUE(p.limit);
  EXPECT_EQ(p.limit->kind, LimitKind::kTokens);
  EXPECT_EQ(p.limit->unit, CountUnit::kUtf16);
  EXPECT_EQ(p.limit->measure, Measure::kEnvelope);
  EXPECT_EQ(p.limit->chars_per_token, 4);
  EXPECT_TRUE(p.limit->round_up);
  EXPECT_FALSE(p.limit->env);
  EXPECT_FALSE(p.miss);
  ASSERT_TRUE(p.error);
  EXPECT_EQ(p.error->code_pointer, "/error/code");
  EXPECT_EQ(p.error->hint_pointer, "/error/hint");
  EXPECT_EQ(p.error->codes,
            (std::vector<std::string>{"MAP_NOT_BUILT", "NODE_NOT_FOUND", "BAD_NODE_ID", "FILE_DELETED",
                                      "SYMBOL_NOT_FOUND", "LSP_UNAVAILABLE", "LSP_FAILED", "LSP_TIMEOUT", "BAD_ARGS",
                                      "INTERNAL"}));
  EXPECT_EQ(p.fields.truncated, "/truncated");
  EXPECT_EQ(p.fields.hint, "/dropped/note");
  EXPECT_EQ(p.fields.dropped_count, "/dropped/count");
}

TEST(Builtins, MetaSaysWhatSeed003Says) {
  Profile p = must_load("meta");
  ASSERT_TRUE(p.limit);
  EXPECT_EQ(p.limit->kind, LimitKind::kBytes);
  EXPECT_EQ(p.limit->env, "TOOL_MAX_OUTPUT_BYTES");
  EXPECT_EQ(p.limit->default_value, 1048576);
  EXPECT_EQ(p.fields.truncated, "/meta/truncated");
  EXPECT_TRUE(p.fields.truncated_may_be_absent);
  EXPECT_EQ(p.fields.total_count, "/meta/total_count");
  EXPECT_EQ(p.fields.returned_count, "/meta/returned_count");
  EXPECT_EQ(p.fields.hint, "/meta/truncation_hint");
  ASSERT_TRUE(p.hint);
  EXPECT_EQ(p.hint->kind, HintKind::kCommand);
  EXPECT_EQ(p.hint->must_mention, (std::vector<std::string>{"--cursor"}));
  ASSERT_TRUE(p.truncation);
  EXPECT_EQ(p.truncation->selection, Selection::kContainer);
  EXPECT_EQ(p.truncation->container, "/data");
  EXPECT_TRUE(p.truncation->string_values);
  EXPECT_FALSE(p.miss);
}

TEST(Builtins, TruncationInfoSaysWhatSeed004Says) {
  Profile p = must_load("truncation-info");
  ASSERT_TRUE(p.limit);
  EXPECT_EQ(p.limit->kind, LimitKind::kChars);
  EXPECT_EQ(p.limit->default_value, 100000);
  EXPECT_DOUBLE_EQ(p.limit->margin, 0.8);
  EXPECT_FALSE(p.limit->env);
  EXPECT_FALSE(p.limit->sweep);
  EXPECT_EQ(p.fields.hint, "/truncation_info/reason");
  ASSERT_TRUE(p.hint);
  EXPECT_EQ(p.hint->kind, HintKind::kReason);
  EXPECT_EQ(p.hint->values, (std::vector<std::string>{"character_limit", "token_estimate", "single_result_too_large"}));
  ASSERT_TRUE(p.truncation);
  EXPECT_EQ(p.truncation->container, "/results");
  EXPECT_TRUE(p.is_error_text);
  EXPECT_FALSE(p.miss);
}

TEST(Builtins, NoneHasNoForms) {
  Profile p = must_load("none");
  EXPECT_EQ(p.location, Location::kNone);
  EXPECT_FALSE(p.success || p.miss || p.error);
  EXPECT_TRUE(p.detection.any_of.empty());
  auto check = validate_envelope(p, json::parse(R"({"anything": 1})"));
  EXPECT_TRUE(check.ok());
  EXPECT_FALSE(check.form);
}

TEST(Builtins, UnknownOrMalformedNames) {
  for (const char* name : {"nope", "../profile.schema", "CTXO", "", "ctxo/../ctxo"}) {
    auto p = load_builtin(name);
    ASSERT_FALSE(p.ok()) << name;
    EXPECT_EQ(p.error().code, "usage");
    EXPECT_NE(p.error().message.find("ctxo"), std::string::npos);  // lists the known ones
  }
}

TEST(Loader, NotJsonNamesFileAndLine) {
  TempDir tmp("notjson");
  const std::string path = tmp.write("bad.json", "{\n  \"name\": \"x\",\n  oops\n}\n");
  auto p = load_file(path);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, "parse");
  EXPECT_NE(p.error().message.find(path), std::string::npos) << p.error().message;
  EXPECT_NE(p.error().message.find("line 3"), std::string::npos) << p.error().message;
}

TEST(Loader, MissingFileIsAnIoError) {
  auto p = load_file("/nonexistent/dir/profile.json");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, "io");
  EXPECT_NE(p.error().message.find("/nonexistent/dir/profile.json"), std::string::npos);
}

// A valid inline profile used as the base of the broken ones below.
json minimal_profile() {
  return json::parse(R"({
    "profileFormat": 1, "name": "mini", "envelope": {"location": "text-json"},
    "forms": {"success": {"schema": {"type": "object", "required": ["items"]}}, "miss": false, "error": false},
    "detection": {"anyOf": [{"name": "items", "all": [{"pointer": "/items", "type": "array"},
                                                      {"pointer": "/total", "type": "integer"}]}]}})");
}

TEST(Loader, MinimalInlineProfileLoads) {
  auto p = load_json(minimal_profile());
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->name, "mini");
  EXPECT_TRUE(p->success->schema_path.empty());
  EXPECT_FALSE(p->limit);
}

TEST(Loader, InvalidInputIsAnErrorFormFlag) {
  json doc = minimal_profile();
  doc["forms"]["error"] = json::parse(R"({"schema": true, "when": [{"pointer": "/failed"}]})");
  auto p = load_json(doc);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_FALSE(p->error->covers_invalid_input);  // default
  doc["forms"]["error"]["invalidInput"] = true;
  p = load_json(doc);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_TRUE(p->error->covers_invalid_input);
  // The error form's other members are still checked as a form's are.
  for (const char* broken : {R"({"invalidInput": "yes"})", R"({"schema": 5})", R"({"when": "x"})", R"({"codes": [""]})",
                             R"({"unknown": 1})"}) {
    SCOPED_TRACE(broken);
    json bad = doc;
    bad["forms"]["error"].update(json::parse(broken));
    p = load_json(bad);
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.error().message.find("/forms/error"), std::string::npos) << p.error().message;
  }
  // Only the error form says it.
  doc = minimal_profile();
  doc["forms"]["success"]["invalidInput"] = true;
  p = load_json(doc);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, "profile");
  EXPECT_NE(p.error().message.find("/forms/success"), std::string::npos) << p.error().message;
}

TEST(Loader, DetectionRuleNeedsTwoDistinctiveFields) {
  TempDir tmp("onekey");
  const std::pair<const char*, const char*> cases[] = {
      // rule (the "all" list), what the message names
      {R"({"name": "error", "all": [{"pointer": "/error"}]})", "rule 'error' requires 1 field"},
      {R"({"name": "error", "all": [{"pointer": "/error", "type": ["string", "object"]}, {"pointer": "/ok", "absent": true},
                                   {"pointer": "/results", "absent": true}]})", "rule 'error' requires 1 field"},
      {R"({"name": "twice", "all": [{"pointer": "/found", "equals": false}, {"pointer": "/found"}]})", "rule 'twice'"},
      {R"({"name": "root", "all": [{"pointer": "", "type": "object"}, {"pointer": "/message"}]})", "rule 'root'"},
      {R"({"all": [{"pointer": "/x"}]})", "rule #1 requires 1 field"},
  };
  for (const auto& [rule, expected] : cases) {
    SCOPED_TRACE(rule);
    json doc = minimal_profile();
    // The second rule is the bad one: a good first rule does not excuse it.
    doc["detection"]["anyOf"].push_back(json::parse(rule));
    const std::string path = tmp.write("onekey.json", doc.dump(2));
    auto p = load_file(path);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().code, "profile");
    EXPECT_NE(p.error().message.find(path), std::string::npos) << p.error().message;
    EXPECT_NE(p.error().message.find("/detection/anyOf/1/all"), std::string::npos) << p.error().message;
    EXPECT_NE(p.error().message.find(expected), std::string::npos) << p.error().message;
  }
  json doc = minimal_profile();
  doc["detection"]["anyOf"][0]["all"] = json::parse(R"([{"pointer": "/a"}, {"pointer": "/b"}, {"pointer": "/c", "absent": true}])");
  EXPECT_TRUE(load_json(doc).ok());
}

struct Broken {
  const char* pointer;   // where to patch minimal_profile()
  const char* value;     // JSON to put there ("DELETE" removes it)
  const char* expected;  // substring the error message must contain
};

TEST(Loader, BrokenProfilesNameThePointerAndTheProblem) {
  const Broken cases[] = {
      {"/limit", R"({"kind": "kilobytes"})", "/limit/kind"},
      {"/limit", R"({"kind": "bytes", "default": "8192"})", "/limit/default"},
      {"/limit", R"({"kind": "bytes", "default": 8192.5})", "/limit/default"},
      {"/limit", R"({"kind": "bytes", "sweep": {"small": 10, "default": 5, "large": 20}})", "small <= default <= large"},
      {"/limit", R"({"kind": "bytes", "unit": "utf16"})", "/limit/unit"},
      {"/limit", R"({"kind": "tokens"})", "charsPerToken"},
      {"/budget", R"({"parameter": "tokenBudget", "default": 2000, "min": 10000, "max": 100,
                      "pointers": {"requested": "/a", "used": "/b", "max": "/c"}})", "min <= default <= max"},
      {"/budget", R"({"parameter": "tokenBudget", "default": 2000, "min": 100, "max": 10000})", "/budget"},
      {"/fields", R"({"truncated": "_meta.truncated"})", "/fields/truncated"},
      {"/name", R"("Has Spaces")", "/name"},
      {"/profileFormat", "2", "/profileFormat"},
      {"/forms/miss", "DELETE", "/forms"},
      {"/forms/success", "false", "needs a success form"},
      {"/envelope/location", R"("structured")", "/envelope/location"},
      {"/detection/anyOf/0/all/0/type", R"("float")", "/detection/anyOf/0/all/0/type"},
      {"/unexpected", "1", "(root)"},
      {"/truncation", R"({"container": "", "selection": "largest"})", "needs named fields"},
      {"/hint", R"({"kind": "command", "mustMention": "--cursor"})", "/hint/mustMention"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.pointer) + " = " + c.value);
    json doc = minimal_profile();
    const json::json_pointer ptr(c.pointer);
    if (std::string(c.value) == "DELETE")
      doc[ptr.parent_pointer()].erase(ptr.back());
    else
      doc[ptr] = json::parse(c.value);
    auto p = load_json(doc);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().code, "profile");
    EXPECT_NE(p.error().message.find("<json> is not a valid profile"), std::string::npos) << p.error().message;
    EXPECT_NE(p.error().message.find(c.expected), std::string::npos) << p.error().message;
  }
}

TEST(Loader, BadFormSchemasAreSchemaErrors) {
  TempDir tmp("badschema");
  tmp.write("broken.schema.json", "{ not json");
  tmp.write("cyclic.schema.json", R"({"$ref": "#"})");
  const std::pair<json, const char*> cases[] = {
      {"broken.schema.json", "is not JSON"},
      {"cyclic.schema.json", "cyclic"},
      {"missing.schema.json", "no such file"},
      {".", "not a regular file"},
      {"/proc/self/status", "is not JSON"},  // a pseudo-file: stat says 0 bytes, nothing is read
      {json::parse(R"({"type": 12})"), "inline schema"},
  };
  for (const auto& [schema, expected] : cases) {
    SCOPED_TRACE(schema.dump());
    json doc = minimal_profile();
    doc["forms"]["success"]["schema"] = schema;
    const std::string path = tmp.write("p.json", doc.dump(2));
    auto p = load_file(path);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().code, "schema");
    EXPECT_NE(p.error().message.find(path), std::string::npos) << p.error().message;
    EXPECT_NE(p.error().message.find("/forms/success/schema"), std::string::npos) << p.error().message;
    EXPECT_NE(p.error().message.find(expected), std::string::npos) << p.error().message;
  }
}

TEST(Loader, ArbitraryJsonNeverThrows) {
  for (const char* text : {"null", "[]", "{}", "1", "\"x\"", R"({"profileFormat": 1})",
                           R"({"forms": {"success": {"schema": "/dev/zero"}}})"}) {
    auto p = load_text(text, "<t>");
    EXPECT_FALSE(p.ok()) << text;
  }
}

// The fifth profile: a user's envelope {status, items[], paging{total, shown, more, next}},
// described entirely as data, with one schema in a file next to it and one inline.
constexpr const char* kFifthProfile = R"({
  "profileFormat": 1,
  "name": "paging",
  "title": "A user's envelope with paging info",
  "envelope": {"location": "text-json"},
  "forms": {
    "success": {"schema": "schemas/success.json"},
    "miss": {"schema": {"type": "object", "required": ["status", "suggestion"],
                        "properties": {"status": {"const": "absent"}, "suggestion": {"type": "string", "minLength": 1}}},
             "when": [{"pointer": "/status", "equals": "absent"}], "hint": "/suggestion"},
    "error": {"schema": {"type": "object", "required": ["status", "code"],
                         "properties": {"status": {"const": "failed"}, "code": {"enum": ["E_INPUT", "E_INTERNAL"]}}},
              "when": [{"pointer": "/status", "equals": "failed"}], "code": "/code", "codes": ["E_INPUT", "E_INTERNAL"]}
  },
  "truncation": {"container": "/items", "selection": "container"},
  "limit": {"kind": "bytes", "env": "PAGING_LIMIT", "default": 4096, "sweep": {"small": 256, "default": 4096, "large": 65536}},
  "fields": {"truncated": "/paging/more", "totalCount": "/paging/total", "returnedCount": "/paging/shown", "hint": "/paging/next"},
  "hint": {"kind": "command", "mustMention": ["--page"]},
  "detection": {"priority": 50, "anyOf": [
    {"name": "paging", "all": [{"pointer": "/status", "type": "string"}, {"pointer": "/paging", "type": "object"}]},
    {"name": "absent", "all": [{"pointer": "/status", "equals": "absent"}, {"pointer": "/suggestion"}]},
    {"name": "failed", "all": [{"pointer": "/status", "equals": "failed"}, {"pointer": "/code"}]}
  ]}
})";

constexpr const char* kFifthSuccessSchema = R"({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "required": ["status", "items", "paging"],
  "properties": {
    "status": {"const": "ok"},
    "items": {"type": "array"},
    "paging": {"type": "object", "required": ["total", "shown", "more"],
               "properties": {"total": {"$ref": "#/$defs/count"}, "shown": {"$ref": "#/$defs/count"},
                              "more": {"type": "boolean"}, "next": {"type": "string"}}}
  },
  "$defs": {"count": {"type": "integer", "minimum": 0}}
})";

TEST(FifthProfile, LoadDetectValidateEndToEnd) {
  TempDir tmp("fifth");
  fs::create_directories(tmp.path() / "schemas");
  tmp.write("schemas/success.json", kFifthSuccessSchema);
  const std::string path = tmp.write("paging.json", kFifthProfile);

  auto loaded = load_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const Profile& fifth = *loaded;
  EXPECT_EQ(fifth.name, "paging");
  EXPECT_EQ(fifth.origin, path);
  EXPECT_EQ(fifth.success->schema_path, (tmp.path() / "schemas" / "success.json").lexically_normal().string());
  EXPECT_EQ(fifth.limit->env, "PAGING_LIMIT");
  EXPECT_EQ(fifth.limit->sweep->small, 256);
  EXPECT_EQ(fifth.fields.truncated, "/paging/more");
  EXPECT_EQ(fifth.error->codes, (std::vector<std::string>{"E_INPUT", "E_INTERNAL"}));
  EXPECT_EQ(fifth.hint->must_mention, (std::vector<std::string>{"--page"}));

  auto builtins = load_builtins();
  ASSERT_TRUE(builtins.ok()) << builtins.error().message;
  std::vector<Profile> all = std::move(*builtins);
  all.push_back(fifth);

  const json success = json::parse(R"({"status": "ok", "items": ["α", "β"], "paging": {"total": 9, "shown": 2, "more": true, "next": "tool ls --page 2"}, "x": 1})");
  const json miss = json::parse(R"({"status": "absent", "suggestion": "try ls with --page 1"})");
  const json error = json::parse(R"({"status": "failed", "code": "E_INPUT", "detail": "bad glob"})");
  for (const json* env : {&success, &miss, &error}) {
    const Profile* p = detect(*env, all);
    ASSERT_NE(p, nullptr) << env->dump();
    EXPECT_EQ(p->name, "paging") << env->dump();
    EXPECT_TRUE(validate_envelope(*p, *env).ok()) << env->dump();
  }
  EXPECT_EQ(classify(fifth, success), FormKind::kSuccess);
  EXPECT_EQ(classify(fifth, miss), FormKind::kMiss);
  EXPECT_EQ(classify(fifth, error), FormKind::kError);

  json bad = success;
  bad["paging"]["shown"] = "2";
  auto check = validate_envelope(fifth, bad);
  EXPECT_EQ(check.form, FormKind::kSuccess);
  ASSERT_FALSE(check.ok());
  EXPECT_TRUE(std::any_of(check.violations.begin(), check.violations.end(),
                          [](const Violation& v) { return v.pointer == "/paging/shown"; }));
  json bad_code = error;
  bad_code["code"] = "E_OTHER";
  check = validate_envelope(fifth, bad_code);
  EXPECT_EQ(check.form, FormKind::kError);
  EXPECT_FALSE(check.ok());

  // The built-ins still win on their own envelopes.
  const json ctxo_env = json::parse(R"({"files": [], "_meta": {"totalItems": 0, "returnedItems": 0, "truncated": false, "totalBytes": 12}})");
  ASSERT_NE(detect(ctxo_env, all), nullptr);
  EXPECT_EQ(detect(ctxo_env, all)->name, "ctxo");
}

TEST(Detection, NothingMatchesPlainResults) {
  auto all = load_builtins();
  ASSERT_TRUE(all.ok());
  for (const char* text : {R"({"content": "plain"})", "[]", "\"text\"", "null", R"({"ok": true})", "{}"}) {
    EXPECT_EQ(detect(json::parse(text), *all), nullptr) << text;
  }
}

TEST(Detection, MoreSpecificRuleWinsThenPriority) {
  auto a = load_json(json::parse(R"({"profileFormat": 1, "name": "a", "envelope": {"location": "text-json"},
    "forms": {"success": {"schema": true}, "miss": false, "error": false},
    "detection": {"priority": 1, "anyOf": [{"all": [{"pointer": "/x"}, {"pointer": "/y"}, {"pointer": "/z"}]}]}})"));
  auto b = load_json(json::parse(R"({"profileFormat": 1, "name": "b", "envelope": {"location": "text-json"},
    "forms": {"success": {"schema": true}, "miss": false, "error": false},
    "detection": {"priority": 9, "anyOf": [{"all": [{"pointer": "/x"}, {"pointer": "/y"}]}]}})"));
  ASSERT_TRUE(a.ok() && b.ok());
  const std::vector<Profile> both{*a, *b};
  EXPECT_EQ(detect(json::parse(R"({"x": 1, "y": 2, "z": 3})"), both)->name, "a");  // 3 conditions beat 2
  EXPECT_EQ(detect(json::parse(R"({"x": 1, "y": 2})"), both)->name, "b");
  const std::vector<Profile> tie{*b, *b};
  EXPECT_EQ(detect(json::parse(R"({"x": 1, "y": 2})"), tie), &tie[0]);  // equal: the earlier one
  EXPECT_EQ(detection_score(*a, json::parse(R"({"x": 1, "y": 2, "z": 3})")), 3);
  EXPECT_EQ(detection_score(*a, json::parse(R"({"x": 1, "y": 2})")), 0);
}

TEST(Detection, GenericErrorMissAndMarkdownShapesDetectNothing) {
  auto all = load_builtins();
  ASSERT_TRUE(all.ok()) << all.error().message;
  for (const char* text : {
           R"({"error": "x"})",
           R"({"error": {"code": "E", "message": "m"}})",
           R"({"error": true, "message": "m"})",
           R"({"found": false, "hint": "h"})",
           R"({"found": false, "hint": "h", "query": "q"})",
           R"({"ok": false, "error": {"code": "NOT_FOUND", "message": "m"}})",
           R"({"error": "x", "detail": {"ok": false}})",
           // Markdown answers that quote envelopes, or look like a document.
           R"({"markdown": "## Result\n```json\n{\"error\": \"x\"}\n```"})",
           R"({"text": "# Title\n\n{\"found\": false, \"hint\": \"h\"}", "error": null})",
           R"({"content": [{"type": "text", "text": "```json\n{\"error\": true, \"message\": \"m\"}\n```"}]})",
           R"({"title": "README", "sections": ["Install", "Usage"], "error": "none"})",
       }) {
    const json doc = json::parse(text);
    const Profile* out = &all->front();
    EXPECT_EQ(detect(doc, *all), nullptr) << text;
    EXPECT_EQ(detect_rule(doc, *all, &out), nullptr) << text;
    EXPECT_EQ(out, nullptr) << text;
  }
}

TEST(Detection, RealEnvelopesAreDetectedAndSayWhy) {
  auto all = load_builtins();
  ASSERT_TRUE(all.ok()) << all.error().message;
  struct Case {
    const char* text;
    const char* profile;
    const char* rule;
  };
  const Case cases[] = {
      {R"({"files": ["a"], "_meta": {"totalItems": 3, "returnedItems": 1, "truncated": true, "totalBytes": 40, "hint": "h"}})",
       "ctxo", "success/totalItems"},
      {R"({"_meta": {"truncated": false}})", "ctxo", "success/truncated"},
      {R"({"ok": true, "data": {}, "tokenBudget": {"requested": 2000, "used": 20, "max": 10000}, "truncated": false, "warnings": []})",
       "budget", "envelope"},
      {R"({"ok": false, "error": {"code": "BAD_ARGS", "message": "m"}, "tokenBudget": {"requested": 2000, "used": 9, "max": 10000}, "truncated": false, "warnings": []})",
       "budget", "envelope"},
      {R"({"ok": true, "data": [1], "meta": {"truncated": true, "total_count": 5, "returned_count": 1, "truncation_hint": "t --cursor x"}})",
       "meta", "envelope"},
      // The rule with the most conditions explains the match.
      {R"({"ok": true, "data": [1], "error": null, "warnings": [], "meta": {"truncated": false}})", "meta", "ok-error-warnings"},
      {R"({"ok": true, "data": [], "error": null, "warnings": []})", "meta", "ok-error-warnings"},
      {R"({"ok": false, "data": null, "error": {"code": "X", "message": "m"}, "warnings": []})", "meta", "ok-error-warnings"},
      {R"({"results": [], "total_count": 0, "returned_count": 0, "truncated": false, "truncation_info": {"reason": null}})",
       "truncation-info", "counts"},
      {R"({"results": [], "truncation_info": {"reason": null}})", "truncation-info", "truncation_info"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const json doc = json::parse(c.text);
    const Profile* p = nullptr;
    const DetectionRule* rule = detect_rule(doc, *all, &p);
    ASSERT_NE(rule, nullptr);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->name, c.profile);
    EXPECT_EQ(rule->name, c.rule);
    EXPECT_EQ(detect(doc, *all), p);
    EXPECT_EQ(matching_rule(*p, doc), rule);
    EXPECT_EQ(detection_score(*p, doc), static_cast<int>(rule->all.size()));
    EXPECT_EQ(detect_rule(doc, *all, nullptr), rule);  // out is optional
  }
}

TEST(Conditions, TypesEqualsAbsent) {
  const json doc = json::parse(R"({"n": 3.0, "i": 4, "s": "x", "o": {}, "z": null, "f": false})");
  auto c = [](const char* text) {
    auto p = load_json(json::parse(std::string(R"({"profileFormat": 1, "name": "c", "envelope": {"location": "text-json"},
      "forms": {"success": {"schema": true}, "miss": false, "error": false},
      "detection": {"anyOf": [{"all": [)") + text + R"(, {"pointer": "/p1"}, {"pointer": "/p2"}]}]}})"));
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
    return p.ok() ? p->detection.any_of[0].all[0] : Condition{};
  };
  EXPECT_TRUE(holds(c(R"({"pointer": "/n", "type": "integer"})"), doc));
  EXPECT_TRUE(holds(c(R"({"pointer": "/i", "type": ["string", "number"]})"), doc));
  EXPECT_FALSE(holds(c(R"({"pointer": "/s", "type": "number"})"), doc));
  EXPECT_TRUE(holds(c(R"({"pointer": "/z", "type": "null"})"), doc));
  EXPECT_TRUE(holds(c(R"({"pointer": "/f", "equals": false})"), doc));
  EXPECT_FALSE(holds(c(R"({"pointer": "/z", "equals": false})"), doc));
  EXPECT_TRUE(holds(c(R"({"pointer": "/missing", "absent": true})"), doc));
  EXPECT_FALSE(holds(c(R"({"pointer": "/o", "absent": true})"), doc));
  EXPECT_FALSE(holds(c(R"({"pointer": "/missing"})"), doc));
}

}  // namespace
