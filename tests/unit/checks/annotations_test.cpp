// SPDX-License-Identifier: MIT
// P-ANNOTATION's answer form as data (checks/annotations.h): what of an answer is compared (content,
// structuredContent, isError; never ids or _meta; nothing when nothing was answered), where two
// answers differ for the diagnosis, and the finding's cause and words for each annotation.
#include "checks/annotations.h"

#include <gtest/gtest.h>

#include <string>

namespace ctxo::checks {
namespace {

using nlohmann::json;

mcp::Reply result(json r, int id = 1) {
  mcp::Reply reply;
  reply.kind = mcp::Reply::Kind::kResult;
  reply.request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", {{"name", "list_notes"}}}};
  reply.result = std::move(r);
  return reply;
}

TEST(EffectForm, ComparesContentNotIdsOrMeta) {
  const json content = json::array({{{"type", "text"}, {"text", "[\"a\"]"}}});
  const json a = effect_form(result({{"content", content}, {"_meta", {{"at", 1}}}}, 1));
  const json b = effect_form(result({{"content", content}, {"_meta", {{"at", 2}}}}, 7));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, effect_form(result({{"content", content}, {"isError", true}})));
  EXPECT_NE(a, effect_form(result({{"content", content}, {"structuredContent", {{"n", 1}}}})));
}

TEST(EffectForm, NothingAnsweredIsNoForm) {
  mcp::Reply timeout;
  timeout.kind = mcp::Reply::Kind::kTimeout;
  EXPECT_TRUE(effect_form(timeout).is_null());
  mcp::Reply failed = result({{"content", json::array()}});
  failed.transport_failure = "HTTP 502";
  EXPECT_TRUE(effect_form(failed).is_null());
  mcp::Reply error;
  error.kind = mcp::Reply::Kind::kError;
  error.error = {{"code", -32603}, {"message", "boom"}, {"data", {{"stack", "..."}}}};
  EXPECT_EQ(effect_form(error), (json{{"error", {{"code", -32603}, {"message", "boom"}}}}));
}

TEST(ChangedExcerpts, ShowTheTextWhereItFirstDiffers) {
  auto form = [](const std::string& t) { return json{{"content", json::array({{{"type", "text"}, {"text", t}}})}}; };
  const std::string head(100, 'x');
  const auto [before, after] = changed_excerpts(form(head + "[1,2]"), form(head + "[1,2,3]"));
  EXPECT_EQ(before.rfind("…", 0), 0u) << before;
  EXPECT_NE(before.find("[1,2]"), std::string::npos) << before;
  EXPECT_NE(after.find("[1,2,3]"), std::string::npos) << after;
  EXPECT_LT(after.size(), 60u) << after;
}

TEST(AnnotationEffect, CauseAndDiagnosisPerAnnotation) {
  AnswerChange c;
  c.annotation = "idempotentHint";
  c.call = {{"method", "tools/call"}, {"params", {{"name", "touch"}, {"arguments", json::object()}}}};
  c.witness = {{"method", "tools/call"}, {"params", {{"name", "stats"}, {"arguments", json::object()}}}};
  c.before = {{"content", json::array({{{"type", "text"}, {"text", "count 1"}}})}};
  c.after = {{"content", json::array({{{"type", "text"}, {"text", "count 2"}}})}};
  Finding f = annotation_effect("touch", c);
  EXPECT_EQ(f.invariant, "P-ANNOTATION");
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.cause, (std::map<std::string, std::string>{{"annotation", "idempotentHint"}, {"effect", "answers"}}));
  EXPECT_EQ(f.request, c.call);
  EXPECT_NE(f.diagnosis.find("read-only tool stats"), std::string::npos) << f.diagnosis;
  EXPECT_NE(f.diagnosis.find("count 1"), std::string::npos) << f.diagnosis;
  EXPECT_NE(f.diagnosis.find("count 2"), std::string::npos) << f.diagnosis;
  c.annotation = "readOnlyHint";
  f = annotation_effect("touch", c);
  EXPECT_EQ(f.cause.at("annotation"), "readOnlyHint");
  EXPECT_NE(f.diagnosis.find("without asking"), std::string::npos) << f.diagnosis;
}

}  // namespace
}  // namespace ctxo::checks
