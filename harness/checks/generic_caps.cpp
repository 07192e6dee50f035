// SPDX-License-Identifier: MIT
// TR-PREFIX and TR-MAXIMAL (generic) for a cap that is a constant of the server (issue 42): a cut
// answer is called again with the tool's own item-count limit at what it kept (k) and one more
// (cap_calls), and compared with those answers (check_caps). checks/generic_caps.h is the contract.
#include "checks/generic_caps.h"

#include <algorithm>
#include <cctype>

#include "checks/envelope_util.h"
#include "checks/generic_internal.h"
#include "core/text.h"

namespace ctxo::checks {

using namespace generic_detail;

namespace {

using IsLimit = std::function<bool(const std::string&)>;

const json* properties(const json& schema) {
  if (!schema.is_object()) return nullptr;
  const auto it = schema.find("properties");
  return it != schema.end() && it->is_object() ? &*it : nullptr;
}

bool integer_property(const json& p) {
  if (!p.is_object()) return false;
  const auto t = p.find("type");
  if (t == p.end()) return false;
  if (t->is_string()) return *t == "integer";
  if (t->is_array())
    for (const auto& x : *t)
      if (x == "integer") return true;
  return false;
}

std::optional<std::int64_t> member_int(const json& p, const char* key) {
  if (!p.is_object()) return std::nullopt;
  const auto it = p.find(key);
  return it == p.end() ? std::nullopt : detail::as_int(&*it);
}

/// `v` is a value the property accepts by its minimum and maximum (exclusive bounds included).
bool within(const json& p, std::int64_t v) {
  if (auto m = member_int(p, "minimum"); m && v < *m) return false;
  if (auto m = member_int(p, "maximum"); m && v > *m) return false;
  if (auto m = member_int(p, "exclusiveMinimum"); m && v <= *m) return false;
  if (auto m = member_int(p, "exclusiveMaximum"); m && v >= *m) return false;
  return true;
}

/// An answer cut below what its call asked for: `k` items kept, the item-count limit `param` the
/// call gave (`given`), or the one the schema declares ("" when the call gave none and no schema
/// names one: found among the calls by check_caps).
struct Cut {
  const ListedCall* call = nullptr;
  std::size_t k = 0;
  std::string param;
  std::optional<std::int64_t> given;
};

std::optional<Cut> cut_of(const ListedCall& c, const json* props, const IsLimit& is_limit) {
  if (!c.says_more || c.facts.ambiguous || c.items.size() < 2 || !c.arguments.is_object()) return std::nullopt;
  const std::size_t k = c.items.size();
  if (!c.facts.items || *c.facts.items != static_cast<std::int64_t>(k)) return std::nullopt;
  Cut cut{&c, k, "", std::nullopt};
  for (auto it = c.arguments.begin(); it != c.arguments.end(); ++it) {
    if (!is_limit(it.key())) continue;
    // A size or token budget the agent gave may be what cut it; two count limits: which one cut?
    if (!counts_items(it.key(), is_limit) || !it->is_number_integer() || cut.given) return std::nullopt;
    cut.param = it.key();
    cut.given = it->get<std::int64_t>();
  }
  if (cut.given && *cut.given <= static_cast<std::int64_t>(k)) return std::nullopt;  // the agent's own limit
  if (!cut.given && props)
    for (auto it = props->begin(); it != props->end(); ++it)
      if (counts_items(it.key(), is_limit) && integer_property(*it)) {
        cut.param = it.key();
        break;
      }
  return cut;
}

json with(const json& args, const std::string& param, std::int64_t v) {
  json a = args;
  a[param] = v;
  return a;
}

const ListedCall* find_call(const std::vector<ListedCall>& calls, const json& args, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (calls[i].arguments == args) return &calls[i];
  return nullptr;
}

/// With no schema (a transcript without tools/list): the item-count parameter another call added
/// to the cut call's arguments, set to k.
std::string param_by_calls(const std::vector<ListedCall>& calls, std::size_t n, const Cut& cut, const IsLimit& is_limit) {
  for (std::size_t i = 0; i < n; ++i) {
    const json& a = calls[i].arguments;
    if (!a.is_object() || a.size() != cut.call->arguments.size() + 1) continue;
    for (auto it = a.begin(); it != a.end(); ++it)
      if (!cut.call->arguments.contains(it.key()) && counts_items(it.key(), is_limit) && it->is_number_integer() &&
          it->get<std::int64_t>() == static_cast<std::int64_t>(cut.k) && with(cut.call->arguments, it.key(), 0) == with(a, it.key(), 0))
        return it.key();
  }
  return "";
}

std::string items_text(std::size_t n) { return detail::num(static_cast<std::int64_t>(n)) + (n == 1 ? " item" : " items"); }

/// How the answer said there is more.
std::string said_more(const ListFacts& f) {
  if (f.more == true && !f.more_name.empty()) return tick(f.more_name) + " true";
  if (f.flagged && !f.flag_name.empty()) return tick(f.flag_name) + " true";
  if (f.showing && f.showing->first < f.showing->second)
    return "\"showing " + detail::num(f.showing->first) + " of " + detail::num(f.showing->second) + "\"";
  if (f.total && f.items && *f.total > *f.items) return tick(f.total_name) + " " + detail::num(*f.total);
  if (f.more_prose) return "\"" + detail::num(*f.more_prose) + " more\"";
  return "that there is more";
}

/// A finding on the cut call `cut` under `id` and its cause `form`.
Finding cap_finding(const char* id, const char* form, const Cut& cut, std::string diagnosis) {
  Finding f;
  f.invariant = id;
  f.profile = "generic";
  f.cause = {{"form", form}, {"argument", cut.param}};
  f.request = cut.call->request;
  f.response_excerpt = cut.call->excerpt;
  f.diagnosis = std::move(diagnosis);
  return f;
}

std::string asked_text(const Cut& cut) {
  if (cut.given) return tick(cut.param) + " " + detail::num(*cut.given);
  return cut.param.empty() ? "no limit" : "no " + tick(cut.param);
}

}  // namespace

bool counts_items(const std::string& parameter, const IsLimit& is_limit) {
  if (!is_limit(parameter)) return false;
  std::string k;
  for (char ch : parameter)
    if (std::isalnum(static_cast<unsigned char>(ch))) k += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* size : {"token", "byte", "char", "budget", "length", "output", "resultsize"})
    if (k.find(size) != std::string::npos) return false;
  return true;
}

std::vector<json> cap_calls(const std::vector<ListedCall>& calls, const json& input_schema, const IsLimit& is_limit,
                            std::size_t max_cuts) {
  std::vector<json> out;
  const json* props = properties(input_schema);
  if (!props) return out;
  const auto known = [&](const json& args) {
    return find_call(calls, args, calls.size()) || std::find(out.begin(), out.end(), args) != out.end();
  };
  std::set<std::string> followed;  // other arguments, parameter and k
  for (const auto& c : calls) {
    if (followed.size() >= max_cuts) break;
    const auto cut = cut_of(c, props, is_limit);
    if (!cut || cut->param.empty() || !props->contains(cut->param)) continue;
    const json& p = (*props)[cut->param];
    if (!integer_property(p)) continue;
    json rest = c.arguments;
    rest.erase(cut->param);
    if (!followed.insert(cut->param + "\x1f" + std::to_string(cut->k) + "\x1f" + rest.dump()).second) continue;
    for (const std::int64_t v : {static_cast<std::int64_t>(cut->k), static_cast<std::int64_t>(cut->k) + 1}) {
      if (!within(p, v)) continue;
      json args = with(c.arguments, cut->param, v);
      if (!known(args)) out.push_back(std::move(args));
    }
  }
  return out;
}

Outcomes check_caps(const std::vector<ListedCall>& calls, const json& input_schema, const IsLimit& is_limit,
                    std::set<std::string>* reported) {
  Outcomes out;
  std::set<std::string> mine;
  if (!reported) reported = &mine;
  const json* props = properties(input_schema);
  const std::size_t n = std::min<std::size_t>(calls.size(), 256);
  bool cut_seen = false, prefix_judged = false, maximal_judged = false;
  for (std::size_t i = 0; i < n; ++i) {
    auto cut = cut_of(calls[i], props, is_limit);
    if (!cut) continue;
    if (cut->param.empty() || (!cut->given && !find_call(calls, with(cut->call->arguments, cut->param, static_cast<std::int64_t>(cut->k)), n)))
      if (std::string p = param_by_calls(calls, n, *cut, is_limit); !p.empty()) cut->param = p;
    if (cut->param.empty()) continue;
    cut_seen = true;
    const ListedCall& c = *cut->call;
    const std::size_t k = cut->k;
    const ListedCall* at_k = find_call(calls, with(c.arguments, cut->param, static_cast<std::int64_t>(k)), n);
    const ListedCall* at_k1 = find_call(calls, with(c.arguments, cut->param, static_cast<std::int64_t>(k) + 1), n);
    if (at_k1 == &c) at_k1 = nullptr;  // the cut call asked for k+1 itself: nothing to compare
    const std::string cut_desc = "the answer to " + excerpt(c.request.dump(), 200) + " returned " + items_text(k) +
                                 " and said there is more (" + said_more(c.facts) + ") though it asked for " +
                                 asked_text(*cut) + ": the cut came from a cap of the server, not from the call's limit";
    const auto same_first_k = [&](const ListedCall& d) {
      return d.items.size() >= k && std::equal(c.items.begin(), c.items.end(), d.items.begin());
    };

    // TR-PREFIX: the same call at limit k lists the same k items, in order.
    if (at_k && at_k != &c && !at_k->facts.ambiguous && at_k->items.size() == k) {
      // The tool's own order must be stable between calls: at k+1, k+1 items starting with those at k.
      const bool unstable = at_k1 && !at_k1->facts.ambiguous && at_k1->items.size() == k + 1 &&
                            !std::equal(at_k->items.begin(), at_k->items.end(), at_k1->items.begin());
      if (!unstable) {
        prefix_judged = true;
        if (at_k->items == c.items) {
          out.pass("TR-PREFIX");
        } else if (!reported->count("TR-PREFIX")) {
          std::size_t d = 0;
          while (d < k && at_k->items[d] == c.items[d]) ++d;
          const std::string where = d == 0 ? "from its first item" : "from item " + std::to_string(d + 1);
          const bool elsewhere = std::find(at_k->items.begin(), at_k->items.end(), c.items[d]) == at_k->items.end();
          out.fail(cap_finding("TR-PREFIX", "cut-not-a-prefix", *cut, cut_desc + "; the same call with " + tick(cut->param) + " " + detail::num(static_cast<std::int64_t>(k)) +
                        " (" + excerpt(at_k->request.dump(), 200) + ") returned " + items_text(k) + " and they differ " + where +
                        ": the cut answer has " + excerpt(c.items[d], 120) + " where the tool's own first " + items_text(k) +
                        " have " + excerpt(at_k->items[d], 120) +
                        (elsewhere ? " (the cut answer's item is not among them)" : "") +
                        ". A cut must keep the first items of the tool's own order (the items the same call returns "
                        "when asked for that many), so the next page can go on where it stopped."));
          reported->insert("TR-PREFIX");
        }
      }
    }

    // TR-MAXIMAL: the cut call asked for more than k; asked for k+1 (fewer), the server gives k+1
    // of the same list: the cap did not keep the largest prefix it could give.
    std::optional<std::int64_t> asked = cut->given;
    if (!asked && props && props->contains(cut->param)) asked = member_int((*props)[cut->param], "default");
    if (!at_k1 || at_k1->facts.ambiguous || !asked || *asked <= static_cast<std::int64_t>(k)) continue;
    if (at_k1->items.size() == k && at_k1->items == c.items && at_k1->says_more) {
      maximal_judged = true;
      out.pass("TR-MAXIMAL");
    } else if (at_k1->items.size() == k + 1 && same_first_k(*at_k1)) {
      maximal_judged = true;
      if (reported->count("TR-MAXIMAL")) continue;
      out.fail(cap_finding("TR-MAXIMAL", "constant-cap-not-largest", *cut, cut_desc + (cut->given ? "" : " (its declared default is " + detail::num(*asked) + ")") +
                    "; the same call with " + tick(cut->param) + " " + detail::num(static_cast<std::int64_t>(k) + 1) + " (" +
                    excerpt(at_k1->request.dump(), 200) + ") returned " + items_text(k + 1) +
                    ", the cut answer's " + items_text(k) + " and then " + excerpt(at_k1->items[k], 120) +
                    ": asked for fewer, the server gave more of the same list, so the cut did not keep the largest "
                    "prefix it could give. Apply one cap whatever the limit asked (or cut by size, keeping every item "
                    "that fits)."));
      reported->insert("TR-MAXIMAL");
    }
  }
  if (n == 0) return out;
  if (!cut_seen) {
    const std::string why = "no answer said it was cut below the item count its call asked for (a constant cap of the server)";
    out.unobserved("TR-PREFIX", why);
    out.unobserved("TR-MAXIMAL", why);
    return out;
  }
  if (!prefix_judged)
    out.unobserved("TR-PREFIX", "no call at the item count a cut answer kept returned that many items in a stable order");
  if (!maximal_judged)
    out.unobserved("TR-MAXIMAL",
                   "no cut answer asked for more than it kept (a limit, or a declared default) and was compared with the "
                   "same call at one item more");
  return out;
}

}  // namespace ctxo::checks
