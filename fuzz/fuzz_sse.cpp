// SPDX-License-Identifier: MIT
// Fuzz target for transport::SseReader (the Streamable HTTP transport's SSE streams): arbitrary
// bytes in arbitrary chunkings must give exactly the events a plain whole-buffer reading of the
// event-stream rules gives (same data, types, last id, retry), each event bounded as Framer
// bounds a line (whole up to the maximum, past it its first 4 KiB and last 256 bytes and its
// size). No network.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "transport/sse.h"

namespace {

using ctxo::transport::kOversizeKeep;
using ctxo::transport::kOversizeTail;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_sse: invariant broken: %s\n", what);
    std::abort();
  }
}

struct Ref {
  std::vector<std::pair<std::string, std::string>> events;  // (type, data)
  std::string last_id;
  long retry = -1;
};

// The rules, read plainly over the whole input: no bound on data, other lines cut as the reader
// cuts them, an event with empty data not dispatched (MCP's priming events carry only an id).
Ref reference(std::string_view in) {
  Ref r;
  if (in.substr(0, 3) == "\xEF\xBB\xBF") in.remove_prefix(3);
  std::string data, type;
  bool has = false;
  std::size_t i = 0;
  while (i < in.size()) {
    std::size_t j = i;
    while (j < in.size() && in[j] != '\r' && in[j] != '\n') ++j;
    if (j == in.size()) break;  // an unterminated last line is not a line yet
    std::string_view line = in.substr(i, j - i);
    i = j + ((in[j] == '\r' && j + 1 < in.size() && in[j + 1] == '\n') ? 2 : 1);
    if (line.empty()) {
      if (has && !data.empty()) r.events.emplace_back(type, data);
      data.clear();
      type.clear();
      has = false;
      continue;
    }
    const bool is_data = line.substr(0, 5) == "data:";
    if (!is_data && line.size() > kOversizeKeep + 16) line = line.substr(0, kOversizeKeep + 16);
    if (line[0] == ':') continue;
    const std::size_t colon = line.find(':');
    std::string_view name = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
    if (name == "data") {
      if (has) data += "\n";
      has = true;
      data += value;
    } else if (name == "event") {
      type = std::string(value);
    } else if (name == "id") {
      if (value.find('\0') == std::string_view::npos) r.last_id = std::string(value);
    } else if (name == "retry") {
      bool digits = !value.empty() && value.size() < 10;
      for (char c : value) digits = digits && c >= '0' && c <= '9';
      if (digits) r.retry = std::atol(std::string(value).c_str());
    }
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  static constexpr std::size_t kMaxChoices[] = {1, 2, 7, 64, 300, 5000, std::size_t{64} << 20};
  const std::size_t max = kMaxChoices[data[0] % (sizeof kMaxChoices / sizeof kMaxChoices[0])];
  std::uint32_t rng = (std::uint32_t{data[1]} << 8 | data[2]) * 2654435761u + 1;
  const std::string_view input(reinterpret_cast<const char*>(data) + 3, size - 3);

  ctxo::transport::SseReader reader(max);
  std::vector<ctxo::transport::SseEvent> got;
  std::size_t pos = 0;
  while (pos < input.size()) {
    rng = rng * 1103515245u + 12345u;
    const std::size_t n = std::min<std::size_t>(input.size() - pos, 1 + (rng >> 16) % 97);
    check(reader.feed(input.substr(pos, n), [&](ctxo::transport::SseEvent ev) {
      got.push_back(std::move(ev));
      return true;
    }), "feed stopped though no callback asked it to");
    pos += n;
  }
  const Ref want = reference(input);
  check(got.size() == want.events.size(), "as many events as the plain reading");
  for (std::size_t k = 0; k < got.size(); ++k) {
    const auto& g = got[k];
    const auto& [type, text] = want.events[k];
    check(g.type == type, "event type");
    check(g.data.size == text.size(), "event size");
    if (text.size() <= max) {
      check(!g.data.oversize && g.data.body == text, "an event within the maximum is whole");
    } else {
      check(g.data.oversize, "an event over the maximum is oversize");
      check(g.data.body == text.substr(0, std::min(text.size(), kOversizeKeep)), "oversize keeps its first bytes");
      check(g.data.body.size() <= kOversizeKeep && g.data.tail.size() <= kOversizeTail, "oversize keeps little");
      check(g.data.tail == text.substr(text.size() - std::min(text.size(), kOversizeTail)), "oversize keeps its last bytes");
    }
  }
  check(reader.last_event_id() == want.last_id, "last event id");
  check(reader.retry_ms() == want.retry, "retry");
  return 0;
}
