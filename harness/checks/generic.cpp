// SPDX-License-Identifier: MIT
// The generic reading of an answer (checks/generic.h): where its data is (JSON, JSON with a
// footer, fenced JSON, Markdown, prose), its Markdown shape, and the vocabulary the generic rules
// read it by. What it says about its list: generic_lists.cpp; across calls: generic_across.cpp.
#include "checks/generic.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <deque>

#include "checks/envelope_util.h"
#include "checks/generic_internal.h"
#include "core/json_bounded.h"
#include "core/cause.h"
#include "core/text.h"
#include "profile/profile.h"
#include "profile/schema_validator.h"

namespace ctxo::checks {

using namespace generic_detail;

namespace generic_detail {


bool blank(std::string_view s) { return trim_space(s).empty(); }

/// The parts but `skip` joined by "\n" after `own`, blank ones left out.
std::string join_except(const std::vector<const std::string*>& parts, std::size_t skip, const std::string& own) {
  std::string out = own;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i == skip || blank(*parts[i])) continue;
    out += (out.empty() ? "" : "\n") + *parts[i];
  }
  return out;
}

std::string tick(const std::string& s) { return "`" + s + "`"; }

}  // namespace generic_detail

const char* to_string(Reading r) {
  switch (r) {
    case Reading::kNone: return "none";
    case Reading::kJson: return "json";
    case Reading::kJsonMarkdown: return "json+markdown";
    case Reading::kFencedJson: return "fenced-json";
    case Reading::kMarkdown: return "markdown";
    case Reading::kProse: return "prose";
  }
  return "none";
}

const char* label(Reading r) {
  switch (r) {
    case Reading::kNone: return "no text";
    case Reading::kJson: return "JSON";
    case Reading::kJsonMarkdown: return "JSON+Markdown";
    case Reading::kFencedJson: return "fenced JSON";
    case Reading::kMarkdown: return "Markdown";
    case Reading::kProse: return "prose";
  }
  return "no text";
}

namespace generic_detail {

/// Markdown structure of `text`; `list` and `rows` (when given) get the top-level list items'
/// text without their marker and the table body rows, trimmed.
MarkdownShape scan_markdown(std::string_view text, std::vector<std::string>* list, std::vector<std::string>* rows) {
  MarkdownShape m;
  bool header_pending = false;  // the last pipe row may be a header (a separator line follows)
  bool fence = false;
  std::size_t pipe_rows = 0, separators = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view t = trim_space(line);
    if (t.rfind("```", 0) == 0 || t.rfind("~~~", 0) == 0) {
      fence = !fence;
      continue;
    }
    if (fence || t.empty()) continue;
    if (t.front() == '|') {
      bool sep = t.find('-') != std::string_view::npos &&
                 t.find_first_not_of("|:- \t") == std::string_view::npos;
      (sep ? separators : pipe_rows)++;
      if (rows) {
        if (sep && header_pending && !rows->empty()) rows->pop_back();  // that row was the header
        else if (!sep) rows->emplace_back(t);
        header_pending = !sep;
      }
      continue;
    }
    header_pending = false;
    if (line.front() == '#') {
      std::size_t n = line.find_first_not_of('#');
      if (n != std::string_view::npos && n <= 6 && line[n] == ' ') {
        ++m.headings;
        // "## Results (12)", "# Matches: 3".
        std::string_view h = trim_space(line.substr(n));
        std::size_t end = h.size();
        if (end && h[end - 1] == ')') --end;
        std::size_t b = end;
        while (b > 0 && std::isdigit(static_cast<unsigned char>(h[b - 1]))) --b;
        if (b < end && end - b <= 12 && b > 0 && (h[b - 1] == '(' || h[b - 1] == ' ' || h[b - 1] == ':') &&
            (end == h.size() || h[b - 1] == '('))
          m.heading_counts.push_back(std::stoll(std::string(h.substr(b, end - b))));
        continue;
      }
    }
    // Top-level list items only: an indented one belongs to the item above it.
    if (line.size() >= 2 && (line[0] == '-' || line[0] == '*' || line[0] == '+') && line[1] == ' ') {
      ++m.list_items;
      if (list) list->emplace_back(trim_space(line.substr(2)));
      continue;
    }
    std::size_t d = 0;
    while (d < line.size() && d < 9 && std::isdigit(static_cast<unsigned char>(line[d]))) ++d;
    if (d > 0 && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ') {
      ++m.list_items;
      // Without its number: a later page numbers its items from 1 again, or goes on.
      if (list) list->emplace_back(trim_space(line.substr(d + 2)));
    }
  }
  // A table's first row is its header when a separator line follows it.
  m.table_rows = pipe_rows > separators ? pipe_rows - separators : 0;
  if (separators == 0) m.table_rows = 0;  // pipes without a separator line are not a table
  return m;
}

}  // namespace generic_detail

MarkdownShape markdown_shape(std::string_view text) { return scan_markdown(text, nullptr, nullptr); }

GenericAnswer read_answer(const mcp::Answer& answer) {
  GenericAnswer a;
  try {
    a.text = answer.text();
    // `data` into the Answer (its structuredContent, a part's document), not copied.
    const auto done = [&](Reading r, const json* data, std::string where, std::string rest) {
      a.reading = r;
      a.data = data;
      a.where = std::move(where);
      a.rest = std::move(rest);
      a.markdown = markdown_shape(a.rest);
      return a;
    };
    const auto& parts = answer.parts();
    const auto& read = answer.read();
    if (const json* sc = answer.structured(); sc && sc->is_structured()) {
      // Text parts that repeat it as JSON are not the rest.
      std::string rest;
      for (const auto& p : read)
        if (!blank(*p.text) && !p.whole.is_structured()) rest += (rest.empty() ? "" : "\n") + *p.text;
      return done(Reading::kJson, sc, "structuredContent", std::move(rest));
    }
    const auto part_name = [](std::size_t i) { return "text part " + std::to_string(i + 1); };
    for (std::size_t i = 0; i < read.size(); ++i)
      if (read[i].whole.is_structured())
        return done(Reading::kJson, &read[i].whole, part_name(i), join_except(parts, i, ""));
    // JSON at the start of a text part, with a footer after it.
    for (std::size_t i = 0; i < read.size(); ++i)
      if (!read[i].leading.is_discarded())
        return done(Reading::kJsonMarkdown, &read[i].leading, part_name(i),
                    join_except(parts, i, std::string(trim_space(std::string_view(*read[i].text).substr(read[i].rest)))));
    // JSON in a fenced block.
    for (std::size_t i = 0; i < read.size(); ++i)
      for (const auto& b : read[i].fenced) {
        if (b.value.is_discarded()) continue;
        const std::string_view t = *read[i].text;
        std::string around(trim_space(t.substr(0, b.open)));
        const std::string after(trim_space(t.substr(b.end)));
        if (!after.empty()) around += (around.empty() ? "" : "\n") + after;
        return done(Reading::kFencedJson, &b.value, part_name(i), join_except(parts, i, around));
      }
    if (blank(a.text)) return done(Reading::kNone, &GenericAnswer::no_data(), "", "");
    MarkdownShape m = markdown_shape(a.text);
    return done(m.any() ? Reading::kMarkdown : Reading::kProse, &GenericAnswer::no_data(), "", a.text);
  } catch (...) {
    // Never throws: an answer that cannot be read is prose.
    a.reading = blank(a.text) ? Reading::kNone : Reading::kProse;
    a.rest = a.text;
  }
  return a;
}

namespace {

/// `a` with its own copy of the JSON it points at: the Answer it was read from is about to go.
GenericAnswer owning(GenericAnswer a) {
  if (a.data != &GenericAnswer::no_data()) {
    a.owned = std::make_shared<const json>(*a.data);
    a.data = a.owned.get();
  }
  return a;
}

}  // namespace

const json& GenericAnswer::no_data() {
  static const json kNull;
  return kNull;
}

GenericAnswer read_answer(const mcp::Reply& reply) { return owning(read_answer(mcp::Answer(reply))); }

GenericAnswer read_answer(const std::vector<std::string>& parts, const json* structured) {
  mcp::Reply r;
  r.kind = mcp::Reply::Kind::kResult;
  r.result = json{{"content", json::array()}};
  for (const auto& p : parts) r.result["content"].push_back({{"type", "text"}, {"text", p}});
  if (structured) r.result["structuredContent"] = *structured;
  return owning(read_answer(mcp::Answer(r)));
}

// ----- The vocabulary ----------------------------------------------------------------------------

Result<Vocabulary> load_vocabulary(const json& doc) {
  auto schema = profile::compile_bundled_schema("generic/vocabulary.schema.json");
  if (!schema) return make_error("vocabulary", schema.error().message);
  auto problems = schema->validate(doc);
  if (!problems.empty()) return make_error("vocabulary", "breaks generic/vocabulary.schema.json: " + problems.front());
  Vocabulary v;
  auto strings = [](const json& a) { return a.get<std::vector<std::string>>(); };
  std::string bad;
  auto patterns = [&](const json& a, int groups) {
    std::vector<std::shared_ptr<const re2::RE2>> out;
    for (const auto& p : a) {
      auto re = std::make_shared<const re2::RE2>(p.get<std::string>(), RE2::Quiet);
      if (!re->ok() || (groups >= 0 && re->NumberOfCapturingGroups() != groups)) {
        if (bad.empty())
          bad = "pattern " + p.dump() + (re->ok() ? " must have " + std::to_string(groups) + " capture group(s)" : ": " + re->error());
        continue;
      }
      out.push_back(std::move(re));
    }
    return out;
  };
  v.more_flags = strings(doc["moreFlags"]);
  const json& w = doc["waysOn"];
  v.way_fields = strings(w["fields"]);
  for (const auto& t : w["together"]) v.way_together.push_back(strings(t));
  v.hint_fields = strings(w["hints"]);
  v.footer = patterns(w["footer"], -1);
  v.returned = strings(doc["counts"]["returned"]);
  v.total = strings(doc["counts"]["total"]);
  v.either = strings(doc["counts"]["either"]);
  if (doc["counts"].contains("ambiguous")) v.ambiguous = strings(doc["counts"]["ambiguous"]);
  v.found = patterns(doc["prose"]["found"], 1);
  v.showing = patterns(doc["prose"]["showing"], 2);
  v.more = patterns(doc["prose"]["more"], 1);
  std::string any;
  for (const auto* list : {&v.footer, &v.found, &v.showing, &v.more})
    for (const auto& re : *list) any += (any.empty() ? "(?:" : "|(?:") + re->pattern() + ")";
  if (!any.empty()) {
    auto re = std::make_shared<const re2::RE2>(any, RE2::Quiet);
    if (re->ok()) v.any_prose = std::move(re);
  }
  v.pages = strings(doc["pages"]);
  if (doc.contains("resume"))
    for (const auto& r : doc["resume"]) v.resume.push_back(Vocabulary::Resume{strings(r["answer"]), strings(r["argument"])});
  if (!bad.empty()) return make_error("vocabulary", bad);
  return v;
}

const Result<Vocabulary>& builtin_vocabulary() {
  static const Result<Vocabulary> loaded = []() -> Result<Vocabulary> {
    auto dir = profile::schemas_dir();
    if (!dir) return dir.error();
    auto doc = profile::read_json_file(*dir + "/generic/vocabulary.json");
    if (!doc) return doc.error();
    return load_vocabulary(*doc);
  }();
  return loaded;
}

}  // namespace ctxo::checks
