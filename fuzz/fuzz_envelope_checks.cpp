// SPDX-License-Identifier: MIT
// Fuzz target: arbitrary bytes as the answer a server gave to a tools/call, judged by the one
// judge (checks::Judge) under every built-in envelope profile and under auto-detection: P-RESULT,
// P-NO-THROW, every per-answer envelope check, E-STABLE on the answer against itself, E-MISS, and
// finish(). The bytes are read the way the client reads a server's line (nesting bounded); a JSON
// object is the result, anything else is wrapped as the text of one text part, so both the
// envelope-as-result and the envelope-in-a-text-part paths are reached. Every built-in host
// sizes the answer (H-SIZE, H-DECLARED), and the answer is also read as a tools/list entry
// (H-NAME, H-SCHEMA, the declared ceiling's value). Nothing may crash, throw
// or hang, an answer compared with itself is stable, and judging is deterministic.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "checks/judge.h"
#include "core/json_bounded.h"
#include "core/text.h"
#include "mcp/client.h"
#include "profile/host.h"
#include "profile/profile.h"

namespace {

using nlohmann::json;

void require(bool cond, const char* what) {
  if (!cond) {
    std::fprintf(stderr, "fuzz_envelope_checks: invariant failed: %s\n", what);
    std::abort();
  }
}

const std::vector<ctxo::profile::Profile>& builtins() {
  static const std::vector<ctxo::profile::Profile> all = [] {
    auto r = ctxo::profile::load_builtins();
    require(r.ok(), "built-in profiles load (is the schemas directory reachable?)");
    return std::move(*r);
  }();
  return all;
}

// Every built-in host, so H-SIZE and H-DECLARED judge each answer too.
const std::vector<ctxo::profile::Host>& hosts() {
  static const std::vector<ctxo::profile::Host> all = [] {
    std::string names;
    for (const auto& n : ctxo::profile::builtin_host_names()) names += (names.empty() ? "" : ",") + n;
    auto r = ctxo::profile::load_hosts(names);
    require(r.ok(), "built-in hosts load");
    return std::move(*r);
  }();
  return all;
}

const std::vector<json>& tools() {
  static const std::vector<json> list = {json::parse(R"({"name": "t", "inputSchema": {"type": "object",
      "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}}}})")};
  return list;
}

// Everything the judge says about one answer, as text (findings in order, with their diagnoses).
std::string judge_once(const ctxo::profile::Profile* forced, const ctxo::mcp::Reply& reply) {
  ctxo::checks::JudgeSetup setup;
  setup.forced = forced;
  setup.candidates = &builtins();
  setup.tools = tools();
  setup.hosts = hosts();
  ctxo::checks::Judge judge(std::move(setup));
  ctxo::checks::Exchange x;
  x.tool = "t";
  x.arguments = json{{"query", "a"}, {"limit", 2}};
  x.reply = &reply;
  x.validity = ctxo::checks::Validity::kValid;
  x.hold = true;
  std::string said;
  auto keep = [&said](ctxo::checks::Outcomes o) {
    for (const auto& f : o.take_findings()) said += f.invariant + ": " + f.diagnosis + "\n";
  };
  ctxo::checks::Judged j = judge.call(x);
  keep(std::move(j.outcomes));
  const ctxo::checks::ParsedEnvelope env = j.envelope.profile ? j.envelope : judge.parse(x, forced);
  if (env.profile) {
    ctxo::checks::Outcomes same = judge.stable(env, env);
    require(same.status("E-STABLE") != ctxo::checks::Status::kFailed, "an answer is stable against itself");
    keep(std::move(same));
    keep(judge.miss("t", env, reply));
  }
  keep(judge.listing("t"));
  for (auto& [tool, o] : judge.finish()) keep(std::move(o));
  // The answer read as a tools/list entry: H-NAME on any name (and on the prefixed name, with a
  // server name from the answer's serverInfo when it has one), H-SCHEMA on any schema, H-DESC on
  // any description; and as an initialize result: H-DESC on its instructions.
  if (reply.result.is_object()) {
    ctxo::checks::ServerName server{"fuzz server.v1", false};
    if (auto si = reply.result.find("serverInfo"); si != reply.result.end() && si->is_object() && si->contains("name") &&
                                                   (*si)["name"].is_string())
      server.name = (*si)["name"].get<std::string>();
    keep(ctxo::checks::check_listing(hosts(), reply.result, &server));
    keep(ctxo::checks::check_instructions(hosts(), reply.result));
  }
  return said;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ctxo::mcp::Reply reply;
  reply.kind = ctxo::mcp::Reply::Kind::kResult;
  reply.request = json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
                       {"params", {{"name", "t"}, {"arguments", {{"query", "a"}, {"limit", 2}}}}}};
  json parsed = ctxo::parse_bounded(text);
  if (parsed.is_object()) {
    reply.result = std::move(parsed);
  } else {
    // Not an object: the bytes as a text part (sanitised as the client does with invalid UTF-8).
    reply.result = json{{"content", json::array({json{{"type", "text"}, {"text", ctxo::sanitize_utf8(text)}}})}};
  }
  reply.raw = reply.result.dump(-1, ' ', false, json::error_handler_t::replace);
  for (const auto& p : builtins()) {
    const std::string first = judge_once(&p, reply);
    require(first == judge_once(&p, reply), "judging is deterministic");
  }
  (void)judge_once(nullptr, reply);  // auto-detection
  return 0;
}
