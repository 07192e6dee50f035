// SPDX-License-Identifier: MIT
// Answers sized as hosts measure them (measure_answer, without_echoes) and HostMeter: H-SIZE and
// H-DECLARED, once per tool at the answer that went furthest past a limit. The tools/list rules:
// hosts_listing.cpp.
#include "checks/hosts.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "checks/hosts_internal.h"
#include "core/text.h"
#include "truncation/js_json.h"
#include "truncation/unicode.h"

#include <re2/re2.h>

namespace ctxo::checks {

namespace hosts_detail {

std::string unit_words(Unit u, Of of) {
  const std::string w = u == Unit::kTokens  ? "tokens"
                        : u == Unit::kBytes ? "bytes"
                        : u == Unit::kLines ? "lines"
                                            : "characters";
  switch (of) {
    case Of::kResult: return w + " of the serialised result";
    case Of::kImage: return w + " of an image block's base64 data";
    case Of::kAudio: return w + " of an audio block's base64 data";
    case Of::kText: break;
  }
  return w;
}

/// "A", "A and B", "A, B and C".
std::string and_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

Severity worse(Severity a, Severity b) { return a == Severity::kError || b == Severity::kError ? Severity::kError : Severity::kWarning; }

/// The ceiling `tool` declares for `host` (capped at the host's maximum), or nullopt when it
/// declares none the host would honour.
std::optional<std::int64_t> declared_ceiling(const Host& host, const json* tool) {
  if (!host.declared || !tool || !tool->is_object()) return std::nullopt;
  auto meta = tool->find("_meta");
  if (meta == tool->end() || !meta->is_object()) return std::nullopt;
  auto v = meta->find(host.declared->meta_key);
  if (v == meta->end() || !v->is_number()) return std::nullopt;
  const double d = v->get<double>();
  if (!(d >= static_cast<double>(host.declared->min)) || d != static_cast<double>(static_cast<std::int64_t>(d)))
    return std::nullopt;
  return std::min(static_cast<std::int64_t>(d), host.declared->max);
}

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

}  // namespace hosts_detail

using namespace hosts_detail;

namespace {

/// A limit on one image or audio block rather than on the answer's text or whole result.
bool on_media(const HostLimit& l) { return l.of == Of::kImage || l.of == Of::kAudio; }

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

/// What a finding whose answer came after state-changing calls says about them.
std::string after_calls(const json& sequence) {
  if (!sequence.is_array() || sequence.empty()) return "";
  return " (the answer came after " + std::to_string(sequence.size()) +
         " calls on the same server, some to tools not annotated read-only, which may have made it this large; its "
         "case replays them first)";
}

/// What a finding whose answer quotes the run's own long generated strings says about them.
std::string echo_words(std::int64_t echoes) {
  if (echoes <= 0) return "";
  return " (measured with the " + thousands(echoes) + (echoes == 1 ? " quote" : " quotes") +
         " of long strings the run generated counted as " + std::to_string(kEchoCounted) +
         "-character values: it is this large without them)";
}

/// The start of an answer's text, for a finding's excerpt.
std::string text_excerpt(const mcp::Reply& r) {
  auto parts = r.text_parts();
  return parts.empty() ? std::string() : excerpt(*parts.front(), 300);
}

std::int64_t size_in(const Host& host, Unit unit, Of of, const AnswerSize& s) {
  if (unit == Unit::kLines) return s.lines;  // of the text only (the loader sees to it)
  if (of == Of::kImage) return s.image_bytes;  // base64 is ASCII: bytes, chars and length agree
  if (of == Of::kAudio) return s.audio_bytes;
  const bool of_result = of == Of::kResult;
  const std::int64_t chars = of_result ? s.result_chars : s.chars;
  const std::int64_t bytes = of_result ? s.result_bytes : s.bytes;
  switch (unit) {
    case Unit::kTokens: return host.tokens(chars);
    case Unit::kBytes: return bytes;
    case Unit::kChars:
    case Unit::kLines: return chars;
  }
  return chars;
}

/// What the model of a host that cuts past `l` never reads of `reply`'s text: "lines 129-384 of
/// 512". Where a cut by size falls inside a line, the whole line counts as lost (Codex cuts on
/// line boundaries). "" when the cut cannot be placed.
std::string lost_lines(const Host& h, const HostLimit& l, const mcp::Reply& reply) {
  std::string text;
  {
    const auto parts = reply.text_parts();
    for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? "\n" : "") + *parts[i];
  }
  if (text.empty()) return "";
  std::vector<std::size_t> starts{0};  // byte offset of each line's start
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' && i + 1 < text.size()) starts.push_back(i + 1);
  const std::size_t total = starts.size();
  auto line_of = [&](std::size_t off) {
    return static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), off) - starts.begin());
  };
  const bool middle = l.cut == HostLimit::Cut::kMiddle;
  const auto max = static_cast<std::size_t>(l.max);
  const std::size_t head = middle ? max / 2 : max, tail = middle ? max - max / 2 : 0;
  std::size_t first = 0, last = total;  // 1-based lines lost, first..last
  if (l.unit == Unit::kLines) {
    if (head + tail >= total) return "";
    first = head + 1;
    last = total - tail;
  } else {
    // The kept head and tail as byte offsets.
    std::size_t head_at = 0, tail_at = text.size();
    if (l.unit == Unit::kBytes) {
      head_at = std::min(head, text.size());
      tail_at = text.size() - std::min(tail, text.size());
    } else {
      const double per = l.unit == Unit::kTokens ? h.chars_per_token : 1.0;
      const auto units = truncation::utf16_length(text);
      const auto head_units = static_cast<std::size_t>(static_cast<double>(head) * per);
      const auto tail_units = static_cast<std::size_t>(static_cast<double>(tail) * per);
      head_at = utf16_prefix_bytes(text, head_units);
      tail_at = tail_units >= units ? 0 : utf16_prefix_bytes(text, units - tail_units);
    }
    if (tail_at <= head_at) return "";
    first = line_of(head_at);
    last = middle ? line_of(tail_at - 1) : total;
  }
  if (first > last || first == 0) return "";
  return (first == last ? "line " + thousands(static_cast<std::int64_t>(first))
                        : "lines " + thousands(static_cast<std::int64_t>(first)) + "-" +
                              thousands(static_cast<std::int64_t>(last))) +
         " of " + thousands(static_cast<std::int64_t>(total));
}

/// What a host that says where it cuts does past `l`, around the limit's own words: {"keeps only
/// the first 5,000 and the last 5,000 bytes of an answer", "and puts `…N tokens truncated…`
/// between them"}.
std::pair<std::string, std::string> cut_words(const HostLimit& l) {
  const std::string unit = unit_words(l.unit, l.of);
  if (l.cut == HostLimit::Cut::kMiddle)
    return {"keeps only the first " + thousands(l.max / 2) + " and the last " + thousands(l.max - l.max / 2) + " " + unit +
                " of an answer",
            l.marker.empty() ? "and drops the middle without saying so" : "and puts `" + l.marker + "` between them"};
  std::string after = l.past == profile::Past::kDiverted ? "and writes the whole answer to a file" : "and drops the rest";
  if (!l.marker.empty()) after += ", followed by `" + l.marker + "`";
  return {"keeps only the first " + thousands(l.max) + " " + unit + " of an answer", after};
}

/// True when limit `l` holds an answer (an error or not) of a tool that declares `ceiling`: it
/// applies to that kind of answer, and no declared ceiling replaces it or exempts the tool.
bool in_force(const HostLimit& l, bool is_error, const std::optional<std::int64_t>& ceiling) {
  const bool applies = l.applies == HostLimit::Applies::kAny || (l.applies == HostLimit::Applies::kError) == is_error;
  return applies && !(ceiling && (l.exempt_when_declared || l.replaced_by_declared));
}

}  // namespace

AnswerSize measure_answer(const mcp::Reply& reply, bool result_chars, bool result_bytes) {
  return measure_answer(mcp::Answer(reply), result_chars, result_bytes);
}

AnswerSize measure_answer(const mcp::Answer& answer, bool result_chars, bool result_bytes) {
  const mcp::Reply& reply = answer.reply();
  AnswerSize s;
  // The text blocks joined by "\n", measured block by block.
  const auto& parts = answer.parts();
  bool ends_in_newline = false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    s.chars += static_cast<std::int64_t>(truncation::utf16_length(*parts[i])) + (i ? 1 : 0);
    s.bytes += static_cast<std::int64_t>(parts[i]->size()) + (i ? 1 : 0);  // valid UTF-8: the client decoded it
    s.lines += static_cast<std::int64_t>(std::count(parts[i]->begin(), parts[i]->end(), '\n')) + (i ? 1 : 0);
    if (!parts[i]->empty()) ends_in_newline = parts[i]->back() == '\n';
    else if (i) ends_in_newline = true;  // the joining "\n" ends it
  }
  if (s.bytes > 0 && !ends_in_newline) ++s.lines;  // the last line, unterminated
  s.is_error = reply.is_error_result();
  // Images and audio: the largest block's base64 data, as the Anthropic API measures it.
  if (auto content = reply.result.find("content"); reply.result.is_object() && content != reply.result.end() && content->is_array())
    for (const auto& block : *content) {
      if (!block.is_object()) continue;
      auto type = block.find("type"), data = block.find("data");
      if (type == block.end() || data == block.end() || !data->is_string()) continue;
      const auto n = static_cast<std::int64_t>(data->get_ref<const std::string&>().size());
      if (*type == "image") s.image_bytes = std::max(s.image_bytes, n);
      else if (*type == "audio") s.audio_bytes = std::max(s.audio_bytes, n);
    }
  // As JSON.stringify would write it, measured without writing it (each a pass over the answer:
  // only the units some limit uses).
  if (result_chars) s.result_chars = static_cast<std::int64_t>(truncation::js_json_utf16_size(reply.result));
  if (result_bytes) s.result_bytes = static_cast<std::int64_t>(truncation::js_json_size(reply.result));
  return s;
}

namespace {

// The long strings of a call's arguments (any depth), into `out`, at most kEchoStrings in all.
constexpr std::size_t kEchoStrings = 32;
void long_strings(const json& v, std::set<std::string>& out, int depth) {
  if (depth > 16 || out.size() >= kEchoStrings) return;
  if (v.is_string() && v.get_ref<const std::string&>().size() >= kEchoMin) out.insert(v.get<std::string>());
  if (v.is_structured())
    for (const auto& x : v) long_strings(x, out, depth + 1);
}

void call_strings(const json& request, std::set<std::string>& out) {
  if (!request.is_object()) return;
  auto p = request.find("params");
  if (p == request.end() || !p->is_object()) return;
  if (auto a = p->find("arguments"); a != p->end()) long_strings(*a, out, 0);
}

}  // namespace

const std::vector<std::string>& EchoStrings::of(const std::vector<json>& calls) {
  const bool grown = calls_ == &calls && calls.size() >= seen_ && (seen_ == 0 || calls[seen_ - 1] == last_);
  if (!grown) {
    calls_ = &calls;
    seen_ = 0;
    strings_.clear();
  }
  for (; seen_ < calls.size(); ++seen_) {
    if (strings_.size() >= kEchoStrings) continue;  // full: nothing more is looked at
    // In the order long_strings meets them (as without_echoes' set fills: first come, first kept).
    std::vector<const std::string*> in_order;
    std::function<void(const json&, int)> walk = [&](const json& v, int depth) {
      if (depth > 16) return;
      if (v.is_string() && v.get_ref<const std::string&>().size() >= kEchoMin) in_order.push_back(&v.get_ref<const std::string&>());
      if (v.is_structured())
        for (const auto& x : v) walk(x, depth + 1);
    };
    const json& call = calls[seen_];
    if (!call.is_object()) continue;
    if (auto p = call.find("params"); p != call.end() && p->is_object())
      if (auto a = p->find("arguments"); a != p->end()) walk(*a, 0);
    for (const std::string* s : in_order)
      if (strings_.size() < kEchoStrings && std::find(strings_.begin(), strings_.end(), *s) == strings_.end())
        strings_.push_back(*s);
  }
  if (!calls.empty()) last_ = calls.back();
  return strings_;
}

AnswerSize without_echoes(AnswerSize size, const mcp::Reply& reply, const std::vector<json>* before) {
  EchoStrings gathered;
  static const std::vector<std::string> kNone;
  return without_echoes(size, reply, before ? gathered.of(*before) : kNone);
}

AnswerSize without_echoes(AnswerSize size, const mcp::Reply& reply, const std::vector<std::string>& before_strings) {
  return without_echoes(size, mcp::Answer(reply), before_strings);
}

AnswerSize without_echoes(AnswerSize size, const mcp::Answer& answer, const std::vector<std::string>& before_strings) {
  const mcp::Reply& reply = answer.reply();
  std::set<std::string> strings;
  call_strings(reply.request, strings);
  for (const auto& s : before_strings) {
    if (strings.size() >= kEchoStrings) break;
    strings.insert(s);
  }
  if (strings.empty()) return size;
  std::set<std::string> forms;  // as sent, and as JSON text quotes it
  for (const auto& s : strings) {
    forms.insert(s);
    const std::string escaped = json(s).dump(-1, ' ', false, json::error_handler_t::replace);
    forms.insert(escaped.substr(1, escaped.size() - 2));
  }
  std::int64_t chars = 0, bytes = 0;
  for (const std::string* part : answer.parts())
    for (const auto& form : forms)
      for (std::size_t at = part->find(form); at != std::string::npos; at = part->find(form, at + form.size())) {
        chars += static_cast<std::int64_t>(truncation::utf16_length(form)) - kEchoCounted;
        bytes += static_cast<std::int64_t>(form.size()) - kEchoCounted;
        ++size.echoes;
      }
  size.chars = std::max<std::int64_t>(size.chars - chars, 0);
  size.bytes = std::max<std::int64_t>(size.bytes - bytes, 0);
  size.result_chars = std::max<std::int64_t>(size.result_chars - chars, 0);
  size.result_bytes = std::max<std::int64_t>(size.result_bytes - bytes, 0);
  return size;
}


struct HostMeter::State {
  std::vector<Host> hosts;
  const std::vector<Host>* hp = &hosts;  ///< The hosts measured by (a shard's: its parent's).
  /// Each session's earlier calls' long strings, gathered as its calls grow (observe).
  std::map<const std::vector<json>*, EchoStrings> echo_strings;
  bool result_chars = false, result_bytes = false;  ///< Some limit measures the serialised result so.
  /// The answer that went furthest past one limit (or declared ceiling), and how many did.
  struct Over {
    const Host* host = nullptr;
    const HostLimit* limit = nullptr;  ///< nullptr: the declared ceiling.
    std::int64_t ceiling = 0;          ///< The declared ceiling in effect.
    std::int64_t size = 0;
    json request;
    std::string excerpt;
    json sequence;  ///< The calls made on its server instance before it (null: none that write).
    std::int64_t echoes = 0;  ///< Quotes of long generated strings, measured as realistic values.
    std::string lost;  ///< A limit that says where it cuts: what of the answer the model never reads.
  };
  struct Tool {
    std::size_t answers = 0, over = 0, over_declared = 0;
    std::vector<Over> crossed;  ///< H-SIZE, by (host, limit).
    std::vector<Over> declared;  ///< H-DECLARED, by host.
    AnswerSize largest_size;
    /// The ceiling the tool declares for each host (by index in `hosts`), read from its listing
    /// once, at its first answer.
    std::vector<std::optional<std::int64_t>> ceilings;
  };
  std::map<std::string, Tool> tools;
  std::map<std::string, LargestAnswer> largest;

  /// The evidence of a tool's H-SIZE finding, and the limit a smaller case must still cross: of
  /// the limits crossed with the worst severity, those past which a host does the most (what the
  /// diagnosis names), the answer furthest past one; nullptr when no limit was crossed.
  static const Over* worst(const Tool& t) {
    Severity sev = Severity::kWarning;
    for (const auto& c : t.crossed) sev = worse(sev, c.limit->severity());
    int strongest = -1;
    for (const auto& c : t.crossed)
      if (c.limit->severity() == sev) strongest = std::max(strongest, static_cast<int>(c.limit->past));
    const Over* w = nullptr;
    for (const auto& c : t.crossed)
      if (c.limit->severity() == sev && static_cast<int>(c.limit->past) == strongest &&
          (!w || static_cast<double>(c.size) / static_cast<double>(c.limit->max) >
                     static_cast<double>(w->size) / static_cast<double>(w->limit->max)))
        w = &c;
    return w;
  }

  /// The evidence of `f` (an H-SIZE or H-DECLARED finding of `t`): for H-SIZE worst(); for
  /// H-DECLARED the answer furthest past the ceiling declared for the host its cause names.
  static const Over* evidence(const Tool& t, const Finding& f) {
    if (f.invariant == "H-SIZE") return worst(t);
    if (f.invariant != "H-DECLARED") return nullptr;
    auto host = f.cause.find("host");
    for (const auto& c : t.declared)
      if (host != f.cause.end() && c.host->title == host->second) return &c;
    return nullptr;
  }

  /// Keeps the answer that went furthest past (host, limit); its evidence is copied only then.
  static void keep(std::vector<Over>& list, const Host* host, const HostLimit* limit, std::int64_t ceiling,
                   std::int64_t size, const mcp::Reply& reply, const std::vector<json>* before, std::int64_t echoes) {
    auto it = std::find_if(list.begin(), list.end(), [&](const Over& x) { return x.host == host && x.limit == limit; });
    if (it != list.end() && size <= it->size) return;
    Over o{host, limit, ceiling, size, reply.request, text_excerpt(reply), json(), echoes, ""};
    if (limit && limit->cut != HostLimit::Cut::kNone) o.lost = lost_lines(*host, *limit, reply);
    if (before && !before->empty()) {
      // The calls before this one: `before` ends with it when the caller recorded it first.
      std::size_t n = before->size();
      if (before->back() == reply.request) --n;
      if (n > 0) o.sequence = json(std::vector<json>(before->begin(), before->begin() + static_cast<std::ptrdiff_t>(n)));
    }
    if (it == list.end()) list.push_back(std::move(o));
    else *it = std::move(o);
  }
};

HostMeter::HostMeter(std::vector<Host> hosts) : s_(std::make_unique<State>()) {
  s_->hosts = std::move(hosts);
  for (const auto& h : (*s_->hp))
    for (const auto& l : h.limits)
      if (l.of == Of::kResult) (l.unit == Unit::kBytes ? s_->result_bytes : s_->result_chars) = true;
}
HostMeter::~HostMeter() = default;

std::unique_ptr<HostMeter> HostMeter::fork() const {
  auto shard = std::make_unique<HostMeter>(std::vector<Host>{});
  shard->s_->hp = s_->hp;
  shard->s_->result_chars = s_->result_chars;
  shard->s_->result_bytes = s_->result_bytes;
  return shard;
}

void HostMeter::absorb(HostMeter& shard) {
  for (auto& [name, t] : shard.s_->tools) {
    auto mine = s_->tools.find(name);
    if (mine == s_->tools.end()) {
      s_->largest[name] = std::move(shard.s_->largest[name]);
      s_->tools.emplace(name, std::move(t));
      continue;
    }
    State::Tool& m = mine->second;
    if (m.ceilings.empty()) m.ceilings = t.ceilings;
    m.answers += t.answers;
    m.over += t.over;
    m.over_declared += t.over_declared;
    auto merge = [](std::vector<State::Over>& into, std::vector<State::Over>& from) {
      for (auto& o : from) {
        auto it = std::find_if(into.begin(), into.end(), [&](const State::Over& x) { return x.host == o.host && x.limit == o.limit; });
        if (it == into.end()) into.push_back(std::move(o));
        else if (o.size > it->size) *it = std::move(o);
      }
    };
    merge(m.crossed, t.crossed);
    merge(m.declared, t.declared);
    const LargestAnswer& theirs = shard.s_->largest[name];
    LargestAnswer& big = s_->largest[name];
    if (theirs.chars > big.chars) {
      big = theirs;
      m.largest_size = t.largest_size;
    }
  }
  shard.s_->tools.clear();
  shard.s_->largest.clear();
}

const std::vector<Host>& HostMeter::hosts() const { return (*s_->hp); }
const std::map<std::string, LargestAnswer>& HostMeter::largest() const { return s_->largest; }

void HostMeter::observe(const std::string& tool, const json* listing, const mcp::Reply& reply,
                        const std::vector<json>* before) {
  observe(tool, listing, mcp::Answer(reply), before);
}

void HostMeter::observe(const std::string& tool, const json* listing, const mcp::Answer& answer,
                        const std::vector<json>* before) {
  const mcp::Reply& reply = answer.reply();
  if (reply.kind != mcp::Reply::Kind::kResult) return;
  static const std::vector<std::string> kNone;
  const AnswerSize size = without_echoes(measure_answer(answer, s_->result_chars, s_->result_bytes), answer,
                                         before ? s_->echo_strings[before].of(*before) : kNone);
  State::Tool& t = s_->tools[tool];
  if (t.answers++ == 0)
    for (const auto& h : (*s_->hp)) t.ceilings.push_back(declared_ceiling(h, listing));
  LargestAnswer& big = s_->largest[tool];
  if (t.answers == 1 || size.chars > big.chars) {
    big.chars = size.chars;
    big.bytes = size.bytes;
    big.tokens = (size.chars + 3) / 4;
    big.is_error = size.is_error;
    big.request = reply.request;
    t.largest_size = size;
  }
  bool over = false, over_declared = false;
  for (std::size_t hi = 0; hi < (*s_->hp).size(); ++hi) {
    const Host& h = (*s_->hp)[hi];
    const auto& ceiling = t.ceilings[hi];
    for (const auto& l : h.limits) {
      if (!in_force(l, size.is_error, ceiling)) continue;
      const std::int64_t n = size_in(h, l.unit, l.of, size);
      if (n <= l.max) continue;
      over = true;
      State::keep(t.crossed, &h, &l, 0, n, reply, before, size.echoes);
    }
    if (ceiling) {
      const std::int64_t n = size_in(h, h.declared->unit, Of::kText, size);
      if (n > *ceiling) {
        over_declared = true;
        State::keep(t.declared, &h, nullptr, *ceiling, n, reply, before, size.echoes);
      }
    }
  }
  t.over += over;
  t.over_declared += over_declared;
}

std::optional<std::int64_t> HostMeter::crosses(const Finding& f, const mcp::Reply& reply,
                                               const std::vector<json>* before) const {
  auto it = s_->tools.find(f.tool);
  if (it == s_->tools.end() || reply.kind != mcp::Reply::Kind::kResult) return std::nullopt;
  const State::Over* over = State::evidence(it->second, f);
  if (!over) return std::nullopt;
  const AnswerSize size = without_echoes(measure_answer(reply, s_->result_chars, s_->result_bytes), reply, before);
  const auto hi = static_cast<std::size_t>(over->host - (*s_->hp).data());
  if (!over->limit) {  // the declared ceiling, measured as observe() measures it
    const std::int64_t n = size_in(*over->host, over->host->declared->unit, Of::kText, size);
    return n > over->ceiling ? std::optional<std::int64_t>(n) : std::nullopt;
  }
  if (!in_force(*over->limit, size.is_error, it->second.ceilings[hi])) return std::nullopt;
  const std::int64_t n = size_in(*over->host, over->limit->unit, over->limit->of, size);
  if (n <= over->limit->max) return std::nullopt;
  return n;
}

namespace {

// "Claude Code's 50,000 characters": a host limit as a case's diagnosis names it.
std::string worst_words(const Host& h, const HostLimit& l) {
  return h.title + "'s " + thousands(l.max) + " " + unit_words(l.unit, l.of);
}

}  // namespace

void HostMeter::retell(Finding& f, const json& generated_sequence, const SizeCase& c) const {
  auto it = s_->tools.find(f.tool);
  const State::Over* over = it == s_->tools.end() ? nullptr : State::evidence(it->second, f);
  if (!over || !c.answer) return;
  const std::string generated = after_calls(generated_sequence);
  if (!generated.empty() && f.diagnosis.size() >= generated.size() &&
      f.diagnosis.compare(f.diagnosis.size() - generated.size(), generated.size(), generated) == 0)
    f.diagnosis.resize(f.diagnosis.size() - generated.size());
  f.response_excerpt = text_excerpt(*c.answer);
  const std::string crossed =
      over->limit ? worst_words(*over->host, *over->limit)
                  : "the declared " + thousands(over->ceiling) + " " + unit_words(over->host->declared->unit);
  f.diagnosis += ". Its case is the smallest call found whose answer still crosses " + crossed + " (" +
                 thousands(c.size) + "), made on a fresh server ";
  if (c.before == 0) {
    f.diagnosis += "with no call before it";
    return;
  }
  std::string writes = c.writes == 0 ? "no write" : c.writes == c.before ? (c.before == 1 ? "a write" : "all writes")
                                                                          : std::to_string(c.writes) + " writes";
  f.diagnosis += "after " + thousands(static_cast<std::int64_t>(c.before)) + " earlier " +
                 (c.before == 1 ? "call" : "calls") + " (" + writes +
                 ": a write is a call to a tool not annotated read-only), which its case replays first";
}

std::map<std::string, Outcomes> HostMeter::finish() {
  std::map<std::string, Outcomes> out;
  if ((*s_->hp).empty()) return out;
  for (auto& [name, t] : s_->tools) {
    Outcomes& o = out[name];
    // The headroom of the largest answer under every limit that applies to it.
    LargestAnswer& big = s_->largest[name];
    big.headroom.clear();
    for (std::size_t hi = 0; hi < (*s_->hp).size(); ++hi) {
      const Host& h = (*s_->hp)[hi];
      const auto& ceiling = t.ceilings[hi];
      for (const auto& l : h.limits) {
        if (!in_force(l, big.is_error, ceiling)) continue;
        const std::int64_t n = size_in(h, l.unit, l.of, t.largest_size);
        if (on_media(l) && n == 0) continue;  // no image (audio) in it: nothing that limit holds
        big.headroom.push_back(Headroom{h.title, l.id, profile::to_string(l.unit), n, l.max});
      }
      if (ceiling)
        big.headroom.push_back(Headroom{h.title, h.declared->meta_key, profile::to_string(h.declared->unit),
                                        size_in(h, h.declared->unit, Of::kText, t.largest_size), *ceiling});
    }
    o.pass("H-SIZE");
    if (const State::Over* worst = State::worst(t)) {
      Finding f;
      f.invariant = "H-SIZE";
      f.tool = name;
      f.severity = worst->limit->severity();
      // Per host, what it does to the largest of them: the strongest consequence crossed (an
      // answer written to a file was also warned about; saying so adds nothing), each limit
      // behind it once: "Claude Code writes it to a file ... past 25,000 tokens (...) and past
      // 50,000 characters (...)".
      std::vector<std::string> said;
      for (const auto& h : (*s_->hp)) {
        int strongest = -1;
        for (const auto& c : t.crossed)
          if (c.host == &h) strongest = std::max(strongest, static_cast<int>(c.limit->past));
        if (strongest < 0) continue;
        std::vector<std::string> limits, cuts;
        for (const auto& hl : h.limits) {  // in the host file's order
          auto ci = std::find_if(t.crossed.begin(), t.crossed.end(), [&](const State::Over& x) { return x.limit == &hl; });
          if (ci == t.crossed.end() || static_cast<int>(hl.past) != strongest) continue;
          const State::Over& c = *ci;
          std::string l = "past " + thousands(c.limit->max) + " " + unit_words(c.limit->unit, c.limit->of) +
                          (c.limit->applies == HostLimit::Applies::kError ? " of error text" : "") + " (largest answer " +
                          thousands(c.size) + ", " + thousands(c.size - c.limit->max) + " over";
          if (!c.limit->raised_by.empty()) l += "; a user can raise it with " + c.limit->raised_by;
          if (!c.limit->verified) l += "; a reported limit, not a documented one";
          l += ")";
          // A host that says where it cuts: what it keeps, and what of the answer the model never reads.
          if (hl.cut != HostLimit::Cut::kNone) {
            const auto [keeps, then] = cut_words(hl);
            std::string lost;
            if (!c.lost.empty())
              lost = hl.past == profile::Past::kDiverted ? ": the model reads " + c.lost + " only if it opens that file"
                                                         : ": the model never reads " + c.lost;
            cuts.push_back(h.title + " " + keeps + " " + l + " " + then + lost);
          }
          else
            limits.push_back(l);
        }
        if (!limits.empty())
          said.push_back(h.title + " " + profile::describe(static_cast<profile::Past>(strongest)) + " " + and_list(limits));
        said.insert(said.end(), cuts.begin(), cuts.end());
        // The hosts whose limits the answers cross, not by how much: one cause across seeds.
        std::string& hosts = f.cause["hosts"];
        hosts += (hosts.empty() ? "" : ",") + h.title;
      }
      f.request = worst->request;
      f.response_excerpt = worst->excerpt;
      f.sequence = worst->sequence;
      const bool media = std::any_of(t.crossed.begin(), t.crossed.end(), [](const State::Over& c) { return on_media(*c.limit); });
      const bool text = std::any_of(t.crossed.begin(), t.crossed.end(), [](const State::Over& c) { return !on_media(*c.limit); });
      f.diagnosis = thousands(static_cast<std::int64_t>(t.over)) + " of " + thousands(static_cast<std::int64_t>(t.answers)) +
                    " answers are larger than a host takes as it is: " + join(said, "; ") + ".";
      if (text) f.diagnosis += " Keep a default answer small (a page with a cursor, or a truncated answer with a hint)";
      if (media) f.diagnosis += std::string(text ? "; and scale" : " Scale") + " images down or compress them (JPEG rather than PNG for a screenshot) before returning them";
      bool declarable = false;
      for (const auto& c : t.crossed) declarable = declarable || (c.host->declared && c.limit->replaced_by_declared);
      if (declarable) f.diagnosis += ", or declare the larger ceiling a tool needs in its tools/list _meta";
      f.diagnosis += echo_words(worst->echoes);
      f.diagnosis += after_calls(f.sequence);
      o.fail(std::move(f));
    }
    if (std::any_of(t.ceilings.begin(), t.ceilings.end(), [](const auto& c) { return c.has_value(); }))
      o.pass("H-DECLARED");
    for (const auto& c : t.declared) {
      Finding f;
      f.invariant = "H-DECLARED";
      f.tool = name;
      // The host whose declared ceiling the answers cross (which case to make minimal, too).
      f.cause = {{"form", "over-declared-ceiling"}, {"host", c.host->title}};
      f.severity = profile::severity_of(c.host->declared->past);
      f.request = c.request;
      f.response_excerpt = c.excerpt;
      f.sequence = c.sequence;
      f.diagnosis = "the tool declares _meta[\"" + c.host->declared->meta_key + "\"] = " + thousands(c.ceiling) + " but " +
                    thousands(static_cast<std::int64_t>(t.over_declared)) + " of " +
                    thousands(static_cast<std::int64_t>(t.answers)) + " answers are larger (largest " + thousands(c.size) +
                    " " + unit_words(c.host->declared->unit) + ", " + thousands(c.size - c.ceiling) + " over): " +
                    c.host->title + " " + profile::describe(c.host->declared->past) + " past the declared ceiling";
      if (!c.host->declared->note.empty()) f.diagnosis += " (" + c.host->declared->note + ")";
      f.diagnosis += ". Cut answers to the ceiling the tool declares, or declare the size it really needs";
      f.diagnosis += echo_words(c.echoes);
      f.diagnosis += after_calls(f.sequence);
      o.fail(std::move(f));
    }
  }
  return out;
}

}  // namespace ctxo::checks
