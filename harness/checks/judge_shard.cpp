// SPDX-License-Identifier: MIT
// Judge::fork and Judge::absorb: a judge's shards for --jobs (engine/workers.cpp), each judging
// one piece of parallel work without a lock, merged back in the tools' order when the phase ends
// (as libFuzzer's fork mode merges each job's outputs).
#include "checks/judge_state.h"

namespace ctxo::checks {

Judge::Judge(std::unique_ptr<State> state) : s_(std::move(state)) {}

std::unique_ptr<Judge> Judge::fork() const {
  auto st = std::make_unique<State>();
  st->parent = s_.get();
  st->sp = s_->sp;
  st->settled = s_->settled;
  st->sized_env = s_->sized_env;
  st->pending_bytes = s_->pending_bytes;  // one bound for the run and its shards
  if (s_->meter) st->meter = s_->meter->fork();
  st->generic_pos = s_->generic_pos->fork();
  return std::unique_ptr<Judge>(new Judge(std::move(st)));
}

std::size_t Judge::absorb(Judge& shard) {
  State& from = *shard.s_;
  State& to = *s_;
  const std::size_t offset = to.held.size();
  for (auto& h : from.held) to.held.push_back(std::move(h));
  // A tool's run may point at the schemas its shard compiled: none is destroyed here.
  for (auto& [name, v] : from.validators) {
    if (to.validators.count(name)) to.retired.push_back(std::move(v));
    else to.validators.emplace(name, std::move(v));
  }
  for (auto& v : from.retired) to.retired.push_back(std::move(v));
  for (auto& [name, t] : from.tools) {
    State::Tool& mine = to.tools[name];
    if (!mine.profile) mine.profile = t.profile;
    for (const auto& [profile, n] : t.seen) mine.seen[profile] += n;
    mine.results += t.results;
    mine.json_results += t.json_results;
    for (auto& pd : t.pending) {
      if (mine.pending.size() < State::kMaxPending) mine.pending.push_back(std::move(pd));
      else if (!pd.reply.is_error_result()) to.unprofiled++;  // past the bound: not judged, as call() does
    }
  }
  for (const auto& [name, c] : from.coverage) to.coverage[name] += c;
  for (const auto& [profile, n] : from.detected) to.detected[profile] += n;
  to.unprofiled += from.unprofiled;
  to.generic.absorb(from.generic);
  to.sampled.insert(from.sampled.begin(), from.sampled.end());
  to.inband.absorb(from.inband);
  to.generic_pos->absorb(*from.generic_pos);
  if (to.meter && from.meter) to.meter->absorb(*from.meter);
  if (!to.sized_env) to.sized_env = from.sized_env;
  from.held.clear();
  from.validators.clear();
  from.retired.clear();
  from.tools.clear();
  from.coverage.clear();
  from.detected.clear();
  from.unprofiled = 0;
  return offset;
}

}  // namespace ctxo::checks
