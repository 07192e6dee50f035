// SPDX-License-Identifier: MIT
// Fuzz target: arbitrary bytes as a profile file, as a JSON Schema, as an envelope and as a host
// profile (--host FILE.json: its name patterns are then matched against a few names). The
// profile and host loaders, SchemaValidator and detection must never crash, throw or hang, and
// must be deterministic. Any exception escaping is a bug (the library promises none), so none is caught.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "profile/host.h"
#include "profile/profile.h"

namespace {

using nlohmann::json;
namespace prof = ctxo::profile;

void require(bool cond, const char* what) {
  if (!cond) {
    std::fprintf(stderr, "fuzz_profile_loader: invariant failed: %s\n", what);
    std::abort();
  }
}

const std::vector<prof::Profile>& builtins() {
  static const std::vector<prof::Profile> all = [] {
    auto r = prof::load_builtins();
    require(r.ok(), "built-in profiles load (is the schemas directory reachable?)");
    return std::move(*r);
  }();
  return all;
}

std::string base_dir() {
  static const std::string dir = [] {
    auto d = prof::schemas_dir();
    return d ? *d + "/profiles" : std::string(".");
  }();
  return dir;
}

// Small documents every schema is tried on, so that compiled schemas are exercised.
const std::vector<json>& instances() {
  static const std::vector<json> docs = {
      json(nullptr), json(true), json(0), json(-1), json(1.5), json(""), json("ab€"),
      json::array(), json::object(), json::parse(R"([1, "x", null, {"a": []}])"),
      json::parse(R"({"_meta": {"totalItems": 1, "returnedItems": 1, "truncated": false, "totalBytes": 9}, "files": [1]})"),
      json::parse(R"({"ok": false, "error": {"code": "X", "message": "m"}, "tokenBudget": {}, "warnings": []})"),
  };
  return docs;
}

void exercise_schema(const json& doc) {
  auto compiled = prof::SchemaValidator::compile(doc);
  if (!compiled) {
    require(!compiled.error().message.empty(), "schema errors carry a message");
    return;
  }
  for (const auto& inst : instances()) {
    const auto first = compiled->check(inst);
    const auto second = compiled->check(inst);
    bool same = first.size() == second.size();
    for (std::size_t i = 0; same && i < first.size(); ++i)
      same = first[i].pointer == second[i].pointer && first[i].message == second[i].message;
    require(same, "validation is deterministic");
    require(first.empty() == compiled->is_valid(inst), "check() and is_valid() agree");
  }
  (void)compiled->validate(doc);  // the schema as its own instance
}

void exercise_profile(const prof::Profile& p, const json& doc) {
  const auto check = prof::validate_envelope(p, doc);
  require(check.form == prof::classify(p, doc), "validate_envelope uses classify()");
  (void)prof::detection_score(p, doc);
  for (const auto& inst : instances()) (void)prof::validate_envelope(p, inst);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  // 1. The bytes as a profile file (schema paths resolve next to the built-ins).
  auto loaded = prof::load_text(text, "<fuzz>", base_dir());
  if (!loaded) {
    require(!loaded.error().message.empty(), "load errors carry a message");
  }

  auto doc = prof::parse_json_text(text);
  if (!doc) return 0;

  // 2. The bytes as a JSON Schema.
  exercise_schema(*doc);

  // 3. The bytes as an envelope, against every built-in (and the loaded profile, if any).
  const prof::Profile* detected = prof::detect(*doc, builtins());
  if (detected) require(prof::detection_score(*detected, *doc) > 0, "detected profiles match");
  for (const auto& p : builtins()) exercise_profile(p, *doc);
  if (loaded) {
    exercise_profile(*loaded, *doc);
    std::vector<prof::Profile> with_user = builtins();
    with_user.push_back(*loaded);
    (void)prof::detect(*doc, with_user);
  }

  // 4. The bytes as a host profile: loaded or refused with a message, never thrown; a loaded
  // one's name rules (compiled past pattern_problem's guards) match names without trouble.
  auto host = prof::load_host_json(*doc, "<fuzz>");
  if (!host) {
    require(!host.error().message.empty(), "host errors carry a message");
  } else {
    require(host->tokens(40001) >= 1, "the token estimate is positive");
    for (const auto& rule : host->names)
      for (const char* name : {"search", "search.files", "", "a-b_c", "検索", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
        (void)prof::matches_name(rule, name);
  }
  return 0;
}
