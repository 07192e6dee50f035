// SPDX-License-Identifier: MIT
// JSON.stringify-compatible writer: Number#toString formatting, string escaping, and the iterative
// walk that writes a value to a string sink (to_js_json, js_number, json_depth). The sizes of that
// text, computed without building it, are in js_json_measure.cpp.
#include "truncation/js_json.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <vector>

#include "truncation/js_json_internal.h"
#include "truncation/unicode.h"

namespace ctxo::truncation {

namespace detail {

using nlohmann::json;

json binary_as_json(const json& v) {
  const auto& bin = v.get_binary();
  json bytes = json::array();
  for (std::uint8_t b : bin) bytes.push_back(b);
  return json{{"bytes", std::move(bytes)}, {"subtype", bin.has_subtype() ? json(bin.subtype()) : json(nullptr)}};
}

}  // namespace detail

namespace {

using nlohmann::json;
using detail::binary_as_json;
using detail::clamp_indent;
using detail::kEscape;
using detail::kMaxSafeInteger;
using detail::kNumberBuffer;

// Writes Number#toString(value) into out (>= kNumberBuffer bytes); returns its length.
std::size_t format_double(double value, char* out) {
  if (!std::isfinite(value)) {
    std::memcpy(out, "null", 4);
    return 4;
  }
  if (value == 0) {  // also -0
    out[0] = '0';
    return 1;
  }
  char sci[kNumberBuffer];
  // Shortest round-trip digits, the same digits ECMAScript's Number::toString picks.
  const auto r = std::to_chars(sci, sci + sizeof sci, value, std::chars_format::scientific);
  const char* p = sci;
  char digits[24];
  std::size_t k = 0;
  bool negative = false;
  if (*p == '-') {
    negative = true;
    ++p;
  }
  for (; p < r.ptr && *p != 'e'; ++p)
    if (*p != '.') digits[k++] = *p;
  int exponent = 0;
  std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), r.ptr, exponent);
  const int n = exponent + 1;  // value = 0.d1d2...dk * 10^n
  const int kk = static_cast<int>(k);
  char* o = out;
  if (negative) *o++ = '-';
  if (kk <= n && n <= 21) {
    std::memcpy(o, digits, k);
    o += k;
    for (int i = 0; i < n - kk; ++i) *o++ = '0';
  } else if (0 < n && n <= 21) {
    std::memcpy(o, digits, static_cast<std::size_t>(n));
    o += n;
    *o++ = '.';
    std::memcpy(o, digits + n, k - static_cast<std::size_t>(n));
    o += k - static_cast<std::size_t>(n);
  } else if (-6 < n && n <= 0) {
    *o++ = '0';
    *o++ = '.';
    for (int i = 0; i < -n; ++i) *o++ = '0';
    std::memcpy(o, digits, k);
    o += k;
  } else {
    *o++ = digits[0];
    if (k > 1) {
      *o++ = '.';
      std::memcpy(o, digits + 1, k - 1);
      o += k - 1;
    }
    *o++ = 'e';
    const int e = n - 1;
    *o++ = e < 0 ? '-' : '+';
    o = std::to_chars(o, out + kNumberBuffer, e < 0 ? -e : e).ptr;
  }
  return static_cast<std::size_t>(o - out);
}

std::size_t format_number(const json& v, char* out) {
  switch (v.type()) {
    case json::value_t::number_integer: {
      const std::int64_t i = v.get_ref<const json::number_integer_t&>();
      if (i >= -static_cast<std::int64_t>(kMaxSafeInteger) && i <= static_cast<std::int64_t>(kMaxSafeInteger))
        return static_cast<std::size_t>(std::to_chars(out, out + kNumberBuffer, i).ptr - out);
      return format_double(static_cast<double>(i), out);
    }
    case json::value_t::number_unsigned: {
      const std::uint64_t u = v.get_ref<const json::number_unsigned_t&>();
      if (u <= static_cast<std::uint64_t>(kMaxSafeInteger))
        return static_cast<std::size_t>(std::to_chars(out, out + kNumberBuffer, u).ptr - out);
      return format_double(static_cast<double>(u), out);
    }
    default:
      return format_double(v.get_ref<const json::number_float_t&>(), out);
  }
}

void append_js_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t i = 0, run = 0;  // [run, i) is copied verbatim
  while (i < s.size()) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      if (kEscape.len[c] == 1) {
        ++i;
        continue;
      }
      out.append(s.data() + run, i - run);
      out.push_back('\\');
      switch (c) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '\b': out.push_back('b'); break;
        case '\f': out.push_back('f'); break;
        case '\n': out.push_back('n'); break;
        case '\r': out.push_back('r'); break;
        case '\t': out.push_back('t'); break;
        default:
          out.append("u00");
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
      }
      run = ++i;
      continue;
    }
    const Utf8Step st = decode_utf8(s, i);
    if (st.valid) {
      i += st.length;
      continue;
    }
    out.append(s.data() + run, i - run);
    out.append("\xEF\xBF\xBD");
    i += st.length;
    run = i;
  }
  out.append(s.data() + run, i - run);
  out.push_back('"');
}

struct StringSink {
  std::string& out;
  void put(char c) { out.push_back(c); }
  void put(std::string_view sv) { out.append(sv); }
  void spaces(std::size_t n) { out.append(n, ' '); }
  void string(std::string_view sv) { append_js_string(out, sv); }
};

}  // namespace

// Writes `root` to `sink`; returns the deepest nesting opened (json_depth of root).
template <typename Sink>
std::size_t walk_with(const json& root, int indent_in, std::size_t depth0, Sink& sink,
                      std::vector<JsonMeasurer::Frame>& stack) {
  const std::size_t indent = static_cast<std::size_t>(clamp_indent(indent_in));
  stack.clear();
  std::size_t deepest = 0;
  // Writes a scalar, or opens a container and pushes it; `depth` is the value's own depth.
  auto open = [&](const json& v, std::size_t depth) {
    switch (v.type()) {
      case json::value_t::null:
      case json::value_t::discarded:
        sink.put(std::string_view("null"));
        break;
      case json::value_t::boolean:
        sink.put(v.get_ref<const json::boolean_t&>() ? std::string_view("true") : std::string_view("false"));
        break;
      case json::value_t::number_integer:
      case json::value_t::number_unsigned:
      case json::value_t::number_float: {
        char buf[kNumberBuffer];
        sink.put(std::string_view(buf, format_number(v, buf)));
        break;
      }
      case json::value_t::string:
        sink.string(v.get_ref<const json::string_t&>());
        break;
      case json::value_t::binary: {
        std::vector<JsonMeasurer::Frame> inner;
        deepest = std::max(deepest, stack.size() + walk_with(binary_as_json(v), indent_in, depth, sink, inner));
        break;
      }
      case json::value_t::array:
      case json::value_t::object:
        deepest = std::max(deepest, stack.size() + 1);
        if (v.empty()) {
          sink.put(v.is_array() ? std::string_view("[]") : std::string_view("{}"));
        } else {
          sink.put(v.is_array() ? '[' : '{');
          stack.push_back(JsonMeasurer::Frame{&v, v.cbegin(), true});
        }
        break;
    }
  };
  open(root, depth0);
  while (!stack.empty()) {
    JsonMeasurer::Frame& f = stack.back();
    const std::size_t depth = depth0 + stack.size();  // depth of f's children
    if (f.it == f.node->cend()) {
      if (indent) {
        sink.put('\n');
        sink.spaces(indent * (depth - 1));
      }
      sink.put(f.node->is_array() ? ']' : '}');
      stack.pop_back();
      continue;
    }
    if (!f.first) sink.put(',');
    f.first = false;
    if (indent) {
      sink.put('\n');
      sink.spaces(indent * depth);
    }
    if (f.node->is_object()) {
      sink.string(f.it.key());
      sink.put(':');
      if (indent) sink.put(' ');
    }
    const json& child = *f.it;
    ++f.it;
    open(child, depth);  // may push: f is not used after this
  }
  return deepest;
}

std::string js_number(double value) {
  char buf[kNumberBuffer];
  return std::string(buf, format_double(value, buf));
}

std::size_t decimal_digits(std::size_t n) {
  std::size_t d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

std::string to_js_json(const nlohmann::json& value, int indent) {
  std::string out;
  StringSink sink{out};
  std::vector<JsonMeasurer::Frame> stack;
  walk_with(value, indent, 0, sink, stack);
  return out;
}

std::size_t json_depth(const nlohmann::json& value) {
  std::size_t best = 0;
  std::vector<std::pair<const json*, std::size_t>> stack{{&value, 0}};
  while (!stack.empty()) {
    auto [v, d] = stack.back();
    stack.pop_back();
    if (!v->is_structured()) continue;
    if (d + 1 > best) best = d + 1;
    for (const auto& child : *v)
      if (child.is_structured()) stack.emplace_back(&child, d + 1);
  }
  return best;
}

}  // namespace ctxo::truncation
