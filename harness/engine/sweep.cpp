// SPDX-License-Identifier: MIT
// The limit sweep (docs/ENVELOPE-CHECKS.md): every recorded call again under the other limits,
// one server run per limit on the --jobs workers; and TR-RESUME: following truncation hints page
// by page from where an answer was cut.
#include <algorithm>
#include <set>

#include "engine/runner.h"

namespace ctxo::engine::detail {

void Runner::sweep(Worker& w) {
  // Other limits mean the server's environment changes: only a server this run started can be
  // started again with another one.
  if (http() && o_.command.empty()) {
    if (!sweep_calls_.empty())
      note(w, "the limit sweep was skipped: the server at " + o_.url +
              " was not started by this run, so it cannot be restarted under other limits (give the command that "
              "starts it after --url URL --)");
    return;
  }
  std::map<const profile::Profile*, std::vector<std::size_t>> by_profile;
  for (std::size_t i = 0; i < sweep_calls_.size(); ++i) by_profile[sweep_calls_[i].profile].push_back(i);
  for (const auto& by : by_profile) {
    // Named, not structured bindings: the workers' lambda below captures them (clang 14 cannot).
    const profile::Profile* prof = by.first;
    const std::vector<std::size_t>& idx = by.second;
    const auto& lim = *prof->limit;
    // Each call's limits depend only on its own tool's answers, so a sharded run sweeps a tool
    // exactly as the unsharded run does.
    std::vector<std::vector<std::int64_t>> call_limits(idx.size());
    std::map<std::string, std::size_t> largest_answer;  // tool -> its largest answer
    for (std::size_t i : idx) {
      auto& l = largest_answer[(*sweep_calls_[i].tool)["name"].get<std::string>()];
      l = std::max(l, sweep_calls_[i].main.text.size());
    }
    for (std::size_t k = 0; k < idx.size(); ++k) {
      if (!o_.limits.empty()) {
        call_limits[k] = o_.limits;
      } else if (lim.sweep) {
        // The small limit must really cut the tool's answers: when even its largest answer fits
        // the profile's small value, sweep a power of two below two thirds of that answer (few
        // distinct values, so tools share the extra server runs).
        std::int64_t small = lim.sweep->small;
        const auto big = static_cast<std::int64_t>(largest_answer[(*sweep_calls_[idx[k]].tool)["name"].get<std::string>()]);
        if (lim.kind != profile::LimitKind::kTokens && big > 0 && big <= small) {
          std::int64_t target = std::max<std::int64_t>(big * 2 / 3, 1), p2 = 1;
          while (p2 * 2 <= target) p2 *= 2;
          small = p2;
        }
        call_limits[k] = {small, lim.sweep->large};
      }
    }
    std::vector<std::vector<checks::SweepPoint>> points(idx.size());
    std::vector<std::vector<std::size_t>> answers(idx.size());  // the judge's answer id per point
    for (std::size_t k = 0; k < idx.size(); ++k) {
      const auto& sc = sweep_calls_[idx[k]];
      points[k].push_back(checks::SweepPoint{sc.main.limit.value_or(0), true, sc.main});
      answers[k].push_back(sc.answer);
    }
    const std::int64_t main_limit = points.empty() ? 0 : points[0][0].limit;
    std::set<std::int64_t> all_limits;
    for (const auto& ls : call_limits) all_limits.insert(ls.begin(), ls.end());
    // One server run per other limit, on the --jobs workers; their answers are put in order of
    // limit, and what they found merged in that order, so N does not change the sweep.
    std::vector<std::int64_t> runs;
    for (std::int64_t limit : all_limits)
      if (limit != main_limit && limit > 0) runs.push_back(limit);
    struct LimitRun {
      std::vector<std::optional<std::pair<checks::SweepPoint, std::size_t>>> got;  ///< Per call: its point and answer id.
      ToolOut out;
    };
    std::vector<LimitRun> limit_runs(runs.size());
    for (auto& lr : limit_runs) lr.got.resize(idx.size());
    try {
      for_each_worker(w, runs.size(), [&](Worker& ww, std::size_t li) {
        const std::int64_t limit = runs[li];
        LimitRun& lr = limit_runs[li];
        WorkingFor working(ww, lr.out);
        ww.s.env = o_.env;
        ww.s.env[*lim.env] = std::to_string(limit);
        finish_session(ww, End::kReplaced);
        rep_.sweep_runs++;
        auto started = start(ww, negotiated_, false);
        if (!started.ok()) {
          note(ww, "the limit sweep could not start the server with " + *lim.env + "=" + std::to_string(limit) + ": " +
                       started.error().message);
          return;
        }
        bool alive = true;
        for (std::size_t k = 0; k < idx.size() && alive; ++k) {
          if (std::find(call_limits[k].begin(), call_limits[k].end(), limit) == call_limits[k].end()) continue;
          const auto& sc = sweep_calls_[idx[k]];
          ToolSummary* ts = summary_of((*sc.tool)["name"].get<std::string>());
          Called c = do_call(ww, *ts, sc.args);
          if (c.lost) alive = false;
          const Reply& reply = c.reply;
          if (reply.kind != Reply::Kind::kResult && reply.kind != Reply::Kind::kError) continue;
          checks::Judged j = judge_->call(exchange(ww, ts->name, sc.args, reply, "", prof, true));
          take(ww, ts->name, std::move(j.outcomes));
          if (reply.kind != Reply::Kind::kResult || !j.envelope.profile) continue;
          checks::ParsedEnvelope pe = std::move(j.envelope);
          pe.limit = limit;
          lr.got[k].emplace(checks::SweepPoint{limit, false, std::move(pe)}, j.answer.value_or(SIZE_MAX));
        }
      }, false);
    } catch (...) {
      for (auto& lr : limit_runs) merge_out(lr.out);
      throw;
    }
    for (auto& lr : limit_runs) {
      merge_out(lr.out);
      for (std::size_t k = 0; k < idx.size(); ++k)
        if (lr.got[k]) {
          points[k].push_back(std::move(lr.got[k]->first));
          answers[k].push_back(lr.got[k]->second);
        }
    }
    w.s.env = o_.env;  // findings the judge held carry the environment they were answered under
    for (std::size_t k = 0; k < idx.size(); ++k) {
      // The largest limit's answer, when complete, is the full array TR-RESUME rebuilds.
      const checks::SweepPoint* largest = nullptr;
      for (const auto& pt : points[k])
        if (!largest || pt.limit > largest->limit) largest = &pt;
      if (largest && largest->env.profile) {
        auto t = checks::resume_arguments(largest->env, *sweep_calls_[idx[k]].tool, sweep_calls_[idx[k]].args);
        const json* items = checks::cut_items(largest->env);
        if (!t && items) full_arrays_[idx[k]] = *items;
      }
      // Where to start following hints: the main answer if it was cut, else the answer cut
      // under the smallest limit (the server resumes under that same limit).
      const checks::SweepPoint* start_point = nullptr;
      for (const auto& pt : points[k]) {
        if (!checks::resume_arguments(pt.env, *sweep_calls_[idx[k]].tool, sweep_calls_[idx[k]].args)) continue;
        if (pt.is_default) {
          start_point = &pt;
          break;
        }
        if (!start_point || pt.limit < start_point->limit) start_point = &pt;
      }
      if (start_point) resume_starts_[idx[k]] = ResumeStart{env_for(*lim.env, *start_point), start_point->env};
      checks::Outcomes swept = judge_->sweep(points[k], answers[k]);
      for (auto& f : swept)
        for (const auto& pt : points[k])
          if (f.replay.empty() && f.env.empty() && pt.env.request == f.request) {
            f.env = env_for(*lim.env, pt);
            f.replay = replay_of(f.request, f.env);
          }
      take(w, (*sweep_calls_[idx[k]].tool)["name"].get<std::string>(), std::move(swept));
    }
  }
  w.s.env = o_.env;
}

// TR-RESUME: for each recorded truncated answer that says how to fetch the rest, follow it page
// by page (under the main run's environment) and compare with the full array when known.
void Runner::resume(Worker& w) {
  if (!invariant_wanted("TR-RESUME")) return;
  std::size_t chains = 0;
  // Without a sweep (no limit variable), the main answers are the starting points.
  for (std::size_t i = 0; i < sweep_calls_.size(); ++i)
    if (!resume_starts_.count(i) &&
        checks::resume_arguments(sweep_calls_[i].main, *sweep_calls_[i].tool, sweep_calls_[i].args))
      resume_starts_[i] = ResumeStart{o_.env, sweep_calls_[i].main};
  for (const auto& [i, rs] : resume_starts_) {
    if (chains >= kMaxResumeChains) break;
    const auto& sc = sweep_calls_[i];
    auto next = checks::resume_arguments(rs.first_page, *sc.tool, sc.args);
    if (!next) continue;
    if (w.s.started_env != rs.env || !w.s.client) {
      w.s.env = rs.env;
      finish_session(w, End::kReplaced);
      rep_.sweep_runs++;
      if (auto st = start(w, negotiated_, false); !st.ok()) {
        note(w, "could not restart the server to follow truncation hints: " + st.error().message);
        return;
      }
    }
    ++chains;
    std::vector<checks::ParsedEnvelope> pages = {rs.first_page};
    ToolSummary* ts = summary_of((*sc.tool)["name"].get<std::string>());
    bool alive = true;
    for (std::size_t k = 0; k < kMaxResumePages && next && alive; ++k) {
      Called c = do_call(w, *ts, *next);
      if (c.lost) alive = false;
      const Reply& reply = c.reply;
      if (reply.kind != Reply::Kind::kResult && reply.kind != Reply::Kind::kError) break;
      checks::Judged j = judge_->call(exchange(w, ts->name, *next, reply, "", sc.profile, false));
      take(w, ts->name, std::move(j.outcomes));
      if (reply.kind != Reply::Kind::kResult) break;
      checks::ParsedEnvelope pe = std::move(j.envelope);
      if (!pe.profile) break;
      pages.push_back(pe);
      next = checks::resume_arguments(pe, *sc.tool, *next);
    }
    auto full = full_arrays_.find(i);
    take(w, ts->name, judge_->resume(pages, full != full_arrays_.end() ? &full->second : nullptr));
    if (!alive) break;
  }
  w.s.env = o_.env;
}

std::map<std::string, std::string> Runner::env_for(const std::string& var, const checks::SweepPoint& pt) const {
  auto env = o_.env;
  if (!pt.is_default) env[var] = std::to_string(pt.limit);
  return env;
}

}  // namespace ctxo::engine::detail
