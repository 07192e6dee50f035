// SPDX-License-Identifier: MIT
// Envelope checks across responses: E-STABLE (same call twice), E-MISS (lookup of an absent
// identifier) and the limit sweep (TR-ENV, TR-PREFIX, TR-MAXIMAL, TR-VERBATIM, TR-BYTES).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "checks/envelope.h"
#include "checks/envelope_util.h"
#include "core/cause.h"
#include "core/text.h"
#include "truncation/js_json.h"
#include "truncation/unicode.h"

namespace ctxo::checks {

using namespace detail;

namespace {

std::string quote(std::string_view s) { return "`" + std::string(s) + "`"; }

}  // namespace

namespace detail {
void remove_at(json& doc, const std::string& pointer) {
  auto slash = pointer.rfind('/');
  if (slash == std::string::npos) return;
  const json* parent = profile::resolve_pointer(doc, pointer.substr(0, slash));
  if (!parent) return;
  json& mp = const_cast<json&>(*parent);
  std::string key = pointer_name(pointer);
  if (mp.is_object()) {
    mp.erase(key);
  } else if (mp.is_array() && !key.empty() && std::all_of(key.begin(), key.end(), ::isdigit) && key.size() < 10) {
    auto i = std::stoul(key);
    if (i < mp.size()) mp.erase(i);
  }
}
}  // namespace detail

namespace {

/// The pointer itself when it is a member of the root, else its top-level ancestor (e.g. /_meta).
std::string top_level(const std::string& pointer) {
  auto second = pointer.find('/', 1);
  return second == std::string::npos ? pointer : pointer.substr(0, second);
}

/// Pointers of everything that describes truncation rather than payload.
std::vector<std::string> indicator_pointers(const profile::Profile& p) {
  std::vector<std::string> v;
  for (const auto* f : {&p.fields.ok, &p.fields.truncated, &p.fields.total_count, &p.fields.returned_count,
                        &p.fields.total_bytes, &p.fields.hint, &p.fields.dropped_count, &p.fields.dropped_kind,
                        &p.fields.warnings})
    if (*f && !f->value().empty()) v.push_back(top_level(**f));
  if (p.budget)
    for (const auto* s : {&p.budget->requested_pointer, &p.budget->used_pointer, &p.budget->max_pointer})
      if (!s->empty()) v.push_back(top_level(*s));
  return v;
}

json payload_of(const profile::Profile& p, const json& env) {
  json out = env;
  for (const auto& ptr : indicator_pointers(p)) remove_at(out, ptr);
  return out;
}

/// Keys whose values legitimately change from call to call (timings, clocks).
bool volatile_key(const std::string& key) {
  std::string k;
  for (char c : key) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* w : {"elapsed", "duration", "latency", "took", "timestamp", "timing", "time_ms", "timems",
                        "generatedat", "generated_at", "requestid", "request_id"})
    if (k.find(w) != std::string::npos) return true;
  return false;
}

void drop_volatile(json& j) {
  std::vector<json*> stack{&j};
  while (!stack.empty()) {
    json* n = stack.back();
    stack.pop_back();
    if (n->is_object()) {
      for (auto it = n->begin(); it != n->end();) {
        if (volatile_key(it.key())) it = n->erase(it);
        else {
          if (it->is_structured()) stack.push_back(&*it);
          ++it;
        }
      }
    } else if (n->is_array()) {
      for (auto& c : *n)
        if (c.is_structured()) stack.push_back(&c);
    }
  }
}

std::vector<std::string> hint_pointers(const profile::Profile& p) {
  std::vector<std::string> v;
  if (p.fields.hint) v.push_back(*p.fields.hint);
  for (auto k : {profile::FormKind::kSuccess, profile::FormKind::kMiss, profile::FormKind::kError})
    if (const auto* f = p.form(k); f && f->hint_pointer) v.push_back(*f->hint_pointer);
  return v;
}


/// What E-STABLE compares of an envelope whose hints are already out: no warnings, no key whose
/// value changes from call to call.
json stable_payload(const profile::Profile& p, json env) {
  if (p.fields.warnings) remove_at(env, *p.fields.warnings);
  drop_volatile(env);
  return env;
}

std::int64_t effective(const profile::Profile& p, std::int64_t limit) {
  double m = p.limit ? p.limit->margin : 1.0;
  if (!(m > 0.0) || m > 1.0) m = 1.0;
  return static_cast<std::int64_t>(std::floor(static_cast<double>(limit) * m));
}

}  // namespace

Outcomes check_stable(const ParsedEnvelope& first, const ParsedEnvelope& second) {
  Outcomes out;
  try {
    if (!first.profile || !second.profile || !first.envelope.is_object() || !second.envelope.is_object()) return out;
    out.pass("E-STABLE");
    if (first.text == second.text) return out;
    const profile::Profile& p = *first.profile;
    // Hints are compared strictly when the profile says they are stable (safe to pattern-match);
    // otherwise (e.g. a command with an opaque cursor) they are left out of the comparison.
    bool strict = !p.hint || p.hint->stable;
    json a = first.envelope, b = second.envelope;
    for (const auto& ptr : hint_pointers(p)) {
      const json* ha = profile::resolve_pointer(a, ptr);
      const json* hb = profile::resolve_pointer(b, ptr);
      if (strict && ha && hb && *ha != *hb) {
        out.push_back(make_finding("E-STABLE", second, {{"form", "hint-differs"}, {"field", path_shape(ptr)}},
                                   "the same call answered twice gave two different hints at " + ptr + ": " +
                                       excerpt(ha->dump(), 120) + " then " + excerpt(hb->dump(), 120)));
      }
      remove_at(a, ptr);
      remove_at(b, ptr);
    }
    a = stable_payload(p, std::move(a));
    b = stable_payload(p, std::move(b));
    if (a != b) {
      json d = json::diff(a, b);
      std::string path = d.empty() ? "" : d[0].value("path", std::string());
      const json* va = profile::resolve_pointer(a, path);
      const json* vb = profile::resolve_pointer(b, path);
      out.push_back(make_finding("E-STABLE", second, {{"form", "payload-differs"}, {"field", path_shape(path)}},
                                 "the same call answered twice gave different envelopes; first difference at " +
                                     (path.empty() ? std::string("(root)") : path) + ": " +
                                     (va ? excerpt(va->dump(), 100) : std::string("absent")) + " then " +
                                     (vb ? excerpt(vb->dump(), 100) : std::string("absent"))));
    }
  } catch (...) {
  }
  return out;
}

json stable_form(const mcp::Reply& reply, const ParsedEnvelope& pe) {
  if (pe.profile && pe.envelope.is_object()) {
    json env = pe.envelope;
    for (const auto& ptr : hint_pointers(*pe.profile)) remove_at(env, ptr);
    return stable_payload(*pe.profile, std::move(env));
  }
  if (reply.kind == mcp::Reply::Kind::kError) {
    json e = reply.error.is_object() ? json{{"code", reply.error.value("code", json())}, {"message", reply.error.value("message", json())}}
                                     : reply.error;
    return json{{"error", std::move(e)}};
  }
  if (reply.kind != mcp::Reply::Kind::kResult)
    return json{{"unanswered", reply.kind == mcp::Reply::Kind::kClosed ? "closed" : "timeout"}};
  json out = reply.result.is_object() ? reply.result : json{{"result", reply.result}};
  if (out.is_object()) out.erase("_meta");
  // A text part that is JSON is compared as JSON, so its volatile keys can be left out too.
  if (out.contains("content") && out["content"].is_array())
    for (auto& part : out["content"])
      if (part.is_object() && part.contains("text") && part["text"].is_string()) {
        json parsed = json::parse(part["text"].get<std::string>(), nullptr, false);
        if (!parsed.is_discarded() && parsed.is_structured()) part["text"] = std::move(parsed);
      }
  drop_volatile(out);
  return out;
}

Outcomes check_miss(const ParsedEnvelope& env, const mcp::Reply& reply) {
  Outcomes out;
  try {
    if (reply.kind != mcp::Reply::Kind::kResult || !env.profile) return out;
    const profile::Profile& p = *env.profile;
    out.pass("E-MISS");
    ParsedEnvelope ctx = env;
    if (ctx.request.is_null()) ctx.request = reply.request;
    if (ctx.text.empty()) ctx.text = reply.raw;
    bool is_error = reply.is_error_result();
    if (!env.envelope.is_object()) {
      if (is_error)
        out.push_back(make_finding("E-MISS", ctx, {{"form", "plain-text-error"}},
                                   "looking up an identifier that does not exist gave an isError result with plain "
                                   "text instead of a graceful " +
                                       std::string(p.miss ? "miss" : "answer")));
      return out;
    }
    if (env.form == profile::FormKind::kMiss) return out;
    if (env.form == profile::FormKind::kError) {
      const profile::Form* f = p.form(profile::FormKind::kError);
      std::string code;
      if (f && f->code_pointer)
        if (const json* c = at(env.envelope, f->code_pointer); c && c->is_string()) code = c->get<std::string>();
      if (f && !code.empty() && std::find(f->miss_codes.begin(), f->miss_codes.end(), code) != f->miss_codes.end())
        return out;
      std::string want = p.miss ? "the miss form" : (f && !f->miss_codes.empty() ? "an error with a miss code" : "a graceful answer");
      out.push_back(make_finding("E-MISS", ctx, {{"form", "error-envelope"}, {"code", code}},
                                 "looking up an identifier that does not exist gave an error envelope" +
                                     (code.empty() ? std::string() : " with code " + quote(code)) + " instead of " + want));
      return out;
    }
    // Success (e.g. an empty search) is accepted: a tool whose parameter only filters may answer
    // an absent identifier with nothing found. An isError flag on it is not.
    if (is_error)
      out.push_back(make_finding("E-MISS", ctx, {{"form", "iserror-success"}},
                                 "looking up an identifier that does not exist gave an isError result"));
  } catch (...) {
  }
  return out;
}

Outcomes check_sweep(const std::vector<SweepPoint>& points, std::vector<Superseded>* superseded) {
  Outcomes out;
  try {
    std::vector<const SweepPoint*> pts;
    for (const auto& pt : points)
      if (pt.env.profile && pt.env.envelope.is_object() && pt.env.form == profile::FormKind::kSuccess && pt.limit > 0)
        pts.push_back(&pt);
    if (pts.size() < 2) return out;
    const profile::Profile& p = *pts.front()->env.profile;
    for (const auto* q : pts)
      if (q->env.profile != &p && q->env.profile->name != p.name) return out;  // answers of different shapes
    const SweepPoint* full = *std::max_element(pts.begin(), pts.end(), [](auto* x, auto* y) { return x->limit < y->limit; });
    const SweepPoint* def = nullptr;
    for (const auto* q : pts)
      if (q->is_default) def = q;
    const std::string unit = limit_unit_name(p);
    const std::string var = p.limit && p.limit->env ? *p.limit->env + "=" : std::string("limit ");
    auto supersede = [&](std::int64_t limit, const char* id) {
      if (superseded) superseded->push_back(Superseded{limit, id});
    };

    // TR-ENV: an answer byte-identical to the default one where honouring the variable would have
    // changed it. Evidence is needed that the server did not read the variable: an answer that is
    // already at its minimum (one item kept, or nothing left to cut) or whose payload fits without
    // its truncation metadata is over the limit for another reason, which TR-CAP names.
    if (def) {
      out.pass("TR-ENV");
      auto d_size = limit_size(p, def->env.text);
      auto d_trunc = truncated_flag(p, def->env.envelope);
      auto d_cut = cut_array(truncatables(p, def->env.envelope), as_int(at(def->env.envelope, p.fields.returned_count)));
      json d_payload = payload_of(p, def->env.envelope);
      auto d_payload_size = limit_size(p, truncation::to_js_json(d_payload, def->env.indent));
      for (const auto* q : pts) {
        if (q == def || q->limit == def->limit || q->env.text != def->env.text) continue;
        bool smaller = effective(p, q->limit) < d_size && d_cut && d_cut->length > 1 &&
                       d_payload_size > effective(p, q->limit) && q->limit < def->limit;
        // Larger: only when the default answer's cut can be the limit's. A payload the envelope
        // says is no larger than the default limit (`totalBytes`; characters and tokens are fewer)
        // was cut by something else, such as an item count the tool applies by default.
        const auto d_total = p.fields.total_bytes ? as_int(at(def->env.envelope, p.fields.total_bytes)) : std::nullopt;
        bool larger = q->limit > def->limit && d_trunc == true && !(d_total && *d_total <= effective(p, def->limit));
        if (!smaller && !larger) continue;
        supersede(q->limit, "TR-CAP");
        out.push_back(make_finding(
            "TR-ENV", q->env, {{"form", "override-ignored"}, {"variable", var}},
            "with " + var + num(q->limit) + " the answer is byte-identical to the answer under the default limit " +
                num(def->limit) + (smaller ? " although that answer is " + num(d_size) + " " + unit + ", over " + num(q->limit)
                                           : std::string(" although that answer was truncated")) +
                ": the limit override is ignored"));
      }
    }

    if (truncated_flag(p, full->env.envelope) != false) {
      for (const char* id : {"TR-PREFIX", "TR-MAXIMAL", "TR-VERBATIM"})
        out.unobserved(id, "the answer under the largest limit was itself truncated, so the full array is unknown");
      return out;
    }
    if (truncated_flag(p, full->env.envelope) != false) return out;
    const json& fe = full->env.envelope;
    auto full_size = limit_size(p, full->env.text);
    json full_payload = payload_of(p, fe);
    drop_volatile(full_payload);

    const auto full_cut = cut_array(truncatables(p, fe), as_int(at(fe, p.fields.returned_count)));
    bool any_truncated = false, any_fits = false;
    for (const auto* q : pts) {
      if (q == full) continue;
      const json& qe = q->env.envelope;
      auto q_trunc = truncated_flag(p, qe);
      auto eff = effective(p, q->limit);
      // TR-COUNT, silent omission: the answer says nothing is missing, yet the same call under the
      // largest limit returns more items. That is the root cause; its totalBytes (describing the
      // full payload) is then right, so a TR-BYTES on this answer is superseded.
      if (q_trunc == false && full_cut && !full_cut->is_string) {
        const json* qa = profile::resolve_pointer(qe, full_cut->pointer);
        if (qa && qa->is_array() && qa->size() < full_cut->length) {
          supersede(q->limit, "TR-BYTES");
          auto missing = static_cast<std::int64_t>(full_cut->length - qa->size());
          out.push_back(make_finding("TR-COUNT", q->env,
                                     {{"form", "silently-dropped"}, {"array", path_shape(full_cut->pointer)}},
                                     num(missing) + " items silently dropped: with " + var + num(q->limit) + " " +
                                         quote(pointer_name(full_cut->pointer)) + " has " +
                                         num(static_cast<std::int64_t>(qa->size())) +
                                         " items and truncated is false, but with " + var + num(full->limit) +
                                         " the same call returns " + num(static_cast<std::int64_t>(full_cut->length)) +
                                         "; a cut must set truncated and report the total"));
          continue;
        }
      }
      // TR-VERBATIM.
      if (full_size <= eff) {
        any_fits = true;
        out.pass("TR-VERBATIM");
        if (q_trunc == true)
          out.push_back(make_finding("TR-VERBATIM", q->env, {{"form", "truncated-although-fits"}},
                                     "with " + var + num(q->limit) + " the answer is truncated although the full answer is only " +
                                         num(full_size) + " " + unit + " and fits"));
        else if (json qp = payload_of(p, qe); drop_volatile(qp), qp != full_payload)
          out.push_back(make_finding("TR-VERBATIM", q->env, {{"form", "payload-differs-although-fits"}},
                                     "with " + var + num(q->limit) + " the payload differs from the full answer (" + num(full_size) +
                                         " " + unit + ", which fits) although truncated is false"));
        continue;
      }
      if (q_trunc != true) continue;
      any_truncated = true;
      out.pass("TR-PREFIX");
      if (!(p.limit && p.limit->kind == profile::LimitKind::kTokens)) out.pass("TR-MAXIMAL");
      auto returned = as_int(at(qe, p.fields.returned_count));
      auto cut = cut_array(truncatables(p, qe), returned);
      // TR-BYTES on truncated answers: the size of the full payload.
      if (p.fields.total_bytes) {
        auto reported = as_int(at(qe, p.fields.total_bytes));
        if (reported) {
          // The full answer may be indented differently from the cut one: either indent is right.
          auto d = total_bytes_problem(p, *reported, fe, {full->env.indent, q->env.indent},
                                       " (this call: the full payload is the answer under " + var + num(full->limit) + ")");
          if (!d.empty())
            out.push_back(make_finding("TR-BYTES", q->env,
                                       {{"form", "not-utf8-size"}, {"field", pointer_name(*p.fields.total_bytes)}},
                                       std::move(d)));
        }
      }
      if (!cut) continue;
      const json* fa = profile::resolve_pointer(fe, cut->pointer);
      std::string name = quote(pointer_name(cut->pointer));
      // TR-PREFIX.
      bool prefix_ok = true;
      if (!fa || fa->type() != cut->value->type()) {
        prefix_ok = false;
        out.push_back(make_finding("TR-PREFIX", q->env, {{"form", "no-counterpart"}, {"array", path_shape(cut->pointer)}},
                                   "the truncated " + name + " has no counterpart of the same type in the full answer from " +
                                       var + num(full->limit)));
      } else if (cut->is_string) {
        const auto& qs = cut->value->get_ref<const std::string&>();
        const auto& fs = fa->get_ref<const std::string&>();
        if (fs.compare(0, qs.size(), qs) != 0) {
          prefix_ok = false;
          out.push_back(make_finding("TR-PREFIX", q->env, {{"form", "not-a-prefix"}, {"array", path_shape(cut->pointer)}},
                                     "the truncated string " + name + " is not a prefix of the full string from " + var + num(full->limit)));
        }
      } else {
        for (std::size_t i = 0; i < cut->value->size(); ++i) {
          if (i >= fa->size() || (*cut->value)[i] != (*fa)[i]) {
            prefix_ok = false;
            out.push_back(make_finding("TR-PREFIX", q->env, {{"form", "not-a-prefix"}, {"array", path_shape(cut->pointer)}},
                                       "item " + std::to_string(i) + " of the truncated " + name +
                                           (i >= fa->size() ? " does not exist in the full answer (it has " + std::to_string(fa->size()) + " items)"
                                                            : " differs from item " + std::to_string(i) + " of the full answer from " + var + num(full->limit)) +
                                           ": the truncated list is not a prefix of the full one"));
            break;
          }
        }
      }
      // TR-MAXIMAL: not for token budgets (the seed reserves unspecified headroom).
      if (!prefix_ok || (p.limit && p.limit->kind == profile::LimitKind::kTokens)) continue;
      std::size_t full_len = cut->is_string ? truncation::code_points(fa->get_ref<const std::string&>()) : fa->size();
      if (cut->length + 1 >= full_len) continue;  // the next answer would be the verbatim one (TR-VERBATIM)
      json cand = qe;
      json& arr = const_cast<json&>(*profile::resolve_pointer(cand, cut->pointer));
      if (cut->is_string) {
        const auto& fs = fa->get_ref<const std::string&>();
        std::size_t off = cut->value->get_ref<const std::string&>().size();
        auto step = truncation::decode_utf8(fs, off);
        if (step.length == 0) continue;
        arr = arr.get<std::string>() + fs.substr(off, step.length);
      } else {
        arr.push_back((*fa)[cut->length]);
      }
      if (p.fields.returned_count && returned) {
        if (const json* r = profile::resolve_pointer(cand, *p.fields.returned_count))
          const_cast<json&>(*r) = *returned + 1;
      }
      // Slack of 2 units for self-describing sizes (e.g. estimated_chars) whose digits may grow.
      auto size = limit_size(p, truncation::to_js_json(cand, q->env.indent)) + 2;
      if (size <= eff)
        out.push_back(make_finding("TR-MAXIMAL", q->env, {{"form", "not-largest-prefix"}, {"array", path_shape(cut->pointer)}},
                                   "with " + var + num(q->limit) + " the answer keeps " + num(static_cast<std::int64_t>(cut->length)) +
                                       " of " + num(static_cast<std::int64_t>(full_len)) + " items of " + name +
                                       ", but with one more it would be " + num(size - 2) + " " + unit + " and still fit"));
    }
    if (!any_truncated)
      for (const char* id : {"TR-PREFIX", "TR-MAXIMAL"}) out.unobserved(id, "no answer of the limit sweep was truncated");
    if (!any_fits) out.unobserved("TR-VERBATIM", "no sweep limit was large enough for the full answer");
  } catch (...) {
  }
  return out;
}

}  // namespace ctxo::checks
