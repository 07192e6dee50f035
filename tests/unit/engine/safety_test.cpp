// SPDX-License-Identifier: MIT
// What a tool may do without a sandbox (engine/safety.h), and what the change watch sees
// (engine/changes.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/changes.h"
#include "engine/safety.h"

namespace ctxo::engine {
namespace {

using nlohmann::json;

json tool(const std::string& name, json props = json::object(), json annotations = nullptr, std::string desc = "") {
  json t = {{"name", name}, {"inputSchema", {{"type", "object"}, {"properties", props}}}};
  if (!annotations.is_null()) t["annotations"] = annotations;
  if (!desc.empty()) t["description"] = desc;
  return t;
}

TEST(Danger, DesktopCommanderShapedToolsAreClassedByNameAndParameters) {
  EXPECT_EQ(classify_danger(tool("kill_process", {{"pid", {{"type", "integer"}}}})), Danger::kProcess);
  EXPECT_EQ(classify_danger(tool("force_terminate", {{"pid", {{"type", "integer"}}}})), Danger::kProcess);
  EXPECT_EQ(classify_danger(tool("stop", {{"processId", {{"type", "integer"}}}})), Danger::kProcess);
  EXPECT_EQ(classify_danger(tool("execute_command", {{"command", {{"type", "string"}}}})), Danger::kExec);
  EXPECT_EQ(classify_danger(tool("start_process", {{"cmd", {{"type", "string"}}}})), Danger::kExec);
  EXPECT_EQ(classify_danger(tool("shell", {{"input", {{"type", "string"}}}})), Danger::kExec);
  EXPECT_EQ(classify_danger(tool("write_file", {{"path", {{"type", "string"}}}})), Danger::kWrite);
  EXPECT_EQ(classify_danger(tool("deleteFile")), Danger::kWrite);
  EXPECT_EQ(classify_danger(tool("move_file")), Danger::kWrite);
  EXPECT_EQ(classify_danger(tool("add_observations")), Danger::kWrite);
  EXPECT_EQ(classify_danger(tool("send_email")), Danger::kSend);
  EXPECT_EQ(classify_danger(tool("publish")), Danger::kSend);
  // A description says what an unnamed verb does.
  EXPECT_EQ(classify_danger(tool("fs_tool", {}, nullptr, "Deletes the given path. Use with care.")), Danger::kWrite);
  EXPECT_EQ(classify_danger(tool("sandbox", {}, nullptr, "Executes code in a fresh process")), Danger::kExec);
  // destructiveHint with nothing else to go on is a write.
  EXPECT_EQ(classify_danger(tool("sync_thing", {}, json{{"destructiveHint", true}})), Danger::kWrite);
  EXPECT_EQ(classify_danger(tool("frob", {}, json{{"destructiveHint", true}})), Danger::kWrite);
}

TEST(Danger, ReadersAreNot) {
  EXPECT_EQ(classify_danger(tool("list_processes")), Danger::kNone);
  EXPECT_EQ(classify_danger(tool("read_process_output", {{"pid", {{"type", "integer"}}}})), Danger::kProcess)
      << "a pid parameter is enough: a reader given a real pid is not our business outside a sandbox";
  EXPECT_EQ(classify_danger(tool("read_file", {{"path", {{"type", "string"}}}})), Danger::kNone);
  EXPECT_EQ(classify_danger(tool("list_commands")), Danger::kNone);
  EXPECT_EQ(classify_danger(tool("search_code", {{"query", {{"type", "string"}}}})), Danger::kNone);
  EXPECT_EQ(classify_danger(tool("add")), Danger::kNone) << "server-everything's add is arithmetic";
  EXPECT_EQ(classify_danger(tool("echo", {{"message", {{"type", "string"}}}})), Danger::kNone);
  EXPECT_EQ(classify_danger(tool("annotatedMessage")), Danger::kNone);
  EXPECT_EQ(classify_danger(tool("get_node")), Danger::kNone);
  // readOnlyHint is trusted (what it then changes is observed: P-ANNOTATION)...
  EXPECT_EQ(classify_danger(tool("write_file", {}, json{{"readOnlyHint", true}})), Danger::kNone);
  // ...unless destructiveHint says otherwise.
  EXPECT_EQ(classify_danger(tool("frob", {}, json{{"readOnlyHint", true}, {"destructiveHint", true}})), Danger::kWrite);
}

TEST(Danger, AllowListTakesClassesGlobsAndAll) {
  EXPECT_TRUE(danger_allowed({"all"}, "kill_process", Danger::kProcess));
  EXPECT_TRUE(danger_allowed({"process"}, "kill_process", Danger::kProcess));
  EXPECT_FALSE(danger_allowed({"write"}, "kill_process", Danger::kProcess));
  EXPECT_TRUE(danger_allowed({"kill_*"}, "kill_process", Danger::kProcess));
  EXPECT_FALSE(danger_allowed({}, "kill_process", Danger::kProcess));
}

TEST(Danger, NoPidIsMadeUp) {
  const json a = {{"pid", -1}, {"processId", "0"}, {"pids", {1, -5}}, {"count", -1}, {"path", "x"}};
  const json b = without_pids(a);
  EXPECT_EQ(b["pid"], kNoSuchPid);
  EXPECT_EQ(b["processId"], std::to_string(kNoSuchPid));
  EXPECT_EQ(b["pids"], json::array({kNoSuchPid, kNoSuchPid}));
  EXPECT_EQ(b["count"], -1) << "only pid-like parameters";
  EXPECT_EQ(b["path"], "x");
  EXPECT_GT(kNoSuchPid, 1 << 22) << "above PID_MAX_LIMIT: no process can have it";
}

TEST(ChangeWatch, SeesCreatedChangedAndDeletedFiles) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(CTXO_BINARY_DIR) / "test-tmp" / "change-watch";
  fs::remove_all(dir);
  fs::create_directories(dir / "src");
  std::ofstream(dir / "README.md") << "hello\n";
  std::ofstream(dir / "src" / "a.ts") << "export const a = 1;\n";
  std::ofstream(dir / "keep.txt") << "same\n";
  ChangeWatch w({{dir.string(), ""}});
  EXPECT_TRUE(w.take().empty()) << "nothing changed yet";
  std::ofstream(dir / "README.md") << "overwritten, longer\n";
  fs::remove(dir / "src" / "a.ts");
  fs::create_directories(dir / "junk");
  std::ofstream(dir / "HEAD") << "x";
  const FileChanges c = w.take();
  EXPECT_EQ(c.changed, std::vector<std::string>({"README.md"}));
  EXPECT_EQ(c.deleted, std::vector<std::string>({"src/a.ts"}));
  EXPECT_EQ(c.created, std::vector<std::string>({"HEAD", "junk"}));
  EXPECT_EQ(c.count(), 4u);
  EXPECT_EQ(c.describe(), "created HEAD, junk; changed README.md; deleted src/a.ts");
  EXPECT_TRUE(w.take().empty()) << "changes are reported once";
  FileChanges sum = c;
  sum.add(c);
  EXPECT_EQ(sum.count(), 8u);
  EXPECT_EQ(sum.created.size(), 2u) << "paths listed once";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ctxo::engine
