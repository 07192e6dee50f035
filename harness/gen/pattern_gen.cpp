// SPDX-License-Identifier: MIT
// Regex subset -> RapidCheck string generator: a small recursive-descent parser builds the
// generator directly (alternatives shrink to the first, repeats to their minimum).
#include "gen/pattern_gen.h"

#include "gen/rc_util.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ctxo::gen {

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

namespace {

using StrGen = rc::Gen<std::string>;
using Ranges = std::vector<std::pair<char32_t, char32_t>>;  // inclusive

struct Unsupported {
  std::string why;
};

// Printable ASCII (space to tilde) is the universe for negated classes and `.`.
constexpr char32_t kLow = 0x20;
constexpr char32_t kHigh = 0x7E;

Ranges complement(Ranges in) {
  std::sort(in.begin(), in.end());
  Ranges out;
  char32_t next = kLow;
  for (const auto& [lo, hi] : in) {
    if (hi < next) continue;
    if (lo > next) out.emplace_back(next, std::min<char32_t>(lo - 1, kHigh));
    if (hi >= kHigh) return out;
    next = std::max<char32_t>(next, hi + 1);
  }
  if (next <= kHigh) out.emplace_back(next, kHigh);
  return out;
}

StrGen class_gen(const Ranges& ranges) {
  if (ranges.empty()) throw Unsupported{"a character class that matches nothing"};
  if (ranges.size() == 1 && ranges[0].first == ranges[0].second) {
    std::string s;
    append_utf8(s, ranges[0].first);
    return rc::gen::just(s);
  }
  return rc::gen::mapcat(any_in<std::size_t>(0, ranges.size() - 1, 0), [ranges](std::size_t i) {
    return rc::gen::map(any_in<std::uint32_t>(ranges[i].first, ranges[i].second, ranges[i].first), [](std::uint32_t cp) {
      std::string s;
      append_utf8(s, static_cast<char32_t>(cp));
      return s;
    });
  });
}

StrGen concat(const std::vector<StrGen>& parts) {
  if (parts.empty()) return rc::gen::just(std::string());
  StrGen acc = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) {
    acc = rc::gen::map(rc::gen::tuple(acc, parts[i]),
                       [](const std::tuple<std::string, std::string>& t) { return std::get<0>(t) + std::get<1>(t); });
  }
  return acc;
}

class Parser {
 public:
  Parser(const std::string& p, int spread) : p_(p), spread_(spread) {}

  StrGen parse() {
    StrGen g = alternation();
    if (i_ != p_.size()) throw Unsupported{"unbalanced ')'"};
    return g;
  }

 private:
  bool at_end() const { return i_ >= p_.size(); }
  char peek() const { return p_[i_]; }

  StrGen alternation() {
    std::vector<StrGen> alts{sequence()};
    while (!at_end() && peek() == '|') {
      ++i_;
      alts.push_back(sequence());
    }
    if (alts.size() == 1) return alts[0];
    return rc::gen::mapcat(any_in<std::size_t>(0, alts.size() - 1, 0), [alts](std::size_t k) { return alts[k]; });
  }

  StrGen sequence() {
    std::vector<StrGen> parts;
    bool start = true;
    while (!at_end() && peek() != '|' && peek() != ')') {
      if (peek() == '^') {
        if (!start) throw Unsupported{"'^' in the middle of a pattern"};
        ++i_;
        continue;
      }
      if (peek() == '$') {
        ++i_;
        if (!at_end() && peek() != '|' && peek() != ')') throw Unsupported{"'$' in the middle of a pattern"};
        continue;
      }
      start = false;
      StrGen atom_gen = atom();
      parts.push_back(quantified(std::move(atom_gen)));
    }
    return concat(parts);
  }

  StrGen quantified(StrGen g) {
    if (at_end()) return g;
    std::size_t lo = 1;
    std::size_t hi = 1;
    char c = peek();
    if (c == '?') {
      lo = 0;
    } else if (c == '*') {
      lo = 0;
      hi = static_cast<std::size_t>(spread_);
    } else if (c == '+') {
      hi = 1 + static_cast<std::size_t>(spread_);
    } else if (c == '{') {
      std::size_t close = p_.find('}', i_);
      if (close == std::string::npos) throw Unsupported{"unclosed '{'"};
      std::string body = p_.substr(i_ + 1, close - i_ - 1);
      std::size_t comma = body.find(',');
      try {
        lo = std::stoul(body.substr(0, comma));
        if (comma == std::string::npos) {
          hi = lo;
        } else if (comma + 1 == body.size()) {
          hi = lo + static_cast<std::size_t>(spread_);
        } else {
          hi = std::stoul(body.substr(comma + 1));
        }
      } catch (...) {
        throw Unsupported{"a malformed {m,n} quantifier"};
      }
      if (hi < lo || hi > 4096) throw Unsupported{"a {m,n} quantifier out of range"};
      i_ = close;
    } else {
      return g;
    }
    ++i_;
    if (!at_end() && (peek() == '?' || peek() == '+')) ++i_;  // lazy / possessive: same language
    return rc::gen::map(bounded_vector<std::string>(lo, hi - lo, g), [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& x : v) s += x;
      return s;
    });
  }

  StrGen atom() {
    char c = p_[i_++];
    switch (c) {
      case '(': {
        if (!at_end() && peek() == '?') {
          if (i_ + 1 < p_.size() && p_[i_ + 1] == ':') {
            i_ += 2;
          } else if (i_ + 1 < p_.size() && p_[i_ + 1] == '<' && i_ + 2 < p_.size() && p_[i_ + 2] != '=' &&
                     p_[i_ + 2] != '!') {
            std::size_t close = p_.find('>', i_);
            if (close == std::string::npos) throw Unsupported{"unclosed group name"};
            i_ = close + 1;
          } else {
            throw Unsupported{"lookaround or an inline flag"};
          }
        }
        StrGen g = alternation();
        if (at_end() || peek() != ')') throw Unsupported{"unclosed '('"};
        ++i_;
        return g;
      }
      case '[':
        return class_gen(bracket());
      case '.':
        return class_gen({{kLow, kHigh}});
      case '\\':
        return escape_gen();
      case '*':
      case '+':
      case '?':
      case '{':
        throw Unsupported{"a quantifier with nothing to repeat"};
      default: {
        --i_;
        char32_t cp = read_cp();
        return class_gen({{cp, cp}});
      }
    }
  }

  // Reads one UTF-8 code point at i_.
  char32_t read_cp() {
    auto b = static_cast<unsigned char>(p_[i_++]);
    if (b < 0x80) return b;
    int extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : 1;
    char32_t cp = b & (0x3F >> extra);
    for (int k = 0; k < extra && !at_end(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(p_[i_++]) & 0x3F);
    return cp;
  }

  StrGen escape_gen() {
    if (at_end()) throw Unsupported{"a trailing backslash"};
    Ranges r;
    if (class_escape(r)) return class_gen(r);
    throw Unsupported{"an escape outside the subset"};
  }

  // Parses the escape after a backslash into ranges; false when it is not supported.
  bool class_escape(Ranges& out) {
    char c = p_[i_++];
    static const Ranges digit{{'0', '9'}};
    static const Ranges word{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
    static const Ranges space{{' ', ' '}, {'\t', '\t'}};
    switch (c) {
      case 'd': out.insert(out.end(), digit.begin(), digit.end()); return true;
      case 'w': out.insert(out.end(), word.begin(), word.end()); return true;
      case 's': out.insert(out.end(), space.begin(), space.end()); return true;
      case 'D': { auto x = complement(digit); out.insert(out.end(), x.begin(), x.end()); return true; }
      case 'W': { auto x = complement(word); out.insert(out.end(), x.begin(), x.end()); return true; }
      case 'S': { auto x = complement({{' ', ' '}}); out.insert(out.end(), x.begin(), x.end()); return true; }
      case 'n': out.emplace_back('\n', '\n'); return true;
      case 't': out.emplace_back('\t', '\t'); return true;
      case 'r': out.emplace_back('\r', '\r'); return true;
      case 'f': out.emplace_back('\f', '\f'); return true;
      case 'v': out.emplace_back('\v', '\v'); return true;
      case 'u':
      case 'x': {
        std::size_t n = c == 'u' ? 4 : 2;
        if (i_ + n > p_.size()) return false;
        try {
          auto cp = static_cast<char32_t>(std::stoul(p_.substr(i_, n), nullptr, 16));
          i_ += n;
          out.emplace_back(cp, cp);
          return true;
        } catch (...) {
          return false;
        }
      }
      default:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return false;  // \b \p \1 ...
        --i_;
        {
          char32_t cp = read_cp();
          out.emplace_back(cp, cp);
        }
        return true;
    }
  }

  Ranges bracket() {
    bool negate = false;
    if (!at_end() && peek() == '^') {
      negate = true;
      ++i_;
    }
    Ranges r;
    bool first = true;
    while (true) {
      if (at_end()) throw Unsupported{"unclosed '['"};
      if (peek() == ']' && !first) {
        ++i_;
        break;
      }
      first = false;
      char32_t lo = 0;
      if (peek() == '\\') {
        ++i_;
        Ranges esc;
        if (!class_escape(esc)) throw Unsupported{"an escape in a class outside the subset"};
        if (esc.size() != 1 || esc[0].first != esc[0].second) {
          r.insert(r.end(), esc.begin(), esc.end());
          continue;
        }
        lo = esc[0].first;
      } else if (peek() == '[' && i_ + 1 < p_.size() && p_[i_ + 1] == ':') {
        throw Unsupported{"POSIX classes"};
      } else {
        lo = read_cp();
      }
      char32_t hi = lo;
      if (!at_end() && peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        ++i_;
        if (peek() == '\\') {
          ++i_;
          Ranges esc;
          if (!class_escape(esc) || esc.size() != 1 || esc[0].first != esc[0].second)
            throw Unsupported{"a class range ending in a class"};
          hi = esc[0].first;
        } else {
          hi = read_cp();
        }
        if (hi < lo) throw Unsupported{"a reversed class range"};
      }
      r.emplace_back(lo, hi);
    }
    return negate ? complement(r) : r;
  }

  const std::string& p_;
  int spread_;
  std::size_t i_ = 0;
};

}  // namespace

std::optional<rc::Gen<std::string>> pattern_gen(const std::string& pattern, std::string& why, int spread) {
  try {
    Parser parser(pattern, spread);
    return parser.parse();
  } catch (const Unsupported& u) {
    why = u.why;
    return std::nullopt;
  }
}

}  // namespace ctxo::gen
