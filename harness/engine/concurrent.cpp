// SPDX-License-Identifier: MIT
// P-CONCURRENT's phase: hosts call read-only (and idempotent) tools in parallel on one session,
// so a tool's calls that reached data are sent again as batches of requests in flight at once,
// with themselves and mixed with other tools' calls, and each answer is held to the answer the
// same call gets alone (E-STABLE's comparison, checks::stable_form). Calls that answer otherwise
// alone twice (clocks, counters) are left out: only a stable call can show a race. An answer
// that differs in a batch is asked alone once more: when that answer moved on too (a clock that
// turned over while the batch ran), the call drifted and showed no race; it is compared from
// then on with its new answer. A batch that differed is sent again (races are flaky) and the
// finding says in how many tries it differed.
#include "checks/liveness.h"
#include "engine/runner.h"
#include "engine/selection.h"

namespace ctxo::engine::detail {

namespace {

constexpr std::size_t kOwnCalls = 4;  ///< The tool's calls that reached data, tried alone then together.
constexpr std::size_t kPartners = 3;  ///< Other tools whose first call joins its mixed batches.

/// The batch sizes up to `most` in flight: 2, 4, 8, ..., and `most` itself last.
std::vector<std::size_t> batch_sizes(std::size_t most) {
  std::vector<std::size_t> sizes;
  for (std::size_t s = 2; s < most; s *= 2) sizes.push_back(s);
  if (most >= 2) sizes.push_back(most);
  return sizes;
}

}  // namespace

// Every answer of the phase is judged (coverage counts it, as `check` counts the recorded
// transcript) and compared in E-STABLE's form. Its per-answer findings are left out: the same
// calls were judged alone in the tool's own phase (where the limit sweep settles what it
// explains), and a batch's difference is P-CONCURRENT's.
json Runner::form_of(Worker& w, const std::string& tool, const json& args, const Reply& reply) {
  if ((reply.kind != Reply::Kind::kResult && reply.kind != Reply::Kind::kError) || !reply.transport_failure.empty() ||
      !judge_)
    return checks::stable_form(reply, checks::ParsedEnvelope{});
  checks::Judged j = judged(w, exchange(w, tool, args, reply, "", nullptr, false));
  (void)j.outcomes.take_findings();
  take(w, tool, std::move(j.outcomes));
  checks::ParsedEnvelope pe = j.envelope;
  if (!pe.profile && reply.kind == Reply::Kind::kResult)
    if (const profile::Profile* p = judge(w).profile_of(tool)) pe = judge(w).parse(exchange(w, tool, args, reply, "", p, false), p);
  return checks::stable_form(reply, pe);
}

std::optional<checks::BatchAnswer> Runner::asked_alone(Worker& w, ToolSummary& ts, const std::string& tool,
                                                       const json& args, Clock::time_point t0, bool& trouble) {
  if (!w.s.alive) trouble = true;
  if (trouble || over_budget(t0) || tool_over_budget(w, ts)) return std::nullopt;
  Called c = do_call(w, ts, args, tool == ts.name ? nullptr : &tool);
  if (c.lost) w.s.alive = false;
  if (c.troubles > 0 || c.lost) trouble = true;
  if (trouble || !c.reply.transport_failure.empty()) return std::nullopt;
  checks::BatchAnswer a;
  a.alone = form_of(w, tool, args, c.reply);
  a.request = std::move(c.reply.request);
  a.alone_raw = std::move(c.reply.raw);
  return a;
}

std::vector<checks::BatchAnswer> Runner::alone(Worker& w, ToolSummary& ts,
                                               const std::vector<std::pair<std::string, json>>& calls,
                                               Clock::time_point t0, bool& trouble) {
  std::vector<checks::BatchAnswer> stable;
  for (const auto& [tool, args] : calls) {
    std::optional<checks::BatchAnswer> first = asked_alone(w, ts, tool, args, t0, trouble);
    if (trouble || over_budget(t0) || tool_over_budget(w, ts)) break;  // the budget: what it has
    if (!first) continue;  // failed in its transport: not compared
    std::optional<checks::BatchAnswer> second = asked_alone(w, ts, tool, args, t0, trouble);
    if (trouble) break;
    if (second && second->alone == first->alone) stable.push_back(std::move(*second));
  }
  return stable;
}

bool Runner::together(Worker& w, ToolSummary& ts, std::vector<checks::BatchAnswer>& calls, json& batch) {
  std::vector<mcp::Client::BatchCall> sent;
  std::vector<json> storage(calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const json& params = calls[i].request["params"];
    const std::string name = params.value("name", "");
    const json args = params.value("arguments", json());
    sent.push_back({name, pinned_arguments(w, name, args, storage[i])});
  }
  // The tool's own request ids, whichever session sends them (see do_call).
  auto ids = tool_ids_.find(ts.name);
  const std::int64_t session_next = ids != tool_ids_.end() ? w.s.client->set_next_id(ids->second) : 0;
  std::vector<Reply> replies = [&] {
    Unlocked waiting(w);
    return w.s.client->call_tools(sent, !w.shrinking);
  }();
  if (ids != tool_ids_.end() && w.s.client) ids->second = w.s.client->set_next_id(session_next);
  batch = json::array();
  std::chrono::milliseconds took{0};
  for (const Reply& r : replies) {
    batch.push_back(r.request);
    took = std::max(took, r.elapsed);
  }
  ts.elapsed += took;  // in flight at once: the batch takes its slowest answer's time
  const Reply* hung = nullptr;
  const Reply* closed = nullptr;
  for (std::size_t i = 0; i < replies.size(); ++i) {
    const Reply& r = replies[i];
    record(w, r);
    if (w.s.calls.size() < kMaxSessionCalls) w.s.calls.push_back(r.request);
    // Counted on the tool it calls (as `check` counts the transcript); its time on `ts`.
    const std::string name = r.request["params"].value("name", "");
    ToolSummary* row = summary_of(name);
    count_call(rep_, row ? *row : ts, r.kind == Reply::Kind::kResult && !r.is_error_result());
    take(w, name, checks::Judge::transport(r));
    if (judge_ && !server_answered(r)) judge(w).unanswered(name);
    else if (judge_ && !r.transport_failure.empty()) judge(w).answered_unjudged(name);
    if (r.kind == Reply::Kind::kClosed && !closed) closed = &r;
    // A timeout after a stray id is T-ID's (observed), an over-long answer T-FRAMING's, a call
    // still reporting progress slow: none is a hang.
    if (r.kind == Reply::Kind::kTimeout && !r.stray_seen && !r.oversize && !r.progressed && !hung) hung = &r;
    calls[i].request = r.request;
    calls[i].together_raw = r.raw;
  }
  if (!ts.read_only) w.s.wrote = true;
  l_.on_call(ts, rep_.calls);
  snapshot(false);
  if (refused(w)) {
    w.s.alive = false;
    return false;
  }
  take_observations(w, batch);
  // One finding for the batch, whichever of its requests met it first.
  if (closed) {
    crash_finding(w, *closed, checks::describe_batch(batch), batch);
  } else if (hung) {
    Finding f = checks::call_hung(hung->request, hung->elapsed, o_.timeout);
    f.diagnosis += " (sent in " + checks::describe_batch(batch) + ")";
    f.batch = batch;
    add(w, std::move(f));
  }
  if (closed || hung) {
    if (!restart(w)) w.s.alive = false;
    return false;
  }
  for (std::size_t i = 0; i < replies.size(); ++i) {
    const json& params = calls[i].request["params"];
    calls[i].together = replies[i].transport_failure.empty()
                            ? form_of(w, params.value("name", ""), params.value("arguments", json()), replies[i])
                            : calls[i].alone;  // the transport's failure, reported as such: not compared
  }
  return true;
}

void Runner::concurrent(Worker& w, ToolRun& tr, const std::vector<ToolRun*>& tools, Clock::time_point t0) {
  ToolSummary* ts = summary_of(tr.name);
  if (!ts || !w.s.alive || tr.troubles >= 2 || over_budget(t0)) return;
  const bool warning = !annotated_parallel_safe(*tr.tool);
  checks::Outcomes o;
  // The calls: the case's batch (replay), else the tool's calls that reached data and the first
  // such call of the next tools in the run's order.
  std::vector<std::pair<std::string, json>> own, partners;
  if (o_.replay) {
    for (const auto& call : o_.replay->batch) {
      auto& list = call.first == tr.name ? own : partners;
      if (std::find(list.begin(), list.end(), call) == list.end()) list.push_back(call);
    }
  } else {
    // A call that asked the tool to wait (duration, delay...) asks for the shortest wait: a batch
    // of ten-second operations would cost minutes and show nothing more.
    auto quick = [&](const std::string& tool, const json& args) {
      auto asked = asked_to_wait(judge_ ? &judge(w) : nullptr, tool, args);
      return std::pair<std::string, json>{tool, asked ? asked->args : args};
    };
    for (const auto& [args, label] : tr.data_calls) {
      std::pair<std::string, json> call = quick(tr.name, args);
      if (own.size() < kOwnCalls && std::find(own.begin(), own.end(), call) == own.end()) own.push_back(call);
    }
    const auto at = std::find(tools.begin(), tools.end(), &tr);
    for (std::size_t k = 1; at != tools.end() && k < tools.size() && partners.size() < kPartners; ++k) {
      const ToolRun* other = tools[(static_cast<std::size_t>(at - tools.begin()) + k) % tools.size()];
      if (other->partner) partners.push_back(quick(other->name, other->data_calls.front().first));
    }
  }
  if (own.empty()) {
    o.unobserved("P-CONCURRENT", "no call of the tool reached data");
    take(w, tr.name, std::move(o));
    return;
  }
  auto out_of_time = [&] {
    if (!over_budget(t0) && !tool_over_budget(w, *ts)) return false;
    o.unobserved("P-CONCURRENT", "its time budget was spent before a batch was sent");
    take(w, tr.name, std::move(o));
    return true;
  };
  if (out_of_time()) return;
  bool trouble = false;
  std::vector<checks::BatchAnswer> mine = alone(w, *ts, own, t0, trouble);
  std::vector<checks::BatchAnswer> theirs = trouble ? std::vector<checks::BatchAnswer>{} : alone(w, *ts, partners, t0, trouble);
  if (trouble) return;
  if (mine.empty()) {
    if (out_of_time()) return;
    o.unobserved("P-CONCURRENT", "no call of the tool that reached data answered the same twice alone");
    take(w, tr.name, std::move(o));
    return;
  }
  // The batches: the case's, as it was sent; else for each size, the tool with itself (its
  // calls in turn: different arguments when it has them), then mixed with the others' calls.
  std::vector<std::vector<checks::BatchAnswer>> batches;
  auto of = [&](const std::pair<std::string, json>& call) -> const checks::BatchAnswer* {
    for (const auto* list : {&mine, &theirs})
      for (const auto& a : *list)
        if (a.request["params"].value("name", "") == call.first &&
            a.request["params"].value("arguments", json()) == (call.second.is_null() ? json() : call.second))
          return &a;
    return nullptr;
  };
  if (o_.replay) {
    std::vector<checks::BatchAnswer> b;
    for (const auto& call : o_.replay->batch)
      if (const auto* a = of(call)) b.push_back(*a);
    if (b.size() == o_.replay->batch.size()) batches.push_back(std::move(b));
    else note(w, "a call of the case's batch did not answer the same twice alone: the batch was not sent again");
  } else {
    for (std::size_t size : batch_sizes(o_.concurrency)) {
      std::vector<checks::BatchAnswer> same, mixed;
      for (std::size_t k = 0; k < size; ++k) {
        same.push_back(mine[k % mine.size()]);
        mixed.push_back(k % 2 == 0 || theirs.empty() ? mine[(k / 2) % mine.size()] : theirs[(k / 2) % theirs.size()]);
      }
      batches.push_back(std::move(same));
      if (!theirs.empty()) batches.push_back(std::move(mixed));
    }
  }
  bool sent = false;
  bool gave_up = false;  // the server was lost or a call failed: what earlier batches showed stands
  for (auto& b : batches) {
    if (!w.s.alive) {
      gave_up = true;
      break;
    }
    if (!sent && out_of_time()) return;
    if (over_budget(t0) || tool_over_budget(w, *ts)) break;
    // Sent up to checks::kBatchTries times: every time in a replay, else until the tool's answer differs,
    // then the rest of the tries to say how often it does.
    std::size_t tries = 0, differed = 0;
    std::optional<checks::BatchAnswer> first;
    json first_batch;
    bool held = false;  // some answer of the tool in a try was compared (not drifted)
    while (tries < checks::kBatchTries && w.s.alive) {
      json batch;
      if (!together(w, *ts, b, batch)) {
        gave_up = true;
        break;
      }
      ++tries;
      sent = true;
      const checks::BatchAnswer* diff = nullptr;
      bool drifted = false;
      std::vector<bool> moved(b.size());  // this try's answers of a call that moved on
      for (std::size_t i = 0; i < b.size(); ++i) {
        checks::BatchAnswer& a = b[i];
        if (moved[i] || a.request["params"].value("name", "") != tr.name) continue;
        if (a.alone == a.together) {
          held = true;
          continue;
        }
        bool lost = false;
        std::optional<checks::BatchAnswer> asked =
            asked_alone(w, *ts, tr.name, a.request["params"].value("arguments", json()), t0, lost);
        if (!asked) {  // the server lost, or the budget spent: no verdict from this batch
          gave_up = true;
          break;
        }
        const json& again = asked->alone;
        if (again == a.alone) {
          held = true;
          diff = &a;
          break;
        }
        // Its answer alone moved on as well: no race shown by this try; compared from now on
        // with what it answers now (its other answers in this batch too).
        drifted = true;
        const json before = a.alone;
        const json args = a.request["params"].value("arguments", json());
        auto same_call = [&](const checks::BatchAnswer& m) {
          return m.alone == before && m.request["params"].value("name", "") == tr.name &&
                 m.request["params"].value("arguments", json()) == args;
        };
        for (auto& m : mine)
          if (same_call(m)) m.alone = again;
        for (std::size_t j = i; j < b.size(); ++j)
          if (same_call(b[j])) {
            b[j].alone = again;
            moved[j] = true;
          }
      }
      if (gave_up) break;
      if (diff) {
        ++differed;
        if (!first) {
          first = *diff;
          first_batch = batch;
        }
      }
      if (!first && !drifted && !o_.replay) break;
      if (tries < checks::kBatchTries && (over_budget(t0) || tool_over_budget(w, *ts))) break;
    }
    if (gave_up) break;
    if (first) {
      o.fail(checks::concurrent_difference(tr.name, first_batch, *first, differed, tries, warning));
      take(w, tr.name, std::move(o));
      return;
    }
    if (held) o.pass("P-CONCURRENT");
  }
  if (sent && !gave_up && o.statuses().find("P-CONCURRENT") == o.statuses().end())
    o.unobserved("P-CONCURRENT",
                 "each answer of the tool that differed in a batch had moved on alone as well (a clock, a counter): "
                 "no comparison held");
  take(w, tr.name, std::move(o));
}

}  // namespace ctxo::engine::detail
