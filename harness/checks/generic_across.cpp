// SPDX-License-Identifier: MIT
// The generic rules across calls (checks/generic.h): what a call's answer said about its list
// (listed_call), a silent omission against the same call with a larger limit (TR-COUNT,
// check_omissions), the next page it named fetched and compared (TR-RESUME, resume_calls,
// check_resumes), and the generic judge of one answer (GenericJudge).
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

namespace {

/// The answer's value for the next page (Vocabulary::resume): beside its list, in an object of
/// its own there (`pagination.nextCursor`), or at the top. `field` gets its name.
const json* next_page_value(const GenericAnswer& a, const Vocabulary& v, std::string& field) {
  if (!a.data->is_object()) return nullptr;
  std::string list, holder, name;
  bool ambiguous = false;
  const json* o = list_holder(*a.data, list, holder, ambiguous);
  for (const json* where : {o, a.data}) {
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

std::optional<ListedCall> listed_call(const mcp::Answer& answer, const json& arguments) {
  const mcp::Reply& reply = answer.reply();
  const auto& v = builtin_vocabulary();
  if (!v || reply.kind != mcp::Reply::Kind::kResult || reply.is_error_result()) return std::nullopt;
  ListedCall c;
  const GenericAnswer a = read_answer(answer);
  c.facts = list_facts(a, *v);
  if (!c.facts.items) return std::nullopt;
  c.arguments = arguments.is_object() ? arguments : json::object();
  c.request = reply.request;
  c.excerpt = excerpt(reply.raw.empty() ? reply.result.dump() : reply.raw, 400);
  const ListFacts& f = c.facts;
  c.says_more = f.says_less() || f.counts_more();
  if (c.says_more) {
    if (const json* n = next_page_value(a, *v, c.next_field)) c.next_value = *n;
  }
  // Every call keeps its items (up to list_items' byte bound): TR-RESUME compares a page that
  // names the next with the page fetched and with the same call at a larger limit.
  if (auto items = list_items(a)) c.items = std::move(*items);
  return c;
}

std::optional<ListedCall> listed_call(const mcp::Reply& reply, const json& arguments) {
  return listed_call(mcp::Answer(reply), arguments);
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

bool says_truncated(const mcp::Answer& answer, const GenericAnswer* read) {
  const mcp::Reply& reply = answer.reply();
  const auto& v = builtin_vocabulary();
  if (!v || reply.kind != mcp::Reply::Kind::kResult || reply.is_error_result() || reply.raw.size() > (4u << 20))
    return false;
  try {
    return list_facts(read ? *read : read_answer(answer), *v).says_less();
  } catch (...) {
    return false;
  }
}

bool says_truncated(const mcp::Reply& reply) { return says_truncated(mcp::Answer(reply)); }

void GenericJudge::judge(const mcp::Answer& answer, const GenericAnswer& a, Outcomes& out) {
  try {
    const mcp::Reply& reply = answer.reply();
    if (reply.kind != mcp::Reply::Kind::kResult || reply.is_error_result()) return;
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
