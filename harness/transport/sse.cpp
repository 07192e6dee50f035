// SPDX-License-Identifier: MIT
#include "transport/sse.h"

#include <algorithm>
#include <cstdlib>

#include "core/text.h"

namespace ctxo::transport {

void BoundedMessage::add(std::string_view b) {
  size_ += b.size();
  if (!oversize_ && text_.size() + b.size() <= max_) {
    text_.append(b);
    return;
  }
  if (!oversize_) {
    oversize_ = true;
    tail_ = text_.size() > kOversizeTail ? text_.substr(text_.size() - kOversizeTail) : text_;
    if (text_.size() > kOversizeKeep) text_.resize(kOversizeKeep);
  }
  // The first kOversizeKeep bytes are kept whatever the chunks (the maximum may be smaller).
  if (text_.size() < kOversizeKeep) text_.append(b.substr(0, std::min(b.size(), kOversizeKeep - text_.size())));
  if (b.size() > kOversizeTail) b.remove_prefix(b.size() - kOversizeTail);
  tail_.append(b);
  if (tail_.size() > 2 * kOversizeTail) tail_.erase(0, tail_.size() - kOversizeTail);
}

Frame BoundedMessage::take() {
  Frame f;
  f.size = size_;
  f.oversize = oversize_;
  if (oversize_) {
    f.body = std::move(text_);
    f.tail = tail_.size() > kOversizeTail ? tail_.substr(tail_.size() - kOversizeTail) : tail_;
  } else {
    f.valid_utf8 = is_valid_utf8(text_);
    f.body = std::move(text_);
  }
  text_.clear();
  tail_.clear();
  size_ = 0;
  oversize_ = false;
  return f;
}

bool SseReader::feed(std::string_view bytes, const std::function<bool(SseEvent)>& on_event) {
  std::size_t i = 0;
  // A UTF-8 byte-order mark at the very start of the stream is skipped.
  while (!started_ && i < bytes.size()) {
    static constexpr std::string_view kBom = "\xEF\xBB\xBF";
    bom_.push_back(bytes[i++]);
    if (kBom.substr(0, bom_.size()) != bom_) {  // not a BOM: those bytes are the stream's
      started_ = true;
      std::string held;
      held.swap(bom_);
      if (!feed(held, on_event)) return false;
    } else if (bom_.size() == kBom.size()) {
      started_ = true;
      bom_.clear();
    }
  }
  while (i < bytes.size()) {
    const char c = bytes[i];
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') {
        ++i;
        continue;
      }
    }
    if (c == '\r' || c == '\n') {
      after_cr_ = c == '\r';
      ++i;
      if (!end_line(on_event)) return false;
      continue;
    }
    // The run of bytes up to the next line end, taken at once.
    std::size_t j = i;
    while (j < bytes.size() && bytes[j] != '\r' && bytes[j] != '\n') ++j;
    std::string_view run = bytes.substr(i, j - i);
    i = j;
    if (data_streaming_) {
      data_.add(run);
      continue;
    }
    const std::size_t room = kOversizeKeep + 16 > line_.size() ? kOversizeKeep + 16 - line_.size() : 0;
    line_.append(run.substr(0, std::min(room, run.size())));
    run.remove_prefix(std::min(room, run.size()));
    if (!run.empty() && line_.compare(0, 5, "data:") == 0) {
      // A long data line: its bytes go to the event's bounded buffer as they come.
      std::string_view value = std::string_view(line_).substr(5);
      if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
      if (has_data_) data_.add("\n");
      has_data_ = true;
      data_.add(value);
      data_.add(run);
      data_streaming_ = true;
      line_.clear();
    }
    // Any other over-long line (a comment, an event name) is cut: no field needs that much.
  }
  return true;
}

bool SseReader::end_line(const std::function<bool(SseEvent)>& on_event) {
  if (data_streaming_) {  // a long data line ended: already in data_
    data_streaming_ = false;
    line_.clear();
    return true;
  }
  if (!line_.empty()) {
    if (line_[0] != ':') {  // not a comment
      const std::size_t colon = line_.find(':');
      std::string_view name = std::string_view(line_).substr(0, colon);
      std::string_view value = colon == std::string::npos ? std::string_view() : std::string_view(line_).substr(colon + 1);
      if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
      field(name, value);
    }
    line_.clear();
    return true;
  }
  // An empty line dispatches the event; one whose data buffer is empty is not dispatched.
  const bool dispatch = has_data_ && data_.size() > 0;
  SseEvent ev;
  if (dispatch) {
    ev.data = data_.take();
    ev.type = type_;
  } else {
    (void)data_.take();
  }
  has_data_ = false;
  type_.clear();
  return dispatch ? on_event(std::move(ev)) : true;
}

void SseReader::field(std::string_view name, std::string_view value) {
  if (name == "data") {
    if (has_data_) data_.add("\n");
    has_data_ = true;
    data_.add(value);
  } else if (name == "event") {
    type_ = std::string(value);
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) last_event_id_ = std::string(value);
  } else if (name == "retry") {
    if (!value.empty() && value.size() < 10 &&
        std::all_of(value.begin(), value.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      retry_ms_ = std::atol(std::string(value).c_str());
  }
}

}  // namespace ctxo::transport
