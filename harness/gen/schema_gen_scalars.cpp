// SPDX-License-Identifier: MIT
// The schema generator's scalars (Builder members, see schema_gen_internal.h): integers and
// numbers within their bounds and multiples, edges first; strings of edge-heavy code points within
// their lengths, patterns (pattern_gen) and the formats it writes (dates, emails, uuids, loopback
// hosts and uris).
#include "gen/schema_gen_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "gen/pattern_gen.h"
#include "gen/rc_util.h"
#include "gen/schema_gen.h"
#include "profile/pattern_re2.h"

namespace ctxo::gen::detail {

Builder::Bounds Builder::bounds(const json& s) {
  Bounds b;
  if (auto m = number_at(s, "minimum")) b.lo = std::max(b.lo, *m);
  if (auto m = number_at(s, "maximum")) b.hi = std::min(b.hi, *m);
  if (auto it = s.find("exclusiveMinimum"); it != s.end()) {
    if (it->is_boolean()) {
      b.lo_open = it->get<bool>() && s.contains("minimum");
    } else if (it->is_number() && it->get<double>() >= b.lo) {
      b.lo = it->get<double>();
      b.lo_open = true;
    }
  }
  if (auto it = s.find("exclusiveMaximum"); it != s.end()) {
    if (it->is_boolean()) {
      b.hi_open = it->get<bool>() && s.contains("maximum");
    } else if (it->is_number() && it->get<double>() <= b.hi) {
      b.hi = it->get<double>();
      b.hi_open = true;
    }
  }
  return b;
}

Built Builder::integer_gen(const json& s) {
  Bounds b = bounds(s);
  double lo_d = b.lo_open ? std::floor(b.lo) + 1 : std::ceil(b.lo);
  double hi_d = b.hi_open ? std::ceil(b.hi) - 1 : std::floor(b.hi);
  lo_d = std::max(lo_d, -static_cast<double>(kSafe));
  hi_d = std::min(hi_d, static_cast<double>(kSafe));
  if (lo_d > hi_d) {
    const bool past = std::ceil(b.lo) > static_cast<double>(kSafe) || std::floor(b.hi) < -static_cast<double>(kSafe);
    if (!past) return {fail_gen("empty integer range"), true};
    const std::string why = "an integer range past 2^53 (integers there have no exact JSON number in most clients)";
    opt_.problems.add(why);
    return {fail_gen(why), true};
  }
  auto lo = static_cast<std::int64_t>(lo_d);
  auto hi = static_cast<std::int64_t>(hi_d);
  std::int64_t step = 1;
  if (auto m = number_at(s, "multipleOf"); m && *m > 0 && is_int_value(*m) && *m < 1e15) step = static_cast<std::int64_t>(*m);
  // Work in multiples of step: k in [klo, khi], value = k * step.
  auto div_ceil = [](std::int64_t a, std::int64_t d) { return a / d + ((a % d != 0 && a > 0) ? 1 : 0); };
  auto div_floor = [](std::int64_t a, std::int64_t d) { return a / d - ((a % d != 0 && a < 0) ? 1 : 0); };
  std::int64_t klo = div_ceil(lo, step);
  std::int64_t khi = div_floor(hi, step);
  if (klo > khi) return {fail_gen("no multiple in range"), true};
  auto as_json = [step](std::int64_t k) { return json(k * step); };
  std::int64_t target = std::clamp<std::int64_t>(0, klo, khi);
  std::vector<std::int64_t> edges;  // in multiples of step
  auto add_edge = [&](std::int64_t v) {
    if (v % step != 0 || v < lo || v > hi) return;
    if (std::find(edges.begin(), edges.end(), v / step) == edges.end()) edges.push_back(v / step);
  };
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1}, lo, lo + 1, hi - 1, hi, kSafe, -kSafe,
                         kSafe - 1, -(kSafe - 1)})
    add_edge(v);
  add_edge(klo * step);
  add_edge(khi * step);
  std::int64_t slo = std::max(klo, std::int64_t{-100});
  std::int64_t shi = std::min(khi, std::int64_t{100});
  if (slo > shi) {
    slo = klo;
    shi = std::min(khi, klo + 100);
  }
  Gen small = rc::gen::map(any_in<std::int64_t>(slo, shi, std::clamp(target, slo, shi)), as_json);
  Gen wide = rc::gen::map(any_in<std::int64_t>(klo, khi, target), as_json);
  if (!opt_.edge_bias) return {weighted({{4, small}, {1, wide}}), true};
  // Edges shrink like any other number: towards the in-range value nearest 0.
  Gen edge = rc::gen::map(rc::gen::shrink(rc::gen::noShrink(rc::gen::elementOf(edges)),
                                          [target](std::int64_t k) { return rc::shrink::towards<std::int64_t>(k, target); }),
                          as_json);
  return {weighted({{4, small}, {3, edge}, {2, wide}}), true};
}

Built Builder::number_gen(const json& s) {
  Bounds b = bounds(s);
  if (b.lo > b.hi || (b.lo == b.hi && (b.lo_open || b.hi_open))) return {fail_gen("empty number range"), true};
  auto ok = [b](double v) {
    return std::isfinite(v) && (b.lo_open ? v > b.lo : v >= b.lo) && (b.hi_open ? v < b.hi : v <= b.hi);
  };
  std::optional<double> mult = number_at(s, "multipleOf");
  if (mult && *mult > 0 && is_int_value(*mult)) return integer_gen(s);  // multiples of an integer are integers
  std::vector<Gen> parts;
  json int_schema = s;
  int_schema.erase("multipleOf");
  // Integers inside the range, when there are any.
  if (std::ceil(b.lo) <= std::floor(b.hi)) parts.push_back(integer_gen(int_schema).gen);
  double lo = b.lo;
  double hi = b.hi;
  Gen frac = rc::gen::map(any_in<std::int64_t>(0, 1000000, 0), [lo, hi](std::int64_t k) {
    double span = std::min(hi - lo, 2000.0);
    double base = (hi - lo <= 2000.0) ? lo : std::clamp(-1000.0, lo, hi - span);
    double v = base + span * static_cast<double>(k) / 1e6;
    double rounded = std::round(v * 1000.0) / 1000.0;  // 3 decimals: readable, and the filter keeps bounds
    return number_json(rounded >= lo && rounded <= hi ? rounded : v);
  });
  parts.push_back(frac);
  if (opt_.edge_bias) {
    std::vector<json> edges;
    for (double v : {0.5, -0.5, 1e-9, lo, hi, std::nextafter(lo, hi), std::nextafter(hi, lo), 0.1, 1e300})
      if (ok(v)) edges.push_back(number_json(v));
    if (!edges.empty()) parts.push_back(element_of(edges));
  }
  Gen g = such_that(one_of(parts), [ok](const json& j) { return ok(j.get<double>()); });
  return {g, !mult.has_value()};
}

namespace {

// Code-point generators, ASCII first so shrinking lands on plain letters.
// One code point from edge-heavy blocks, drawn with a single random number (strings of
// thousands of characters stay cheap). Shrinks to 'a', else towards the start of its block.
struct Block {
  std::uint32_t weight, lo, hi;
};
constexpr Block kBlocks[] = {
    {40, 'a', 'z'},
    {15, 0x20, 0x7E},
    {10, 0x1F600, 0x1F64F},  // astral emoji
    {10, 0x4E00, 0x9FFF},    // CJK
    {5, 0x05D0, 0x05EA},     // Hebrew (RTL)
    {4, 0x0627, 0x064A},     // Arabic (RTL)
    {6, 0x0300, 0x036F},     // combining marks
    {4, 0x01, 0x1F},         // control characters, never NUL
    {1, 0x200B, 0x200F},     // zero-width space and direction marks
    {1, 0xFEFF, 0xFEFF},     // byte order mark
};

}  // namespace

// The code point edge_char makes of random number x, and the start of its block.
std::pair<std::uint32_t, std::uint32_t> Builder::edge_code_point(std::uint64_t x) {
  std::uint64_t total = 0;
  for (const auto& b : kBlocks) total += b.weight;
  std::uint64_t pick = x % total;
  const Block* block = &kBlocks[0];
  for (const auto& b : kBlocks) {
    if (pick < b.weight) {
      block = &b;
      break;
    }
    pick -= b.weight;
  }
  return {static_cast<std::uint32_t>(block->lo + (x / total) % (block->hi - block->lo + 1)), block->lo};
}

rc::Gen<std::uint32_t> Builder::edge_char() {
  return rc::Gen<std::uint32_t>([](const rc::Random& random, int) {
    auto [cp, lo] = edge_code_point(rc::Random(random).next());
    return rc::shrinkable::shrinkRecur(cp, [lo = lo](std::uint32_t c) {
      rc::Seq<std::uint32_t> towards = c > lo ? rc::shrink::towards<std::uint32_t>(c, lo) : rc::Seq<std::uint32_t>();
      if (c == 'a') return towards;
      return rc::seq::concat(rc::seq::just(std::uint32_t{'a'}), std::move(towards));
    });
  });
}

// Strings of lo to hi code points (edge_char's, else 'a'..'z'). The value is drawn whole, with
// the very random numbers bounded_vector and the per-character generators would draw; the
// shrink tree (a Shrinkable per character) is the RapidCheck composition's, built only when a
// failing call is shrunk.
Gen Builder::chars_gen(std::size_t lo, std::size_t hi, bool edges) {
  rc::Gen<std::uint32_t> ch = edges ? edge_char() : any_in<std::uint32_t>('a', 'z', 'a');
  Gen tree = rc::gen::map(bounded_vector<std::uint32_t>(lo, hi - lo, ch),
                          [](const std::vector<std::uint32_t>& v) { return json(utf8(v)); });
  const std::size_t extra = hi - lo;
  // any_in('a', 'z') is inRange('a', 'z' + 1) at the nominal size.
  const std::uint64_t letters = rc::gen::detail::scaleInteger(std::uint64_t{'z' - 'a'}, rc::kNominalSize) + 1;
  return Gen([tree, lo, extra, edges, letters](const rc::Random& random, int size) {
    std::string text;
    auto put = [&](const rc::Random& r) {
      const std::uint64_t x = rc::Random(r).next();
      append_utf8(text, static_cast<char32_t>(edges ? edge_code_point(x).first
                                                    : static_cast<std::uint32_t>('a' + x % letters)));
    };
    // bounded_vector: a tuple of `lo` elements and a container of up to `cap` more.
    const auto s = static_cast<std::size_t>(std::clamp(size, 0, rc::kNominalSize));
    const std::size_t cap = (extra * s + rc::kNominalSize - 1) / rc::kNominalSize;
    rc::Random r(random);
    rc::Random fixed = r.split();
    rc::Random more = r.split();
    text.reserve((lo + cap) * (edges ? 2 : 1));
    for (std::size_t i = 0; i < lo; ++i) put(fixed.split());
    const std::size_t count = more.split().next() % (cap + 1);
    for (std::size_t i = 0; i < count; ++i) put(more.split());
    return lazy_tree(json(std::move(text)), tree, random, size);
  });
}

Built Builder::string_gen(const json& s) {
  std::size_t min_len = size_at(s, "minLength").value_or(0);
  std::size_t max_len = size_at(s, "maxLength").value_or(std::numeric_limits<std::size_t>::max());
  if (min_len > max_len) return {fail_gen("minLength > maxLength"), true};
  if (min_len > kMaxGenLength) {
    const std::string why = "minLength " + s["minLength"].dump() + " is more than the " +
                            std::to_string(kMaxGenLength) + " characters the generator writes";
    opt_.problems.add(why);
    return {fail_gen(why), true};
  }
  std::optional<std::string> pattern;
  if (auto it = s.find("pattern"); it != s.end() && it->is_string()) pattern = it->get<std::string>();
  std::string format = s.value("format", std::string());

  auto len_ok = [min_len, max_len](const json& j) {
    std::size_t n = code_points(j.get<std::string>());
    return n >= min_len && n <= max_len;
  };
  std::shared_ptr<const Pattern> re = pattern ? ctx_->regex(*pattern) : nullptr;
  auto filter = [len_ok, re](const Gen& g) {
    return such_that(g, [len_ok, re](const json& j) {
      // A subject longer than kMaxPatternSubject is never matched (std::regex recurses per
      // character): it is not sent as a value of a patterned string.
      const auto& text = j.get_ref<const std::string&>();
      return len_ok(j) && (re == nullptr || (text.size() <= profile::kMaxPatternSubject && re->search(text)));
    });
  };

  if (std::optional<Gen> f = format_gen(format)) return {filter(*f), true};
  if (pattern) {
    if (auto bad = profile::pattern_problem(*pattern)) return {fail_gen(*bad), true};  // noted by ctx_->regex
    std::string why;
    if (auto pg = pattern_gen(*pattern, why)) {
      return {filter(rc::gen::map(*pg, [](const std::string& x) { return json(x); })), true};
    }
    opt_.problems.add("pattern outside the generator's subset (" + why + "), values filtered: " + *pattern);
    return {filter(chars_gen(min_len, std::min(max_len, min_len + 16), false)), true};
  }
  std::size_t short_hi = std::min(max_len, min_len + 24);
  std::vector<std::pair<std::size_t, Gen>> opts{{10, chars_gen(min_len, short_hi, opt_.edge_bias)}};
  if (opt_.edge_bias) {
    if (min_len == 0) opts.emplace_back(2, rc::gen::just(json("")));
    opts.emplace_back(2, chars_gen(min_len, std::min(min_len + 1, max_len), true));  // at the lower bound
    if (max_len <= kMaxGenLength) opts.emplace_back(2, chars_gen(max_len, max_len, false));  // at the upper bound
    std::size_t long_lo = std::clamp(opt_.long_string_min, min_len, max_len);
    std::size_t long_hi = std::clamp(opt_.long_string_max, min_len, max_len);
    if (long_hi > short_hi) opts.emplace_back(1, chars_gen(long_lo, long_hi, true));
  }
  return {weighted(std::move(opts)), true};
}

Gen Builder::digits(int lo, int hi, int width) {
  return rc::gen::map(any_in(lo, hi, lo), [width](int v) {
    std::string s = std::to_string(v);
    if (static_cast<int>(s.size()) < width) s.insert(0, static_cast<std::size_t>(width) - s.size(), '0');
    return json(s);
  });
}

Gen Builder::cat(const std::vector<Gen>& parts) {
  Gen acc = rc::gen::just(json(""));
  for (const auto& p : parts) {
    acc = rc::gen::map(rc::gen::tuple(acc, p), [](const std::tuple<json, json>& t) {
      return json(std::get<0>(t).get<std::string>() + std::get<1>(t).get<std::string>());
    });
  }
  return acc;
}

Gen Builder::lit(const std::string& s) { return rc::gen::just(json(s)); }

Gen Builder::word(std::size_t lo, std::size_t hi) {
  auto ch = weighted_pick<std::uint32_t>({{5, any_in<std::uint32_t>('a', 'z', 'a')}, {1, any_in<std::uint32_t>('0', '9', '0')}});
  return rc::gen::map(rc::gen::resize(rc::kNominalSize, bounded_vector<std::uint32_t>(lo, hi - lo, ch)),
                      [](const std::vector<std::uint32_t>& v) { return json(utf8(v)); });
}

Gen Builder::hex(std::size_t n) {
  return rc::gen::map(rc::gen::container<std::vector<int>>(n, any_in(0, 15, 0)), [](const std::vector<int>& v) {
    std::string s;
    for (int d : v) s += "0123456789abcdef"[d];
    return json(s);
  });
}

std::optional<Gen> Builder::format_gen(const std::string& f) {
  Gen date = cat({digits(1970, 2099, 4), lit("-"), digits(1, 12, 2), lit("-"), digits(1, 28, 2)});
  Gen time = cat({digits(0, 23, 2), lit(":"), digits(0, 59, 2), lit(":"), digits(0, 59, 2),
                  one_of({lit(""), cat({lit("."), digits(0, 999, 3)})}), one_of({lit("Z"), lit("+05:30"), lit("-08:00")})});
  if (f == "date-time") {
    return one_of({cat({date, lit("T"), time}), rc::gen::element(json("1970-01-01T00:00:00Z"), json("2024-02-29T23:59:59.999+14:00"))});
  }
  if (f == "date") return one_of({date, lit("2024-02-29")});
  if (f == "time") return time;
  if (f == "email" || f == "idn-email") return cat({word(1, 12), lit("@"), rc::gen::element(json("example.invalid"), json("mail.example.invalid"))});
  if (f == "uuid") return cat({hex(8), lit("-"), hex(4), lit("-4"), hex(3), lit("-a"), hex(3), lit("-"), hex(12)});
  // Never a real host (a tool may connect to, fetch from or mail what it is given): loopback
  // addresses, the closed port 9 on 127.0.0.1, the reserved .invalid domain, IPv6's documentation prefix.
  if (f == "ipv4") return cat({lit("127."), digits(0, 255, 1), lit("."), digits(0, 255, 1), lit("."), digits(1, 254, 1)});
  if (f == "ipv6") return one_of({lit("::1"), cat({lit("2001:db8::"), hex(4)})});
  if (f == "hostname" || f == "idn-hostname") return cat({word(1, 12), lit(".invalid")});
  if (f == "uri" || f == "iri" || f == "uri-reference" || f == "iri-reference" || f == "url") {
    return one_of({cat({lit("https://127.0.0.1:9/"), word(0, 12)}), cat({lit("file:///tmp/"), word(1, 12)}),
                   lit("urn:ctxo:example"), cat({lit("http://127.0.0.1:9/"), word(0, 8), lit("?q="), word(0, 6)})});
  }
  return std::nullopt;
}

}  // namespace ctxo::gen::detail
