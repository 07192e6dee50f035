// SPDX-License-Identifier: MIT
// input-server: an MCP server with one tool, `lookup`, that answers conformant `ctxo`-profile
// envelopes (built by the truncation core, limit from CTXO_RESPONSE_LIMIT, default 8192) and
// whose --defect NAME fires only for particular inputs, so the harness's generator and shrinker
// have something to find and minimise. Each defect is marked `if (defect("..."))`; every other
// call is answered conformantly. Triggers are tested on schema-valid arguments only (an invalid
// call always gets the isError answer below):
//   crash-at-max  count == 500 (the schema's maximum; 500.0 too): std::abort() in the handler.
//   hang-astral   query holds a code point above U+FFFF (a 4-byte UTF-8 sequence): that call is
//                 never answered; later requests still are.
//   break-empty   query == "": _meta.returnedItems is one more than the results array holds
//                 (TR-COUNT); cut one byte tighter when the extra digit would break the limit.
//   silent-exact  mode == "exact" and verbose == true: results cut to min(maximal prefix, n / 2)
//                 with _meta.truncated true and no _meta.hint (TR-HINT).
//   no-validate   schema-invalid arguments get an ordinary answer, as for {"query": ""} (P-REJECT).
//   strict-count  count > 400 (the schema allows 500) gets the isError answer "Invalid arguments
//                 for tool lookup: count too large" (P-ACCEPT).
//
// Conformant answer: one text part holding {"query","mode","results":[{id,name,score[,detail]}],
// "_meta":{totalItems,returnedItems,truncated,totalBytes,hint?}} with `count` results (default
// 10); `results` because the payload array must be one of the profile's truncatable fields.
// Schema-invalid arguments: {"content":[{"type":"text","text":"{\"error\":true,\"message\":...}"}],
// "isError":true} (the ctxo error form, flagged as a tool error), never a JSON-RPC error.
//
// usage: input-server [--defect crash-at-max|hang-astral|break-empty|silent-exact|no-validate|strict-count]
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "kit/mcp_server_kit.h"
#include "truncation/js_json.h"
#include "truncation/truncate.h"

namespace {

using ctxo::kit::json;
namespace tr = ctxo::truncation;

constexpr std::array<std::string_view, 6> kDefects = {"crash-at-max", "hang-astral",  "break-empty",
                                                      "silent-exact", "no-validate", "strict-count"};

constexpr std::string_view kUsage =
    "usage: input-server [--defect NAME]\n"
    "defects (each fires only on its trigger; every other call is conformant):\n"
    "  crash-at-max  count == 500: abort while handling the call\n"
    "  hang-astral   query holds a code point above U+FFFF: that call is never answered\n"
    "  break-empty   query == \"\": _meta.returnedItems is one too many (TR-COUNT)\n"
    "  silent-exact  mode == \"exact\" and verbose == true: truncated without a hint (TR-HINT)\n"
    "  no-validate   invalid arguments get an ordinary answer (P-REJECT)\n"
    "  strict-count  count > 400 is rejected as invalid arguments (P-ACCEPT)\n";

constexpr std::size_t kDefaultLimit = 8192;  // schemas/profiles/ctxo.json limit.default
constexpr std::int64_t kDefaultCount = 10;
constexpr std::int64_t kMaxCount = 500;
constexpr std::size_t kMaxQueryLength = 64;  // code points, as JSON Schema maxLength counts
constexpr std::array<std::string_view, 3> kModes = {"fast", "full", "exact"};
constexpr const char* kField = "results";  // a truncatable field of the ctxo profile
constexpr const char* kHint = "Use lookup with a smaller count or a narrower query";

json read_only() {
  return json{{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true},
              {"openWorldHint", false}};
}

json input_schema() {
  return json{{"type", "object"},
              {"properties",
               {{"query", {{"type", "string"}, {"maxLength", kMaxQueryLength}}},
                {"count", {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxCount}}},
                {"mode", {{"type", "string"}, {"enum", {"fast", "full", "exact"}}}},
                {"verbose", {{"type", "boolean"}}}}},
              {"required", {"query"}},
              {"additionalProperties", false}};
}

// The arguments are valid UTF-8 (the JSON parser checks), so a lead byte F0..F4 starts a code
// point above U+FFFF.
bool has_astral(std::string_view utf8) {
  return std::any_of(utf8.begin(), utf8.end(), [](char c) { return static_cast<unsigned char>(c) >= 0xF0; });
}

std::uint32_t fnv1a(std::string_view bytes) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

// The ctxo error form, flagged as a tool error.
json error_answer(const std::string& message) {
  return ctxo::kit::error_result(tr::to_js_json(json{{"error", true}, {"message", message}}));
}

/// Schema-valid arguments of lookup.
struct Args {
  std::string query;
  std::int64_t count = kDefaultCount;
  std::string mode = "fast";
  bool verbose = false;
};

// The arguments checked against input_schema(); the message names the first problem.
ctxo::Result<Args> parse_args(const json& args) {
  auto fail = [](std::string message) -> ctxo::Result<Args> { return ctxo::make_error("args", std::move(message)); };
  if (!args.is_object()) return fail(std::string("arguments: Expected object, received ") + args.type_name());
  if (auto known = ctxo::kit::only_known_args(args, {"query", "count", "mode", "verbose"}); !known) {
    return fail(known.error().message);
  }
  Args out;
  auto q = args.find("query");
  if (q == args.end()) return fail("query: Required");
  if (!q->is_string()) return fail(std::string("query: Expected string, received ") + q->type_name());
  out.query = q->get<std::string>();
  if (ctxo::kit::code_points(out.query) > kMaxQueryLength) {
    return fail("query: String must contain at most " + std::to_string(kMaxQueryLength) + " character(s)");
  }
  if (args.contains("count") && args["count"].is_boolean()) return fail("count: Expected integer, received boolean");
  auto count = ctxo::kit::integer_arg(args, "count", 1, kMaxCount, kDefaultCount);
  if (!count) return fail(count.error().message);
  out.count = *count;
  if (auto m = args.find("mode"); m != args.end()) {
    if (!m->is_string()) return fail(std::string("mode: Expected string, received ") + m->type_name());
    out.mode = m->get<std::string>();
    if (std::find(kModes.begin(), kModes.end(), out.mode) == kModes.end()) {
      return fail("mode: Invalid enum value. Expected 'fast' | 'full' | 'exact', received " + m->dump());
    }
  }
  if (auto v = args.find("verbose"); v != args.end()) {
    if (!v->is_boolean()) return fail(std::string("verbose: Expected boolean, received ") + v->type_name());
    out.verbose = v->get<bool>();
  }
  return out;
}

// The full payload: `count` small results, a function of the arguments only.
json payload_of(const Args& a) {
  const std::uint32_t seed = fnv1a(a.query) ^ fnv1a(a.mode);
  json results = json::array();
  for (std::int64_t i = 1; i <= a.count; ++i) {
    const auto n = static_cast<std::uint32_t>(i);
    json r = {{"id", "m" + std::to_string(i)},
              {"name", a.mode + "-match-" + std::to_string(i)},
              {"score", (seed + n * 7919u) % 1000u}};
    if (a.verbose) r["detail"] = "match " + std::to_string(i) + " of " + std::to_string(a.count);
    results.push_back(std::move(r));
  }
  return json{{"query", a.query}, {"mode", a.mode}, {kField, std::move(results)}};
}

// input-server is what the generator tests call conformant, so its answer is checked against the
// rules its defects break (TR-COUNT, TR-HINT, TR-CAP) before it is sent: a slip here, or in the
// truncation core that builds it, stops the server with the reason on stderr (the harness then
// reports T-CRASH with that tail) instead of passing for a finding of the harness.
void assert_conformant(const json& envelope, const std::string& text, std::size_t limit) {
  const json& meta = envelope["_meta"];
  const std::size_t returned = envelope[kField].size();
  const bool truncated = meta["truncated"].get<bool>();
  const char* why = nullptr;
  if (meta["returnedItems"] != returned) {
    why = "_meta.returnedItems is not the length of results";
  } else if (truncated != (returned < meta["totalItems"].get<std::size_t>())) {
    why = "_meta.truncated disagrees with the counts";
  } else if (truncated && meta.value("hint", std::string()).empty()) {
    why = "truncated without a hint";
  } else if (text.size() > limit && returned > 0) {
    why = "over the byte limit with items that could have been dropped";
  }
  if (why == nullptr) return;
  std::fprintf(stderr, "input-server: self-check failed: %s\n", why);
  std::abort();
}

class InputServer {
 public:
  explicit InputServer(std::string defect) : defect_(std::move(defect)), server_(make_options()) {}

  int run() {
    ctxo::kit::ToolSpec t;
    t.name = "lookup";
    t.description = "Looks up `count` matches for a query (mode fast, full or exact; verbose adds details).";
    t.input_schema = input_schema();
    t.annotations = read_only();
    t.handler = [this](const json& args) { return lookup(args); };
    if (auto added = server_.add_tool(std::move(t)); !added) {
      std::fprintf(stderr, "input-server: %s\n", added.error().message.c_str());
      return 2;
    }
    server_.intercept("tools/call", [this](const json& request) {
      drop_answer_ = false;
      json response = server_.build_response(request);
      if (drop_answer_) return;  // hang-astral: this call is never answered
      (void)server_.send(response);
    });
    return server_.run();
  }

 private:
  static ctxo::kit::ServerOptions make_options() {
    ctxo::kit::ServerOptions o;
    o.name = "ctxo-input-server";
    o.version = "0.1.0";
    return o;
  }

  bool defect(std::string_view name) const { return defect_ == name; }

  json lookup(const json& raw) {
    auto args = parse_args(raw);
    if (!args && defect("no-validate")) args = Args{};
    if (!args) return error_answer(args.error().message);
    const Args& a = *args;
    if (defect("strict-count") && a.count > 400) return error_answer("Invalid arguments for tool lookup: count too large");
    if (defect("crash-at-max") && a.count == kMaxCount) {
      std::fputs("input-server: fatal: count at its maximum\n", stderr);
      std::abort();
    }
    if (defect("hang-astral") && has_astral(a.query)) {
      drop_answer_ = true;
      return ctxo::kit::text_result("");  // never sent
    }

    const json payload = payload_of(a);
    const std::size_t limit = ctxo::kit::env_size("CTXO_RESPONSE_LIMIT", kDefaultLimit);
    tr::CtxoOptions o;
    o.limit = limit;
    o.hint = kHint;
    auto env = tr::truncate_ctxo(payload, o);
    if (!env) return error_answer("internal error: " + env.error().message);

    if (defect("break-empty") && a.query.empty()) {
      json out = env->json;
      out["_meta"]["returnedItems"] = env->returned_items + 1;
      if (tr::js_json_size(out) > limit && limit > 1) {  // the extra digit broke the limit: cut tighter
        o.limit = limit - 1;
        auto tighter = tr::truncate_ctxo(payload, o);
        if (!tighter) return error_answer("internal error: " + tighter.error().message);
        out = tighter->json;
        out["_meta"]["returnedItems"] = tighter->returned_items + 1;
      }
      return ctxo::kit::text_result(tr::to_js_json(out));
    }
    if (defect("silent-exact") && a.mode == "exact" && a.verbose) {
      // Cut to at most half (fewer items, no hint, "true" shorter than "false": still fits).
      const std::size_t n = env->total_items;
      const std::size_t keep = std::min(env->returned_items, n / 2);
      json out = payload;
      json kept = json::array();
      for (std::size_t i = 0; i < keep; ++i) kept.push_back(payload[kField][i]);
      out[kField] = std::move(kept);
      out["_meta"] = json{{"totalItems", n}, {"returnedItems", keep}, {"truncated", true},
                          {"totalBytes", env->total_bytes}};
      return ctxo::kit::text_result(tr::to_js_json(out));
    }
    assert_conformant(env->json, env->text, limit);
    return ctxo::kit::text_result(env->text);
  }

  std::string defect_;
  ctxo::kit::Server server_;
  bool drop_answer_ = false;  ///< Set by the handler when this tools/call must go unanswered.
};

}  // namespace

int main(int argc, char** argv) {
  std::string defect;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage.data(), stdout);
      return 0;
    }
    if (a == "--defect" && i + 1 < argc && defect.empty()) {
      defect = argv[++i];
      if (std::find(kDefects.begin(), kDefects.end(), defect) == kDefects.end()) {
        std::fprintf(stderr, "input-server: unknown defect '%s'\n%s", defect.c_str(), kUsage.data());
        return 2;
      }
    } else {
      std::fprintf(stderr, "input-server: unexpected or incomplete argument '%s'\n%s", argv[i], kUsage.data());
      return 2;
    }
  }
  InputServer server(std::move(defect));
  return server.run();
}
