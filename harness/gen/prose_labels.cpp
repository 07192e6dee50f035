// SPDX-License-Identifier: MIT
// Ids a text gives after a label that says what they are (issue 43): "Started search session:
// `a1b2c3`", "Session ID: 7f3a-19", "outputId=out_93b1". A follow-up tool takes them under the
// label's name (`sessionId`, `outputId`); without this they were never offered, and 0 of 52
// follow-up calls reached data on a real search server. Linear in the text, bounded.
#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "gen/prose.h"

namespace ctxo::gen {

namespace {

using sv = std::string_view;

constexpr std::size_t kMaxLabelled = 16;     // values per answer
constexpr std::size_t kMaxLabelBytes = 48;   // the words before the ':' or '='
constexpr std::size_t kMaxValueBytes = 128;

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// The words of a label, lowered: "Search session" -> {search, session}; "sessionId" ->
// {session, id}; "job_id" -> {job, id}.
std::vector<std::string> label_words(sv label) {
  std::vector<std::string> words;
  std::string w;
  for (std::size_t i = 0; i <= label.size(); ++i) {
    const char c = i < label.size() ? label[i] : ' ';
    const bool boundary = !std::isalnum(static_cast<unsigned char>(c)) ||
                          (std::isupper(static_cast<unsigned char>(c)) && !w.empty() &&
                           std::islower(static_cast<unsigned char>(label[i - 1])));
    if (boundary && !w.empty()) {
      words.push_back(w);
      w.clear();
    }
    if (std::isalnum(static_cast<unsigned char>(c))) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return words;
}

// What a label's last word must be for the value after it to be an id.
bool id_noun(const std::string& w) {
  constexpr sv kNouns[] = {"id", "uuid", "session", "output", "job", "task", "run", "search", "request", "handle",
                           "token", "cursor"};
  return std::find(std::begin(kNouns), std::end(kNouns), w) != std::end(kNouns);
}

// A value that reads as an id: quoted, or holding a digit, a '-' or '_', or both cases; not a word
// that says there is none.
bool id_like(sv v, bool quoted) {
  if (v.empty() || v.size() > kMaxValueBytes) return false;
  if (std::any_of(v.begin(), v.end(), [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; }))
    return false;
  const std::string lower = ascii_lower(v);
  for (sv none : {"none", "null", "undefined", "nil", "n/a", "na", "true", "false", "unknown", "pending", "empty"})
    if (lower == none) return false;
  if (quoted) return true;
  const bool digit = std::any_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  const bool mark = v.find_first_of("-_") != sv::npos;
  const bool upper = std::any_of(v.begin(), v.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
  const bool lower_case = std::any_of(v.begin(), v.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); });
  return digit || mark || (upper && lower_case && v.size() >= 6);
}

// The value after a separator at `at` (':' or '='): a backticked or quoted span, else a token.
std::optional<std::pair<sv, bool>> value_after(sv line, std::size_t at) {
  std::size_t i = at + 1;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i >= line.size()) return std::nullopt;
  const char open = line[i];
  if (open == '`' || open == '"' || open == '\'') {
    const std::size_t close = line.find(open, i + 1);
    if (close == sv::npos || close == i + 1) return std::nullopt;
    return std::make_pair(line.substr(i + 1, close - i - 1), true);
  }
  std::size_t end = i;
  while (end < line.size() && (word_char(line[end]) || line[end] == '.' || line[end] == ':' || line[end] == '/' ||
                               line[end] == '+'))
    ++end;
  sv v = line.substr(i, end - i);
  while (!v.empty() && (v.back() == '.' || v.back() == ':')) v.remove_suffix(1);  // the sentence's end
  if (v.empty()) return std::nullopt;
  return std::make_pair(v, false);
}

}  // namespace

std::vector<LabelledValue> labelled_values(std::string_view text, const std::vector<std::string>& exclude) {
  std::vector<LabelledValue> out;
  if (text.size() > kProseMaxBytes) text = text.substr(0, kProseMaxBytes);
  for (std::size_t from = 0; from < text.size() && out.size() < kMaxLabelled;) {
    std::size_t to = text.find('\n', from);
    if (to == sv::npos) to = text.size();
    const sv line = text.substr(from, to - from);
    from = to + 1;
    for (std::size_t at = line.find_first_of(":="); at != sv::npos && out.size() < kMaxLabelled;
         at = line.find_first_of(":=", at + 1)) {
      // The label: the words right before the separator (letters, digits, '_', '-', spaces).
      std::size_t start = at;
      while (start > 0 && at - start < kMaxLabelBytes && (word_char(line[start - 1]) || line[start - 1] == ' '))
        --start;
      const std::vector<std::string> words = label_words(line.substr(start, at - start));
      if (words.empty() || !id_noun(words.back())) continue;
      if (at + 1 < line.size() && line[at] == ':' && line[at + 1] == '/') continue;  // a URL's scheme
      const auto v = value_after(line, at);
      if (!v || !id_like(v->first, v->second)) continue;
      const std::string value(v->first);
      if (std::any_of(exclude.begin(), exclude.end(),
                      [&](const std::string& e) { return !e.empty() && e.find(value) != std::string::npos; }))
        continue;  // our own string, quoted back
      // The names it goes by: the label's last two words joined, and its noun with "id"
      // ("search session" -> searchsession, session, sessionid; "Session ID" -> sessionid).
      LabelledValue lv;
      lv.value = value;
      const std::string& noun = words.back();
      if (noun == "id" || noun == "uuid") {
        lv.names.push_back(words.size() > 1 ? words[words.size() - 2] + noun : noun);
      } else {
        if (words.size() > 1) lv.names.push_back(words[words.size() - 2] + noun);
        lv.names.push_back(noun);
        lv.names.push_back(noun + "id");
      }
      out.push_back(std::move(lv));
    }
  }
  return out;
}

}  // namespace ctxo::gen
