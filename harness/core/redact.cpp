// SPDX-License-Identifier: MIT
#include "core/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <limits>
#include <optional>

#include "core/display.h"
#include "core/text.h"

namespace ctxo::core {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The forms a secret takes in our outputs and in server text besides itself.

// Inside a JSON string: nlohmann's dump of the string without its quotes (`\"`, `\\`, `\n`,
// `\u001f`), with non-ASCII as is or as `\uXXXX` escapes (lowercase hex, as JSON.stringify,
// Python's json.dumps and nlohmann write them; surrogate pairs for astral characters).
std::string json_form(std::string_view s, bool ascii) {
  const std::string d = nlohmann::json(std::string(s)).dump(-1, ' ', ascii, nlohmann::json::error_handler_t::replace);
  return d.size() >= 2 ? d.substr(1, d.size() - 2) : d;
}

// Inside a single-quoted shell word (replay lines: env K='v', curl -H '...').
std::string shell_form(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out;
}

// Percent-encoded (RFC 3986: unreserved characters kept), as a URL or a form would carry it.
std::string percent_form(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// Standard or URL-safe base64, padding optional; nullopt when `s` is not base64.
std::optional<std::string> base64_decode(std::string_view s) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  if (s.empty() || s.size() % 4 == 1) return std::nullopt;
  std::string out;
  unsigned acc = 0;
  int bits = 0;
  for (char c : s) {
    const int v = value(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

// A query key as part of an environment variable's name: upper case, other characters '_'.
std::string variable_part(std::string_view key) {
  std::string out = upper(percent_decode(key, true));
  for (auto& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return out.empty() ? std::string("QUERY") : out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Every start offset of `n` in `text` (overlapping ones too): KMP, linear in the text.
template <typename F>
void find_all(std::string_view text, const std::string& n, const std::vector<std::size_t>& fail, F&& found) {
  const std::size_t m = n.size();
  if (m == 0 || text.size() < m) return;
  std::size_t k = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    while (k > 0 && text[i] != n[k]) k = fail[k - 1];
    if (text[i] == n[k]) ++k;
    if (k == m) {
      found(i + 1 - m);
      k = fail[k - 1];
    }
  }
}

constexpr int kMaxPasses = 16;    // each pass shortens the text; past this the whole text is the marker
constexpr int kMaxJsonDepth = 512;  // deeper values are scrubbed as their dumped text

}  // namespace

bool secret_env_name(std::string_view name) {
  const std::string u = upper(name);
  for (const char* word : {"TOKEN", "KEY", "SECRET", "PASS", "AUTH", "CREDENTIAL", "COOKIE"})
    if (u.find(word) != std::string::npos) return true;
  return false;
}

bool can_be_secret(std::string_view value) {
  if (value.size() < kMinSecretBytes) return false;
  std::string_view digits = value;
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  if (!digits.empty() && digits.size() < 8 &&
      std::all_of(digits.begin(), digits.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }))
    return false;
  const std::string u = upper(value);
  for (const char* word : {"TRUE", "FALSE", "NULL", "NONE", "AUTO", "YES", "ENABLED", "DISABLED"})
    if (u == word) return false;
  return true;
}

std::string percent_decode(std::string_view s, bool plus) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += plus && s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

std::vector<UrlSecret> url_secrets(std::string_view url) {
  using Kind = UrlSecret::Kind;
  std::vector<UrlSecret> out;
  auto push = [&](Kind kind, const std::string& base, std::size_t begin, std::size_t end) {
    if (begin >= end) return;
    std::string name = base;
    auto taken = [&] { return std::any_of(out.begin(), out.end(), [&](const UrlSecret& u) { return u.variable == name; }); };
    for (int n = 2; taken(); ++n) name = base + "_" + std::to_string(n);
    out.push_back({kind, name, begin, end});
  };
  const auto scheme = url.find("://");
  const std::size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  const std::size_t authority_end = std::min(url.find_first_of("/?#", start), url.size());
  // The userinfo ends at the authority's last '@' (a password may hold an unencoded '@').
  const std::string_view authority = url.substr(start, authority_end - start);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    const auto colon = authority.substr(0, at).find(':');
    push(Kind::kUser, "CTXO_URL_USER", start, start + std::min(colon, at));
    if (colon != std::string_view::npos) push(Kind::kPassword, "CTXO_URL_PASSWORD", start + colon + 1, start + at);
  }
  const std::size_t mark = url.find_first_of("?#", authority_end);
  if (mark == std::string_view::npos || url[mark] != '?') return out;
  const std::size_t query_end = std::min(url.find('#', mark), url.size());
  for (std::size_t p = mark + 1; p <= query_end;) {
    const std::size_t param_end = std::min(url.find('&', p), query_end);
    const std::string_view param = url.substr(p, param_end - p);
    const auto eq = param.find('=');
    if (eq == std::string_view::npos) push(Kind::kQuery, "CTXO_URL_QUERY", p, param_end);
    else push(Kind::kQuery, "CTXO_URL_" + variable_part(param.substr(0, eq)), p + eq + 1, param_end);
    p = param_end + 1;
  }
  return out;
}

Redactor Redactor::for_run(const std::vector<std::pair<std::string, std::string>>& headers,
                           const std::map<std::string, std::string>& env, std::string_view url) {
  Redactor r;
  for (const auto& [name, value] : headers) r.add_header_value(value);
  for (const auto& [name, value] : env) r.add_env(name, value);
  if (!url.empty()) r.add_url(url);
  return r;
}

bool Redactor::add(std::string_view secret) {
  if (!can_be_secret(secret)) return false;
  if (std::find(secrets_.begin(), secrets_.end(), secret) != secrets_.end()) return true;
  secrets_.emplace_back(secret);
  std::stable_sort(secrets_.begin(), secrets_.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  add_needle(std::string(secret));
  add_needle(json_form(secret, false));
  add_needle(json_form(secret, true));
  add_needle(shell_form(secret));
  add_needle(display_text(secret, false));  // as consoles and reports show it
  add_needle(excerpt(secret, std::numeric_limits<std::size_t>::max()));
  add_needle(percent_form(secret));
  choose_marker();
  return true;
}

void Redactor::add_header_value(std::string_view value) {
  value = trim(value);
  add(value);
  // "<scheme> <credential>": the scheme is one token of letters, digits and '-' (Bearer, Basic,
  // Token, Digest, ApiKey, ...).
  const auto space = value.find_first_of(" \t");
  if (space == std::string_view::npos || space == 0) return;
  const std::string_view scheme = value.substr(0, space);
  if (!std::all_of(scheme.begin(), scheme.end(),
                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }))
    return;
  const std::string_view credential = trim(value.substr(space));
  add(credential);
  if (upper(scheme) == "BASIC") {
    if (auto decoded = base64_decode(credential)) {
      add(*decoded);
      if (auto colon = decoded->find(':'); colon != std::string::npos) add(std::string_view(*decoded).substr(colon + 1));
    }
  }
}

void Redactor::add_env(std::string_view name, std::string_view value) {
  if (secret_env_name(name)) add(value);
}

void Redactor::add_url(std::string_view url) {
  using Kind = UrlSecret::Kind;
  bool any = false;
  bool userinfo = false;
  std::string user, password;
  for (const auto& part : url_secrets(url)) {
    const std::string_view raw = url.substr(part.begin, part.end - part.begin);
    const std::string decoded = percent_decode(raw, part.kind == Kind::kQuery);
    // Both forms: the URL as given shows the one, a server that decodes it echoes the other.
    const bool as_given = add(raw);
    const bool added = add(decoded) || as_given;
    any = any || added;
    userinfo = userinfo || (added && part.kind != Kind::kQuery);
    if (part.kind == Kind::kUser) user = decoded;
    if (part.kind == Kind::kPassword) password = decoded;
  }
  // An HTTP client sends the userinfo as "Authorization: Basic base64(user:password)".
  if (userinfo) add(base64_encode(user + ":" + password));
  if (any && std::find(urls_.begin(), urls_.end(), url) == urls_.end()) urls_.emplace_back(url);
}

void Redactor::add_needle(std::string text) {
  if (text.size() < kMinSecretBytes) return;
  for (const auto& n : needles_)
    if (n.text == text) return;
  Needle n;
  n.fail.assign(text.size(), 0);
  for (std::size_t i = 1, k = 0; i < text.size(); ++i) {
    while (k > 0 && text[i] != text[k]) k = n.fail[k - 1];
    if (text[i] == text[k]) ++k;
    n.fail[i] = k;
  }
  numeric_needle_ = numeric_needle_ || std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
  });
  n.text = std::move(text);
  needles_.push_back(std::move(n));
}

void Redactor::choose_marker() {
  auto clean = [&](std::string_view m) {
    for (const auto& n : needles_)
      if (m.find(n.text) != std::string_view::npos) return false;
    return true;
  };
  for (std::string_view m : {kRedacted, std::string_view("<REDACTED>"), std::string_view("[redacted]"),
                             std::string_view("<secret>"), std::string_view("********")}) {
    if (clean(m)) {
      marker_ = std::string(m);
      return;
    }
  }
  // A run of a character no secret holds cannot overlap any secret.
  std::array<bool, 256> used{};
  for (const auto& n : needles_)
    for (char c : n.text) used[static_cast<unsigned char>(c)] = true;
  for (char c : std::string_view("*#~^=_-+.xXzZ")) {
    if (!used[static_cast<unsigned char>(c)]) {
      marker_ = std::string(8, c);
      return;
    }
  }
  for (int c = 1; c < 256; ++c)
    if (!used[static_cast<std::size_t>(c)]) {
      marker_ = std::string(8, static_cast<char>(c));
      return;
    }
  marker_.clear();  // every byte is in some secret: occurrences are deleted (still a fixpoint: each pass shortens)
}

bool Redactor::contains(std::string_view text) const {
  for (const auto& n : needles_) {
    if (text.size() < n.text.size()) continue;
    // Short needles: the library's search (at most 64 comparisons per byte); longer ones: KMP.
    if (n.text.size() <= 64) {
      if (text.find(n.text) != std::string_view::npos) return true;
      continue;
    }
    bool hit = false;
    find_all(text, n.text, n.fail, [&](std::size_t) { hit = true; });
    if (hit) return true;
  }
  return false;
}

bool Redactor::scrub_pass(std::string_view text, std::string& out) const {
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // [begin, end)
  for (const auto& n : needles_)
    find_all(text, n.text, n.fail, [&](std::size_t at) { spans.emplace_back(at, at + n.text.size()); });
  if (spans.empty()) return false;
  std::sort(spans.begin(), spans.end());
  out.clear();
  out.reserve(text.size());
  std::size_t copied = 0;
  for (std::size_t i = 0; i < spans.size();) {
    const std::size_t begin = spans[i].first;
    std::size_t end = spans[i].second;
    // Overlapping or touching occurrences are one run, one marker.
    for (++i; i < spans.size() && spans[i].first <= end; ++i) end = std::max(end, spans[i].second);
    out.append(text.substr(copied, begin - copied));
    out += marker_;
    copied = end;
  }
  out.append(text.substr(copied));
  return true;
}

std::string Redactor::scrub(std::string_view text) const {
  std::string s(text);
  scrub_in_place(s);
  return s;
}

bool Redactor::scrub_in_place(std::string& text) const {
  if (needles_.empty()) return false;
  std::string out;
  bool changed = false;
  // A pass can join text on either side of a marker into a new occurrence only when a secret
  // overlaps the marker or holds it; then the next pass replaces it. Every occurrence after the
  // first pass overlaps a marker (text between markers was searched whole), and a run holding a
  // marker and at least one other byte becomes one marker: each pass shortens the text.
  if (!contains(text)) return false;  // the common case, by the library's (vectorised) search
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    if (!scrub_pass(text, out)) return changed;
    text.swap(out);
    changed = true;
  }
  if (contains(text)) text = marker_;  // not reached by any input seen; a bound, not a policy
  return true;
}

bool Redactor::scrub_json(nlohmann::json& value) const {
  if (needles_.empty()) return false;
  return scrub_json_at(value, 0);
}

bool Redactor::scrub_json_at(nlohmann::json& value, int depth) const {
  using nlohmann::json;
  if (depth > kMaxJsonDepth) {
    const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (!contains(text)) return false;
    value = scrub(text);
    return true;
  }
  switch (value.type()) {
    case json::value_t::string:
      return scrub_in_place(value.get_ref<std::string&>());
    case json::value_t::array: {
      bool changed = false;
      for (auto& v : value) changed = scrub_json_at(v, depth + 1) || changed;
      return changed;
    }
    case json::value_t::object: {
      bool changed = false;
      bool keys = false;
      for (auto it = value.begin(); it != value.end(); ++it) {
        changed = scrub_json_at(it.value(), depth + 1) || changed;
        keys = keys || contains(it.key());
      }
      if (!keys) return changed;
      json rebuilt = json::object();
      for (auto it = value.begin(); it != value.end(); ++it) {
        std::string key = scrub(it.key());
        if (rebuilt.contains(key)) {
          const std::string base = key;
          for (int n = 2; rebuilt.contains(key); ++n) key = base + " (" + std::to_string(n) + ")";
        }
        rebuilt[key] = std::move(it.value());
      }
      value = std::move(rebuilt);
      return true;
    }
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      if (!numeric_needle_) return false;  // no secret can be in a number's text
      [[fallthrough]];
    case json::value_t::boolean:
    case json::value_t::null: {
      const std::string text = value.dump();
      if (!contains(text)) return false;
      value = scrub(text);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace ctxo::core
