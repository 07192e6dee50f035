// SPDX-License-Identifier: MIT
// The JUnit XML writer: structure and counts derived independently from the RunReport, validity
// against the vendored junit-10.xsd (xmllint), hostile server text, and proof that the checks
// used here do catch a wrong count, a missing attribute and an invalid character.
#include "reports/junit.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include <pugixml.hpp>

#include "checks/registry.h"
#include "core/text.h"
#include "report_fixtures.h"

namespace ctxo::reports {
namespace {

using test::error_run;
using test::failing_run;
using test::junit_xsd_problem;
using test::kHostile;
using test::passing_run;
using test::judged_run;
using test::untested_run;

pugi::xml_document parse(const std::string& xml) {
  pugi::xml_document doc;
  auto res = doc.load_string(xml.c_str(), pugi::parse_default | pugi::parse_declaration);
  EXPECT_TRUE(res) << res.description() << " at offset " << res.offset;
  return doc;
}

unsigned attr(pugi::xml_node n, const char* name) { return n.attribute(name).as_uint(9999); }

// Every mismatch between a count attribute and the elements it counts, at every level.
std::vector<std::string> count_problems(const pugi::xml_document& doc) {
  std::vector<std::string> out;
  auto root = doc.child("testsuites");
  if (!root) return {"no <testsuites>"};
  unsigned tests = 0, failures = 0, errors = 0;
  for (auto suite : root.children("testsuite")) {
    unsigned t = 0, f = 0, e = 0, s = 0;
    for (auto tc : suite.children("testcase")) {
      ++t;
      f += tc.child("failure") ? 1 : 0;
      e += tc.child("error") ? 1 : 0;
      s += tc.child("skipped") ? 1 : 0;
    }
    std::string name = suite.attribute("name").value();
    if (attr(suite, "tests") != t) out.push_back(name + ": tests " + suite.attribute("tests").value());
    if (attr(suite, "failures") != f) out.push_back(name + ": failures " + suite.attribute("failures").value());
    if (attr(suite, "errors") != e) out.push_back(name + ": errors " + suite.attribute("errors").value());
    if (attr(suite, "skipped") != s) out.push_back(name + ": skipped " + suite.attribute("skipped").value());
    tests += t;
    failures += f;
    errors += e;
  }
  if (attr(root, "tests") != tests) out.push_back(std::string("root tests ") + root.attribute("tests").value());
  if (attr(root, "failures") != failures)
    out.push_back(std::string("root failures ") + root.attribute("failures").value());
  if (attr(root, "errors") != errors) out.push_back(std::string("root errors ") + root.attribute("errors").value());
  return out;
}

// What the report says each suite must hold, derived from the RunReport without the matrix:
// suite name -> (test case names, names that must fail).
struct Expected {
  std::set<std::string> cases, failing;
  bool skipped = false;
};

std::map<std::string, Expected> expected_suites(const engine::RunReport& r) {
  std::map<std::string, Expected> m;
  // Statuses when the report has them (a not-observed one is a skipped case, a not-applicable
  // one no case), else the applied ids.
  auto add = [&](Expected& e, const std::map<std::string, checks::Status>& st, const std::vector<std::string>& ids) {
    if (st.empty()) e.cases.insert(ids.begin(), ids.end());
    for (const auto& [id, s] : st) {
      if (s == checks::Status::kNotApplicable) continue;
      e.cases.insert(id);
      e.skipped = e.skipped || s == checks::Status::kNotObserved;
    }
  };
  if (!r.server_invariants.empty() || !r.server_outcomes.empty())
    add(m["(server)"], r.server_outcomes, r.server_invariants);
  for (const auto& t : r.tools) {
    if (!t.selected) continue;
    if (t.calls == 0 && t.invariants.empty() && t.outcomes.empty()) {
      m[t.name].cases = {"(not called)"};
      m[t.name].skipped = true;
      continue;
    }
    add(m[t.name], t.outcomes, t.invariants);
  }
  for (const auto& rf : r.findings) {
    auto& e = m[rf.finding.tool.empty() ? "(server)" : rf.finding.tool];
    e.cases.insert(rf.finding.invariant);
    if (!rf.baselined && rf.finding.severity == Severity::kError) e.failing.insert(rf.finding.invariant);
  }
  if (r.error) m["(run)"] = Expected{{"run"}, {}, false};
  return m;
}

pugi::xml_node suite(const pugi::xml_document& doc, const std::string& name) {
  return doc.child("testsuites").find_child_by_attribute("testsuite", "name", name.c_str());
}

pugi::xml_node testcase(const pugi::xml_document& doc, const std::string& suite_name, const std::string& name) {
  return suite(doc, suite_name).find_child_by_attribute("testcase", "name", name.c_str());
}

void expect_matches_report(const pugi::xml_document& doc, const engine::RunReport& r) {
  auto want = expected_suites(r);
  std::set<std::string> got_suites;
  for (auto s : doc.child("testsuites").children("testsuite")) got_suites.insert(s.attribute("name").value());
  std::set<std::string> want_suites;
  for (const auto& [name, _] : want) want_suites.insert(name);
  EXPECT_EQ(got_suites, want_suites);
  for (const auto& [name, e] : want) {
    auto s = suite(doc, name);
    std::set<std::string> cases, failing;
    bool skipped = false;
    for (auto tc : s.children("testcase")) {
      cases.insert(tc.attribute("name").value());
      if (tc.child("failure")) failing.insert(tc.attribute("name").value());
      skipped = skipped || tc.child("skipped");
      if (name != "(run)") {
        EXPECT_EQ(std::string(tc.attribute("classname").value()), "ctxo-conform." + name);
      }
    }
    EXPECT_EQ(cases, e.cases) << "suite " << name;
    EXPECT_EQ(failing, e.failing) << "suite " << name;
    EXPECT_EQ(skipped, e.skipped) << "suite " << name;
  }
  EXPECT_TRUE(count_problems(doc).empty()) << ::testing::PrintToString(count_problems(doc));
}

std::string property(pugi::xml_node s, const char* name) {
  return s.child("properties").find_child_by_attribute("property", "name", name).attribute("value").value();
}

TEST(JunitReport, PassingRun) {
  auto r = passing_run();
  std::string xml = to_junit(r, "9.9.9");
  EXPECT_EQ(junit_xsd_problem(xml, "passing.xml"), "");
  auto doc = parse(xml);
  expect_matches_report(doc, r);
  auto root = doc.child("testsuites");
  EXPECT_STREQ(root.attribute("name").value(), "ctxo-conform");
  EXPECT_EQ(attr(root, "tests"), 5u + 5u + 3u);
  EXPECT_EQ(attr(root, "failures"), 0u);
  EXPECT_STREQ(root.attribute("time").value(), "2.500");
  EXPECT_TRUE(root.select_nodes("//failure").empty());
  // Suites: the server first, then tools by name; a tool's time is its own.
  std::vector<std::string> order;
  for (auto s : root.children("testsuite")) order.push_back(s.attribute("name").value());
  EXPECT_EQ(order, (std::vector<std::string>{"(server)", "fetch", "search"}));
  EXPECT_STREQ(suite(doc, "search").attribute("time").value(), "0.120");
  EXPECT_STREQ(suite(doc, "(server)").attribute("time").value(), "2.300");
  auto s = suite(doc, "search");
  EXPECT_EQ(property(s, "seed"), "42");
  EXPECT_EQ(property(s, "server.name"), "demo-server");
  EXPECT_EQ(property(s, "server.version"), "1.2.3");
  EXPECT_EQ(property(s, "protocol"), "2025-11-25");
  EXPECT_EQ(property(s, "profile"), "auto");
  EXPECT_EQ(property(s, "ctxo-conform.version"), "9.9.9");
  EXPECT_EQ(property(s, "server.command"), "./server --stdio");
}

TEST(JunitReport, NotObservedIsSkippedWithItsReasonNotApplicableIsLeftOut) {
  auto r = judged_run();
  std::string xml = to_junit(r, "9.9.9");
  EXPECT_EQ(junit_xsd_problem(xml, "judged.xml"), "");
  auto doc = parse(xml);
  expect_matches_report(doc, r);
  auto s = suite(doc, "search");
  EXPECT_EQ(attr(s, "skipped"), 3u);
  EXPECT_EQ(attr(s, "tests"), 7u);
  EXPECT_EQ(attr(s, "failures"), 0u);
  auto hint = testcase(doc, "search", "TR-HINT").child("skipped");
  ASSERT_TRUE(hint);
  EXPECT_STREQ(hint.attribute("message").value(), "not observed: no answer was truncated");
  EXPECT_STREQ(testcase(doc, "search", "TR-CAP").child("skipped").attribute("message").value(),
               "not observed: no call set a limit");
  EXPECT_FALSE(testcase(doc, "search", "TR-COUNT").child("skipped"));
  EXPECT_FALSE(testcase(doc, "search", "B-USED")) << "not applicable: no test case";
  EXPECT_FALSE(testcase(doc, "fetch", "TR-HINT")) << "fetch has no status for it";
  EXPECT_EQ(attr(suite(doc, "fetch"), "skipped"), 0u);
  EXPECT_EQ(property(s, "tool.profile"), "ctxo");
  EXPECT_EQ(property(s, "tool.profile_reason"), "detected from its answers");
}

TEST(JunitReport, UntestedVerdictIsAProperty) {
  auto r = untested_run();
  std::string xml = to_junit(r, "9.9.9");
  EXPECT_EQ(junit_xsd_problem(xml, "untested.xml"), "");
  auto doc = parse(xml);
  EXPECT_EQ(property(suite(doc, "search"), "verdict"), "untested");
  EXPECT_EQ(property(suite(doc, "search"), "exit_code"), "4");
}

TEST(JunitReport, FailingRunCountsAndSuites) {
  auto r = failing_run();
  std::string xml = to_junit(r, "0.1.0");
  EXPECT_EQ(junit_xsd_problem(xml, "failing.xml"), "");
  auto doc = parse(xml);
  expect_matches_report(doc, r);
  auto root = doc.child("testsuites");
  // (server) 5 + search 7 + fetch 4 + slow 1; failing: T-SHUTDOWN, TR-HINT, TR-COUNT, POS-UTF16,
  // P-RESULT, E-PARSE (the warning and the baselined finding pass).
  EXPECT_EQ(attr(root, "tests"), 17u);
  EXPECT_EQ(attr(root, "failures"), 6u);
  EXPECT_EQ(attr(root, "errors"), 0u);
  EXPECT_EQ(attr(suite(doc, "slow"), "skipped"), 1u);
  EXPECT_FALSE(suite(doc, "write_file")) << "an unselected tool is left out";
}

TEST(JunitReport, FailureCarriesEvidenceOfEveryFindingOfTheCell) {
  auto r = failing_run();
  auto doc = parse(to_junit(r, "0.1.0"));
  auto hint = testcase(doc, "search", "TR-HINT").child("failure");
  ASSERT_TRUE(hint);
  EXPECT_STREQ(hint.attribute("type").value(), "TR-HINT");
  EXPECT_STREQ(hint.attribute("message").value(), "truncated is true but the hint is empty");
  std::string body = hint.text().get();
  EXPECT_NE(body.find("truncated is true but the hint is empty\nsecond line"), std::string::npos) << body;
  EXPECT_NE(body.find("(2 times)"), std::string::npos);
  EXPECT_NE(body.find("request:  " + r.findings[0].finding.request.dump()), std::string::npos) << body;
  EXPECT_NE(body.find("response: " + r.findings[0].finding.response_excerpt), std::string::npos);
  EXPECT_NE(body.find("replay:   " + r.findings[0].finding.replay), std::string::npos);

  std::string counts = testcase(doc, "search", "TR-COUNT").child("failure").text().get();
  EXPECT_NE(counts.find("returnedItems is 5 but the array has 4 items"), std::string::npos);
  EXPECT_NE(counts.find("totalItems 3 < returnedItems 4"), std::string::npos);

  auto shutdown = testcase(doc, "(server)", "T-SHUTDOWN").child("failure");
  ASSERT_TRUE(shutdown);
  EXPECT_STREQ(shutdown.attribute("type").value(), "T-SHUTDOWN");
  EXPECT_NE(std::string(shutdown.text().get()).find("request:  (none)"), std::string::npos);
  EXPECT_STREQ(testcase(doc, "(server)", "T-SHUTDOWN").attribute("classname").value(), "ctxo-conform.(server)");

  std::string pos = testcase(doc, "search", "POS-UTF16").child("failure").text().get();
  EXPECT_NE(pos.find("location: src/main file#1.ts:12:7"), std::string::npos) << pos;
}

TEST(JunitReport, WarningsAndBaselinedFindingsPassWithTheirEvidence) {
  auto doc = parse(to_junit(failing_run(), "0.1.0"));
  auto warn = testcase(doc, "fetch", "P-ACCEPT");
  ASSERT_TRUE(warn);
  EXPECT_FALSE(warn.child("failure"));
  EXPECT_FALSE(warn.child("skipped"));
  std::string out = warn.child("system-out").text().get();
  EXPECT_EQ(out.rfind("warning: reported, does not fail the run", 0), 0u) << out;
  EXPECT_NE(out.find("a schema-valid call was refused as invalid input"), std::string::npos);

  auto base = testcase(doc, "search", "E-SCHEMA");
  ASSERT_TRUE(base);
  EXPECT_FALSE(base.child("failure"));
  std::string bout = base.child("system-out").text().get();
  EXPECT_NE(bout.find("accepted by baseline"), std::string::npos) << bout;
  EXPECT_NE(bout.find("expected integer, got string"), std::string::npos);

  // Passing cells carry nothing.
  auto pass = testcase(doc, "fetch", "T-HANG");
  ASSERT_TRUE(pass);
  EXPECT_FALSE(pass.first_child());
}

TEST(JunitReport, NotCalledToolsAndRunNotes) {
  auto doc = parse(to_junit(failing_run(), "0.1.0"));
  auto skipped = testcase(doc, "slow", "(not called)").child("skipped");
  ASSERT_TRUE(skipped);
  EXPECT_STREQ(skipped.attribute("message").value(), "not called: time budget reached");
  EXPECT_NE(std::string(suite(doc, "fetch").child("system-out").text().get())
                .find("calls stopped early: stopped after 2 crashes or hangs"),
            std::string::npos);
  std::string server_out = suite(doc, "(server)").child("system-out").text().get();
  EXPECT_NE(server_out.find("note: 2 answers matched no envelope profile"), std::string::npos);
  EXPECT_NE(server_out.find("stale baseline entry: TR-CAP search"), std::string::npos);
}

TEST(JunitReport, RunErrorIsAnErrorTestCase) {
  auto r = error_run();
  std::string xml = to_junit(r, "0.1.0");
  EXPECT_EQ(junit_xsd_problem(xml, "error.xml"), "");
  auto doc = parse(xml);
  expect_matches_report(doc, r);
  auto root = doc.child("testsuites");
  EXPECT_EQ(attr(root, "tests"), 1u);
  EXPECT_EQ(attr(root, "errors"), 1u);
  EXPECT_EQ(attr(root, "failures"), 0u);
  auto err = testcase(doc, "(run)", "run").child("error");
  ASSERT_TRUE(err);
  EXPECT_STREQ(err.attribute("type").value(), "spawn");
  EXPECT_STREQ(err.attribute("message").value(), "cannot start './server': No such file or directory");
  std::string body = err.text().get();
  EXPECT_NE(body.find("exit code 3"), std::string::npos) << body;
  EXPECT_NE(body.find("(second line)"), std::string::npos);
  EXPECT_NE(body.find("boom \\x01 at startup"), std::string::npos) << body;
  EXPECT_EQ(property(suite(doc, "(run)"), "exit_code"), "3");
}

TEST(JunitReport, HostileTextStaysWellFormedAndReadable) {
  auto r = failing_run();
  r.tools[0].name = "se<arch>\x01";  // tool names come from the server, too
  for (auto& rf : r.findings)
    if (rf.finding.tool == "search") rf.finding.tool = r.tools[0].name;
  std::string xml = to_junit(r, "0.1.0");
  EXPECT_TRUE(is_valid_utf8(xml));
  for (char c : xml) {
    auto u = static_cast<unsigned char>(c);
    EXPECT_FALSE(u < 0x20 && c != '\n' && c != '\r' && c != '\t') << "raw control character " << int(u);
  }
  EXPECT_EQ(junit_xsd_problem(xml, "hostile.xml"), "");
  auto doc = parse(xml);
  EXPECT_TRUE(count_problems(doc).empty());
  auto fail = testcase(doc, "fetch", "E-PARSE").child("failure");
  ASSERT_TRUE(fail);
  std::string body = fail.text().get();
  for (const char* piece : {"]]>", "<tag attr=\"v\">", "'q' &", "\xF0\x9F\x98\x80", "\\x01\\x02\\x1B[31mred", "\\x7F",
                            "nul:\\x00", "\\x80", "\\xC3", "\\xED\\xA0\\x80", "\\xFF", "\xEF\xBF\xBD", "\\u0085"})
    EXPECT_NE(body.find(piece), std::string::npos) << "missing " << piece << " in " << body;
  // The message attribute is the first line of the diagnosis, made safe the same way.
  EXPECT_EQ(std::string(fail.attribute("message").value()), xml_text(kHostile));
  EXPECT_TRUE(suite(doc, "se<arch>\\x01"));
}

TEST(XmlText, MapsWhatXml10CannotHold) {
  EXPECT_EQ(xml_text("plain <&> \"'\t\n\r"), "plain <&> \"'\t\n\r");
  EXPECT_EQ(xml_text(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(xml_text("\x1b\x7f"), "\\x1B\\x7F");
  EXPECT_EQ(xml_text("\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80"), "\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");  // é, 中, 😀
  EXPECT_EQ(xml_text("\xC2\x85"), "\\u0085");
  EXPECT_EQ(xml_text("\xEF\xBF\xBE\xEF\xBF\xBF"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(xml_text("\xFF\xC3"), "\\xFF\\xC3");
  EXPECT_EQ(xml_text("\xED\xA0\x80"), "\\xED\\xA0\\x80");  // an encoded surrogate is not UTF-8
  EXPECT_EQ(xml_text("\xC0\xAF"), "\\xC0\\xAF");           // overlong '/'
}

// The checks above must be able to fail: a wrong count, a missing required attribute and a raw
// control character are each caught.
TEST(JunitReport, ChecksCatchWrongCountsAndInvalidDocuments) {
  std::string xml = to_junit(failing_run(), "0.1.0");
  {
    auto doc = parse(xml);
    doc.child("testsuites").attribute("failures") = 5u;
    EXPECT_FALSE(count_problems(doc).empty());
  }
  {
    auto doc = parse(xml);
    suite(doc, "search").attribute("tests") = 6u;
    EXPECT_FALSE(count_problems(doc).empty());
  }
  {
    auto doc = parse(xml);
    suite(doc, "slow").attribute("skipped") = 0u;
    EXPECT_FALSE(count_problems(doc).empty());
  }
  {
    auto doc = parse(xml);
    suite(doc, "fetch").remove_attribute("failures");
    std::ostringstream out;
    doc.save(out);
    EXPECT_NE(junit_xsd_problem(out.str(), "tampered-attr.xml"), "");
  }
  {
    std::string bad = xml;
    bad.insert(bad.find("</failure>"), "\x01");
    EXPECT_NE(junit_xsd_problem(bad, "tampered-char.xml"), "");
  }
  {
    auto doc = parse(xml);
    doc.child("testsuites").attribute("time") = "2,5s";
    std::ostringstream out;
    doc.save(out);
    EXPECT_NE(junit_xsd_problem(out.str(), "tampered-time.xml"), "");
  }
}

}  // namespace
}  // namespace ctxo::reports
