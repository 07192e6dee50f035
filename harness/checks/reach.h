// SPDX-License-Identifier: MIT
// What a success answer judged by no envelope profile carries, read from its content alone: the
// coverage category of an answer that is not isError and matched no profile's forms. Nothing here
// makes a finding itself: coverage counts it, and checks/inband.* starts from it (P-ISERROR for
// kError without isError, P-LEAK for kLeak), so its precision is theirs. Precision over recall: when in doubt, an answer is data
// (a real answer that merely mentions "TypeError" or "not found" must never be read as a failure).
//
// The rules, in order (the first that holds decides):
//
//  Answer (structuredContent when present, else the text; text that is JSON is read as JSON)
//  | shape                                   | category | example                                   |
//  |-----------------------------------------|----------|-------------------------------------------|
//  | empty text, `null`, `[]`, `{}`, `""`    | empty    |                                           |
//  | object with an error signal and no data | error    | {"error":"boom"} {"success":false,"msg":…}|
//  |   (isError/is_error true, success/ok    |          | {"isError":true} {"status":"error"}       |
//  |   false, status error/failed, a non-    |          |   (a miss when its message is a miss:     |
//  |   empty error/errors/errorMessage)      |          |   {"error":"Symbol not found"})           |
//  | object with found/exists false, no data | miss     | {"found":false,"hint":"use search"}       |
//  | object whose data fields are all leaks, | leak     | {"schema":"undefined"}                    |
//  |   or a short one (≤ 300 B) with a leak  |          | {"name":"zzz","schema":"[object Object]"} |
//  | object with no data field and an empty  | empty    | {"type":"x","data":[]}                    |
//  |   container (arrays/objects/null/"")    |          | {"results":[],"total":0,"query":"q"}      |
//  | object whose one data field is a string | (text)   | {"result":"No generators found"} -> miss  |
//  | array of nothing but empties / leaks    | empty/leak | [[],{}] ["undefined"]                   |
//  | a JSON string                           | (text)   | "undefined" -> leak                       |
//  | anything else JSON                      | data     |                                           |
//
//  A data field is one whose key is not metadata-like (type, kind, status, code, message, error,
//  success, found, hint, _meta, total, count, query, page, cursor, ...; see kMeta in reach.cpp) and
//  whose value is not empty (null, "", [], {}, or containers of only those and metadata).
//
//  Text: parts (content parts, or sections between `---`/`===` lines) are read apart, and the
//  answer is data when one part is (one file read of two), else the strongest part's category.
//  In a part, stack-frame lines ("    at f (file.js:1:2)", Python `File "x", line 3`) are set aside.
//  The message lines are every line when what remains is short (≤ 300 bytes), else the first line
//  only, and only when the rest is ≤ 300 bytes. Any data-like line (list item `- `/`* `/`1. `,
//  table row `|`, `path:line` anchor) makes the answer data. Code-like lines (`;`/`{`/`}` at the
//  end, `=>`, `name(`, `//`, a leading keyword: const/let/function/def/class/import/return/throw,
//  a hover's `(parameter) x:`) never match a phrase, except an error head at the line's start.
//  | message line                                       | category | example                        |
//  |----------------------------------------------------|----------|--------------------------------|
//  | starts with an error head: `Error:`, `Error …:`,   | error    | Error searching libraries:     |
//  |   `XxxError:`/`XxxException:`, `MCP error -N`,     |          |   TypeError: fetch failed      |
//  |   `Failed to `, `[error]`, `Traceback (most …)`,   |          | TypeError: x is not a function |
//  |   `An error occurred`, `Internal server error`,    |          |                                |
//  |   `Uncaught `                                      |          |                                |
//  | a JS/Node failure in message position (the line's  | error    | Request failed: fetch failed   |
//  |   start, after ": ", or its end): TypeError:,      |          | connect ECONNREFUSED 127.0.0.1 |
//  |   ReferenceError:, SyntaxError:, RangeError:,      |          | foo.map is not a function      |
//  |   `fetch failed`, ECONNREFUSED/ENOENT/EACCES/...,  |          | Cannot read properties of      |
//  |   `is not a function`, `Cannot read properties of` |          |   undefined (reading 'x')      |
//  | a stack trace and nothing else                     | error    |     at f (file.js:1:2)         |
//  | `[object Object]`; `: undefined`, `= undefined`,   | leak     | Found generator schema for     |
//  |   `: NaN`, `= NaN` ending the line or before       |          |   zzz: undefined               |
//  |   punctuation (not after a type/return label);     |          | [object Object]                |
//  |   `undefined` or `NaN` alone                       |          |                                |
//  | a miss phrase: `not found`, `could not find`,      | miss     | No generators found            |
//  |   `does not exist`, `no such`, `no results`,       |          | Symbol 'x' not found           |
//  |   `no matches`, `nothing found`, `0 results`,      |          | 0 results                      |
//  |   `No … found/available/configured/matching`,      |          | No LSP server configured for   |
//  |   `There is/are no …`, `Unknown <thing>`           |          |   file                         |
//  | `Cannot …`, `Could not …`, `Unable to …` at start  | error    | Could not connect to server    |
//  | the whole answer is `(empty)`, `(none)`, `none`,   | empty    |                                |
//  |   `no output`, `n/a`                               |          |                                |
//  | anything else                                      | data     |                                |
//  Precedence across lines: error, then leak, then miss, then empty.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "checks/outcome.h"
#include "mcp/answer.h"

namespace ctxo::checks {

/// The category of a success answer read by no envelope profile: kData, kEmpty, kMiss, kError or
/// kLeak (never kNoAnswer or kRefusal: the caller reads kError of a call generated invalid as its
/// refusal). `structured`: the answer's structuredContent (nullptr or JSON null: none), read
/// instead of the text when present; `text`: its text parts (joined by "\n---\n" to read apart).
Reach content_reach(std::string_view text, const nlohmann::json* structured = nullptr);
/// The same of an answer read once: its structuredContent, else its sections; the JSON one part
/// is read from the reading already made.
Reach content_reach(const mcp::Answer& answer);

/// content_reach() of a JSON value (the answer's structuredContent, or its text parsed).
Reach json_reach(const nlohmann::json& value);

/// The leak rule of one line (the table's `[object Object]`, `: undefined`, ... row), for the
/// evidence of a P-LEAK finding (checks/inband.*): true when `line` (Markdown marks stripped)
/// prints a JavaScript non-value where a value belongs, and is not code.
bool leak_line(std::string_view line);

/// A stack frame line: "at f (file.js:1:2)" (trimmed), or Python's `File "x.py", line 3`.
bool stack_frame_line(std::string_view line);

}  // namespace ctxo::checks
