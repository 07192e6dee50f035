// SPDX-License-Identifier: MIT
#include "checks/registry.h"

#include <algorithm>

namespace ctxo::checks {

const std::vector<InvariantInfo>& registry() {
  static const std::vector<InvariantInfo> kAll = {
      {"T-FRAMING", "transport", Severity::kError,
       "every stdout line is exactly one JSON-RPC 2.0 message, valid UTF-8, no embedded newline, nothing else on stdout",
       "MCP basic/transports §stdio", true,
       "Write exactly one JSON-RPC message per line on stdout, serialised without embedded newlines and as valid UTF-8, and send every log or debug line to stderr (in Node: console.error, never console.log). Check that no dependency prints banners or warnings to stdout."},
      {"T-ID", "transport", Severity::kError, "one response per request, carrying the request's id",
       "JSON-RPC 2.0 §5; MCP basic/index", true,
       "Answer every request exactly once, copying its id unchanged (a number stays a number, a string stays a string). Never send a second response for the same id, and never answer a notification."},
      {"T-HANG", "transport", Severity::kError, "every request is answered within the timeout",
       "MCP basic/lifecycle §Timeouts", true,
       "Answer every request within the timeout, on error paths too: catch exceptions and reply with an isError result or a JSON-RPC error instead of dropping the request. For slow tools, send notifications/progress with the request's progressToken, or enforce your own deadline and return a truncated result."},
      {"T-CRASH", "transport", Severity::kError, "the server stays alive whatever it is sent",
       "MCP basic/lifecycle", true,
       "Catch errors in every tool handler and turn them into an isError result instead of letting the process exit, and validate arguments before using them. The finding's request is the input that killed the server; its stderr tail shows where."},
      {"T-POISON", "transport", Severity::kError,
       "one call does not leave the server failing every later call of every tool",
       "MCP basic/lifecycle", true,
       "Validate arguments before they size or change shared state (a negative or huge count, a bad handle), and undo or reset that state when a call fails. The finding's request is the call after which every tool failed; its replay sends it, then a call that worked before."},
      {"T-SHUTDOWN", "transport", Severity::kError, "the server exits after its stdin closes, within a grace period",
       "MCP basic/lifecycle §Shutdown", true,
       "Exit when stdin reaches end-of-file: listen for stdin's end/close event, then stop timers, intervals and open handles (or exit explicitly). A background interval that keeps the event loop alive is the usual cause."},
      {"T-LEFTOVER", "transport", Severity::kWarning,
       "no process the server started is still running after the run ends",
       "MCP basic/lifecycle §Shutdown", true,
       "Stop every process you start when your stdin closes or you are signalled: keep children attached (no detached or setsid daemons), and end them in your exit path (child.kill() on stdin's end and on SIGTERM). The finding lists the processes that outlived the run; --kill-leftovers ends them."},
      {"T-HTTP-STATUS", "transport", Severity::kError,
       "Streamable HTTP: 202 Accepted with no body for a POSTed notification or response; a request is answered "
       "with a JSON body or an SSE stream, never 202; input the server cannot accept, or an unsupported "
       "MCP-Protocol-Version, gets an HTTP error status (400)",
       "MCP basic/transports §Streamable HTTP, Sending Messages to the Server; Protocol Version Header (2025-11-25)", true,
       "Answer a POSTed notification or JSON-RPC response with 202 Accepted and no body; answer every request with "
       "Content-Type application/json (the response) or text/event-stream (a stream that carries it); answer a body "
       "that is not JSON-RPC, and an MCP-Protocol-Version you do not support, with 400 Bad Request. SDK transports do "
       "this: check middleware that rewrites statuses or headers."},
      {"T-HTTP-TYPE", "transport", Severity::kError,
       "Streamable HTTP: a request's answer is Content-Type application/json or text/event-stream, and its body (or "
       "each event's data) is one JSON-RPC message",
       "MCP basic/transports §Streamable HTTP, Sending Messages to the Server (2025-11-25)", true,
       "Send JSON responses with Content-Type: application/json and streams with Content-Type: text/event-stream, "
       "and put exactly one complete JSON-RPC message in the body or in each SSE event's data."},
      {"T-HTTP-SESSION", "transport", Severity::kError,
       "Streamable HTTP: an issued Mcp-Session-Id is visible ASCII and honoured until the session ends; after DELETE "
       "it gets 404; requests without it get 400 (SHOULD)",
       "MCP basic/transports §Streamable HTTP, Session Management (2025-11-25)", true,
       "Keep every session you issue until it is deleted or expires, answer requests with an unknown or ended "
       "session id with 404 Not Found, and requests missing the id with 400 Bad Request. Issue ids of visible ASCII "
       "only (a UUID is fine). A server that needs no sessions should not issue an id at all."},
      {"T-HTTP-STREAM", "transport", Severity::kError,
       "Streamable HTTP: the SSE stream opened for a request carries its response (resumable with Last-Event-ID when "
       "the server closes it early)",
       "MCP basic/transports §Streamable HTTP, Sending Messages to the Server; Resumability and Redelivery (2025-11-25)",
       true,
       "Do not end the SSE stream of a request before its JSON-RPC response is written. If you close it early (to "
       "poll), send event ids and honour a GET with Last-Event-ID so the client can resume and get the response."},
      {"P-INIT", "protocol", Severity::kError,
       "well-formed initialize (or server/discover) result with a known protocol version",
       "MCP basic/lifecycle §Initialization", true,
       "Answer initialize (or server/discover) with a protocolVersion you support (the requested one when you can, otherwise your newest), a capabilities object that includes tools, and serverInfo {name, version}."},
      {"P-LIST", "protocol", Severity::kError,
       "tools/list well-formed: unique names, object input schemas; every list (tools, resources, resource templates, prompts) pages forward and ends, and an invalid cursor gets -32602",
       "MCP server/tools; server/utilities/pagination (2025-11-25, 2026-07-28)", true,
       "Give every tool a unique name and an inputSchema whose type is \"object\"; return nextCursor only when another page exists, make each cursor point past the items already sent, never hand out the same cursor twice (an empty string is a cursor too), and answer a cursor you did not issue with -32602."},
      {"P-RELIST", "protocol", Severity::kError,
       "tools/list asked again after the calls lists the same tools in the same order, unless the server sent notifications/tools/list_changed",
       "MCP server/tools §Capabilities (2026-07-28: MUST NOT vary as a side effect of other requests; SHOULD list in a deterministic order), §List Changed Notification",
       true,
       "Keep the tool list independent of the calls made. When it does change (a tool registered or removed at run time), send notifications/tools/list_changed and declare tools.listChanged; list tools in a fixed order (sorted, or as registered)."},
      {"P-RESULT", "protocol", Severity::kError,
       "CallToolResult well-formed: typed content blocks, boolean isError, structuredContent valid against outputSchema",
       "MCP server/tools §Tool Result", true,
       "Return {content: [...], isError?: boolean} where every content block has a type (a \"text\" block has a string text). When a tool declares an outputSchema, return structuredContent that validates against it."},
      {"P-NO-THROW", "protocol", Severity::kError,
       "a schema-valid call never gets a JSON-RPC error, nor a runtime exception, a database engine's or a shell's error in its result; no call gets -32603, a crash or a hang",
       "MCP server/tools §Error Handling", true,
       "Report domain failures as a tool result with isError: true or an envelope error, never as a JSON-RPC error (-32602 only for arguments that break the schema, never -32603). An exception or an engine's error in the answer (a stack, \"fts5: syntax error\", \"sh: 1: Syntax error\") escaped too: fix the bug the input exposes (bind or quote input in queries; give a program its arguments as a list)."},
      {"P-ACCEPT", "protocol", Severity::kWarning,
       "a schema-valid call is not answered with an input-validation error", "SPEC §3", true,
       "Make the tool's runtime validation agree with its inputSchema: a value the schema allows must be accepted. Either relax the code or tighten the schema (enum, minimum, pattern, required) so agents are not invited to send inputs you reject."},
      {"P-REJECT", "protocol", Severity::kWarning, "a schema-invalid call is not answered with an ordinary success",
       "SPEC §3", true,
       "Validate arguments against the inputSchema before running the tool, and answer invalid ones with -32602 or an isError result naming the offending field instead of silently succeeding."},
      {"P-ISERROR", "protocol", Severity::kWarning,
       "a failed tool call is reported with isError: true, not as an ordinary result holding error text or an error object",
       "MCP server/tools §Error Handling (tool execution errors are reported in tool results with isError: true); "
       "schema CallToolResult.isError (errors that originate from the tool SHOULD be reported inside the result "
       "object, with isError set to true)",
       true,
       "Set isError: true on every result that reports a failure ({\"error\": ...}, \"Error: ...\", \"Failed to ...\"), where the server builds its failure results (one helper for every tool), so hosts and agents can tell an error from data. A lookup that finds nothing may answer a plain \"not found\" without it."},
      {"P-LEAK", "protocol", Severity::kWarning, "no undefined, [object Object] or NaN where a value belongs",
       "SPEC §3", true,
       "Check for missing values before formatting an answer (a lookup that returned undefined, a field the object does not have), convert numbers with a check for NaN, and serialise objects with JSON.stringify instead of string concatenation or template literals, which print [object Object]."},
      {"P-CONCURRENT", "protocol", Severity::kError,
       "calls in flight at once on one session each get the answer the same call gets alone, once, under its own id",
       "MCP basic/index (requests carry unique ids; responses may come in any order); JSON-RPC 2.0 §6; "
       "ToolAnnotations readOnlyHint/idempotentHint (hosts run such tools concurrently)",
       true,
       "Keep per-call state in the handler's locals, not in module variables; give each call's temporary file a unique name (mkdtemp); guard what calls must share (a cache, a connection, a working directory) with a lock or a queue. Hosts run read-only tools in parallel: replay the finding's batch to see the mix-up."},
      {"P-ANNOTATION", "protocol", Severity::kError,
       "a tool annotated readOnlyHint: true changes no file of the project it works on nor what other read-only "
       "tools answer; one annotated idempotentHint: true changes nothing more when the same call is made again",
       "MCP server/tools §Tool annotations (readOnlyHint: the tool does not modify its environment; idempotentHint: "
       "calling the tool repeatedly with the same arguments will have no additional effect on its environment); hosts run "
       "such tools without asking (VS Code), admit only them in plan mode (Claude Code), and skip permission "
       "prompts for them (ChatGPT)",
       true,
       "Annotate a tool readOnlyHint: true only if no call of it writes a file (caches included) or changes what other tools show (a list it appends to, a counter); else move the write out of it. Annotate idempotentHint: true only if the same call made again changes nothing more (an upsert, a set-like add). The finding names the files or the answers the call changed."},
      {"E-PARSE", "envelope", Severity::kError, "the envelope is one JSON object in one text part", "SPEC §2", true,
       "Return the envelope as one JSON object serialised into a single text content block; put warnings inside the envelope (e.g. warnings[]), not in an extra text part before or after it."},
      {"E-SCHEMA", "envelope", Severity::kError, "the envelope validates against the profile's schema", "SPEC §2",
       true,
       "Make the envelope match the profile's schema for its form (success, graceful miss, error): required fields present, documented types (counts as integers, flags as booleans). The diagnosis names the JSON pointer and the rule that failed."},
      {"E-STABLE", "envelope", Severity::kError, "the same call twice gives the same hint strings and payload",
       "seed 000 §Truncation", true,
       "Make the answer deterministic for the same call: no timestamps, counters, random ids or hash-map iteration order in hints or payload. Sort results by a stable key."},
      {"E-MISS", "envelope", Severity::kError, "a lookup of something absent is a graceful miss, not an error",
       "seed 000 §Graceful miss", true,
       "When a lookup finds nothing, return the profile's graceful miss (e.g. found: false plus a hint on how to search instead) as an ordinary result, not an error or an isError result."},
      {"E-ERROR", "envelope", Severity::kError, "errors have the profile's shape and a stable code", "seed 001 §Errors",
       true,
       "Return errors in the profile's error shape, with a code from its stable set (e.g. INVALID_ARGUMENT, NOT_FOUND) and a readable message; do not invent codes or put stack traces in the code field."},
      {"E-HINT-REF", "envelope", Severity::kError,
       "a hint names only tools, parameters and flags that exist", "SPEC §3", true,
       "Mention only tools, parameters and flags that exist: build hint text from the same constants that define tools/list and the input schemas, so they cannot drift. A next-page hint must carry what the next call needs (e.g. the cursor value)."},
      {"TR-HINT", "truncation", Severity::kError,
       "truncated implies a non-empty hint; generically (profile generic): a true truncated/hasMore/moreAvailable "
       "flag names a way on (cursor, offset, page token, hint text, or a footer saying how)",
       "seeds 000/001/003/004; tests/npm/fixtures/dialects/paged.mjs", true,
       "Whenever you set truncated (or drop anything), also set a non-empty hint (or dropped.note, truncation_hint, truncation_info.reason) telling the agent how to get the rest: which parameter to narrow, or which cursor to pass. Without an envelope profile: next to a true truncated/hasMore flag, give nextCursor, nextOffset or a hint saying how to get more."},
      {"TR-COUNT", "truncation", Severity::kError,
       "counts tell the truth: returned = array length, total >= returned, truncated iff returned < total; "
       "generically (profile generic) also no \"no more\" (a false more-flag, total = returned, \"Found N\" = N "
       "shown) while the same call with a larger limit returns more",
       "seeds 000/003/004; tests/npm/fixtures/dialects/paged.mjs", true,
       "Compute the counts from the array you actually return, after truncating: returned = its length, total = the size before truncation, truncated = returned < total. A more-flag (hasMore, moreAvailable) must be true whenever items were left out, whatever the limit, and \"Found N\" must count the matches, not the ones shown."},
      {"TR-CAP", "truncation", Severity::kError, "the serialised envelope fits the limit", "seeds 000/003/004", true,
       "Measure the whole serialised text part, metadata included, in the profile's unit (UTF-8 bytes, not string length) and cut until it is <= the limit. Leave room for the _meta and hint you add after cutting."},
      {"TR-BYTES", "truncation", Severity::kError, "reported sizes are UTF-8 byte counts of what they describe",
       "seed 000 §_meta", true,
       "Report sizes as UTF-8 byte counts of the full, untruncated payload serialised without its metadata (Buffer.byteLength(s, 'utf8') in Node, len(s.encode()) in Python), not as string length in UTF-16 units or code points."},
      {"TR-ENV", "truncation", Severity::kError, "the limit override in the environment is honoured",
       "seeds 000/003", true,
       "Read the limit from the environment variable the profile names (e.g. CTXO_RESPONSE_LIMIT) at start-up and use it instead of the built-in default; fall back to the default only when the variable is missing or not a number."},
      {"TR-PREFIX", "truncation", Severity::kError,
       "a truncated array is a prefix of the untruncated one; generically (profile generic): an answer cut by a "
       "constant cap lists the same items as the same call with its item-count limit at what it kept",
       "seed 000 §Truncation; issue 42 (generic)", true,
       "Truncate by keeping the first items in their original order and dropping from the end; do not sample, reorder or keep the last items, so the next page can continue where this one stopped."},
      {"TR-MAXIMAL", "truncation", Severity::kError,
       "the truncated array is the largest prefix that fits; generically (profile generic): asked for one item more "
       "than a constant cap kept (fewer than the cut call asked), the server does not return one more",
       "seed 000 §Truncation; issue 42 (generic)", true,
       "Keep the largest prefix that fits: add items while the serialised envelope stays within the limit (or binary-search on the prefix length) instead of cutting by a fixed ratio or item count."},
      {"TR-VERBATIM", "truncation", Severity::kError, "under the limit the payload is complete and not truncated; quoted text is the workspace's text verbatim; a cut never splits a character",
       "seed 000 §Truncation; issue 29 (generic); issue 42 (cuts)", true,
       "Under the limit, return the payload whole with truncated false and no hint. Quote file text byte for byte as UTF-8: never drop emoji, replace CJK or change line endings. Cut on a character boundary: in JavaScript by code points (Array.from(s).slice(0, n)), never s.slice(0, n) across a surrogate pair; cutting bytes, back up to a UTF-8 lead byte."},
      {"TR-RESUME", "truncation", Severity::kError,
       "following the hint or cursor returns the items right after the prefix; generically (profile generic): "
       "the page a nextCursor/nextOffset/nextPage names neither repeats nor skips items of the same call's list at a larger limit",
       "seed 003; issue 29 (generic)", true,
       "Make the cursor (or next-page hint) start exactly after the last returned item: encode the offset of the next item, not of the last one, over the same ordering, so pages neither overlap nor leave gaps."},
      {"B-USED", "budget", Severity::kError, "used <= requested", "seed 001 §Token budgets", true,
       "Cut the payload until the tokens used (ceil(chars/4) of the serialised envelope) are at most the requested budget, and report that measured value in tokenBudget.used."},
      {"B-CLAMP", "budget", Severity::kError, "requested = clamp(argument or default, min, max)",
       "seed 001 §Token budgets", true,
       "Set tokenBudget.requested to the argument (or the default when it is absent) clamped to the profile's [min, max], report the profile's max, and truncate against the clamped value."},
      {"B-ESTIMATE", "budget", Severity::kError, "used agrees with ceil(chars/4) within the tolerance",
       "seed 001 §Token budgets", true,
       "Compute used from the final serialised envelope as ceil(length / 4), where length counts UTF-16 code units (a JavaScript string's length), after every field, tokenBudget included, is filled in."},
      {"POS-BASE", "positions", Severity::kError, "line >= 1, col >= 1, endLine >= line", "seed 001 §Positions",
       true,
       "Emit 1-based lines and columns (add 1 to 0-based parser or editor positions), and never let endLine come before line. A tool that keeps LSP's 0-based positions and says so in its description gets a warning; mixing 0-based and 1-based tools in one server is an error."},
      {"POS-PATH", "positions", Severity::kError, "file paths are repo-relative with / separators",
       "seed 001 §Positions", true,
       "Emit paths relative to the workspace root with / separators: strip the root prefix, convert backslashes, and never return absolute paths or paths containing '..'."},
      {"POS-UTF16", "positions", Severity::kError,
       "with --root: positions exist and columns count UTF-16 code units", "seed 001 §Positions", true,
       "Count columns from 1 in UTF-16 code units (as LSP and JavaScript do), not in UTF-8 bytes or code points, and make file and line point at the text the snippet shows. The diagnosis says how your server counted."},
      {"H-SIZE", "host", Severity::kWarning,
       "every answer, error text included, fits the selected hosts' size limits (severity from what the host does past them)",
       "SPEC §3 Host limits; schemas/hosts/*.json", true,
       "Keep a tool's default answer under the hosts' limits (Claude Code: 10,000 tokens by chars/4 before it warns, 25,000 tokens or 50,000 characters before it writes the answer to a file; Claude Desktop: 1 MB): return a page with a cursor or a truncated answer with a hint. A tool that must answer big can declare _meta[\"anthropic/maxResultSizeChars\"] for Claude Code."},
      {"H-NAME", "host", Severity::kError, "tool names meet the selected hosts' and model providers' rules",
       "SPEC §3 Host limits; schemas/hosts/*.json", true,
       "Name tools with 1 to 64 characters from A-Z, a-z, 0-9, underscore and hyphen: providers refuse dots, slashes and spaces, and a refused name fails every request that lists the server's tools."},
      {"H-SCHEMA", "host", Severity::kError, "input schemas use nothing a selected host refuses",
       "SPEC §3 Host limits; schemas/hosts/*.json", true,
       "Keep anyOf, oneOf and allOf out of the top level of an inputSchema (the Anthropic API refuses the whole request): make the alternatives optional properties and check the combination in the handler."},
      {"H-DECLARED", "host", Severity::kWarning,
       "a ceiling the tool declares (_meta[\"anthropic/maxResultSizeChars\"]) is valid and its own answers stay under it",
       "SPEC §3 Host limits; schemas/hosts/*.json", true,
       "Declare an integer between 1 and the host's ceiling (500,000 for anthropic/maxResultSizeChars) and cut answers to it; a tool that answers past its own ceiling is diverted to a file anyway."},
      {"H-DESC", "host", Severity::kWarning,
       "tool descriptions and the server's instructions fit the selected hosts' cuts (Claude Code: 2,048 characters each)",
       "SPEC §3 Host limits; schemas/hosts/*.json", true,
       "Keep each tool description and the server's instructions under 2,048 characters, with what the model needs first (what the tool is for, when to use it, its parameters): Claude Code silently cuts the rest. Move long reference material into a resource or a tool that returns it."},
      {"H-TOOLS", "host", Severity::kWarning,
       "the server lists no more tools than a selected host offers the model (Cursor: 80, VS Code's Copilot: 128, across all servers)",
       "SPEC §3 Host limits; schemas/hosts/*.json", true,
       "Expose fewer tools by default: merge tools that differ only by a parameter, or let users enable groups of tools with an option. Such a cap is shared by every server enabled in the host, so stay well under it."},
      {"H-UNICODE", "host", Severity::kError,
       "tool answers and the tools/list hold no text a selected host cannot pass on (Claude Code: a lone UTF-16 surrogate)",
       "SPEC §3 Host limits; RFC 8259 §8.2; schemas/hosts/*.json", true,
       "Never send a lone UTF-16 surrogate: cut text on character boundaries (never between the two halves of a surrogate pair) and replace a lone surrogate with U+FFFD. The Anthropic API refuses a whole request that holds one, so a Claude Code session cannot go on."},
  };
  return kAll;
}

std::vector<std::string> in_registry_order(const std::set<std::string>& ids, const Selection& selection) {
  std::vector<std::string> out;
  for (const auto& inv : registry())
    if (ids.count(inv.id) && selection.enabled(inv.id)) out.push_back(inv.id);
  return out;
}

const InvariantInfo* find_invariant(std::string_view id) {
  for (const auto& inv : registry())
    if (inv.id == id) return &inv;
  return nullptr;
}

Selection::Selection(std::vector<std::string> only, std::vector<std::string> skip)
    : only_(std::move(only)), skip_(std::move(skip)) {}

bool Selection::enabled(std::string_view id) const {
  if (std::find(skip_.begin(), skip_.end(), id) != skip_.end()) return false;
  return only_.empty() || std::find(only_.begin(), only_.end(), id) != only_.end();
}

}  // namespace ctxo::checks
