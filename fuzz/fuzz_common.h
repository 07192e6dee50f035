// SPDX-License-Identifier: MIT
// Shared helpers of the truncation/unicode fuzz targets: carve options and a payload out of the
// fuzzer's bytes (JSON text, or a structured build that can hold ill-formed UTF-8), and fail loudly.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "truncation/js_json.h"

namespace ctxo::fuzz {

/// Reads bytes front to back; past the end everything reads as 0 / empty.
class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(byte() | (byte() << 8)); }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(byte()) << (8 * i);
    return v;
  }
  std::string take(std::size_t n) {
    n = std::min(n, size_ - pos_);
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }
  std::string_view rest() {
    std::string_view s(reinterpret_cast<const char*>(data_ + pos_), size_ - pos_);
    pos_ = size_;
    return s;
  }
  bool empty() const { return pos_ >= size_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

/// Aborts with a message when `ok` is false (libFuzzer then saves the reproducer).
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

/// Value equality where NaN equals NaN (nlohmann's == follows IEEE: NaN != NaN, so a copied
/// array holding NaN would not equal itself). Falls back to comparing the JS serialisations.
bool same_json(const nlohmann::json& a, const nlohmann::json& b);

inline nlohmann::json make_value(FuzzInput& in, int depth) {
  using nlohmann::json;
  switch (in.byte() % 9) {
    case 0: return nullptr;
    case 1: return (in.byte() & 1) != 0;
    case 2: return static_cast<std::int64_t>(in.u64());
    case 3: {
      const std::uint64_t bits = in.u64();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return d;
    }
    case 4: return in.u64();
    case 5:
    case 6: return in.take(in.byte() % 48);  // raw bytes: may be ill-formed UTF-8
    case 7: {
      json a = json::array();
      if (depth > 0)
        for (int n = in.byte() % 6; n > 0 && !in.empty(); --n) a.push_back(make_value(in, depth - 1));
      return a;
    }
    default: {
      json o = json::object();
      if (depth > 0)
        for (int n = in.byte() % 5; n > 0 && !in.empty(); --n) {
          std::string key = in.take(in.byte() % 8);
          o[key] = make_value(in, depth - 1);
        }
      return o;
    }
  }
}

/// A payload: JSON text (any type, to reach error paths) or an object holding arrays under
/// `names` (picked by the input) plus other members.
inline nlohmann::json make_payload(FuzzInput& in, const std::vector<std::string>& names) {
  using nlohmann::json;
  if ((in.byte() & 1) != 0) {
    json j = json::parse(in.rest(), nullptr, false);
    return j.is_discarded() ? json::object() : j;
  }
  json p = json::object();
  for (int f = in.byte() % 4; f > 0 && !in.empty(); --f) {
    const std::uint8_t sel = in.byte();
    if (sel % 8 == 7) {
      p[in.take(sel % 6)] = make_value(in, 2);
      continue;
    }
    json a = json::array();
    for (int n = in.byte() % 80; n > 0 && !in.empty(); --n) a.push_back(make_value(in, 2));
    p[names[sel % names.size()]] = std::move(a);
  }
  return p;
}

inline bool same_json(const nlohmann::json& a, const nlohmann::json& b) {
  return a == b || (a.type() == b.type() && ctxo::truncation::to_js_json(a) == ctxo::truncation::to_js_json(b));
}

}  // namespace ctxo::fuzz
