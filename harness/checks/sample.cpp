// SPDX-License-Identifier: MIT
#include "checks/sample.h"

#include <string>

#include "core/json_bounded.h"

namespace ctxo::checks {

namespace {

using nlohmann::json;

/// Roughly what `v` takes as JSON text, counted until it passes `limit` (a walk of a huge value
/// stops early). Strings count their bytes, every other value a few.
std::size_t size_over(const json& v, std::size_t limit, std::size_t acc = 0) {
  if (acc > limit) return acc;
  if (v.is_string()) return acc + v.get_ref<const std::string&>().size() + 2;
  if (v.is_object()) {
    acc += 2;
    for (auto it = v.begin(); it != v.end() && acc <= limit; ++it) acc = size_over(it.value(), limit, acc + it.key().size() + 4);
    return acc;
  }
  if (v.is_array()) {
    acc += 2;
    for (auto it = v.begin(); it != v.end() && acc <= limit; ++it) acc = size_over(*it, limit, acc + 1);
    return acc;
  }
  return acc + 4;
}

/// A copy of `v` with each array cut to its first kSampleItems items (objects kept whole), and no array item past
/// kSampleValues values (`values` counts them), as parse_sampled() reads a text. Long strings are
/// copied whole: a text part is sampled on its own (sample_text).
json capped(const json& v, std::size_t& values, bool* cut) {
  ++values;
  if (v.is_array()) {
    json out = json::array();
    for (const auto& e : v) {
      if (out.size() == kSampleItems || values >= kSampleValues) {
        *cut = true;
        break;
      }
      out.push_back(capped(e, values, cut));
    }
    return out;
  }
  if (v.is_object()) {
    json out = json::object();
    for (auto it = v.begin(); it != v.end(); ++it) {
      // structuredContent is held to the tool's outputSchema, which may require any member: an
      // object is kept whole here (a text part's JSON keeps its first members: sample_text).
      out[it.key()] = capped(it.value(), values, cut);
    }
    return out;
  }
  return v;
}

/// A text part's sample: JSON keeps the first items of each array and members of each object
/// (written back as JSON); any
/// other text its first kSampleAboveBytes bytes, cut after a line (or before a UTF-8 sequence).
std::string sample_text(const std::string& text, bool* cut) {
  bool items_cut = false;
  json j = parse_sampled(text, kSampleItems, kSampleValues, &items_cut);
  if (!j.is_discarded()) {
    if (!items_cut) return text;  // one JSON value with no long array: read as it is
    *cut = true;
    return j.dump();
  }
  *cut = true;
  std::size_t end = text.rfind('\n', kSampleAboveBytes);
  if (end == std::string::npos || end < kSampleAboveBytes / 2) {
    end = kSampleAboveBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  }
  return text.substr(0, end);
}

}  // namespace

std::optional<mcp::Reply> sample_reply(const mcp::Reply& r) {
  if (r.sampled || r.kind != mcp::Reply::Kind::kResult || !r.result.is_object()) return std::nullopt;
  if (size_over(r.result, kSampleAboveBytes) <= kSampleAboveBytes) return std::nullopt;
  mcp::Reply s;
  s.kind = r.kind;
  s.request = r.request;
  s.stray_seen = r.stray_seen;
  s.oversize = r.oversize;
  s.late = r.late;
  s.progressed = r.progressed;
  s.elapsed = r.elapsed;
  s.transport_failure = r.transport_failure;
  // Enough of the line for any excerpt (core/text.h excerpt() keeps 400 bytes at most).
  s.raw = r.raw.substr(0, 4096);
  bool cut = false;
  std::size_t values = 0;
  s.result = capped(r.result, values, &cut);
  if (s.result.contains("content") && s.result["content"].is_array())
    for (auto& part : s.result["content"])
      if (part.is_object() && part.contains("text") && part["text"].is_string() &&
          part["text"].get_ref<const std::string&>().size() > kSampleAboveBytes)
        part["text"] = sample_text(part["text"].get_ref<const std::string&>(), &cut);
  if (!cut) return std::nullopt;  // large, but nothing to cut (one long string in JSON): read whole
  s.sampled = true;
  return s;
}

std::string sampled_note(const std::string& tool) {
  return "tool '" + tool + "': answers over " + std::to_string(kSampleAboveBytes >> 20) +
         " MiB were checked on a sample (the first " + std::to_string(kSampleItems) +
         " items of each array and members of each object in a text's JSON, the first MiB of a text that is not JSON); "
         "counts and sizes were not checked on them";
}

}  // namespace ctxo::checks
