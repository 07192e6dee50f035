// SPDX-License-Identifier: MIT
// The Harvest: values pooled from earlier answers (by property name and by kind, with the values
// inside them: anchors' paths, file:// uris, path::name ids), the workspace's values, each scored
// by what the calls that carried it did, and offered to a parameter best first.
#include "gen/plan.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "core/anchor.h"
#include "core/json_bounded.h"
#include "mcp/answer.h"
#include "core/text.h"
#include "gen/plan_internal.h"
#include "gen/prose.h"
#include "gen/simple.h"

namespace ctxo::gen {

namespace detail {

std::optional<std::string> value_anchor_path(const std::string& s) {
  const auto anchor = parse_anchor(s);
  if (!anchor) return std::nullopt;
  const std::string path(anchor->path);
  if (path.find_first_of(" \t\n:") != std::string::npos) return std::nullopt;
  if (path.find('/') == std::string::npos && path.find('.') == std::string::npos) return std::nullopt;
  return path;
}

}  // namespace detail

namespace {

constexpr int kHarvestDepth = 12;

void offer_once(std::vector<json>& out, std::set<std::string>& given, const json& v) {
  if (given.insert(v.dump()).second) out.push_back(v);
}

// 7 to 64 lower-case hex digits: a commit id, whole or abbreviated.
bool commit_id_like(const std::string& s) {
  return s.size() >= 7 && s.size() <= 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool identifier_text(const std::string& s) {
  if (s.empty() || s.size() > 200) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$' || c == '.' || c == '#' ||
           static_cast<unsigned char>(c) >= 0x80;
  });
}

}  // namespace

void Harvest::take_result(const json& result, bool prose, const std::vector<std::string>& exclude) {
  mcp::Reply r;
  r.kind = mcp::Reply::Kind::kResult;
  r.result = result;
  take_answer(mcp::Answer(r), prose, exclude);
}

void Harvest::take_answer(const mcp::Answer& answer, bool prose, const std::vector<std::string>& exclude) {
  const json& result = answer.reply().result;
  if (!result.is_object()) return;
  mentioned_.clear();  // one answer names a value once, however often it prints it
  if (auto it = result.find("structuredContent"); it != result.end()) walk(*it, 0);
  for (const auto& part : answer.read()) {
    if (!part.typed_text) continue;
    if (!part.whole.is_discarded()) {
      walk(part.whole, 0);
      continue;
    }
    // Not JSON as a whole: JSON followed by a Markdown footer, or prose.
    if (!part.leading.is_discarded()) walk(part.leading, 0);
    const std::string_view rest = std::string_view(*part.text).substr(part.rest);
    if (rest.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) continue;
    // An id a label names ("search session: `a1b2c3`") is what a follow-up tool takes by that
    // name, whatever the tool that printed it does.
    for (const LabelledValue& lv : labelled_values(rest, exclude)) {
      const json x(lv.value);
      for (const auto& name : lv.names) keep_name(name, x);
      keep_kind(ValueKind::kId, x);
    }
    if (!prose) continue;
    for (const ProseValue& v : prose_values(rest, exclude)) {
      const json x(v.value);
      if (v.kind == ValueKind::kUri || v.kind == ValueKind::kId) derive(v.value, v.kind);  // its path and name
      if (v.kind != ValueKind::kUri) keep_kind(v.kind, x);
    }
  }
}

void Harvest::take(const json& value) {
  mentioned_.clear();
  walk(value, 0);
}

void Harvest::keep_name(const std::string& key, const json& x) {
  keep(pool_[key], kPerName, key + '\x1f' + x.dump(), x, false);  // mentions are counted by kind
}

void Harvest::keep_kind(ValueKind kind, const json& x, bool mention) {
  keep(kinds_[kind], kPerKind, std::string("\x1e") + kind_name(kind) + '\x1f' + x.dump(), x, mention);
}

// A value pooled once (first seen first, while there is room); a mention counted for a pooled
// value each time an answer names it, so the scores stay as bounded as the pools.
void Harvest::keep(std::vector<json>& values, std::size_t room, std::string seen_key, const json& x, bool mention) {
  bool pooled = seen_.count(seen_key) > 0;
  if (!pooled && values.size() < room) {
    seen_.insert(std::move(seen_key));
    values.push_back(x);
    pooled = true;
  }
  if (pooled && mention)
    if (std::string text = x.dump(); mentioned_.insert(text).second) score(text, &Score::mentions);
}

void Harvest::score(const std::string& value, std::uint32_t Score::*field, std::uint32_t by) {
  if (by == 0) return;
  auto it = scores_.find(value);
  if (it == scores_.end()) {
    const bool known = shared_scores_ && shared_scores_->count(value) > 0;
    if (!known && (shared_scores_ ? shared_scores_->size() : 0) + new_scored_ >= kMaxScored) return;
    it = scores_.emplace(value, Score{}).first;
    if (!known) ++new_scored_;
  }
  it->second.*field += by;
  fresh_[value].*field += by;
}

void Harvest::outcome(const json& arguments, bool data) {
  std::vector<const json*> stack{&arguments};
  std::set<std::string> scored;  // a value carried twice by one call counts once
  for (std::size_t n = 0; !stack.empty() && n < 256; ++n) {
    const json* v = stack.back();
    stack.pop_back();
    if (v->is_structured()) {
      for (const auto& x : *v) stack.push_back(&x);
    } else if ((v->is_string() && !v->get_ref<const std::string&>().empty() && v->get_ref<const std::string&>().size() <= 512) ||
               v->is_number_integer()) {
      if (std::string text = v->dump(); scored.insert(text).second) score(text, data ? &Score::data : &Score::misses);
    }
  }
}

Harvest Harvest::fork() const {
  // Member by member: what this copy gathered (fresh_, which grows with every score of the run's
  // harvest) is not copied only to be cleared.
  Harvest copy;
  copy.pool_ = pool_;
  copy.kinds_ = kinds_;
  copy.seen_ = seen_;
  copy.scores_ = scores_;
  copy.shared_scores_ = shared_scores_;
  copy.new_scored_ = new_scored_;
  copy.mentioned_ = mentioned_;
  copy.workspace_ = workspace_;
  copy.workspace_values_ = workspace_values_;
  return copy;
}

void Harvest::share_scores() {
  if (scores_.empty()) return;
  auto merged = shared_scores_ ? std::map<std::string, Score>(*shared_scores_) : std::map<std::string, Score>{};
  for (const auto& [value, s] : scores_) {
    Score& m = merged[value];
    m.mentions += s.mentions;
    m.data += s.data;
    m.misses += s.misses;
  }
  shared_scores_ = std::make_shared<const std::map<std::string, Score>>(std::move(merged));
  scores_.clear();
  new_scored_ = 0;
}

Harvest Harvest::gathered(const Harvest& parent) const {
  Harvest g;
  g.workspace_ = workspace_;
  g.workspace_values_ = workspace_values_;
  g.fresh_ = fresh_;
  auto tail = [&](const std::string& prefix, const std::vector<json>& values, std::vector<json>& into) {
    for (const json& x : values) {
      std::string key = prefix + x.dump();
      if (parent.seen_.count(key)) continue;
      g.seen_.insert(std::move(key));
      into.push_back(x);
    }
  };
  for (const auto& [key, values] : pool_) {
    std::vector<json> fresh;
    tail(key + '\x1f', values, fresh);
    if (!fresh.empty()) g.pool_.emplace(key, std::move(fresh));
  }
  for (const auto& [kind, values] : kinds_) {
    std::vector<json> fresh;
    tail(std::string("\x1e") + kind_name(kind) + '\x1f', values, fresh);
    if (!fresh.empty()) g.kinds_.emplace(kind, std::move(fresh));
  }
  return g;
}

std::pair<int, std::uint32_t> Harvest::rank(const json& v) const {
  const std::string text = v.dump();
  Score s;
  bool scored = false;
  for (const auto* scores : {shared_scores_.get(), &scores_}) {
    if (!scores) continue;
    if (auto it = scores->find(text); it != scores->end()) {
      s.mentions += it->second.mentions;
      s.data += it->second.data;
      s.misses += it->second.misses;
      scored = true;
    }
  }
  if (!scored) return {0, 0};
  if (s.misses > 0 && s.data == 0) return {1, 0};  // only misses: after every other value
  // A call that reached data weighs as four answers naming the value, a miss takes one back; a
  // value named once is not a hub (every pooled value was named once).
  const std::int64_t weight = 4 * static_cast<std::int64_t>(s.data) + (s.mentions >= 2 ? std::min<std::uint32_t>(s.mentions, 1024) : 0) -
                              4 * static_cast<std::int64_t>(s.misses);
  return {0, static_cast<std::uint32_t>(std::max<std::int64_t>(weight, 0))};
}

// Values inside a value: the path of an anchor or a file:// uri, the parts of a path::name::kind id.
void Harvest::derive(const std::string& text, std::optional<ValueKind> kind) {
  if (auto p = file_uri_path(text)) {
    keep_kind(ValueKind::kUri, json(text));
    keep_kind(ValueKind::kPath, json(*p));
    return;
  }
  if (text.find("://") != std::string::npos) return;
  if (auto p = detail::value_anchor_path(text); p && kind != ValueKind::kName) keep_kind(ValueKind::kPath, json(*p));
  if (const std::size_t sep = text.find("::"); sep != std::string::npos && sep > 0 && text.find(' ') == std::string::npos) {
    std::vector<std::string> parts;
    for (std::size_t at = 0;;) {
      const std::size_t next = text.find("::", at);
      parts.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
      if (next == std::string::npos) break;
      at = next + 2;
    }
    const bool pathy = parts[0].find('/') != std::string::npos || parts[0].find('.') != std::string::npos;
    if (parts.size() >= 2 && pathy && !parts[1].empty()) {
      keep_kind(ValueKind::kPath, json(parts[0]));
      if (identifier_text(parts[1])) keep_kind(ValueKind::kName, json(parts[1]));
    }
  }
}

void Harvest::walk(const json& v, int depth) {
  if (depth > kHarvestDepth) return;
  if (v.is_array()) {
    for (const auto& x : v) walk(x, depth + 1);
    return;
  }
  if (!v.is_object()) return;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const json& x = it.value();
    std::string key = harvest_key(it.key());
    if (key == "nextcursor") key = "cursor";  // a page's nextCursor is the next call's cursor
    const bool text = x.is_string() && !x.get_ref<const std::string&>().empty() &&
                      x.get_ref<const std::string&>().size() <= 512;
    std::optional<ValueKind> kind = answer_kind(it.key());
    // A `sha` or `hash` is a revision only when it looks like a commit id (not a file's digest in
    // another form, not a word).
    if (kind == ValueKind::kRevision && !(text && commit_id_like(x.get_ref<const std::string&>()))) kind.reset();
    if (text) {
      const std::string& s = x.get_ref<const std::string&>();
      derive(s, kind);
      // A uri of another scheme (https://...) is never offered: generated calls stay local.
      const bool remote = s.find("://") != std::string::npos && s.rfind("file://", 0) != 0;
      if (kind && !remote && !(kind == ValueKind::kUri && s.rfind("file://", 0) != 0)) {
        keep_name(key, x);
        if (kind != ValueKind::kUri) keep_kind(*kind, x);
      } else if (!remote && (identifier_like(it.key()) || key == "cursor")) {
        keep_name(key, x);
      }
    } else if (x.is_number_integer() && (kind == ValueKind::kId || identifier_like(it.key()))) {
      keep_name(key, x);
      if (kind == ValueKind::kId) keep_kind(ValueKind::kId, x);
    }
    if (x.is_structured()) walk(x, depth + 1);
  }
}

const std::vector<json>* Harvest::values_for(const std::string& property) const {
  auto it = pool_.find(harvest_key(property));
  return it == pool_.end() || it->second.empty() ? nullptr : &it->second;
}

const std::vector<json>& Harvest::values_of(ValueKind kind) const {
  static const std::vector<json> kNone;
  auto it = kinds_.find(kind);
  return it == kinds_.end() ? kNone : it->second;
}

void Harvest::set_workspace(std::shared_ptr<const Workspace> ws) {
  workspace_ = std::move(ws);
  workspace_values_.reset();
  if (!workspace_) return;
  auto values = std::make_shared<std::map<ValueKind, std::vector<json>>>();
  for (ValueKind k : {ValueKind::kId, ValueKind::kName, ValueKind::kPath, ValueKind::kUri, ValueKind::kCursor,
                      ValueKind::kSnippet, ValueKind::kGlob, ValueKind::kFileType, ValueKind::kDirectory,
                      ValueKind::kModule, ValueKind::kRevision}) {
    auto v = workspace_->values_of(k);
    if (!v.empty()) values->emplace(k, std::move(v));
  }
  workspace_values_ = std::move(values);
}

bool Harvest::knows(const json& value) const {
  const std::string text = value.dump();
  for (const auto& kv : kinds_)
    if (seen_.count(std::string("\x1e") + kind_name(kv.first) + '\x1f' + text)) return true;
  for (const auto& kv : pool_)
    if (seen_.count(kv.first + '\x1f' + text)) return true;
  if (workspace_values_)
    for (const auto& kv : *workspace_values_)
      if (std::find(kv.second.begin(), kv.second.end(), value) != kv.second.end()) return true;
  return false;
}

bool Harvest::empty() const {
  return (!workspace_values_ || workspace_values_->empty()) && pool_.empty() &&
         std::all_of(kinds_.begin(), kinds_.end(), [](const auto& kv) { return kv.second.empty(); });
}

std::vector<json> Harvest::offers(const std::string& property, bool with_workspace) const {
  std::vector<json> out;
  std::set<std::string> given;
  const std::vector<ValueKind> kinds = parameter_kinds(property);
  auto offer = [&](ValueKind k, const json& v) {
    // A uri parameter takes absolute paths as file:// uris.
    if (k == ValueKind::kPath && !kinds.empty() && kinds.front() == ValueKind::kUri) {
      if (v.is_string() && !v.get_ref<const std::string&>().empty() && v.get_ref<const std::string&>()[0] == '/')
        offer_once(out, given, json("file://" + v.get<std::string>()));
      return;
    }
    offer_once(out, given, v);
  };
  std::vector<std::size_t> blocks;  // where each block starts: the own name's, then each kind's
  blocks.push_back(0);
  if (const auto* own = values_for(property))
    for (const auto& v : *own) offer_once(out, given, v);
  static const std::vector<json> kNone;
  for (ValueKind k : kinds) {
    blocks.push_back(out.size());
    if (k == ValueKind::kSql) {
      for (const auto& v : sql_statements()) offer_once(out, given, v);
      continue;
    }
    if (k == ValueKind::kRegex) {
      for (const auto& v : regex_patterns(with_workspace)) offer_once(out, given, v);
      continue;
    }
    // The workspace's values and the answers' of this kind in turn, the workspace's first.
    const std::vector<json>* ws = &kNone;
    if (workspace_values_ && with_workspace)
      if (auto it = workspace_values_->find(k); it != workspace_values_->end()) ws = &it->second;
    std::vector<json> names;  // a branch or a tag parameter: the workspace's branches or tags only
    if (k == ValueKind::kRevision && ws != &kNone && revision_sort(property) != RevisionSort::kAny) {
      for (const auto& n : revision_sort(property) == RevisionSort::kBranch ? workspace_->branches : workspace_->tags)
        names.emplace_back(n);
      ws = &names;
    }
    const std::vector<json>& answers = values_of(k);
    for (std::size_t i = 0; i < std::max(ws->size(), answers.size()); ++i) {
      if (i < ws->size()) offer(k, (*ws)[i]);
      if (i < answers.size()) offer(k, answers[i]);
    }
  }
  // Steered by what the values did (see the class comment), block by block (the kinds stay in
  // the parameter's order: a `symbolId` takes ids before names whatever the names did); equals
  // keep the order above.
  if (scores_.empty() && (!shared_scores_ || shared_scores_->empty())) return out;
  blocks.push_back(out.size());
  std::vector<json> ranked, spent;  // spent: the values that gave only misses, after every block
  ranked.reserve(out.size());
  for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
    std::vector<std::pair<std::pair<int, std::uint32_t>, std::size_t>> order;
    for (std::size_t i = blocks[b]; i < blocks[b + 1]; ++i) order.emplace_back(rank(out[i]), i);
    std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
      return x.first.first != y.first.first ? x.first.first < y.first.first : x.first.second > y.first.second;
    });
    for (const auto& [r, i] : order) (r.first == 0 ? ranked : spent).push_back(std::move(out[i]));
  }
  for (auto& v : spent) ranked.push_back(std::move(v));
  return ranked;
}

std::vector<json> Harvest::sql_statements() const {
  std::vector<json> out;
  std::set<std::string> tables;
  const auto sql_identifier = [](const std::string& s) {
    return !s.empty() && s.size() <= 64 && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; });
  };
  auto add_tables = [&](const std::vector<json>* values, std::size_t most) {
    if (!values) return;
    for (const auto& v : *values) {
      if (tables.size() >= 8 || most-- == 0) return;
      if (v.is_string() && sql_identifier(v.get<std::string>()) && tables.insert(v.get<std::string>()).second)
        out.emplace_back("SELECT * FROM " + v.get<std::string>());
    }
  };
  for (const char* key : {"table", "tables", "tablename", "tablenames"}) add_tables(values_for(key), 8);
  add_tables(&values_of(ValueKind::kName), 4);
  for (const char* s : {"SELECT name FROM sqlite_master WHERE type = 'table'",
                        "SELECT table_name FROM information_schema.tables", "SELECT 1"})
    out.emplace_back(s);
  return out;
}

std::vector<json> Harvest::regex_patterns(bool with_workspace) const {
  // Names a pattern can quote as they are: word characters only (no escaping to get wrong).
  std::vector<std::string> names;
  auto add_names = [&](const std::vector<json>& values) {
    for (const auto& v : values) {
      if (names.size() >= 4) return;
      if (!v.is_string()) continue;
      const std::string& n = v.get_ref<const std::string&>();
      if (n.size() < 2 || n.size() > 64 || std::isdigit(static_cast<unsigned char>(n[0])) ||
          !std::all_of(n.begin(), n.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
        continue;
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  };
  if (with_workspace && workspace_values_)
    if (auto it = workspace_values_->find(ValueKind::kName); it != workspace_values_->end()) add_names(it->second);
  add_names(values_of(ValueKind::kName));
  std::vector<json> out;
  for (std::size_t i = 0; i < names.size() && i < 2; ++i) {
    out.emplace_back("\\b" + names[i] + "\\b");
    out.emplace_back(names[i].substr(0, std::max<std::size_t>(3, names[i].size() / 2)) + "\\w*");
  }
  if (names.size() >= 2) out.emplace_back("(" + names[0] + "|" + names[1] + ")");
  out.emplace_back("(function|class|def|interface|struct|const)\\s+\\w+");
  // Character classes of the workspace's own non-ASCII characters: an engine without Unicode
  // mode (JavaScript's RegExp without `u`) reads `[🚀]` as two UTF-16 halves and can return half a
  // character (a lone surrogate, which hosts refuse); up to two astral characters, then two others.
  if (with_workspace && workspace_) {
    std::string astral, other;
    for (const auto& c : workspace_->characters) (c.size() == 4 ? astral : other) += c;
    for (const std::string* set : {&astral, &other})
      if (!set->empty()) out.emplace_back("[" + *set + "]");
  }
  return out;
}

void Harvest::absorb(const Harvest& other) {
  if (!workspace_ && other.workspace_) {
    workspace_ = other.workspace_;
    workspace_values_ = other.workspace_values_;
  }
  for (const auto& [key, values] : other.pool_)
    for (const auto& x : values) keep_name(key, x);
  for (const auto& [kind, values] : other.kinds_)
    for (const auto& x : values) keep_kind(kind, x, false);
  for (const auto& [value, s] : other.fresh_) {
    score(value, &Score::mentions, s.mentions);
    score(value, &Score::data, s.data);
    score(value, &Score::misses, s.misses);
  }
}

std::size_t Harvest::size() const {
  std::set<std::string> distinct;
  for (const auto& [k, v] : pool_)
    for (const auto& x : v) distinct.insert(x.dump());
  for (const auto& [k, v] : kinds_)
    for (const auto& x : v) distinct.insert(x.dump());
  return distinct.size();
}

}  // namespace ctxo::gen
