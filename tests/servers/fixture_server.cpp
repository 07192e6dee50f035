// SPDX-License-Identifier: MIT
// fixture-server: the MCP server the harness is tested against; conformant by default, and with
// --defect NAME it breaks exactly one SPEC §3 invariant (each marked `if (defect_ == "...")`).
//
// Default behaviour a tolerant client must cope with: tools/list paginated (page size 2), a
// notifications/message and a notifications/progress before every tools/call response, and one
// server->client ping during the first tools/call (legacy era only: 2026-07-28 servers must not
// send requests). A client that does not answer that ping gets the call answered with an
// isError result "client did not answer ping".
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "kit/mcp_server_kit.h"

namespace {

using ctxo::kit::json;

// Defects named in the task table (one invariant each), plus two conformant stressors.
constexpr std::array<std::string_view, 21> kDefects = {
    "stdout-log",   "invalid-utf8",   "split-line",       "wrong-id",        "duplicate-response",
    "hang",         "crash",          "no-shutdown",      "bad-init",        "list-duplicate",
    "list-cursor-loop", "list-bad-schema", "bad-content", "bad-structured",  "internal-error",
    "huge-answer",  "stderr-flood",   "slow",             "number-overflow", "result-and-error",
    "bom",
};

constexpr std::string_view kUsage =
    "usage: fixture-server [--defect NAME] [--modern] [--page-size N]\n"
    "defects: stdout-log invalid-utf8 split-line wrong-id duplicate-response hang crash\n"
    "         no-shutdown bad-init list-duplicate list-cursor-loop list-bad-schema bad-content\n"
    "         bad-structured internal-error huge-answer stderr-flood slow number-overflow\n"
    "         result-and-error bom\n";

constexpr std::string_view kInvalidUtf8Marker = "@@RAW-0xFF@@";
constexpr std::chrono::seconds kPingTimeout{5};

json read_only() {
  return json{{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true},
              {"openWorldHint", false}};
}

// Adds a small non-negative number to a non-negative decimal string (b may exceed 64 bits).
std::string decimal_add(std::string digits, std::int64_t small) {
  int carry = static_cast<int>(small);
  for (auto it = digits.rbegin(); it != digits.rend() && carry > 0; ++it) {
    int d = (*it - '0') + carry;
    *it = static_cast<char>('0' + d % 10);
    carry = d / 10;
  }
  while (carry > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
  return digits;
}

void write_stderr(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(2, bytes.data(), bytes.size());
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// The fixture breaks exactly one rule per --defect, so the answer the kit builds, before any
// defect touches it, is checked to be a well-formed CallToolResult for this request (P-RESULT,
// T-ID): a slip in the kit stops the server with the reason on stderr (reported as T-CRASH with
// that tail) instead of showing up as a second, unplanned finding in the detection matrix.
void assert_well_formed(const json& response, const json& id) {
  const char* why = nullptr;
  const json* result = response.contains("result") ? &response["result"] : nullptr;
  if (response.value("jsonrpc", "") != "2.0" || !response.contains("id") || response["id"] != id) {
    why = "the response does not carry the request's id";
  } else if (result == nullptr || !result->is_object() || !result->contains("content") ||
             !(*result)["content"].is_array()) {
    why = "the result has no content array";
  } else if (std::any_of((*result)["content"].begin(), (*result)["content"].end(), [](const json& block) {
               return !block.is_object() || !block.contains("type") || !block["type"].is_string();
             })) {
    why = "a content block has no string type";
  } else if (result->contains("isError") && !(*result)["isError"].is_boolean()) {
    why = "isError is not a boolean";
  } else if (result->contains("structuredContent") && !(*result)["structuredContent"].is_object()) {
    why = "structuredContent is not an object";
  }
  if (why == nullptr) return;
  std::fprintf(stderr, "fixture-server: self-check failed: %s\n", why);
  std::abort();
}

class FixtureServer {
 public:
  FixtureServer(std::string defect, ctxo::kit::Era era, std::size_t page_size)
      : defect_(std::move(defect)), server_(make_options(era, page_size)) {}

  int run() {
    if (defect_ == "no-shutdown") std::signal(SIGTERM, SIG_IGN);
    if (defect_ == "stderr-flood") flood_stderr();
    register_tools();
    server_.intercept("initialize", [this](const json& r) { on_handshake(r); });
    server_.intercept("server/discover", [this](const json& r) { on_handshake(r); });
    server_.intercept("tools/list", [this](const json& r) { on_tools_list(r); });
    server_.intercept("tools/call", [this](const json& r) { on_tools_call(r); });
    int rc = server_.run();
    if (defect_ == "no-shutdown") {
      for (;;) ::sleep(3600);  // stdin closed and SIGTERM ignored: only SIGKILL ends this
    }
    return rc;
  }

 private:
  static ctxo::kit::ServerOptions make_options(ctxo::kit::Era era, std::size_t page_size) {
    ctxo::kit::ServerOptions o;
    o.name = "ctxo-fixture-server";
    o.version = "0.1.0";
    o.era = era;
    o.page_size = page_size;
    o.extra_capabilities = json{{"logging", json::object()}};
    return o;
  }

  static void flood_stderr() {
    std::string line(1023, 'x');
    line.push_back('\n');
    const std::string prefix = "stderr-flood: ";
    line.replace(0, prefix.size(), prefix);
    for (int i = 0; i < 20 * 1024; ++i) write_stderr(line);  // 20 MiB
  }

  void register_tools() {
    add({"echo", "", "Returns the text unchanged.",
         json{{"type", "object"},
              {"properties", {{"text", {{"type", "string"}}}}},
              {"required", {"text"}},
              {"additionalProperties", false}},
         nullptr, read_only(), [](const json& args) { return echo(args); }});
    add({"add", "", "Adds a (0..100) and b.",
         json{{"type", "object"},
              {"properties",
               {{"a", {{"type", "integer"}, {"minimum", 0}, {"maximum", 100}}},
                {"b", {{"type", "integer"}}}}},
              {"required", {"a", "b"}},
              {"additionalProperties", false}},
         nullptr, read_only(), [](const json& args) { return add_numbers(args); }});
    add({"status", "", "Says ok.", json{{"type", "object"}, {"additionalProperties", false}},
         nullptr, read_only(), [](const json& args) { return status(args); }});
    add({"shape", "", "Returns n and its square as structured content.",
         json{{"type", "object"},
              {"properties",
               {{"n", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10}, {"default", 1}}}}},
              {"additionalProperties", false}},
         json{{"type", "object"},
              {"properties", {{"n", {{"type", "integer"}}}, {"square", {{"type", "integer"}}}}},
              {"required", {"n", "square"}}},
         read_only(), [this](const json& args) { return shape(args); }});
  }

  void add(ctxo::kit::ToolSpec spec) {
    if (auto added = server_.add_tool(std::move(spec)); !added) {
      std::fprintf(stderr, "fixture-server: %s\n", added.error().message.c_str());
      std::exit(2);
    }
  }

  static json echo(const json& args) {
    if (auto known = ctxo::kit::only_known_args(args, {"text"}); !known) {
      return ctxo::kit::error_result(known.error().message);
    }
    auto text = ctxo::kit::string_arg(args, "text");
    if (!text) return ctxo::kit::error_result(text.error().message);
    return ctxo::kit::text_result(*text);
  }

  // b is any JSON Schema integer, so the sum is computed without overflow.
  static json add_numbers(const json& args) {
    if (auto known = ctxo::kit::only_known_args(args, {"a", "b"}); !known) {
      return ctxo::kit::error_result(known.error().message);
    }
    auto a = ctxo::kit::integer_arg(args, "a", 0, 100);
    if (!a) return ctxo::kit::error_result(a.error().message);
    if (!args.contains("b")) return ctxo::kit::error_result("missing required argument 'b'");
    const json& b = args["b"];
    std::string sum;
    if (b.is_number_unsigned()) {
      sum = decimal_add(std::to_string(b.get<std::uint64_t>()), *a);
    } else if (b.is_number_integer()) {
      auto v = b.get<std::int64_t>();
      sum = v >= 0 ? decimal_add(std::to_string(v), *a) : std::to_string(v + *a);
    } else if (b.is_number_float() && std::isfinite(b.get<double>()) &&
               std::floor(b.get<double>()) == b.get<double>()) {
      sum = json(b.get<double>() + static_cast<double>(*a)).dump();
    } else {
      return ctxo::kit::error_result("argument 'b' must be an integer, got " + b.dump());
    }
    return ctxo::kit::text_result(sum);
  }

  static json status(const json& args) {
    if (args.is_object() && !args.empty()) {
      return ctxo::kit::error_result("status takes no arguments");
    }
    return ctxo::kit::text_result("ok");
  }

  json shape(const json& args) const {
    if (auto known = ctxo::kit::only_known_args(args, {"n"}); !known) {
      return ctxo::kit::error_result(known.error().message);
    }
    auto n = ctxo::kit::integer_arg(args, "n", 1, 10, 1);
    if (!n) return ctxo::kit::error_result(n.error().message);
    json structured = {{"n", *n}, {"square", *n * *n}};
    if (defect_ == "bad-structured") structured = json{{"n", "x"}};
    return ctxo::kit::structured_result(structured);
  }

  void on_handshake(const json& request) {
    if (defect_ == "stdout-log") (void)server_.write_raw("server ready\n");
    json response = server_.build_response(request);
    if (defect_ == "bad-init" && response.contains("result")) {
      json& result = response["result"];
      if (result.contains("protocolVersion")) result["protocolVersion"] = "1999-01-01";
      if (result.contains("supportedVersions")) result["supportedVersions"] = json::array({"1999-01-01"});
      result.erase("serverInfo");
      if (result.contains("_meta")) result["_meta"].erase(std::string(ctxo::kit::kServerInfoMetaKey));
    }
    (void)server_.send(response);
  }

  void on_tools_list(const json& request) {
    json response = server_.build_response(request);
    if (response.contains("result")) {
      json& result = response["result"];
      if (defect_ == "list-duplicate" && !result.contains("nextCursor")) {
        // echo again on the last page, so the duplicate spans pages when paginated.
        result["tools"].push_back(json{{"name", "echo"},
                                       {"description", "Returns the text unchanged."},
                                       {"inputSchema", server_.tools().front().input_schema},
                                       {"annotations", read_only()}});
      }
      if (defect_ == "list-cursor-loop") result["nextCursor"] = ctxo::kit::Server::cursor_for(0);
      if (defect_ == "list-bad-schema") {
        for (auto& tool : result["tools"]) {
          if (tool["name"] == "status") tool["inputSchema"] = json{{"type", "string"}};
        }
      }
    }
    (void)server_.send(response);
  }

  void on_tools_call(const json& request) {
    if (defect_ == "hang") return;  // never answered; everything else still is
    if (defect_ == "crash") {
      write_stderr("fatal: boom\n");
      std::abort();
    }
    if (defect_ == "slow") std::this_thread::sleep_for(std::chrono::milliseconds(300));

    const json& id = request["id"];
    const json params = request.contains("params") ? request["params"] : json::object();
    const std::string name =
        params.contains("name") && params["name"].is_string() ? params["name"].get<std::string>() : "?";
    announce(params, name);

    bool ping_failed = false;
    if (!pinged_ && server_.era() != ctxo::kit::Era::kModern) {
      pinged_ = true;
      auto pong = server_.request("ping", nullptr, kPingTimeout);
      if (!pong) {
        std::fprintf(stderr, "fixture-server: client did not answer ping (%s: %s)\n",
                     pong.error().code.c_str(), pong.error().message.c_str());
        ping_failed = true;
      }
    }

    json call = request;
    // A harness that calls status with the bogus string schema must still get a normal answer.
    if (defect_ == "list-bad-schema" && call.contains("params") && call["params"].contains("arguments") &&
        !call["params"]["arguments"].is_object()) {
      call["params"]["arguments"] = json::object();
    }
    json response = ping_failed ? json{{"jsonrpc", "2.0"},
                                       {"id", id},
                                       {"result", ctxo::kit::error_result("client did not answer ping")}}
                                : server_.build_response(call);
    assert_well_formed(response, id);

    if (defect_ == "internal-error") {
      response = json{{"jsonrpc", "2.0"},
                      {"id", id},
                      {"error", {{"code", -32603}, {"message", "Internal error"}}}};
    }
    if (defect_ == "bad-content") {
      if (response.contains("result") && response["result"].contains("content") &&
          !response["result"]["content"].empty()) {
        response["result"]["content"][0].erase("type");
      }
    }
    if (defect_ == "result-and-error" && response.contains("result"))
      response["error"] = {{"code", -32603}, {"message", "and an error"}};
    if (defect_ == "wrong-id") {
      response["id"] = id.is_number_integer() ? json(id.get<std::int64_t>() + 1000)
                                              : json(id.get<std::string>() + "1000");
    }
    if (defect_ == "stdout-log") (void)server_.write_raw("log: call " + name + "\n");

    if (defect_ == "huge-answer") {
      // 2 MiB of text (over a --max-message-bytes of 1 MiB), members in the TypeScript SDK's
      // order: the id comes last, after the long result.
      json result = response.value("result", json::object());
      result["content"] = json::array({{{"type", "text"}, {"text", std::string(2u << 20, 'x')}}});
      (void)server_.write_raw("{\"result\":" + result.dump() + ",\"jsonrpc\":\"2.0\",\"id\":" + id.dump() + "}\n");
    } else if (defect_ == "invalid-utf8") {
      (void)server_.write_raw(with_raw_ff(response));
    } else if (defect_ == "number-overflow" && response.contains("result")) {
      // A number no double holds (JavaScript reads Infinity; strict decoders refuse the message).
      std::string line = response.dump();
      const auto at = line.find("\"result\":{");
      if (at != std::string::npos) line.insert(at + 10, "\"score\":1e999,");
      (void)server_.write_raw(line + "\n");
    } else if (defect_ == "bom") {
      (void)server_.write_raw("\xEF\xBB\xBF" + response.dump() + "\n");
    } else if (defect_ == "split-line") {
      (void)server_.write_raw(response.dump(2) + "\n");
    } else {
      (void)server_.send(response);
    }
    if (defect_ == "duplicate-response") (void)server_.send(response);
  }

  // Log and progress notifications that precede every tools/call response.
  void announce(const json& params, const std::string& name) {
    (void)server_.log("info", json("fixture-server: calling " + name), "fixture");
    json token = "fixture-progress";  // no token given: still sent, clients must ignore it
    if (params.contains("_meta") && params["_meta"].is_object() &&
        params["_meta"].contains("progressToken")) {
      const json& t = params["_meta"]["progressToken"];
      if (t.is_string() || t.is_number_integer()) token = t;
    }
    (void)server_.notify("notifications/progress",
                         json{{"progressToken", token},
                              {"progress", 1},
                              {"total", 1},
                              {"message", "calling " + name}});
  }

  // The response as one line whose JSON string holds a raw 0xFF byte (invalid UTF-8).
  static std::string with_raw_ff(json response) {
    if (response.contains("result") && response["result"].contains("content") &&
        !response["result"]["content"].empty() && response["result"]["content"][0].contains("text")) {
      auto& text = response["result"]["content"][0]["text"];
      text = text.get<std::string>() + std::string(kInvalidUtf8Marker);
    } else if (response.contains("error")) {
      response["error"]["message"] = "bad byte " + std::string(kInvalidUtf8Marker);
    }
    std::string line = response.dump();
    auto at = line.find(kInvalidUtf8Marker);
    if (at != std::string::npos) line.replace(at, kInvalidUtf8Marker.size(), "\xFF");
    return line + "\n";
  }

  std::string defect_;
  ctxo::kit::Server server_;
  bool pinged_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  std::string defect;
  auto era = ctxo::kit::Era::kLegacy;
  std::size_t page_size = 2;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--defect" && has_value) {
      defect = args[++i];
      if (std::find(kDefects.begin(), kDefects.end(), defect) == kDefects.end()) {
        std::fprintf(stderr, "error: unknown defect '%s'\n%s", defect.c_str(), kUsage.data());
        return 2;
      }
    } else if (a == "--modern") {
      era = ctxo::kit::Era::kModern;
    } else if (a == "--page-size" && has_value) {
      const std::string& v = args[++i];
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 0 || n > 1000) {
        std::fprintf(stderr, "error: bad --page-size '%s'\n%s", v.c_str(), kUsage.data());
        return 2;
      }
      page_size = static_cast<std::size_t>(n);
    } else {
      std::fprintf(stderr, "error: unknown or incomplete option '%s'\n%s", a.c_str(), kUsage.data());
      return 2;
    }
  }
  FixtureServer server(std::move(defect), era, page_size);
  return server.run();
}
