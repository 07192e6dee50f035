// SPDX-License-Identifier: MIT
// The helpers the envelope checks share (checks/envelope_util.h): pointer access through profile
// fields, integer reading, sizes in a profile's unit, truncatable arrays, finding construction.
#include "checks/envelope_util.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "core/json_bounded.h"
#include "checks/envelope_util.h"
#include "core/cause.h"
#include "core/text.h"
#include "truncation/js_json.h"
#include "truncation/unicode.h"

namespace ctxo::checks {

namespace detail {

const json* at(const json& doc, const std::optional<std::string>& pointer) {
  if (!pointer) return nullptr;
  return profile::resolve_pointer(doc, *pointer);
}

std::optional<std::int64_t> as_int(const json* v) {
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<std::int64_t>();
  if (v->is_number_unsigned()) {
    auto u = v->get<std::uint64_t>();
    return u > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(u);
  }
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

std::string pointer_name(std::string_view pointer) {
  if (pointer.empty()) return "the envelope";
  auto slash = pointer.rfind('/');
  std::string token(pointer.substr(slash + 1));
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size()) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

std::optional<bool> truncated_flag(const profile::Profile& p, const json& env) {
  if (!p.fields.truncated) return std::nullopt;
  const json* v = at(env, p.fields.truncated);
  if (!v) return p.fields.truncated_may_be_absent ? std::optional<bool>(false) : std::nullopt;
  if (v->is_boolean()) return v->get<bool>();
  // meta: a null flag is an omitted one.
  if (v->is_null() && p.fields.truncated_may_be_absent) return false;
  return std::nullopt;
}

std::vector<Truncatable> truncatables(const profile::Profile& p, const json& env) {
  std::vector<Truncatable> out;
  if (!p.truncation) return out;
  const auto& tr = *p.truncation;
  const json* c = profile::resolve_pointer(env, tr.container);
  if (!c) return out;
  auto add = [&](const std::string& ptr, const json& v) {
    if (v.is_array()) {
      out.push_back({ptr, &v, v.size(), false});
    } else if (v.is_string() && tr.string_values) {
      out.push_back({ptr, &v, truncation::code_points(v.get_ref<const std::string&>()), true});
    }
  };
  if (tr.selection == profile::Selection::kContainer || !c->is_object()) {
    add(tr.container, *c);
    return out;
  }
  std::set<std::string> seen;
  for (const auto& f : tr.fields) {
    auto it = c->find(f);
    if (it == c->end() || !it->is_array()) continue;
    seen.insert(f);
    out.push_back({tr.container + "/" + profile::escape_pointer_token(f), &*it, it->size(), false});
  }
  if (tr.selection == profile::Selection::kAny && tr.any_array) {
    for (auto it = c->begin(); it != c->end(); ++it) {
      if (!it->is_array() || seen.count(it.key())) continue;
      out.push_back({tr.container + "/" + profile::escape_pointer_token(it.key()), &*it, it->size(), false});
    }
  }
  return out;
}

std::optional<Truncatable> cut_array(const std::vector<Truncatable>& cands, std::optional<std::int64_t> returned) {
  if (cands.empty()) return std::nullopt;
  if (returned) {
    for (const auto& c : cands)
      if (static_cast<std::int64_t>(c.length) == *returned) return c;
  }
  const Truncatable* best = &cands.front();
  for (const auto& c : cands)
    if (c.length > best->length) best = &c;
  return *best;
}

namespace {
truncation::Measure unit_measure(const profile::Profile& p) {
  if (!p.limit || p.limit->kind == profile::LimitKind::kBytes) return truncation::Measure::kUtf8Bytes;
  switch (p.limit->unit) {
    case profile::CountUnit::kUtf8: return truncation::Measure::kUtf8Bytes;
    case profile::CountUnit::kUtf16: return truncation::Measure::kUtf16Units;
    case profile::CountUnit::kCodePoint: return truncation::Measure::kCodePoints;
  }
  return truncation::Measure::kUtf8Bytes;
}

std::int64_t tokens_of(const profile::Profile& p, std::size_t chars) {
  std::int64_t cpt = p.limit && p.limit->chars_per_token && *p.limit->chars_per_token > 0 ? *p.limit->chars_per_token : 4;
  auto c = static_cast<std::int64_t>(chars);
  bool up = !p.limit || p.limit->round_up;
  return up ? (c + cpt - 1) / cpt : c / cpt;
}
}  // namespace

std::int64_t limit_size(const profile::Profile& p, std::string_view text) {
  auto chars = truncation::text_measure(text, unit_measure(p));
  if (p.limit && p.limit->kind == profile::LimitKind::kTokens) return tokens_of(p, chars);
  return static_cast<std::int64_t>(chars);
}

std::string limit_unit_name(const profile::Profile& p) {
  if (p.limit && p.limit->kind == profile::LimitKind::kTokens) return "tokens";
  switch (unit_measure(p)) {
    case truncation::Measure::kUtf8Bytes: return "bytes";
    case truncation::Measure::kUtf16Units: return "UTF-16 units";
    case truncation::Measure::kCodePoints: return "code points";
  }
  return "units";
}

int detect_indent(std::string_view text) {
  std::size_t pos = text.find('\n');
  while (pos != std::string_view::npos) {
    std::size_t start = pos + 1;
    std::size_t n = 0;
    while (start + n < text.size() && text[start + n] == ' ') ++n;
    if (n > 0) return static_cast<int>(std::min<std::size_t>(n, 10));
    pos = text.find('\n', start);
  }
  return -1;
}

// E-SCHEMA's cause: the form and, for each violation, where (array indices as "*") and which rule
// (valijson's words, numbers blanked); never the values the envelope held.
std::map<std::string, std::string> schema_cause(const profile::EnvelopeCheck& vc) {
  std::map<std::string, std::string> c = {
      {"form", vc.form ? std::string(profile::form_name(*vc.form)) : std::string("envelope")}};
  std::set<std::string> rules;
  for (const auto& v : vc.violations) rules.insert(path_shape(v.pointer) + " " + digits_blanked(v.message));
  std::string joined;
  for (const auto& r : rules) joined += (joined.empty() ? "" : "; ") + r;
  c["rules"] = joined;
  return c;
}

Finding make_finding(const char* id, const ParsedEnvelope& env, std::map<std::string, std::string> cause,
                     std::string diagnosis) {
  Finding f;
  f.invariant = id;
  f.cause = std::move(cause);
  f.severity = Severity::kError;
  f.request = env.request;
  f.response_excerpt = excerpt(env.text, 400);
  f.diagnosis = std::move(diagnosis);
  return f;
}

Finding reply_finding(const char* id, const mcp::Reply& r, std::string diagnosis, Severity sev) {
  Finding f;
  f.invariant = id;
  f.severity = sev;
  f.request = r.request;
  f.response_excerpt =
      excerpt(r.raw.empty() ? (r.kind == mcp::Reply::Kind::kError ? r.error.dump() : r.result.dump()) : r.raw, 400);
  f.diagnosis = std::move(diagnosis);
  return f;
}

std::string num(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  int k = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (k && k % 3 == 0) out += ',';
    out += *it;
    ++k;
  }
  if (n < 0) out += '-';
  return {out.rbegin(), out.rend()};
}

std::string total_bytes_problem(const profile::Profile& p, std::int64_t reported, const json& full,
                                std::initializer_list<int> indents, const std::string& where) {
  const std::string& ptr = *p.fields.total_bytes;
  auto slash = ptr.rfind('/');
  std::string parent = slash == 0 || slash == std::string::npos ? ptr : ptr.substr(0, slash);
  json payload = full;
  remove_at(payload, parent);
  auto compact = static_cast<std::int64_t>(truncation::js_json_size(payload, -1));
  auto indented = static_cast<std::int64_t>(truncation::js_json_size(payload, *indents.begin()));
  bool utf16 = reported == static_cast<std::int64_t>(truncation::js_json_utf16_size(payload, -1));
  for (int indent : indents) {
    if (reported == compact || reported == static_cast<std::int64_t>(truncation::js_json_size(payload, indent)))
      return "";
    utf16 = utf16 || reported == static_cast<std::int64_t>(truncation::js_json_utf16_size(payload, indent));
  }
  return "`" + pointer_name(ptr) + "` says " + num(reported) + " but the full payload without `" + pointer_name(parent) +
         "` is " + num(compact) + " UTF-8 bytes compact" +
         (indented != compact ? " (" + num(indented) + " indented)" : std::string()) +
         (utf16 ? "; the server counted UTF-16 units, not bytes" : "") + where;
}

}  // namespace detail

}  // namespace ctxo::checks
