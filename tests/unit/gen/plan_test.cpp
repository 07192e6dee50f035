// SPDX-License-Identifier: MIT
// The per-tool plan: phase sizes, phase order, determinism, harvesting and the structural shrinks.
#include "gen/plan.h"

#include <gtest/gtest.h>

#include <set>

#include "profile/schema_validator.h"

namespace ctxo::gen {
namespace {

const json kSchema = json::parse(R"({
  "type": "object",
  "properties": {
    "path": {"type": "string", "maxLength": 40},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "mode": {"enum": ["a", "b"]}
  },
  "required": ["path"],
  "additionalProperties": false
})");

std::vector<PlannedCall> all_calls(ToolPlan& plan, const Harvest& h = {}) {
  std::vector<PlannedCall> out;
  while (auto c = plan.next(h)) out.push_back(std::move(*c));
  return out;
}

TEST(PhaseSizes, DefaultTakesEveryBoundaryCaseThenRandomAndInvalid) {
  auto s = phase_sizes(0, 17, true);
  EXPECT_EQ(s.boundary, 17u);
  EXPECT_EQ(s.random, 24u);
  EXPECT_EQ(s.invalid, 8u);
  EXPECT_EQ(phase_sizes(0, 500, true).boundary, 48u);
  EXPECT_EQ(phase_sizes(0, 3, false).invalid, 0u);
}

TEST(PhaseSizes, AnExplicitCountIsTheTotal) {
  for (std::size_t n : {1u, 2u, 4u, 10u, 40u}) {
    auto s = phase_sizes(n, 17, true);
    EXPECT_EQ(s.boundary + s.random + s.invalid, n) << n;
    EXPECT_GE(s.random, n / 4) << n;
  }
  EXPECT_EQ(phase_sizes(1, 17, true).boundary, 1u) << "one call: the required-only boundary case";
  EXPECT_EQ(phase_sizes(10, 17, true).invalid, 2u);
}

TEST(ToolPlan, PhasesComeInOrderAndInvalidCallsAreInvalid) {
  ToolPlan plan(kSchema, 0, 7);
  auto calls = all_calls(plan);
  auto v = profile::SchemaValidator::compile(kSchema);
  ASSERT_TRUE(v.ok());
  ASSERT_EQ(calls.size(), plan.sizes().boundary + plan.sizes().random + plan.sizes().invalid);
  Phase last = Phase::kBoundary;
  std::set<std::string> seen;
  for (const auto& c : calls) {
    EXPECT_GE(static_cast<int>(c.phase), static_cast<int>(last)) << c.label;
    last = c.phase;
    EXPECT_TRUE(seen.insert(c.arguments.value().dump()).second) << "no call twice: " << c.arguments.value().dump();
    EXPECT_EQ(v->is_valid(c.arguments.value()), c.phase != Phase::kInvalid) << c.label << " " << c.arguments.value().dump();
  }
  // Schema hints first ('mode' is an enum), then the base call.
  EXPECT_EQ(calls.front().label, "schema hints; 'mode' enum value \"a\"");
  EXPECT_EQ(calls[1].label, "required only");
  // The boundary phase holds each bound.
  std::set<std::string> labels;
  for (const auto& c : calls) labels.insert(c.label);
  EXPECT_TRUE(labels.count("'limit' maximum")) << "labels: " << calls.size();
  EXPECT_TRUE(labels.count("'path' empty string"));
}

TEST(ToolPlan, TheSeedFixesTheCalls) {
  auto texts = [](std::uint64_t seed) {
    ToolPlan plan(kSchema, 0, seed);
    std::vector<std::string> out;
    for (const auto& c : all_calls(plan)) out.push_back(c.label + " " + c.arguments.value().dump());
    return out;
  };
  EXPECT_EQ(texts(11), texts(11));
  EXPECT_NE(texts(11), texts(12));
}

TEST(Harvest, PoolsIdentifiersByNormalisedName) {
  Harvest h;
  h.take_result({{"content", {{{"type", "text"}, {"text", R"({"items":[{"file_path":"src/a.c","size":3},{"filePath":"src/b.c"}],"nextCursor":"c2"})"}}}},
                 {"structuredContent", {{"symbolId", "S1"}, {"title", "not an identifier"}}}});
  ASSERT_NE(h.values_for("filePath"), nullptr);
  EXPECT_EQ(*h.values_for("file_path"), (std::vector<json>{"src/a.c", "src/b.c"}));
  EXPECT_EQ(*h.values_for("symbol_id"), std::vector<json>{"S1"});
  ASSERT_NE(h.values_for("cursor"), nullptr);
  EXPECT_EQ(*h.values_for("cursor"), std::vector<json>{"c2"}) << "a nextCursor feeds the next call's cursor";
  EXPECT_EQ(h.values_for("title"), nullptr);
  EXPECT_EQ(h.values_for("size"), nullptr);
  EXPECT_EQ(h.size(), 4u);
}

TEST(ToolPlan, RandomCallsUseHarvestedValues) {
  Harvest h;
  h.take(json{{"path", "docs/real-file.md"}});
  ToolPlan plan(kSchema, 0, 3);
  bool used = false;
  for (const auto& c : all_calls(plan, h))
    if (c.phase == Phase::kRandom && c.arguments.value().value("path", "") == "docs/real-file.md") used = true;
  EXPECT_TRUE(used);
}

TEST(Harvest, PoolsByKindAcrossPropertyNames) {
  // A listing answers with `name`, `file`, a path::name::kind id, a file:line anchor and uris;
  // lookups take them under other names.
  Harvest h;
  h.take(json::parse(R"({"items":[
    {"name":"runTask","file":"src/a.ts","symbolId":"src/b.ts::helper::function","at":"src/c.ts:12:3"},
    {"uri":"file:///w/d%20e.ts","href":"https://example.com/x","homepage":"https://example.com/"},
    {"nodeId":42,"valid":"no"}]})"));
  const auto symbol = h.offers("symbol");
  ASSERT_GE(symbol.size(), 2u);
  EXPECT_EQ(symbol[0], "runTask") << "names before ids";
  EXPECT_NE(std::find(symbol.begin(), symbol.end(), json("helper")), symbol.end()) << "the name inside a path::name::kind id";
  const auto ids = h.offers("symbolId");
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids[0], "src/b.ts::helper::function") << "an id parameter takes ids first";
  EXPECT_NE(std::find(ids.begin(), ids.end(), json(42)), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), json("runTask")), ids.end()) << "then names";
  const auto paths = h.offers("relativePath");
  for (const char* p : {"src/a.ts", "src/b.ts", "src/c.ts", "/w/d e.ts"})
    EXPECT_NE(std::find(paths.begin(), paths.end(), json(p)), paths.end()) << p;
  const auto uris = h.offers("uri");
  ASSERT_FALSE(uris.empty());
  EXPECT_EQ(uris[0], "file:///w/d%20e.ts");
  EXPECT_NE(std::find(uris.begin(), uris.end(), json("file:///w/d e.ts")), uris.end()) << "an absolute path as a uri";
  EXPECT_EQ(h.offers("query")[0], "runTask") << "a name is a good query";
  // Never a remote URL, never a value under a name that is no identifier.
  for (const auto& k : {"uri", "url", "href", "path", "symbol", "query", "id"})
    for (const auto& v : h.offers(k)) EXPECT_EQ(v.dump().find("https://"), std::string::npos) << k;
  EXPECT_EQ(std::find(symbol.begin(), symbol.end(), json("no")), symbol.end()) << "`valid` is no name";
  EXPECT_TRUE(h.offers("size").empty());
}

TEST(Harvest, ParameterKinds) {
  EXPECT_EQ(parameter_kinds("symbolId"), (std::vector<ValueKind>{ValueKind::kId, ValueKind::kName}));
  EXPECT_EQ(parameter_kinds("node_id"), (std::vector<ValueKind>{ValueKind::kId, ValueKind::kName}));
  EXPECT_EQ(parameter_kinds("symbolName"), (std::vector<ValueKind>{ValueKind::kName, ValueKind::kId}));
  EXPECT_EQ(parameter_kinds("qualifiedName"), (std::vector<ValueKind>{ValueKind::kName, ValueKind::kId}));
  EXPECT_EQ(parameter_kinds("file_path"), std::vector<ValueKind>{ValueKind::kPath});
  EXPECT_EQ(parameter_kinds("textDocumentUri"), (std::vector<ValueKind>{ValueKind::kUri, ValueKind::kPath}));
  EXPECT_EQ(parameter_kinds("pattern"), (std::vector<ValueKind>{ValueKind::kName, ValueKind::kSnippet}));
  EXPECT_EQ(parameter_kinds("cursor"), std::vector<ValueKind>{ValueKind::kCursor});
  EXPECT_EQ(parameter_kinds("entityNames"), (std::vector<ValueKind>{ValueKind::kName, ValueKind::kId}));
  EXPECT_EQ(parameter_kinds("paths"), std::vector<ValueKind>{ValueKind::kPath});
  EXPECT_TRUE(parameter_kinds("valid").empty());
  EXPECT_TRUE(parameter_kinds("profile").empty());
  EXPECT_TRUE(parameter_kinds("limit").empty());
  EXPECT_TRUE(budget_parameter("limit"));
  EXPECT_TRUE(budget_parameter("maxResults"));
  EXPECT_TRUE(budget_parameter("token_budget"));
  EXPECT_FALSE(budget_parameter("symbol"));
}

// What git resolves takes revisions; a repository path the workspace root, never a file.
TEST(Harvest, RevisionAndRepositoryParameterKinds) {
  const std::vector<ValueKind> revision{ValueKind::kRevision};
  for (const char* p : {"revision", "rev", "ref", "commit", "sha", "commit_sha", "commitHash", "hash", "commitish",
                        "tree-ish", "branch", "tag", "since", "until", "from", "to", "fromRef", "to_ref", "base",
                        "head", "baseRef", "headRef", "refs", "commits"})
    EXPECT_EQ(parameter_kinds(p), revision) << p;
  EXPECT_EQ(parameter_kinds("branch_name"), (std::vector<ValueKind>{ValueKind::kRevision, ValueKind::kName, ValueKind::kId}));
  EXPECT_EQ(parameter_kinds("tagName"), (std::vector<ValueKind>{ValueKind::kRevision, ValueKind::kName, ValueKind::kId}));
  EXPECT_EQ(parameter_kinds("target"), (std::vector<ValueKind>{ValueKind::kName, ValueKind::kId, ValueKind::kRevision}))
      << "a symbol first (its old kinds), a revision after";
  EXPECT_EQ(parameter_kinds("commitId"), (std::vector<ValueKind>{ValueKind::kId, ValueKind::kName})) << "an id word still";
  for (const char* p : {"repo_path", "repoPath", "repository_path", "repositoryPath", "repository"}) {
    EXPECT_EQ(parameter_kinds(p), std::vector<ValueKind>{ValueKind::kDirectory}) << p;
    EXPECT_TRUE(repository_parameter(p)) << p;
  }
  EXPECT_FALSE(repository_parameter("repo")) << "owner/name, often";
  EXPECT_FALSE(repository_parameter("path"));
  EXPECT_EQ(parameter_kinds("repo_dir"), (std::vector<ValueKind>{ValueKind::kDirectory, ValueKind::kPath}));
  EXPECT_TRUE(parameter_kinds("git_dir").front() != ValueKind::kRevision);
  EXPECT_STREQ(kind_name(ValueKind::kRevision), "revision");
  EXPECT_EQ(revision_sort("branch_name"), RevisionSort::kBranch);
  EXPECT_EQ(revision_sort("baseBranch"), RevisionSort::kBranch);
  EXPECT_EQ(revision_sort("tags"), RevisionSort::kTag);
  EXPECT_EQ(revision_sort("revision"), RevisionSort::kAny);
  EXPECT_EQ(revision_sort("target"), RevisionSort::kAny);
}

// An answer's `sha`, `commit` or `hash` is pooled as a revision only when it looks like a commit id.
TEST(Harvest, CommitIdsInAnswersArePooledAsRevisions) {
  Harvest h;
  h.take(json::parse(R"({"commits":[{"sha":"9fceb02d0ae598e95dc970b74767f19372d61af8","message":"fix"},
    {"sha":"not a commit"},{"commit":"1a2b3c4"},{"hash":"sha256:abc"},{"commit":{"author":"x"}}]})"));
  const auto& pooled = h.values_of(ValueKind::kRevision);
  EXPECT_EQ(pooled, (std::vector<json>{"9fceb02d0ae598e95dc970b74767f19372d61af8", "1a2b3c4"}));
  EXPECT_EQ(h.offers("revision").size(), 2u);
  EXPECT_EQ(h.offers("sha").front(), "9fceb02d0ae598e95dc970b74767f19372d61af8") << "its own name first";
}

const json kLookup = json::parse(R"({
  "type": "object",
  "properties": {"symbol": {"type": "string", "minLength": 1, "maxLength": 40}, "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
  "required": ["symbol"]
})");

// A lookup of several items: the item the call gave, another one harvested, and one made up.
TEST(ToolPlan, SeveralNamesTheGivenItemAnotherAndOneMadeUp) {
  Harvest h;
  h.take(json::parse(R"({"tasks":[{"id":"T1"},{"id":"T2"},{"id":"T3"}]})"));
  const json array_schema = json::parse(R"({"type":"object","properties":{
    "ids":{"type":"array","items":{"type":"string"},"maxItems":5}},"required":["ids"]})");
  ToolPlan plan(array_schema, 0, 5);
  auto c = plan.several(json{{"ids", {"T2"}}}, h, "get_tasks", "after x");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->arguments.value()["ids"], (json{"T2", "T1", "T2999"}));
  EXPECT_NE(c->label.find("several items named in 'ids'"), std::string::npos) << c->label;
  EXPECT_FALSE(plan.several(json{{"ids", {"T2"}}}, h, "get_tasks", "after x").has_value()) << "no call twice";
  // Too many for the schema: none.
  const json two = json::parse(R"({"type":"object","properties":{"ids":{"type":"array","maxItems":2}}})");
  EXPECT_FALSE(ToolPlan(two, 0, 5).several(json{{"ids", {"T2"}}}, h, "get_tasks", "").has_value());
  // Comma-separated ids, only where the description says so.
  const json comma = json::parse(R"({"type":"object","properties":{
    "id":{"type":"string","description":"A task id, or several separated by commas"}}})");
  auto s = ToolPlan(comma, 0, 5).several(json{{"id", "T3"}}, h, "get_task", "");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->arguments.value()["id"], "T3,T1,T3999");
  const json plain = json::parse(R"({"type":"object","properties":{"id":{"type":"string"}}})");
  EXPECT_FALSE(ToolPlan(plain, 0, 5).several(json{{"id", "T3"}}, h, "get_task", "").has_value());
  // A UUID stays a UUID; an integer id gets three more digits.
  const json uuids = json::parse(R"({"type":"object","properties":{"nodeIds":{"type":"array","items":{"type":"string","format":"uuid"}}}})");
  auto u = ToolPlan(uuids, 0, 5).several(json{{"nodeIds", {"123e4567-e89b-12d3-a456-426614174000"}}}, Harvest{}, "open_nodes", "");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->arguments.value()["nodeIds"], (json{"123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174001"}));
  const json numbers = json::parse(R"({"type":"object","properties":{"issueIds":{"type":"array","items":{"type":"integer"}}}})");
  auto n = ToolPlan(numbers, 0, 5).several(json{{"issueIds", {12}}}, Harvest{}, "getIssues", "");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->arguments.value()["issueIds"], (json{12, 12999}));
  // Not a list of names.
  const json paths = json::parse(R"({"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"}}}})");
  EXPECT_FALSE(ToolPlan(paths, 0, 5).several(json{{"paths", {"a"}}}, h, "read_files", "").has_value());
  // Not a lookup: a list filtered by labels, a delete; names of something else than the tool's items.
  const json labels = json::parse(R"({"type":"object","properties":{"labelNames":{"type":"array","items":{"type":"string"}}}})");
  EXPECT_FALSE(ToolPlan(labels, 0, 5).several(json{{"labelNames", {"bug"}}}, h, "list_issues", "").has_value());
  EXPECT_FALSE(ToolPlan(labels, 0, 5).several(json{{"labelNames", {"bug"}}}, h, "get_issues", "").has_value());
  EXPECT_TRUE(ToolPlan(labels, 0, 5).several(json{{"labelNames", {"bug"}}}, h, "get_labels", "").has_value());
  EXPECT_FALSE(ToolPlan(array_schema, 0, 5).several(json{{"ids", {"T2"}}}, h, "deleteTasks", "").has_value());
}

TEST(ToolPlan, SecondPassOffersHarvestedValuesBestFirst) {
  Harvest h;
  h.take(json::parse(R"({"symbols":[{"name":"alpha"},{"name":"beta"},{"name":"this name is far too long for the schema's forty characters"}]})"));
  ToolPlan plan(kLookup, 0, 5);
  auto calls = plan.second_pass(h, 8);
  ASSERT_EQ(calls.size(), 2u) << "the value longer than maxLength is not offered";
  EXPECT_EQ(calls[0].arguments.value()["symbol"], "alpha");
  EXPECT_EQ(calls[1].arguments.value()["symbol"], "beta");
  EXPECT_NE(calls[0].label.find("second pass"), std::string::npos);
  EXPECT_TRUE(plan.second_pass(h, 8).empty()) << "no call twice";
  EXPECT_TRUE(ToolPlan(kLookup, 0, 5).second_pass(Harvest{}, 8).empty());
}

// Answers steer the offers: a hub (named by many answers) before values named once, a value that
// led to data before one that did not, a value that gave only misses after everything else.
TEST(Harvest, AnswersSteerTheOrderOfOffers) {
  Harvest h;
  h.take(json::parse(R"({"symbols":[{"id":"m1"},{"id":"m2"},{"id":"m3"},{"id":"log"}]})"));
  EXPECT_EQ(h.offers("symbolId"), (std::vector<json>{"m1", "m2", "m3", "log"})) << "no score yet: first seen first";
  for (int i = 0; i < 3; ++i) h.take(json::parse(R"({"dependencies":[{"id":"log"}]})"));
  EXPECT_EQ(h.offers("symbolId")[0], "log") << "named by four answers: a hub";
  h.outcome(json{{"symbolId", "m1"}}, false);
  EXPECT_EQ(h.offers("symbolId").back(), "m1") << "only a miss: last";
  h.outcome(json{{"symbolId", "m3"}, {"limit", 5}}, true);
  h.outcome(json{{"symbolId", "m3"}}, true);
  EXPECT_EQ(h.offers("symbolId"), (std::vector<json>{"m3", "log", "m2", "m1"}))
      << "two calls with data (weight 8) before a hub named 4 times, before the unscored";
  h.outcome(json{{"symbolId", "m1"}}, true);
  EXPECT_EQ(h.offers("symbolId")[2], "m1") << "data after a miss: no longer sunk (weight 0)";
}

// A value that gave only misses goes after every block's others, not only its own block's: names
// the run made up and read back (self-made data, scored as misses) under the parameter's own name
// do not crowd out the server's own names of the kind's block.
TEST(Harvest, ValuesThatGaveOnlyMissesComeAfterEveryBlock) {
  Harvest h;
  h.take(json::parse(R"({"entities":[{"symbol":"Ada Lovelace"}]})"));  // a name, under another key
  h.take(json::parse(R"({"name":"zqx8"})"));                          // the parameter's own name
  EXPECT_EQ(h.offers("name"), (std::vector<json>{"zqx8", "Ada Lovelace"})) << "the own name's block first";
  h.outcome(json::array({"zqx8"}), false);
  EXPECT_EQ(h.offers("name"), (std::vector<json>{"Ada Lovelace", "zqx8"}));
}

// A fork gathers its own scores; absorbing forks in any order gives the same scores, and a fork's
// pools and scores are not counted twice when it is absorbed.
TEST(Harvest, ForksHandBackOnlyWhatTheyGathered) {
  Harvest run;
  run.take(json::parse(R"({"items":[{"id":"a"},{"id":"b"},{"id":"c"}]})"));
  run.take(json{{"id", "c"}});  // c: named twice, a hub
  Harvest one = run.fork(), two = run.fork();
  one.outcome(json{{"id", "a"}}, true);
  two.take(json{{"id", "b"}});
  two.take(json{{"id", "b"}});  // b: named three times
  Harvest ab = run.fork(), ba = run.fork();
  ab.absorb(one);
  ab.absorb(two);
  ba.absorb(two);
  ba.absorb(one);
  EXPECT_EQ(ab.offers("id"), ba.offers("id"));
  EXPECT_EQ(ab.offers("id"), (std::vector<json>{"a", "b", "c"})) << "a: weight 4 + 0; b: 3 mentions; c: 2";
  Harvest again = run.fork();
  again.absorb(run.fork());  // nothing gathered: nothing handed back
  EXPECT_EQ(again.offers("id"), run.offers("id"));
  EXPECT_EQ(run.offers("id"), (std::vector<json>{"c", "a", "b"}));
}

// What a phase keeps per tool (Harvest::gathered): only what the fork gathered, yet absorbing it
// is absorbing the whole fork, and a fresh fork that absorbs it is the fork again (a shrink after
// the tool's work resumes from it). Scored values, pooled names and kinds all come back.
TEST(Harvest, WhatAForkGatheredStandsForTheWholeFork) {
  Harvest run;
  run.take(json::parse(R"({"items":[{"id":"a","path":"src/a.ts"},{"id":"b"}]})"));
  run.outcome(json{{"id", "a"}}, true);
  Harvest work = run.fork();
  work.take(json::parse(R"({"items":[{"id":"c","path":"src/c.ts"},{"id":"a"}]})"));
  work.outcome(json{{"id", "b"}}, false);
  work.outcome(json{{"id", "c"}}, true);
  const Harvest kept = work.gathered(run);
  EXPECT_LT(kept.size(), work.size()) << "the parent's values are not kept again";
  Harvest whole = run.fork(), part = run.fork();
  whole.absorb(work);
  part.absorb(kept);
  for (const char* p : {"id", "path", "file", "name"}) EXPECT_EQ(whole.offers(p), part.offers(p)) << p;
  EXPECT_EQ(whole.size(), part.size());
  Harvest again = run.fork();
  again.absorb(kept);
  for (const char* p : {"id", "path", "file", "name"}) EXPECT_EQ(again.offers(p), work.offers(p)) << p;
  // And what the resumed fork gathers next is handed back like the first fork's.
  again.outcome(json{{"id", "c"}}, true);
  work.outcome(json{{"id", "c"}}, true);
  Harvest w2 = run.fork(), a2 = run.fork();
  w2.absorb(work);
  a2.absorb(again.gathered(run));
  EXPECT_EQ(w2.offers("id"), a2.offers("id"));
  // Scores shared with the forks (share_scores) instead of copied: the same offers, before and
  // after more scores, in the harvest and in its forks.
  Harvest shared = run.fork(), copied = run.fork();
  shared.absorb(work);
  copied.absorb(work);
  shared.share_scores();
  EXPECT_EQ(shared.offers("id"), copied.offers("id"));
  Harvest sf = shared.fork(), cf = copied.fork();
  for (Harvest* h : {&sf, &cf}) {
    h->outcome(json{{"id", "b"}}, true);
    h->outcome(json{{"id", "b"}}, true);
    h->outcome(json{{"id", "zz"}}, true);
  }
  EXPECT_EQ(sf.offers("id"), cf.offers("id"));
  shared.absorb(sf);
  copied.absorb(cf);
  EXPECT_EQ(shared.offers("id"), copied.offers("id"));
}

// A tool that runs code: its `code` parameter takes a one-line program in the first language of
// its enum the table knows, or the language its name or description says.
TEST(ToolPlan, ACodeParameterTakesAOneLineProgram) {
  EXPECT_EQ(program_for("Python3"), "print(6 * 7)");
  EXPECT_EQ(program_for("node"), "console.log(6 * 7)");
  EXPECT_EQ(program_for("cobol"), std::nullopt);
  EXPECT_EQ(code_language(json{{"name", "run_python"}, {"description", "Runs code."}}), "python");
  EXPECT_EQ(code_language(json{{"name", "exec"}, {"description", "Execute a Bash command."}}), "bash");
  EXPECT_EQ(code_language(json{{"name", "search"}, {"description", "Search the JavaScript docs? no: pythonic names"}}),
            "javascript");
  EXPECT_EQ(code_language(json{{"name", "search"}, {"description", "Pythonic search over shells"}}), "");
  const json schema = json::parse(R"({"type":"object","properties":{
    "language":{"enum":["cobol","ruby","python"]},"code":{"type":"string","minLength":1}},"required":["language","code"]})");
  ToolPlan plan(schema, 0, 3);
  bool ran = false;
  for (const auto& c : all_calls(plan))
    if (const json a = c.arguments.value(); a.is_object() && a.contains("code") && a["code"] == "puts 6 * 7") {
      EXPECT_EQ(a["language"], "ruby") << "the first language the table knows";
      ran = true;
    }
  EXPECT_TRUE(ran) << "random calls take the program, with no harvest at all";
  // mcp-server-code-runner's shape: the language is `languageId`, its enum starts with javascript.
  const json runner = json::parse(R"({"type":"object","additionalProperties":false,"properties":{
    "code":{"type":"string"},"languageId":{"type":"string","enum":["javascript","php"]}},"required":["code","languageId"]})");
  ToolPlan by_id(runner, 0, 3);
  bool node = false;
  for (const auto& c : all_calls(by_id))
    if (const json a = c.arguments.value(); a.is_object() && a.contains("code") && a["code"] == "console.log(6 * 7)")
      node = a["languageId"] == "javascript";
  EXPECT_TRUE(node) << "a `languageId` enum is the language";
  const json script = json::parse(R"({"type":"object","properties":{"script":{"type":"string"}},"required":["script"]})");
  GenOptions bash;
  bash.code_language = "bash";
  auto pass = ToolPlan(script, 0, 3, bash).second_pass(Harvest{}, 8);
  ASSERT_EQ(pass.size(), 1u);
  EXPECT_EQ(pass[0].arguments.value()["script"], "echo $((6 * 7))");
  EXPECT_NE(pass[0].label.find("a one-line program"), std::string::npos) << pass[0].label;
  EXPECT_TRUE(ToolPlan(script, 0, 3).second_pass(Harvest{}, 8).empty()) << "no language known: no program";
}

TEST(ToolPlan, AnArrayParameterTakesOneHarvestedValue) {
  Harvest h;
  h.take(json::parse(R"({"entities":[{"name":"Alice"}]})"));
  ToolPlan plan(json::parse(R"({"type":"object","properties":{"names":{"type":"array","items":{"type":"string"}}},"required":["names"]})"), 0, 5);
  auto calls = plan.second_pass(h, 8);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].arguments.value(), (json{{"names", {"Alice"}}}));
}

TEST(ToolPlan, DrivesBudgetParametersSmall) {
  ToolPlan plan(kLookup, 0, 5);
  auto calls = plan.driven(json{{"symbol", "alpha"}, {"limit", 50}}, "after random #1");
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].arguments.value(), (json{{"symbol", "alpha"}, {"limit", 1}}));
  EXPECT_EQ(calls[1].arguments.value(), (json{{"symbol", "alpha"}, {"limit", 4}}));
  EXPECT_NE(calls[0].label.find("'limit' driven to 1"), std::string::npos) << calls[0].label;
  // And to its schema maximum: the largest answer an agent can ask for (H-SIZE).
  EXPECT_EQ(calls[2].arguments.value(), (json{{"symbol", "alpha"}, {"limit", 100}}));
  // A call that already had the smallest limit is not made again.
  ToolPlan again(kLookup, 0, 5);
  EXPECT_EQ(again.driven(json{{"symbol", "alpha"}, {"limit", 1}}, "x").size(), 2u);
  // No maximum in the schema: no call at it.
  ToolPlan open(json::parse(R"({"type":"object","properties":{"limit":{"type":"integer","minimum":1}}})"), 0, 5);
  EXPECT_EQ(open.driven(json{{"limit", 10}}, "x").size(), 2u);
  // No budget parameter: nothing to drive.
  ToolPlan none(json::parse(R"({"type":"object","properties":{"path":{"type":"string"}}})"), 0, 5);
  EXPECT_TRUE(none.driven(json{{"path", "a"}}, "x").empty());
}

TEST(ShrinkJson, DropsMembersFirstThenShrinksThem) {
  auto seq = shrink_json(json{{"a", "xyz"}, {"n", 5}});
  std::vector<json> out;
  while (auto x = seq.next()) out.push_back(*x);
  ASSERT_GE(out.size(), 3u);
  EXPECT_EQ(out[0], (json{{"n", 5}}));
  EXPECT_EQ(out[1], (json{{"a", "xyz"}}));
  bool shorter = false, smaller = false;
  for (const auto& v : out) {
    if (v.size() == 2 && v["a"] == "" && v["n"] == 5) shorter = true;
    if (v.size() == 2 && v["a"] == "xyz" && v["n"] == 0) smaller = true;
  }
  EXPECT_TRUE(shorter && smaller);
}

TEST(ShrinkJson, StringsLoseWholeCodePoints) {
  auto seq = shrink_json(json("a😀é"));
  while (auto x = seq.next()) {
    const std::string s = x->get<std::string>();
    EXPECT_TRUE(s.empty() || s == "😀é" || s == "aé" || s == "a😀" || s == "a" || s == "😀" || s == "é") << s;
  }
}


// Fields of objects inside an array take harvested values too: server-memory's add_observations
// takes `observations: [{entityName, contents}]`, and only an entity that exists reaches data.
TEST(Harvest, ObjectsInsideArraysTakeHarvestedNames) {
  const json schema = json::parse(R"({"type":"object","properties":{"observations":{"type":"array","items":{
    "type":"object","properties":{"entityName":{"type":"string"},"contents":{"type":"array","items":{"type":"string"}}},
    "required":["entityName","contents"]}}},"required":["observations"]})");
  Harvest h;
  h.take(json::parse(R"({"entities":[{"name":"Ada","entityType":"person"},{"name":"Lin","entityType":"person"}]})"));
  ToolPlan plan(schema, 0, 7);
  auto pass = plan.second_pass(h, 4);
  ASSERT_FALSE(pass.empty());
  std::set<std::string> named;
  for (const auto& c : pass) {
    const json a = c.arguments.value();
    ASSERT_TRUE(a["observations"].is_array()) << a.dump();
    for (const auto& o : a["observations"]) named.insert(o["entityName"].get<std::string>());
    EXPECT_NE(c.label.find("observations[].entityName"), std::string::npos) << c.label;
  }
  EXPECT_TRUE(named.count("Ada") || named.count("Lin")) << "harvested names, not generated ones";
  // The random phase's harvested calls too.
  ToolPlan random(schema, 40, 7);
  std::size_t real = 0;
  while (auto c = random.next(h)) {
    const json a = c->arguments.value();
    if (c->phase != Phase::kRandom || !a.contains("observations") || !a["observations"].is_array()) continue;
    for (const auto& o : a["observations"]) {
      const std::string name = o.is_object() ? o.value("entityName", "") : "";
      if (name == "Ada" || name == "Lin") ++real;
    }
  }
  EXPECT_GT(real, 0u);
}

// A code-graph server's context tool (issue 43, tests/npm/fixtures/reach/context.mjs): a real
// name beside a random `branch`, `repo` or `file` is refused, so the first calls that take real
// values carry only those, the required parameters and the output flags (`include_content: true`),
// and later ones keep the random optionals.
const json kContext = json::parse(R"({"type":"object","properties":{
  "name":{"type":"string","minLength":1,"maxLength":200},"include_content":{"type":"boolean"},
  "branch":{"type":"string","maxLength":100},"repo":{"type":"string","maxLength":100},
  "file":{"type":"string","maxLength":400},"depth":{"type":"integer","minimum":0,"maximum":5}},
  "required":["name"],"additionalProperties":false})");

TEST(ToolPlan, TheFirstCallsWithRealValuesCarryOnlyThemAndTheOutputFlags) {
  Harvest h;
  h.take(json::parse(R"({"symbols":[{"name":"runTask"},{"name":"parseArgs"},{"name":"loadConfig"}]})"));
  const std::set<std::string> names = {"runTask", "parseArgs", "loadConfig"};
  const auto real = [&](const json& a) { return names.count(a.value("name", "")) > 0; };
  ToolPlan plan(kContext, 0, 1);
  const std::vector<PlannedCall> calls = all_calls(plan, h);
  std::vector<json> harvested;
  std::vector<std::string> labels;
  for (const auto& c : calls)
    if (c.phase == Phase::kRandom && real(c.arguments.value())) {
      harvested.push_back(c.arguments.value());
      labels.push_back(c.label);
    }
  ASSERT_GE(harvested.size(), 5u);
  // The first three: exactly a real name (the offers in turn) and the flag.
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(labels[i]);
    EXPECT_EQ(harvested[i], (json{{"name", i == 0 ? "runTask" : i == 1 ? "parseArgs" : "loadConfig"}, {"include_content", true}}));
    EXPECT_NE(labels[i].find("(harvested values only)"), std::string::npos);
  }
  // Later ones keep the draw's optionals: some carry branch, repo, file or depth beside the name.
  std::size_t explored = 0;
  for (std::size_t i = 3; i < harvested.size(); ++i)
    if (harvested[i].contains("branch") || harvested[i].contains("repo") || harvested[i].contains("file") ||
        harvested[i].contains("depth")) {
      ++explored;
      EXPECT_NE(labels[i].find("(harvested values)"), std::string::npos) << labels[i];
    }
  EXPECT_GT(explored, 0u);
  // The same seed and harvest make the same calls.
  ToolPlan again(kContext, 0, 1);
  const std::vector<PlannedCall> same = all_calls(again, h);
  ASSERT_EQ(same.size(), calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(same[i].label, calls[i].label);
    EXPECT_EQ(same[i].arguments.value(), calls[i].arguments.value());
  }
  // With real files offered too: the first call the real name and the flag alone, the second
  // with a real file beside them (every other "real values only" call keeps no optional).
  Harvest files = h;
  files.take(json::parse(R"({"symbols":[{"file":"src/app.ts"},{"file":"src/cli.ts"}]})"));
  ToolPlan scoped(kContext, 0, 1);
  std::vector<json> lean;
  for (const auto& c : all_calls(scoped, files))
    if (c.label.find("(harvested values only)") != std::string::npos) lean.push_back(c.arguments.value());
  ASSERT_GE(lean.size(), 2u);
  EXPECT_EQ(lean[0], (json{{"name", "runTask"}, {"include_content", true}}));
  EXPECT_EQ(lean[1].size(), 3u) << lean[1].dump();
  EXPECT_EQ(lean[1].value("include_content", false), true) << lean[1].dump();
  EXPECT_TRUE(lean[1].contains("file") && names.count(lean[1].value("name", ""))) << lean[1].dump();
  // The second pass is lean too.
  auto pass = ToolPlan(kContext, 0, 1).second_pass(h, 2);
  ASSERT_EQ(pass.size(), 2u) << "at most 2 asked for";
  EXPECT_EQ(pass[0].arguments.value(), (json{{"name", "runTask"}, {"include_content", true}}));
  EXPECT_EQ(pass[1].arguments.value(), (json{{"name", "parseArgs"}, {"include_content", true}}));
}

TEST(ToolPlan, OutputFlags) {
  for (const char* f : {"include_content", "includeSource", "with_body", "withTests", "verbose", "details", "detailed",
                        "full", "show_hidden", "showSignatures"})
    EXPECT_TRUE(output_flag(f)) << f;
  for (const char* f : {"include", "without_tests", "withoutComments", "exclude_tests", "name", "fully", "within_days", "dry_run"})
    EXPECT_FALSE(output_flag(f)) << f;
  // Set true only where the schema takes true.
  const json schema = json::parse(R"({"type":"object","properties":{"name":{"type":"string"},
    "verbose":{"type":"boolean"},"include":{"type":"string"},"with_body":{"const":false}},"required":["name"]})");
  Harvest h;
  h.take(json{{"name", "alpha"}});
  auto pass = ToolPlan(schema, 0, 2).second_pass(h, 1);
  ASSERT_EQ(pass.size(), 1u);
  EXPECT_EQ(pass[0].arguments.value(), (json{{"name", "alpha"}, {"verbose", true}}));
}

}  // namespace
}  // namespace ctxo::gen
