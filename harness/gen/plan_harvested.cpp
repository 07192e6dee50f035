// SPDX-License-Identifier: MIT
// The ToolPlan's calls given real values: random calls with harvested values (harvested), boundary
// cases grounded on the workspace's (grounded), a coherent workspace position (positioned), a
// one-line program for a tool that runs code (programmed), a call cut to its real values, its
// required parameters and its output flags (real_only, lean_base), and the second pass.
#include "gen/plan.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/named_items.h"
#include "core/text.h"
#include "gen/plan_internal.h"
#include "profile/schema_validator.h"

namespace ctxo::gen {

using namespace detail;

std::optional<json> ToolPlan::programmed(const json& args) const {
  if (!validator_ || !args.is_object()) return std::nullopt;
  const json& props = properties_of(*schema_);
  std::string code_key, language_key;
  for (auto it = props.begin(); it != props.end(); ++it) {
    const std::string key = harvest_key(it.key());
    if (code_word(key) && code_key.empty()) code_key = it.key();
    if (language_word(key) && language_key.empty()) language_key = it.key();
  }
  if (code_key.empty()) return std::nullopt;
  json out = args;
  std::optional<std::string> program;
  const json* lang = language_key.empty() ? nullptr : &props.at(language_key);
  if (lang && lang->is_object() && lang->contains("enum") && lang->at("enum").is_array()) {
    // The first value of the language's enum the table knows.
    for (const auto& v : lang->at("enum"))
      if (v.is_string() && (program = program_for(v.get<std::string>()))) {
        out[language_key] = v;
        break;
      }
  } else {
    // The tool's own language; a free-text language parameter with none named gets Python's.
    const std::string l = !options_.code_language.empty() ? options_.code_language : lang ? "python" : "";
    if (!l.empty()) program = program_for(l);
    if (program && lang) out[language_key] = l;
  }
  if (!program) return std::nullopt;
  out[code_key] = *program;
  if (!validator_->is_valid(out)) return std::nullopt;
  return out;
}

// `args` with `property` set to `value`, or to `[value]` when only an array fits; an integer id
// that fits neither as its decimal text (task-master's `get_task {id: "2"}` for the `id: 2` its
// listing gave); nullopt when none keeps the call schema-valid.
namespace detail {
std::optional<json> with_value(const profile::SchemaValidator& v, const json& args, const std::string& property,
                               const json& value) {
  json trial = args;
  trial[property] = value;
  if (v.is_valid(trial)) return trial;
  trial[property] = json::array({value});
  if (v.is_valid(trial)) return trial;
  if (value.is_number_integer()) {
    trial[property] = value.dump();
    if (v.is_valid(trial)) return trial;
  }
  return std::nullopt;
}
}  // namespace detail

// Replaces, on about half of the random calls, each top-level property that is offered harvested
// values by one of them (kept only when the arguments stay schema-valid): the n-th such call takes
// the n-th offer, so the best matches come first and later calls reach further down the pools.
namespace {
// The string fields of objects inside a top-level array (`observations: [{entityName, contents}]`,
// `edits: [{path}]`) given the `k`-th harvested value offered for their name, each kept only when
// the whole call stays valid. Returns the fields filled ("observations[].entityName").
std::string fill_nested(json& args, const Harvest& harvest, std::size_t k, const profile::SchemaValidator& v,
                        bool workspace_values) {
  std::set<std::string> filled;
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (!it->is_array()) continue;
    for (std::size_t i = 0; i < it->size() && i < 8; ++i) {
      if (!(*it)[i].is_object()) continue;
      std::vector<std::string> keys;
      for (auto f = (*it)[i].begin(); f != (*it)[i].end(); ++f)
        if (f->is_string()) keys.push_back(f.key());
      for (const auto& key : keys) {
        const std::vector<json> offers = harvest.offers(key, workspace_values);
        if (offers.empty()) continue;
        json& field = (*it)[i][key];
        json saved = field;
        field = offers[(k + i) % offers.size()];
        if (v.is_valid(args)) filled.insert(it.key() + "[]." + key);
        else field = std::move(saved);
      }
    }
  }
  std::string out;
  for (const auto& f : filled) out += (out.empty() ? "" : ", ") + f;
  return out;
}
}  // namespace

namespace {
std::set<std::string> anchoring(const json& props);
}  // namespace

std::optional<json> ToolPlan::harvested(const json& args, std::size_t index, const Harvest& harvest) {
  // A tool that runs SQL is offered the catalogue queries even before any answer named a table.
  if (!validator_ || !args.is_object() || (harvest.empty() && !options_.sql && !takes_code_) ||
      mix(seed_ ^ 0x4841525645535400ull, index) % 2 == 0)
    return std::nullopt;
  json out = args;
  const json& props = properties_of(*schema_);
  bool any = false;
  const std::set<std::string> anchors = anchoring(props);
  for (auto it = props.begin(); it != props.end(); ++it) {
    const bool anchored = anchors.count(it.key()) > 0;
    std::vector<json> offers = harvest.offers(it.key(), options_.workspace_values);
    // A tool that runs SQL: its query is a statement over the tables its server named.
    if (options_.sql && query_word(harvest_key(it.key()))) {
      std::vector<json> sql = harvest.sql_statements();
      sql.insert(sql.end(), offers.begin(), offers.end());
      offers = std::move(sql);
    }
    // A `pattern` or `query` its description calls a regex: patterns first, then the names.
    if (query_word(harvest_key(it.key())) && !regex_word(harvest_key(it.key())) && described_as_regex(it.value())) {
      std::vector<json> rx = harvest.regex_patterns(options_.workspace_values);
      rx.insert(rx.end(), offers.begin(), offers.end());
      offers = std::move(rx);
    }
    // Each offer in turn until one fits the property's type, format, pattern and bounds.
    for (std::size_t k = 0; k < offers.size(); ++k) {
      if (auto trial = with_value(*validator_, out, it.key(), offers[((anchored ? 0 : harvested_calls_) + k) % offers.size()])) {
        out = std::move(*trial);
        any = true;
        break;
      }
    }
  }
  if (!fill_nested(out, harvest, harvested_calls_, *validator_, options_.workspace_values).empty()) any = true;
  if (any) ++harvested_calls_;
  // A tool that takes a position gets a real one, coherent across its parameters.
  if (auto pos = positioned(out, positioned_calls_, harvest)) {
    out = std::move(*pos);
    ++positioned_calls_;
  }
  // A tool that reads a git history gets the project's commits (plan_git.cpp).
  if (auto h = historied(out, historied_calls_++, harvest)) out = std::move(*h);
  // A tool that runs code gets a program that runs (a random string is only a syntax error).
  if (takes_code_)
    if (auto p = programmed(out)) out = std::move(*p);
  if (out == args) return std::nullopt;
  return out;
}

std::optional<json> ToolPlan::grounded(const json& args, const Harvest& harvest) const {
  if (!validator_ || !options_.workspace_values || !harvest.workspace() || boundary_.empty() || !args.is_object())
    return std::nullopt;
  const json& base = boundary_.front().arguments;
  json out = args;
  for (auto it = args.begin(); it != args.end(); ++it) {
    // Only a string the case shares with the base case: the property the case is about keeps its value.
    if (!it->is_string() || !base.is_object() || !base.contains(it.key()) || base[it.key()] != *it) continue;
    for (const json& offer : harvest.offers(it.key(), true))
      if (auto trial = with_value(*validator_, out, it.key(), offer)) {
        out = std::move(*trial);
        break;
      }
  }
  if (out == args) return std::nullopt;
  return out;
}

namespace {

// Where a position goes in a tool's arguments.
struct PositionSlots {
  std::vector<std::string> paths, uris, modules, names, lines, columns;
  std::vector<std::string> nested;  // object properties holding a line and a column (LSP's `position`)
  bool any_position() const { return !lines.empty() || !columns.empty() || !nested.empty(); }
};

PositionSlots position_slots(const json& props) {
  PositionSlots s;
  for (auto it = props.begin(); it != props.end(); ++it) {
    switch (position_part(it.key())) {
      case PositionPart::kLine: s.lines.push_back(it.key()); continue;
      case PositionPart::kColumn: s.columns.push_back(it.key()); continue;
      case PositionPart::kNone: break;
    }
    const std::vector<ValueKind> kinds = parameter_kinds(it.key());
    if (!kinds.empty()) {
      if (kinds.front() == ValueKind::kUri) s.uris.push_back(it.key());
      else if (kinds.front() == ValueKind::kPath) s.paths.push_back(it.key());
      else if (kinds.front() == ValueKind::kModule) s.modules.push_back(it.key());
      else if (std::find(kinds.begin(), kinds.end(), ValueKind::kName) != kinds.end()) s.names.push_back(it.key());
      continue;
    }
    const json& inner = properties_of(it.value());  // (a non-object has no `properties`)
    bool line = false, column = false;
    for (auto in = inner.begin(); in != inner.end(); ++in) {
      line = line || position_part(in.key()) == PositionPart::kLine;
      column = column || position_part(in.key()) == PositionPart::kColumn;
    }
    if (line && column) s.nested.push_back(it.key());
  }
  return s;
}

// The parameters of a tool that takes a path and a root to resolve it against: the root keeps
// its first offer (the workspace's) while the paths go round, since a file paired with another
// directory is only a miss.
std::set<std::string> anchoring(const json& props) {
  const PositionSlots slots = position_slots(props);
  std::set<std::string> out;
  if (slots.paths.empty() && slots.uris.empty()) return out;
  for (auto it = props.begin(); it != props.end(); ++it)
    if (anchor_word(harvest_key(it.key()))) out.insert(it.key());
  return out;
}

}  // namespace

std::optional<json> ToolPlan::positioned(const json& args, std::size_t k, const Harvest& harvest) const {
  const Workspace* ws = options_.workspace_values ? harvest.workspace() : nullptr;
  if (!validator_ || !ws || ws->positions.empty() || !args.is_object()) return std::nullopt;
  const PositionSlots slots = position_slots(properties_of(*schema_));
  const bool located = !slots.paths.empty() || !slots.uris.empty() || !slots.modules.empty();
  if (!slots.any_position() && !(located && !slots.names.empty())) return std::nullopt;
  // A module and a name: where the name is declared (a module that only uses it has no declaration of it).
  std::vector<const WorkspacePosition*> where;
  for (const auto& q : ws->positions)
    if (slots.modules.empty() || (q.declaration && module_of(q.path))) where.push_back(&q);
  if (where.empty()) return std::nullopt;
  const std::size_t n = where.size();
  const WorkspacePosition& p = *where[k % n];
  // 1-based and 0-based in turn (a position seen again on the next round takes the other base);
  // relative and absolute paths in turn, two calls each.
  const bool zero_first = (k + k / n) % 2 == 1;
  const bool absolute = (k / 2) % 2 == 1;
  auto fill = [&](bool zero, std::size_t& placed) {
    json out = args;
    auto set = [&](const std::string& key, const json& v) {
      if (auto t = with_value(*validator_, out, key, v)) {
        out = std::move(*t);
        return true;
      }
      return false;
    };
    const std::string rel = p.path, abs = ws->absolute(p.path);
    for (const auto& key : slots.paths)
      if (!set(key, absolute ? abs : rel)) set(key, absolute ? rel : abs);
    for (const auto& key : slots.uris) set(key, ws->uri(p.path));
    // The file as a module (typescript-mcp's get_type_in_module): from the root, or from its own
    // directory when the call names the file too (a specifier resolves against the file).
    if (auto m = module_of(p.path, !slots.paths.empty() || !slots.uris.empty()))
      for (const auto& key : slots.modules) set(key, *m);
    // A name the schema calls a regex is every other time the name as a whole word (`\bNAME\b`):
    // still a match in the file, and a pattern the tool must read as one.
    const bool word = !p.name.empty() && std::all_of(p.name.begin(), p.name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    for (const auto& key : slots.names)
      set(key, word && k % 2 == 1 && described_as_regex(properties_of(*schema_)[key]) ? "\\b" + p.name + "\\b" : p.name);
    const auto line = static_cast<std::int64_t>(zero ? p.line - 1 : p.line);
    const auto column = static_cast<std::int64_t>(zero ? p.column - 1 : p.column);
    for (const auto& key : slots.lines) placed += set(key, line) ? 1 : 0;
    for (const auto& key : slots.columns) placed += set(key, column) ? 1 : 0;
    for (const auto& key : slots.nested) {
      json inner = out.contains(key) && out[key].is_object() ? out[key] : json::object();
      const json& props = properties_of(properties_of(*schema_)[key]);
      for (auto it = props.begin(); it != props.end(); ++it) {
        if (position_part(it.key()) == PositionPart::kLine) inner[it.key()] = line;
        if (position_part(it.key()) == PositionPart::kColumn) inner[it.key()] = column;
      }
      placed += set(key, inner) ? 2 : 0;
    }
    return out;
  };
  const std::size_t wanted = slots.lines.size() + slots.columns.size() + 2 * slots.nested.size();
  std::size_t placed = 0;
  json out = fill(zero_first, placed);
  if (placed < wanted) {
    // The schema refuses this base (a `minimum: 1` line): the other one.
    std::size_t other = 0;
    json again = fill(!zero_first, other);
    if (other > placed) out = std::move(again);
  }
  if (out == args) return std::nullopt;
  return out;
}

namespace {

// A value made up from `v` that names nothing the server holds: a UUID with its last digit
// changed (still a UUID), any other text with "999" appended ("T3" -> "T3999", "3.2" -> "3.2999"),
// an integer with three digits more.
std::optional<json> made_up(const json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) {
    const auto n = v.get<std::int64_t>();
    if (n < 0 || n > 1'000'000'000'000) return std::nullopt;
    return json(n * 1000 + 999);
  }
  if (!v.is_string() || v.get_ref<const std::string&>().empty()) return std::nullopt;
  std::string s = v.get<std::string>();
  const bool uuid = s.size() == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' &&
                    std::isxdigit(static_cast<unsigned char>(s.back()));
  if (uuid) s.back() = s.back() == '0' ? '1' : '0';
  else s += "999";
  return json(s);
}

}  // namespace

std::optional<PlannedCall> ToolPlan::several(const json& args, const Harvest& harvest, const std::string& tool,
                                             const std::string& after) {
  if (!validator_ || !args.is_object() || !lookup_tool(tool)) return std::nullopt;
  const json& props = properties_of(*schema_);
  for (auto it = props.begin(); it != props.end(); ++it) {
    const json& ps = it.value();
    if (!about_the_tool(it.key(), tool)) continue;
    const std::string type = ps.is_object() ? ps.value("type", std::string()) : "";
    const bool array = type == "array" && names_items(it.key());
    const std::string description = ps.is_object() ? ascii_lower(ps.value("description", std::string())) : "";
    const bool listed = type == "string" && takes_ids(it.key()) && description.find("comma") != std::string::npos;
    if (!array && !listed) continue;
    // The item the call that reached data gave, then the offers.
    std::vector<json> items;
    const auto add = [&](const json& v) {
      if ((v.is_string() || v.is_number_integer()) && items.size() < 2 &&
          std::find(items.begin(), items.end(), v) == items.end())
        items.push_back(v);
    };
    if (auto a = args.find(it.key()); a != args.end()) {
      if (a->is_array() && !a->empty()) add(a->front());
      else if (a->is_string() && a->get_ref<const std::string&>().find(',') == std::string::npos) add(*a);
    }
    // An offer the check can hold the answer to: not a one- or two-letter name without a digit
    // (a word of any prose, which the check leaves alone).
    const auto telling = [](const json& v) {
      if (!v.is_string()) return true;
      const std::string& s = v.get_ref<const std::string&>();
      return s.size() >= 3 || std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    for (const json& o : harvest.offers(it.key(), options_.workspace_values))
      if (telling(o)) add(o);
    if (items.empty()) continue;
    auto absent = made_up(items.front());
    if (!absent) continue;
    items.push_back(*absent);
    json value;
    if (array) {
      value = json::array();
      for (const auto& i : items) value.push_back(i);
    } else {
      std::string joined;
      for (const auto& i : items) joined += (joined.empty() ? "" : ",") + (i.is_string() ? i.get<std::string>() : i.dump());
      value = joined;
    }
    json out = args;
    out[it.key()] = value;
    if (!validator_->is_valid(out) && array) {
      // Integer ids where the schema wants text: their decimal text.
      for (auto& e : out[it.key()])
        if (e.is_number_integer()) e = e.dump();
    }
    if (!validator_->is_valid(out)) continue;
    return fresh(std::move(out), Phase::kRandom,
                 "several items named in '" + it.key() + "', the last made up (" + after + ")");
  }
  return std::nullopt;
}

// ---- calls with real values only (issue 43) ----------------------------------------------------

bool output_flag(const std::string& property) {
  const std::string k = harvest_key(property);
  const auto starts = [&](std::string_view w) { return k.size() > w.size() && k.compare(0, w.size(), w) == 0; };
  if (starts("without") || starts("within")) return false;
  return one_of(k, {"verbose", "details", "detailed", "full"}) || starts("include") || starts("with") || starts("show");
}

json ToolPlan::with_output_flags(json args) const {
  if (!validator_ || !args.is_object()) return args;
  const json& props = properties_of(*schema_);
  for (auto it = props.begin(); it != props.end(); ++it) {
    if (!output_flag(it.key())) continue;
    json trial = args;
    trial[it.key()] = true;
    if (validator_->is_valid(trial)) args = std::move(trial);
  }
  return args;
}

namespace {
std::set<std::string> required_of(const json& schema) {
  std::set<std::string> out;
  if (auto it = schema.find("required"); it != schema.end() && it->is_array())
    for (const auto& r : *it)
      if (r.is_string()) out.insert(r.get<std::string>());
  return out;
}
}  // namespace

std::optional<json> ToolPlan::real_only(const json& real, const json& drawn, bool required_only) const {
  if (!validator_ || !real.is_object()) return std::nullopt;
  const std::set<std::string> required = required_of(*schema_);
  // What a required parameter is relative to stays with it, even with `required_only`: a line,
  // column or module (`./util`, from the file's directory) keeps the file or uri it was placed
  // with, a path keeps the root it resolves against (a name needs nothing).
  std::set<std::string> bound;
  if (required_only) {
    const json& props = properties_of(*schema_);
    const PositionSlots slots = position_slots(props);
    const auto kept = [&](const std::vector<std::string>& keys) {
      return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return required.count(k) > 0; });
    };
    if (kept(slots.lines) || kept(slots.columns) || kept(slots.modules) || kept(slots.nested)) {
      bound.insert(slots.paths.begin(), slots.paths.end());
      bound.insert(slots.uris.begin(), slots.uris.end());
    }
    if (kept(slots.paths) || kept(slots.uris) || !bound.empty())
      for (const auto& k : anchoring(props)) bound.insert(k);
  }
  json out = json::object();
  bool any = false;
  for (auto it = real.begin(); it != real.end(); ++it) {
    // A real value (harvested, workspace, a program) differs from the draw's; a required one is
    // kept as harvested() left it (a language it chose may be the one drawn).
    const bool took = !drawn.is_object() || !drawn.contains(it.key()) || drawn[it.key()] != *it;
    if (required.count(it.key()) == 0 && !(took && (!required_only || bound.count(it.key())))) continue;
    any = any || took;
    out[it.key()] = *it;
  }
  if (!any) return std::nullopt;
  out = with_output_flags(std::move(out));
  if (!validator_->is_valid(out)) return std::nullopt;
  return out;
}

json ToolPlan::lean_base() const {
  const json base = boundary_.empty() ? json::object() : boundary_.front().arguments;
  if (!validator_ || !base.is_object()) return base;
  const std::set<std::string> required = required_of(*schema_);
  json lean = json::object();
  for (auto it = base.begin(); it != base.end(); ++it)
    if (required.count(it.key())) lean[it.key()] = *it;
  if (!validator_->is_valid(lean)) return base;
  return with_output_flags(std::move(lean));
}

std::vector<PlannedCall> ToolPlan::second_pass(const Harvest& harvest, std::size_t n) {
  std::vector<PlannedCall> out;
  if (!validator_ || (harvest.empty() && !takes_code_)) return out;
  // Lean: the required parameters, the output flags, and (below) the real values.
  const json base = lean_base();
  const json& props = properties_of(*schema_);
  std::map<std::string, std::vector<json>> offers;
  std::size_t deepest = 0;
  for (auto it = props.begin(); it != props.end(); ++it) {
    auto o = harvest.offers(it.key(), options_.workspace_values);
    if (o.empty()) continue;
    deepest = std::max(deepest, o.size());
    offers.emplace(it.key(), std::move(o));
  }
  if (takes_code_) deepest = std::max<std::size_t>(deepest, 1);  // its program, at least
  const std::set<std::string> anchors = anchoring(props);
  // A tool whose only harvestable fields are inside objects in arrays (fill_nested) is tried too.
  if (deepest == 0 && base.is_object())
    for (auto it = base.begin(); it != base.end(); ++it)
      if (it->is_array() && !it->empty() && it->front().is_object()) deepest = n;
  for (std::size_t k = 0; k < deepest && out.size() < n; ++k) {
    json args = base;
    std::string used;
    for (const auto& [name, values] : offers) {
      // The k-th offer of each parameter (its last when it has fewer), kept when the call stays valid.
      if (auto trial = with_value(*validator_, args, name, values[anchors.count(name) ? 0 : std::min(k, values.size() - 1)])) {
        args = std::move(*trial);
        used += (used.empty() ? "" : ", ") + name;
      }
    }
    if (auto pos = positioned(args, k, harvest)) {
      args = std::move(*pos);
      used += std::string(used.empty() ? "" : ", ") + "a workspace position";
    }
    if (std::string nested = fill_nested(args, harvest, k, *validator_, options_.workspace_values); !nested.empty())
      used += (used.empty() ? "" : ", ") + nested;
    if (auto p = takes_code_ ? programmed(args) : std::nullopt) {
      args = std::move(*p);
      used += std::string(used.empty() ? "" : ", ") + "a one-line program";
    }
    if (used.empty()) continue;
    if (auto c = fresh(std::move(args), Phase::kRandom, "second pass #" + std::to_string(out.size() + 1) +
                                                            " (harvested " + used + ")"))
      out.push_back(std::move(*c));
  }
  return out;
}

}  // namespace ctxo::gen
