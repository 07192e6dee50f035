// SPDX-License-Identifier: MIT
// Tool selection (engine/selection.h) without a server: globs, --read-only, shards, a replayed
// case's tool, duplicate and nameless listings, and the note naming the tools that may write.
#include <gtest/gtest.h>

#include "engine/selection.h"

namespace ctxo::engine {
namespace {

using nlohmann::json;

json tool(const std::string& name, bool read_only, json required = json::array()) {
  json t = {{"name", name}, {"inputSchema", {{"type", "object"}, {"required", required}}}};
  if (read_only) t["annotations"] = {{"readOnlyHint", true}};
  return t;
}

std::vector<std::string> names(const ToolSelection& s) {
  std::vector<std::string> out;
  for (const json* t : s.selected) out.push_back((*t)["name"].get<std::string>());
  return out;
}

const std::vector<json> kListed = {tool("search", true), tool("delete_file", false), tool("read_file", true, {"path"}),
                                   tool("search", false), json{{"description", "no name"}}, tool("list", true)};

TEST(Selection, SortsByNameKeepsTheFirstOfADuplicateAndSkipsNameless) {
  ToolSelection s = select_tools(kListed, RunOptions{});
  EXPECT_EQ(names(s), (std::vector<std::string>{"delete_file", "list", "read_file", "search"}));
  ASSERT_EQ(s.rows.size(), 4u);
  EXPECT_TRUE(s.rows[3].read_only) << "the first 'search' is the one kept";
}

TEST(Selection, GlobsReadOnlyAndShards) {
  RunOptions o;
  o.tool_globs = {"*e*"};
  o.exclude_globs = {"sea?ch"};
  EXPECT_EQ(names(select_tools(kListed, o)), (std::vector<std::string>{"delete_file", "read_file"}));
  o = RunOptions{};
  o.read_only = true;
  ToolSelection ro = select_tools(kListed, o);
  EXPECT_EQ(names(ro), (std::vector<std::string>{"list", "read_file", "search"}));
  EXPECT_EQ(ro.rows[0].skipped, "not annotated readOnlyHint:true (--read-only)");
  // Shards split the eligible tools by sorted name, i mod N: together they are the whole.
  std::vector<std::string> all;
  for (int k = 0; k < 3; ++k) {
    o = RunOptions{};
    o.shard_index = k;
    o.shard_count = 3;
    for (auto& n : names(select_tools(kListed, o))) all.push_back(n);
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, names(select_tools(kListed, RunOptions{})));
  o.shard_index = 1;
  EXPECT_EQ(select_tools(kListed, o).rows[0].skipped, "in another shard");
}

TEST(Selection, AReplayedCaseCallsItsToolOnly) {
  RunOptions o;
  o.replay = ReplayCall{};
  o.replay->tool = "list";
  ToolSelection s = select_tools(kListed, o);
  EXPECT_EQ(names(s), std::vector<std::string>{"list"});
  EXPECT_EQ(s.rows[0].skipped, "not the replayed case's tool");
}

TEST(Selection, WritersAreNamedAndIdentifierToolsKnown) {
  ToolSelection s = select_tools(kListed, RunOptions{});
  auto note = writers_note(s.rows);
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find(": delete_file ("), std::string::npos) << *note;
  RunOptions o;
  o.read_only = true;
  EXPECT_FALSE(writers_note(select_tools(kListed, o).rows).has_value());
  // Many writers: the first 20 by name, then how many more (never a 600 KB line).
  std::vector<json> many;
  for (int i = 0; i < 25; ++i) many.push_back(tool("w" + std::to_string(100 + i), false));
  auto long_note = writers_note(select_tools(many, RunOptions{}).rows);
  ASSERT_TRUE(long_note.has_value());
  EXPECT_NE(long_note->find("w119 and 5 more ("), std::string::npos) << *long_note;
  EXPECT_EQ(long_note->find("w120"), std::string::npos) << *long_note;
  EXPECT_TRUE(needs_identifier(tool("read_file", true, {"path"})));
  EXPECT_FALSE(needs_identifier(tool("search", true, {"query"})));
}

TEST(Selection, GlobMatch) {
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("get_*_by?d", "get_user_byid"));
  EXPECT_FALSE(glob_match("get_*", "set_x"));
  EXPECT_TRUE(glob_match("*a*b*", "xxaxxbxx"));
  EXPECT_FALSE(glob_match("a?", "a"));
}

}  // namespace
}  // namespace ctxo::engine
