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

/// The JSON object or array `text` is exactly; discarded otherwise.
json structured(std::string_view text) {
  std::string_view t = trim_space(text);
  if (t.empty() || (t.front() != '{' && t.front() != '[')) return json(json::value_t::discarded);
  json j = parse_bounded(t);
  if (j.is_discarded() || !(j.is_object() || j.is_array())) return json(json::value_t::discarded);
  return j;
}

std::string join_except(const std::vector<std::string>& parts, std::size_t skip, const std::string& own) {
  std::string out = own;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i == skip || blank(parts[i])) continue;
    out += (out.empty() ? "" : "\n") + parts[i];
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

GenericAnswer read_answer(const std::vector<std::string>& parts, const json* structured_content) {
  GenericAnswer a;
  try {
    for (const auto& p : parts) a.text += (a.text.empty() ? "" : "\n") + p;
    const auto done = [&](Reading r, json data, std::string where, std::string rest) {
      a.reading = r;
      a.data = std::move(data);
      a.where = std::move(where);
      a.rest = std::move(rest);
      a.markdown = markdown_shape(a.rest);
      return a;
    };
    if (structured_content && (structured_content->is_object() || structured_content->is_array())) {
      // Text parts that repeat it as JSON are not the rest.
      std::string rest;
      for (const auto& p : parts)
        if (!blank(p) && structured(p).is_discarded()) rest += (rest.empty() ? "" : "\n") + p;
      return done(Reading::kJson, *structured_content, "structuredContent", std::move(rest));
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
      json j = structured(parts[i]);
      if (!j.is_discarded())
        return done(Reading::kJson, std::move(j), "text part " + std::to_string(i + 1), join_except(parts, i, ""));
    }
    // JSON at the start of a text part, with a footer after it.
    for (std::size_t i = 0; i < parts.size(); ++i) {
      std::string_view t = parts[i];
      std::size_t b = t.find_first_not_of(" \t\r\n");
      if (b == std::string_view::npos || (t[b] != '{' && t[b] != '[')) continue;
      std::size_t e = json_value_end(t, b);
      if (e == std::string_view::npos) continue;
      json j = parse_bounded(t.substr(b, e - b));
      if (j.is_discarded() || !(j.is_object() || j.is_array())) continue;
      return done(Reading::kJsonMarkdown, std::move(j), "text part " + std::to_string(i + 1),
                  join_except(parts, i, std::string(trim_space(t.substr(e)))));
    }
    // JSON in a fenced block.
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string& t = parts[i];
      for (std::size_t f = t.find("```"); f != std::string::npos; f = t.find("```", f + 3)) {
        std::size_t nl = t.find('\n', f);
        if (nl == std::string::npos) break;
        std::string lang(trim_space(std::string_view(t).substr(f + 3, nl - f - 3)));
        for (auto& c : lang) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::size_t close = t.find("```", nl);
        if (close == std::string::npos) break;
        if (lang.empty() || lang == "json" || lang == "jsonc" || lang == "json5") {
          json j = structured(std::string_view(t).substr(nl + 1, close - nl - 1));
          if (!j.is_discarded()) {
            std::string around = std::string(trim_space(std::string_view(t).substr(0, f)));
            std::string after(trim_space(std::string_view(t).substr(close + 3)));
            if (!after.empty()) around += (around.empty() ? "" : "\n") + after;
            return done(Reading::kFencedJson, std::move(j), "text part " + std::to_string(i + 1),
                        join_except(parts, i, around));
          }
        }
        f = close;
      }
    }
    if (blank(a.text)) return done(Reading::kNone, json(), "", "");
    MarkdownShape m = markdown_shape(a.text);
    return done(m.any() ? Reading::kMarkdown : Reading::kProse, json(), "", a.text);
  } catch (...) {
    // Never throws: an answer that cannot be read is prose.
    a.reading = blank(a.text) ? Reading::kNone : Reading::kProse;
    a.rest = a.text;
  }
  return a;
}

GenericAnswer read_answer(const mcp::Reply& reply) {
  std::vector<std::string> parts;
  for (const std::string* p : reply.text_parts()) parts.push_back(*p);
  const json* sc = nullptr;
  if (reply.kind == mcp::Reply::Kind::kResult && reply.result.is_object()) {
    auto it = reply.result.find("structuredContent");
    if (it != reply.result.end()) sc = &*it;
  }
  return read_answer(parts, sc);
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
