// SPDX-License-Identifier: MIT
#include "engine/safety.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string_view>

#include "engine/selection.h"

namespace ctxo::engine {

using nlohmann::json;

namespace {

// snake_case, kebab-case, camelCase and dotted names as lower-case words.
std::vector<std::string> words_of(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isalnum(c) == 0) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    const bool upper = std::isupper(c) != 0;
    if (upper && !cur.empty() && i > 0 && std::islower(static_cast<unsigned char>(s[i - 1])) != 0) {
      out.push_back(std::move(cur));
      cur.clear();
    }
    cur += static_cast<char>(std::tolower(c));
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

bool in(const std::string& w, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), w) != set.end();
}

bool any_in(const std::vector<std::string>& ws, std::initializer_list<std::string_view> set) {
  return std::any_of(ws.begin(), ws.end(), [&](const std::string& w) { return in(w, set); });
}

const std::initializer_list<std::string_view> kKill = {"kill", "pkill", "killall", "terminate", "signal", "sigterm",
                                                           "sigkill"};
// Verbs that run something, and nouns that name what runs (counted only in a name without a
// reading verb: list_commands reads).
const std::initializer_list<std::string_view> kExecVerbs = {"exec", "execute", "run", "eval", "evaluate",
                                                                "spawn", "launch", "invoke", "interpret"};
const std::initializer_list<std::string_view> kExecNouns = {"shell", "bash", "sh", "zsh", "powershell", "cmd",
                                                                "command", "terminal", "repl", "sudo"};
const std::initializer_list<std::string_view> kWrite = {
    "write",  "create", "delete", "del",    "remove",  "rm",     "rmdir",   "unlink",  "move",     "mv",
    "rename", "edit",   "overwrite", "replace", "save", "put",  "patch",   "update",  "upsert",   "insert",
    "drop",   "truncate", "apply", "append", "modify", "clear", "reset",   "destroy", "set",      "mkdir",
    "make",   "copy",   "cp",     "sync",   "commit",  "install", "uninstall", "purge", "wipe",   "erase",
    "chmod",  "chown",  "touch",  "restore", "revert", "checkout", "merge", "rebase",  "stage",    "unstage",
    "init",   "clone",  "pull",    "store",   "persist", "fix",     "refactor", "upload",
    "download", "extract", "unzip", "archive", "symlink", "prune", "gc", "approve", "reject", "assign", "add", "mutate", "transfer"};
const std::initializer_list<std::string_view> kSend = {
    "send", "post", "publish", "email", "mail", "tweet", "notify", "deploy", "trigger", "push", "submit",
    "broadcast", "sms", "webhook", "pay", "buy", "reply", "invite", "dm"};

const std::initializer_list<std::string_view> kRead = {
    "list",  "ls",     "get",   "find",    "search", "read",     "show",   "describe", "query",   "lookup",
    "look",  "outline", "references", "refs", "definition", "definitions", "hover", "view", "inspect",
    "grep",  "tree",   "info",  "stat",    "stats",  "status",   "explain", "resolve", "symbols", "callers",
    "callees", "usages", "implementations", "diagnostics", "count", "diff", "blame", "history", "browse",
    "cat",   "head",   "tail",  "locate",  "which",  "signature", "docs",  "documentation", "echo", "ping",
    "check", "validate", "analyze", "analyse", "summarize", "summary", "preview", "peek", "print", "log",
    "logs",  "help",   "version", "health", "compare", "calculate", "compute", "convert", "format_check"};

// A property name that holds a process id.
bool pid_like(const std::string& name) {
  const auto ws = words_of(name);
  if (ws.empty()) return false;
  if (in(ws.back(), {"pid", "pids", "pgid", "ppid", "tgid"})) return true;
  return ws.size() >= 2 && in(ws[ws.size() - 2], {"process", "proc"}) && in(ws.back(), {"id", "ids"});
}

Danger from_words(const std::vector<std::string>& ws, bool reads) {
  const bool process = any_in(ws, {"process", "processes", "proc", "pid", "session", "sessions", "job", "jobs"});
  if (any_in(ws, kKill) || (process && any_in(ws, {"stop", "end", "force", "cancel"}))) return Danger::kProcess;
  if (any_in(ws, kExecVerbs) || (!reads && any_in(ws, kExecNouns)) ||
      (process && any_in(ws, {"start", "create", "interact", "write", "input", "attach"})))
    return Danger::kExec;
  if (any_in(ws, kSend)) return Danger::kSend;
  // "add" alone is arithmetic (server-everything's add); "add_observations" writes.
  for (const auto& w : ws)
    if (in(w, kWrite) && !(w == "add" && ws.size() == 1)) return Danger::kWrite;
  return Danger::kNone;
}

// The description's first sentence, in words that say what the tool does to the machine.
Danger from_description(const std::string& d) {
  std::string first = d.substr(0, std::min(d.find_first_of(".\n"), d.size()));
  const auto ws = words_of(first);
  if (any_in(ws, {"kill", "kills", "terminate", "terminates", "signal", "signals"})) return Danger::kProcess;
  if (any_in(ws, {"execute", "executes", "executing", "runs", "eval", "evaluates", "spawn", "spawns"}) &&
      any_in(ws, {"command", "commands", "shell", "code", "script", "scripts", "program", "process", "sql"}))
    return Danger::kExec;
  if (any_in(ws, {"sends", "send", "publishes", "publish", "posts", "emails", "uploads", "deploys"})) return Danger::kSend;
  if (any_in(ws, {"write", "writes", "delete", "deletes", "remove", "removes", "overwrite", "overwrites", "create",
                  "creates", "modify", "modifies", "move", "moves", "rename", "renames", "edit", "edits", "update",
                  "updates", "save", "saves", "append", "appends", "replace", "replaces", "insert", "inserts",
                  "drop", "drops", "truncate", "truncates", "commit", "commits", "install", "installs"}))
    return Danger::kWrite;
  return Danger::kNone;
}

}  // namespace

const char* danger_key(Danger d) {
  switch (d) {
    case Danger::kProcess: return "process";
    case Danger::kExec: return "exec";
    case Danger::kWrite: return "write";
    case Danger::kSend: return "send";
    case Danger::kNone: break;
  }
  return "";
}

const char* danger_label(Danger d) {
  switch (d) {
    case Danger::kProcess: return "process control";
    case Danger::kExec: return "shell or code execution";
    case Danger::kWrite: return "delete, move or overwrite";
    case Danger::kSend: return "sending or publishing";
    case Danger::kNone: break;
  }
  return "";
}

Danger classify_danger(const json& tool) {
  if (!tool.is_object()) return Danger::kNone;
  bool destructive = false;
  if (auto a = tool.find("annotations"); a != tool.end() && a->is_object()) {
    destructive = a->value("destructiveHint", false) == true;
    if (!destructive && a->value("readOnlyHint", false) == true) return Danger::kNone;
  }
  const std::string name = tool.value("name", "");
  const auto ws = words_of(name);
  const bool reads = any_in(ws, kRead);
  if (Danger d = from_words(ws, reads); d != Danger::kNone) return d;
  // What its parameters take: a process id, a command line or code to run.
  std::vector<std::string> params;
  if (auto s = tool.find("inputSchema"); s != tool.end() && s->is_object())
    if (auto p = s->find("properties"); p != s->end() && p->is_object())
      for (const auto& [k, v] : p->items()) params.push_back(k);
  for (const auto& p : params)
    if (pid_like(p)) return Danger::kProcess;
  if (!reads) {
    for (const auto& p : params) {
      const auto pw = words_of(p);
      if (!pw.empty() && in(pw.back(), {"command", "cmd", "script", "code", "shell", "commands", "argv"}))
        return Danger::kExec;
    }
    const std::string desc = tool.contains("description") && tool["description"].is_string()
                                 ? tool["description"].get<std::string>()
                                 : std::string();
    if (Danger d = from_description(desc); d != Danger::kNone) return d;
  }
  return destructive ? Danger::kWrite : Danger::kNone;
}

bool danger_allowed(const std::vector<std::string>& allow, const std::string& tool, Danger d) {
  for (const auto& a : allow)
    if (a == "all" || a == danger_key(d) || glob_match(a, tool)) return true;
  return false;
}

json without_pids(const json& args) {
  if (!args.is_object()) return args;
  json out = args;
  for (auto& [k, v] : out.items()) {
    if (!pid_like(k)) continue;
    if (v.is_number()) v = kNoSuchPid;
    else if (v.is_string()) v = std::to_string(kNoSuchPid);
    else if (v.is_array())
      for (auto& e : v) e = e.is_string() ? json(std::to_string(kNoSuchPid)) : json(kNoSuchPid);
  }
  return out;
}

}  // namespace ctxo::engine
