// SPDX-License-Identifier: MIT
// Protocol checks and the registry: each rule fires on a planted defect and stays quiet on a
// conformant answer.
#include "checks/protocol.h"

#include <gtest/gtest.h>

#include <fstream>

#include "checks/registry.h"

namespace ctxo::checks {
namespace {

std::vector<std::string> ids(const Outcomes& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.invariant + (f.severity == Severity::kWarning ? "(w)" : ""));
  return out;
}

mcp::ServerInfo legacy_info(json result) {
  mcp::ServerInfo i;
  i.era = "legacy";
  i.init_result = std::move(result);
  i.init_request = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}};
  return i;
}

json good_init() {
  return {{"protocolVersion", "2025-06-18"}, {"capabilities", {{"tools", json::object()}}},
          {"serverInfo", {{"name", "s"}, {"version", "1.0"}}}};
}

TEST(CheckInit, ConformantResultHasNoFinding) { EXPECT_TRUE(check_init(legacy_info(good_init())).empty()); }

TEST(CheckInit, UnknownVersionMissingServerInfoAndNoToolsCapability) {
  json r = good_init();
  r["protocolVersion"] = "1999-01-01";
  EXPECT_EQ(ids(check_init(legacy_info(r))), std::vector<std::string>{"P-INIT"});
  r = good_init();
  r.erase("serverInfo");
  EXPECT_EQ(ids(check_init(legacy_info(r))), std::vector<std::string>{"P-INIT"});
  r = good_init();
  r["capabilities"] = json::object();
  EXPECT_EQ(ids(check_init(legacy_info(r))), std::vector<std::string>{"P-INIT"});
  EXPECT_EQ(ids(check_init(legacy_info(json::array()))), std::vector<std::string>{"P-INIT"});
}

TEST(CheckInit, ModernDiscoverResult) {
  mcp::ServerInfo i;
  i.era = "modern";
  i.init_result = {{"supportedVersions", {"2026-07-28"}}, {"capabilities", {{"tools", json::object()}}},
                   {"ttlMs", 1000}, {"cacheScope", "session"}};
  EXPECT_TRUE(check_init(i).empty());
  i.init_result.erase("ttlMs");
  EXPECT_EQ(ids(check_init(i)), std::vector<std::string>{"P-INIT(w)"});
}

mcp::Client::ToolsListing listing_of(json tools) {
  mcp::Client::ToolsListing l;
  mcp::Reply r;
  r.kind = mcp::Reply::Kind::kResult;
  r.request = {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}};
  r.result = {{"tools", tools}};
  l.pages.push_back(r);
  l.tool_count = tools.size();
  return l;
}

json tool(const std::string& name, json schema = {{"type", "object"}}) {
  return {{"name", name}, {"inputSchema", schema}};
}

TEST(CheckToolsList, ConformantListHasNoFinding) {
  EXPECT_TRUE(check_tools_list(listing_of(json::array({tool("a"), tool("b.c-d_e")})), "legacy").empty());
}

TEST(CheckToolsList, Violations) {
  EXPECT_EQ(ids(check_tools_list(listing_of(json::array({tool("a"), tool("a")})), "legacy")), std::vector<std::string>{"P-LIST"});
  EXPECT_EQ(ids(check_tools_list(listing_of(json::array({tool("a", {{"type", "string"}})})), "legacy")),
            std::vector<std::string>{"P-LIST"});
  EXPECT_EQ(ids(check_tools_list(listing_of(json::array({json{{"name", "a"}}})), "legacy")), std::vector<std::string>{"P-LIST"});
  EXPECT_EQ(ids(check_tools_list(listing_of(json::array({tool("has space")})), "legacy")), std::vector<std::string>{"P-LIST(w)"});
  auto l = listing_of(json::array({tool("a")}));
  l.cursor_loop = true;
  EXPECT_EQ(ids(check_tools_list(l, "legacy")), std::vector<std::string>{"P-LIST"});
  l = listing_of(json::array({tool("a")}));
  l.pages[0].kind = mcp::Reply::Kind::kError;
  l.pages[0].error = {{"code", -32603}, {"message", "boom"}};
  EXPECT_EQ(ids(check_tools_list(l, "legacy")), std::vector<std::string>{"P-LIST"});
}

mcp::Reply result_reply(json result) {
  mcp::Reply r;
  r.kind = mcp::Reply::Kind::kResult;
  r.request = {{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"}, {"params", {{"name", "t"}}}};
  r.result = std::move(result);
  return r;
}

TEST(CheckCall, ConformantResultsHaveNoFinding) {
  CallContext ctx;
  ctx.schema_valid = true;
  EXPECT_TRUE(check_call(ctx, result_reply({{"content", {{{"type", "text"}, {"text", "hi"}}}}})).empty());
  EXPECT_TRUE(check_call(ctx, result_reply({{"content", json::array()}, {"isError", true}})).empty());
  EXPECT_TRUE(check_call(ctx, result_reply({{"content",
                                             {{{"type", "image"}, {"data", "aGk="}, {"mimeType", "image/png"}},
                                              {{"type", "resource_link"}, {"uri", "file:///a"}, {"name", "a"}},
                                              {{"type", "resource"}, {"resource", {{"uri", "x:1"}, {"text", "t"}}}}}}}))
                  .empty());
}

TEST(CheckCall, MalformedResults) {
  CallContext ctx;
  auto one = [&](json r) { return ids(check_call(ctx, result_reply(std::move(r)))); };
  const std::vector<std::string> p{"P-RESULT"};
  EXPECT_EQ(one(json::object()), p);
  EXPECT_EQ(one({{"content", {{{"text", "no type"}}}}}), p);
  EXPECT_EQ(one({{"content", {{{"type", "text"}}}}}), p);
  EXPECT_EQ(one({{"content", {{{"type", "video"}, {"data", "x"}}}}}), p);
  EXPECT_EQ(one({{"content", {{{"type", "image"}, {"data", "not base64!"}, {"mimeType", "image/png"}}}}}), p);
  EXPECT_EQ(one({{"content", json::array()}, {"isError", "yes"}}), p);
  EXPECT_EQ(one({{"content", "text"}}), p);
}

TEST(CheckCall, StructuredContentIsValidatedWhenAnOutputSchemaExists) {
  CallContext ctx;
  ctx.output_validator = [](const json& v) -> std::vector<std::string> {
    if (v.is_object() && v.contains("n") && v["n"].is_number_integer()) return {};
    return {"at /n: not an integer"};
  };
  EXPECT_TRUE(check_call(ctx, result_reply({{"content", json::array()}, {"structuredContent", {{"n", 1}}}})).empty());
  EXPECT_EQ(ids(check_call(ctx, result_reply({{"content", json::array()}, {"structuredContent", {{"n", "x"}}}}))),
            std::vector<std::string>{"P-RESULT"});
  EXPECT_EQ(ids(check_call(ctx, result_reply({{"content", json::array()}}))), std::vector<std::string>{"P-RESULT"});
  // An error result need not carry structured content.
  EXPECT_TRUE(check_call(ctx, result_reply({{"content", json::array()}, {"isError", true}})).empty());
  // One that carries it is held to the schema only when strict clients are asked for.
  const json bad_error = {{"content", json::array()}, {"isError", true}, {"structuredContent", {{"error", "x"}}}};
  EXPECT_TRUE(check_call(ctx, result_reply(bad_error)).empty());
  ctx.strict_error_output = true;
  const Outcomes strict = check_call(ctx, result_reply(bad_error));
  ASSERT_EQ(ids(strict), std::vector<std::string>{"P-RESULT"});
  EXPECT_EQ(strict[0].cause.at("form"), "error-result");
  EXPECT_TRUE(check_call(ctx, result_reply({{"content", json::array()}, {"isError", true}})).empty());
  EXPECT_TRUE(check_call(ctx, result_reply({{"content", json::array()}, {"isError", true}, {"structuredContent", {{"n", 2}}}})).empty());
}

mcp::Reply error_reply(int code) {
  mcp::Reply r = result_reply(nullptr);
  r.kind = mcp::Reply::Kind::kError;
  r.error = {{"code", code}, {"message", "m"}};
  return r;
}

TEST(CheckCall, NoThrow) {
  CallContext valid;
  valid.schema_valid = true;
  CallContext invalid;
  EXPECT_EQ(ids(check_call(valid, error_reply(-32602))), std::vector<std::string>{"P-NO-THROW"});
  EXPECT_EQ(ids(check_call(valid, error_reply(-32603))), std::vector<std::string>{"P-NO-THROW"});
  EXPECT_EQ(ids(check_call(invalid, error_reply(-32603))), std::vector<std::string>{"P-NO-THROW"});
  EXPECT_TRUE(check_call(invalid, error_reply(-32602)).empty());
}

TEST(Registry, IdsAreUniqueAndMatchTheReportSchema) {
  std::ifstream f(std::string(CTXO_SOURCE_DIR) + "/schemas/report.schema.json");
  json schema = json::parse(f);
  std::vector<std::string> in_schema = schema["definitions"]["invariant"]["enum"];
  std::vector<std::string> in_registry;
  for (const auto& inv : registry()) in_registry.push_back(inv.id);
  EXPECT_EQ(in_schema, in_registry);
  for (const auto& id : in_registry) EXPECT_EQ(find_invariant(id)->id, id);
  EXPECT_EQ(find_invariant("NOPE"), nullptr);
}

TEST(Selection, OnlyAndSkip) {
  Selection all;
  EXPECT_TRUE(all.enabled("T-ID"));
  Selection only({"T-ID"}, {});
  EXPECT_TRUE(only.enabled("T-ID"));
  EXPECT_FALSE(only.enabled("T-HANG"));
  Selection skip({}, {"T-ID"});
  EXPECT_FALSE(skip.enabled("T-ID"));
  EXPECT_TRUE(skip.enabled("T-HANG"));
}

TEST(CheckAcceptance, AValidCallRejectedAsInvalidInputIsPAccept) {
  CallContext valid;
  valid.schema_valid = true;
  auto text_error = [](const std::string& t) {
    return result_reply({{"content", {{{"type", "text"}, {"text", t}}}}, {"isError", true}});
  };
  EXPECT_EQ(ids(check_acceptance(valid, text_error("MCP error -32602: Invalid arguments for tool t"), "", std::nullopt)),
            std::vector<std::string>{"P-ACCEPT(w)"});
  EXPECT_EQ(ids(check_acceptance(valid, text_error("Input validation error: count too large"), "", std::nullopt)),
            std::vector<std::string>{"P-ACCEPT(w)"});
  // A domain failure is not an input rejection; nor is a success.
  EXPECT_TRUE(check_acceptance(valid, text_error("no such file: a.txt"), "", std::nullopt).empty());
  EXPECT_TRUE(check_acceptance(valid, result_reply({{"content", json::array()}}), "", std::nullopt).empty());
  CallContext invalid;
  EXPECT_TRUE(check_acceptance(invalid, text_error("Invalid arguments"), "", std::nullopt).empty());
}

TEST(CheckAcceptance, AnInvalidCallAnsweredWithSuccessIsPReject) {
  CallContext invalid;  // schema_valid false
  const auto ok = result_reply({{"content", {{{"type", "text"}, {"text", "done"}}}}});
  const auto refused = result_reply({{"content", {{{"type", "text"}, {"text", "bad"}}}}, {"isError", true}});
  auto found = check_acceptance(invalid, ok, "missing required 'path'", std::nullopt);
  ASSERT_EQ(ids(found), std::vector<std::string>{"P-REJECT(w)"});
  EXPECT_EQ(found[0].severity, Severity::kWarning);
  EXPECT_NE(found[0].diagnosis.find("missing required 'path'"), std::string::npos);
  EXPECT_TRUE(check_acceptance(invalid, refused, "missing required 'path'", std::nullopt).empty());
  EXPECT_TRUE(check_acceptance(invalid, ok, "missing required 'path'", std::string("BAD_ARGS")).empty())
      << "an error envelope rejects";
  EXPECT_TRUE(check_acceptance(invalid, ok, "", std::nullopt).empty()) << "not generated invalid";
  EXPECT_NE(found[0].diagnosis.find("accepted it without validating"), std::string::npos) << found[0].diagnosis;
  // Refused in words, but as an ordinary result: the diagnosis says that, not "does not validate".
  for (const char* said : {"Error: path is required", "MCP error -32602: Invalid arguments for tool t"}) {
    auto in_text = check_acceptance(invalid, result_reply({{"content", {{{"type", "text"}, {"text", said}}}}}),
                                    "missing required 'path'", std::nullopt);
    ASSERT_EQ(ids(in_text), std::vector<std::string>{"P-REJECT(w)"}) << said;
    EXPECT_NE(in_text[0].diagnosis.find("refused in text, but as an ordinary result without isError"),
              std::string::npos)
        << in_text[0].diagnosis;
  }
}

// A handler that validates more strictly than its schema and refuses in its own error envelope is
// P-ACCEPT too (class 7 of the precision issue); a domain error envelope is not.
TEST(CheckAcceptance, AValidCallRefusedInAnErrorEnvelopeIsPAccept) {
  CallContext valid;
  valid.schema_valid = true;
  const auto env = result_reply({{"content", {{{"type", "text"}, {"text", "{\"error\":true}"}}}}});
  EXPECT_EQ(ids(check_acceptance(valid, env, "", std::string("[{\"code\":\"too_big\",\"path\":[\"query\"]}]"))),
            std::vector<std::string>{"P-ACCEPT(w)"});
  EXPECT_EQ(ids(check_acceptance(valid, env, "", std::string("BAD_ARGS query too long"))),
            std::vector<std::string>{"P-ACCEPT(w)"});
  EXPECT_TRUE(check_acceptance(valid, env, "", std::string("NODE_NOT_FOUND no node n1")).empty());
}

// Checks report their own status: exercised and held is passed, with the findings beside it.
TEST(CheckAcceptance, StatusesSayWhatWasExercised) {
  CallContext valid;
  valid.schema_valid = true;
  auto o = check_acceptance(valid, result_reply({{"content", json::array()}}), "", std::nullopt);
  EXPECT_EQ(o.status("P-ACCEPT"), Status::kPassed);
  EXPECT_EQ(o.status("P-REJECT"), Status::kNotObserved);
  EXPECT_FALSE(o.reasons().at("P-REJECT").empty());
  CallContext invalid;
  auto r = check_acceptance(invalid, result_reply({{"content", json::array()}}), "missing 'x'", std::nullopt);
  EXPECT_EQ(r.status("P-REJECT"), Status::kFailed);
  EXPECT_EQ(r.status("P-ACCEPT"), Status::kNotApplicable);
}

// A part whose JSON holds a string cut inside a character: TR-VERBATIM cut-splits-character, once
// per answer. A lone half that no cut put there, a pair, and prose that spells an escape as text
// (not JSON) are not this rule's.
TEST(CheckSplitCharacters, AJsonPartCutInsideACharacterIsFound) {
  auto reply = [](std::vector<std::string> texts) {
    mcp::Reply r;
    r.kind = mcp::Reply::Kind::kResult;
    r.request = {{"method", "tools/call"}, {"params", {{"name", "t"}}}};
    json content = json::array();
    for (const auto& t : texts) content.push_back({{"type", "text"}, {"text", t}});
    r.result = {{"content", content}};
    return r;
  };
  const mcp::Reply cut = reply({R"({"items":[{"preview":"go \ud83d"},{"preview":"no \ud83d"}]})"});
  Outcomes o = check_split_characters(mcp::Answer(cut));
  auto fs = o.take_findings();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].invariant, "TR-VERBATIM");
  EXPECT_EQ(fs[0].cause.at("form"), "cut-splits-character");
  EXPECT_NE(fs[0].diagnosis.find("high surrogate \\ud83d"), std::string::npos) << fs[0].diagnosis;
  for (const auto& texts : std::vector<std::vector<std::string>>{{R"({"a":"x\ud83dy"})"},
                                                                 {R"({"a":"\ud83d\ude80"})"},
                                                                 {R"(const half = "\ud83d";)"}}) {
    const mcp::Reply r = reply(texts);
    Outcomes none = check_split_characters(mcp::Answer(r));
    EXPECT_TRUE(none.take_findings().empty()) << texts[0];
  }
}

}  // namespace
}  // namespace ctxo::checks
