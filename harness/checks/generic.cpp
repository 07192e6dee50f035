// SPDX-License-Identifier: MIT
// The generic reading of an answer and the generic truncation rules (checks/generic.h).
#include "checks/generic.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <deque>

#include "checks/envelope_util.h"
#include "core/json_bounded.h"
#include "core/cause.h"
#include "core/text.h"
#include "profile/profile.h"
#include "profile/schema_validator.h"

namespace ctxo::checks {

namespace {


bool blank(std::string_view s) { return trim_space(s).empty(); }

/// The JSON object or array `text` is exactly; discarded otherwise.
json structured(std::string_view text) {
  std::string_view t = trim_space(text);
  if (t.empty() || (t.front() != '{' && t.front() != '[')) return json(json::value_t::discarded);
  json j = parse_bounded(t);
  if (j.is_discarded() || !(j.is_object() || j.is_array())) return json(json::value_t::discarded);
  return j;
}

/// One past the end of the JSON object or array that starts at `text[start]` (`{` or `[`), by
/// its brackets (strings and escapes honoured); npos when it does not close.
std::size_t value_end(std::string_view text, std::size_t start) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
      if (depth < 0) return std::string_view::npos;
    }
  }
  return std::string_view::npos;
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

}  // namespace

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

namespace {

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

}  // namespace

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
      std::size_t e = value_end(t, b);
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

// ----- What an answer says about its list --------------------------------------------------------

namespace {

constexpr std::size_t kMaxNodes = 20000;  // a walk of one answer stops there
constexpr int kMaxDepth = 8;

bool contains(const std::vector<std::string>& names, const std::string& k) {
  return std::find(names.begin(), names.end(), k) != names.end();
}

/// A value that names something (a cursor, an offset): not null, false or "".
bool has_value(const json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) return !blank(v.get_ref<const std::string&>());
  return true;
}

/// A page past the first: a number above 0 (page above 1), a non-empty cursor or token.
bool later_page(const std::string& name, const json& v) {
  if (auto n = detail::as_int(&v)) return name == "page" ? *n > 1 : *n > 0;
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (blank(s)) return false;
    // A number in a string, as some servers send it.
    if (std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return name == "page" ? std::stoll(s.substr(0, 15)) > 1 : std::stoll(s.substr(0, 15)) > 0;
    return true;
  }
  return false;
}

struct Walk {
  explicit Walk(const Vocabulary& vocabulary) : v(vocabulary) {}
  const Vocabulary& v;
  std::size_t nodes = 0;
  bool flagged = false;
  std::string flag_name, way_on;

  // Flags and ways on anywhere in the JSON. A flag inside a list describes an item, not the list:
  // only flags outside lists count; a way on counts wherever it is.
  void visit(const json& j, const std::string& path, bool in_list, int depth) {
    if (++nodes > kMaxNodes || depth > kMaxDepth) return;
    if (j.is_object()) {
      for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& k = it.key();
        const std::string here = path.empty() ? k : path + "." + k;
        if (!in_list && !flagged && contains(v.more_flags, k) && it->is_boolean() && it->get<bool>()) {
          flagged = true;
          flag_name = here;
        }
        if (way_on.empty()) {
          if (contains(v.way_fields, k) && has_value(*it)) way_on = tick(here) + " " + excerpt(it->dump(), 40);
          else if (contains(v.hint_fields, k) && it->is_string() && !blank(it->get_ref<const std::string&>()))
            way_on = "the text in " + tick(here);
        }
        if (it->is_structured()) visit(*it, here, in_list || it->is_array(), depth + 1);
      }
      if (way_on.empty())
        for (const auto& set : v.way_together) {
          bool all = !set.empty();
          for (const auto& k : set) all = all && j.contains(k) && has_value(j[k]);
          if (all) {
            std::string names;
            for (const auto& k : set) names += (names.empty() ? "" : " + ") + tick(k);
            way_on = names;
            break;
          }
        }
    } else if (j.is_array()) {
      std::size_t i = 0;
      for (const auto& e : j) {
        if (e.is_structured()) visit(e, path + "[" + std::to_string(i) + "]", true, depth + 1);
        if (++i > 200) break;
      }
    }
  }
};

/// The object holding the answer's list: the first object (breadth first, outside lists) with
/// exactly one array member. `name` gets the path to the list.
const json* list_holder(const json& root, std::string& list_name, std::string& holder_path, bool& ambiguous) {
  std::deque<std::pair<const json*, std::string>> queue{{&root, ""}};
  std::size_t seen = 0;
  while (!queue.empty() && ++seen < 2000) {
    auto [o, path] = queue.front();
    queue.pop_front();
    if (!o->is_object()) continue;
    std::string key;
    std::size_t arrays = 0;
    for (auto it = o->begin(); it != o->end(); ++it) {
      if (it->is_array()) {
        ++arrays;
        key = it.key();
      } else if (it->is_object()) {
        queue.emplace_back(&*it, path.empty() ? it.key() : path + "." + it.key());
      }
    }
    if (arrays == 1) {
      list_name = path.empty() ? key : path + "." + key;
      holder_path = path;
      return o;
    }
    if (arrays > 1) {
      ambiguous = true;
      return nullptr;
    }
  }
  return nullptr;
}

/// Reads one field of `o` (or of an object member of `o`, such as `pagination`) by the names it
/// may go by. `name` gets its path.
const json* near(const json& o, const std::vector<std::string>& names, const std::string& holder, std::string& name) {
  for (const auto& k : names) {
    auto it = o.find(k);
    if (it != o.end()) {
      name = holder.empty() ? k : holder + "." + k;
      return &*it;
    }
  }
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (!it->is_object()) continue;
    for (const auto& k : names) {
      auto f = it->find(k);
      if (f != it->end()) {
        name = (holder.empty() ? "" : holder + ".") + it.key() + "." + k;
        return &*f;
      }
    }
  }
  return nullptr;
}

std::optional<std::int64_t> first_number(const std::vector<std::shared_ptr<const re2::RE2>>& res,
                                         const std::string& text) {
  for (const auto& re : res) {
    std::string n;
    if (RE2::PartialMatch(text, *re, &n) && n.size() <= 15) return std::stoll(n);
  }
  return std::nullopt;
}

}  // namespace

std::string ListFacts::says_complete() const {
  if (more == false) return tick(more_name) + " is false";
  if (items && total && *total == *items && !ambiguous)
    return tick(total_name) + " is " + detail::num(*total) + ", the items it returned";
  if (items && found && *found == *items) return "it says \"Found " + detail::num(*found) + "\" and returned as many";
  return "";
}

ListFacts list_facts(const GenericAnswer& a, const Vocabulary& v) {
  ListFacts f;
  try {
    if (a.data.is_structured()) {
      Walk w(v);
      w.visit(a.data, "", a.data.is_array(), 0);
      f.flagged = w.flagged;
      f.flag_name = w.flag_name;
      f.way_on = w.way_on;
      if (a.data.is_array()) {
        f.items = static_cast<std::int64_t>(a.data.size());
        f.list = "the answer's array";
      } else {
        std::string list, holder;
        if (const json* o = list_holder(a.data, list, holder, f.ambiguous)) {
          for (auto it = o->begin(); it != o->end(); ++it)
            if (it->is_array()) f.items = static_cast<std::int64_t>(it->size());
          f.list = list;
          std::string name;
          if (const json* m = near(*o, v.more_flags, holder, name); m && m->is_boolean()) {
            f.more = m->get<bool>();
            f.more_name = name;
          }
          if (auto n = detail::as_int(near(*o, v.returned, holder, name))) f.returned = n, f.returned_name = name;
          if (auto n = detail::as_int(near(*o, v.total, holder, name))) f.total = n, f.total_name = name;
          if (auto n = detail::as_int(near(*o, v.either, holder, name))) f.either = n, f.either_name = name;
          const json* page = near(*o, v.pages, holder, name);
          if (page && later_page(name.substr(name.rfind('.') + 1), *page)) f.paged = true;
          // A page of results: a flag, a page or way-on field beside the list, or counts in an
          // object of their own. An ambiguous count (`total`, `count`) elsewhere is not compared.
          f.page_like = f.more.has_value() || page || near(*o, v.way_fields, holder, name);
          const auto own_object = [&](const std::string& n) {
            return n.size() > holder.size() + 1 && n.find('.', holder.empty() ? 0 : holder.size() + 1) != std::string::npos;
          };
          for (const std::string* n : {&f.returned_name, &f.total_name, &f.either_name})
            if (!n->empty() && own_object(*n)) f.page_like = true;

        } else if (!f.ambiguous) {
          // No list: a flag at the top still says whether there is more.
          std::string name;
          if (const json* m = near(a.data, v.more_flags, "", name); m && m->is_boolean()) {
            f.more = m->get<bool>();
            f.more_name = name;
          }
        }
      }
    } else if (a.markdown.items() > 0) {
      f.items = static_cast<std::int64_t>(a.markdown.items());
      f.list = a.markdown.table_rows ? "Markdown table rows" : "Markdown list items";
    }
    // What the text says (the footer, or the whole text of a Markdown or prose answer).
    f.found = first_number(v.found, a.rest);
    for (const auto& re : v.showing) {
      std::string n, m;
      if (RE2::PartialMatch(a.rest, *re, &n, &m) && n.size() <= 15 && m.size() <= 15) {
        f.showing = std::make_pair(std::stoll(n), std::stoll(m));
        break;
      }
    }
    f.more_prose = first_number(v.more, a.rest);
    if (f.way_on.empty())
      for (const auto& re : v.footer)
        if (RE2::PartialMatch(a.rest, *re)) {
          f.way_on = "the text after the JSON (" + excerpt(std::string(trim_space(a.rest)), 60) + ")";
          break;
        }
  } catch (...) {
    // Never throws: what was read so far stands.
  }
  return f;
}

namespace {

Finding generic_finding(const char* id, const json& request, const std::string& raw,
                        std::map<std::string, std::string> cause, std::string diagnosis, const GenericAnswer& a) {
  Finding f;
  f.invariant = id;
  f.cause = std::move(cause);
  f.request = request;
  f.response_excerpt = excerpt(raw, 400);
  f.diagnosis = std::move(diagnosis) + " (generic reading: " + label(a.reading) + ")";
  f.profile = "generic";
  return f;
}

/// The call asked for a page past the first (an offset, a page, a cursor among its arguments).
bool asks_later_page(const json& request, const Vocabulary& v) {
  if (!request.is_object() || !request.contains("params") || !request["params"].is_object()) return false;
  const json& params = request["params"];
  auto it = params.find("arguments");
  if (it == params.end() || !it->is_object()) return false;
  for (const auto& k : v.pages)
    if (auto a = it->find(k); a != it->end() && later_page(k, *a)) return true;
  return false;
}

}  // namespace

Outcomes check_generic(const GenericAnswer& a, const Vocabulary& v, const json& request, const std::string& raw) {
  Outcomes out;
  try {
    if (a.reading == Reading::kNone) return out;
    ListFacts f = list_facts(a, v);
    const bool paged = f.paged || asks_later_page(request, v);
    if (!a.data.is_structured()) f.page_like = true;  // prose counts are what they say
    // TR-HINT: a more-flag true with no way on.
    if (f.flagged) {
      out.pass("TR-HINT");
      if (f.way_on.empty())
        out.fail(generic_finding("TR-HINT", request, raw, {{"form", "no-way-on"}, {"field", path_shape(f.flag_name)}},
                                 tick(f.flag_name) +
                                     " is true but the answer names no way to the rest: no cursor, offset, page or "
                                     "token field, no hint text, and no text after the JSON saying how to get more",
                                 a));
    } else {
      out.unobserved("TR-HINT", "no answer said it held less than there is");
    }
    // TR-COUNT: counts that contradict the list they describe.
    bool compared = false;
    // The cause: which count contradicts which list (field names, array indices as "*").
    auto fail = [&](const char* form, const std::string& field, const std::string& d) {
      out.fail(generic_finding("TR-COUNT", request, raw,
                               {{"form", form}, {"field", path_shape(field)}, {"list", path_shape(f.list)}}, d, a));
    };
    const std::string in_list = f.list.empty() ? "" : " in " + tick(f.list);
    if (!f.page_like) {
      // An ambiguous count (`total`, `count`) beside a list that does not read as a page of
      // results may count something else (a price, occurrences): not compared with the list.
      const auto last = [](const std::string& n) { return n.substr(n.rfind('.') + 1); };
      if (f.returned && contains(v.ambiguous, last(f.returned_name))) f.returned.reset();
      if (f.total && contains(v.ambiguous, last(f.total_name))) f.total.reset();
      if (f.either && contains(v.ambiguous, last(f.either_name))) f.either.reset();
    }
    if (f.items && !f.ambiguous) {
      const std::int64_t n = *f.items;
      if (f.returned) {
        compared = true;
        if (*f.returned != n)
          fail("returned-not-length", f.returned_name, tick(f.returned_name) + " says " + detail::num(*f.returned) + " but" + in_list + " there are " +
               detail::num(n) + " items");
      }
      if (f.either) {
        compared = true;
        if (*f.either < n)
          fail("count-below-length", f.either_name, tick(f.either_name) + " says " + detail::num(*f.either) + " but" + in_list + " there are " +
               detail::num(n) + " items");
      }
      if (f.total) {
        compared = true;
        const std::int64_t got = f.returned.value_or(n);
        if (*f.total < got)
          fail("total-below-returned", f.total_name, tick(f.total_name) + " is " + detail::num(*f.total) + ", less than the " + detail::num(got) +
               " items returned" + in_list);
        else if (f.more == false && *f.total > got && !paged)
          fail("more-false-items-omitted", f.more_name, tick(f.more_name) + " is false but " + tick(f.total_name) + " is " + detail::num(*f.total) +
               " and" + in_list + " there are " + detail::num(got) + " items: " + detail::num(*f.total - got) +
               " were silently omitted");
      }
      if (f.showing && a.data.is_structured()) {
        compared = true;
        if (f.showing->first != n)
          fail("shown-not-length", "", "the text says it shows " + detail::num(f.showing->first) + " of " +
                                           detail::num(f.showing->second) + " but" + in_list + " there are " + detail::num(n) + " items");
      }
    }
    if (f.showing) {
      compared = true;
      if (f.showing->first > f.showing->second)
        fail("shown-over-total", "", "the text says it shows " + detail::num(f.showing->first) + " of " +
                                         detail::num(f.showing->second) + ": more than there are");
    }
    if (compared) out.pass("TR-COUNT");
    else out.unobserved("TR-COUNT", "no answer carried a count of the list it held");
  } catch (...) {
    // Never throws.
  }
  return out;
}

Outcomes check_omission(const OmissionPoint& small, const OmissionPoint& large) {
  Outcomes out;
  const std::string complete = small.facts.says_complete();
  if (complete.empty() || !small.facts.items || !large.facts.items) return out;
  if (small.limit && large.limit && *large.limit <= *small.limit) return out;
  out.pass("TR-COUNT");
  if (*large.facts.items <= *small.facts.items) return out;
  auto at = [](const OmissionPoint& p) {
    return p.limit ? tick(p.parameter) + " " + detail::num(*p.limit) : "no " + tick(p.parameter) + " (the default)";
  };
  Finding f;
  f.invariant = "TR-COUNT";
  f.profile = "generic";
  // One cause: the parameter whose larger value shows the omission, not the counts or values.
  f.cause = {{"form", "said-complete-but-more"}, {"parameter", small.parameter}};
  f.request = small.request;
  f.response_excerpt = small.excerpt;
  const auto items = [](std::int64_t n) { return detail::num(n) + (n == 1 ? " item" : " items"); };
  f.diagnosis = "with " + at(small) + " the answer returned " + items(*small.facts.items) + " and said there is no "
                "more (" + complete + "), but the same call with " + at(large) + " returned " +
                items(*large.facts.items) + ": items were silently omitted. The larger request: " +
                excerpt(large.request.dump(), 300);
  out.fail(std::move(f));
  return out;
}

std::optional<std::vector<std::string>> list_items(const GenericAnswer& a, std::size_t max_bytes) {
  try {
    std::vector<std::string> out;
    std::size_t bytes = 0;
    const json* list = nullptr;
    if (a.data.is_array()) {
      list = &a.data;
    } else if (a.data.is_object()) {
      std::string name, holder;
      bool ambiguous = false;
      const json* o = list_holder(a.data, name, holder, ambiguous);
      if (!o) return std::nullopt;
      for (auto it = o->begin(); it != o->end(); ++it)
        if (it->is_array()) list = &*it;
    }
    if (list) {
      for (const auto& item : *list) {
        out.push_back(item.dump());
        if ((bytes += out.back().size()) > max_bytes) return std::nullopt;
      }
      return out;
    }
    if (a.markdown.items() == 0) return std::nullopt;
    std::vector<std::string> list_lines, rows;
    scan_markdown(a.rest, &list_lines, &rows);
    out = a.markdown.table_rows ? std::move(rows) : std::move(list_lines);
    for (const auto& line : out)
      if ((bytes += line.size()) > max_bytes) return std::nullopt;
    return out;
  } catch (...) {
    return std::nullopt;
  }
}

namespace {

/// The answer's value for the next page (Vocabulary::resume): beside its list, in an object of
/// its own there (`pagination.nextCursor`), or at the top. `field` gets its name.
const json* next_page_value(const GenericAnswer& a, const Vocabulary& v, std::string& field) {
  if (!a.data.is_object()) return nullptr;
  std::string list, holder, name;
  bool ambiguous = false;
  const json* o = list_holder(a.data, list, holder, ambiguous);
  for (const json* where : {o, &a.data}) {
    if (!where) continue;
    for (const auto& r : v.resume)
      if (const json* n = near(*where, r.answer, "", name); n && has_value(*n) && (n->is_string() || n->is_number_integer())) {
        field = name.substr(name.rfind('.') + 1);
        return n;
      }
  }
  return nullptr;
}

const Vocabulary::Resume* resume_way(const Vocabulary& v, const std::string& field) {
  for (const auto& r : v.resume)
    if (contains(r.answer, field)) return &r;
  return nullptr;
}

/// The answer says it holds less than there is: a more-flag true, "showing N of M" with N < M, "N more".
bool says_cut(const ListFacts& f) {
  return f.more == true || f.flagged || (f.showing && f.showing->first < f.showing->second) ||
         f.more_prose.value_or(0) > 0;
}

/// The value as the text a property of any type would be given ("abc" for "abc", "20" for 20).
std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

/// `a` and `b` without `key` are the same arguments.
bool same_but(const json& a, const json& b, const std::string& key) {
  json x = a, y = b;
  x.erase(key);
  y.erase(key);
  return x == y;
}

/// The limit parameter the call gave (an integer), if any.
std::optional<std::pair<std::string, std::int64_t>> given_limit(const json& args,
                                                                const std::function<bool(const std::string&)>& is_limit) {
  for (auto it = args.begin(); it != args.end(); ++it)
    if (it->is_number_integer() && is_limit(it.key())) return std::make_pair(it.key(), it->get<std::int64_t>());
  return std::nullopt;
}

}  // namespace

std::optional<ListedCall> listed_call(const mcp::Reply& reply, const json& arguments) {
  const auto& v = builtin_vocabulary();
  if (!v || reply.kind != mcp::Reply::Kind::kResult || reply.is_error_result()) return std::nullopt;
  ListedCall c;
  const GenericAnswer a = read_answer(reply);
  c.facts = list_facts(a, *v);
  if (!c.facts.items) return std::nullopt;
  c.arguments = arguments.is_object() ? arguments : json::object();
  c.request = reply.request;
  c.excerpt = excerpt(reply.raw.empty() ? reply.result.dump() : reply.raw, 400);
  const ListFacts& f = c.facts;
  c.says_more = says_cut(f) || (f.total && !f.ambiguous && *f.total > *f.items);
  if (c.says_more) {
    if (const json* n = next_page_value(a, *v, c.next_field)) c.next_value = *n;
  }
  // Every call keeps its items (up to list_items' byte bound): TR-RESUME compares a page that
  // names the next with the page fetched and with the same call at a larger limit.
  if (auto items = list_items(a)) c.items = std::move(*items);
  return c;
}

Outcomes check_omissions(const std::vector<ListedCall>& calls, const std::function<bool(const std::string&)>& is_limit,
                         std::set<std::string>* reported) {
  Outcomes out;
  const std::size_t n = std::min<std::size_t>(calls.size(), 256);
  std::set<std::string> mine;
  if (!reported) reported = &mine;
  std::map<std::string, std::pair<std::int64_t, Outcomes>> best;  // group -> (small limit, finding)
  for (std::size_t i = 0; i < n; ++i) {
    const ListedCall& small = calls[i];
    if (small.facts.says_complete().empty()) continue;
    for (auto it = small.arguments.begin(); it != small.arguments.end(); ++it) {
      if (!it->is_number_integer() || !is_limit(it.key())) continue;
      const std::string& k = it.key();
      const std::int64_t at = it->get<std::int64_t>();
      json rest = small.arguments;
      rest.erase(k);
      const std::string group = k + "\x1f" + rest.dump();
      if (reported->count(group)) continue;
      const ListedCall* most = nullptr;
      std::optional<std::int64_t> most_limit;
      for (std::size_t j = 0; j < n; ++j) {
        const ListedCall& other = calls[j];
        if (j == i) continue;
        json other_rest = other.arguments;
        auto o = other_rest.find(k);
        std::optional<std::int64_t> limit;
        if (o != other_rest.end()) {
          if (!o->is_number_integer() || o->get<std::int64_t>() <= at) continue;
          limit = o->get<std::int64_t>();
          other_rest.erase(k);
        }
        if (other_rest != rest) continue;
        if (!most || *other.facts.items > *most->facts.items) most = &other, most_limit = limit;
      }
      if (!most) continue;
      OmissionPoint sp{k, at, small.request, small.excerpt, small.facts};
      OmissionPoint lp{k, most_limit, most->request, most->excerpt, most->facts};
      Outcomes o = check_omission(sp, lp);
      // The smallest limit that says so is the group's finding: the clearest evidence.
      if (o.empty()) out.merge(std::move(o));
      else if (auto b = best.find(group); b == best.end() || at < b->second.first) best[group] = {at, std::move(o)};
    }
  }
  for (auto& [group, found] : best) {
    reported->insert(group);
    out.merge(std::move(found.second));
  }
  return out;
}

std::vector<json> resume_calls(const std::vector<ListedCall>& calls, const json& input_schema,
                               const std::function<bool(const std::string&)>& is_limit, std::size_t max_chains) {
  std::vector<json> out;
  const auto& v = builtin_vocabulary();
  if (!v || !input_schema.is_object()) return out;
  const auto pit = input_schema.find("properties");
  if (pit == input_schema.end() || !pit->is_object()) return out;
  const json& props = *pit;
  const auto known = [&](const json& args) {
    for (const auto& c : calls)
      if (c.arguments == args) return true;
    return std::find(out.begin(), out.end(), args) != out.end();
  };
  std::size_t chains = 0;
  for (const auto& c : calls) {
    if (chains >= max_chains) break;
    if (!c.says_more || c.next_field.empty() || c.items.empty()) continue;
    const Vocabulary::Resume* way = resume_way(*v, c.next_field);
    if (!way) continue;
    std::string arg;
    for (const auto& k : way->argument)
      if (props.contains(k)) {
        arg = k;
        break;
      }
    if (arg.empty()) continue;
    ++chains;
    json next = c.arguments;
    next[arg] = detail::typed_value(value_text(c.next_value), props[arg]);
    if (!known(next)) out.push_back(std::move(next));
    // The same call with twice the items: the list the first page and the next must rebuild.
    std::optional<std::pair<std::string, std::int64_t>> limit = given_limit(c.arguments, is_limit);
    if (!limit)
      for (auto it = props.begin(); it != props.end(); ++it)
        if (is_limit(it.key()) && it->is_object() && it->value("type", "") == "integer") {
          limit = std::make_pair(it.key(), static_cast<std::int64_t>(c.items.size()));
          break;
        }
    if (!limit || limit->second <= 0) continue;
    std::int64_t twice = limit->second * 2;
    const json& lp = props.contains(limit->first) ? props[limit->first] : json::object();
    if (auto m = detail::as_int(lp.is_object() && lp.contains("maximum") ? &lp["maximum"] : nullptr)) twice = std::min(twice, *m);
    if (twice <= limit->second) continue;
    json full = c.arguments;
    full[limit->first] = twice;
    if (!known(full)) out.push_back(std::move(full));
  }
  return out;
}

Outcomes check_resumes(const std::vector<ListedCall>& calls, const std::function<bool(const std::string&)>& is_limit,
                       std::set<std::string>* reported) {
  Outcomes out;
  const auto& v = builtin_vocabulary();
  if (!v) return out;
  std::set<std::string> mine;
  if (!reported) reported = &mine;
  const auto items = [](std::size_t n) { return detail::num(static_cast<std::int64_t>(n)) + (n == 1 ? " item" : " items"); };
  const auto range = [](std::size_t from, std::size_t to) {  // 1-based, inclusive
    return from == to ? "item " + std::to_string(from) : "items " + std::to_string(from) + "-" + std::to_string(to);
  };
  bool judged = false;  // a page followed: passed, failed or not comparable
  for (const auto& c : calls) {
    if (!c.says_more || c.next_field.empty() || c.items.empty()) continue;
    const Vocabulary::Resume* way = resume_way(*v, c.next_field);
    if (!way) continue;
    // The call that fetched the page it names.
    const ListedCall* next = nullptr;
    std::string arg;
    for (const auto& n : calls)
      for (const auto& k : way->argument) {
        auto it = n.arguments.find(k);
        if (!next && &n != &c && it != n.arguments.end() && value_text(*it) == value_text(c.next_value) &&
            same_but(n.arguments, c.arguments, k)) {
          next = &n;
          arg = k;
        }
      }
    if (!next || next->items.empty()) continue;
    judged = true;
    // One finding per way on (`nextCursor` -> `cursor`): one cause, whatever else the calls asked.
    const std::string group = c.next_field + "\x1f" + arg;
    if (reported->count(group)) continue;
    const std::size_t n = c.items.size(), m = next->items.size();
    // The same call at a larger limit, with more items: the list the pages must rebuild.
    const ListedCall* full = nullptr;
    const auto limit = given_limit(c.arguments, is_limit);
    for (const auto& f : calls) {
      if (&f == &c || f.items.size() <= n) continue;
      const auto fl = given_limit(f.arguments, is_limit);
      if (!fl || (limit && (fl->first != limit->first || fl->second <= limit->second))) continue;
      if (!same_but(f.arguments, c.arguments, fl->first)) continue;
      if (!std::equal(c.items.begin(), c.items.end(), f.items.begin())) continue;  // another order: not comparable
      if (!full || f.items.size() > full->items.size()) full = &f;
    }
    const std::string first_desc = "the answer to " + excerpt(c.request.dump(), 200) + " returned " + items(n) +
                                   " and named the next page with " + tick(c.next_field) + " " +
                                   excerpt(c.next_value.dump(), 60);
    std::string problem;
    const char* form = "differs";
    if (full) {
      const auto& fi = full->items;
      const std::size_t overlap = std::min(m, fi.size() - n);
      if (std::equal(next->items.begin(), next->items.begin() + static_cast<std::ptrdiff_t>(overlap), fi.begin() + static_cast<std::ptrdiff_t>(n))) {
        out.pass("TR-RESUME");
        continue;
      }
      const auto at = std::find(fi.begin(), fi.end(), next->items.front());
      const std::size_t k = static_cast<std::size_t>(at - fi.begin());  // 0-based in the larger list
      const auto full_limit = given_limit(full->arguments, is_limit);  // found above: it has one
      const std::string larger = " (the same call with " + tick(full_limit->first) + " " +
                                 detail::num(full_limit->second) + " returned " + items(fi.size()) + " in one list)";
      if (at == fi.end()) {
        out.unobserved("TR-RESUME", "no next page could be placed in the list a larger limit returned");
        continue;
      }
      if (k < n)
        form = "overlap", problem = "; the page it names starts again at item " + std::to_string(k + 1) + " of the list" + larger +
                  ": " + range(k + 1, n) + (n - k == 1 ? " is" : " are") + " returned twice";
      else if (k > n)
        form = "skip", problem = "; the page it names starts at item " + std::to_string(k + 1) + " of the list" + larger + ": " +
                  range(n + 1, k) + (k - n == 1 ? " is" : " are") + " never returned";
      else
        problem = "; the page it names starts where it should but then differs from the list" + larger;
    } else {
      // No larger list to place the page in: repeated items are still visible.
      std::set<std::string> first(c.items.begin(), c.items.end());
      if (first.size() != n) {  // the list repeats items of its own: repetition tells nothing
        out.unobserved("TR-RESUME", "the lists that named a next page repeat items of their own");
        continue;
      }
      std::size_t again = 0;
      for (const auto& item : next->items) again += first.count(item);
      if (again == 0) {
        out.pass("TR-RESUME");
        continue;
      }
      form = "overlap";
      problem = "; the page it names repeats " + items(again) + " of the first page (the first: " +
                excerpt(*std::find_if(next->items.begin(), next->items.end(), [&](const std::string& i) { return first.count(i) > 0; }), 120) +
                ")";
    }
    Finding f;
    f.invariant = "TR-RESUME";
    f.profile = "generic";
    f.cause = {{"form", form}, {"field", c.next_field}, {"argument", arg}};
    f.request = next->request;
    f.response_excerpt = next->excerpt;
    f.diagnosis = first_desc + problem + ". Following the way on an answer gives must go on exactly where it ended.";
    reported->insert(group);
    out.fail(std::move(f));
  }
  if (!judged && !calls.empty())
    out.unobserved("TR-RESUME", "no answer named its next page by value (a cursor, a next offset) that was followed");
  return out;
}

bool says_truncated(const mcp::Reply& reply) {
  const auto& v = builtin_vocabulary();
  if (!v || reply.kind != mcp::Reply::Kind::kResult || reply.is_error_result() || reply.raw.size() > (4u << 20))
    return false;
  try {
    return says_cut(list_facts(read_answer(reply), *v));
  } catch (...) {
    return false;
  }
}

void GenericJudge::judge(const mcp::Reply& reply, Outcomes& out) {
  try {
    if (reply.kind != mcp::Reply::Kind::kResult || reply.is_error_result()) return;
    GenericAnswer a = read_answer(reply);
    if (a.reading == Reading::kNone) return;
    readings_[to_string(a.reading)]++;
    const auto& v = builtin_vocabulary();
    if (!v) return;
    out.merge(check_generic(a, *v, reply.request, reply.raw.empty() ? reply.result.dump() : reply.raw));
  } catch (...) {
    // Never throws.
  }
}

}  // namespace ctxo::checks
