// SPDX-License-Identifier: MIT
// Unit tests of the Framer (line splitting, CR, UTF-8 flag, oversize lines) and ExitStatus::describe.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "transport/transport.h"

namespace ctxo::transport {
namespace {

std::vector<Frame> drain(Framer& f) {
  std::vector<Frame> out;
  while (auto fr = f.next()) out.push_back(std::move(*fr));
  return out;
}

std::vector<std::string> bodies(const std::vector<Frame>& frames) {
  std::vector<std::string> out;
  for (const auto& f : frames) out.push_back(f.body);
  return out;
}

TEST(Framer, ByteByByte) {
  Framer f;
  const std::string input = "{\"a\":1}\nxy\r\n\nlast";
  std::vector<Frame> frames;
  for (char c : input) {
    f.feed(std::string_view(&c, 1));
    for (auto& fr : drain(f)) frames.push_back(std::move(fr));
  }
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(bodies(frames), (std::vector<std::string>{"{\"a\":1}", "xy", ""}));
  EXPECT_EQ(frames[0].size, 7u);
  EXPECT_EQ(frames[1].size, 3u);
  EXPECT_TRUE(frames[1].had_cr);
  EXPECT_FALSE(frames[0].had_cr);
  EXPECT_EQ(f.pending_bytes(), 4u);
  auto last = f.finish();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->body, "last");
  EXPECT_FALSE(f.finish().has_value());
  EXPECT_EQ(f.pending_bytes(), 0u);
}

TEST(Framer, ManyMessagesInOneFeed) {
  Framer f;
  std::string input;
  for (int i = 0; i < 1000; ++i) input += "{\"id\":" + std::to_string(i) + "}\n";
  f.feed(input);
  const auto frames = drain(f);
  ASSERT_EQ(frames.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(frames[i].body, "{\"id\":" + std::to_string(i) + "}");
  EXPECT_EQ(f.pending_bytes(), 0u);
  EXPECT_FALSE(f.finish().has_value());
}

TEST(Framer, MessageSplitAcrossFeeds) {
  Framer f;
  f.feed("{\"jsonrpc\":");
  EXPECT_FALSE(f.next().has_value());
  EXPECT_EQ(f.pending_bytes(), 11u);
  f.feed("\"2.0\"}\n{\"b\"");
  auto a = f.next();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->body, "{\"jsonrpc\":\"2.0\"}");
  EXPECT_FALSE(f.next().has_value());
  f.feed(":2}\r");
  EXPECT_FALSE(f.next().has_value());
  f.feed("\n");
  auto b = f.next();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->body, "{\"b\":2}");
  EXPECT_TRUE(b->had_cr);
  EXPECT_EQ(b->size, 8u);
}

TEST(Framer, CrLfStripsExactlyOneCr) {
  Framer f;
  f.feed("a\r\r\nb\rc\n\r\n");
  const auto frames = drain(f);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].body, "a\r");
  EXPECT_TRUE(frames[0].had_cr);
  EXPECT_EQ(frames[0].size, 3u);
  EXPECT_EQ(frames[1].body, "b\rc");  // a lone CR is data, not a separator
  EXPECT_FALSE(frames[1].had_cr);
  EXPECT_EQ(frames[2].body, "");
  EXPECT_TRUE(frames[2].had_cr);
  EXPECT_EQ(frames[2].size, 1u);
}

TEST(Framer, InvalidUtf8IsFlagged) {
  Framer f;
  f.feed("caf\xC3\xA9\n");          // valid 2-byte
  f.feed("bad \xC3\x28\n");         // broken continuation
  f.feed("\xED\xA0\x80\n");         // surrogate
  f.feed("\xF0\x9F\x98");           // 4-byte emoji split across feeds
  f.feed("\x80 \xE2\x80\xA8\n");    // ... and U+2028 inside a line is fine
  f.feed("\xFF\n");
  const auto frames = drain(f);
  ASSERT_EQ(frames.size(), 5u);
  EXPECT_TRUE(frames[0].valid_utf8);
  EXPECT_FALSE(frames[1].valid_utf8);
  EXPECT_FALSE(frames[2].valid_utf8);
  EXPECT_TRUE(frames[3].valid_utf8);
  EXPECT_EQ(frames[3].body, "\xF0\x9F\x98\x80 \xE2\x80\xA8");
  EXPECT_FALSE(frames[4].valid_utf8);
}

TEST(Framer, EmptyLines) {
  Framer f;
  f.feed("\n\n\n");
  const auto frames = drain(f);
  ASSERT_EQ(frames.size(), 3u);
  for (const auto& fr : frames) {
    EXPECT_EQ(fr.body, "");
    EXPECT_EQ(fr.size, 0u);
    EXPECT_FALSE(fr.oversize);
    EXPECT_TRUE(fr.valid_utf8);
  }
}

TEST(Framer, FinishAtEof) {
  Framer f;
  EXPECT_FALSE(f.finish().has_value());
  f.feed("done\n{\"partial\":tr");
  auto first = f.next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->body, "done");
  auto last = f.finish();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->body, "{\"partial\":tr");
  EXPECT_EQ(last->size, 13u);
  EXPECT_FALSE(last->had_cr);
  EXPECT_FALSE(f.next().has_value());
}

TEST(Framer, FinishKeepsOrderWhenFramesAreQueued) {
  Framer f;
  f.feed("a\nb");
  auto x = f.finish();
  ASSERT_TRUE(x.has_value());
  EXPECT_EQ(x->body, "a");
  auto y = f.next();
  ASSERT_TRUE(y.has_value());
  EXPECT_EQ(y->body, "b");
}

TEST(Framer, LimitIsInclusive) {
  Framer f(8, 3);
  f.feed("12345678\n123456789\n");
  const auto frames = drain(f);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_FALSE(frames[0].oversize);
  EXPECT_EQ(frames[0].body, "12345678");
  EXPECT_TRUE(frames[1].oversize);
  EXPECT_EQ(frames[1].size, 9u);
  EXPECT_EQ(frames[1].body, "123");
}

TEST(Framer, OversizeLineTracksUtf8AndCrOverTheWholeLine) {
  Framer f(4, 2);
  f.feed("ab\xC3");
  f.feed("\xA9xyz\xC3\r\n");  // the bad byte is in the dropped part
  f.feed("abcd\xE2\x82");
  f.feed("\xACz\r\n");        // valid euro sign split across feeds, after the cut
  const auto frames = drain(f);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_TRUE(frames[0].oversize);
  EXPECT_FALSE(frames[0].valid_utf8);
  EXPECT_TRUE(frames[0].had_cr);
  EXPECT_EQ(frames[0].size, 9u);
  EXPECT_EQ(frames[0].body, "ab");
  EXPECT_TRUE(frames[1].oversize);
  EXPECT_TRUE(frames[1].valid_utf8);
  EXPECT_EQ(frames[1].size, 9u);
}

// An oversize line also keeps its last kOversizeTail bytes (where a response may put its id),
// across feeds and without the '\r'; other lines keep none.
TEST(Framer, OversizeLineKeepsItsTail) {
  Framer f(1024, 16);
  const std::string end = ",\"jsonrpc\":\"2.0\",\"id\":42}";
  f.feed("{\"result\":\"" + std::string(3000, 'a'));
  f.feed(std::string(300, 'b'));
  f.feed("\"" + end + "\r\nshort\n");
  const auto frames = drain(f);
  ASSERT_EQ(frames.size(), 2u);
  ASSERT_TRUE(frames[0].oversize);
  ASSERT_EQ(frames[0].tail.size(), ctxo::transport::kOversizeTail - 1);  // the line's last bytes, less its '\r'
  EXPECT_EQ(frames[0].tail.substr(frames[0].tail.size() - end.size() - 1), "\"" + end);
  EXPECT_EQ(frames[0].tail.front(), 'b');
  EXPECT_FALSE(frames[1].oversize);
  EXPECT_TRUE(frames[1].tail.empty());
  // A line that goes oversize within a single feed keeps its tail too.
  Framer g(8, 4);
  g.feed("0123456789\n");
  const auto one = drain(g);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].tail, "0123456789");
}

// A 100 MB line with the default 64 MiB limit: one oversize frame, exact size, bounded memory,
// and the next line is intact.
TEST(Framer, HundredMegabyteLineStreams) {
  Framer f;  // defaults: 64 MiB, keep 4096
  const std::size_t total = 100u * 1000u * 1000u;
  const std::string chunk(64 * 1024, 'x');
  std::size_t fed = 0, max_pending = 0;
  while (fed < total) {
    const std::size_t n = std::min(chunk.size(), total - fed);
    f.feed(std::string_view(chunk.data(), n));
    fed += n;
    max_pending = std::max(max_pending, f.pending_bytes());
    ASSERT_FALSE(f.next().has_value());
  }
  f.feed("\n{\"ok\":true}\n");
  auto big = f.next();
  ASSERT_TRUE(big.has_value());
  EXPECT_TRUE(big->oversize);
  EXPECT_EQ(big->size, total);
  EXPECT_EQ(big->body, std::string(4096, 'x'));
  EXPECT_TRUE(big->valid_utf8);
  EXPECT_LE(max_pending, std::size_t{64} << 20);
  EXPECT_EQ(f.pending_bytes(), 0u);
  auto next = f.next();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->body, "{\"ok\":true}");
  EXPECT_FALSE(next->oversize);
}

TEST(Framer, SmallLimitKeepsPendingTiny) {
  Framer f(1024, 16);
  std::size_t max_pending = 0;
  const std::string chunk(1000, 'y');
  for (int i = 0; i < 1000; ++i) {
    f.feed(chunk);
    max_pending = std::max(max_pending, f.pending_bytes());
  }
  EXPECT_LE(max_pending, 1024u);
  EXPECT_EQ(f.pending_bytes(), 16u);
  auto last = f.finish();
  ASSERT_TRUE(last.has_value());
  EXPECT_TRUE(last->oversize);
  EXPECT_EQ(last->size, 1000000u);
  EXPECT_EQ(last->body, std::string(16, 'y'));
}

TEST(ExitStatus, Describe) {
  ExitStatus s;
  EXPECT_EQ(s.describe(), "still running");
  s.how = ExitStatus::How::kExited;
  s.code = 3;
  EXPECT_EQ(s.describe(), "exited with code 3");
  s.how = ExitStatus::How::kSignaled;
  s.code = 11;
  EXPECT_EQ(s.describe(), "killed by signal 11 (SIGSEGV)");
  s.code = 9;
  EXPECT_EQ(s.describe(), "killed by signal 9 (SIGKILL)");
}

}  // namespace
}  // namespace ctxo::transport
