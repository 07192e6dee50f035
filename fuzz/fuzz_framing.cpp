// SPDX-License-Identifier: MIT
// Fuzz target for transport::Framer: arbitrary bytes in arbitrary chunkings must frame losslessly
// (sizes add up, bodies reproduce the input, an oversize line keeps its head and tail) with
// bounded memory. Does not touch processes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "transport/transport.h"

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_framing: invariant broken: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using ctxo::transport::Frame;
  using ctxo::transport::Framer;
  if (size < 4) return 0;
  // Header: [0] max line length, [1] oversize_keep, [2..3] seed of the chunk sizes.
  static constexpr std::size_t kMaxChoices[] = {0, 1, 2, 3, 5, 8, 16, 64, 1000, std::size_t{64} << 20};
  const std::size_t max = kMaxChoices[data[0] % (sizeof kMaxChoices / sizeof kMaxChoices[0])];
  const std::size_t keep = data[1] % 32;
  std::uint32_t rng = (std::uint32_t{data[2]} << 8 | data[3]) * 2654435761u + 1;
  const std::string_view input(reinterpret_cast<const char*>(data) + 4, size - 4);

  Framer framer(max, keep);
  std::vector<Frame> frames;
  std::size_t pos = 0;
  while (pos < input.size()) {
    rng = rng * 1103515245u + 12345u;
    const std::size_t chunk = 1 + (rng >> 16) % ((rng & 1) ? 7 : 300);
    const std::size_t n = std::min(chunk, input.size() - pos);
    framer.feed(input.substr(pos, n));
    pos += n;
    check(framer.pending_bytes() <= std::max(max, keep), "pending_bytes bounded by the limit");
    while (auto f = framer.next()) frames.push_back(std::move(*f));
  }
  bool terminated_last = true;
  if (auto f = framer.finish()) {
    frames.push_back(std::move(*f));
    terminated_last = false;
  }
  check(!framer.next().has_value(), "finish() drains everything");
  check(framer.pending_bytes() == 0, "nothing pending after finish()");
  check(terminated_last == (input.empty() || input.back() == '\n'), "unterminated last line iff no final LF");

  // Walk the input line by line alongside the frames.
  std::size_t off = 0;
  std::string rebuilt;
  bool any_oversize = false;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const Frame& f = frames[i];
    const bool terminated = terminated_last || i + 1 < frames.size();
    check(off + f.size <= input.size(), "sizes stay within the input");
    const std::string_view line = input.substr(off, f.size);
    check(!terminated || (off + f.size < input.size() && input[off + f.size] == '\n'), "frame ends at an LF");
    check(line.find('\n') == std::string_view::npos, "no LF inside a frame");
    check(f.had_cr == (terminated && !line.empty() && line.back() == '\r'), "had_cr iff the line ends in CR LF");
    check(f.oversize == (f.size > max), "oversize iff longer than the limit");
    check(f.valid_utf8 == ctxo::is_valid_utf8(line), "valid_utf8 describes the whole line");
    if (f.oversize) {
      any_oversize = true;
      check(f.body == line.substr(0, std::min(keep, line.size() - (f.had_cr ? 1 : 0))), "oversize body is the prefix");
      std::string_view tail = line.substr(line.size() - std::min(ctxo::transport::kOversizeTail, line.size()));
      if (f.had_cr) tail.remove_suffix(1);
      check(f.tail == tail, "oversize tail is the line's last bytes, less its CR");
    } else {
      check(f.body == line.substr(0, line.size() - (f.had_cr ? 1 : 0)), "body is the line minus CR");
      check(f.tail.empty(), "no tail kept for a line within the limit");
    }
    rebuilt += f.body;
    if (f.had_cr) rebuilt += '\r';
    if (terminated) rebuilt += '\n';
    off += f.size + (terminated ? 1 : 0);
  }
  check(off == input.size(), "sizes and separators add up to the input");
  if (!any_oversize) check(rebuilt == input, "bodies and separators reproduce the input");
  return 0;
}
