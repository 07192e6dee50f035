// SPDX-License-Identifier: MIT
// The sample a huge answer's checks read (checks/sample.h): the first items of each array at
// their own indices, JSON text written back as JSON, other text cut at a line end, nothing
// sampled within the budget, the same answer always the same sample; and the judge's verdicts on
// a sample: a defect in the first items is found, a count a sample cannot honour accuses nothing.
#include <gtest/gtest.h>

#include <string>

#include "checks/judge.h"
#include "checks/sample.h"
#include "core/json_bounded.h"

namespace ctxo::checks {
namespace {

using nlohmann::json;

mcp::Reply text_reply(const std::string& text) {
  mcp::Reply r;
  r.kind = mcp::Reply::Kind::kResult;
  r.request = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "list"}, {"arguments", json::object()}}}};
  r.result = {{"content", json::array({{{"type", "text"}, {"text", text}}})}};
  r.raw = json{{"jsonrpc", "2.0"}, {"id", 1}, {"result", r.result}}.dump();
  return r;
}

/// `{"items":[{"id":"item-0"},...],"returned":n}`, item 0 named `first`.
std::string items(std::size_t n, const std::string& first = "n0") {
  std::string s = "{\"items\":[";
  for (std::size_t i = 0; i < n; ++i)
    s += (i ? "," : "") + std::string("{\"id\":\"item-") + std::to_string(i) + "\",\"name\":\"" + (i ? "n" + std::to_string(i) : first) + "\"}";
  return s + "],\"returned\":" + std::to_string(n) + "}";
}

TEST(Sample, WithinTheBudgetTheAnswerIsReadWhole) {
  EXPECT_FALSE(sample_reply(text_reply(items(100))).has_value());
  // Large, but nothing to cut: one long string inside JSON is read as it is.
  EXPECT_FALSE(sample_reply(text_reply(json(std::string(kSampleAboveBytes + 10, 'a')).dump())).has_value());
}

TEST(Sample, ArraysKeepTheirFirstItemsAtTheirIndices) {
  const mcp::Reply whole = text_reply(items(100000));
  ASSERT_GT(whole.raw.size(), kSampleAboveBytes);
  auto s = sample_reply(whole);
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->sampled);
  const auto parts = s->text_parts();
  ASSERT_EQ(parts.size(), 1u);
  const json j = json::parse(*parts[0]);
  ASSERT_EQ(j["items"].size(), kSampleItems);
  for (std::size_t i = 0; i < kSampleItems; ++i) EXPECT_EQ(j["items"][i]["id"], "item-" + std::to_string(i));
  EXPECT_EQ(j["returned"], 100000);
  EXPECT_LE(s->raw.size(), 4096u);
  EXPECT_EQ(s->request, whole.request);
  // Deterministic, and a sample is not sampled again.
  EXPECT_EQ(sample_reply(whole)->result, s->result);
  EXPECT_FALSE(sample_reply(*s).has_value());
}

// A map of a million keys in a text part keeps its first members (a key seen again is still
// replaced, as a parse would); structuredContent's objects are kept whole: the tool's
// outputSchema may require any member, and dropping one would be a false E-SCHEMA.
TEST(Sample, ObjectsInATextKeepTheirFirstMembersAndStructuredContentKeepsAll) {
  std::string map = "{";
  for (int i = 0; i < 100000; ++i) map += (i ? ",\"key-" : "\"key-") + std::to_string(i) + "\":\"value-" + std::to_string(i) + "\"";
  map += ",\"key-1\":\"again\"}";
  mcp::Reply whole = text_reply(map);
  auto s = sample_reply(whole);
  ASSERT_TRUE(s.has_value());
  const json j = json::parse(*s->text_parts()[0]);
  EXPECT_EQ(j.size(), kSampleItems);
  EXPECT_EQ(j["key-0"], "value-0");
  EXPECT_EQ(j["key-1"], "again");
  EXPECT_FALSE(j.contains("key-99999"));
  mcp::Reply structured = whole;
  structured.result["structuredContent"] = json::parse(map);
  structured.result["content"] = json::array({{{"type", "text"}, {"text", "a map"}}});
  auto t = sample_reply(structured);
  EXPECT_FALSE(t.has_value()) << "nothing to cut: the object is read whole";
}

TEST(Sample, ArraysOfArraysStopAtTheValueBound) {
  std::string rows = "[";
  for (int i = 0; i < 2000; ++i) {
    rows += i ? ",[" : "[";
    for (int k = 0; k < 300; ++k) rows += k ? ",1" : "1";
    rows += "]";
  }
  rows += "]";
  bool cut = false;
  const json j = parse_sampled(rows, kSampleItems, kSampleValues, &cut);
  EXPECT_TRUE(cut);
  std::size_t values = 0;
  for (const auto& row : j) values += 1 + row.size();
  EXPECT_LE(values, kSampleValues + 1);
  EXPECT_EQ(j[0].size(), 300u);  // the first rows whole
}

TEST(Sample, TextThatIsNotJsonIsCutAtALineEnd) {
  std::string prose;
  while (prose.size() <= kSampleAboveBytes + 100) prose += "line " + std::to_string(prose.size()) + " \xc3\xa9t\xc3\xa9\n";
  auto s = sample_reply(text_reply(prose));
  ASSERT_TRUE(s.has_value());
  const std::string& t = *s->text_parts()[0];
  EXPECT_LE(t.size(), kSampleAboveBytes);
  EXPECT_GT(t.size(), kSampleAboveBytes / 2);
  EXPECT_EQ(prose.compare(0, t.size(), t), 0);
  EXPECT_EQ(prose[t.size()], '\n');
}

TEST(Sample, StructuredContentIsSampledAsTheTextIs) {
  mcp::Reply r = text_reply(items(100000));
  r.result["structuredContent"] = json::parse(*r.text_parts()[0]);
  auto s = sample_reply(r);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->result["structuredContent"], json::parse(*s->text_parts()[0]));
}

Judged judge_one(Judge& judge, const mcp::Reply& r) {
  Exchange x;
  x.tool = "list";
  x.reply = &r;
  x.validity = Validity::kValid;
  return judge.call(x);
}

JudgeSetup setup() {
  JudgeSetup s;
  s.tools = {json{{"name", "list"}, {"inputSchema", {{"type", "object"}}}}};
  return s;
}

// The in-band rules read the sample: a "[object Object]" in the first items is a P-LEAK, found
// on the huge answer as on a small one; the judge says the tool was sampled, and counts the
// answer's own size.
TEST(Sample, ADefectInTheFirstItemsIsFound) {
  for (std::size_t n : {10u, 100000u}) {
    SCOPED_TRACE(n);
    Judge judge(setup());
    const mcp::Reply r = text_reply(items(n, "[object Object]"));
    Judged j = judge_one(judge, r);
    EXPECT_EQ(j.sample != nullptr, n > kSampleItems);
    bool leak = false;
    for (const auto& f : j.outcomes.findings()) leak |= f.invariant == "P-LEAK";
    EXPECT_TRUE(leak);
    EXPECT_EQ(judge.sampled().count("list"), n > kSampleItems ? 1u : 0u);
    EXPECT_EQ(judge.coverage().at("list").largest_bytes, r.text_parts()[0]->size());
  }
}

// A sample's counts are not the answer's: `returned` against the items kept accuses nothing on a
// sample (where it is right about the answer, and where it is not: the sample cannot tell), and
// still does on an answer read whole.
TEST(Sample, ACountTheSampleCannotHonourAccusesNothing) {
  struct Case {
    std::size_t n;
    std::size_t said;
    bool accused;
  };
  for (const Case& c : {Case{10, 10, false}, Case{10, 15, true}, Case{100000, 100000, false}, Case{100000, 100005, false}}) {
    SCOPED_TRACE(std::to_string(c.n) + " items, returned " + std::to_string(c.said));
    Judge judge(setup());
    std::string text = items(c.n);
    text.replace(text.rfind(std::to_string(c.n)), std::to_string(c.n).size(), std::to_string(c.said));
    Judged j = judge_one(judge, text_reply(text));
    Outcomes all = j.outcomes;
    for (auto& [tool, o] : judge.finish()) all.merge(o);
    bool count = false;
    for (const auto& f : all.findings()) count |= f.invariant == "TR-COUNT";
    EXPECT_EQ(count, c.accused);
    EXPECT_EQ(all.status("TR-COUNT"), c.accused ? Status::kFailed : Status::kPassed);
  }
}

}  // namespace
}  // namespace ctxo::checks
