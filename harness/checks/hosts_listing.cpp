// SPDX-License-Identifier: MIT
// A tools/list entry and the server's instructions against the selected hosts' rules: H-NAME,
// H-SCHEMA, H-DESC and the declared ceiling's value (check_listing), H-DESC on the instructions
// (check_instructions). What answers are sized at: hosts.cpp.
#include "checks/hosts.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "checks/hosts_internal.h"
#include "core/text.h"
#include "truncation/unicode.h"

#include <re2/re2.h>

namespace ctxo::checks {

using namespace hosts_detail;

namespace {

/// Names longer than this are not matched: no host takes one, so it breaks every name rule.
constexpr std::size_t kMaxMatchedName = 1024;
/// How deep and how wide the walk for refused schema features goes.
constexpr int kMaxSchemaDepth = 64;
constexpr std::size_t kMaxSchemaNodes = 20000;

Finding listing_finding(const char* id, const json& tool, Severity severity, std::string diagnosis) {
  Finding f;
  f.invariant = id;
  if (auto n = tool.find("name"); n != tool.end() && n->is_string()) f.tool = n->get<std::string>();
  f.severity = severity;
  f.response_excerpt = excerpt(tool.dump(-1, ' ', false, json::error_handler_t::replace), 400);
  f.diagnosis = std::move(diagnosis);
  return f;
}

/// Refused keywords and formats found in `schema` under `rule`, each named once ("anyOf", "format: uri").
void refused(const json& schema, const profile::SchemaRule& rule, int depth, std::size_t& nodes,
             std::vector<std::string>& found) {
  if (!schema.is_object() || depth > kMaxSchemaDepth || ++nodes > kMaxSchemaNodes) return;
  auto add = [&](std::string what) {
    if (std::find(found.begin(), found.end(), what) == found.end()) found.push_back(std::move(what));
  };
  for (const auto& kw : rule.keywords)
    if (schema.contains(kw)) add(kw);
  if (auto fmt = schema.find("format"); fmt != schema.end() && fmt->is_string())
    for (const auto& f : rule.formats)
      if (*fmt == f) add("format: " + f);
  if (!rule.anywhere) return;
  for (const char* k : {"properties", "patternProperties", "definitions", "$defs", "dependencies"})
    if (auto it = schema.find(k); it != schema.end() && it->is_object())
      for (const auto& sub : *it) refused(sub, rule, depth + 1, nodes, found);
  for (const char* k : {"items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains",
                        "propertyNames", "anyOf", "oneOf", "allOf", "prefixItems"})
    if (auto it = schema.find(k); it != schema.end()) {
      if (it->is_array())
        for (const auto& sub : *it) refused(sub, rule, depth + 1, nodes, found);
      else
        refused(*it, rule, depth + 1, nodes, found);
    }
}

std::string characters(const std::string& s) {
  return thousands(static_cast<std::int64_t>(truncation::utf16_length(s))) + " characters";
}

/// `name` as `rule` matches it: the rule's template with the server's and tool's names, each with
/// the characters the host replaces replaced.
std::string prefixed_name(const profile::NameRule& rule, std::string server, std::string tool) {
  if (rule.replace) {
    RE2::GlobalReplace(&server, *rule.replace, rule.replace_with);
    RE2::GlobalReplace(&tool, *rule.replace, rule.replace_with);
  }
  std::string out = rule.prefixed;
  for (const auto& [key, value] : {std::pair<std::string, const std::string*>{"{server}", &server}, {"{tool}", &tool}})
    for (auto at = out.find(key); at != std::string::npos; at = out.find(key, at + value->size()))
      out.replace(at, key.size(), *value);
  return out;
}

/// The byte offset in `text` (UTF-8) after its first `units` UTF-16 code units, never inside a
/// character.
std::size_t utf16_prefix_bytes(std::string_view text, std::size_t units) {
  std::size_t at = 0, seen = 0;
  while (at < text.size()) {
    const auto step = truncation::decode_utf8(text, at);
    seen += truncation::utf16_units(step.code_point);
    if (seen > units || step.length == 0) break;
    at += step.length;
  }
  return at;
}

/// H-DESC on one text (`what`: "the tool's description is") under every host's cut of that kind:
/// nullopt when no host has one; a finding with an empty diagnosis when the text fits them all;
/// else one finding naming each host that cuts it and what the model will not see.
std::optional<Finding> cut_text(const std::vector<Host>& hosts, profile::DescriptionLimit::Applies applies,
                                const std::string& text, const std::string& what) {
  std::optional<Finding> out;
  std::vector<std::string> said;
  std::size_t shortest = std::string::npos;  // bytes the strictest host keeps
  const auto chars = static_cast<std::int64_t>(truncation::utf16_length(text));
  const auto bytes = static_cast<std::int64_t>(text.size());
  for (const auto& h : hosts)
    for (const auto& l : h.descriptions) {
      if (l.applies != applies) continue;
      if (!out) out = Finding{};
      const std::int64_t size = l.unit == Unit::kBytes ? bytes : chars;
      if (size <= l.max) continue;
      const std::size_t kept = l.unit == Unit::kBytes ? static_cast<std::size_t>(l.max)
                                                      : utf16_prefix_bytes(text, static_cast<std::size_t>(l.max));
      shortest = std::min(shortest, kept);
      said.push_back(h.title + " " + profile::describe(l.past) + " at " + thousands(l.max) + " " + unit_words(l.unit) + " (" +
                     thousands(size - l.max) + " over)");
    }
  if (!out || said.empty()) return out;
  // A warning whatever the host does past it: the tool still works, the model reads less of it.
  out->severity = Severity::kWarning;
  // What the model does not read: where the strictest cut falls.
  while (shortest > 0 && shortest < text.size() && (static_cast<unsigned char>(text[shortest]) & 0xC0) == 0x80) --shortest;
  out->diagnosis = what + " " + thousands(chars) + " characters (" + thousands(bytes) + " bytes of UTF-8): " +
                   and_list(said) + ". The model never reads what comes after the cut, which begins `" +
                   excerpt(std::string_view(text).substr(shortest), 120) +
                   "`. Put what the model needs first (what it is for, when to use it, its parameters) and keep it under the "
                   "cut; move long reference material into a resource or a tool that returns it";
  return out;
}

}  // namespace

Outcomes check_listing(const std::vector<Host>& hosts, const json& tool, const ServerName* server) {
  Outcomes o;
  if (hosts.empty() || !tool.is_object()) return o;
  // H-NAME: one finding naming every host that refuses the name, by rule.
  if (auto n = tool.find("name"); n != tool.end() && n->is_string()) {
    const std::string& name = n->get_ref<const std::string&>();
    struct Broken {
      std::string says, subject;  ///< The rule in words; the name it was matched on.
      bool prefixed = false;
      std::vector<std::string> hosts;  ///< Titles.
    };
    std::vector<Broken> broken;
    Severity sev = Severity::kWarning;
    bool any_rule = false;
    for (const auto& h : hosts)
      for (const auto& rule : h.names) {
        std::string subject = name;
        const bool prefixed = !rule.prefixed.empty();
        if (prefixed) {
          if (!server || server->name.empty()) continue;  // the host's name for it is unknown
          subject = prefixed_name(rule, server->name, name);
        }
        any_rule = true;
        if (subject.size() <= kMaxMatchedName && profile::matches_name(rule, subject)) continue;
        // A name built on serverInfo.name is a guess at the user's: a warning.
        const bool guess = prefixed && !server->configured;
        sev = worse(sev, guess ? Severity::kWarning : profile::severity_of(rule.past));
        auto it = std::find_if(broken.begin(), broken.end(),
                               [&](const Broken& b) { return b.says == rule.says && b.subject == subject; });
        if (it == broken.end()) broken.push_back({rule.says, subject, prefixed, {h.title}});
        else it->hosts.push_back(h.title);
      }
    if (any_rule) {
      o.pass("H-NAME");
      if (!broken.empty()) {
        std::string d = "tool name `" + excerpt(name, 80) + "` (" + characters(name) + ") breaks ";
        bool any_prefixed = false;
        for (std::size_t i = 0; i < broken.size(); ++i) {
          const Broken& b = broken[i];
          d += (i ? "; and " : "") + and_list(b.hosts) + "'s rule";
          if (b.prefixed)
            d += " on the name it sends the model, `" + excerpt(b.subject, 160) + "` (" + characters(b.subject) + ")";
          d += ": " + b.says;
          any_prefixed = any_prefixed || b.prefixed;
        }
        if (any_prefixed)
          d += server->configured ? ". The server is named `" + excerpt(server->name, 80) + "` as in --config"
                                  : ". The server is named after its serverInfo.name `" + excerpt(server->name, 80) +
                                        "`; users name it in their config (check with that name: --config F --server NAME)";
        d += ". A host that refuses a tool name refuses the request that lists it, so none of the server's tools can be "
             "used there. Rename the tool";
        if (any_prefixed) d += " or give the server a shorter name";
        o.fail(listing_finding("H-NAME", tool, sev, std::move(d)));
      }
    }
  }
  // H-DESC: the description past a host's cut.
  if (auto d = tool.find("description"); d != tool.end()) {
    const std::string text = d->is_string() ? d->get<std::string>() : std::string();
    if (auto f = cut_text(hosts, profile::DescriptionLimit::Applies::kToolDescription, text, "the tool's description is")) {
      f->invariant = "H-DESC";
      if (auto n = tool.find("name"); n != tool.end() && n->is_string()) f->tool = n->get<std::string>();
      f->response_excerpt = excerpt(tool.dump(-1, ' ', false, json::error_handler_t::replace), 400);
      o.pass("H-DESC");
      if (!f->diagnosis.empty()) o.fail(std::move(*f));
    }
  } else if (cut_text(hosts, profile::DescriptionLimit::Applies::kToolDescription, "", "")) {
    o.pass("H-DESC");
  }
  // H-SCHEMA: refused features of the input schema, by host.
  if (auto schema = tool.find("inputSchema"); schema != tool.end() && schema->is_object()) {
    std::vector<std::string> said;
    Severity sev = Severity::kWarning;
    bool any_rule = false;
    for (const auto& h : hosts)
      for (const auto& rule : h.schemas) {
        any_rule = true;
        std::vector<std::string> found;
        std::size_t nodes = 0;
        refused(*schema, rule, 0, nodes, found);
        if (found.empty()) continue;
        sev = worse(sev, profile::severity_of(rule.past));
        said.push_back(h.title + " " + profile::describe(rule.past) + " (" + (rule.says.empty() ? "refused" : rule.says) +
                       "; this schema has " + and_list(found) + (rule.anywhere ? "" : " at its top level") + ")");
      }
    if (any_rule) {
      o.pass("H-SCHEMA");
      if (!said.empty())
        o.fail(listing_finding("H-SCHEMA", tool, sev,
                               "the input schema uses what a host refuses: " + and_list(said) +
                                   ". A refused schema fails every request that lists the tool. Express the alternatives "
                                   "as optional properties and check the combination in the handler"));
    }
  }
  // H-DECLARED: the declared value itself.
  for (const auto& h : hosts) {
    if (!h.declared) continue;
    auto meta = tool.find("_meta");
    if (meta == tool.end() || !meta->is_object()) continue;
    auto v = meta->find(h.declared->meta_key);
    if (v == meta->end()) continue;
    o.pass("H-DECLARED");
    const std::string key = "_meta[\"" + h.declared->meta_key + "\"]";
    const std::string shown = excerpt(v->dump(-1, ' ', false, json::error_handler_t::replace), 40);
    if (!declared_ceiling(h, &tool)) {
      o.fail(listing_finding("H-DECLARED", tool, Severity::kWarning,
                             "the tool declares " + key + " = " + shown + ", which is not an integer of at least " +
                                 thousands(h.declared->min) + ": " + h.title +
                                 " ignores it and holds the tool to its usual limits"));
    } else if (v->get<double>() > static_cast<double>(h.declared->max)) {
      o.fail(listing_finding("H-DECLARED", tool, Severity::kWarning,
                             "the tool declares " + key + " = " + shown + ", above " + h.title + "'s ceiling of " +
                                 thousands(h.declared->max) + ": answers past " + thousands(h.declared->max) + " " +
                                 unit_words(h.declared->unit) + " are still " + profile::to_string(h.declared->past) +
                                 ". Declare at most " + thousands(h.declared->max)));
    }
  }
  return o;
}

Outcomes check_instructions(const std::vector<Host>& hosts, const json& init_result) {
  Outcomes o;
  if (!init_result.is_object()) return o;
  auto it = init_result.find("instructions");
  const std::string text = it != init_result.end() && it->is_string() ? it->get<std::string>() : std::string();
  auto f = cut_text(hosts, profile::DescriptionLimit::Applies::kInstructions, text, "the server's instructions are");
  if (!f) return o;
  o.pass("H-DESC");
  if (f->diagnosis.empty()) return o;
  f->invariant = "H-DESC";
  f->server_level = true;
  f->response_excerpt = excerpt(text, 300);
  o.fail(std::move(*f));
  return o;
}

}  // namespace ctxo::checks
