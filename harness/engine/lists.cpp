// SPDX-License-Identifier: MIT
// The lists besides tools/list (resources, resource templates, prompts: walked when the handshake
// declared them), one invalid cursor sent to each list that paginated (P-LIST), and tools/list
// asked again after the calls and after the concurrent batches (P-RELIST).
#include "checks/liveness.h"
#include "checks/lists.h"
#include "engine/runner.h"

namespace ctxo::engine::detail {

namespace {

// The capability a list belongs to, and whether the handshake declared it (an object, as the
// schema has it; `true` is read as declared too).
bool declared(const json& capabilities, const char* capability) {
  if (!capabilities.is_object()) return false;
  auto it = capabilities.find(capability);
  return it != capabilities.end() && (it->is_object() || (it->is_boolean() && it->get<bool>()));
}

}  // namespace

bool Runner::list_trouble(Worker& w, const Reply& page) {
  const std::string method = page.request.value("method", "");
  if (page.kind == Reply::Kind::kTimeout && !page.stray_seen && !page.oversize)
    add(w, checks::no_answer(page.request, method, o_.timeout));
  else if (page.kind == Reply::Kind::kClosed)
    crash_finding(w, page, method);
  else
    return false;
  take_observations(w);
  if (!restart(w)) w.s.alive = false;
  return true;
}

// A listing larger than this is not asked again: the relisting would hold a second copy of it
// (its text and its tree) next to the judge's for as long as it is walked.
constexpr std::size_t kRelistBytes = 1u << 20;

Runner::Listed Runner::listed_now(Worker& w, const mcp::Client::Listing& listing) const {
  Listed l;
  std::size_t bytes = 0;
  for (const auto& page : listing.pages) bytes += page.raw.empty() ? kRelistBytes : page.raw.size();
  l.valid = listing.complete() && w.s.client && bytes < kRelistBytes;
  if (!l.valid) return l;
  l.tools = checks::tool_prints(listing);
  l.client = w.s.client->serial();
  for (const auto& s : sessions_)
    if (s && s->client) {
      const auto& counts = s->client->traffic().list_changed;
      auto it = counts.find("tools");
      l.notices[s->client->serial()] = it == counts.end() ? 0 : it->second;
    }
  return l;
}

void Runner::list_others(Worker& w, const mcp::Client::Listing& tools) {
  listed_ = listed_now(w, tools);
  const bool wanted = invariant_wanted("P-LIST");
  // An invalid cursor, only to a list that handed out a cursor: a server that does not paginate
  // may ignore `cursor` altogether (the TypeScript SDK's McpServer does), and is right to.
  auto probe = [&](const std::string& method) {
    if (!w.s.alive || !w.s.client) return;
    Reply r = w.s.client->list_with_cursor(method, checks::kInvalidCursor);
    if (refused(w)) return;
    record(w, r);
    if (list_trouble(w, r)) return;
    take(w, "", checks::check_invalid_cursor(r));
    take_observations(w);
  };
  if (wanted && tools.paginated && !tools.failed) probe("tools/list");
  if (!wanted) return;
  struct Other {
    const char* method;
    const char* key;
    const char* capability;
  };
  static constexpr Other kOthers[] = {{"resources/list", "resources", "resources"},
                                      {"resources/templates/list", "resourceTemplates", "resources"},
                                      {"prompts/list", "prompts", "prompts"}};
  for (const Other& other : kOthers) {
    if (!w.s.alive || !w.s.client || dead_ || !declared(w.s.client->capabilities(), other.capability)) continue;
    auto listing = w.s.client->list(other.method, other.key, list_bounds());
    if (refused(w)) return;
    for (const auto& page : listing.pages) record(w, page);
    take(w, "", checks::check_list(listing));
    take_observations(w);
    if (!listing.pages.empty() && list_trouble(w, listing.pages.back())) continue;
    if (listing.paginated && !listing.failed) probe(other.method);
  }
}

void Runner::relist(Worker& w, const std::string& after_what) {
  // Only over a listing to compare with (walked to its end, small enough to hold twice).
  if (!invariant_wanted("P-RELIST") || dead_ || !w.s.alive || !w.s.client || !listed_.valid) return;
  auto listing = w.s.client->list_tools(list_bounds());
  if (refused(w)) return;
  for (const auto& page : listing.pages) record(w, page);
  take_observations(w);
  if (!listing.pages.empty() && list_trouble(w, listing.pages.back())) {
    listed_ = {};
    return;
  }
  Listed now = listed_now(w, listing);
  // Compared only on the instance the earlier listing was made on: a server started again since
  // (a crash, a hang) lists what a fresh instance lists, and its notifications went with the old one.
  if (listed_.valid && now.valid && listed_.client == now.client) {
    bool notified = false;
    for (const auto& [serial, count] : now.notices) {
      auto before = listed_.notices.find(serial);
      notified = notified || count > (before == listed_.notices.end() ? 0 : before->second);
    }
    checks::Outcomes o = checks::check_relisting(listed_.tools, now.tools, listing.pages.front().request, rep_.era,
                                                 notified, after_what, !http());
    // The change is the calls' doing: a case replays them on a fresh instance before it lists again.
    for (Finding& f : o)
      if (!w.s.calls.empty()) f.sequence = json(w.s.calls);
    take(w, "", std::move(o));
  }
  listed_ = std::move(now);
}

}  // namespace ctxo::engine::detail
