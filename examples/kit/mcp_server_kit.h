// SPDX-License-Identifier: MIT
// A tiny stdio MCP server loop for C++ tool servers (JSON-RPC 2.0, one JSON object per line);
// it does not validate tool arguments against their schemas: each tool handler checks its own.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace ctxo::kit {

using json = nlohmann::json;

/// Newest protocol version of the initialize-handshake ("legacy") era; answered when a client
/// asks for a version the kit does not know.
inline constexpr std::string_view kLatestLegacyVersion = "2025-11-25";
/// The stateless protocol version served in modern mode (server/discover, per-request _meta).
inline constexpr std::string_view kModernVersion = "2026-07-28";
/// `_meta` key that carries the protocol version of a modern request.
inline constexpr std::string_view kProtocolVersionMetaKey = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key with which a modern client opts in to `notifications/message` for one request.
inline constexpr std::string_view kLogLevelMetaKey = "io.modelcontextprotocol/logLevel";
/// `_meta` key under which modern results carry the server's Implementation.
inline constexpr std::string_view kServerInfoMetaKey = "io.modelcontextprotocol/serverInfo";

/// Legacy versions the kit negotiates, newest first: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05.
const std::vector<std::string>& legacy_versions();

/// Which protocol era a server speaks.
enum class Era {
  kLegacy,  ///< initialize handshake; `server/discover` gets -32601.
  kModern,  ///< 2026-07-28 only; `initialize` gets -32022, every request needs `_meta` protocolVersion.
  kDual,    ///< the first request pins the era: `initialize` -> legacy, anything else -> modern.
};

/// One tool: what `tools/list` shows and the function `tools/call` runs.
struct ToolSpec {
  std::string name;                                  ///< Unique, `[A-Za-z0-9._-]{1,128}`.
  std::string title;                                 ///< Display name; empty = omitted.
  std::string description;                           ///< Empty = omitted.
  json input_schema = json{{"type", "object"}};      ///< Listed verbatim as `inputSchema`.
  json output_schema;                                ///< null = no `outputSchema`.
  json annotations;                                  ///< null = no `annotations` (e.g. readOnlyHint).
  /// Receives the call's `arguments` (always an object, `{}` when absent) and returns a
  /// CallToolResult (`{content:[...], isError?, structuredContent?}`). Invalid arguments and
  /// domain failures are results (see error_result()); an exception escaping the handler is
  /// turned into an `isError: true` result carrying its message, never a JSON-RPC error.
  std::function<json(const json& args)> handler;
};

/// Static configuration of a Server.
struct ServerOptions {
  std::string name = "ctxo-kit-server";  ///< serverInfo.name
  std::string version = "0.1.0";         ///< serverInfo.version
  std::string instructions;              ///< Empty = omitted from initialize/discover results.
  std::size_t page_size = 0;             ///< tools/list page size; 0 = one page with every tool.
  Era era = Era::kLegacy;
  /// Merged into the advertised capabilities (`{"tools":{}}` is always there), e.g.
  /// `{"logging":{}}`, which also makes the kit answer `logging/setLevel`.
  json extra_capabilities = json::object();
  int in_fd = 0;   ///< Where requests come from (stdin).
  int out_fd = 1;  ///< Where messages go (stdout). Nothing else is ever written to it.
};

/// A single-threaded MCP stdio server: reads one JSON-RPC message per line, answers each request
/// with one compact JSON line, ignores unparseable lines and replies to its own requests it is
/// not waiting for. Handles initialize (version negotiation), notifications/initialized, ping,
/// tools/list (paginated with opaque cursors), tools/call, server/discover (modern era) and
/// logging/setLevel (when the logging capability is declared); anything else gets -32601.
/// Not thread-safe; handlers run on the thread that called run() and may call back into it.
class Server {
 public:
  /// Called instead of the built-in handling for one method; it must answer the request itself
  /// (send(build_response(request)), possibly altered) or deliberately not at all. Runs only for
  /// requests that passed the kit's own checks (params an object; in the modern era a supported
  /// `_meta` protocolVersion): the kit answers refused requests itself. An exception escaping
  /// a hook is answered with -32603.
  using RequestHook = std::function<void(const json& request)>;

  explicit Server(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Registers a tool, listed in registration order. Errors ("usage"): empty or duplicate name,
  /// missing handler.
  [[nodiscard]] Result<void> add_tool(ToolSpec tool);

  /// Replaces the built-in handling of requests with this method (see RequestHook).
  void intercept(std::string method, RequestHook hook);

  /// Serves until stdin reaches end of file (returns 0) or stdout cannot be written (returns 1).
  /// Ignores SIGPIPE for the process so a vanished client shows up as a write error.
  int run();

  /// The built-in response message (`{"jsonrpc","id","result"|"error"}`) for a request, without
  /// writing it. For tools/call this runs the tool handler (and whatever it sends meanwhile).
  /// Returns null for a message that must not be answered (a notification).
  json build_response(const json& request);

  /// Writes one message as a compact JSON line (invalid UTF-8 in strings is replaced by U+FFFD).
  /// Error ("io") when the output is closed.
  [[nodiscard]] Result<void> send(const json& message);
  /// Writes these bytes to stdout exactly as given (for deliberately broken output).
  [[nodiscard]] Result<void> write_raw(std::string_view bytes);
  /// Sends a notification `{"jsonrpc":"2.0","method":method,"params":params}` (params omitted if null).
  [[nodiscard]] Result<void> notify(std::string_view method, json params = nullptr);
  /// Sends `notifications/message` unless the level is below the client's logging/setLevel, or,
  /// for a modern request, unless that request opted in with `_meta` logLevel. Always ok when
  /// skipped.
  [[nodiscard]] Result<void> log(std::string_view level, json data, std::string_view logger = "");
  /// Sends a server->client request and waits for its reply, queueing any other client message
  /// that arrives meanwhile (handled after the current request). Returns the reply's `result`.
  /// Errors: "rpc" (the client answered with an error; message holds code and message),
  /// "timeout", "eof" (stdin closed), "io" (could not write).
  [[nodiscard]] Result<json> request(std::string_view method, json params,
                                     std::chrono::milliseconds timeout);

  /// The request being handled right now, or nullptr between requests.
  const json* current_request() const { return current_; }
  /// The opaque cursor tools/list hands out for the page starting at tool `offset`.
  static std::string cursor_for(std::size_t offset);
  /// Era of this session (for kDual: kDual until the first request pins it).
  Era era() const { return era_; }
  /// Protocol version agreed in initialize (legacy) or kModernVersion; empty before that.
  const std::string& protocol_version() const { return protocol_version_; }
  /// The registered tools, in listing order.
  const std::vector<ToolSpec>& tools() const { return tools_; }

 private:
  class LineReader;

  void handle_message(const json& message);
  json handle_request(const json& request);
  json call_tool(const json& params);
  json list_tools(const json& params);
  json capabilities() const;
  json server_info() const;

  ServerOptions options_;
  std::vector<ToolSpec> tools_;
  std::map<std::string, RequestHook, std::less<>> hooks_;
  std::unique_ptr<LineReader> reader_;
  std::deque<json> pending_;  ///< Client messages read while waiting for a reply.
  const json* current_ = nullptr;
  Era era_;
  std::string protocol_version_;
  int min_log_rank_ = 0;  ///< From logging/setLevel; 0 = debug.
  std::int64_t next_request_id_ = 1;
  bool output_failed_ = false;
};

/// `{"content":[{"type":"text","text":text}]}`.
json text_result(std::string_view text);
/// `{"content":[{"type":"text","text":message}],"isError":true}`: a tool-level failure.
json error_result(std::string_view message);
/// `{"content":[{"type":"text","text":<value as compact JSON>}],"structuredContent":value}`.
json structured_result(const json& value);

/// The required string argument `key`. Error ("args") with a readable message otherwise.
[[nodiscard]] Result<std::string> string_arg(const json& args, std::string_view key);
/// The integer argument `key` within [min, max]; JSON numbers with a zero fraction (3.0) count
/// as integers, as in JSON Schema. When absent, `fallback` if given, else Error ("args").
[[nodiscard]] Result<std::int64_t> integer_arg(const json& args, std::string_view key,
                                               std::int64_t min, std::int64_t max,
                                               std::optional<std::int64_t> fallback = std::nullopt);
/// Error ("args") naming the first key of `args` not in `allowed` (for additionalProperties:false).
[[nodiscard]] Result<void> only_known_args(const json& args,
                                           std::initializer_list<std::string_view> allowed);
/// Number of Unicode code points in UTF-8 text (what JSON Schema minLength/maxLength count).
std::size_t code_points(std::string_view utf8);
/// Number of UTF-16 code units in UTF-8 text (a JavaScript string's length).
std::size_t utf16_units(std::string_view utf8);
/// The environment variable `var` when it is a positive decimal integer, else `fallback` (a
/// response limit such as CTXO_RESPONSE_LIMIT).
std::size_t env_size(const char* var, std::size_t fallback);

}  // namespace ctxo::kit
