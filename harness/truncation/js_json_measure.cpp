// SPDX-License-Identifier: MIT
// JSON.stringify sizes computed without building the text: the lengths of numbers and of string
// literals (SSE2 fast paths for plain text), the counting walk, JsonMeasurer and the public size
// functions. They count exactly what js_json.cpp writes.
#include "truncation/js_json.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "truncation/js_json_internal.h"
#include "truncation/shortest.h"
#include "truncation/unicode.h"

namespace ctxo::truncation {

namespace {

using nlohmann::json;
using detail::binary_as_json;
using detail::clamp_indent;
using detail::kEscape;
using detail::kMaxSafeInteger;
using detail::kNumberBuffer;

// Decimal digits of u (1 for 0).
inline std::size_t u64_digits(std::uint64_t u) {
  // u | 1 has as many digits as u (10^j is even) and is never 0.
  return static_cast<std::size_t>(detail::shortest_impl::digits_of(u | 1));
}

// Length of Number#toString for a value 0.d1..dk x 10^n (k digits, k >= 1), sign excluded.
inline std::size_t shape_length(int k, int n) {
  if (k <= n && n <= 21) return static_cast<std::size_t>(n);
  if (0 < n && n <= 21) return static_cast<std::size_t>(k) + 1;
  if (-6 < n && n <= 0) return 2 + static_cast<std::size_t>(-n) + static_cast<std::size_t>(k);
  const int x = n - 1;
  return 1 + (k > 1 ? static_cast<std::size_t>(k) : 0) + 2 + u64_digits(static_cast<std::uint64_t>(x < 0 ? -x : x));
}

// double_length through std::to_chars (zero, subnormals, and where shortest_decimal is unavailable).
[[gnu::noinline]] std::size_t double_length_to_chars(double value) {
  char sci[kNumberBuffer];
  const auto r = std::to_chars(sci, sci + sizeof sci, value, std::chars_format::scientific);
  const char* p = sci;
  std::size_t len = 0;
  if (*p == '-') {
    len = 1;
    ++p;
  }
  // d[.ddd]e[+-]xx[x]: k digits, exponent x (two or three digits)
  const char* e = r.ptr[-4] == 'e' ? r.ptr - 4 : r.ptr - 5;
  const int k = static_cast<int>(e - p) - (e - p > 1 ? 1 : 0);
  int x = 0;
  for (const char* q = e + 2; q < r.ptr; ++q) x = x * 10 + (*q - '0');
  if (e[1] == '-') x = -x;
  return len + shape_length(k, x + 1);
}

// Length of format_double(value) without building the text. Always inlined: GCC calls it
// otherwise, and the call per number cost about 2% of the ctxo benchmark at 100k items.
[[gnu::always_inline]] inline std::size_t double_length(double value) {
  detail::ShortestDecimal d;
  if (detail::shortest_decimal(value, &d)) return (std::signbit(value) ? 1 : 0) + shape_length(d.digits, d.point);
  if (value == 0) return 1;  // also -0
  if (!std::isfinite(value)) return 4;
  return double_length_to_chars(value);
}

// Length of format_number(v) for a number v.
inline std::size_t number_length(const json& v) {
  switch (v.type()) {
    case json::value_t::number_integer: {
      const std::int64_t i = v.get_ref<const json::number_integer_t&>();
      if (i >= -static_cast<std::int64_t>(kMaxSafeInteger) && i <= static_cast<std::int64_t>(kMaxSafeInteger))
        return i < 0 ? 1 + u64_digits(static_cast<std::uint64_t>(-i)) : u64_digits(static_cast<std::uint64_t>(i));
      return double_length(static_cast<double>(i));
    }
    case json::value_t::number_unsigned: {
      const std::uint64_t u = v.get_ref<const json::number_unsigned_t&>();
      if (u <= static_cast<std::uint64_t>(kMaxSafeInteger)) return u64_digits(u);
      return double_length(static_cast<double>(u));
    }
    default:
      return double_length(v.get_ref<const json::number_float_t&>());
  }
}

// 1 for an ASCII byte that stands for itself in a JSON string literal (not < 0x20, '"', '\\').
struct PlainTable {
  bool plain[256];
  constexpr PlainTable() : plain() {
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  }
};
constexpr PlainTable kPlain;

#if defined(__SSE2__)
// 0xFF in each byte of v that is not plain (>= 0x80, < 0x20, '"' or '\\').
inline __m128i special_bytes(__m128i v) {
  // Signed compare: bytes >= 0x80 are negative, so "< 0x20" also catches them.
  return _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
                      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
}

// Bit i set when byte i of v is not plain.
inline unsigned special_mask(__m128i v) { return static_cast<unsigned>(_mm_movemask_epi8(special_bytes(v))); }

// True when the 64 bytes at p are all plain.
inline bool plain64(const unsigned char* p) {
  const __m128i a = special_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  const __m128i b = special_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)));
  const __m128i c = special_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 32)));
  const __m128i d = special_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 48)));
  return _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) == 0;
}

// special_mask of the 16 bytes at p.
inline unsigned special16(const unsigned char* p) {
  return special_mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
#endif

// The character at p[i] of a JSON string literal when p[i] is not a plain ASCII byte (an escaped
// control, '"' or '\\', or a non-ASCII sequence): adds its correction to the one unit per byte
// already counted for it to *n and returns the index after it.
template <Measure M>
inline std::size_t special_step(std::string_view text, std::size_t i, std::size_t* n) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t len = text.size();
  const unsigned char c = p[i];
  if (c < 0x80) {
    *n += kEscape.len[c] - 1u;
    return i + 1;
  }
  // Well-formed 2- and 3-byte sequences without special cases (not E0/ED lead bytes) inline.
  if (c >= 0xC2 && c <= 0xDF && i + 1 < len && (p[i + 1] & 0xC0) == 0x80) {
    if constexpr (M != Measure::kUtf8Bytes) *n -= 1;  // one UTF-16 unit, one code point
    return i + 2;
  }
  if (c >= 0xE1 && c <= 0xEF && c != 0xED && i + 2 < len && (p[i + 1] & 0xC0) == 0x80 &&
      (p[i + 2] & 0xC0) == 0x80) {
    if constexpr (M != Measure::kUtf8Bytes) *n -= 2;  // one UTF-16 unit (BMP), one code point
    return i + 3;
  }
  if (c >= 0xF1 && c <= 0xF3 && i + 3 < len && (p[i + 1] & 0xC0) == 0x80 && (p[i + 2] & 0xC0) == 0x80 &&
      (p[i + 3] & 0xC0) == 0x80) {
    if constexpr (M == Measure::kUtf16Units) *n -= 2;  // a surrogate pair
    if constexpr (M == Measure::kCodePoints) *n -= 3;
    return i + 4;
  }
  if (c == 0xF0 && i + 3 < len && p[i + 1] >= 0x90 && p[i + 1] <= 0xBF && (p[i + 2] & 0xC0) == 0x80 &&
      (p[i + 3] & 0xC0) == 0x80) {  // U+10000..U+3FFFF (emoji)
    if constexpr (M == Measure::kUtf16Units) *n -= 2;
    if constexpr (M == Measure::kCodePoints) *n -= 3;
    return i + 4;
  }
  const Utf8Step st = decode_utf8(text, i);
  *n -= st.length;
  if constexpr (M == Measure::kUtf8Bytes) {
    *n += st.valid ? st.length : 3;
  } else if constexpr (M == Measure::kUtf16Units) {
    *n += utf16_units(st.code_point);
  } else {
    *n += 1;
  }
  return i + st.length;
}

// js_string_measure for one measure, the bytes before `from` known to be plain. Starts from
// 2 + size (quotes, one unit per byte) and corrects for each byte that is not plain ASCII.
template <Measure M>
std::size_t string_measure_slow(std::string_view text, std::size_t from) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t len = text.size();
  std::size_t n = 2 + len, i = from;
#if defined(__SSE2__)
  if (len >= 16) {
    // A block of 16 bytes at `base` whose special bytes from i on are `bad` (nonzero): its
    // characters are visited through the mask, each one's continuation bytes cleared with it, so
    // a block is loaded and tested once however many non-ASCII characters it holds. Returns the
    // index after the block, or after its last character when that runs into the next block.
    auto walk_block = [&](std::size_t base, unsigned bad) {
      std::size_t end;
      do {
        end = special_step<M>(text, base + static_cast<std::size_t>(__builtin_ctz(bad)), &n);
        const std::size_t done = end - base;
        bad = done < 16 ? bad & (~0u << done) : 0;
      } while (bad != 0);
      return std::max(end, base + 16);
    };
    while (i + 16 <= len) {
      const unsigned bad = special16(p + i);
      i = bad == 0 ? i + 16 : walk_block(i, bad);
    }
    if (i < len) {  // the last 1..15 bytes, as the tail of a block overlapping the one before
      const std::size_t base = len - 16;
      const unsigned bad = special16(p + base) & (~0u << (i - base));
      if (bad != 0) walk_block(base, bad);
    }
    return n;
  }
#endif
  while (i < len) {
    if (kPlain.plain[p[i]]) {
      ++i;
      continue;
    }
    i = special_step<M>(text, i, &n);
  }
  return n;
}

#if defined(__SSE2__)
// The bytes of a string of 1..15 bytes gathered (with repeats) into 16 lanes; lanes beyond the
// string repeat its bytes or hold 'a', so special16-style tests see only the string's bytes.
inline __m128i short16(const unsigned char* p, std::size_t len) {
  if (len >= 8) {
    std::uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + len - 8, 8);
    return _mm_set_epi64x(static_cast<long long>(b), static_cast<long long>(a));
  }
  if (len >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + len - 4, 4);
    return _mm_set_epi32(0x61616161, 0x61616161, static_cast<int>(b), static_cast<int>(a));
  }
  const std::uint32_t w = 0x61000000u | static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[len / 2]) << 8 |
                          static_cast<std::uint32_t>(p[len - 1]) << 16;
  return _mm_set_epi32(0x61616161, 0x61616161, 0x61616161, static_cast<int>(w));
}

#endif

#if defined(__SSE2__)
// True when the len >= 16 bytes at p are all plain: blocks of 16 (the last one overlapping)
// folded into one mask, tested once.
inline bool all_plain(const unsigned char* p, std::size_t len) {
  __m128i acc = special_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + len - 16)));
  std::size_t i = 0;
  for (; i + 32 <= len; i += 32)
    acc = _mm_or_si128(acc, _mm_or_si128(special_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))),
                                         special_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 16)))));
  if (i + 16 <= len) acc = _mm_or_si128(acc, special_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
  return _mm_movemask_epi8(acc) == 0;
}
#endif

// string_measure_slow with inline fast paths for plain strings (keys, most values): runs of 64
// bytes with one test each, then the rest (under 64 bytes) folded into one test. A string that is
// not plain is handed over at the run holding its first special byte, so the plain text before it
// is not scanned again.
template <Measure M>
inline std::size_t string_measure(std::string_view text) {
#if defined(__SSE2__)
  const std::size_t len = text.size();
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  if (len < 16) {
    if (len == 0) return 2;
    if (special_mask(short16(p, len)) == 0) return 2 + len;
    return string_measure_slow<M>(text, 0);
  }
  std::size_t i = 0;
  for (; i + 64 <= len; i += 64)
    if (!plain64(p + i)) return string_measure_slow<M>(text, i);
  const std::size_t start = std::min(i, len - 16);  // at least one block, overlapping the run before
  if (all_plain(p + start, len - start)) return 2 + len;
  return string_measure_slow<M>(text, i);
#else
  return string_measure_slow<M>(text, 0);
#endif
}

// Size of a scalar value (null, boolean, number, string; discarded counts as null), or 0 for an
// array, object or binary value (every scalar takes at least one unit). Accessors that cannot
// throw: this is the innermost step of every measurement. Strings and numbers are tested for in
// turn rather than through a jump table (an indirect branch per value), and the whole is inlined
// into the loops (GCC otherwise keeps it out of line).
template <Measure M>
[[gnu::always_inline]] inline std::size_t scalar_length(const json& v) {
  const json::value_t t = v.type();
  if (t == json::value_t::string) return string_measure<M>(*v.get_ptr<const json::string_t*>());
  if (t == json::value_t::number_unsigned) {
    const std::uint64_t u = *v.get_ptr<const json::number_unsigned_t*>();
    if (u <= static_cast<std::uint64_t>(kMaxSafeInteger)) return u64_digits(u);
    return double_length(static_cast<double>(u));
  }
  if (t == json::value_t::number_integer) {
    const std::int64_t i = *v.get_ptr<const json::number_integer_t*>();
    if (i >= 0 && i <= static_cast<std::int64_t>(kMaxSafeInteger)) return u64_digits(static_cast<std::uint64_t>(i));
    return number_length(v);
  }
  if (t == json::value_t::number_float) return double_length(*v.get_ptr<const json::number_float_t*>());
  switch (t) {
    case json::value_t::boolean:
      return *v.get_ptr<const json::boolean_t*>() ? 4 : 5;
    case json::value_t::null:
    case json::value_t::discarded:
      return 4;
    default:  // array, object, binary
      return 0;
  }
}

// The member after it. With libstdc++, ++ on a map iterator is a call into the shared library
// (_Rb_tree_increment, about 7% of the ctxo benchmark at 100k items, one call per member); this
// is the same in-order step through the red-black tree's links, inline. Other libraries: ++.
inline json::object_t::const_iterator next_member(json::object_t::const_iterator it) {
#if defined(__GLIBCXX__)
  using Node = std::_Rb_tree_node_base::_Const_Base_ptr;
  Node x = it._M_node;
  if (x->_M_right != nullptr) {
    x = x->_M_right;
    while (x->_M_left != nullptr) x = x->_M_left;
  } else {
    Node y = x->_M_parent;
    while (x == y->_M_right) {
      x = y;
      y = y->_M_parent;
    }
    // From the last member the climb ends at the header (end()); when the root is the last
    // member, it goes on past the header (whose right link is the root), and this steps back.
    if (x->_M_right != y) x = y;
  }
  return json::object_t::const_iterator(x);
#else
  return ++it;
#endif
}

// Size of to_js_json(root) in measure M, root at depth0; *deepest_out receives json_depth(root).
// Same output as walk_with over a counting sink, but each container's punctuation and
// indentation is added in one step when it is opened.
template <Measure M>
std::size_t count_walk(const json& root, std::size_t indent, std::size_t depth0,
                       std::vector<JsonMeasurer::CountFrame>& stack, std::size_t* deepest_out) {
  stack.clear();
  std::size_t n = 0, deepest = 0;
  const json* v = &root;
  for (;;) {
    // Count v: a scalar, or a container whose structural text is added here before it is pushed.
    switch (v->type()) {
      case json::value_t::binary: {
        std::vector<JsonMeasurer::CountFrame> inner;
        std::size_t d = 0;
        n += count_walk<M>(binary_as_json(*v), indent, depth0 + stack.size(), inner, &d);
        deepest = std::max(deepest, stack.size() + d);
        break;
      }
      case json::value_t::array: {
        deepest = std::max(deepest, stack.size() + 1);
        const auto& a = *v->get_ptr<const json::array_t*>();
        const std::size_t c = a.size();
        if (c == 0) {
          n += 2;
          break;
        }
        const std::size_t d = depth0 + stack.size();  // the array's own depth
        // "[" items joined by "," "]"; indented: "\n" + gap before each item and before "]".
        n += 2 + (c - 1);
        if (indent) n += c * (1 + indent * (d + 1)) + 1 + indent * d;
        stack.push_back(JsonMeasurer::CountFrame{a.data(), a.data() + c, {}, {}, false});
        break;
      }
      case json::value_t::object: {
        deepest = std::max(deepest, stack.size() + 1);
        const auto& o = *v->get_ptr<const json::object_t*>();
        const std::size_t c = o.size();
        if (c == 0) {
          n += 2;
          break;
        }
        const std::size_t d = depth0 + stack.size();
        // as an array, plus ":" (": " when indented) after each key
        n += 2 + (c - 1) + c;
        if (indent) n += c * (2 + indent * (d + 1)) + 1 + indent * d;
        stack.push_back(JsonMeasurer::CountFrame{nullptr, nullptr, o.begin(), o.end(), true});
        break;
      }
      default:
        n += scalar_length<M>(*v);
        break;
    }
    // Next value: the next child of the innermost open container (closing finished ones). Runs of
    // scalar children are counted here with the iterators in locals; other children go round
    // the outer loop.
    for (;;) {
      if (stack.empty()) {
        *deepest_out = deepest;
        return n;
      }
      JsonMeasurer::CountFrame& f = stack.back();
      v = nullptr;
      if (f.is_object) {
        auto it = f.oit;
        const auto end = f.oend;
        for (; it != end; it = next_member(it)) {
          n += string_measure<M>(it->first);
          const std::size_t len = scalar_length<M>(it->second);
          if (len == 0) {
            v = &it->second;
            it = next_member(it);
            break;
          }
          n += len;
        }
        f.oit = it;
      } else {
        const json* it = f.ait;
        const json* const end = f.aend;
        for (; it != end; ++it) {
          const std::size_t len = scalar_length<M>(*it);
          if (len == 0) {
            v = it;
            ++it;
            break;
          }
          n += len;
        }
        f.ait = it;
      }
      if (v) break;
      stack.pop_back();
    }
  }
}

// *out = size of a non-empty object at depth d whose members are all scalars (its json_depth is
// 1), counted without the walk's frames. Returns false, *out untouched, when a member is not a
// scalar or a short key is not plain (the caller then walks the item, which measures it exactly).
template <Measure M>
inline bool flat_object_length(const json::object_t& o, std::size_t indent, std::size_t d, std::size_t* out) {
  const std::size_t c = o.size();
  std::size_t n = 2 + (c - 1) + c;
  if (indent) n += c * (2 + indent * (d + 1)) + 1 + indent * d;
#if defined(__SSE2__)
  // Keys are short identifiers, nearly always plain: the special bytes of those under 16 bytes
  // are gathered here and tested once per object instead of once per key.
  __m128i key_specials = _mm_setzero_si128();
#endif
  for (auto it = o.begin(), end = o.end(); it != end;) {
    // The step to the next member first: it is a chain of dependent loads through the tree,
    // which then runs while this member is measured.
    const auto& member = *it;
    it = next_member(it);
    const std::size_t len = scalar_length<M>(member.second);
    if (len == 0) return false;
    n += len;
    const std::string& key = member.first;
#if defined(__SSE2__)
    const auto* kp = reinterpret_cast<const unsigned char*>(key.data());
    const std::size_t klen = key.size();
    // 4..7 bytes, the usual key, on the straight path (this layout is measurably faster).
    if (klen - 4 < 4) [[likely]] {
      std::uint32_t a, b;
      std::memcpy(&a, kp, 4);
      std::memcpy(&b, kp + klen - 4, 4);
      const __m128i bytes = _mm_set_epi32(0x61616161, 0x61616161, static_cast<int>(b), static_cast<int>(a));
      key_specials = _mm_or_si128(key_specials, special_bytes(bytes));
      n += 2 + klen;
      continue;
    }
    if (klen - 1 < 15) {  // 1..15 bytes
      key_specials = _mm_or_si128(key_specials, special_bytes(short16(kp, klen)));
      n += 2 + klen;
      continue;
    }
#endif
    n += string_measure<M>(key);
  }
#if defined(__SSE2__)
  if (_mm_movemask_epi8(key_specials) != 0) return false;
#endif
  *out = n;
  return true;
}

// Items built or parsed in order lie in memory in order: an object's map header is followed by
// its tree nodes (short keys and numbers live inside them) and strings, or by the strings of the
// next item when it was built from an initializer list. The kPrefetchLines cache lines from the
// header of the item kPrefetchAhead places ahead are about one item's storage (six to eight
// members), fetched while the items before it are measured, so the walk's dependent loads hit the
// cache (over a tenth of the ctxo benchmark's time at 100k items). Only a hint: any other layout
// stays correct.
constexpr std::size_t kPrefetchAhead = 8;
constexpr std::size_t kPrefetchLines = 16;

// JsonMeasurer::measure_items for one measure.
template <Measure M>
std::size_t measure_items_with(const json::array_t& items, std::size_t indent, std::size_t d0,
                               std::vector<JsonMeasurer::CountFrame>& stack, std::vector<std::size_t>* sizes,
                               std::size_t keep_sum, std::size_t* deepest_out) {
  std::size_t deepest = 0, total = 0;
  bool keep = true;
  for (std::size_t idx = 0; idx < items.size(); ++idx) {
    // Inline here: GCC finds a function that only prefetches free of side effects and deletes
    // the calls to it.
    if (idx + kPrefetchAhead < items.size())
      if (const auto* ahead = items[idx + kPrefetchAhead].get_ptr<const json::object_t*>()) {
        const auto from = reinterpret_cast<std::uintptr_t>(ahead);
        for (std::size_t line = 0; line < kPrefetchLines; ++line)
          __builtin_prefetch(reinterpret_cast<const void*>(from + 64 * line));
      }
    const json& item = items[idx];
    std::size_t n = 0;
    const auto* obj = item.get_ptr<const json::object_t*>();
    if (obj != nullptr && !obj->empty() && flat_object_length<M>(*obj, indent, d0, &n)) {
      deepest = std::max<std::size_t>(deepest, 1);
    } else {
      std::size_t d = 0;
      n = count_walk<M>(item, indent, d0, stack, &d);
      deepest = std::max(deepest, d);
    }
    total += n;
    if (keep) {
      sizes->push_back(n);
      keep = total <= keep_sum;
    }
  }
  *deepest_out = deepest;
  return total;
}

}  // namespace

std::size_t JsonMeasurer::measure(const nlohmann::json& value, int depth) {
  const std::size_t indent = static_cast<std::size_t>(clamp_indent(indent_));
  const std::size_t d0 = static_cast<std::size_t>(depth < 0 ? 0 : depth);
  std::size_t deepest = 0, n = 0;
  switch (measure_) {
    case Measure::kUtf8Bytes:
      n = count_walk<Measure::kUtf8Bytes>(value, indent, d0, stack_, &deepest);
      break;
    case Measure::kUtf16Units:
      n = count_walk<Measure::kUtf16Units>(value, indent, d0, stack_, &deepest);
      break;
    case Measure::kCodePoints:
      n = count_walk<Measure::kCodePoints>(value, indent, d0, stack_, &deepest);
      break;
  }
  max_depth_ = std::max(max_depth_, deepest);
  return n;
}

std::size_t JsonMeasurer::measure_items(const nlohmann::json::array_t& items, int depth,
                                       std::vector<std::size_t>* sizes, std::size_t keep_sum) {
  const std::size_t indent = static_cast<std::size_t>(clamp_indent(indent_));
  const std::size_t d0 = static_cast<std::size_t>(depth < 0 ? 0 : depth);
  std::size_t deepest = 0, total = 0;
  switch (measure_) {
    case Measure::kUtf8Bytes:
      total = measure_items_with<Measure::kUtf8Bytes>(items, indent, d0, stack_, sizes, keep_sum, &deepest);
      break;
    case Measure::kUtf16Units:
      total = measure_items_with<Measure::kUtf16Units>(items, indent, d0, stack_, sizes, keep_sum, &deepest);
      break;
    case Measure::kCodePoints:
      total = measure_items_with<Measure::kCodePoints>(items, indent, d0, stack_, sizes, keep_sum, &deepest);
      break;
  }
  max_depth_ = std::max(max_depth_, deepest);
  return total;
}

std::size_t js_number_length(double value) { return double_length(value); }

std::size_t text_measure(std::string_view text, Measure measure) {
  switch (measure) {
    case Measure::kUtf8Bytes:
      return utf8_length(text);
    case Measure::kUtf16Units:
      return utf16_length(text);
    case Measure::kCodePoints:
      return code_points(text);
  }
  return 0;
}

std::size_t js_string_measure(std::string_view text, Measure measure) {
  switch (measure) {
    case Measure::kUtf8Bytes:
      return string_measure<Measure::kUtf8Bytes>(text);
    case Measure::kUtf16Units:
      return string_measure<Measure::kUtf16Units>(text);
    case Measure::kCodePoints:
      return string_measure<Measure::kCodePoints>(text);
  }
  return 0;
}

std::size_t js_json_measure(const nlohmann::json& value, Measure measure, int indent, int depth) {
  return JsonMeasurer(measure, indent).measure(value, depth);
}

std::size_t js_json_size(const nlohmann::json& value, int indent) {
  return js_json_measure(value, Measure::kUtf8Bytes, indent, 0);
}

std::size_t js_json_utf16_size(const nlohmann::json& value, int indent) {
  return js_json_measure(value, Measure::kUtf16Units, indent, 0);
}

}  // namespace ctxo::truncation
