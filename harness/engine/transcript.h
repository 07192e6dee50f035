// SPDX-License-Identifier: MIT
// Offline checking of recorded exchanges (`ctxo-conform check TRANSCRIPT.jsonl`, SPEC §1) and the
// writer of that format (`--record FILE`). One JSON object per line: {"request": <JSON-RPC
// request>, "response": <JSON-RPC response>, "env"?: {K: V}}; other fields are ignored.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/redact.h"
#include "core/result.h"
#include "checks/registry.h"
#include "engine/report.h"

namespace ctxo::engine {

struct CheckOptions {
  std::string transcript;                   ///< Path of the .jsonl file ('-' = stdin).
  std::optional<std::string> tools_list;    ///< File with a tools/list result (or a whole response).
  std::string profile = "auto";
  std::optional<std::string> root;
  checks::Selection selection;
  std::string host;  ///< --host (see RunOptions::host).
  bool strict_error_output = false;  ///< --strict-error-output (see RunOptions).
};

/// Runs every check that needs no live server over the transcript: T-ID, P-INIT, P-LIST,
/// P-RESULT, P-NO-THROW, the envelope checks, E-STABLE (identical calls), and the limit sweep
/// checks (identical calls under different limit variables in `env`). Errors (exit 2): the
/// transcript or tools list cannot be read or parsed (the message names the line).
Result<RunReport> check_transcript(const CheckOptions& options);

/// Appends exchanges to a transcript file as they happen.
class Recorder {
 public:
  /// Opens (truncates) `path`. Errors: "io". With a `redactor`, every line is scrubbed of its
  /// secrets before it is written (the request, the server's answer, the env, the server's URL).
  static Result<Recorder> open(const std::string& path, std::shared_ptr<const core::Redactor> redactor = nullptr);
  /// Appends one exchange. A write that fails (a full disk) is kept in error(); later ones are
  /// not tried.
  void record(const nlohmann::json& request, const nlohmann::json& response,
              const std::map<std::string, std::string>& env);
  /// The first failed write ("cannot write --record file 'F': No space left on device"), or "".
  const std::string& error() const { return error_; }
  /// Where the exchanges were made: written as "server" on the next exchange recorded (the
  /// handshake's), e.g. {"url": "http://127.0.0.1:3001/mcp"} for a Streamable HTTP server.
  void set_server(nlohmann::json server) { server_ = std::move(server); }

 private:
  std::string path_;
  std::shared_ptr<const core::Redactor> redactor_;
  nlohmann::json server_;
  std::string error_;
};

}  // namespace ctxo::engine
