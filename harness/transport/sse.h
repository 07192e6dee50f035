// SPDX-License-Identifier: MIT
// Reading Server-Sent Events (the Streamable HTTP transport's streams) with bounded memory: the
// WHATWG event-stream rules (lines ended by CR, LF or CRLF; data/event/id/retry fields; comments;
// an event with an empty data buffer is not dispatched), each event's data kept whole up to a
// maximum and past it only its first and last bytes, as Framer does for stdio lines.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "transport/transport.h"

namespace ctxo::transport {

/// Bytes kept from the start of a message over the maximum (as Framer keeps of a line).
inline constexpr std::size_t kOversizeKeep = 4096;

/// One message being read (a body, or an event's data), bounded: past `max` bytes only its first
/// kOversizeKeep and last kOversizeTail bytes are kept, and its full size counted.
class BoundedMessage {
 public:
  explicit BoundedMessage(std::size_t max = 0) : max_(max) {}
  void add(std::string_view bytes);
  std::size_t size() const { return size_; }
  /// Longer than the maximum: only its first and last bytes are kept.
  bool oversize() const { return oversize_; }
  /// What was read so far (whole, or its first bytes when oversize).
  const std::string& text() const { return text_; }
  /// The message as a frame (sizes, validity, head and tail); the buffer starts over.
  Frame take();

 private:
  std::size_t max_;
  std::string text_, tail_;
  std::size_t size_ = 0;
  bool oversize_ = false;
};

/// An event read from the stream.
struct SseEvent {
  Frame data;        ///< The data lines joined by "\n" (bounded).
  std::string type;  ///< Its "event" field ("" = the default, "message").
};

class SseReader {
 public:
  explicit SseReader(std::size_t max_message_bytes) : data_(max_message_bytes) {}
  /// Reads `bytes` (any chunking). `on_event` gets each dispatched event; returning false stops
  /// the reading there (the rest of `bytes` is not read), and feed returns false.
  bool feed(std::string_view bytes, const std::function<bool(SseEvent)>& on_event);
  /// The last event id the stream set ("" = none), for resuming with Last-Event-ID.
  const std::string& last_event_id() const { return last_event_id_; }
  /// The reconnection time the stream asked for in ms (-1 = none).
  long retry_ms() const { return retry_ms_; }
  /// The bytes of data of the event being read (not dispatched yet: no blank line after it), and
  /// whether they are over the maximum; 0 when none.
  std::size_t pending_bytes() const { return has_data_ ? data_.size() : 0; }
  bool pending_oversize() const { return has_data_ && data_.oversize(); }

 private:
  bool end_line(const std::function<bool(SseEvent)>& on_event);
  void field(std::string_view name, std::string_view value);

  std::string line_;           // the current line (a data line's only while short; others capped)
  bool after_cr_ = false;      // the previous byte was CR (a following LF is the same line end)
  bool started_ = false;       // past a leading byte-order mark
  std::string bom_;            // bytes of a possible leading BOM seen so far
  bool data_streaming_ = false;  // inside a data line too long to hold as a line: bytes go to data_
  BoundedMessage data_;
  bool has_data_ = false;
  std::string type_, last_event_id_;
  long retry_ms_ = -1;
};

}  // namespace ctxo::transport
