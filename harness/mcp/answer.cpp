// SPDX-License-Identifier: MIT
#include "mcp/answer.h"

#include <cstdio>

#include "core/json_bounded.h"
#include "core/text.h"

namespace ctxo::mcp {

using nlohmann::json;

namespace {

bool json_lang(const std::string& lang) { return lang.empty() || lang == "json" || lang == "jsonc" || lang == "json5"; }

}  // namespace

std::string split_character_diagnosis(const LoneSurrogate& l, const std::string& where, bool in_message) {
  char unit[8];
  std::snprintf(unit, sizeof unit, "%04x", l.unit);
  const bool high = l.unit <= 0xDBFF;
  return std::string("a cut split a character: in ") + where + " a string " + (high ? "ends with" : "starts with") +
         " the " + (high ? "high" : "low") + " surrogate \\u" + unit + " (byte " + std::to_string(l.at) + "), " +
         (high ? "the first half of a UTF-16 pair whose second half was cut off"
               : "the second half of a UTF-16 pair whose first half was left on the other side of the cut") +
         " (JavaScript's slice and substring count UTF-16 units, not characters). " +
         (in_message ? "The message now holds a lone surrogate: it is no Unicode, and strict clients reject the whole "
                       "message (the Anthropic API answers 400 \"no low surrogate in string\")"
                     : "The part's JSON now holds a lone surrogate escape: it is no Unicode, and strict JSON decoders "
                       "(serde_json, nlohmann) reject the whole text") +
         ". Cut before the pair, or after it";
}

std::vector<Fenced> fenced_blocks(std::string_view t, std::size_t from) {
  std::vector<Fenced> out;
  constexpr auto npos = std::string_view::npos;
  for (std::size_t pos = from; pos < t.size();) {
    const std::size_t f = t.find("```", pos);
    if (f == npos) break;
    const std::size_t nl = t.find('\n', f);
    if (nl == npos) break;
    // The closing fence starts a line after the opening one.
    std::size_t close = t.compare(nl + 1, 3, "```") == 0 ? nl + 1 : t.find("\n```", nl + 1);
    if (close == npos) break;
    if (close != nl + 1) ++close;  // past the "\n"
    Fenced b;
    b.open = f;
    b.end = close + 3;
    b.lang = ascii_lower(trim_space(t.substr(f + 3, nl - f - 3)));
    b.body = t.substr(nl + 1, close > nl + 1 ? close - nl - 2 : 0);
    if (json_lang(b.lang)) {
      json j = parse_bounded(b.body);
      if (!j.is_discarded() && j.is_structured()) b.value = std::move(j);
    }
    pos = b.end;
    out.push_back(std::move(b));
  }
  return out;
}

Answer::Answer(const Reply& reply) : reply_(&reply) {
  const json& r = reply.result;
  if (!r.is_object()) return;
  if (auto c = r.find("content"); c != r.end() && c->is_array()) {
    for (const auto& part : *c) {
      if (!part.is_object()) continue;
      auto type = part.find("type");
      if (type != part.end() && !(type->is_string() && *type == "text")) non_text_ = true;
      auto text = part.find("text");
      if (text == part.end() || !text->is_string()) continue;
      parts_.push_back(&text->get_ref<const std::string&>());
      typed_text_.push_back(type != part.end() && type->is_string() && *type == "text");
      text_bytes_ += (text_bytes_ ? 1 : 0) + parts_.back()->size();  // as text() joins them
    }
  }
  if (auto s = r.find("structuredContent"); s != r.end() && !s->is_null()) structured_ = &*s;
}

const std::vector<AnswerPart>& Answer::read() const {
  if (read_done_) return read_;
  read_done_ = true;
  read_.reserve(parts_.size());
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    AnswerPart p;
    p.text = parts_[i];
    p.typed_text = typed_text_[i];
    const std::string_view t = *p.text;
    // JSON with a lone surrogate escape is read with U+FFFD in its place (the same length: every
    // offset below holds for both texts), and the part says so.
    std::string repaired;
    std::string_view src = t;
    if (t.find("\\u") != std::string_view::npos) {
      const auto lone = lone_surrogate_escapes(t);
      if (!lone.empty()) {
        repaired = replace_lone_surrogate_escapes(t);
        src = repaired;
        p.lone = lone.front();
        for (const auto& l : lone)
          if (l.cut) {
            p.lone_cut = l;
            break;
          }
      }
    }
    p.whole = parse_bounded(src);
    if (p.whole.is_discarded()) {
      // JSON at the start, a footer after it.
      const std::size_t b = src.find_first_not_of(" \t\r\n");
      if (b != std::string_view::npos && (src[b] == '{' || src[b] == '[')) {
        const std::size_t e = json_value_end(src, b);
        if (e != std::string_view::npos) {
          json head = parse_bounded(src.substr(b, e - b));
          if (!head.is_discarded() && head.is_structured()) {
            p.leading = std::move(head);
            p.rest = e;
          }
        }
      }
      p.fenced = fenced_blocks(t, p.rest);
    }
    if (p.whole.is_discarded() && p.leading.is_discarded()) p.lone.reset(), p.lone_cut.reset();  // not JSON read
    read_.push_back(std::move(p));
  }
  return read_;
}

const std::string& Answer::text() const {
  if (text_done_) return text_;
  text_done_ = true;
  text_.reserve(text_bytes_);
  for (const std::string* p : parts_) {
    if (!text_.empty()) text_ += "\n";
    text_ += *p;
  }
  return text_;
}

const std::string& Answer::sections() const {
  if (sections_done_) return sections_;
  sections_done_ = true;
  for (const std::string* p : parts_) sections_ += (sections_.empty() ? "" : "\n---\n") + *p;
  return sections_;
}

const json& Answer::whole() const {
  // One part: its own reading. Several: the joined text (two halves of one object in two parts
  // are one JSON text).
  if (parts_.size() == 1) return read().front().whole;
  if (!whole_done_) {
    whole_done_ = true;
    whole_ = parse_bounded(text());
  }
  return whole_;
}

}  // namespace ctxo::mcp
