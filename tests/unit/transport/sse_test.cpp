// SPDX-License-Identifier: MIT
// transport::SseReader: the event-stream rules the Streamable HTTP transport relies on, with the
// shapes real servers send (the SDK's priming event, CRLF, comments as keep-alives, long events).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "transport/sse.h"

namespace ctxo::transport {
namespace {

std::vector<SseEvent> read_all(SseReader& r, const std::string& stream, std::size_t chunk = 1000000) {
  std::vector<SseEvent> out;
  for (std::size_t i = 0; i < stream.size(); i += chunk)
    r.feed(std::string_view(stream).substr(i, chunk), [&](SseEvent e) {
      out.push_back(std::move(e));
      return true;
    });
  return out;
}

TEST(Sse, PrimingEventWithOnlyAnIdIsNotAMessage) {
  SseReader r(1 << 20);
  auto ev = read_all(r, "id: p1\ndata: \n\nevent: message\nid: p2\ndata: {\"id\":1}\n\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].data.body, "{\"id\":1}");
  EXPECT_EQ(ev[0].type, "message");
  EXPECT_EQ(r.last_event_id(), "p2");
}

TEST(Sse, LineEndsCommentsAndMultiLineDataInAnyChunking) {
  const std::string stream = "\xEF\xBB\xBF: keep-alive\r\ndata: a\r\ndata: b\r\nretry: 1500\r\n\r\nevent: x\rdata:c\r\r";
  for (std::size_t chunk : {1u, 2u, 3u, 7u, 1000u}) {
    SseReader r(1 << 20);
    auto ev = read_all(r, stream, chunk);
    ASSERT_EQ(ev.size(), 2u) << chunk;
    EXPECT_EQ(ev[0].data.body, "a\nb");
    EXPECT_EQ(ev[1].data.body, "c");
    EXPECT_EQ(ev[1].type, "x");
    EXPECT_EQ(r.retry_ms(), 1500);
  }
}

TEST(Sse, LongEventsAreWholeUpToTheMaximumAndBoundedPastIt) {
  const std::string big(100000, 'z');
  SseReader whole(200000);
  auto ev = read_all(whole, "data: " + big + "\n\n", 4096);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].data.body, big);
  SseReader bounded(50000);
  ev = read_all(bounded, "data: " + big + "y\n\n", 4096);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_TRUE(ev[0].data.oversize);
  EXPECT_EQ(ev[0].data.size, big.size() + 1);
  EXPECT_EQ(ev[0].data.body.size(), kOversizeKeep);
  EXPECT_EQ(ev[0].data.tail.back(), 'y');
}

// An event not ended yet (the stream may stop inside it): its size so far, and whether it is
// over the maximum, so that a stream cut inside a huge event can say so.
TEST(Sse, AnEventNotEndedYetIsMeasured) {
  SseReader r(2048);
  EXPECT_EQ(r.pending_bytes(), 0u);
  EXPECT_FALSE(r.pending_oversize());
  auto ev = read_all(r, "data: " + std::string(1000, 'a') + "\n", 100);
  EXPECT_TRUE(ev.empty());
  EXPECT_EQ(r.pending_bytes(), 1000u);
  EXPECT_FALSE(r.pending_oversize());
  ev = read_all(r, "data: " + std::string(9000, 'b'), 333);  // a long line, still going
  EXPECT_TRUE(ev.empty());
  EXPECT_EQ(r.pending_bytes(), 10001u);
  EXPECT_TRUE(r.pending_oversize());
  ev = read_all(r, "\n\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_TRUE(ev[0].data.oversize);
  EXPECT_EQ(r.pending_bytes(), 0u);
  EXPECT_FALSE(r.pending_oversize());
}

TEST(Sse, TheCallbackStopsTheReading) {
  SseReader r(1 << 20);
  int seen = 0;
  EXPECT_FALSE(r.feed("data: 1\n\ndata: 2\n\n", [&](SseEvent) { return ++seen < 1; }));
  EXPECT_EQ(seen, 1);
}

}  // namespace
}  // namespace ctxo::transport
