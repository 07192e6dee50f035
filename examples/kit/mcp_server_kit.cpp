// SPDX-License-Identifier: MIT
// The stdio loop, dispatch and helpers of the server kit; POSIX only (poll/read/write on fds).
#include "kit/mcp_server_kit.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <csignal>
#include <exception>
#include <limits>
#include <utility>

namespace ctxo::kit {
namespace {

constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kUnsupportedProtocolVersion = -32022;
constexpr std::string_view kCursorPrefix = "tl.";

constexpr std::array<std::string_view, 8> kLogLevels = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

int log_rank(std::string_view level) {
  for (std::size_t i = 0; i < kLogLevels.size(); ++i) {
    if (kLogLevels[i] == level) return static_cast<int>(i);
  }
  return -1;
}

json error_response(const json& id, int code, std::string message, json data = nullptr) {
  json error = {{"code", code}, {"message", std::move(message)}};
  if (!data.is_null()) error["data"] = std::move(data);
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

json result_response(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

// JSON-RPC ids are strings or integers; null, fractions and booleans make the message invalid.
bool valid_id(const json& id) {
  return id.is_string() || id.is_number_integer();
}

std::optional<std::size_t> parse_cursor(std::string_view cursor) {
  if (cursor.substr(0, kCursorPrefix.size()) != kCursorPrefix) return std::nullopt;
  std::string_view digits = cursor.substr(kCursorPrefix.size());
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  std::size_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  return value;
}

// The protocolVersion a modern request declares in params._meta, if any.
const json* modern_version_of(const json& request) {
  auto params = request.find("params");
  if (params == request.end() || !params->is_object()) return nullptr;
  auto meta = params->find("_meta");
  if (meta == params->end() || !meta->is_object()) return nullptr;
  auto version = meta->find(std::string(kProtocolVersionMetaKey));
  if (version == meta->end()) return nullptr;
  return &*version;
}

}  // namespace

const std::vector<std::string>& legacy_versions() {
  static const std::vector<std::string> versions = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                    "2024-11-05"};
  return versions;
}

// Reads newline-delimited lines from a file descriptor with an optional timeout, so that the
// server can wait for a client's reply without blocking forever.
class Server::LineReader {
 public:
  enum class Status { kLine, kTimeout, kEof };

  explicit LineReader(int fd) : fd_(fd) {}

  /// Next line without its '\n' (and one trailing '\r'); timeout_ms < 0 waits forever.
  Status next(std::string& line, int timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      std::size_t nl = buf_.find('\n', scanned_);
      if (nl != std::string::npos) {
        line.assign(buf_, start_, nl - start_);
        start_ = scanned_ = nl + 1;
        compact();
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return Status::kLine;
      }
      scanned_ = buf_.size();
      if (eof_) {
        if (start_ < buf_.size()) {  // last line without a newline, as std::getline would
          line.assign(buf_, start_, std::string::npos);
          start_ = scanned_ = buf_.size();
          compact();
          if (!line.empty() && line.back() == '\r') line.pop_back();
          return Status::kLine;
        }
        return Status::kEof;
      }
      int wait = -1;
      if (timeout_ms >= 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return Status::kTimeout;
        wait = static_cast<int>(left.count());
      }
      pollfd pfd{fd_, POLLIN, 0};
      int ready = ::poll(&pfd, 1, wait);
      if (ready < 0) {
        if (errno == EINTR) continue;
        eof_ = true;
        continue;
      }
      if (ready == 0) return Status::kTimeout;
      std::array<char, 65536> chunk{};
      ssize_t n = ::read(fd_, chunk.data(), chunk.size());
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        eof_ = true;
      } else if (n == 0) {
        eof_ = true;
      } else {
        buf_.append(chunk.data(), static_cast<std::size_t>(n));
      }
    }
  }

 private:
  void compact() {
    if (start_ > 65536 && start_ * 2 > buf_.size()) {
      buf_.erase(0, start_);
      scanned_ -= start_;
      start_ = 0;
    }
  }

  int fd_;
  std::string buf_;
  std::size_t start_ = 0;    // first byte not yet returned
  std::size_t scanned_ = 0;  // bytes before this hold no '\n' (after start_)
  bool eof_ = false;
};

Server::Server(ServerOptions options)
    : options_(std::move(options)),
      reader_(std::make_unique<LineReader>(options_.in_fd)),
      era_(options_.era) {}

Server::~Server() = default;

Result<void> Server::add_tool(ToolSpec tool) {
  if (tool.name.empty()) return make_error("usage", "tool name must not be empty");
  if (!tool.handler) return make_error("usage", "tool '" + tool.name + "' has no handler");
  for (const auto& t : tools_) {
    if (t.name == tool.name) return make_error("usage", "duplicate tool name '" + tool.name + "'");
  }
  tools_.push_back(std::move(tool));
  return {};
}

void Server::intercept(std::string method, RequestHook hook) {
  hooks_[std::move(method)] = std::move(hook);
}

int Server::run() {
  std::signal(SIGPIPE, SIG_IGN);
  std::string line;
  for (;;) {
    if (output_failed_) return 1;
    if (!pending_.empty()) {
      json message = std::move(pending_.front());
      pending_.pop_front();
      handle_message(message);
      continue;
    }
    auto status = reader_->next(line, -1);
    if (status == LineReader::Status::kEof) return output_failed_ ? 1 : 0;
    if (status != LineReader::Status::kLine) continue;
    // Unparseable lines get no answer at all, as with the TypeScript SDK.
    json message = json::parse(line, nullptr, false);
    if (message.is_discarded()) continue;
    handle_message(message);
  }
}

void Server::handle_message(const json& message) {
  if (!message.is_object()) return;  // batches and scalars are ignored
  auto jsonrpc = message.find("jsonrpc");
  if (jsonrpc == message.end() || *jsonrpc != "2.0") return;
  auto method = message.find("method");
  if (method == message.end()) return;  // a reply to a request we no longer wait for
  if (!method->is_string()) return;
  auto id = message.find("id");
  if (id == message.end()) return;  // notification: initialized, cancelled, ... need no action
  if (!valid_id(*id)) return;

  const json* saved = current_;
  current_ = &message;
  // Tool handlers are already guarded (call_tool); this catches a throwing hook or kit bug so
  // that no exception leaves run() and the client still gets one answer.
  try {
    json gate = handle_request(message);
    if (!gate.is_null()) {
      (void)send(gate);
    } else {
      auto hook = hooks_.find(method->get<std::string>());
      if (hook != hooks_.end()) {
        hook->second(message);
      } else {
        json response = build_response(message);
        if (!response.is_null()) (void)send(response);
      }
    }
  } catch (const std::exception& e) {
    (void)send(error_response(*id, kInternalError, std::string("internal error: ") + e.what()));
  }
  current_ = saved;
}

// Era pinning and the checks that come before any method handling. Returns an error response
// when the request must be refused, null when it may be dispatched.
json Server::handle_request(const json& request) {
  const json& id = request["id"];
  const std::string& method = request["method"].get_ref<const std::string&>();
  auto params = request.find("params");
  if (params != request.end() && !params->is_object()) {
    return error_response(id, kInvalidParams, "params must be an object");
  }
  if (era_ == Era::kDual) {
    if (method == "initialize") {
      era_ = Era::kLegacy;
    } else if (method == "server/discover" || modern_version_of(request) != nullptr) {
      era_ = Era::kModern;
    }
  }
  if (era_ != Era::kModern) return nullptr;

  if (method == "initialize") {
    std::string requested;
    if (params != request.end() && params->contains("protocolVersion") &&
        (*params)["protocolVersion"].is_string()) {
      requested = (*params)["protocolVersion"].get<std::string>();
    }
    return error_response(id, kUnsupportedProtocolVersion, "Unsupported protocol version",
                          json{{"supported", json::array({kModernVersion})}, {"requested", requested}});
  }
  const json* version = modern_version_of(request);
  if (version == nullptr || !version->is_string()) {
    return error_response(id, kInvalidParams,
                          "missing params._meta[\"" + std::string(kProtocolVersionMetaKey) + "\"]");
  }
  if (version->get_ref<const std::string&>() != kModernVersion) {
    return error_response(id, kUnsupportedProtocolVersion, "Unsupported protocol version",
                          json{{"supported", json::array({kModernVersion})}, {"requested", *version}});
  }
  protocol_version_ = std::string(kModernVersion);
  return nullptr;
}

json Server::build_response(const json& request) {
  if (!request.is_object() || !request.contains("id") || !request.contains("method") ||
      !request["method"].is_string()) {
    return nullptr;
  }
  json gate = handle_request(request);
  if (!gate.is_null()) return gate;

  const json& id = request["id"];
  const std::string& method = request["method"].get_ref<const std::string&>();
  const json params = request.contains("params") ? request["params"] : json::object();
  const bool modern = era_ == Era::kModern;

  json result;
  if (method == "tools/list") {
    auto cursor = params.find("cursor");
    if (cursor != params.end() && !cursor->is_string()) {
      return error_response(id, kInvalidParams, "cursor must be a string");
    }
    if (cursor != params.end()) {
      auto offset = parse_cursor(cursor->get_ref<const std::string&>());
      if (!offset || (*offset != 0 && *offset >= tools_.size())) {
        return error_response(id, kInvalidParams, "invalid cursor");
      }
    }
    result = list_tools(params);
  } else if (method == "tools/call") {
    auto name = params.find("name");
    if (name == params.end() || !name->is_string()) {
      return error_response(id, kInvalidParams, "tools/call needs params.name (a string)");
    }
    auto args = params.find("arguments");
    if (args != params.end() && !args->is_object()) {
      return error_response(id, kInvalidParams, "params.arguments must be an object");
    }
    const std::string& tool_name = name->get_ref<const std::string&>();
    auto tool = std::find_if(tools_.begin(), tools_.end(),
                             [&](const ToolSpec& t) { return t.name == tool_name; });
    if (tool == tools_.end()) {
      return error_response(id, kInvalidParams, "Unknown tool: " + tool_name);
    }
    result = call_tool(params);
    if (!result.is_object()) {
      return error_response(id, kInternalError, "tool '" + tool_name + "' returned no result");
    }
  } else if (modern && method == "server/discover") {
    result = {{"supportedVersions", json::array({kModernVersion})},
              {"capabilities", capabilities()},
              {"ttlMs", 0},
              {"cacheScope", "public"}};
    if (!options_.instructions.empty()) result["instructions"] = options_.instructions;
  } else if (!modern && method == "initialize") {
    std::string version(kLatestLegacyVersion);
    auto requested = params.find("protocolVersion");
    if (requested != params.end() && requested->is_string()) {
      const auto& known = legacy_versions();
      if (std::find(known.begin(), known.end(), requested->get<std::string>()) != known.end()) {
        version = requested->get<std::string>();
      }
    }
    protocol_version_ = version;
    result = {{"protocolVersion", version},
              {"capabilities", capabilities()},
              {"serverInfo", server_info()}};
    if (!options_.instructions.empty()) result["instructions"] = options_.instructions;
  } else if (!modern && method == "ping") {
    result = json::object();
  } else if (!modern && method == "logging/setLevel" &&
             options_.extra_capabilities.contains("logging")) {
    auto level = params.find("level");
    int rank = (level != params.end() && level->is_string())
                   ? log_rank(level->get_ref<const std::string&>())
                   : -1;
    if (rank < 0) return error_response(id, kInvalidParams, "unknown log level");
    min_log_rank_ = rank;
    result = json::object();
  } else {
    return error_response(id, kMethodNotFound, "Method not found");
  }

  if (modern) {
    if (!result.contains("resultType")) result["resultType"] = "complete";
    if (!result.contains("_meta") || !result["_meta"].is_object()) result["_meta"] = json::object();
    result["_meta"][std::string(kServerInfoMetaKey)] = server_info();
  }
  return result_response(id, std::move(result));
}

json Server::list_tools(const json& params) {
  std::size_t offset = 0;
  if (params.contains("cursor")) offset = parse_cursor(params["cursor"].get<std::string>()).value_or(0);
  std::size_t end = tools_.size();
  if (options_.page_size > 0) end = std::min(end, offset + options_.page_size);
  json list = json::array();
  for (std::size_t i = offset; i < end; ++i) {
    const ToolSpec& t = tools_[i];
    json tool = {{"name", t.name}};
    if (!t.title.empty()) tool["title"] = t.title;
    if (!t.description.empty()) tool["description"] = t.description;
    tool["inputSchema"] = t.input_schema;
    if (!t.output_schema.is_null()) tool["outputSchema"] = t.output_schema;
    if (!t.annotations.is_null()) tool["annotations"] = t.annotations;
    list.push_back(std::move(tool));
  }
  json result = {{"tools", std::move(list)}};
  if (end < tools_.size()) result["nextCursor"] = cursor_for(end);
  if (era_ == Era::kModern) {
    result["ttlMs"] = 0;
    result["cacheScope"] = "public";
  }
  return result;
}

json Server::call_tool(const json& params) {
  const std::string& name = params["name"].get_ref<const std::string&>();
  auto tool = std::find_if(tools_.begin(), tools_.end(),
                           [&](const ToolSpec& t) { return t.name == name; });
  const json args = params.contains("arguments") ? params["arguments"] : json::object();
  // A handler bug or a nlohmann type_error on odd arguments is the tool's failure, reported to
  // the model as a result (as the SDKs' McpServer does), never a JSON-RPC error.
  try {
    return tool->handler(args);
  } catch (const std::exception& e) {
    return error_result(std::string("tool '") + name + "' failed: " + e.what());
  } catch (...) {
    return error_result("tool '" + name + "' failed");
  }
}

json Server::capabilities() const {
  json caps = {{"tools", json::object()}};
  if (options_.extra_capabilities.is_object()) {
    for (const auto& [key, value] : options_.extra_capabilities.items()) caps[key] = value;
  }
  return caps;
}

json Server::server_info() const {
  return json{{"name", options_.name}, {"version", options_.version}};
}

std::string Server::cursor_for(std::size_t offset) {
  return std::string(kCursorPrefix) + std::to_string(offset);
}

Result<void> Server::write_raw(std::string_view bytes) {
  if (output_failed_) return make_error("io", "stdout is closed");
  while (!bytes.empty()) {
    ssize_t n = ::write(options_.out_fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd pfd{options_.out_fd, POLLOUT, 0};
        (void)::poll(&pfd, 1, -1);
        continue;
      }
      output_failed_ = true;
      return make_error("io", "cannot write to stdout");
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Result<void> Server::send(const json& message) {
  std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
  line.push_back('\n');
  return write_raw(line);
}

Result<void> Server::notify(std::string_view method, json params) {
  json message = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  return send(message);
}

Result<void> Server::log(std::string_view level, json data, std::string_view logger) {
  int rank = log_rank(level);
  if (rank < 0) return make_error("usage", "unknown log level '" + std::string(level) + "'");
  int threshold = min_log_rank_;
  if (era_ == Era::kModern) {
    // 2026-07-28: without a per-request logLevel the server must not log for that request.
    if (current_ == nullptr) return {};
    const json* meta = nullptr;
    auto params = current_->find("params");
    if (params != current_->end() && params->is_object() && params->contains("_meta")) {
      meta = &(*params)["_meta"];
    }
    if (meta == nullptr || !meta->is_object() || !meta->contains(std::string(kLogLevelMetaKey)) ||
        !(*meta)[std::string(kLogLevelMetaKey)].is_string()) {
      return {};
    }
    threshold = log_rank((*meta)[std::string(kLogLevelMetaKey)].get<std::string>());
    if (threshold < 0) return {};
  }
  if (rank < threshold) return {};
  json params = {{"level", level}, {"data", std::move(data)}};
  if (!logger.empty()) params["logger"] = logger;
  return notify("notifications/message", std::move(params));
}

Result<json> Server::request(std::string_view method, json params,
                             std::chrono::milliseconds timeout) {
  if (era_ == Era::kModern) {
    return make_error("usage", "2026-07-28 servers must not send requests on stdio");
  }
  const std::int64_t id = next_request_id_++;
  json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  if (auto sent = send(message); !sent) return sent.error();

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string line;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return make_error("timeout", "no reply to " + std::string(method));
    auto status = reader_->next(line, static_cast<int>(left.count()));
    if (status == LineReader::Status::kTimeout) continue;
    if (status == LineReader::Status::kEof) {
      return make_error("eof", "stdin closed while waiting for a reply to " + std::string(method));
    }
    json reply = json::parse(line, nullptr, false);
    if (reply.is_discarded() || !reply.is_object()) continue;
    if (reply.contains("method")) {
      pending_.push_back(std::move(reply));  // a client request or notification: later
      continue;
    }
    auto reply_id = reply.find("id");
    if (reply_id == reply.end() || !reply_id->is_number_integer() ||
        reply_id->get<std::int64_t>() != id) {
      continue;
    }
    if (reply.contains("result")) return reply["result"];
    std::string detail = "error reply";
    if (reply.contains("error") && reply["error"].is_object()) {
      const json& e = reply["error"];
      detail = "error " + (e.contains("code") ? e["code"].dump() : std::string("?")) + ": " +
               (e.contains("message") && e["message"].is_string()
                    ? e["message"].get<std::string>()
                    : std::string("(no message)"));
    }
    return make_error("rpc", detail);
  }
}

json text_result(std::string_view text) {
  return json{{"content", json::array({json{{"type", "text"}, {"text", text}}})}};
}

json error_result(std::string_view message) {
  json result = text_result(message);
  result["isError"] = true;
  return result;
}

json structured_result(const json& value) {
  json result = text_result(value.dump(-1, ' ', false, json::error_handler_t::replace));
  result["structuredContent"] = value;
  return result;
}

Result<std::string> string_arg(const json& args, std::string_view key) {
  auto it = args.find(key);
  if (it == args.end()) return make_error("args", "missing required argument '" + std::string(key) + "'");
  if (!it->is_string()) {
    return make_error("args", "argument '" + std::string(key) + "' must be a string, got " +
                                  it->type_name());
  }
  return it->get<std::string>();
}

Result<std::int64_t> integer_arg(const json& args, std::string_view key, std::int64_t min,
                                 std::int64_t max, std::optional<std::int64_t> fallback) {
  const std::string name(key);
  auto it = args.find(key);
  if (it == args.end()) {
    if (fallback) return *fallback;
    return make_error("args", "missing required argument '" + name + "'");
  }
  auto out_of_range = [&](const std::string& shown) {
    return make_error("args", "argument '" + name + "' must be between " + std::to_string(min) +
                                  " and " + std::to_string(max) + ", got " + shown);
  };
  if (it->is_number_integer() && !it->is_number_unsigned()) {
    auto v = it->get<std::int64_t>();
    if (v < min || v > max) return out_of_range(std::to_string(v));
    return v;
  }
  if (it->is_number_unsigned()) {
    auto v = it->get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        static_cast<std::int64_t>(v) < min || static_cast<std::int64_t>(v) > max) {
      return out_of_range(std::to_string(v));
    }
    return static_cast<std::int64_t>(v);
  }
  if (it->is_number_float()) {
    double d = it->get<double>();
    if (!std::isfinite(d) || std::floor(d) != d) {
      return make_error("args", "argument '" + name + "' must be an integer, got " + it->dump());
    }
    if (d < static_cast<double>(min) || d > static_cast<double>(max)) return out_of_range(it->dump());
    return static_cast<std::int64_t>(d);
  }
  return make_error("args", "argument '" + name + "' must be an integer, got " + it->type_name());
}

Result<void> only_known_args(const json& args, std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : args.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return make_error("args", "unknown argument '" + key + "'");
    }
  }
  return {};
}

std::size_t code_points(std::string_view utf8) {
  std::size_t n = 0;
  for (unsigned char c : utf8) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::size_t env_size(const char* var, std::size_t fallback) {
  const char* raw = std::getenv(var);
  if (raw == nullptr || *raw == '\0') return fallback;
  std::size_t value = 0;
  for (const char* p = raw; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return fallback;
    const auto digit = static_cast<std::size_t>(*p - '0');
    if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10) return fallback;
    value = value * 10 + digit;
  }
  return value > 0 ? value : fallback;
}

std::size_t utf16_units(std::string_view utf8) {
  std::size_t n = 0;
  for (unsigned char c : utf8) {
    if ((c & 0xC0) != 0x80) n += (c >= 0xF0) ? 2 : 1;
  }
  return n;
}

}  // namespace ctxo::kit
