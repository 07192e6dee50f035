// SPDX-License-Identifier: MIT
// What one answer says about its list, read generically (checks/generic.h): the list, its count,
// its more-flag and next page (list_facts), and the truncation rules on one answer
// (check_generic: TR-HINT, TR-COUNT; check_omission; list_items).
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

// ----- What an answer says about its list --------------------------------------------------------

namespace generic_detail {

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
  std::string flag_name, way_on, next_name;

  /// A field that names the next page by value (`nextOffset`, `nextCursor`, `next_page`).
  bool names_next(const std::string& k) const {
    for (const auto& r : v.resume)
      if (contains(r.answer, k)) return true;
    return false;
  }

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
        if (!in_list && next_name.empty() && has_value(*it) && names_next(k)) next_name = here;
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

}  // namespace generic_detail

bool ListFacts::says_less() const {
  return more == true || flagged || more_prose.value_or(0) > 0 || (showing && showing->first < showing->second);
}

bool ListFacts::says_cut() const { return says_less() || !way_on.empty() || paged || counts_more(); }

bool ListFacts::counts_more() const { return items && total && !ambiguous && *total > *items; }

bool ListFacts::false_flag_contradicted() const { return says_less() || !next_name.empty(); }

std::string ListFacts::says_complete() const {
  // Signals that disagree claim nothing: mcp-memory-keeper's `pagination` says `truncated: false`
  // (not cut to fit its token budget) beside `hasMore: true` and a `nextOffset`. A count above the
  // items is no claim of completeness either (check_generic judges the flag against the count).
  if (false_flag_contradicted() || counts_more()) return "";
  if (more == false) return tick(more_name) + " is false";
  if (items && total && *total == *items && !ambiguous)
    return tick(total_name) + " is " + detail::num(*total) + ", the items it returned";
  if (items && found && *found == *items) return "it says \"Found " + detail::num(*found) + "\" and returned as many";
  return "";
}

ListFacts list_facts(const GenericAnswer& a, const Vocabulary& v) {
  ListFacts f;
  try {
    if (a.data->is_structured()) {
      Walk w(v);
      w.visit(*a.data, "", a.data->is_array(), 0);
      f.flagged = w.flagged;
      f.flag_name = w.flag_name;
      f.way_on = w.way_on;
      f.next_name = w.next_name;
      if (a.data->is_array()) {
        f.items = static_cast<std::int64_t>(a.data->size());
        f.list = "the answer's array";
      } else {
        std::string list, holder;
        if (const json* o = list_holder(*a.data, list, holder, f.ambiguous)) {
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
          if (const json* m = near(*a.data, v.more_flags, "", name); m && m->is_boolean()) {
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
    if (v.any_prose && !RE2::PartialMatch(a.rest, *v.any_prose)) return f;
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
    if (!a.data->is_structured()) f.page_like = true;  // prose counts are what they say
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
        else if (f.more == false && *f.total > got && !paged && !f.false_flag_contradicted())
          fail("more-false-items-omitted", f.more_name, tick(f.more_name) + " is false but " + tick(f.total_name) + " is " + detail::num(*f.total) +
               " and" + in_list + " there are " + detail::num(got) + " items: " + detail::num(*f.total - got) +
               " were silently omitted");
      }
      if (f.showing && a.data->is_structured()) {
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
    // A breakdown beside the list must add up to its total and agree with the items.
    if (a.data->is_object() && !paged) {
      if (auto b = breakdown_mismatch(*a.data, f.more == true || f.flagged)) {
        compared = true;
        out.fail(generic_finding("TR-COUNT", request, raw,
                                 {{"form", "breakdown-mismatch"}, {"field", path_shape(b->counts)}, {"list", path_shape(b->list)}},
                                 b->detail + ". An agent reads the counts as the list's summary", a));
      }
    }
    // The items the request named, each answered or said to be missing.
    {
      bool judged = false;
      // A hint text (`message`, `note`) is no cut here: what it says is read for "not found" below.
      const bool cut = f.says_less() || paged || f.counts_more();
      if (auto m = named_items_missing(a, request, f, cut, &judged))
        out.fail(generic_finding("TR-COUNT", request, raw, {{"form", "named-items-missing"}, {"field", m->argument}},
                                 m->detail + ". An agent that asked for them reads the silence as an answer", a));
      compared = compared || judged;
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
    if (a.data->is_array()) {
      list = a.data;
    } else if (a.data->is_object()) {
      std::string name, holder;
      bool ambiguous = false;
      const json* o = list_holder(*a.data, name, holder, ambiguous);
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

}  // namespace ctxo::checks
