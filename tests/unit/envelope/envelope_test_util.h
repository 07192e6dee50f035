// SPDX-License-Identifier: MIT
// Shared fixtures of the envelope-check tests: built-in profiles, replies wrapping a text part,
// and a one-call runner of extract_envelope + check_envelope.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "checks/envelope.h"
#include "profile/profile.h"

namespace ctxo::checks::testing {

/// The built-in profiles, loaded once. The first test to ask fails, with the loader's reason,
/// when they do not load: every envelope test depends on them.
inline const std::vector<profile::Profile>& builtins() {
  static const std::vector<profile::Profile> all = [] {
    auto r = profile::load_builtins();
    EXPECT_TRUE(r.ok()) << "the built-in profiles do not load: " << r.error().message;
    if (!r) return std::vector<profile::Profile>{};
    return std::move(*r);
  }();
  return all;
}

/// The built-in profile `name` (aborts the test when missing).
inline const profile::Profile& prof(const std::string& name) {
  for (const auto& p : builtins())
    if (p.name == name) return p;
  static profile::Profile none;
  ADD_FAILURE() << "no built-in profile " << name;
  return none;
}

/// A tools/call result with the given text parts.
inline mcp::Reply reply_of(const std::vector<std::string>& texts, bool is_error = false) {
  mcp::Reply r;
  r.kind = mcp::Reply::Kind::kResult;
  r.request = {{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"}, {"params", {{"name", "t"}, {"arguments", json::object()}}}};
  json content = json::array();
  for (const auto& t : texts) content.push_back({{"type", "text"}, {"text", t}});
  r.result = {{"content", content}};
  if (is_error) r.result["isError"] = true;
  r.raw = r.result.dump();
  return r;
}

/// Everything one call of the checks needs; defaults: auto detection over the built-ins.
struct Call {
  const profile::Profile* forced = nullptr;
  json arguments = json::object();
  std::map<std::string, std::string> env;
  std::vector<json> tools;
  const json* tool = nullptr;
  std::optional<std::string> root;
  bool is_error = false;
};

struct Outcome {
  ParsedEnvelope env;
  std::vector<Finding> findings;
  std::vector<std::string> ids() const {
    std::vector<std::string> v;
    for (const auto& f : findings) v.push_back(f.invariant);
    return v;
  }
  std::string dump() const {
    std::string s;
    for (const auto& f : findings) s += f.invariant + ": " + f.diagnosis + "\n";
    return s;
  }
  bool has(const std::string& id) const {
    return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.invariant == id; });
  }
};

inline Outcome run_parts(const std::vector<std::string>& texts, const Call& c = {}) {
  mcp::Reply r = reply_of(texts, c.is_error);
  EnvelopeInput in;
  in.forced = c.forced;
  in.candidates = &builtins();
  in.arguments = c.arguments;
  in.env = c.env;
  in.tools = c.tools.empty() ? nullptr : &c.tools;
  in.tool = c.tool;
  in.root = c.root;
  in.reply = &r;
  Outcome o;
  o.env = extract_envelope(in);
  o.findings = check_envelope(in, o.env).take_findings();
  // Every finding names its cause as facts (issue 30): grouping, SARIF fingerprints and baseline
  // keys never depend on the diagnosis' wording. Every test that runs a check asserts it.
  for (const auto& f : o.findings)
    if (f.cause.empty()) ADD_FAILURE() << f.invariant << " has no cause: " << f.diagnosis;
  return o;
}

inline Outcome run(const std::string& text, const Call& c = {}) { return run_parts({text}, c); }

}  // namespace ctxo::checks::testing
