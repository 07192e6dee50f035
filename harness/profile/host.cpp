// SPDX-License-Identifier: MIT
#include "profile/host.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "profile/pattern_re2.h"
#include "profile/profile.h"

#include <re2/re2.h>

namespace ctxo::profile {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Past past_of(const json& v, Past fallback) {
  if (!v.is_string()) return fallback;
  const std::string s = v.get<std::string>();
  if (s == "warned") return Past::kWarned;
  if (s == "diverted") return Past::kDiverted;
  if (s == "truncated") return Past::kTruncated;
  if (s == "rejected") return Past::kRejected;
  return fallback;
}

Unit unit_of(const json& v, Unit fallback) {
  if (!v.is_string()) return fallback;
  const std::string s = v.get<std::string>();
  return s == "tokens"  ? Unit::kTokens
         : s == "bytes" ? Unit::kBytes
         : s == "chars" ? Unit::kChars
         : s == "lines" ? Unit::kLines
                        : fallback;
}

std::vector<std::string> strings(const json& obj, const char* key) {
  std::vector<std::string> out;
  if (obj.contains(key) && obj[key].is_array())
    for (const auto& s : obj[key])
      if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

const Result<SchemaValidator>& host_meta_schema() {
  static const Result<SchemaValidator> compiled = compile_bundled_schema("host.schema.json");
  return compiled;
}

Result<Host> from_json(const json& doc, const std::string& origin) {
  const auto& meta = host_meta_schema();
  if (!meta) return meta.error();
  if (auto violations = meta->validate(doc); !violations.empty()) {
    std::string said;
    for (std::size_t i = 0; i < violations.size() && i < 3; ++i) said += (i ? "; " : "") + violations[i];
    return make_error("host", origin + " is not a valid host profile: " + said);
  }
  Host h;
  h.origin = origin;
  h.name = doc["name"].get<std::string>();
  h.title = doc["title"].get<std::string>();
  h.kind = doc.value("kind", "client");
  h.is_default = doc.value("default", false);
  h.chars_per_token = doc.value("charsPerToken", 4.0);
  for (const auto& l : doc["limits"]) {
    HostLimit limit;
    limit.id = l["id"].get<std::string>();
    limit.unit = unit_of(l["unit"], Unit::kChars);
    const std::string of = l.value("of", "text");
    limit.of = of == "result"  ? HostLimit::Of::kResult
               : of == "image" ? HostLimit::Of::kImage
               : of == "audio" ? HostLimit::Of::kAudio
                               : HostLimit::Of::kText;
    // A content block's base64 data is ASCII: its size is its length, in bytes.
    if ((limit.of == HostLimit::Of::kImage || limit.of == HostLimit::Of::kAudio) && limit.unit != Unit::kBytes)
      return make_error("host", origin + ": limit '" + limit.id + "' measures " + of + " blocks, so its unit must be bytes");
    const std::string applies = l.value("applies", "any");
    limit.applies = applies == "success"  ? HostLimit::Applies::kSuccess
                    : applies == "error" ? HostLimit::Applies::kError
                                         : HostLimit::Applies::kAny;
    limit.max = l["max"].get<std::int64_t>();
    limit.past = past_of(l["past"], Past::kWarned);
    limit.raised_by = l.value("raisedBy", "");
    limit.replaced_by_declared = l.value("replacedByDeclared", false);
    limit.exempt_when_declared = l.value("exemptWhenDeclared", false);
    limit.verified = l.value("verified", true);
    // Lines are counted in the answer's text only (a base64 block or the JSON of the whole
    // result has no lines a host counts).
    if (limit.unit == Unit::kLines && limit.of != HostLimit::Of::kText)
      return make_error("host", origin + ": limit '" + limit.id + "' counts lines, so it must measure the text (of: text)");
    const std::string cut = l.value("cut", "");
    limit.cut = cut == "middle" ? HostLimit::Cut::kMiddle : cut == "head-kept" ? HostLimit::Cut::kHeadKept : HostLimit::Cut::kNone;
    limit.marker = l.value("marker", "");
    limit.sources = strings(l, "sources");
    h.limits.push_back(std::move(limit));
  }
  if (doc.contains("declared")) {
    const json& d = doc["declared"];
    DeclaredCeiling c;
    c.meta_key = d["metaKey"].get<std::string>();
    c.unit = unit_of(d.value("unit", json("chars")), Unit::kChars);
    c.min = d.value("min", std::int64_t{1});
    c.max = d["max"].get<std::int64_t>();
    c.past = past_of(d.value("past", json("diverted")), Past::kDiverted);
    c.note = d.value("note", "");
    c.sources = strings(d, "sources");
    h.declared = std::move(c);
  }
  // A pattern a host file gives (a name rule, or the characters a host replaces in names).
  auto compiled = [&](const std::string& pattern, const char* what) -> Result<std::shared_ptr<const re2::RE2>> {
    if (auto problem = pattern_problem(pattern))
      return make_error("host", origin + ": " + what + " '" + pattern + "' cannot be used: " + *problem);
    auto re = compile_re2(pattern);
    if (!re)
      return make_error("host", origin + ": " + what + " '" + pattern +
                                    "' cannot be used: it must be a regular expression RE2 accepts (no lookahead, "
                                    "lookbehind or backreference)");
    return re;
  };
  for (const auto& r : doc.value("toolNames", json::array())) {
    NameRule rule;
    if (r.contains("prefixed")) {
      const json& p = r["prefixed"];
      rule.prefixed = p["template"].get<std::string>();
      if (p.contains("replace")) {
        auto re = compiled(p["replace"].get<std::string>(), "toolNames prefixed.replace");
        if (!re) return re.error();
        rule.replace = std::move(*re);
        rule.replace_with = p.value("with", "_");
      }
    }
    rule.pattern = r["pattern"].get<std::string>();
    auto re = compiled(rule.pattern, "toolNames pattern");
    if (!re) return re.error();
    rule.re = std::move(*re);
    rule.says = r.value("says", "matches " + rule.pattern);
    rule.past = past_of(r["past"], Past::kRejected);
    rule.sources = strings(r, "sources");
    h.names.push_back(std::move(rule));
  }
  for (const auto& r : doc.value("inputSchemas", json::array())) {
    SchemaRule rule;
    rule.anywhere = r["at"] == "anywhere";
    rule.keywords = strings(r, "keywords");
    rule.formats = strings(r, "formats");
    rule.says = r.value("says", "");
    rule.past = past_of(r["past"], Past::kRejected);
    rule.sources = strings(r, "sources");
    h.schemas.push_back(std::move(rule));
  }
  if (doc.contains("tools")) {
    const json& t = doc["tools"];
    ToolCap cap;
    cap.max = t["max"].get<std::int64_t>();
    cap.across_servers = t.value("across", "all-servers") == "all-servers";
    cap.past = past_of(t["past"], Past::kTruncated);
    cap.says = t.value("says", "");
    cap.verified = t.value("verified", true);
    cap.sources = strings(t, "sources");
    h.tools = std::move(cap);
  }
  if (doc.contains("unicode") && doc["unicode"].contains("loneSurrogate")) {
    const json& u = doc["unicode"]["loneSurrogate"];
    UnicodeRule rule;
    rule.past = past_of(u["past"], Past::kRejected);
    rule.says = u.value("says", "");
    rule.verified = u.value("verified", true);
    rule.sources = strings(u, "sources");
    h.lone_surrogate = std::move(rule);
  }
  for (const auto& d : doc.value("descriptions", json::array())) {
    DescriptionLimit limit;
    limit.applies = d["applies"] == "instructions" ? DescriptionLimit::Applies::kInstructions
                                                   : DescriptionLimit::Applies::kToolDescription;
    limit.unit = unit_of(d.value("unit", json("chars")), Unit::kChars);
    limit.max = d["max"].get<std::int64_t>();
    limit.past = past_of(d["past"], Past::kTruncated);
    limit.sources = strings(d, "sources");
    h.descriptions.push_back(std::move(limit));
  }
  return h;
}

}  // namespace

bool matches_name(const NameRule& rule, const std::string& name) {
  return rule.re && RE2::FullMatch(name, *rule.re);
}

const char* to_string(Past p) {
  switch (p) {
    case Past::kWarned: return "warned";
    case Past::kDiverted: return "diverted";
    case Past::kTruncated: return "truncated";
    case Past::kRejected: return "rejected";
  }
  return "warned";
}

const char* describe(Past p) {
  switch (p) {
    case Past::kWarned: return "shows it with a warning";
    case Past::kDiverted: return "writes it to a file and shows the model only a preview";
    case Past::kTruncated: return "cuts it without saying so";
    case Past::kRejected: return "refuses it";
  }
  return "";
}

Severity severity_of(Past p) {
  return p == Past::kTruncated || p == Past::kRejected ? Severity::kError : Severity::kWarning;
}

const char* to_string(Unit u) {
  switch (u) {
    case Unit::kTokens: return "tokens";
    case Unit::kChars: return "chars";
    case Unit::kBytes: return "bytes";
    case Unit::kLines: return "lines";
  }
  return "chars";
}

std::int64_t Host::tokens(std::int64_t utf16_chars) const {
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(utf16_chars) / chars_per_token));
}

std::vector<std::string> builtin_host_names() { return bundled_names("hosts"); }

Result<Host> load_host_file(const std::string& path) {
  auto doc = read_json_file(path);
  if (!doc) return doc.error();
  return load_host_json(*doc, path);
}

Result<Host> load_host_json(const json& doc, const std::string& origin) {
  try {
    return from_json(doc, origin);
  } catch (const std::exception& e) {  // a document the schema let through but the reader did not expect
    return make_error("host", origin + " is not a valid host profile: " + e.what());
  }
}

Result<std::vector<Host>> load_hosts(const std::string& value) {
  std::vector<Host> out;
  if (value == "none") return out;
  auto dir = schemas_dir();
  auto builtin = [&](const std::string& name) -> Result<Host> {
    if (!dir) return dir.error();
    const fs::path path = fs::path(*dir) / "hosts" / (name + ".json");
    std::error_code ec;
    if (!well_formed_builtin_name(name) || !fs::is_regular_file(path, ec)) {
      std::string known;
      for (const auto& n : builtin_host_names()) known += (known.empty() ? "" : ", ") + n;
      return make_error("usage", "unknown host '" + name + "' (built-in: " + known + "; or all, none, or a FILE.json)");
    }
    auto h = load_host_file(path.string());
    if (h && h->name != name)
      return make_error("host", path.string() + " names itself '" + h->name + "', expected '" + name + "'");
    return h;
  };
  if (value.empty() || value == "default" || value == "all") {
    // No schemas directory: no built-in host, and the run says so (as envelope checks do).
    if (!dir) return out;
    for (const auto& name : builtin_host_names()) {
      auto h = builtin(name);
      if (!h) return h.error();
      if (h->is_default || value == "all") out.push_back(std::move(*h));
    }
    return out;
  }
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t comma = value.find(',', start);
    std::string item = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? value.size() + 1 : comma + 1;
    if (item.empty()) return make_error("usage", "--host: empty name in '" + value + "'");
    if (item == "none" || item == "default" || item == "all")
      return make_error("usage", "--host: '" + item + "' cannot be combined with other hosts");
    const bool file = item.find('/') != std::string::npos ||
                      (item.size() > 5 && item.compare(item.size() - 5, 5, ".json") == 0);
    auto h = file ? load_host_file(item) : builtin(item);
    if (!h) return h.error();
    if (std::any_of(out.begin(), out.end(), [&](const Host& o) { return o.name == h->name; })) continue;
    out.push_back(std::move(*h));
  }
  return out;
}

}  // namespace ctxo::profile
