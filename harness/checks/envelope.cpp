// SPDX-License-Identifier: MIT
// Envelope extraction and the per-response envelope checks (E-PARSE, E-SCHEMA, E-ERROR,
// E-HINT-REF, TR-HINT, TR-COUNT, TR-CAP, TR-BYTES, B-*) as docs/ENVELOPE-CHECKS.md defines them.
#include "checks/envelope.h"

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

using namespace detail;

namespace {

std::string quote(std::string_view s) { return "`" + std::string(s) + "`"; }

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

/// A JSON object embedded in text with something around it ("warning: ... {...}").
std::optional<json> embedded_object(std::string_view text) {
  auto b = text.find('{');
  auto e = text.rfind('}');
  if (b == std::string_view::npos || e == std::string_view::npos || e <= b) return std::nullopt;
  json j = parse_bounded(text.substr(b, e - b + 1));
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

std::optional<std::int64_t> positive_env(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  if (it == env.end() || it->second.empty() || it->second.size() > 18) return std::nullopt;
  std::int64_t v = 0;
  for (char c : it->second) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v > 0 ? std::optional<std::int64_t>(v) : std::nullopt;
}


}  // namespace

ParsedEnvelope extract_envelope(const EnvelopeInput& in) {
  ParsedEnvelope out;
  try {
    if (!in.reply) return out;
    out.request = in.reply->request;
    if (in.reply->kind != mcp::Reply::Kind::kResult || !in.reply->result.is_object()) return out;
    const json& result = in.reply->result;
    // The answer's one reading (built here when the caller has none).
    std::optional<mcp::Answer> own;
    const mcp::Answer& answer = in.answer ? *in.answer : own.emplace(*in.reply);
    // The parts whose content block says "type":"text".
    std::vector<const mcp::AnswerPart*> typed;
    for (const auto& part : answer.read())
      if (part.typed_text) typed.push_back(&part);
    std::vector<std::string_view> texts;
    for (const auto* part : typed) texts.emplace_back(*part->text);
    // Which text part holds the envelope: the first that is exactly a JSON object, else the first
    // with one embedded in other text.
    std::optional<std::size_t> chosen;
    bool exact = false;
    std::size_t exact_objects = 0;
    std::optional<json> obj;
    for (std::size_t i = 0; i < typed.size(); ++i) {
      if (typed[i]->whole.is_object()) {
        ++exact_objects;
        if (!exact) {
          chosen = i;
          exact = true;
          obj = typed[i]->whole;
        }
      }
    }
    if (!chosen) {
      for (std::size_t i = 0; i < texts.size() && !chosen; ++i) {
        if (auto o = embedded_object(texts[i])) {
          chosen = i;
          obj = std::move(o);
        }
      }
    }
    // The profile: forced, else detected on the object found.
    const profile::Profile* prof = nullptr;
    if (in.forced) {
      if (in.forced->location == profile::Location::kNone) return out;
      prof = in.forced;
    } else if (obj && in.candidates) {
      prof = profile::detect(*obj, *in.candidates);
      if (prof && prof->location == profile::Location::kNone) prof = nullptr;
    }
    if (!prof) return out;
    out.profile = prof;
    if (chosen) out.text = std::string(texts[*chosen]);
    else if (!texts.empty()) out.text = std::string(texts.front());
    else out.text = in.reply->raw.empty() ? result.dump() : in.reply->raw;
    // Limit in effect.
    if (prof->limit) {
      if (prof->limit->env) out.limit = positive_env(in.env, *prof->limit->env);
      if (!out.limit) out.limit = prof->limit->default_value;
    }
    if (!obj) {
      // A plain-text isError answer is an acceptable error for profiles that say so; for other
      // forced profiles it is E-ERROR (reported by check_envelope), not E-PARSE.
      if (in.reply && in.reply->is_error_result()) return out;
      if (texts.empty()) out.parse_problems.push_back({"no-text-part", "the result has no text content part"});
      else out.parse_problems.push_back({"no-json-object", "no text part holds a JSON object (the text is " +
                                                               excerpt(texts.front(), 80) + ")"});
      return out;
    }
    out.envelope = std::move(*obj);
    out.indent = detect_indent(out.text);
    out.form = profile::classify(*prof, out.envelope);
    if (!exact)
      out.parse_problems.push_back({"text-around-object", "the JSON object in text part " +
                                                              std::to_string(*chosen + 1) +
                                                              " has other text before or after it"});
    if (texts.size() != 1)
      out.parse_problems.push_back(
          {"several-text-parts", "the result has " + std::to_string(texts.size()) +
                                     " text parts; an envelope is exactly one text part" +
                                     (exact_objects > 1 ? " (" + std::to_string(exact_objects) +
                                                              " of them hold JSON objects)"
                                                        : std::string())});
  } catch (...) {
    // Never throws: what was found so far stands.
  }
  return out;
}

namespace {

// ----- E-HINT-REF helpers ---------------------------------------------------------------------

bool tok_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

std::string first_segment(std::string_view s) {
  auto p = s.find_first_of("_-.");
  return std::string(s.substr(0, p));
}

std::string normalise(std::string_view s) {
  std::string o;
  for (char c : s)
    if (c != '_' && c != '-') o += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

const json* schema_properties(const json* tool) {
  if (!tool || !tool->is_object()) return nullptr;
  auto it = tool->find("inputSchema");
  if (it == tool->end() || !it->is_object()) return nullptr;
  auto p = it->find("properties");
  if (p == it->end() || !p->is_object()) return nullptr;
  return &*p;
}

bool has_param(const json& props, const std::string& name) {
  if (props.contains(name)) return true;
  auto n = normalise(name);
  for (auto it = props.begin(); it != props.end(); ++it)
    if (normalise(it.key()) == n) return true;
  return false;
}

struct HintText {
  std::string label;  ///< Where it came from, e.g. "_meta.hint".
  std::string text;
  bool command = false;
};

void check_hint_refs(const EnvelopeInput& in, const ParsedEnvelope& env, const std::vector<HintText>& hints,
                     Outcomes& out) {
  std::vector<std::string> tool_names;
  std::set<std::string> all_params;
  if (in.tools) {
    for (const auto& t : *in.tools) {
      if (t.is_object() && t.contains("name") && t["name"].is_string()) tool_names.push_back(t["name"].get<std::string>());
      if (const json* props = schema_properties(&t))
        for (auto it = props->begin(); it != props->end(); ++it) all_params.insert(it.key());
    }
  }
  // First segment -> the separator characters listed tools with that segment use ("_", "-.").
  std::map<std::string, std::set<char>> prefixes;
  bool dotted_tools = false;
  for (const auto& n : tool_names) {
    auto& seps = prefixes[first_segment(n)];
    for (char ch : n)
      if (ch == '_' || ch == '-' || ch == '.') seps.insert(ch);
    dotted_tools = dotted_tools || n.find('.') != std::string::npos;
  }
  auto listed = [&](const std::string& s) { return std::find(tool_names.begin(), tool_names.end(), s) != tool_names.end(); };

  for (const auto& h : hints) {
    const std::string& s = h.text;
    const json* named_tool = nullptr;
    bool unknown_tool_named = false;  // then no schema is known for its parameters
    // Tool names.
    if (!tool_names.empty()) {
      std::size_t i = 0;
      while (i < s.size()) {
        if (!tok_char(s[i])) {
          ++i;
          continue;
        }
        std::size_t b = i;
        while (i < s.size() && tok_char(s[i])) ++i;
        std::size_t e = i;
        while (e > b && (s[e - 1] == '.' || s[e - 1] == '-')) --e;
        std::string tok = s.substr(b, e - b);
        if (tok.empty() || tok[0] == '-' || tok[0] == '.') continue;
        if (tok.find_first_of("_-.") == std::string::npos) continue;
        if (i < s.size() && (s[i] == '=' || s[i] == ':')) continue;  // a parameter, not a tool
        if (listed(tok)) {
          if (!named_tool)
            for (const auto& t : *in.tools)
              if (t.is_object() && t.value("name", json()) == tok) named_tool = &t;
          continue;
        }
        if (all_params.count(tok)) continue;
        if (b > 0 && (s[b - 1] == '/' || s[b - 1] == '\\')) continue;  // a path component
        if (!dotted_tools && tok.find('.') != std::string::npos) continue;  // a file name, version, domain
        auto pit = prefixes.find(first_segment(tok));
        if (pit == prefixes.end()) continue;
        // Only tokens written in the tools' own style: "read-only" is English next to read_file.
        bool same_style = std::all_of(tok.begin(), tok.end(), [&](char ch) {
          return (ch != '_' && ch != '-' && ch != '.') || pit->second.count(ch);
        });
        if (!same_style) continue;
        unknown_tool_named = true;
        out.push_back(make_finding("E-HINT-REF", env, {{"form", "unknown-tool"}, {"hint", h.label}, {"name", tok}},
                                   h.label + " names the tool " + quote(tok) +
                                       ", which is not in tools/list (an agent following the hint gets "
                                       "\"unknown tool\")"));
      }
    }
    // Parameters.
    const json* tool = named_tool ? named_tool : (unknown_tool_named ? nullptr : in.tool);
    const json* props = schema_properties(tool);
    std::string tool_name = tool && tool->is_object() && tool->value("name", json()).is_string()
                                ? tool->value("name", std::string())
                                : std::string("the called tool");
    std::set<std::string> reported;
    auto report_param = [&](const std::string& shown, const std::string& name) {
      if (!props || has_param(*props, name) || !reported.insert(name).second) return;
      out.push_back(make_finding("E-HINT-REF", env,
                                 {{"form", "unknown-parameter"}, {"hint", h.label}, {"name", name}},
                                 h.label + " tells the agent to use " + quote(shown) + ", but " + quote(tool_name) +
                                     "'s input schema has no parameter " + quote(name)));
    };
    if (h.command) {
      for (std::size_t i = 0; i + 2 < s.size(); ++i) {
        if (s[i] != '-' || s[i + 1] != '-' || (i > 0 && tok_char(s[i - 1]))) continue;
        std::size_t b = i + 2, e = b;
        if (e >= s.size() || !std::isalpha(static_cast<unsigned char>(s[e]))) continue;
        while (e < s.size() && (ident_char(static_cast<unsigned char>(s[e])) || s[e] == '-')) ++e;
        report_param("--" + s.substr(b, e - b), s.substr(b, e - b));
        i = e;
      }
      if (in.forced || env.profile) {
        const auto* p = env.profile;
        // A required mention that is a flag ("--cursor") is required only of a command for a tool
        // that takes that parameter: a single-object lookup has no next page to point at.
        auto needed = [&](const std::string& m) {
          if (m.rfind("--", 0) != 0) return true;
          return props && has_param(*props, m.substr(2));
        };
        if (p && p->hint)
          for (const auto& m : p->hint->must_mention)
            if (needed(m) && s.find(m) == std::string::npos)
              out.push_back(make_finding("E-HINT-REF", env, {{"form", "missing-mention"}, {"hint", h.label}, {"name", m}},
                                         h.label + " is a command to fetch the rest but does not mention " + quote(m) +
                                             ", which the profile requires (the hint is " + excerpt(s, 120) + ")"));
      }
    } else {
      for (std::size_t i = 0; i < s.size(); ++i) {
        if (!(std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_')) continue;
        if (i > 0 && (tok_char(s[i - 1]) || s[i - 1] == '?' || s[i - 1] == '&')) {
          while (i < s.size() && ident_char(static_cast<unsigned char>(s[i]))) ++i;
          continue;
        }
        std::size_t b = i;
        while (i < s.size() && ident_char(static_cast<unsigned char>(s[i]))) ++i;
        if (i >= s.size()) break;
        std::string name = s.substr(b, i - b);
        char sep = s[i];
        if (sep == '=') {
          report_param(name + "=", name);
        } else if (sep == ':') {
          char next = i + 1 < s.size() ? s[i + 1] : ' ';
          if (next == '/' || next == ':') continue;  // a URL scheme or C++ scope
          bool identifier_like = name.find('_') != std::string::npos ||
                                 std::any_of(name.begin() + 1, name.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
          bool spaced = std::isspace(static_cast<unsigned char>(next));
          if (!spaced || identifier_like) report_param(name + ":", name);
        }
      }
    }
  }
}

}  // namespace

Outcomes check_envelope(const EnvelopeInput& in, const ParsedEnvelope& env) {
  Outcomes out;
  try {
    if (!env.profile) return out;
    const profile::Profile& p = *env.profile;
    // E-ERROR: an isError result with no envelope under a profile that does not accept plain text.
    if (!env.envelope.is_object()) {
      if (in.reply && in.reply->is_error_result()) {
        if (!p.is_error_text)
          out.push_back(make_finding("E-ERROR", env, {{"form", "plain-text-error"}},
                                     "the result has isError:true with plain text, but profile " + quote(p.name) +
                                         " says errors are envelopes"));
        return out;
      }
      for (const auto& prob : env.parse_problems)
        out.push_back(make_finding("E-PARSE", env, {{"form", prob.form}}, prob.text + " (profile " + quote(p.name) + ")"));
      return out;
    }
    out.pass("E-PARSE");
    for (const auto& prob : env.parse_problems)
      out.push_back(make_finding("E-PARSE", env, {{"form", prob.form}}, prob.text + " (profile " + quote(p.name) + ")"));
    const json& e = env.envelope;
    out.pass("E-SCHEMA");

    // E-SCHEMA.
    auto vc = profile::validate_envelope(p, e);
    if (!vc.ok()) {
      std::string d = "the " + std::string(vc.form ? profile::form_name(*vc.form) : "envelope") +
                      " envelope breaks profile " + quote(p.name) + "'s schema: ";
      for (std::size_t i = 0; i < vc.violations.size() && i < 3; ++i)
        d += (i ? "; " : "") + profile::to_string(vc.violations[i]);
      if (vc.violations.size() > 3) d += " (and " + std::to_string(vc.violations.size() - 3) + " more)";
      out.push_back(make_finding("E-SCHEMA", env, schema_cause(vc), d));
    }

    const profile::Form* form = env.form ? p.form(*env.form) : nullptr;
    // E-ERROR: code outside the stable set.
    if (env.form == profile::FormKind::kError) out.pass("E-ERROR");
    else if (p.error) out.unobserved("E-ERROR", "no error answer was seen");
    if (env.form == profile::FormKind::kError && form && form->code_pointer && !form->codes.empty()) {
      const json* code = at(e, form->code_pointer);
      if (code && code->is_string()) {
        auto c = code->get<std::string>();
        if (std::find(form->codes.begin(), form->codes.end(), c) == form->codes.end()) {
          std::string list;
          for (std::size_t i = 0; i < form->codes.size(); ++i) list += (i ? ", " : "") + form->codes[i];
          out.push_back(make_finding("E-ERROR", env, {{"form", "unknown-code"}, {"code", c}},
                                     "error code " + quote(c) + " is not one of profile " + quote(p.name) +
                                         "'s stable codes (" + list + ")"));
        }
      } else {
        out.push_back(make_finding("E-ERROR", env, {{"form", "no-code"}, {"field", *form->code_pointer}},
                                   "the error envelope has no string code at " +
                                                       *form->code_pointer + " (profile " + quote(p.name) + ")"));
      }
    }

    // E-HINT-REF.
    std::vector<HintText> hints;
    const bool success = env.form == profile::FormKind::kSuccess;
    if (success && p.fields.hint) {
      const json* h = at(e, p.fields.hint);
      bool reason = p.hint && p.hint->kind == profile::HintKind::kReason;
      if (h && h->is_string() && !reason)
        hints.push_back({pointer_name(*p.fields.hint), h->get<std::string>(),
                         p.hint && p.hint->kind == profile::HintKind::kCommand});
    }
    if (form && !success && form->hint_pointer) {
      const json* h = at(e, form->hint_pointer);
      if (h && h->is_string())
        hints.push_back({"the " + std::string(profile::form_name(*env.form)) + " hint", h->get<std::string>(), false});
    }
    if (hints.empty()) out.unobserved("E-HINT-REF", "no answer carried a hint");
    else out.pass("E-HINT-REF");
    check_hint_refs(in, env, hints, out);

    if (success) {
      auto truncated = truncated_flag(p, e);
      // TR-HINT.
      if (p.fields.truncated && p.fields.hint) {
        if (truncated == true) out.pass("TR-HINT");
        else out.unobserved("TR-HINT", "no answer was truncated");
      }
      if (truncated == true && p.fields.hint) {
        const json* h = at(e, p.fields.hint);
        std::string name = pointer_name(*p.fields.hint);
        if (!h) out.push_back(make_finding("TR-HINT", env, {{"form", "absent"}, {"field", name}}, "truncated is true but there is no " + name + " saying what was cut or how to get the rest"));
        else if (!h->is_string()) out.push_back(make_finding("TR-HINT", env, {{"form", "not-a-string"}, {"field", name}}, "truncated is true but " + name + " is not a string"));
        else if (trim(h->get<std::string>()).empty()) out.push_back(make_finding("TR-HINT", env, {{"form", "empty"}, {"field", name}}, "truncated is true but " + name + " is empty"));
      }
      // TR-COUNT.
      auto cands = truncatables(p, e);
      auto returned = as_int(at(e, p.fields.returned_count));
      auto total = as_int(at(e, p.fields.total_count));
      auto cut = cut_array(cands, returned);
      if (returned || total || (p.budget && p.fields.dropped_count)) out.pass("TR-COUNT");
      else if (p.fields.returned_count || p.fields.total_count || p.fields.dropped_count)
        out.unobserved("TR-COUNT", "no answer carried its counts");
      std::string rname = p.fields.returned_count ? pointer_name(*p.fields.returned_count) : "returned";
      std::string tname = p.fields.total_count ? pointer_name(*p.fields.total_count) : "total";
      if (returned && cut && static_cast<std::int64_t>(cut->length) != *returned)
        out.push_back(make_finding("TR-COUNT", env,
                                   {{"form", "returned-not-length"}, {"field", rname}, {"array", path_shape(cut->pointer)}},
                                   rname + " says " + num(*returned) + " but " + quote(pointer_name(cut->pointer)) +
                                       " has " + num(static_cast<std::int64_t>(cut->length)) +
                                       (cut->is_string ? " characters" : " items")));
      if (returned && total && *total < *returned)
        out.push_back(make_finding("TR-COUNT", env, {{"form", "total-below-returned"}, {"field", tname}},
                                   tname + " is " + num(*total) + ", less than " + rname + " " + num(*returned)));
      bool single_too_large = false;
      if (p.hint && p.hint->kind == profile::HintKind::kReason) {
        const json* r = at(e, p.fields.hint);
        single_too_large = r && r->is_string() && r->get<std::string>() == "single_result_too_large";
      }
      if (truncated && returned && total && *truncated != (*returned < *total) &&
          !(single_too_large && *truncated && *returned == *total))
        out.push_back(make_finding("TR-COUNT", env,
                                   {{"form", *truncated ? "truncated-nothing-cut" : "untruncated-items-omitted"}},
                                   "truncated is " + std::string(*truncated ? "true" : "false") + " but " + rname +
                                       " is " + num(*returned) + " of " + tname + " " + num(*total) +
                                       (*truncated ? " (nothing was cut)" : " (items were silently omitted)")));
      if (p.budget && p.fields.dropped_count && truncated) {
        const json* dv = at(e, p.fields.dropped_count);
        auto dc = as_int(dv);
        bool dropped = dc && *dc > 0;
        if (*truncated != dropped)
          out.push_back(make_finding("TR-COUNT", env,
                                     {{"form", *truncated ? "truncated-none-dropped" : "untruncated-some-dropped"},
                                      {"field", pointer_name(*p.fields.dropped_count)}},
                                     *truncated ? "truncated is true but nothing is reported dropped (" +
                                                      pointer_name(*p.fields.dropped_count) + " is " +
                                                      (dv ? dv->dump() : std::string("absent")) + ")"
                                                : "truncated is false but " + pointer_name(*p.fields.dropped_count) +
                                                      " says " + num(*dc) + " were dropped"));
      }
      // TR-CAP. L: the env/default limit; with a budget, the call's clamped budget.
      // Plain value + flag: GCC 12 at -O2 wrongly warns that an optional's value may be uninitialised.
      bool has_limit = env.limit.has_value();
      std::int64_t limit_value = env.limit.value_or(0);
      std::string limit_label;
      if (p.limit && p.limit->env) limit_label = *p.limit->env + "=";
      if (p.budget) {
        auto arg = in.arguments.is_object() ? as_int(in.arguments.contains(p.budget->parameter)
                                                         ? &in.arguments[p.budget->parameter]
                                                         : nullptr)
                                            : std::nullopt;
        bool given_bad = in.arguments.is_object() && in.arguments.contains(p.budget->parameter) && !arg;
        has_limit = !given_bad;
        if (!given_bad) limit_value = std::clamp(arg.value_or(p.budget->default_value), p.budget->min, p.budget->max);
        limit_label = p.budget->parameter + "=";
      }
      // Token budgets: B-USED and B-ESTIMATE say whether the envelope kept to the budget.
      const bool tokens = p.limit && p.limit->kind == profile::LimitKind::kTokens;
      // An answer without the profile's truncation flag is not the envelope at all (E-SCHEMA):
      // whether it kept to the limit is that finding's to fix, not a second one.
      const bool flag_missing = p.fields.truncated && !truncated;
      if (flag_missing) has_limit = false;
      if (!tokens && (p.limit || p.budget)) {
        if (has_limit && cut && (cut->length > 0 || (total && *total > 0))) out.pass("TR-CAP");
        else out.unobserved("TR-CAP", "no answer held a truncatable array with items");
      }
      if (has_limit && cut && !tokens && (cut->length > 0 || (total && *total > 0))) {
        auto size = limit_size(p, env.text);
        // A response that already cut everything it may cut cannot be smaller (the fixed part alone
        // is over the limit), and seed 004 sends one result that is too large on purpose.
        bool exempt = cut->length == 0 || (single_too_large && cut->length == 1);
        if (size > limit_value && !exempt) {
          // Why, when the answer shows it: one item alone over the limit, or a payload that fits
          // until the truncation metadata is added (the limit was measured before it).
          std::string why;
          if (cut->length == 1 && !cut->is_string) {
            why = "; the one item left is itself over the limit: cut it too (0 items, truncated, with a hint) or "
                  "shorten it";
          } else if (p.fields.truncated) {
            const std::string& tp = *p.fields.truncated;
            auto second = tp.find('/', 1);
            std::string meta = second == std::string::npos ? tp : tp.substr(0, second);
            if (meta != tp) {
              json bare = e;
              remove_at(bare, meta);
              auto bare_size = limit_size(p, truncation::to_js_json(bare, env.indent));
              if (bare_size <= limit_value)
                why = "; without " + quote(pointer_name(meta)) + " the payload is " + num(bare_size) + " " +
                      limit_unit_name(p) + " and fits: the limit was measured before " + quote(pointer_name(meta)) +
                      " was added";
            }
          }
          out.push_back(make_finding("TR-CAP", env,
                                     {{"form", "over-limit"},
                                      {"limit", limit_label.empty() ? std::string("default") : limit_label},
                                      {"truncated", truncated ? (*truncated ? "true" : "false") : "absent"}},
                                     "the text part is " + num(size) + " " + limit_unit_name(p) + ", over " +
                                         limit_label + num(limit_value) + ", and truncated is " +
                                         (truncated ? (*truncated ? "true" : "false") : std::string("not set")) +
                                         " with " + num(static_cast<std::int64_t>(cut->length)) + " items in " +
                                         quote(pointer_name(cut->pointer)) + why));
        }
      }
      // TR-BYTES (untruncated responses; truncated ones are checked in the sweep).
      // A response whose counts say items are missing is not untruncated, whatever its flag says
      // (that is TR-COUNT); its totalBytes describes the full payload.
      bool really_whole = !(returned && total && *returned < *total);
      if (p.fields.total_bytes && !(truncated == false && really_whole))
        out.unobserved("TR-BYTES", "no untruncated answer was seen outside the limit sweep");
      if (p.fields.total_bytes && truncated == false && really_whole) {
        auto reported = as_int(at(e, p.fields.total_bytes));
        if (reported) out.pass("TR-BYTES");
        if (reported) {
          auto d = total_bytes_problem(p, *reported, e, {env.indent}, "");
          if (!d.empty())
            out.push_back(make_finding("TR-BYTES", env,
                                       {{"form", "not-utf8-size"}, {"field", pointer_name(*p.fields.total_bytes)}},
                                       std::move(d)));
        }
      }
    }

    // B-*: wherever the budget object is present.
    if (p.budget) {
      const auto& b = *p.budget;
      auto requested = as_int(profile::resolve_pointer(e, b.requested_pointer));
      auto used = as_int(profile::resolve_pointer(e, b.used_pointer));
      auto maxv = as_int(profile::resolve_pointer(e, b.max_pointer));
      // The budget used must respect is the one the call asked for, clamped: when the envelope
      // misreports `requested` (B-CLAMP), comparing against the misreported value would blame the
      // wrong field, so B-USED compares against the clamped argument whenever it is known.
      const json* barg = in.arguments.is_object() && in.arguments.contains(b.parameter) ? &in.arguments[b.parameter] : nullptr;
      std::optional<std::int64_t> budget = requested;
      if (!barg || as_int(barg)) budget = std::clamp(as_int(barg).value_or(b.default_value), b.min, b.max);
      if (used && budget) out.pass("B-USED");
      if (requested) out.pass("B-CLAMP");
      if (used) out.pass("B-ESTIMATE");
      if (used && budget && *used > *budget)
        out.push_back(make_finding("B-USED", env, {{"form", "over-budget"}},
                                   "used is " + num(*used) + " tokens, more than the budget " + num(*budget) +
                                       (requested && *requested != *budget ? " (requested says " + num(*requested) + ")"
                                                                           : std::string())));
      if (requested) {
        const json* a = barg;
        auto arg = as_int(a);
        if (!a || arg) {
          auto want = std::clamp(arg.value_or(b.default_value), b.min, b.max);
          if (*requested != want)
            out.push_back(make_finding("B-CLAMP", env,
                                       {{"form", "requested-not-clamped"}, {"argument", a ? "given" : "default"}},
                                       "requested is " + num(*requested) + " but " + b.parameter + " " +
                                           (a ? "was " + num(*arg) : "was not given (default " + num(b.default_value) + ")") +
                                           ", so it should be " + num(want) + " (clamped to [" + num(b.min) + ", " +
                                           num(b.max) + "])"));
        }
      }
      if (maxv && *maxv != b.max)
        out.push_back(make_finding("B-CLAMP", env, {{"form", "wrong-max"}}, "max is " + num(*maxv) + " but the profile's maximum is " + num(b.max)));
      if (used) {
        auto units = truncation::utf16_length(env.text);
        std::int64_t cpt = p.limit && p.limit->chars_per_token && *p.limit->chars_per_token > 0 ? *p.limit->chars_per_token : 4;
        auto expect = (static_cast<std::int64_t>(units) + cpt - 1) / cpt;
        if (std::fabs(static_cast<double>(*used - expect)) > b.tolerance * static_cast<double>(expect))
          out.push_back(make_finding("B-ESTIMATE", env, {{"form", "estimate-off"}},
                                     "used says " + num(*used) + " tokens but the text is " +
                                         num(static_cast<std::int64_t>(units)) + " UTF-16 units, about " + num(expect) +
                                         " tokens at " + std::to_string(cpt) + " chars per token (tolerance " +
                                         std::to_string(static_cast<int>(std::lround(b.tolerance * 100))) + "%)"));
      }
    }

    // POS-*.
    check_positions(in, env, out);
  } catch (...) {
    // Never throws; findings so far stand.
  }
  return out;
}

}  // namespace ctxo::checks
