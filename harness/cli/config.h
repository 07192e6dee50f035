// SPDX-License-Identifier: MIT
// `--config F --server NAME`: the `mcpServers` file users already have (.mcp.json, Claude
// Desktop's claude_desktop_config.json) gives the server's command, args, env and cwd; an
// optional "ctxo-conform" object (top level, and per server) gives option values. Flags given
// on the command line override the file.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/result.h"

namespace ctxo::cli {

struct ServerConfig {
  std::string name;                          ///< The entry chosen.
  std::vector<std::string> command;          ///< command + args (with `url`: the command that starts it, may be empty).
  std::string url;                           ///< A Streamable HTTP entry's "url" ("" = a stdio entry).
  std::vector<std::pair<std::string, std::string>> headers;  ///< Its "headers".
  std::map<std::string, std::string> env;    ///< The entry's env.
  std::string cwd;                           ///< The entry's cwd, relative paths resolved against the file's folder.
  std::size_t others = 0;                    ///< Servers the file lists besides this one (H-TOOLS counts them).
  nlohmann::json options = nlohmann::json::object();  ///< "ctxo-conform" options: top level, then the entry's own.
};

/// Reads `path` and picks server `name` ("" = the only one). Errors ("usage"): unreadable, not
/// JSON, no "mcpServers" object, an unknown name (the message lists the known ones), an entry of
/// a transport not supported ("type": "sse", the deprecated HTTP+SSE transport), or malformed
/// fields. An entry with "url" (type "http" or "streamable-http") is a Streamable HTTP server; a
/// "command" beside it starts the server first.
Result<ServerConfig> load_server_config(const std::string& path, const std::string& name);

/// Applies `options` (keys are long option names without "--": "calls", "read-only", "junit",
/// ...) to options of `app` not given on the command line, and runs their callbacks. Errors
/// ("usage"): an unknown key, or a value of the wrong JSON type.
Result<void> apply_config_options(CLI::App& app, const nlohmann::json& options, const std::string& origin);

}  // namespace ctxo::cli
