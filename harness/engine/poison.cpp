// SPDX-License-Identifier: MIT
#include "engine/poison.h"

#include <algorithm>

namespace ctxo::engine {

namespace {

bool hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

// The normalised text of `text`, one byte at a time to `emit` (see normalised_failure).
template <typename Emit>
void normalise(std::string_view text, Emit&& emit) {
  text = text.substr(0, kFailureChars);
  bool pending_space = false, any = false;
  auto out = [&](char c) {
    if (pending_space && any) emit(' ');
    pending_space = false;
    any = true;
    emit(c);
  };
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (space(c)) {
      pending_space = true;
      ++i;
      continue;
    }
    if (!hex_digit(c)) {
      out(c);
      ++i;
      continue;
    }
    // A run of hex digits: a number (it holds a digit) or a long hex token is one mark.
    std::size_t j = i;
    bool digit = false;
    while (j < text.size() && hex_digit(text[j])) digit = digit || (text[j] >= '0' && text[j] <= '9'), ++j;
    if (digit || j - i >= 8) {
      out('#');
    } else {
      for (std::size_t k = i; k < j; ++k) out(text[k]);
    }
    i = j;
  }
}

}  // namespace

std::string normalised_failure(std::string_view text) {
  std::string s;
  normalise(text, [&](char c) { s += c; });
  return s;
}

std::uint64_t failure_hash(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;  // core/text.h fnv1a, byte by byte
  normalise(text, [&](char c) { h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull; });
  return h;
}

bool PoisonWatch::worked(std::string_view tool) const {
  return std::any_of(witnesses_.begin(), witnesses_.end(), [&](const Witness& w) { return w.tool == tool; });
}

void PoisonWatch::end_streak() {
  length_ = 0;
  checked_tools_ = 0;
  tools_.clear();
  ids_.clear();
}

bool PoisonWatch::see(const Seen& c, nlohmann::json&& request) {
  ++index_;
  if (!c.valid) {  // an invalid call's error is expected: it neither extends nor ends a streak
    prev_ = std::move(request);
    return false;
  }
  if (!c.failed) {
    end_streak();
    if (!worked(c.tool)) {  // a tool not kept yet: its normal call is a witness (a copy, once per tool)
      Witness w{std::string(c.tool), request};
      if (witnesses_.size() < kWitnessTools) {
        witnesses_.push_back(std::move(w));
      } else {
        witnesses_[oldest_] = std::move(w);
        oldest_ = (oldest_ + 1) % kWitnessTools;
      }
    }
    prev_ = std::move(request);
    return false;
  }
  const auto id_of = [](const nlohmann::json& r) -> std::int64_t {
    const auto it = r.find("id");
    return it != r.end() && it->is_number_integer() ? it->get<std::int64_t>() : -1;
  };
  if (length_ > 0 && c.failure == hash_) {
    ++length_;
    if (std::find(tools_.begin(), tools_.end(), c.tool) == tools_.end()) tools_.emplace_back(c.tool);
    if (ids_.size() < kStreakIds) ids_.push_back(id_of(request));
    prev_ = std::move(request);
  } else {
    // A new streak: the call before it is the last call seen (the previous streak's first call
    // when that streak had only it, moved to first_ then).
    before_ = prev_.is_null() ? std::move(first_) : std::move(prev_);
    prev_ = nullptr;
    end_streak();
    hash_ = c.failure;
    length_ = 1;
    at_ = index_;
    number_ = c.number;
    tools_.emplace_back(c.tool);
    ids_.push_back(id_of(request));
    first_ = std::move(request);
  }
  return length_ >= kStreak && tools_.size() > checked_tools_ && checks_ < kChecksPerInstance;
}

void PoisonWatch::checked() {
  checked_tools_ = tools_.size();
  ++checks_;
}

void PoisonWatch::fresh_instance() {
  end_streak();
  index_ = at_ = number_ = checks_ = 0;
  hash_ = 0;
  first_ = before_ = prev_ = nullptr;
}

}  // namespace ctxo::engine
