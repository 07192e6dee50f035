// SPDX-License-Identifier: MIT
// Properties of the envelope checks: arbitrary JSON never makes them throw or crash, and
// envelopes the truncation core builds from random payloads (non-ASCII included) never get a finding.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "envelope_test_util.h"
#include "truncation/truncate.h"

namespace ctxo::checks {
namespace {

using namespace ctxo::checks::testing;

rc::Gen<std::string> gen_text() {
  return rc::gen::map(rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 12)), [](const std::vector<int>& v) {
    static const char* const kBits[] = {"a", "Z", " ", "構築", "👩‍💻", "e\u0301", "\n", "\"", "_", "/", "..", "\\"};
    std::string s;
    for (int i : v) s += kBits[i];
    return s;
  });
}

rc::Gen<std::string> gen_key() {
  return rc::gen::element<std::string>("_meta", "totalItems", "returnedItems", "truncated", "totalBytes", "hint", "ok",
                                       "data", "error", "warnings", "meta", "total_count", "returned_count", "results",
                                       "truncation_info", "reason", "tokenBudget", "requested", "used", "max", "dropped",
                                       "count", "note", "found", "message", "code", "importers", "file", "line", "col",
                                       "endLine", "snippet", "uri", "references", "x");
}

rc::Gen<json> gen_scalar() {
  return rc::gen::oneOf(rc::gen::just(json(nullptr)), rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return json(b); }),
                        rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t i) { return json(i); }),
                        rc::gen::map(rc::gen::inRange(-3, 50), [](int i) { return json(i); }),
                        rc::gen::map(rc::gen::arbitrary<double>(), [](double d) { return json(d); }),
                        rc::gen::map(gen_text(), [](std::string s) { return json(s); }));
}

rc::Gen<json> gen_json(int depth) {
  if (depth <= 0) return gen_scalar();
  auto child = gen_json(depth - 1);
  auto arr = rc::gen::mapcat(rc::gen::inRange(0, 4), [child](int n) {
    return rc::gen::map(rc::gen::container<std::vector<json>>(static_cast<std::size_t>(n), child),
                        [](std::vector<json> v) { return json(std::move(v)); });
  });
  auto obj = rc::gen::mapcat(rc::gen::inRange(0, 6), [child](int n) {
    return rc::gen::map(rc::gen::container<std::vector<std::pair<std::string, json>>>(
                            static_cast<std::size_t>(n), rc::gen::pair(gen_key(), child)),
                        [](std::vector<std::pair<std::string, json>> v) {
                          json o = json::object();
                          for (auto& [k, x] : v) o[k] = std::move(x);
                          return o;
                        });
  });
  return rc::gen::oneOf(gen_scalar(), arr, obj, obj);
}

RC_GTEST_PROP(EnvelopeProps, ArbitraryJsonNeverThrows, ()) {
  json j = *gen_json(4);
  bool is_error = *rc::gen::arbitrary<bool>();
  int indent = *rc::gen::element(-1, 2);
  std::string text = j.dump(indent);
  if (*rc::gen::arbitrary<bool>()) text = "note: " + text;
  std::vector<json> tools = {{{"name", "search_symbols"}, {"inputSchema", {{"type", "object"}, {"properties", {{"query", json::object()}}}}}}};
  std::vector<ParsedEnvelope> parsed;
  for (std::size_t i = 0; i <= builtins().size(); ++i) {
    Call c;
    c.forced = i < builtins().size() ? &builtins()[i] : nullptr;
    c.is_error = is_error;
    c.tools = tools;
    c.tool = &c.tools[0];
    c.root = "/nonexistent-ctxo-root";
    c.arguments = {{"tokenBudget", *gen_scalar()}};
    c.env = {{"CTXO_RESPONSE_LIMIT", "100"}, {"TOOL_MAX_OUTPUT_BYTES", "x"}};
    auto o = run(text, c);
    parsed.push_back(o.env);
    check_miss(o.env, reply_of({text}, is_error));
  }
  std::vector<SweepPoint> pts;
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    check_stable(parsed[i], parsed[(i + 1) % parsed.size()]);
    pts.push_back({static_cast<std::int64_t>(100 * (i + 1)), i == 1, parsed[i]});
  }
  check_sweep(pts, nullptr);
  find_anchors(j);
  RC_SUCCEED("no exception");
}

json gen_payload_items(int n, const std::vector<std::string>& names) {
  json arr = json::array();
  for (int i = 0; i < n; ++i) arr.push_back({{"file", "src/" + names[static_cast<std::size_t>(i) % names.size()] + ".ts"},
                                             {"line", i + 1}, {"name", names[static_cast<std::size_t>(i * 7) % names.size()]}});
  return arr;
}

RC_GTEST_PROP(EnvelopeProps, CtxoCoreEnvelopesAreClean, ()) {
  auto names = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(gen_text()));
  for (auto& s : names) s.erase(std::remove_if(s.begin(), s.end(), [](char ch) { return ch == '\\' || ch == '\n'; }), s.end());
  for (auto& s : names) while (s.find("..") != std::string::npos) s.replace(s.find(".."), 2, "x");
  int n = *rc::gen::inRange(0, 80);
  std::size_t limit = *rc::gen::inRange<std::size_t>(200, 6000);
  int indent = *rc::gen::element(-1, 2);
  truncation::CtxoOptions o;
  o.limit = limit;
  o.indent = indent;
  auto e = truncation::truncate_ctxo({{"results", gen_payload_items(n, names)}, {"q", names[0]}}, o);
  RC_ASSERT(e.ok());
  Call c;
  c.env["CTXO_RESPONSE_LIMIT"] = std::to_string(limit);
  auto out = run(e->text, c);
  RC_ASSERT(out.env.profile != nullptr);
  if (!out.findings.empty()) RC_LOG() << out.dump() << e->text.substr(0, 300) << "\n";
  RC_ASSERT(out.findings.empty());
}

RC_GTEST_PROP(EnvelopeProps, MetaCoreEnvelopesAreClean, ()) {
  auto names = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(gen_text()));
  for (auto& s : names) s.erase(std::remove_if(s.begin(), s.end(), [](char ch) { return ch == '\\' || ch == '\n'; }), s.end());
  for (auto& s : names) while (s.find("..") != std::string::npos) s.replace(s.find(".."), 2, "x");
  int n = *rc::gen::inRange(0, 80);
  std::size_t limit = *rc::gen::inRange<std::size_t>(150, 6000);
  truncation::MetaOptions o;
  o.limit = limit;
  o.indent = *rc::gen::element(-1, 2);
  o.hint_template = "tool list --limit {returned} --cursor c{returned}";
  json data = gen_payload_items(n, names);
  if (*rc::gen::arbitrary<bool>()) {
    std::string s;
    for (const auto& x : names) s += x;
    data = s;
  }
  auto e = truncation::truncate_meta({{"data", data}}, o);
  RC_ASSERT(e.ok());
  Call c;
  c.env["TOOL_MAX_OUTPUT_BYTES"] = std::to_string(limit);
  auto out = run(e->text, c);
  RC_ASSERT(out.env.profile != nullptr);
  if (!out.findings.empty()) RC_LOG() << out.dump() << e->text.substr(0, 300) << "\n";
  RC_ASSERT(out.findings.empty());
}


RC_GTEST_PROP(EnvelopeProps, CtxoCoreSweepIsClean, ()) {
  auto names = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(gen_text()));
  int n = *rc::gen::inRange(0, 80);
  int indent = *rc::gen::element(-1, 2);
  std::size_t small = *rc::gen::inRange<std::size_t>(100, 3000);
  std::size_t normal = small + *rc::gen::inRange<std::size_t>(1, 5000);
  json payload = {{"results", gen_payload_items(n, names)}, {"q", names[0]}};
  std::vector<SweepPoint> pts;
  for (std::size_t l : {small, normal, std::size_t{1} << 22}) {
    truncation::CtxoOptions o;
    o.limit = l;
    o.indent = indent;
    auto e = truncation::truncate_ctxo(payload, o);
    RC_ASSERT(e.ok());
    Call c;
    c.env["CTXO_RESPONSE_LIMIT"] = std::to_string(l);
    pts.push_back({static_cast<std::int64_t>(l), l == normal, run(e->text, c).env});
  }
  std::vector<Superseded> env_limits;
  auto f = check_sweep(pts, &env_limits);
  for (const auto& x : f) RC_LOG() << x.invariant << ": " << x.diagnosis << "\n";
  RC_ASSERT(f.empty());
  RC_ASSERT(env_limits.empty());
}

}  // namespace
}  // namespace ctxo::checks
