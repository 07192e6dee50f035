// SPDX-License-Identifier: MIT
// One answer, read once: the text parts of a tools/call result and the JSON inside them, built
// the first time a check asks and handed to every check (profile envelopes, the generic reading,
// positions, in-band failures, host sizes) and to the harvest.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "mcp/client.h"

namespace ctxo::mcp {

/// A fenced code block of a text part (```lang ... ```, the closing fence at a line's start).
struct Fenced {
  std::size_t open = 0;      ///< Where its opening ``` is in the part.
  std::size_t end = 0;       ///< Just past its closing ```.
  std::string lang;          ///< The info string, trimmed and lowered ("" when none).
  std::string_view body;     ///< Between the fences (into the part).
  nlohmann::json value = nlohmann::json(nlohmann::json::value_t::discarded);  ///< Its JSON object or array, if it is one (lang "", json, jsonc or json5).
};

/// One text part, read: what JSON it is or holds, and where the rest is.
struct AnswerPart {
  const std::string* text = nullptr;  ///< Into the reply's result.
  bool typed_text = false;            ///< Its content block says `"type":"text"`.
  /// The part parsed as one JSON value (any: a number too); discarded when it is not one.
  nlohmann::json whole = nlohmann::json(nlohmann::json::value_t::discarded);
  /// When `whole` is discarded: the JSON object or array the part starts with (leading blanks
  /// aside), a footer after it; discarded when none.
  nlohmann::json leading = nlohmann::json(nlohmann::json::value_t::discarded);
  std::size_t rest = 0;  ///< Where what follows `leading` starts (0 when no leading JSON).
  /// `whole` or `leading` were read with U+FFFD in place of lone surrogate escapes (the part's
  /// JSON is not Unicode as sent): the first one, and the first at a cut (Answer::split_character).
  std::optional<LoneSurrogate> lone, lone_cut;
  /// When `whole` is discarded: the fenced blocks after `rest`, in order (JSON or not).
  std::vector<Fenced> fenced;
};

/// A reply read once. Cheap to build (the part pointers); the text, the JSON documents and the
/// joined text's parse are made the first time they are asked for, then kept. Not for sharing
/// between threads (the first reading is not locked). The reply must outlive it.
class Answer {
 public:
  explicit Answer(const Reply& reply);

  const Reply& reply() const { return *reply_; }
  /// The strings of the result's content blocks that carry one under "text" (Reply::text_parts).
  const std::vector<const std::string*>& parts() const { return parts_; }
  /// Each part read for JSON (made at the first call).
  const std::vector<AnswerPart>& read() const;
  /// The parts joined by "\n".
  const std::string& text() const;
  /// text().size(), without building it.
  std::size_t text_bytes() const { return text_bytes_; }
  /// The parts as sections of one answer, joined by "\n---\n".
  const std::string& sections() const;
  /// The result's structuredContent, when it has one that is not null.
  const nlohmann::json* structured() const { return structured_; }
  /// A content block that is not text (an image, audio, a resource or a link to one).
  bool non_text_content() const { return non_text_; }
  /// text() parsed as one JSON value; discarded when it is not one.
  const nlohmann::json& whole() const;
  /// text() is exactly one JSON object.
  bool exact_object() const { return whole().is_object(); }

 private:
  const Reply* reply_;
  std::vector<const std::string*> parts_;
  std::vector<bool> typed_text_;
  std::size_t text_bytes_ = 0;
  const nlohmann::json* structured_ = nullptr;
  bool non_text_ = false;
  mutable bool read_done_ = false, text_done_ = false, sections_done_ = false, whole_done_ = false;
  mutable std::vector<AnswerPart> read_;
  mutable std::string text_, sections_;
  mutable nlohmann::json whole_;
};

/// What a lone surrogate at a cut means, for a finding (TR-VERBATIM, form cut-splits-character):
/// `where` names the text it is in ("the message", "text part 2"); `in_message`: the JSON-RPC
/// message itself holds it (else the JSON text of a part).
std::string split_character_diagnosis(const LoneSurrogate& l, const std::string& where, bool in_message);

/// The fenced code blocks of `text` from `from` on: each opened by ``` and closed by ``` at the
/// start of a later line; an unclosed one ends the list. Their JSON (lang "", json, jsonc,
/// json5; an object or an array) parsed.
std::vector<Fenced> fenced_blocks(std::string_view text, std::size_t from = 0);

}  // namespace ctxo::mcp
