// SPDX-License-Identifier: MIT
// Host limits (H-SIZE, H-NAME, H-SCHEMA, H-DECLARED, H-DESC, H-TOOLS, H-UNICODE) on the built-in host profiles: each limit
// just under and just over (CJK and emoji, where characters, tokens and bytes diverge), severity
// from what the host does past it, one finding per tool, the sweep's answers not sized, the
// judge the same live and offline. Host files: loading, selection, bad files.
#include "checks/hosts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "checks/judge.h"

namespace ctxo::checks {
namespace {

using mcp::Reply;
using profile::Host;

std::vector<Host> hosts(const std::string& spec = "") {
  auto h = profile::load_hosts(spec);
  EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().message);
  return h.ok() ? std::move(*h) : std::vector<Host>{};
}

json tool(const std::string& name, json meta = nullptr) {
  json t = {{"name", name}, {"inputSchema", {{"type", "object"}, {"properties", {{"page", {{"type", "integer"}}}}}}}};
  if (!meta.is_null()) t["_meta"] = meta;
  return t;
}

Reply answer(const std::string& text, bool is_error = false, const std::string& name = "t") {
  Reply r;
  r.kind = Reply::Kind::kResult;
  r.request = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", name}, {"arguments", json::object()}}}};
  r.result = {{"content", {{{"type", "text"}, {"text", text}}}}};
  if (is_error) r.result["isError"] = true;
  return r;
}

/// `units` UTF-16 code units of CJK and astral emoji, alternating "検" (1 unit, 3 bytes) and
/// "😀" (2 units, 4 bytes); an odd remainder is one more "検".
std::string cjk(std::int64_t units) {
  std::string s;
  std::int64_t n = 0;
  while (n + 3 <= units) s += "検😀", n += 3;
  while (n < units) s += "検", ++n;
  return s;
}

/// What the meter says about one tool given these answers.
Outcomes meter(const std::vector<Host>& hs, const json& listing, const std::vector<Reply>& answers) {
  HostMeter m(hs);
  for (const auto& a : answers) m.observe(listing["name"], &listing, a);
  auto out = m.finish();
  return out[listing["name"].get<std::string>()];
}

TEST(HostProfiles, DefaultsAreClaudeCodeAndClaudeDesktop) {
  auto hs = hosts();
  ASSERT_EQ(hs.size(), 2u);
  EXPECT_EQ(hs[0].name, "claude-code");
  EXPECT_EQ(hs[1].name, "claude-desktop");
  EXPECT_TRUE(hosts("none").empty());
  EXPECT_EQ(hosts("openai").size(), 1u);
  EXPECT_EQ(hosts("openai,openai").size(), 1u);
  // Every built-in names its sources.
  for (const auto& name : profile::builtin_host_names()) {
    auto h = profile::load_hosts(name);
    ASSERT_TRUE(h.ok()) << name << ": " << h.error().message;
    for (const auto& l : (*h)[0].limits) EXPECT_FALSE(l.sources.empty()) << name << " " << l.id;
  }
}

TEST(HostProfiles, BadValuesAreClearErrors) {
  auto unknown = profile::load_hosts("claude-cod");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, "usage");
  EXPECT_NE(unknown.error().message.find("claude-code"), std::string::npos) << unknown.error().message;
  EXPECT_FALSE(profile::load_hosts("none,claude-code").ok());
  EXPECT_FALSE(profile::load_hosts("claude-code,").ok());
  const auto dir = std::filesystem::temp_directory_path() / "ctxo-hosts-test";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& file, const std::string& text) {
    std::ofstream(dir / file) << text;
    return (dir / file).string();
  };
  auto missing = profile::load_hosts((dir / "nope.json").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "io");
  auto not_json = profile::load_hosts(write("broken.json", "{"));
  ASSERT_FALSE(not_json.ok());
  EXPECT_EQ(not_json.error().code, "parse");
  auto invalid = profile::load_hosts(write("invalid.json", R"({"hostFormat":1,"name":"x","title":"X","limits":[{"id":"a"}]})"));
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.error().code, "host");
  auto bad_regex = profile::load_hosts(write("regex.json", R"({"hostFormat":1,"name":"x","title":"X","limits":[],
    "toolNames":[{"pattern":"([a-z","past":"rejected","sources":["s"]}]})"));
  ASSERT_FALSE(bad_regex.ok());
  EXPECT_NE(bad_regex.error().message.find("regular expression"), std::string::npos) << bad_regex.error().message;
  // Name rules are matched by RE2: a lookahead is refused when the file is loaded, and a nested
  // repetition that makes a backtracking engine take seconds on 30 characters is matched at once.
  auto lookahead = profile::load_hosts(write("ahead.json", R"({"hostFormat":1,"name":"x","title":"X","limits":[],
    "toolNames":[{"pattern":"^(?!x)[a-z]+$","past":"rejected","sources":["s"]}]})"));
  ASSERT_FALSE(lookahead.ok());
  EXPECT_NE(lookahead.error().message.find("RE2"), std::string::npos) << lookahead.error().message;
  auto nested = profile::load_hosts(write("nested.json", R"({"hostFormat":1,"name":"x","title":"X","limits":[],
    "toolNames":[{"pattern":"^(a+)+$","past":"rejected","sources":["s"]}]})"));
  ASSERT_TRUE(nested.ok()) << nested.error().message;
  ASSERT_EQ(nested->size(), 1u);
  const auto& rule = (*nested)[0].names.at(0);
  EXPECT_TRUE(profile::matches_name(rule, std::string(40, 'a')));
  EXPECT_FALSE(profile::matches_name(rule, std::string(40, 'a') + "b"));
  auto media_chars = profile::load_hosts(write("media.json", R"({"hostFormat":1,"name":"x","title":"X","limits":[
    {"id":"img","unit":"chars","of":"image","max":100,"past":"rejected","sources":["s"]}]})"));
  ASSERT_FALSE(media_chars.ok());
  EXPECT_NE(media_chars.error().message.find("unit must be bytes"), std::string::npos) << media_chars.error().message;
  auto bad_replace = profile::load_hosts(write("replace.json", R"({"hostFormat":1,"name":"x","title":"X","limits":[],
    "toolNames":[{"prefixed":{"template":"mcp__{server}__{tool}","replace":"[a-"},"pattern":"^.{1,64}$","past":"rejected","sources":["s"]}]})"));
  ASSERT_FALSE(bad_replace.ok());
  EXPECT_NE(bad_replace.error().message.find("prefixed.replace"), std::string::npos) << bad_replace.error().message;
  auto no_tool = profile::load_hosts(write("notool.json", R"({"hostFormat":1,"name":"x","title":"X","limits":[],
    "toolNames":[{"prefixed":{"template":"mcp__{server}"},"pattern":"^.{1,64}$","past":"rejected","sources":["s"]}]})"));
  EXPECT_FALSE(no_tool.ok());  // a template without {tool}
  auto own = profile::load_hosts(write("own.json", R"({"hostFormat":1,"name":"my-agent","title":"My agent","limits":[
    {"id":"max-chars","unit":"chars","max":100,"past":"truncated","sources":["ours"]}]})"));
  ASSERT_TRUE(own.ok()) << own.error().message;
  const json t = tool("t");
  auto o = meter(*own, t, {answer(std::string(101, 'a'))});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].severity, Severity::kError);  // truncated: an error
  EXPECT_NE(o[0].diagnosis.find("My agent cuts it without saying so past 100 characters"), std::string::npos)
      << o[0].diagnosis;
}

// Claude Code's 10,000-token warning on CJK and emoji: 39,996 UTF-16 units are 9,999 tokens
// (about 100 KB of UTF-8, which no host counts here); 40,004 are 10,001.
TEST(HostSize, TokensAreUtf16UnitsOverFourNotBytes) {
  const auto hs = hosts("claude-code");
  const json t = tool("t");
  EXPECT_TRUE(meter(hs, t, {answer(cjk(39996))}).empty());
  EXPECT_EQ(meter(hs, t, {answer(cjk(39996))}).status("H-SIZE"), Status::kPassed);
  auto over = meter(hs, t, {answer(cjk(40004))});
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(over[0].invariant, "H-SIZE");
  EXPECT_EQ(over[0].severity, Severity::kWarning);
  EXPECT_NE(over[0].diagnosis.find("past 10,000 tokens (largest answer 10,001, 1 over"), std::string::npos)
      << over[0].diagnosis;
}

TEST(HostSize, ClaudeDesktopRefusesAResultOverOneMegabyte) {
  const auto hs = hosts("claude-desktop");
  const json t = tool("t");
  // {"content":[{"type":"text","text":"..."}]} is 39 characters around the text.
  EXPECT_TRUE(meter(hs, t, {answer(std::string(1048576 - 39, 'a'))}).empty());
  auto over = meter(hs, t, {answer(std::string(1048576 - 38, 'a'))});
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(over[0].severity, Severity::kError);
  EXPECT_NE(over[0].diagnosis.find("Claude Desktop refuses it past 1,048,576 characters of the serialised result"),
            std::string::npos)
      << over[0].diagnosis;
}

// Every limit a tool's answers crossed, on all hosts, is one finding at the worst severity; its
// request is the answer furthest past a limit of that severity.
TEST(HostSize, OneFindingPerToolAtTheWorstSeverity) {
  const auto hs = hosts();
  const json t = tool("t");
  Reply big = answer(std::string(1100000, 'a'));
  big.request["params"]["arguments"] = {{"page", 3}};
  auto o = meter(hs, t, {answer("small"), answer(std::string(60000, 'a')), big});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].severity, Severity::kError);
  EXPECT_EQ(o[0].request["params"]["arguments"]["page"], 3);
  EXPECT_NE(o[0].diagnosis.find("2 of 3 answers"), std::string::npos) << o[0].diagnosis;
  // Per host, the strongest consequence only: diverted to a file (warned about too, not said).
  EXPECT_NE(o[0].diagnosis.find("Claude Code writes it to a file and shows the model only a preview past 25,000 tokens"),
            std::string::npos)
      << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("and past 50,000 characters"), std::string::npos) << o[0].diagnosis;
  EXPECT_EQ(o[0].diagnosis.find("with a warning"), std::string::npos) << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("MAX_MCP_OUTPUT_TOKENS"), std::string::npos);
  EXPECT_NE(o[0].diagnosis.find("Claude Desktop refuses it"), std::string::npos);
}

// isError text: Claude Code's 11,000-character cut is reported by users, not documented: a
// warning, though a silent cut is otherwise an error.
TEST(HostSize, AnUnverifiedLimitIsOnlyAWarning) {
  const auto hs = hosts("claude-code");
  const json t = tool("t");
  EXPECT_TRUE(meter(hs, t, {answer(std::string(10999, 'e'), true)}).empty());
  auto o = meter(hs, t, {answer(std::string(11001, 'e'), true)});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].severity, Severity::kWarning);
  EXPECT_NE(o[0].diagnosis.find("not a documented one"), std::string::npos) << o[0].diagnosis;
  // The same size as a success answer crosses nothing.
  EXPECT_TRUE(meter(hs, t, {answer(std::string(11001, 'e'))}).empty());
}

TEST(HostDeclared, ADeclaredCeilingReplacesTheHostsLimitsAndIsHeldToItsOwnWord) {
  const auto hs = hosts("claude-code");
  const json honoured = tool("t", {{"anthropic/maxResultSizeChars", 100000}});
  auto fine = meter(hs, honoured, {answer(std::string(70000, 'a'))});
  EXPECT_TRUE(fine.empty()) << fine[0].diagnosis;
  EXPECT_EQ(fine.status("H-DECLARED"), Status::kPassed);
  const json exceeded = tool("t", {{"anthropic/maxResultSizeChars", 60000}});
  auto o = meter(hs, exceeded, {answer(std::string(70000, 'a'))});
  ASSERT_EQ(o.size(), 1u);  // H-DECLARED only: the 50,000 characters and the tokens do not apply
  EXPECT_EQ(o[0].invariant, "H-DECLARED");
  EXPECT_EQ(o[0].severity, Severity::kWarning);
  EXPECT_NE(o[0].diagnosis.find("= 60,000 but 1 of 1 answers are larger (largest 70,000 characters, 10,000 over)"),
            std::string::npos)
      << o[0].diagnosis;
  // A tool that declares nothing: H-DECLARED does not apply.
  EXPECT_EQ(meter(hs, tool("t"), {answer("x")}).status("H-DECLARED"), Status::kNotApplicable);
}

TEST(HostDeclared, TheDeclaredValueMustBeAnIntegerWithinTheHostsRange) {
  const auto hs = hosts("claude-code");
  for (const json& bad : {json(600000), json("100000"), json(0), json(1.5)}) {
    SCOPED_TRACE(bad.dump());
    auto o = check_listing(hs, tool("t", {{"anthropic/maxResultSizeChars", bad}}));
    ASSERT_EQ(o.size(), 1u);
    EXPECT_EQ(o[0].invariant, "H-DECLARED");
    EXPECT_EQ(o[0].severity, Severity::kWarning);
  }
  auto ok = check_listing(hs, tool("t", {{"anthropic/maxResultSizeChars", 500000}}));
  EXPECT_TRUE(ok.empty());
  EXPECT_EQ(ok.status("H-DECLARED"), Status::kPassed);
  // Above the ceiling, the host honours 500,000: an answer of 550,000 breaks it.
  auto capped = meter(hs, tool("t", {{"anthropic/maxResultSizeChars", 600000}}), {answer(std::string(550000, 'a'))});
  ASSERT_EQ(capped.size(), 1u);
  EXPECT_EQ(capped[0].invariant, "H-DECLARED");
}

TEST(HostName, ProviderRulesOnToolNames) {
  const auto hs = hosts();
  for (const std::string& good : std::vector<std::string>{"search", "get-file_v2", std::string(64, 'a')})
    EXPECT_TRUE(check_listing(hs, tool(good)).empty()) << good;
  for (const std::string& bad : std::vector<std::string>{"search.files", "admin/tools", "Create CIFS Share", "검색",
                                std::string(129, 'a'), std::string(100000, 'a')}) {
    auto o = check_listing(hs, tool(bad));
    ASSERT_EQ(o.size(), 1u) << bad.substr(0, 80);
    EXPECT_EQ(o[0].invariant, "H-NAME");
    EXPECT_EQ(o[0].severity, Severity::kError);
    // One finding naming both hosts and each one's rule, not one finding per host.
    EXPECT_NE(o[0].diagnosis.find("Claude Code's rule: 1 to 128 characters"), std::string::npos) << o[0].diagnosis;
    EXPECT_NE(o[0].diagnosis.find("Claude Desktop's rule: 1 to 64 characters"), std::string::npos) << o[0].diagnosis;
    EXPECT_LT(o[0].diagnosis.size(), 600u);
  }
  // 65 characters: Claude Desktop's 64 only (Claude Code takes 128).
  auto long_name = check_listing(hs, tool(std::string(65, 'a')));
  ASSERT_EQ(long_name.size(), 1u);
  EXPECT_NE(long_name[0].diagnosis.find("breaks Claude Desktop's rule: 1 to 64 characters"), std::string::npos)
      << long_name[0].diagnosis;
  EXPECT_EQ(long_name[0].diagnosis.find("Claude Code"), std::string::npos) << long_name[0].diagnosis;
  EXPECT_EQ(check_listing(hs, tool("search")).status("H-NAME"), Status::kPassed);
  EXPECT_TRUE(check_listing({}, tool("search.files")).empty());
}

// Claude Code's mcp__<server>__<tool> of at most 64 characters, the server's name as the user
// configured it (an error) or guessed from serverInfo.name (a warning), characters outside
// [a-zA-Z0-9_-] replaced by "_"; not checked when the server's name is unknown.
TEST(HostName, ThePrefixedNameClaudeCodeSends) {
  const auto hs = hosts();
  const ServerName guessed{"ctxo-hosts-fixture", false}, configured{"ctxo-hosts-fixture", true};
  // "mcp__ctxo-hosts-fixture__" is 25 characters: 39 more are 64, 40 are 65.
  EXPECT_TRUE(check_listing(hs, tool(std::string(39, 'a')), &guessed).empty());
  EXPECT_TRUE(check_listing(hs, tool(std::string(40, 'a'))).empty());  // no server name: not checked
  auto o = check_listing(hs, tool(std::string(40, 'a')), &guessed);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].invariant, "H-NAME");
  EXPECT_EQ(o[0].severity, Severity::kWarning);
  EXPECT_NE(o[0].diagnosis.find("Claude Code's rule on the name it sends the model, `mcp__ctxo-hosts-fixture__" +
                                std::string(40, 'a') + "` (65 characters)"),
            std::string::npos)
      << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("serverInfo.name"), std::string::npos) << o[0].diagnosis;
  auto c = check_listing(hs, tool(std::string(40, 'a')), &configured);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].severity, Severity::kError);
  // A dot or a space in either name is one "_": the length is unchanged, the name valid.
  const ServerName spaced{"my server.v2", true};
  auto n = check_listing(hs, tool("find.page" + std::string(50, 'b')), &spaced);
  ASSERT_EQ(n.size(), 1u);
  EXPECT_NE(n[0].diagnosis.find("`mcp__my_server_v2__find_page" + std::string(50, 'b') + "` (78 characters)"),
            std::string::npos)
      << n[0].diagnosis;
  // A 65-character name breaks both hosts' rules: one finding, an error (Claude Desktop's rule).
  auto both = check_listing(hs, tool(std::string(65, 'a')), &guessed);
  ASSERT_EQ(both.size(), 1u);
  EXPECT_EQ(both[0].severity, Severity::kError);
  EXPECT_NE(both[0].diagnosis.find("Claude Desktop's rule: 1 to 64"), std::string::npos) << both[0].diagnosis;
}

// Claude Code cuts a tool's description and the server's instructions at 2,048 UTF-16 units: the
// diagnosis shows where the cut falls (never inside a character) and what is past it.
TEST(HostDesc, DescriptionsAndInstructionsPastTheCut) {
  const auto hs = hosts();
  json t = tool("t");
  t["description"] = std::string(2048, 'a');
  EXPECT_TRUE(check_listing(hs, t).empty());
  EXPECT_EQ(check_listing(hs, t).status("H-DESC"), Status::kPassed);
  // 2,047 units and an emoji (2 units): the cut keeps 2,047, the emoji is the first thing lost.
  t["description"] = std::string(2047, 'a') + "\xF0\x9F\x98\x80 Parameters: page";
  auto o = check_listing(hs, t);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].invariant, "H-DESC");
  EXPECT_EQ(o[0].tool, "t");
  EXPECT_EQ(o[0].severity, Severity::kWarning);
  EXPECT_NE(o[0].diagnosis.find("the tool's description is 2,066 characters"), std::string::npos) << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("which begins `\xF0\x9F\x98\x80 Parameters: page`"), std::string::npos) << o[0].diagnosis;
  EXPECT_TRUE(check_listing(hosts("claude-desktop"), t).empty());  // no cut there
  EXPECT_TRUE(check_listing({}, t).empty());
  // The instructions: the server's, tool "".
  EXPECT_TRUE(check_instructions(hs, {{"instructions", std::string(2048, 'x')}}).empty());
  EXPECT_EQ(check_instructions(hs, json::object()).status("H-DESC"), Status::kPassed);
  auto i = check_instructions(hs, {{"instructions", std::string(2048, 'x') + "the rest"}});
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0].tool, "");
  EXPECT_TRUE(i[0].server_level);
  EXPECT_NE(i[0].diagnosis.find("the server's instructions are 2,056 characters"), std::string::npos) << i[0].diagnosis;
  EXPECT_NE(i[0].diagnosis.find("begins `the rest`"), std::string::npos) << i[0].diagnosis;
}

// Images: the largest image block's base64 data, as sent, against Claude Code's 5 MB (5,242,880);
// an answer with no image has no image headroom; audio is measured apart.
TEST(HostSize, ImageBlocksAreMeasuredByTheirBase64) {
  Reply r = answer("a screenshot");
  r.result["content"].push_back({{"type", "image"}, {"data", std::string(5242884, 'A')}, {"mimeType", "image/png"}});
  r.result["content"].push_back({{"type", "image"}, {"data", std::string(8, 'A')}, {"mimeType", "image/png"}});
  r.result["content"].push_back({{"type", "audio"}, {"data", std::string(12, 'A')}, {"mimeType", "audio/wav"}});
  const AnswerSize s = measure_answer(r, false, false);
  EXPECT_EQ(s.image_bytes, 5242884);
  EXPECT_EQ(s.audio_bytes, 12);
  EXPECT_EQ(s.chars, 12);  // text blocks only
  auto o = meter(hosts("claude-code"), tool("shot"), {r});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].invariant, "H-SIZE");
  EXPECT_EQ(o[0].severity, Severity::kWarning);  // a reported limit
  EXPECT_NE(o[0].diagnosis.find("Claude Code refuses it past 5,242,880 bytes of an image block's base64 data"),
            std::string::npos)
      << o[0].diagnosis;
  Reply small = answer("a screenshot");
  small.result["content"].push_back({{"type", "image"}, {"data", std::string(5242880, 'A')}, {"mimeType", "image/png"}});
  EXPECT_TRUE(meter(hosts("claude-code"), tool("shot"), {small}).empty());
  HostMeter m(hosts("claude-code"));
  m.observe("t", nullptr, answer("text only"));
  m.finish();
  for (const auto& h : m.largest().at("t").headroom) EXPECT_NE(h.limit, "image-bytes");
}

TEST(HostSchema, TopLevelCombinatorsAreRefusedNestedOnesAreNot) {
  const auto hs = hosts();
  json t = tool("t");
  t["inputSchema"]["anyOf"] = json::array({{{"required", {"page"}}}, {{"required", {"id"}}}});
  auto o = check_listing(hs, t);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].invariant, "H-SCHEMA");
  EXPECT_EQ(o[0].severity, Severity::kError);
  EXPECT_NE(o[0].diagnosis.find("this schema has anyOf at its top level"), std::string::npos) << o[0].diagnosis;
  json nested = tool("t");
  nested["inputSchema"]["properties"]["q"] = {{"anyOf", {{{"type", "string"}}, {{"type", "integer"}}}}};
  nested["inputSchema"]["properties"]["anyOf"] = {{"type", "string"}};  // a property so named is not the keyword
  EXPECT_TRUE(check_listing(hs, nested).empty());
  EXPECT_EQ(check_listing(hs, nested).status("H-SCHEMA"), Status::kPassed);
}

// An answer that came after calls that may have written carries them, so its case replays the
// state that made it large; the answer itself is not part of its own sequence.
TEST(HostSize, AnAnswerAfterWritesCarriesThem) {
  const auto hs = hosts("claude-code");
  const json t = tool("t");
  HostMeter m(hs);
  Reply big = answer(std::string(60000, 'a'));
  const json write = {{"method", "tools/call"}, {"params", {{"name", "add"}, {"arguments", {{"x", 1}}}}}};
  const std::vector<json> before = {write, write, big.request};
  m.observe("t", &t, big, &before);
  auto out = m.finish();
  ASSERT_EQ(out["t"].size(), 1u);
  ASSERT_TRUE(out["t"][0].sequence.is_array());
  EXPECT_EQ(out["t"][0].sequence.size(), 2u);
  EXPECT_NE(out["t"][0].diagnosis.find("after 2 calls on the same server"), std::string::npos) << out["t"][0].diagnosis;
  // No writes before it: no sequence, nothing said.
  HostMeter quiet(hs);
  quiet.observe("t", &t, big, nullptr);
  auto q = quiet.finish();
  ASSERT_EQ(q["t"].size(), 1u);
  EXPECT_TRUE(q["t"][0].sequence.is_null());
  EXPECT_EQ(q["t"][0].diagnosis.find("same server"), std::string::npos);
}

// What a smaller case must still show: the one host limit the finding's evidence crossed, of
// those past which the host does the most (Claude Code writes the answer to a file past 25,000
// tokens or 50,000 characters; past 10,000 tokens it only warns), the furthest past (50,000
// characters here), measured as the run measured it (a quote of a long generated string
// discounted); and the case then told as it is.
TEST(HostSize, ASmallerCaseMustCrossTheSameLimit) {
  const auto hs = hosts("claude-code");
  const json t = tool("t");
  HostMeter m(hs);
  Reply big = answer(std::string(120000, 'a'));  // 30,000 tokens: past 10,000, 25,000 and 50,000 chars
  const json write = {{"method", "tools/call"}, {"params", {{"name", "add"}, {"arguments", {{"x", 1}}}}}};
  const std::vector<json> before = {write, write, write};
  m.observe("t", &t, big, &before);
  auto out = m.finish();
  ASSERT_EQ(out["t"].size(), 1u);
  Finding f = out["t"][0];
  const json generated = f.sequence;
  EXPECT_NE(f.diagnosis.find("may have made it this large"), std::string::npos) << f.diagnosis;
  EXPECT_EQ(m.crosses(f, answer(std::string(50001, 'a')), nullptr), 50001);  // characters, the limit's unit
  EXPECT_FALSE(m.crosses(f, answer(std::string(50000, 'a')), nullptr));      // at the limit
  EXPECT_FALSE(m.crosses(f, answer(std::string(45000, 'a')), nullptr));      // past 10,000 tokens only: warned
  EXPECT_FALSE(m.crosses(f, answer(std::string(50001, 'a'), true), nullptr)); // error text: another limit
  Finding other = f;
  other.tool = "other";
  EXPECT_FALSE(m.crosses(other, answer(std::string(120000, 'a')), nullptr));  // no finding on that tool
  // 49,000 characters of its own and a 3,000-character string of ours quoted: 49,032 measured.
  const std::string ours(3000, 'q');
  Reply echo = answer(std::string(49000, 'a') + ours);
  echo.request["params"]["arguments"] = {{"text", ours}};
  EXPECT_FALSE(m.crosses(f, echo, nullptr));
  // Told: the smallest call and the one write it needs, in place of the run's three.
  const Reply smallest = answer("row 1 " + std::string(49996, 'b'));
  f.sequence = json::array({write});
  m.retell(f, generated, SizeCase{&smallest, 50002, 1, 1});
  EXPECT_EQ(f.diagnosis.find("may have made it this large"), std::string::npos) << f.diagnosis;
  EXPECT_NE(f.diagnosis.find("(largest answer 120,000, 70,000 over"), std::string::npos) << f.diagnosis;
  EXPECT_NE(f.diagnosis.find(". Its case is the smallest call found whose answer still crosses Claude Code's 50,000 "
                             "characters (50,002), made on a fresh server after 1 earlier call (a write: "),
            std::string::npos)
      << f.diagnosis;
  EXPECT_EQ(f.response_excerpt.rfind("row 1 ", 0), 0u) << f.response_excerpt;
  // None needed.
  Finding alone = out["t"][0];
  alone.sequence = nullptr;
  m.retell(alone, generated, SizeCase{&smallest, 50002, 0, 0});
  EXPECT_NE(alone.diagnosis.find("made on a fresh server with no call before it"), std::string::npos) << alone.diagnosis;
  EXPECT_EQ(alone.diagnosis.find("same server"), std::string::npos) << alone.diagnosis;
}

// H-DECLARED's case is made minimal with H-SIZE's machinery: its cause names the host whose
// declared ceiling was crossed, a smaller case must still cross that ceiling (not a host limit),
// and its case is told as H-SIZE's is.
TEST(HostSize, ASmallerDeclaredCaseMustCrossTheDeclaredCeiling) {
  const auto hs = hosts("claude-code");
  const json t = tool("t", {{"anthropic/maxResultSizeChars", 5000}});
  HostMeter m(hs);
  const json write = {{"method", "tools/call"}, {"params", {{"name", "add"}, {"arguments", {{"x", 1}}}}}};
  const std::vector<json> before = {write, write, write};
  m.observe("t", &t, answer(std::string(9000, 'a')), &before);
  auto out = m.finish();
  ASSERT_EQ(out["t"].size(), 1u);
  Finding f = out["t"][0];
  ASSERT_EQ(f.invariant, "H-DECLARED");
  EXPECT_EQ(f.cause, (std::map<std::string, std::string>{{"form", "over-declared-ceiling"}, {"host", "Claude Code"}}));
  const json generated = f.sequence;
  EXPECT_EQ(m.crosses(f, answer(std::string(5001, 'a')), nullptr), 5001);
  EXPECT_FALSE(m.crosses(f, answer(std::string(5000, 'a')), nullptr));  // at the ceiling
  Finding elsewhere = f;
  elsewhere.cause["host"] = "Claude Desktop";  // no ceiling crossed for that host
  EXPECT_FALSE(m.crosses(elsewhere, answer(std::string(9000, 'a')), nullptr));
  const Reply smallest = answer(std::string(5001, 'b'));
  f.sequence = json::array({write});
  m.retell(f, generated, SizeCase{&smallest, 5001, 1, 1});
  EXPECT_EQ(f.diagnosis.find("may have made it this large"), std::string::npos) << f.diagnosis;
  EXPECT_NE(f.diagnosis.find(". Its case is the smallest call found whose answer still crosses the declared 5,000 "
                             "characters (5,001), made on a fresh server after 1 earlier call (a write: "),
            std::string::npos)
      << f.diagnosis;
}

// An answer large only because it quotes the run's own long generated strings (its own argument,
// or one a write before it stored) is measured with each quote as a 32-character value: no H-SIZE.
// Quotes are found as sent and JSON-escaped; a large answer of its own is still reported, and says
// what was discounted.
TEST(HostSize, EchoesOfGeneratedStringsAreMeasuredAsRealisticValues) {
  const auto hs = hosts("claude-code");
  const json t = tool("t");
  const std::string generated = std::string(3000, 'q') + "\x14\"" + std::string(583, 'z');  // escaped in JSON
  const std::string escaped = json(generated).dump().substr(1, json(generated).dump().size() - 2);
  std::string twelve;
  for (int i = 0; i < 12; ++i) twelve += generated + "\n";
  Reply echo = answer(twelve + std::string(20000, 'a'));  // 63,032 chars, 43,020 of them our own string
  echo.request["params"]["arguments"] = {{"text", generated}};
  EXPECT_TRUE(meter(hs, t, {echo}).empty());
  EXPECT_EQ(meter(hs, t, {echo}).status("H-SIZE"), Status::kPassed);
  const AnswerSize own = without_echoes(measure_answer(echo, false, false), echo, nullptr);
  EXPECT_EQ(own.echoes, 12);
  EXPECT_EQ(own.chars, 63032 - 12 * (3585 - kEchoCounted));
  // Stored by a write before a read that returns it, JSON-escaped inside the read's JSON text.
  const json write = {{"method", "tools/call"}, {"params", {{"name", "add"}, {"arguments", {{"body", generated}}}}}};
  std::string graph = "{\"items\":[";
  for (int i = 0; i < 16; ++i) graph += std::string(i ? "," : "") + "\"" + escaped + "\"";
  graph += "]}";
  Reply read = answer(graph);
  const std::vector<json> before = {write};
  const AnswerSize stored = without_echoes(measure_answer(read, false, false), read, &before);
  EXPECT_EQ(stored.echoes, 16);
  EXPECT_LT(stored.chars, 1000);
  HostMeter m(hs);
  m.observe("t", &t, read, &before);
  EXPECT_TRUE(m.finish()["t"].empty()) << "57,000 chars, all of them our own string";
  // Large beyond its echoes: reported, and the diagnosis says the echoes were discounted.
  Reply big = answer(generated + std::string(60000, 'a'));
  big.request["params"]["arguments"] = {{"text", generated}};
  auto o = meter(hs, t, {big});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_NE(o[0].diagnosis.find("(largest answer 60,032,"), std::string::npos) << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("measured with the 1 quote of long strings the run generated counted as 32-character values"),
            std::string::npos)
      << o[0].diagnosis;
  // A short argument (a harvested value, a name) is never discounted.
  Reply named = answer(std::string(60000, 'a'));
  named.request["params"]["arguments"] = {{"text", std::string(600, 'a')}};
  EXPECT_EQ(without_echoes(measure_answer(named, false, false), named, nullptr).chars, 60000);
}

// The long strings of a session's earlier calls are gathered as its calls grow (each call walked
// once), and give what gathering them all again gives: the first 32 distinct, in order; a
// sequence that was replaced (a restart) is read again from its start.
TEST(HostMeter, EchoStringsGrowWithTheCallsAndMatchAFullWalk) {
  auto call = [](const json& args) { return json{{"method", "tools/call"}, {"params", {{"name", "w"}, {"arguments", args}}}}; };
  auto big = [](int i) { return std::string(kEchoMin + static_cast<std::size_t>(i), static_cast<char>('a' + i % 26)); };
  std::vector<json> calls;
  EchoStrings gathered;
  for (int i = 0; i < 40; ++i) {
    calls.push_back(call({{"x", big(i)}, {"short", "s"}, {"again", big(i / 2)}, {"deep", {{"y", json::array({big(i + 100)})}}}}));
    const auto& got = gathered.of(calls);
    // Gathered from scratch over every call: the same.
    EchoStrings fresh;
    EXPECT_EQ(got, fresh.of(calls)) << "after " << calls.size() << " calls";
    EXPECT_LE(got.size(), 32u);
  }
  EXPECT_EQ(gathered.of(calls).size(), 32u);
  EXPECT_EQ(gathered.of(calls).front(), big(0));
  // Replaced by another session's calls (a restart): read again.
  calls = {call({{"x", big(7) + "!"}})};
  EXPECT_EQ(gathered.of(calls), std::vector<std::string>({big(7) + "!"}));
  // The answer is measured the same with the gathered strings as with the calls themselves.
  const std::vector<json> before = {call({{"body", big(3)}})};
  Reply read = answer("[\"" + big(3) + "\",\"" + big(3) + "\"]");
  EchoStrings g;
  const AnswerSize a = without_echoes(measure_answer(read, false, false), read, &before);
  const AnswerSize b = without_echoes(measure_answer(read, false, false), read, g.of(before));
  EXPECT_EQ(a.echoes, 2);
  EXPECT_EQ(a.chars, b.chars);
  EXPECT_EQ(a.echoes, b.echoes);
}

// The judge sizes answers under the environment of its first call (the server as configured);
// the limit sweep's answers under a raised limit are not what a host will be sent.
TEST(HostJudge, SweepAnswersAreNotSizedAndListingsAreCheckedOnce) {
  JudgeSetup setup;
  setup.tools = {tool("t"), tool("search.files")};
  setup.hosts = hosts();
  Judge judge(setup);
  Reply small = answer("fine"), huge = answer(std::string(2000000, 'a'));
  Exchange x;
  x.tool = "t";
  x.reply = &small;
  x.env = {{"A", "1"}};
  judge.call(x);
  x.reply = &huge;
  x.env = {{"A", "1"}, {"CTXO_RESPONSE_LIMIT", "2000000"}};
  judge.call(x);
  auto out = judge.finish();
  EXPECT_TRUE(out["t"].empty()) << out["t"][0].diagnosis;
  EXPECT_EQ(out["t"].status("H-SIZE"), Status::kPassed);
  ASSERT_EQ(judge.largest().count("t"), 1u);
  EXPECT_EQ(judge.largest().at("t").chars, 4);
  EXPECT_EQ(judge.listing("search.files").size(), 1u);
  EXPECT_TRUE(judge.listing("search.files").empty());  // once per tool
  EXPECT_TRUE(judge.listing("unlisted").empty());
}


// Every built-in host loads by name; `all` is all of them; the default set stays Claude's two.
TEST(HostProfiles, EveryBuiltInLoadsAndAllSelectsThem) {
  const auto names = profile::builtin_host_names();
  for (const char* n : {"claude-code", "claude-desktop", "codex", "copilot-cli", "cursor", "openai", "opencode", "trae", "vscode-copilot",
                        "windsurf"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_EQ(hosts("all").size(), names.size());
  EXPECT_FALSE(profile::load_hosts("all,codex").ok());
  for (const auto& h : hosts("all")) EXPECT_EQ(h.is_default, h.name == "claude-code" || h.name == "claude-desktop") << h.name;
  // The new fields, as read.
  const auto codex = hosts("codex");
  ASSERT_EQ(codex.size(), 1u);
  ASSERT_EQ(codex[0].limits.size(), 2u);
  EXPECT_EQ(codex[0].limits[0].unit, profile::Unit::kBytes);
  EXPECT_EQ(codex[0].limits[0].cut, profile::HostLimit::Cut::kMiddle);
  EXPECT_EQ(codex[0].limits[0].marker, "…N tokens truncated…");
  EXPECT_EQ(codex[0].limits[1].unit, profile::Unit::kLines);
  const auto cursor = hosts("cursor");
  ASSERT_TRUE(cursor[0].tools.has_value());
  EXPECT_EQ(cursor[0].tools->max, 80);
  EXPECT_TRUE(cursor[0].tools->across_servers);
  EXPECT_EQ(cursor[0].tools->severity(), Severity::kWarning);  // reported, not documented
  const auto vscode = hosts("vscode-copilot");
  ASSERT_TRUE(vscode[0].tools.has_value());
  EXPECT_EQ(vscode[0].tools->severity(), Severity::kError);
  ASSERT_TRUE(hosts("claude-code")[0].lone_surrogate.has_value());
  EXPECT_FALSE(hosts("claude-desktop")[0].lone_surrogate.has_value());
  // A line limit counts the text only.
  const auto dir = std::filesystem::temp_directory_path() / "ctxo-hosts-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "lines.json") << R"({"hostFormat":1,"name":"x","title":"X","limits":[
    {"id":"l","unit":"lines","of":"result","max":10,"past":"truncated","sources":["s"]}]})";
  auto bad = profile::load_hosts((dir / "lines.json").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("counts lines"), std::string::npos) << bad.error().message;
}

/// `n` bytes of ASCII in lines of `width` bytes ("\n" included), the last one unterminated.
std::string lined(std::size_t n, std::size_t width) {
  std::string s;
  while (s.size() < n) s += std::string(width - 1, 'x') + "\n";
  s.resize(n);
  if (!s.empty() && s.back() == '\n') s.back() = '.';
  return s;
}

TEST(HostSize, LinesAreCountedAsAHostSplitsThem) {
  EXPECT_EQ(measure_answer(answer(""), false, false).lines, 0);
  EXPECT_EQ(measure_answer(answer("a"), false, false).lines, 1);
  EXPECT_EQ(measure_answer(answer("a\n"), false, false).lines, 1);
  EXPECT_EQ(measure_answer(answer("a\nb"), false, false).lines, 2);
  Reply two = answer("a");
  two.result["content"].push_back({{"type", "text"}, {"text", "b\nc"}});
  EXPECT_EQ(measure_answer(two, false, false).lines, 3);  // joined by "\n"
}

// Codex cuts the middle: the diagnosis says what it keeps, its marker, and which lines are lost.
TEST(HostSize, CodexCutsTheMiddleAndSaysWhichLinesTheModelNeverReads) {
  const auto hs = hosts("codex");
  const json t = tool("t");
  EXPECT_TRUE(meter(hs, t, {answer(lined(10000, 50))}).empty());
  auto o = meter(hs, t, {answer(lined(20000, 50))});  // 400 lines
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].severity, Severity::kWarning);  // the figure depends on the model
  EXPECT_NE(o[0].diagnosis.find("Codex keeps only the first 5,000 and the last 5,000 bytes of an answer past 10,000 bytes"),
            std::string::npos)
      << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("puts `…N tokens truncated…` between them: the model never reads lines 101-300 of 400"),
            std::string::npos)
      << o[0].diagnosis;
  // 257 short lines: the line rule.
  EXPECT_TRUE(meter(hs, t, {answer(lined(256 * 4 - 1, 4))}).empty());
  auto lines = meter(hs, t, {answer(lined(300 * 4 - 1, 4))});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].diagnosis.find("the first 128 and the last 128 lines"), std::string::npos) << lines[0].diagnosis;
  EXPECT_NE(lines[0].diagnosis.find("the model never reads lines 129-172 of 300"), std::string::npos) << lines[0].diagnosis;
}

// OpenCode keeps the head and writes the whole answer to a file: the rest is read only from it.
TEST(HostSize, OpenCodeKeepsTheHeadAndDivertsTheRest) {
  const auto hs = hosts("opencode");
  const json t = tool("t");
  EXPECT_TRUE(meter(hs, t, {answer(lined(51200, 100))}).empty());
  auto o = meter(hs, t, {answer(lined(60000, 100))});  // 600 lines
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].severity, Severity::kWarning);
  EXPECT_NE(o[0].diagnosis.find("OpenCode keeps only the first 51,200 bytes of an answer past 51,200 bytes"), std::string::npos)
      << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("writes the whole answer to a file: the model reads lines 513-600 of 600 only if it opens"),
            std::string::npos)
      << o[0].diagnosis;
  // 2,001 lines under 51,200 bytes: the line limit.
  auto many = meter(hs, t, {answer(lined(2001 * 2 - 1, 2))});
  ASSERT_EQ(many.size(), 1u);
  EXPECT_NE(many[0].diagnosis.find("past 2,000 lines"), std::string::npos) << many[0].diagnosis;
}

TEST(HostTools, ACapOnToolsIsJudgedOnTheListingAndShared) {
  EXPECT_TRUE(check_tool_count(hosts("cursor"), 80, true).empty());
  EXPECT_EQ(check_tool_count(hosts("cursor"), 80, true).status("H-TOOLS"), Status::kPassed);
  // No host with a cap: not checked.
  EXPECT_EQ(check_tool_count(hosts("codex"), 500, true).statuses().count("H-TOOLS"), 0u);
  auto o = check_tool_count(hosts("cursor,vscode-copilot"), 129, true);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].invariant, "H-TOOLS");
  EXPECT_TRUE(o[0].server_level);
  EXPECT_EQ(o[0].severity, Severity::kError);  // VS Code refuses every request
  EXPECT_NE(o[0].diagnosis.find("the server lists 129 tools"), std::string::npos) << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("Cursor offers the model at most 80 tools across all the MCP servers"), std::string::npos)
      << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("Cannot have more than 128 tools per request"), std::string::npos) << o[0].diagnosis;
  EXPECT_NE(o[0].diagnosis.find("The cap is shared"), std::string::npos) << o[0].diagnosis;
  // Only Cursor's cap crossed: a warning. With --config: the file's other servers are named.
  const ConfigServers config{"mcp.json", 2};
  auto c = check_tool_count(hosts("cursor,vscode-copilot"), 81, false, &config);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].severity, Severity::kWarning);
  EXPECT_NE(c[0].diagnosis.find("at least 81 tools"), std::string::npos) << c[0].diagnosis;
  EXPECT_NE(c[0].diagnosis.find("--config 'mcp.json' lists 2 other servers, not started here"), std::string::npos)
      << c[0].diagnosis;
  EXPECT_EQ(c[0].diagnosis.find("VS Code"), std::string::npos) << c[0].diagnosis;
  // Trae's 40 and Windsurf's 100: 41 tools cross Trae's alone (a warning, reported by users).
  auto t = check_tool_count(hosts("trae,windsurf"), 41, true);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].severity, Severity::kWarning);
  EXPECT_NE(t[0].diagnosis.find("Trae"), std::string::npos) << t[0].diagnosis;
  EXPECT_EQ(t[0].diagnosis.find("Windsurf"), std::string::npos) << t[0].diagnosis;
  EXPECT_TRUE(check_tool_count(hosts("trae,windsurf"), 40, true).empty());
  auto ws = check_tool_count(hosts("windsurf"), 101, true);
  ASSERT_EQ(ws.size(), 1u);
  EXPECT_NE(ws[0].diagnosis.find("exceed max limit of 100"), std::string::npos) << ws[0].diagnosis;
}

Finding lone_surrogate_framing(const std::string& method) {
  Finding f;
  f.invariant = "T-FRAMING";
  f.severity = Severity::kError;
  f.cause = {{"form", "lone-surrogate-escape"}};
  f.request = {{"jsonrpc", "2.0"}, {"id", 3}, {"method", method}};
  if (method == "tools/call") f.request["params"] = {{"name", "fetch"}, {"arguments", json::object()}};
  f.diagnosis = "a message holds a lone UTF-16 surrogate escape (\\ud83d at byte 40): it encodes no Unicode character, "
                "so clients that decode strictly reject the whole message. Send a surrogate pair, or U+FFFD";
  return f;
}

// With a host that cannot take a lone surrogate, H-UNICODE says it once in place of T-FRAMING;
// without one (or outside tools/call and tools/list), T-FRAMING stays.
TEST(HostUnicode, ALoneSurrogateIsSaidAsWhatTheHostDoes) {
  auto answer_finding = unicode_finding(hosts(), lone_surrogate_framing("tools/call"));
  ASSERT_TRUE(answer_finding.has_value());
  EXPECT_EQ(answer_finding->invariant, "H-UNICODE");
  EXPECT_EQ(answer_finding->severity, Severity::kError);
  EXPECT_EQ(answer_finding->tool, "fetch");
  EXPECT_EQ(answer_finding->cause.at("where"), "answer");
  EXPECT_NE(answer_finding->diagnosis.find("the tool's answer holds a lone UTF-16 surrogate escape (\\ud83d at byte 40): "),
            std::string::npos)
      << answer_finding->diagnosis;
  EXPECT_NE(answer_finding->diagnosis.find("Claude Code passes it on to the Anthropic API"), std::string::npos)
      << answer_finding->diagnosis;
  EXPECT_NE(answer_finding->diagnosis.find("no low surrogate in string"), std::string::npos);
  auto listing = unicode_finding(hosts("claude-code"), lone_surrogate_framing("tools/list"));
  ASSERT_TRUE(listing.has_value());
  EXPECT_TRUE(listing->server_level);
  EXPECT_EQ(listing->cause.at("where"), "listing");
  EXPECT_FALSE(unicode_finding(hosts("none"), lone_surrogate_framing("tools/call")).has_value());
  EXPECT_FALSE(unicode_finding(hosts("claude-desktop,codex"), lone_surrogate_framing("tools/call")).has_value());
  EXPECT_FALSE(unicode_finding(hosts(), lone_surrogate_framing("initialize")).has_value());
  Finding other = lone_surrogate_framing("tools/call");
  other.cause["form"] = "invalid-utf8";
  EXPECT_FALSE(unicode_finding(hosts(), other).has_value());
  // Checked whenever such a host is selected.
  EXPECT_EQ(check_tool_count(hosts(), 3, true).status("H-UNICODE"), Status::kPassed);
  EXPECT_EQ(check_tool_count(hosts("claude-desktop"), 3, true).statuses().count("H-UNICODE"), 0u);
}

}  // namespace
}  // namespace ctxo::checks
