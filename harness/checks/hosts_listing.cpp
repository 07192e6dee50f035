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

Outcomes check_tool_count(const std::vector<Host>& hosts, std::size_t listed, bool complete, const ConfigServers* config) {
  Outcomes o;
  if (std::any_of(hosts.begin(), hosts.end(), [](const Host& h) { return h.lone_surrogate.has_value(); }))
    o.pass("H-UNICODE");
  std::vector<std::string> said;
  Severity sev = Severity::kWarning;
  bool any_cap = false, shared = false;
  for (const auto& h : hosts) {
    if (!h.tools) continue;
    any_cap = true;
    const profile::ToolCap& cap = *h.tools;
    if (static_cast<std::int64_t>(listed) <= cap.max) continue;
    sev = worse(sev, cap.severity());
    shared = shared || cap.across_servers;
    std::string d = h.title + " offers the model at most " + thousands(cap.max) + " tools" +
                    (cap.across_servers ? " across all the MCP servers a user has enabled" : " of one server");
    d += cap.says.empty() ? std::string(": ") + profile::describe(cap.past) + " past it" : ": " + cap.says;
    if (!cap.verified) d += " (a reported limit, not a documented one)";
    said.push_back(d);
  }
  if (!any_cap) return o;
  o.pass("H-TOOLS");
  if (said.empty()) return o;
  Finding f;
  f.invariant = "H-TOOLS";
  f.server_level = true;
  f.severity = sev;
  f.cause = {{"form", "over-tool-cap"}};
  f.diagnosis = "the server lists " + std::string(complete ? "" : "at least ") + thousands(static_cast<std::int64_t>(listed)) +
                " tools, more than a host takes: " + and_list(said) + ".";
  if (shared) {
    f.diagnosis += " The cap is shared: every other server enabled in the same host counts toward it, so with this "
                   "server alone past it, no other server's tools fit";
    if (config && !config->path.empty())
      f.diagnosis += config->others == 0
                         ? " (--config '" + config->path + "' lists no other server)"
                         : " (--config '" + config->path + "' lists " + std::to_string(config->others) + " other " +
                               (config->others == 1 ? "server" : "servers") + ", not started here, whose tools count too)";
    f.diagnosis += ".";
  }
  f.diagnosis += " Expose fewer tools by default (merge tools that differ only by a parameter, or let users enable groups "
                 "of tools with an option)";
  o.fail(std::move(f));
  return o;
}

std::optional<Finding> unicode_finding(const std::vector<Host>& hosts, const Finding& framing) {
  if (framing.invariant != "T-FRAMING") return std::nullopt;
  auto form = framing.cause.find("form");
  if (form == framing.cause.end() || form->second != "lone-surrogate-escape") return std::nullopt;
  const std::string method = framing.request.is_object() ? framing.request.value("method", "") : "";
  if (method != "tools/call" && method != "tools/list") return std::nullopt;
  std::vector<std::string> said, titles;
  Severity sev = Severity::kWarning;
  for (const auto& h : hosts) {
    if (!h.lone_surrogate) continue;
    const profile::UnicodeRule& r = *h.lone_surrogate;
    sev = worse(sev, r.severity());
    titles.push_back(h.title);
    said.push_back(h.title + " " + (r.says.empty() ? std::string(profile::describe(r.past)) : r.says) +
                   (r.verified ? "" : " (a reported behaviour, not a documented one)"));
  }
  if (said.empty()) return std::nullopt;
  Finding f = framing;
  f.invariant = "H-UNICODE";
  f.severity = sev;
  f.cause = {{"form", "lone-surrogate"}, {"where", method == "tools/call" ? "answer" : "listing"}};
  std::string hosts_list;
  for (const auto& t : titles) hosts_list += (hosts_list.empty() ? "" : ",") + t;
  f.cause["hosts"] = hosts_list;
  // What the client saw ("a message holds a lone UTF-16 surrogate escape (\ud83d at byte 40)"),
  // where it was, and what the host does with it.
  std::string seen = framing.diagnosis;
  if (auto colon = seen.find("):"); colon != std::string::npos) seen.resize(colon + 1);
  if (method == "tools/call") {
    if (auto p = framing.request.find("params"); p != framing.request.end() && p->is_object())
      f.tool = p->value("name", "");
    f.diagnosis = "the tool's answer" + seen.substr(std::min(seen.size(), std::string("a message").size())) +
                  ": it encodes no Unicode character, and " + and_list(said) +
                  ". Replace a lone surrogate with U+FFFD before answering (or cut text on character boundaries, "
                  "never between the two halves of a surrogate pair)";
  } else {
    f.server_level = true;
    f.diagnosis = "a tools/list page" + seen.substr(std::min(seen.size(), std::string("a message").size())) +
                  ": a tool's name, description or schema holds no Unicode character there, and " + and_list(said) +
                  " (the tool list goes with every request). Replace the lone surrogate with U+FFFD, or write the "
                  "character whole";
  }
  return f;
}

}  // namespace ctxo::checks
