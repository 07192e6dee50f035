// SPDX-License-Identifier: MIT
// Framer: splits a byte stream into lines at 0x0A with bounded memory, and ExitStatus::describe.
// It does no I/O and knows nothing of JSON: it only cuts, measures and flags lines.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <signal.h>  // NOLINT: POSIX signal numbers (SIGBUS, SIGTRAP, ...) beyond <csignal>

#include "core/text.h"
#include "transport/transport.h"

namespace ctxo::transport {
namespace {

// Number of bytes at the end of `s` that start a multi-byte UTF-8 sequence which is not complete
// yet (0..3). Such a sequence may be completed by the next chunk, so it must not be judged now.
std::size_t incomplete_tail(std::string_view s) {
  const std::size_t n = s.size();
  for (std::size_t k = 1; k <= 3 && k <= n; ++k) {
    const auto c = static_cast<unsigned char>(s[n - k]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte: keep looking for the lead
    std::size_t len = 0;
    if ((c & 0xE0) == 0xC0) len = 2;
    else if ((c & 0xF0) == 0xE0) len = 3;
    else if ((c & 0xF8) == 0xF0) len = 4;
    return len > k ? k : 0;
  }
  return 0;
}

// UTF-8 validity of a line that is too long to keep: fed chunk by chunk, it gives the same answer
// as is_valid_utf8() on the whole line. Sequences cut by a chunk boundary are finished byte by byte;
// everything else goes through ctxo::is_valid_utf8.
class Utf8Stream {
 public:
  void feed(std::string_view s) {
    std::size_t i = 0;
    while (ok_ && need_ > 0 && i < s.size()) byte(static_cast<unsigned char>(s[i++]));
    if (!ok_ || i == s.size()) return;
    s.remove_prefix(i);
    const std::size_t tail = incomplete_tail(s);
    if (!ctxo::is_valid_utf8(s.substr(0, s.size() - tail))) {
      ok_ = false;
      return;
    }
    for (std::size_t j = s.size() - tail; j < s.size(); ++j) byte(static_cast<unsigned char>(s[j]));
  }
  bool finish() const { return ok_ && need_ == 0; }

 private:
  void byte(unsigned char c) {
    if (need_ == 0) {
      if (c < 0x80) return;
      if ((c & 0xE0) == 0xC0) { len_ = 2; cp_ = c & 0x1F; }
      else if ((c & 0xF0) == 0xE0) { len_ = 3; cp_ = c & 0x0F; }
      else if ((c & 0xF8) == 0xF0) { len_ = 4; cp_ = c & 0x07; }
      else { ok_ = false; return; }
      need_ = len_ - 1;
      return;
    }
    if ((c & 0xC0) != 0x80) { ok_ = false; return; }
    cp_ = (cp_ << 6) | (c & 0x3F);
    if (--need_ > 0) return;
    if ((len_ == 2 && cp_ < 0x80) || (len_ == 3 && cp_ < 0x800) || (len_ == 4 && cp_ < 0x10000) ||
        cp_ > 0x10FFFF || (cp_ >= 0xD800 && cp_ <= 0xDFFF))
      ok_ = false;
  }

  bool ok_ = true;
  unsigned need_ = 0;
  unsigned len_ = 0;
  std::uint32_t cp_ = 0;
};

}  // namespace

struct Framer::Impl {
  std::size_t max = 0;
  std::size_t keep = 0;
  std::deque<Frame> ready;
  std::string cur;         // The current line: all of it, or only its first `keep` bytes once oversize.
  std::size_t size = 0;    // Full length of the current line so far.
  bool oversize = false;
  char last = 0;           // Last byte of the current line, to detect "\r\n".
  Utf8Stream utf8;         // Validity of the current line once it is oversize.
  std::string tail;        // The last kOversizeTail bytes of the current line once it is oversize.

  void keep_tail(std::string_view piece) {
    if (piece.size() >= kOversizeTail) {
      tail.assign(piece.substr(piece.size() - kOversizeTail));
      return;
    }
    tail.append(piece);
    if (tail.size() > kOversizeTail) tail.erase(0, tail.size() - kOversizeTail);
  }

  void append(std::string_view piece) {
    if (piece.empty()) return;
    size += piece.size();
    last = piece.back();
    if (!oversize) {
      if (cur.size() + piece.size() <= max) {
        // Grow at most to `max`: the default doubling could reserve twice the limit.
        const std::size_t need = cur.size() + piece.size();
        if (need > cur.capacity()) cur.reserve(std::min(max, std::max(need, cur.capacity() * 2)));
        cur.append(piece);
        return;
      }
      // The line just became too long: keep a prefix, drop the rest, and stream from now on.
      oversize = true;
      utf8 = Utf8Stream{};
      utf8.feed(cur);
      utf8.feed(piece);
      tail.clear();
      keep_tail(cur);
      keep_tail(piece);
      std::string kept;
      if (cur.size() >= keep) {
        kept.assign(cur, 0, keep);
      } else {
        kept.reserve(std::min(keep, cur.size() + piece.size()));
        kept = cur;
        kept.append(piece.substr(0, keep - cur.size()));
      }
      cur.swap(kept);  // releases the large buffer when `kept` goes out of scope
      return;
    }
    utf8.feed(piece);
    keep_tail(piece);
    if (cur.size() < keep) cur.append(piece.substr(0, keep - cur.size()));
  }

  void complete(bool terminated) {
    Frame f;
    f.size = size;
    f.oversize = oversize;
    f.had_cr = terminated && size > 0 && last == '\r';
    if (!oversize) {
      if (f.had_cr) cur.pop_back();
      f.valid_utf8 = ctxo::is_valid_utf8(cur);
      f.body = std::move(cur);
    } else {
      if (f.had_cr && cur.size() == size) cur.pop_back();  // only when keep >= the whole line
      if (f.had_cr && !tail.empty()) tail.pop_back();
      f.valid_utf8 = utf8.finish();
      f.body = std::move(cur);
      f.tail = std::move(tail);
    }
    ready.push_back(std::move(f));
    cur = std::string();
    size = 0;
    oversize = false;
    tail = std::string();
    last = 0;
  }
};

Framer::Framer(std::size_t max_line_bytes, std::size_t oversize_keep) : impl_(std::make_shared<Impl>()) {
  impl_->max = max_line_bytes;
  impl_->keep = oversize_keep;
}

void Framer::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const void* nl = std::memchr(bytes.data(), '\n', bytes.size());
    if (nl == nullptr) {
      impl_->append(bytes);
      return;
    }
    const auto n = static_cast<std::size_t>(static_cast<const char*>(nl) - bytes.data());
    impl_->append(bytes.substr(0, n));
    impl_->complete(true);
    bytes.remove_prefix(n + 1);
  }
}

std::optional<Frame> Framer::next() {
  if (impl_->ready.empty()) return std::nullopt;
  Frame f = std::move(impl_->ready.front());
  impl_->ready.pop_front();
  return f;
}

std::optional<Frame> Framer::finish() {
  if (impl_->size > 0) impl_->complete(false);
  return next();
}

std::size_t Framer::pending_bytes() const { return impl_->cur.size(); }

namespace {

const char* signal_name(int sig) {
  switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGCHLD: return "SIGCHLD";
    case SIGCONT: return "SIGCONT";
    case SIGSTOP: return "SIGSTOP";
    case SIGTSTP: return "SIGTSTP";
    case SIGTTIN: return "SIGTTIN";
    case SIGTTOU: return "SIGTTOU";
    case SIGURG: return "SIGURG";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGVTALRM: return "SIGVTALRM";
    case SIGPROF: return "SIGPROF";
    case SIGSYS: return "SIGSYS";
    default: return nullptr;
  }
}

}  // namespace

std::string ExitStatus::describe() const {
  switch (how) {
    case How::kRunning:
      return "still running";
    case How::kExited:
      return "exited with code " + std::to_string(code);
    case How::kSignaled: {
      std::string s = "killed by signal " + std::to_string(code);
      if (const char* name = signal_name(code)) s += std::string(" (") + name + ")";
      return s;
    }
  }
  return "unknown";
}

}  // namespace ctxo::transport
