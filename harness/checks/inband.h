// SPDX-License-Identifier: MIT
// In-band failures: what an answer judged by no envelope profile says went wrong, when it says so
// in its content instead of in the protocol (issue 29). Three rules, on calls valid for the tool's
// inputSchema only (an invalid call's answer is P-REJECT's business):
//
//  | rule       | severity | when                                                              |
//  |------------|----------|-------------------------------------------------------------------|
//  | P-NO-THROW | error    | the answer (isError or not) carries an internal error: a runtime   |
//  |            |          | exception (TypeError/ReferenceError/RangeError: <message>, `is not |
//  |            |          | a function`, `Cannot read properties of undefined`, stack frames   |
//  |            |          | `at f (file.js:1:2)`, Python's Traceback) or a database engine's   |
//  |            |          | error (`fts5: syntax error`, SQLITE_ERROR, `no such column`, `no   |
//  |            |          | such table`, `datatype mismatch`, `syntax error at or near`, ...), |
//  |            |          | or a shell's syntax error (`/bin/sh: 1: Syntax error: ")"          |
//  |            |          | unexpected`, bash's `syntax error near unexpected token`): the     |
//  |            |          | argument was pasted into a command line unquoted (injection).     |
//  |            |          | Never: an environment failure anywhere in it (`fetch failed`,      |
//  |            |          | ECONNREFUSED, ENOTFOUND, EAI_AGAIN, ETIMEDOUT, ENOENT, EACCES,     |
//  |            |          | ...); a database error to a call whose argument is itself a query  |
//  |            |          | (a SQL statement, a parameter or tool described as SQL or FTS      |
//  |            |          | query syntax); a runtime exception to a call whose argument is code |
//  |            |          | the tool runs (evaluate/execute, a `code`/`script`/`expression`    |
//  |            |          | parameter), or a ReferenceError naming the call's own argument;    |
//  |            |          | a shell error to a tool that runs commands or code (shell_call).   |
//  | P-ISERROR  | warning  | a result without isError:true whose content is an error           |
//  |            |          | (content_reach says kError: error prose, `{"error":...}` with no   |
//  |            |          | data). Not for a batch (several parts, `---` sections, or a call  |
//  |            |          | that passes a list, such as {paths: [...]}: one                    |
//  |            |          | item's error is that item's answer), nor for a call that asked for |
//  |            |          | an error (an argument that is the word: {messageType: "error"}).   |
//  |            |          | One finding per tool, or ONE server-level finding (tool "")        |
//  |            |          | when two or more tools do it and no tool ever set isError:true on  |
//  |            |          | a valid call's failure: the server's habit, not a tool's. Held     |
//  |            |          | until finish(), so the collapse is decided on the whole run.       |
//  | P-LEAK     | warning  | a success answer printing a JavaScript non-value where a value     |
//  |            |          | belongs: content_reach says kLeak (reach.h's leak rules: `schema   |
//  |            |          | for zzz: undefined`, `[object Object]`, not `Returns: undefined`,  |
//  |            |          | not code), or a JSON string value that is exactly "undefined",     |
//  |            |          | "NaN" or "[object Object]" (not one of the call's own arguments).  |
//
// One cause, one finding: an answer without isError that carries an internal error is reported as
// P-NO-THROW only (the stronger rule; its diagnosis says the flag was missing too), never also as
// P-ISERROR.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "checks/outcome.h"
#include "mcp/answer.h"
#include "mcp/client.h"

namespace ctxo::checks {

/// What an internal error in an answer is.
enum class InternalKind { kNone, kRuntime, kDatabase, kShell };

struct InternalError {
  InternalKind kind = InternalKind::kNone;
  std::string evidence;  ///< The line that says so.
};

/// The internal error `text` carries, if any. `strict`: only a message that starts with one (the
/// answer does not otherwise read as a failure), database errors only.
InternalError internal_error(std::string_view text, bool strict = false);

/// `text` names a failure of the environment (network, file system): a domain answer.
bool environment_failure(std::string_view text);

/// The call hands the tool a query in a database language: a string argument that is a SQL
/// statement, or a tool or string parameter named or described as SQL / full-text query syntax.
bool query_language_call(const nlohmann::json* tool, const nlohmann::json& arguments);

/// The call hands the tool code to run: a tool named or described as evaluating or executing code,
/// or a string parameter named code, script, expression, javascript, js, source.
bool code_call(const nlohmann::json* tool, const nlohmann::json& arguments);

/// The call hands the tool a command line or code to run, where a shell's syntax error is the
/// answer to the input itself: code_call, or a tool named or described as running shell or
/// terminal commands, or a string parameter named command, cmd, commandline, shell or bash.
bool shell_call(const nlohmann::json* tool, const nlohmann::json& arguments);

/// Where an answer prints a leaked value: an excerpt around it ("" = none found). `structured`:
/// the answer's structuredContent (nullptr: none), else the text is read (as JSON when it is).
std::string leak_evidence(std::string_view text, const nlohmann::json* structured, const nlohmann::json& arguments);

/// The in-band rules over one run. Not thread-safe (the judge's lock covers it).
class Inband {
 public:
  Inband();
  ~Inband();
  Inband(const Inband&) = delete;
  Inband& operator=(const Inband&) = delete;

  /// One answered tools/call that no envelope profile judged. `valid`: the call is valid for the
  /// tool's inputSchema; `env`: the server's environment overrides when it answered. Returns the
  /// statuses and the P-LEAK / P-NO-THROW findings; P-ISERROR findings are held until finish().
  Outcomes judge(const std::string& name, const nlohmann::json* tool, const nlohmann::json& arguments,
                 const mcp::Answer& answer, bool valid, const std::map<std::string, std::string>& env);
  Outcomes judge(const std::string& name, const nlohmann::json* tool, const nlohmann::json& arguments,
                 const mcp::Reply& reply, bool valid, const std::map<std::string, std::string>& env);

  /// The held P-ISERROR findings, per tool, or one server-level finding under "" (see the table).
  std::map<std::string, Outcomes> finish();

  /// Adds what `shard` (a fresh Inband that judged one piece of parallel work, engine/workers.cpp)
  /// held, as if this object had judged it; `shard` is left empty.
  void absorb(Inband& shard);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace ctxo::checks
