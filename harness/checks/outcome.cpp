// SPDX-License-Identifier: MIT
#include "checks/outcome.h"

#include <algorithm>

namespace ctxo::checks {

const char* to_string(Status s) {
  switch (s) {
    case Status::kNotApplicable: return "not_applicable";
    case Status::kNotObserved: return "not_observed";
    case Status::kPassed: return "passed";
    case Status::kFailed: return "failed";
  }
  return "not_applicable";
}

Status status_from_string(std::string_view s) {
  if (s == "not_observed") return Status::kNotObserved;
  if (s == "passed") return Status::kPassed;
  if (s == "failed") return Status::kFailed;
  return Status::kNotApplicable;
}

void Outcomes::raise(std::string_view id, Status s, const std::string& why) {
  auto it = status_.find(id);
  if (it == status_.end()) it = status_.emplace(std::string(id), Status::kNotApplicable).first;
  if (s > it->second) it->second = s;
  if (it->second == Status::kNotObserved) {
    if (!why.empty() && !why_.count(id)) why_.emplace(std::string(id), why);
  } else {
    if (auto w = why_.find(id); w != why_.end()) why_.erase(w);
  }
}

void Outcomes::pass(std::string_view id) { raise(id, Status::kPassed); }

void Outcomes::unobserved(std::string_view id, std::string why) { raise(id, Status::kNotObserved, why); }

void Outcomes::fail(Finding f) {
  raise(f.invariant, Status::kFailed);
  findings_.push_back(std::move(f));
}

void Outcomes::merge_statuses(const Outcomes& other) {
  for (const auto& [id, s] : other.status_) {
    auto w = other.why_.find(id);
    raise(id, s, w == other.why_.end() ? std::string() : w->second);
  }
}

void Outcomes::merge(const Outcomes& other) {
  merge_statuses(other);
  findings_.insert(findings_.end(), other.findings_.begin(), other.findings_.end());
}

void Outcomes::merge(Outcomes&& other) {
  merge_statuses(other);
  for (auto& f : other.findings_) findings_.push_back(std::move(f));
  other.findings_.clear();
}

Status Outcomes::status(std::string_view id) const {
  auto it = status_.find(id);
  return it == status_.end() ? Status::kNotApplicable : it->second;
}

const char* to_string(Reach r) {
  switch (r) {
    case Reach::kNoAnswer: return "no_answer";
    case Reach::kData: return "data";
    case Reach::kEmpty: return "empty";
    case Reach::kMiss: return "miss";
    case Reach::kError: return "error";
    case Reach::kRefusal: return "refusal";
    case Reach::kLeak: return "leak";
  }
  return "?";
}

namespace {
std::size_t& slot(Coverage& c, Reach r, bool self_made) {
  switch (r) {
    case Reach::kNoAnswer: return c.no_answer;
    case Reach::kData: return self_made ? c.self_made : c.data;
    case Reach::kEmpty: return c.empty;
    case Reach::kMiss: return c.misses;
    case Reach::kError: return c.errors;
    case Reach::kRefusal: return c.refusals;
    case Reach::kLeak: return c.leaks;
  }
  return c.no_answer;
}
}  // namespace

void Coverage::add(Reach r, bool self_made) {
  ++calls;
  ++slot(*this, r, self_made);
}

void Coverage::remove(Reach r, bool self_made) {
  std::size_t& n = slot(*this, r, self_made);
  if (n == 0 || calls == 0) return;
  --n;
  --calls;
}

std::string Coverage::summary() const {
  std::string how;
  auto part = [&](std::size_t n, const char* one, const char* many) {
    if (n) how += (how.empty() ? "" : ", ") + std::to_string(n) + " " + (n == 1 ? one : many);
  };
  part(self_made, "self-made", "self-made");
  part(empty, "empty", "empty");
  part(misses, "graceful miss", "graceful misses");
  part(errors, "error", "errors");
  part(leaks, "leak", "leaks");
  part(refusals, "refusal", "refusals");
  part(no_answer, "unanswered", "unanswered");
  return std::to_string(data) + "/" + std::to_string(calls) + " calls reached data" + (how.empty() ? "" : " (" + how + ")");
}

Coverage& Coverage::operator+=(const Coverage& o) {
  calls += o.calls;
  data += o.data;
  empty += o.empty;
  misses += o.misses;
  errors += o.errors;
  refusals += o.refusals;
  no_answer += o.no_answer;
  leaks += o.leaks;
  self_made += o.self_made;
  largest_bytes = std::max(largest_bytes, o.largest_bytes);
  truncated += o.truncated;
  return *this;
}

}  // namespace ctxo::checks
