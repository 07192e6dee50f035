// SPDX-License-Identifier: MIT
// Fuzz target: the generic reading (issue 29) of answers no envelope profile matched. The bytes
// are up to three answers separated by "\n\x1e\n": a first page, the page its way on names and
// the same call at a larger limit. Each is read (read_answer, list_facts, list_items,
// says_truncated), held to the per-answer rules (check_generic), the in-band rules (Inband) and
// the position rules against a small workspace with astral and CJK text (GenericPositions); the
// three together feed the rules across calls (check_omissions, resume_calls, check_resumes).
// Nothing may crash, throw or hang; a JSON list's items are as many as its facts say; the rules
// across calls are deterministic and report a way on at most once.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "checks/generic.h"
#include "checks/generic_positions.h"
#include "checks/inband.h"
#include "core/json_bounded.h"
#include "core/text.h"
#include "mcp/client.h"

namespace {

using nlohmann::json;

void require(bool cond, const char* what) {
  if (!cond) {
    std::fprintf(stderr, "fuzz_generic: invariant failed: %s\n", what);
    std::abort();
  }
}

// A workspace the positions may name: src/a.ts with an emoji line and a CJK line.
// Removed when the process ends.
struct Workspace {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ctxo-fuzz-generic-" + std::to_string(::getpid()));
  Workspace() {
    std::filesystem::create_directories(dir / "src");
    std::ofstream(dir / "src" / "a.ts") << "export function alpha() {}\n"
                                           "const s = \"\xF0\x9F\x98\x80 beta\"; export const beta = 1;\n"
                                           "// \xE6\xBC\xA2\xE5\xAD\x97 gamma\nexport class Gamma {}\n";
  }
  ~Workspace() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

const std::string& workspace() {
  static const Workspace w;
  static const std::string dir = w.dir.string();
  return dir;
}

const json& tool() {
  static const json t = json::parse(R"({"name": "t", "description": "Lists things a page at a time.",
      "inputSchema": {"type": "object", "properties": {"query": {"type": "string"},
      "limit": {"type": "integer", "minimum": 1, "maximum": 50}, "cursor": {"type": "string"},
      "offset": {"type": "integer", "minimum": 0}, "page": {"type": "integer"}}}})");
  return t;
}

bool is_limit(const std::string& k) { return k == "limit"; }

json request(const json& args) {
  return json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "t"}, {"arguments", args}}}};
}

ctxo::mcp::Reply answer(std::string_view text, const json& args) {
  ctxo::mcp::Reply r;
  r.kind = ctxo::mcp::Reply::Kind::kResult;
  r.request = request(args);
  json parsed = ctxo::parse_bounded(text);
  if (parsed.is_object() && (parsed.contains("content") || parsed.contains("structuredContent"))) {
    r.result = std::move(parsed);
  } else {
    r.result = json{{"content", json::array({json{{"type", "text"}, {"text", ctxo::sanitize_utf8(text)}}})}};
  }
  r.raw = r.result.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

std::string said(const ctxo::checks::Outcomes& o) {
  std::string s;
  for (const auto& f : o) s += f.invariant + ": " + f.diagnosis + "\n";
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ctxo::checks;
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  for (std::size_t pos = 0; parts.size() < 3;) {
    const std::size_t sep = all.find("\n\x1e\n", pos);
    parts.push_back(all.substr(pos, sep == std::string_view::npos ? std::string_view::npos : sep - pos));
    if (sep == std::string_view::npos) break;
    pos = sep + 3;
  }
  const auto& v = builtin_vocabulary();
  require(v.ok(), "the built-in vocabulary loads (is the schemas directory reachable?)");

  // The first page, then the page its way on names, then the same call with a larger limit.
  std::vector<json> args = {json{{"query", "a"}, {"limit", 3}}};
  std::vector<ListedCall> calls;
  GenericPositions positions(workspace());
  Inband inband;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i == 1) {
      json next = args[0];
      if (!calls.empty() && !calls[0].next_value.is_null())
        next["cursor"] = calls[0].next_value.is_string() ? calls[0].next_value.get<std::string>() : calls[0].next_value.dump();
      else next["cursor"] = "c1";
      args.push_back(next);
    } else if (i == 2) {
      args.push_back(json{{"query", "a"}, {"limit", 6}});
    }
    const ctxo::mcp::Reply r = answer(parts[i], args[i]);
    const GenericAnswer a = read_answer(r);
    const ListFacts f = list_facts(a, *v);
    (void)f.says_complete();
    (void)says_truncated(r);
    (void)markdown_shape(a.text);
    if (auto items = list_items(a); items && a.data->is_array())
      require(f.items && static_cast<std::size_t>(*f.items) == items->size(), "a JSON list has as many items as its facts say");
    Outcomes one = check_generic(a, *v, r.request, r.raw);
    require(said(one) == said(check_generic(a, *v, r.request, r.raw)), "the per-answer rules are deterministic");
    (void)positions.check("t", &tool(), args[i], r);
    (void)inband.judge("t", &tool(), args[i], r, true, {});
    if (auto lc = listed_call(r, args[i])) calls.push_back(std::move(*lc));
  }
  (void)positions.finish();
  (void)inband.finish();
  (void)resume_calls(calls, tool()["inputSchema"], is_limit);
  std::set<std::string> reported;
  const Outcomes first = check_resumes(calls, is_limit, &reported);
  require(said(first) == said(check_resumes(calls, is_limit)), "TR-RESUME is deterministic");
  require(check_resumes(calls, is_limit, &reported).size() == 0, "a way on is reported at most once");
  (void)check_omissions(calls, is_limit);
  return 0;
}
