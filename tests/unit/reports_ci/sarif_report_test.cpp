// SPDX-License-Identifier: MIT
// The SARIF 2.1.0 writer: every log produced here validates against the vendored OASIS schema
// (through SchemaValidator/valijson), rules mirror the registry, results mirror the findings, and
// the schema check is shown to reject a broken log.
#include "reports/sarif.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "checks/registry.h"
#include "core/text.h"
#include "profile/schema_validator.h"
#include "report_fixtures.h"

namespace ctxo::reports {
namespace {

using nlohmann::json;
using test::error_run;
using test::failing_run;
using test::kHostile;
using test::passing_run;
using test::untested_run;

const profile::SchemaValidator& sarif_schema() {
  static const profile::SchemaValidator v = [] {
    std::ifstream f(std::string(CTXO_SOURCE_DIR) + "/schemas/sarif-2.1.0.schema.json");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto doc = profile::parse_json_text(text);
    if (!doc.ok()) throw std::runtime_error("sarif schema: " + doc.error().message);
    auto compiled = profile::SchemaValidator::compile(*doc);
    if (!compiled.ok()) throw std::runtime_error("sarif schema: " + compiled.error().message);
    return *compiled;
  }();
  return v;
}

std::vector<std::string> violations(const json& log) { return sarif_schema().validate(log); }

bool strict_dump_ok(const json& j) {
  try {
    (void)j.dump();
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

TEST(SarifSchema, VendoredSchemaIsTheOfficialDraft07Document) {
  const json& s = sarif_schema().schema();
  EXPECT_EQ(s.at("$schema"), "http://json-schema.org/draft-07/schema#");
  EXPECT_EQ(s.at("title"), "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema");
  EXPECT_EQ(s.at("definitions").size(), 52u);
  EXPECT_TRUE(violations(json{{"version", "2.1.0"}, {"runs", json::array()}}).empty());
}

TEST(SarifReport, EveryFixtureValidates) {
  for (const auto& [name, r] : {std::pair{"passing", passing_run()}, std::pair{"failing", failing_run()},
                                std::pair{"error", error_run()}}) {
    json log = to_sarif(r, "0.1.0");
    EXPECT_TRUE(violations(log).empty()) << name << ": " << ::testing::PrintToString(violations(log));
    EXPECT_NO_THROW((void)log.dump()) << name;  // strict UTF-8: throws on invalid bytes
  }
}

TEST(SarifReport, DriverAndRulesMirrorTheRegistry) {
  json log = to_sarif(failing_run(), "1.4.2");
  EXPECT_EQ(log.at("version"), "2.1.0");
  ASSERT_EQ(log.at("runs").size(), 1u);
  const json& run = log["runs"][0];
  const json& driver = run.at("tool").at("driver");
  EXPECT_EQ(driver.at("name"), "ctxo-conform");
  EXPECT_EQ(driver.at("version"), "1.4.2");
  EXPECT_EQ(driver.at("informationUri"), kInformationUri);
  EXPECT_EQ(run.at("columnKind"), "utf16CodeUnits");
  const json& rules = driver.at("rules");
  const auto& reg = checks::registry();
  ASSERT_EQ(rules.size(), reg.size());
  for (std::size_t i = 0; i < reg.size(); ++i) {
    const json& rule = rules[i];
    EXPECT_EQ(rule.at("id"), reg[i].id);
    EXPECT_EQ(rule.at("name"), sarif_rule_name(reg[i].id));
    EXPECT_EQ(rule.at("shortDescription").at("text"), reg[i].summary);
    std::string full = rule.at("fullDescription").at("text");
    EXPECT_NE(full.find(reg[i].spec_ref), std::string::npos) << full;
    EXPECT_EQ(rule.at("help").at("text"), reg[i].help);
    EXPECT_NE(rule.at("help").at("markdown").get<std::string>().find("How to fix it"), std::string::npos);
    EXPECT_EQ(rule.at("defaultConfiguration").at("level"), reg[i].severity == Severity::kError ? "error" : "warning");
    EXPECT_EQ(rule.at("properties").at("tags"), json::array({reg[i].family}));
  }
}

TEST(SarifReport, OneResultPerFinding) {
  auto r = failing_run();
  json log = to_sarif(r, "0.1.0");
  const json& run = log["runs"][0];
  const json& results = run.at("results");
  const json& rules = run["tool"]["driver"]["rules"];
  ASSERT_EQ(results.size(), r.findings.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& f = r.findings[i].finding;
    const json& res = results[i];
    EXPECT_EQ(res.at("ruleId"), f.invariant);
    EXPECT_EQ(rules.at(res.at("ruleIndex").get<std::size_t>()).at("id"), f.invariant);
    EXPECT_EQ(res.at("level"), f.severity == Severity::kError ? "error" : "warning");
    if (is_valid_utf8(f.diagnosis)) {
      EXPECT_EQ(res.at("message").at("text"), f.diagnosis);
    }
    EXPECT_EQ(res.at("properties").at("count"), r.findings[i].count);
    EXPECT_EQ(res.at("occurrenceCount"), r.findings[i].count);
    EXPECT_EQ(res.at("properties").at("tool"), f.tool);
    if (is_valid_utf8(f.replay)) {
      EXPECT_EQ(res.at("properties").at("replay"), f.replay);
    }
    if (is_valid_utf8(f.response_excerpt)) {
      EXPECT_EQ(res.at("properties").at("response_excerpt"), f.response_excerpt);
    }
    if (strict_dump_ok(f.request)) {
      EXPECT_EQ(res.at("properties").at("request"), f.request);
    }
    EXPECT_EQ(res.contains("suppressions"), r.findings[i].baselined) << f.invariant;
    const json& logical = res.at("locations").at(0).at("logicalLocations").at(0);
    if (f.tool.empty()) {
      EXPECT_EQ(logical.at("kind"), "module");
      EXPECT_EQ(logical.at("name"), "demo-server");
    } else {
      EXPECT_EQ(logical.at("kind"), "function");
      EXPECT_EQ(logical.at("name"), f.tool);
      EXPECT_EQ(logical.at("fullyQualifiedName"), "demo-server/" + f.tool);
    }
    EXPECT_EQ(res["locations"][0].contains("physicalLocation"), !f.file.empty()) << f.invariant;
  }
}

const json& result_for(const json& log, const std::string& rule) {
  for (const auto& res : log["runs"][0]["results"])
    if (res["ruleId"] == rule) return res;
  throw std::runtime_error("no result for " + rule);
}

TEST(SarifReport, ServerLevelFindingHasNullRequest) {
  json log = to_sarif(failing_run(), "0.1.0");
  const json& res = result_for(log, "T-SHUTDOWN");
  EXPECT_TRUE(res["properties"]["request"].is_null());
  EXPECT_EQ(res["locations"][0]["logicalLocations"][0]["fullyQualifiedName"], "demo-server");
}

TEST(SarifReport, BaselinedFindingKeepsItsLevelAndIsSuppressed) {
  json log = to_sarif(failing_run(), "0.1.0");
  const json& res = result_for(log, "E-SCHEMA");
  EXPECT_EQ(res["level"], "error");
  ASSERT_EQ(res["suppressions"].size(), 1u);
  EXPECT_EQ(res["suppressions"][0]["kind"], "external");
  EXPECT_EQ(res["suppressions"][0]["justification"], "accepted by --baseline");
  EXPECT_EQ(result_for(log, "P-ACCEPT")["level"], "warning");
}

TEST(SarifReport, PhysicalLocationRelativeToRoot) {
  auto r = failing_run();
  json log = to_sarif(r, "0.1.0");
  const json& phys = result_for(log, "POS-UTF16")["locations"][0]["physicalLocation"];
  EXPECT_EQ(phys["artifactLocation"]["uri"], "src/main%20file%231.ts");
  EXPECT_EQ(phys["artifactLocation"]["uriBaseId"], "ROOT");
  EXPECT_EQ(phys["region"], (json{{"startLine", 12}, {"startColumn", 7}}));
  EXPECT_EQ(log["runs"][0]["originalUriBaseIds"]["ROOT"]["uri"], "file:///work/ws%20dir/");

  // Only positive line/column values are written; no root, no originalUriBaseIds.
  r.root.reset();
  r.findings.back().finding.line = 3;
  r.findings.back().finding.column = 0;
  log = to_sarif(r, "0.1.0");
  EXPECT_FALSE(log["runs"][0].contains("originalUriBaseIds"));
  EXPECT_EQ(result_for(log, "POS-UTF16")["locations"][0]["physicalLocation"]["region"], (json{{"startLine", 3}}));
  r.findings.back().finding.line = 0;
  log = to_sarif(r, "0.1.0");
  EXPECT_FALSE(result_for(log, "POS-UTF16")["locations"][0]["physicalLocation"].contains("region"));
  EXPECT_TRUE(violations(log).empty()) << ::testing::PrintToString(violations(log));
}

TEST(SarifReport, FingerprintsAreStableAndDistinct) {
  auto r = failing_run();
  json a = to_sarif(r, "0.1.0"), b = to_sarif(r, "0.2.0");
  std::set<std::string> seen;
  const json& ra = a["runs"][0]["results"];
  for (std::size_t i = 0; i < ra.size(); ++i) {
    std::string fp = ra[i]["partialFingerprints"]["ctxoCause/v1"];
    EXPECT_EQ(fp.size(), 16u);
    EXPECT_EQ(fp, b["runs"][0]["results"][i]["partialFingerprints"]["ctxoCause/v1"]);
    seen.insert(fp);
  }
  EXPECT_EQ(seen.size(), ra.size()) << "two findings share a fingerprint";
  // Only the cause and the tool count: not the request, nor numbers or quoted server text.
  r.findings[0].finding.request["id"] = 99;
  EXPECT_EQ(to_sarif(r, "0.1.0")["runs"][0]["results"][0]["partialFingerprints"], ra[0]["partialFingerprints"]);
  const std::string base = r.findings[0].finding.diagnosis;
  r.findings[0].finding.diagnosis = base + " (9 times, \"as the server put it\")";
  const json quoted = to_sarif(r, "0.1.0")["runs"][0]["results"][0]["partialFingerprints"];
  r.findings[0].finding.diagnosis = base + " (12 times, \"another sentence of its\")";
  EXPECT_EQ(to_sarif(r, "0.1.0")["runs"][0]["results"][0]["partialFingerprints"], quoted);
  r.findings[0].finding.diagnosis += " more words";
  EXPECT_NE(to_sarif(r, "0.1.0")["runs"][0]["results"][0]["partialFingerprints"], quoted);
  // A check's facts decide, whatever the text.
  r.findings[0].finding.cause = {{"code", "-32603"}};
  const json facts = to_sarif(r, "0.1.0")["runs"][0]["results"][0]["partialFingerprints"];
  r.findings[0].finding.diagnosis = "other words altogether";
  EXPECT_EQ(to_sarif(r, "0.1.0")["runs"][0]["results"][0]["partialFingerprints"], facts);
}

TEST(SarifReport, HostileTextBecomesValidUtf8) {
  json log = to_sarif(failing_run(), "0.1.0");
  const json& res = result_for(log, "E-PARSE");
  std::string text = res["message"]["text"];
  EXPECT_TRUE(is_valid_utf8(text));
  for (const char* piece : {"]]>", "<tag attr=\"v\">", "\xF0\x9F\x98\x80", "\x1b[31mred", "\xEF\xBF\xBD"})
    EXPECT_NE(text.find(piece), std::string::npos) << piece;
  EXPECT_EQ(text.find('\xFF'), std::string::npos);
  EXPECT_TRUE(is_valid_utf8(res["properties"]["request"]["params"]["arguments"]["q"].get<std::string>()));
  // Round trip through text: what a consumer reads back is what we built.
  EXPECT_EQ(json::parse(log.dump()), log);
}

TEST(SarifReport, InvocationReflectsTheRunOutcome) {
  json ok = to_sarif(passing_run(), "0.1.0");
  const json& inv = ok["runs"][0]["invocations"][0];
  EXPECT_EQ(inv["executionSuccessful"], true);
  EXPECT_EQ(inv["exitCode"], 0);
  EXPECT_TRUE(ok["runs"][0]["results"].empty());

  json err = to_sarif(error_run(), "0.1.0");
  const json& einv = err["runs"][0]["invocations"][0];
  EXPECT_EQ(einv["executionSuccessful"], false);
  EXPECT_EQ(einv["exitCode"], 3);
  ASSERT_FALSE(einv["toolExecutionNotifications"].empty());
  EXPECT_EQ(einv["toolExecutionNotifications"][0]["level"], "error");
  EXPECT_EQ(einv["toolExecutionNotifications"][0]["descriptor"]["id"], "spawn");
  EXPECT_NE(einv["toolExecutionNotifications"][0]["message"]["text"].get<std::string>().find("cannot start"),
            std::string::npos);
  EXPECT_TRUE(err["runs"][0]["results"].is_array());

  json fail = to_sarif(failing_run(), "0.1.0");
  const json& finv = fail["runs"][0]["invocations"][0];
  EXPECT_EQ(finv["executionSuccessful"], true);
  EXPECT_EQ(finv["exitCode"], 1);
  std::string all = finv["toolExecutionNotifications"].dump();
  EXPECT_NE(all.find("2 answers matched no envelope profile"), std::string::npos);
  EXPECT_NE(all.find("TR-CAP search no longer fails"), std::string::npos);

  json untested = to_sarif(untested_run(), "0.1.0");
  const json& uinv = untested["runs"][0]["invocations"][0];
  EXPECT_EQ(uinv["executionSuccessful"], true);
  EXPECT_EQ(uinv["exitCode"], 4);
  EXPECT_EQ(uinv["exitCodeDescription"].get<std::string>().rfind("untested", 0), 0u);
  EXPECT_EQ(untested["runs"][0]["properties"]["verdict"], "untested");
}

TEST(SarifReport, UnknownInvariantGetsARule) {
  auto r = passing_run();
  r.findings.push_back(test::finding("X-FUTURE", "search", "from a newer version"));
  json log = to_sarif(r, "0.1.0");
  const json& rules = log["runs"][0]["tool"]["driver"]["rules"];
  ASSERT_EQ(rules.size(), checks::registry().size() + 1);
  const json& res = log["runs"][0]["results"][0];
  EXPECT_EQ(rules[res["ruleIndex"].get<std::size_t>()]["id"], "X-FUTURE");
  EXPECT_TRUE(violations(log).empty());
}

TEST(SarifRuleName, CamelCase) {
  EXPECT_EQ(sarif_rule_name("TR-HINT"), "TrHint");
  EXPECT_EQ(sarif_rule_name("E-HINT-REF"), "EHintRef");
  EXPECT_EQ(sarif_rule_name("POS-UTF16"), "PosUtf16");
  EXPECT_EQ(sarif_rule_name("P-NO-THROW"), "PNoThrow");
}

// The schema check must be able to fail: broken logs are rejected.
TEST(SarifReport, SchemaCheckRejectsBrokenLogs) {
  json good = to_sarif(failing_run(), "0.1.0");
  ASSERT_TRUE(violations(good).empty());
  json bad = good;
  bad["runs"][0]["results"][0]["level"] = "fatal";
  EXPECT_FALSE(violations(bad).empty());
  bad = good;
  bad["runs"][0]["results"][0].erase("message");
  EXPECT_FALSE(violations(bad).empty());
  bad = good;
  bad["runs"][0]["results"][0]["ruleIndex"] = -5;
  EXPECT_FALSE(violations(bad).empty());
  bad = good;
  bad["runs"][0]["invocations"][0].erase("executionSuccessful");
  EXPECT_FALSE(violations(bad).empty());
  bad = good;
  bad["runs"][0]["columnKind"] = "bytes";
  EXPECT_FALSE(violations(bad).empty());
  bad = good;
  bad["version"] = "2.0.0";
  EXPECT_FALSE(violations(bad).empty());
  bad = good;
  bad["runs"][0]["results"][8]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0;
  EXPECT_FALSE(violations(bad).empty());
}

}  // namespace
}  // namespace ctxo::reports
