// SPDX-License-Identifier: MIT
// What a tool may do to the machine it runs on, for a run without a sandbox: classed by its
// annotations first (readOnlyHint: true is trusted, and what it then changes is observed:
// P-ANNOTATION), then by its name, its description's first sentence and its parameters. The
// dangerous classes are not called outside a sandbox unless --allow-destructive names them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctxo::engine {

enum class Danger { kNone, kProcess, kExec, kWrite, kSend };

/// "process", "exec", "write", "send" ("" for kNone): the names --allow-destructive takes.
const char* danger_key(Danger d);
/// "process control", "shell or code execution", "delete, move or overwrite", "sending or publishing".
const char* danger_label(Danger d);

/// The class of `tool` (a tools/list entry).
Danger classify_danger(const nlohmann::json& tool);

/// --allow-destructive's list lets `tool` (of class `d`) be called: it says "all", names the
/// class, or a glob matching the tool's name.
bool danger_allowed(const std::vector<std::string>& allow, const std::string& tool, Danger d);

/// The value a pid-like parameter gets outside a sandbox: above the kernel's largest possible
/// pid (PID_MAX_LIMIT, 2^22), so a kill reaches nothing. Pids are never made up there.
inline constexpr std::int64_t kNoSuchPid = 4194305;

/// `args` with every pid-like property (pid, processId, pgid, ppid...) set to kNoSuchPid (kept a
/// string where it was one); unchanged when it has none.
nlohmann::json without_pids(const nlohmann::json& args);

}  // namespace ctxo::engine
