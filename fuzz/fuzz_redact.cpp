// SPDX-License-Identifier: MIT
// Fuzz target for core::Redactor (secrets never leave): two secrets and a text from the input;
// the first secret is planted at every byte position of the text (alone, as a header's "Bearer"
// credential, and split around a "<redacted>" marker), and no secret, in any form the redactor
// matches, survives scrubbing, whatever the bytes around it (overlaps, one secret inside the
// other, inside or across the marker). The same texts as JSON (object key, string value, array
// element, and the rest of the input parsed as JSON with the secret put in each string): after
// scrub_json no string holds a secret, and the dump (plain and ASCII-escaped) holds none when
// neither the secret nor the texts hold JSON's own escape characters. Text without a secret is
// never changed.
//
// Input: byte 0 = length of secret 1 (4..19), byte 1 = length of secret 2 (0..19; < 4 = none),
// then secret 1, secret 2, and the text (at most 192 bytes are used).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_bounded.h"
#include "core/redact.h"
#include "core/text.h"

namespace {

using ctxo::core::Redactor;
using nlohmann::json;

void check(bool ok, const char* what, std::string_view detail = {}) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_redact: invariant broken: %s\n", what);
    if (!detail.empty()) std::fprintf(stderr, "  %.*s\n", static_cast<int>(detail.size()), detail.data());
    std::abort();
  }
}

// No secret the redactor holds occurs in `out` (nor any escaped form of one).
void none_left(const Redactor& r, const std::string& out, const char* what) {
  check(!r.contains(out), what, out);
  for (const auto& s : r.secrets()) check(out.find(s) == std::string::npos, what, out);
}

// JSON's own escape characters: a secret or a text holding them can appear in a dump across the
// escapes (`\n` then "abc" reads as "nabc"); those are left to the text pass the outputs make.
bool plain_for_json(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || c == '"' || c == '\\' || u >= 0x80) return false;
  }
  return true;
}

void check_json(const Redactor& r, json doc, bool dumps) {
  r.scrub_json(doc);
  // Every string, keys too, is free of secrets.
  std::vector<const json*> stack{&doc};
  while (!stack.empty()) {
    const json* v = stack.back();
    stack.pop_back();
    if (v->is_string()) none_left(r, v->get<std::string>(), "a JSON string kept a secret");
    if (v->is_object())
      for (auto it = v->begin(); it != v->end(); ++it) {
        none_left(r, it.key(), "a JSON key kept a secret");
        stack.push_back(&it.value());
      }
    if (v->is_array())
      for (const auto& e : *v) stack.push_back(&e);
  }
  if (!dumps) return;
  for (bool ascii : {false, true}) {
    const std::string d = doc.dump(-1, ' ', ascii, json::error_handler_t::replace);
    for (const auto& s : r.secrets())
      if (plain_for_json(s) && s.find_first_of("{}[]:,") == std::string::npos)
        check(d.find(s) == std::string::npos, "a JSON dump kept a secret", d);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::size_t l1 = 4 + data[0] % 16, l2 = data[1] % 20;
  std::size_t pos = 2;
  auto take = [&](std::size_t n) {
    n = std::min(n, size - pos);
    std::string s(reinterpret_cast<const char*>(data + pos), n);
    pos += n;
    return s;
  };
  const std::string s1 = take(l1), s2 = take(l2);
  const std::string text = take(192);

  Redactor r;
  const bool has1 = r.add(s1);
  r.add(s2);
  Redactor bearer;
  bearer.add_header_value("Bearer " + s1);
  if (r.empty()) return 0;
  check(r.marker().empty() || !r.contains(r.marker()), "the marker holds a secret", r.marker());

  // Text without a secret is never changed; scrubbing is idempotent.
  if (!r.contains(text)) check(r.scrub(text) == text, "a text without a secret changed", text);
  const std::string once = r.scrub(text);
  check(r.scrub(once) == once, "scrubbing twice changed the text", once);
  none_left(r, once, "the text kept a secret");

  const bool json_plain = plain_for_json(text);
  json parsed = ctxo::parse_bounded(text);
  for (std::size_t p = 0; p <= text.size(); ++p) {
    if (!has1) break;
    std::string planted = text;
    planted.insert(p, s1);
    none_left(r, r.scrub(planted), "a planted secret survived");
    std::string header = text;
    header.insert(p, "invalid token: Bearer " + s1);
    none_left(bearer, bearer.scrub(header), "a planted header value survived");
    std::string split = text;
    split.insert(p, s1.substr(0, s1.size() / 2) + "<redacted>" + s1.substr(s1.size() / 2));
    none_left(r, r.scrub(split), "a secret split around a marker left one behind");
    // As JSON (valid UTF-8 only: the dump replaces invalid bytes, which can form a secret that
    // holds U+FFFD; the outputs' text pass covers that).
    const std::string u = ctxo::sanitize_utf8(planted);
    json doc = {{u, u}, {"a", json::array({u, 12345, nullptr})}};
    check_json(r, std::move(doc), json_plain && ctxo::is_valid_utf8(planted));
  }
  // The rest of the input as a JSON document, the secret appended to each of its strings.
  if (!parsed.is_discarded() && has1) {
    std::vector<json*> stack{&parsed};
    std::size_t n = 0;
    while (!stack.empty() && n < 64) {
      json* v = stack.back();
      stack.pop_back();
      if (v->is_string()) {
        auto& str = v->get_ref<std::string&>();
        str.insert(n++ % (str.size() + 1), ctxo::sanitize_utf8(s1));
      }
      if (v->is_structured())
        for (auto& e : *v) stack.push_back(&e);
    }
    check_json(r, parsed, false);
  }
  return 0;
}
