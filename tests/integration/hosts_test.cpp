// SPDX-License-Identifier: MIT
// The host-limit checks (H-SIZE, H-NAME, H-SCHEMA, H-DECLARED, H-DESC, H-TOOLS, H-UNICODE) against a real TypeScript-SDK
// server, tests/npm/fixtures/hosts/hosts.mjs: one tool whose listing and exactly sized answer are
// chosen by HOSTS_CASE (see the fixture's README.md). Each run must report exactly the expected
// H-* ids, each with its expected severity; other ids are not looked at here (the error-* cases
// fail every call on purpose, which other checks may report).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <cctype>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "../support/npm.h"
#include "../support/run_harness.h"

namespace ctxo::test {
namespace {

std::string hosts_fixture() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/hosts/hosts.mjs"; }

/// invariant id -> the severities its findings have.
using Expected = std::map<std::string, std::set<std::string>>;

struct HostsCase {
  std::string name;   ///< HOSTS_CASE.
  Expected expected;  ///< The H-* findings the default hosts give.
};
void PrintTo(const HostsCase& c, std::ostream* os) { *os << c.name; }

const std::vector<HostsCase>& hosts_cases() {
  static const std::vector<HostsCase> c = {
      {"within", {}},
      {"cjk-under", {}},                                       // 9,999 tokens, ~100 KB of UTF-8
      {"cjk-over", {{"H-SIZE", {"warning"}}}},                 // 10,001 tokens
      {"chars-over", {{"H-SIZE", {"warning"}}}},               // 50,001 chars
      {"desktop-under", {{"H-SIZE", {"warning"}}}},            // result of exactly 1,048,576 chars
      {"desktop-over", {{"H-SIZE", {"error"}}}},               // 1,048,577: Claude Desktop rejects it
      {"error-over", {{"H-SIZE", {"warning"}}}},               // isError text of 11,001 chars
      {"error-under", {}},                                     // isError text of 10,999 chars
      {"bad-name", {{"H-NAME", {"error"}}}},                   // search.files
      {"long-name", {{"H-NAME", {"error"}}}},                  // 65 characters
      {"top-anyof", {{"H-SCHEMA", {"error"}}}},                // anyOf at the root of inputSchema
      {"declared-exceeded", {{"H-DECLARED", {"warning"}}}},    // declares 60,000, answers 70,000
      {"declared-honoured", {}},                               // declares 100,000, answers 70,000
      {"declared-out-of-range", {{"H-DECLARED", {"warning"}}}},  // declares 600,000 (> 500,000)
      {"long-description", {{"H-DESC", {"warning"}}}},         // 2,092 characters: Claude Code cuts at 2,048
      {"description-at-cut", {}},                              // exactly 2,048
      {"long-instructions", {{"H-DESC", {"warning"}}}},        // the server's instructions, 2,092 characters
      {"instructions-at-cut", {}},                             // exactly 2,048
      {"prefixed-long", {{"H-NAME", {"warning"}}}},            // mcp__ctxo-hosts-fixture__<40> = 65: a guess (serverInfo.name)
      {"prefixed-at-limit", {}},                               // 64 once prefixed
  };
  return c;
}

HarnessRun run_hosts(const std::string& hosts_case, const std::vector<std::string>& flags = {}) {
  std::vector<std::string> args = {"--seed", "1", "--calls", "6", "--no-cases", "--env", "HOSTS_CASE=" + hosts_case};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "node", hosts_fixture()});
  return run_harness(args);
}

/// The report's H-* findings: id -> severities.
Expected host_findings(const HarnessRun& r) {
  Expected out;
  if (!r.report.is_object()) return out;
  for (const auto& f : r.report["findings"]) {
    const std::string id = f.value("invariant", std::string());
    if (id.rfind("H-", 0) == 0) out[id].insert(f.value("severity", std::string()));
  }
  return out;
}

std::string show(const Expected& e) {
  std::string out;
  for (const auto& [id, sev] : e) {
    out += (out.empty() ? "" : ", ") + id + " (";
    std::string s;
    for (const auto& x : sev) s += (s.empty() ? "" : "/") + x;
    out += s + ")";
  }
  return out.empty() ? "-" : out;
}

class Hosts : public ::testing::TestWithParam<HostsCase> {};

TEST_P(Hosts, ReportsExactlyTheExpectedHostFindings) {
  REQUIRE_NPM(sdk_dir());
  const HostsCase& c = GetParam();
  HarnessRun r = run_hosts(c.name);
  ASSERT_TRUE(r.report.is_object()) << c.name << ": " << r.err;
  const Expected got = host_findings(r);
  EXPECT_EQ(show(got), show(c.expected)) << c.name << ": " << r.report["findings"].dump(2);
  bool any_error = false;
  for (const auto& [id, sev] : c.expected) any_error = any_error || sev.count("error") > 0;
  if (any_error) {
    EXPECT_EQ(r.exit_code, 1) << c.name << ": " << r.out << r.err;
  }
  // The one tool was listed and reported.
  ASSERT_TRUE(r.report.contains("tools") && r.report["tools"].is_array()) << r.report.dump(2).substr(0, 2000);
  EXPECT_EQ(r.report["tools"].size(), 1u) << r.report["tools"].dump(2);
}

INSTANTIATE_TEST_SUITE_P(Fixture, Hosts, ::testing::ValuesIn(hosts_cases()), [](const auto& param_info) {
  std::string out;
  for (char ch : param_info.param.name) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out;
});

// The per-tool report names the tool's largest answer, measured as the host limits are:
// chars = UTF-16 units of the text, tokens = ceil(chars / 4).
TEST(HostsReport, LargestAnswerIsMeasured) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_hosts("chars-over");
  ASSERT_TRUE(r.report.is_object()) << r.err;
  ASSERT_TRUE(r.report.contains("tools") && r.report["tools"].is_array() && !r.report["tools"].empty())
      << r.report.dump(2).substr(0, 2000);
  const auto& tool = r.report["tools"][0];
  ASSERT_TRUE(tool.contains("largest_answer")) << tool.dump(2);
  const auto& largest = tool["largest_answer"];
  ASSERT_TRUE(largest.is_object()) << largest.dump(2);
  for (const char* member : {"bytes", "chars", "tokens"}) {
    EXPECT_TRUE(largest.contains(member) && largest[member].is_number_integer()) << member << ": " << largest.dump(2);
  }
  // The call that gave it, as sent.
  ASSERT_TRUE(largest["request"].is_object()) << largest.dump(2);
  EXPECT_EQ(largest["request"].value("method", std::string()), "tools/call");
  // Its headroom on every limit that applies: Claude Code's tokens and characters, Desktop's result.
  std::set<std::string> limits;
  for (const auto& h : largest["hosts"]) limits.insert(h["limit"].get<std::string>());
  EXPECT_EQ(limits, (std::set<std::string>{"warning-tokens", "max-tokens", "max-chars", "max-result"})) << largest.dump(2);
  EXPECT_EQ(largest.value("chars", -1), 50001) << largest.dump(2);
  EXPECT_EQ(largest.value("tokens", -1), 12501) << largest.dump(2);
  // The console says it too, with the limit it came closest to (here: past it).
  EXPECT_NE((r.out + r.err).find("host headroom: largest answer fetch_page: 50,001 B, 50,001 chars, 12,501 tokens by "
                                 "chars/4: 125% of Claude Code's warning-tokens (10,000 tokens)"),
            std::string::npos)
      << r.out << r.err;
}

// --host picks the hosts judged: none gives no H-* finding at all; Claude Desktop alone gives only
// its 1 MB rejection (Claude Code's warnings are not its limits).
TEST(HostsReport, HostFlagSelectsTheLimits) {
  REQUIRE_NPM(sdk_dir());
  {
    HarnessRun r = run_hosts("desktop-over", {"--host", "none"});
    ASSERT_TRUE(r.report.is_object()) << r.err;
    EXPECT_EQ(show(host_findings(r)), "-") << r.report["findings"].dump(2);
  }
  {
    HarnessRun r = run_hosts("desktop-over", {"--host", "claude-desktop"});
    ASSERT_TRUE(r.report.is_object()) << r.err;
    const Expected want = {{"H-SIZE", {"error"}}};
    EXPECT_EQ(show(host_findings(r)), show(want)) << r.report["findings"].dump(2);
    std::size_t n = 0;
    for (const auto& f : r.report["findings"])
      if (f.value("invariant", std::string()).rfind("H-", 0) == 0) ++n;
    EXPECT_EQ(n, 1u) << r.report["findings"].dump(2);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  }
}

// Host limits on a budget parameter: the default answer (limit 20) fits, the one at the schema's
// maximum (1,000 items, 100,000 characters) is diverted by Claude Code; the finding's evidence is
// that call, shrunk to the smallest limit whose answer is still written to a file: past 50,000
// characters (501 items; past 10,000 tokens from 401 on, Claude Code only warns).
TEST(HostsReport, TheAnswerAtABudgetParametersMaximumMustFitToo) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_hosts("limit-max");
  ASSERT_TRUE(r.report.is_object()) << r.err;
  const Expected want = {{"H-SIZE", {"warning"}}};
  EXPECT_EQ(show(host_findings(r)), show(want)) << r.report["findings"].dump(2);
  for (const auto& f : r.report["findings"]) {
    if (f["invariant"] == "H-SIZE") {
      // Generated at the maximum, shrunk to the smallest limit still past 50,000 characters.
      EXPECT_EQ(f["original_request"]["params"]["arguments"]["limit"], 1000) << f.dump(2);
      EXPECT_EQ(f["request"]["params"]["arguments"]["limit"], 501) << f.dump(2);
    }
  }
  EXPECT_EQ(r.report["tools"][0]["largest_answer"]["chars"], 100000);
  EXPECT_EQ(r.exit_code, 0);
}

// A finding about a tool's listing has no call; its case replays on its tool and still fails (a
// case once replayed no tool at all and said "no longer fails").
TEST(HostsReport, AListingCaseReplays) {
  REQUIRE_NPM(sdk_dir());
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/hosts-cases";
  std::filesystem::remove_all(dir);
  HarnessRun r = run_harness({"--seed", "1", "--calls", "3", "--cases", dir, "--env", "HOSTS_CASE=bad-name", "--", "node",
                              hosts_fixture()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  std::string file;
  for (const auto& f : r.report["findings"])
    if (f["invariant"] == "H-NAME") file = f.value("case_file", std::string());
  ASSERT_FALSE(file.empty()) << r.report["findings"].dump(2);
  HarnessRun again = run_harness({"replay", file}, false);
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE((again.out + again.err).find("still fails: H-NAME on search.files"), std::string::npos) << again.out << again.err;
}

// A warning's case replays to a warning: `replay` says "still warns" and exits 0, as the run did
// for it (it once said "still fails" and exited 1).
TEST(HostsReport, AWarningCaseThatStillWarnsExitsZero) {
  REQUIRE_NPM(sdk_dir());
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/hosts-warning-cases";
  std::filesystem::remove_all(dir);
  HarnessRun r = run_harness({"--seed", "1", "--calls", "3", "--cases", dir, "--env", "HOSTS_CASE=chars-over", "--",
                              "node", hosts_fixture()});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::string file;
  for (const auto& f : r.report["findings"])
    if (f["invariant"] == "H-SIZE") file = f.value("case_file", std::string());
  ASSERT_FALSE(file.empty()) << r.report["findings"].dump(2);
  HarnessRun again = run_harness({"replay", file}, false);
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("still warns: H-SIZE on "), std::string::npos) << again.out << again.err;
}

// One judge: the same exchanges recorded live (--record) and checked offline give the same H-*
// findings, severities included, and the same largest answer.
TEST(HostsReport, LiveAndOfflineAgree) {
  REQUIRE_NPM(sdk_dir());
  for (const std::string hosts_case : {"desktop-over", "bad-name", "top-anyof", "declared-exceeded", "error-over",
                                       "long-description", "long-instructions", "prefixed-long"}) {
    SCOPED_TRACE(hosts_case);
    const std::string rec = std::string(CTXO_BINARY_DIR) + "/test-tmp/hosts-" + hosts_case + ".jsonl";
    HarnessRun live = run_hosts(hosts_case, {"--record", rec});
    ASSERT_TRUE(live.report.is_object()) << live.err;
    HarnessRun offline = run_harness({"check", rec});
    ASSERT_TRUE(offline.report.is_object()) << offline.err;
    EXPECT_EQ(show(host_findings(offline)), show(host_findings(live))) << offline.report["findings"].dump(2);
    EXPECT_FALSE(host_findings(live).empty());
    EXPECT_EQ(offline.report["tools"][0]["largest_answer"]["chars"], live.report["tools"][0]["largest_answer"]["chars"]);
  }
  // A tool-count cap: the recorded listing judged offline as the live run judged it.
  const std::string rec = std::string(CTXO_BINARY_DIR) + "/test-tmp/hosts-cursor-tools-over.jsonl";
  HarnessRun live = run_hosts("cursor-tools-over", {"--host", "cursor", "--concurrency", "0", "--record", rec});
  ASSERT_TRUE(live.report.is_object()) << live.err;
  HarnessRun offline = run_harness({"check", "--host", "cursor", rec});
  ASSERT_TRUE(offline.report.is_object()) << offline.err;
  EXPECT_EQ(show(host_findings(live)), show(host_findings(offline))) << offline.report["findings"].dump(2);
  EXPECT_NE(show(host_findings(offline)).find("H-TOOLS"), std::string::npos) << offline.report["findings"].dump(2);
}

/// The run's findings of `id`.
std::vector<nlohmann::json> findings_of(const HarnessRun& r, const std::string& id) {
  std::vector<nlohmann::json> out;
  for (const auto& f : r.report["findings"])
    if (f.value("invariant", std::string()) == id) out.push_back(f);
  return out;
}

// H-DESC says where the cut falls and what the model never reads (the parameter docs after
// character 2,048): on the tool for its description, on the server (tool "") for its instructions.
TEST(HostsReport, ADescriptionPastTheCutSaysWhatTheModelMisses) {
  REQUIRE_NPM(sdk_dir());
  {
    HarnessRun r = run_hosts("long-description");
    ASSERT_TRUE(r.report.is_object()) << r.err;
    const auto f = findings_of(r, "H-DESC");
    ASSERT_EQ(f.size(), 1u) << r.report["findings"].dump(2);
    EXPECT_EQ(f[0]["tool"], "fetch_page") << f[0].dump(2);
    const std::string d = f[0].value("diagnosis", std::string());
    EXPECT_NE(d.find("the tool's description is 2,092 characters"), std::string::npos) << d;
    EXPECT_NE(d.find("Claude Code cuts it without saying so at 2,048 characters (44 over)"), std::string::npos) << d;
    EXPECT_NE(d.find("which begins `Parameters: page is the page number"), std::string::npos) << d;
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // a warning
  }
  {
    HarnessRun r = run_hosts("long-instructions");
    ASSERT_TRUE(r.report.is_object()) << r.err;
    const auto f = findings_of(r, "H-DESC");
    ASSERT_EQ(f.size(), 1u) << r.report["findings"].dump(2);
    EXPECT_EQ(f[0].value("tool", std::string("?")), "") << f[0].dump(2);
    const std::string d = f[0].value("diagnosis", std::string());
    EXPECT_NE(d.find("the server's instructions are 2,092 characters"), std::string::npos) << d;
    EXPECT_NE(d.find("which begins `Parameters: page"), std::string::npos) << d;
  }
  // --host none: no host, no cut.
  HarnessRun none = run_hosts("long-description", {"--host", "none"});
  ASSERT_TRUE(none.report.is_object()) << none.err;
  EXPECT_TRUE(findings_of(none, "H-DESC").empty()) << none.report["findings"].dump(2);
}

// The mcp__<server>__<tool> name: with --config, the mcpServers entry's name is the server's (a
// short one leaves the 40-character tool at 50, a long one makes it an error); without it, the
// server's serverInfo.name is a guess and the finding a warning (the parameterised case above).
TEST(HostsReport, ThePrefixedNameUsesTheConfiguredServerName) {
  REQUIRE_NPM(sdk_dir());
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp";
  std::filesystem::create_directories(dir);
  const std::string config = dir + "/hosts-prefixed.mcp.json";
  {
    nlohmann::json entry = {{"command", "node"}, {"args", {hosts_fixture()}}, {"env", {{"HOSTS_CASE", "prefixed-long"}}}};
    nlohmann::json doc = {{"mcpServers", {{"docs", entry}, {"the-document-store-of-our-team", entry}}}};
    std::ofstream(config) << doc.dump(2);
  }
  {
    HarnessRun r = run_harness({"--seed", "1", "--calls", "3", "--no-cases", "--config", config, "--server", "docs"});
    ASSERT_TRUE(r.report.is_object()) << r.err;
    EXPECT_TRUE(findings_of(r, "H-NAME").empty()) << r.report["findings"].dump(2);  // mcp__docs__<40> = 49
  }
  const std::string cases = dir + "/hosts-prefixed-cases";
  std::filesystem::remove_all(cases);
  HarnessRun r = run_harness(
      {"--seed", "1", "--calls", "3", "--cases", cases, "--config", config, "--server", "the-document-store-of-our-team"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  const auto f = findings_of(r, "H-NAME");
  ASSERT_EQ(f.size(), 1u) << r.report["findings"].dump(2);
  EXPECT_EQ(f[0]["severity"], "error") << f[0].dump(2);
  const std::string d = f[0].value("diagnosis", std::string());
  EXPECT_NE(d.find("`mcp__the-document-store-of-our-team__fetch_page_of_the_document_by_its_number` (77 characters)"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("as in --config"), std::string::npos) << d;
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // Its case keeps the configured name, so the replay checks the same prefixed name.
  const std::string file = f[0].value("case_file", std::string());
  ASSERT_FALSE(file.empty()) << f[0].dump(2);
  HarnessRun again = run_harness({"replay", file}, false);
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE((again.out + again.err).find("still fails: H-NAME"), std::string::npos) << again.out << again.err;
}

// An image block past the Anthropic API's 5 MB of base64 (5,242,880 characters) is H-SIZE for
// Claude Code (a warning: reported, and Claude Code resizes some images itself); one at exactly
// 5,242,880 is not. Claude Code alone: Claude Desktop refuses either answer for its 1 MB.
TEST(HostsReport, AnImagePastFiveMegabytesOfBase64) {
  REQUIRE_NPM(sdk_dir());
  // Few calls and no batches: every answer is 5 MB.
  auto run_image = [](const std::string& hosts_case) {
    return run_harness({"--seed", "1", "--calls", "2", "--concurrency", "0", "--no-cases", "--host", "claude-code", "--env",
                        "HOSTS_CASE=" + hosts_case, "--", "node", hosts_fixture()});
  };
  {
    HarnessRun r = run_image("image-over");
    ASSERT_TRUE(r.report.is_object()) << r.err;
    EXPECT_EQ(show(host_findings(r)), "H-SIZE (warning)") << r.report["findings"].dump(2);
    const auto f = findings_of(r, "H-SIZE");
    ASSERT_EQ(f.size(), 1u);
    const std::string d = f[0].value("diagnosis", std::string());
    EXPECT_NE(d.find("past 5,242,880 bytes of an image block's base64 data (largest answer 5,242,884, 4 over"),
              std::string::npos)
        << d;
    EXPECT_NE(d.find("Scale images down"), std::string::npos) << d;
    EXPECT_EQ(d.find("Keep a default answer small"), std::string::npos) << d;  // its text is 100 characters
  }
  HarnessRun r = run_image("image-at-limit");
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(show(host_findings(r)), "-") << r.report["findings"].dump(2);
}

std::string sizes_fixture() { return std::string(CTXO_SOURCE_DIR) + "/tests/npm/fixtures/sizes/sizes.mjs"; }

/// tests/npm/fixtures/sizes/sizes.mjs under SIZES_CASE=`sizes_case`, its cases written to `dir`.
HarnessRun run_sizes(const std::string& sizes_case, const std::string& dir) {
  std::filesystem::remove_all(dir);
  return run_harness({"--seed", "1", "--calls", "8", "--cases", dir, "--env", "SIZES_CASE=" + sizes_case, "--", "node",
                      sizes_fixture()});
}

/// The H-SIZE (or `id`) finding of `tool` (null when there is none).
nlohmann::json size_finding(const HarnessRun& r, const std::string& tool, const std::string& id = "H-SIZE") {
  for (const auto& f : findings_of(r, id))
    if (f.value("tool", std::string()) == tool) return f;
  return nullptr;
}

/// The case file a finding names, read (null when it has none).
nlohmann::json case_of(const nlohmann::json& f) {
  const std::string file = f.value("case_file", std::string());
  if (file.empty()) return nullptr;
  return nlohmann::json::parse(slurp(file), nullptr, false);
}

/// The case of `f` (an `id` finding the grow run made) replays only add_note calls, at least 2
/// (one note is under every limit and ceiling) and fewer than the run made, its diagnosis says
/// how many, and `replay` of it still warns (exit 0).
void expect_only_needed_writes(const HarnessRun& r, const nlohmann::json& f, const std::string& id) {
  ASSERT_TRUE(f.is_object()) << r.report["findings"].dump(2);
  const nlohmann::json c = case_of(f);
  ASSERT_TRUE(c.is_object()) << f.dump(2);
  ASSERT_TRUE(c.contains("sequence") && c["sequence"].is_array()) << c.dump(2);
  const std::size_t replayed = c["sequence"].size();
  EXPECT_GE(replayed, 2u) << c.dump(2);
  std::size_t writes_made = 0;
  for (const auto& t : r.report["tools"])
    if (t["name"] == "add_note") writes_made = t["calls"].get<std::size_t>();
  EXPECT_LT(replayed, writes_made) << c.dump(2);
  for (const auto& call : c["sequence"])
    EXPECT_EQ(call["params"].value("name", std::string()), "add_note") << c["sequence"].dump(2);
  const std::string d = f.value("diagnosis", std::string());
  EXPECT_NE(d.find("made on a fresh server after " + std::to_string(replayed) + " earlier calls (all writes"),
            std::string::npos)
      << d;
  EXPECT_EQ(d.find("may have made it this large"), std::string::npos) << d;
  HarnessRun again = run_harness({"replay", f.value("case_file", std::string())}, false);
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("still warns: " + id + " on " + f.value("tool", std::string())), std::string::npos)
      << again.out << again.err;
}

// H-SIZE is shrunk like other findings: get_rows answers `count` rows of 100 characters, which
// Claude Code writes to a file past 50,000 characters, from 501 rows on. The finding carries the
// smallest call whose answer still crosses that limit (501), the generated one as
// original_request, and needs no earlier call (none replayed, although add_note wrote before it
// on the run's server). list_notes is that large only after 2 notes were added: its case replays
// only add_note calls (not the get_rows calls made between them and it), at least 2 and fewer than
// the run made, says how many it needs, and replays to the same warning. notes_digest declares a
// ceiling of 5,000 characters and answers 3,000 per note, so it is past its own ceiling after 2
// notes (H-DECLARED, under every host limit): its case is made minimal the same way, replays
// only add_note calls (not the get_rows and list_notes calls made between them and it), and
// replays to the same warning.
TEST(HostsSize, TheCaseIsTheSmallestCallAndTheWritesItNeeds) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_sizes("grow", std::string(CTXO_BINARY_DIR) + "/test-tmp/sizes-grow-cases");
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(show(host_findings(r)), "H-DECLARED (warning), H-SIZE (warning)") << r.report["findings"].dump(2);

  const nlohmann::json rows = size_finding(r, "get_rows");
  ASSERT_TRUE(rows.is_object()) << r.report["findings"].dump(2);
  ASSERT_TRUE(rows.contains("original_request")) << rows.dump(2);
  const int generated = rows["original_request"]["params"]["arguments"].value("count", 0);
  const int shrunk = rows["request"]["params"]["arguments"].value("count", 0);
  EXPECT_GT(generated, 501) << rows.dump(2);
  EXPECT_EQ(shrunk, 501) << rows.dump(2);  // 50,100 characters; 500 rows are 50,000
  EXPECT_GT(rows.value("shrink_steps", 0), 0) << rows.dump(2);
  const std::string rd = rows.value("diagnosis", std::string());
  EXPECT_NE(rd.find("still crosses Claude Code's 50,000 characters (50,100), made on a fresh server with no call before it"),
            std::string::npos)
      << rd;
  EXPECT_EQ(rd.find("may have made it this large"), std::string::npos) << rd;
  const nlohmann::json rows_case = case_of(rows);
  ASSERT_TRUE(rows_case.is_object()) << rows.dump(2);
  EXPECT_FALSE(rows_case.contains("sequence")) << rows_case.dump(2);

  expect_only_needed_writes(r, size_finding(r, "list_notes"), "H-SIZE");

  // H-DECLARED's case is made minimal with the same machinery.
  const nlohmann::json digest = size_finding(r, "notes_digest", "H-DECLARED");
  ASSERT_TRUE(digest.is_object()) << r.report["findings"].dump(2);
  EXPECT_EQ(digest["severity"], "warning") << digest.dump(2);
  EXPECT_EQ(digest["cause"]["facts"], (nlohmann::json{{"form", "over-declared-ceiling"}, {"host", "Claude Code"}}))
      << digest.dump(2);
  EXPECT_TRUE(size_finding(r, "notes_digest").is_null()) << "under every host limit: no H-SIZE";
  EXPECT_NE(digest.value("diagnosis", std::string()).find("still crosses the declared 5,000 characters"),
            std::string::npos)
      << digest.dump(2);
  std::size_t writes_made = 0, made_before = 0;
  for (const auto& t : r.report["tools"]) {
    if (t["name"] == "add_note") writes_made = t["calls"].get<std::size_t>();
    if (t["name"] != "notes_digest") made_before += t["calls"].get<std::size_t>();
  }
  EXPECT_GT(made_before, writes_made) << "no read-only call was made before it: the test proves less";
  expect_only_needed_writes(r, digest, "H-DECLARED");
}

// The conformant twin: the same tools, calls and writes, with small answers: no H-* finding.
TEST(HostsSize, SmallAnswersGiveNoFinding) {
  REQUIRE_NPM(sdk_dir());
  HarnessRun r = run_sizes("small", std::string(CTXO_BINARY_DIR) + "/test-tmp/sizes-small-cases");
  ASSERT_TRUE(r.report.is_object()) << r.err;
  EXPECT_EQ(show(host_findings(r)), "-") << r.report["findings"].dump(2);
}


// The hosts that are not checked by default, each limit just over and just under, and a lone
// surrogate: a lean run (2 calls of the one tool, no batches), with the host the case is about.
struct MoreHostsCase {
  std::string name;                ///< HOSTS_CASE.
  std::string host;                ///< --host.
  Expected expected;               ///< The H-* findings.
  std::string framing_form;        ///< The T-FRAMING form expected too ("" = no T-FRAMING finding).
};
void PrintTo(const MoreHostsCase& c, std::ostream* os) { *os << c.name << " --host " << c.host; }

const std::vector<MoreHostsCase>& more_hosts_cases() {
  static const std::vector<MoreHostsCase> c = {
      {"codex-bytes-over", "codex", {{"H-SIZE", {"warning"}}}, ""},    // 10,001 bytes: Codex drops the middle
      {"codex-bytes-under", "codex", {}, ""},                          // 10,000 bytes
      {"codex-lines-over", "codex", {{"H-SIZE", {"warning"}}}, ""},    // 257 lines, 4,111 bytes
      {"codex-lines-under", "codex", {}, ""},                          // 256 lines
      {"opencode-over", "opencode", {{"H-SIZE", {"warning"}}}, ""},    // 51,201 bytes: head kept, rest to a file
      {"opencode-under", "opencode", {}, ""},                          // 51,200 bytes
      {"cursor-tools-over", "cursor", {{"H-TOOLS", {"warning"}}}, ""},  // 81 tools
      {"cursor-tools-under", "cursor", {}, ""},                        // 80 tools
      {"vscode-tools-over", "vscode-copilot", {{"H-TOOLS", {"error"}}}, ""},  // 129 tools: every request fails
      {"vscode-tools-under", "vscode-copilot", {}, ""},                // 128 tools
      {"surrogate-answer", "default", {{"H-UNICODE", {"error"}}}, ""},  // Claude Code: the API refuses the request
      {"surrogate-answer", "none", {}, "lone-surrogate-escape"},        // no host: the wire defect, T-FRAMING
      {"surrogate-description", "default", {{"H-UNICODE", {"error"}}}, ""},
      {"surrogate-pair", "default", {}, ""},                           // a whole emoji, answer and description
  };
  return c;
}

HarnessRun run_more_hosts(const MoreHostsCase& c, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"--seed", "1", "--calls", "2", "--no-cases", "--concurrency", "0", "--tools", "fetch_page",
                                   "--host", c.host, "--env", "HOSTS_CASE=" + c.name};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--", "node", hosts_fixture()});
  return run_harness(args);
}

class MoreHosts : public ::testing::TestWithParam<MoreHostsCase> {};

TEST_P(MoreHosts, ReportsExactlyTheExpectedHostFindings) {
  REQUIRE_NPM(sdk_dir());
  const MoreHostsCase& c = GetParam();
  HarnessRun r = run_more_hosts(c);
  ASSERT_TRUE(r.report.is_object()) << c.name << ": " << r.err;
  EXPECT_EQ(show(host_findings(r)), show(c.expected)) << c.name << ": " << r.report["findings"].dump(2);
  std::set<std::string> framing;
  for (const auto& f : r.report["findings"])
    if (f.value("invariant", std::string()) == "T-FRAMING") framing.insert(f["cause"]["facts"].value("form", std::string()));
  EXPECT_EQ(framing, c.framing_form.empty() ? std::set<std::string>{} : std::set<std::string>{c.framing_form})
      << c.name << ": " << r.report["findings"].dump(2);
  for (const auto& f : r.report["findings"]) {
    const std::string id = f.value("invariant", std::string());
    const std::string d = f.value("diagnosis", std::string());
    // What the host does, said where the model loses text.
    if (c.name == "codex-bytes-over" && id == "H-SIZE") {
      EXPECT_NE(d.find("Codex keeps only the first 5,000 and the last 5,000 bytes"), std::string::npos) << d;
      EXPECT_NE(d.find("`…N tokens truncated…`"), std::string::npos) << d;
      EXPECT_NE(d.find("the model never reads line 101 of 201"), std::string::npos) << d;
    }
    if (c.name == "codex-lines-over" && id == "H-SIZE") {
      EXPECT_NE(d.find("the model never reads line 129 of 257"), std::string::npos) << d;
    }
    if (c.name == "opencode-over" && id == "H-SIZE") {
      EXPECT_NE(d.find("the model reads line 513 of 513 only if it opens that file"), std::string::npos) << d;
    }
    if (id == "H-TOOLS") {
      EXPECT_EQ(f.value("tool", std::string("?")), "") << f.dump(2);
      EXPECT_NE(d.find("The cap is shared"), std::string::npos) << d;
    }
    if (id == "H-UNICODE") {
      EXPECT_NE(d.find("no low surrogate in string"), std::string::npos) << d;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixture, MoreHosts, ::testing::ValuesIn(more_hosts_cases()), [](const auto& param_info) {
  std::string out;
  for (char ch : param_info.param.name + "_" + param_info.param.host)
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out;
});

// With --config, the run is of one server; H-TOOLS counts the file's other servers, never
// starting them (their commands do not exist).
TEST(HostsReport, ToolCapCountsTheConfigsOtherServers) {
  REQUIRE_NPM(sdk_dir());
  const std::string dir = std::string(CTXO_BINARY_DIR) + "/test-tmp/hosts-tools-config";
  std::filesystem::create_directories(dir);
  const std::string config = dir + "/mcp.json";
  {
    nlohmann::json doc = {{"mcpServers",
                           {{"fixture", {{"command", "node"}, {"args", {hosts_fixture()}}, {"env", {{"HOSTS_CASE", "cursor-tools-over"}}}}},
                            {"other-one", {{"command", "/nonexistent/ctxo-never-started-1"}}},
                            {"other-two", {{"command", "/nonexistent/ctxo-never-started-2"}}}}}};
    std::ofstream(config) << doc.dump(2);
  }
  HarnessRun r = run_harness({"--seed", "1", "--calls", "2", "--no-cases", "--concurrency", "0", "--tools", "fetch_page",
                              "--host", "cursor", "--config", config, "--server", "fixture"});
  ASSERT_TRUE(r.report.is_object()) << r.err;
  std::string d;
  for (const auto& f : r.report["findings"])
    if (f["invariant"] == "H-TOOLS") d = f.value("diagnosis", std::string());
  EXPECT_NE(d.find("lists 2 other servers, not started here"), std::string::npos) << r.report["findings"].dump(2);
}

}  // namespace
}  // namespace ctxo::test
