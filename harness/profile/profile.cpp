// SPDX-License-Identifier: MIT
// Evaluating profile data on envelopes: conditions, `--profile auto` detection, form
// classification and schema validation. Generic: no profile is named in this file.
#include <cmath>

#include "profile/profile.h"

namespace ctxo::profile {
namespace {

using nlohmann::json;

bool has_type(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  if (type == "integer") {
    if (v.is_number_integer()) return true;
    if (!v.is_number_float()) return false;
    const double d = v.get<double>();
    return std::isfinite(d) && std::floor(d) == d;
  }
  return false;
}

}  // namespace

std::string_view form_name(FormKind kind) {
  switch (kind) {
    case FormKind::kSuccess: return "success";
    case FormKind::kMiss: return "miss";
    case FormKind::kError: return "error";
  }
  return "?";
}

bool holds(const Condition& cond, const json& envelope) {
  const json* v = resolve_pointer(envelope, cond.pointer);
  if (cond.absent) return v == nullptr;
  if (v == nullptr) return false;
  if (!cond.types.empty()) {
    bool any = false;
    for (const auto& t : cond.types) any = any || has_type(*v, t);
    if (!any) return false;
  }
  return !cond.equals || *v == *cond.equals;
}

bool holds_all(const std::vector<Condition>& conds, const json& envelope) {
  for (const auto& c : conds)
    if (!holds(c, envelope)) return false;
  return true;
}

bool Profile::has_graceful_miss() const { return miss || (error && !error->miss_codes.empty()); }

const Form* Profile::form(FormKind kind) const {
  const std::optional<Form>& f = kind == FormKind::kSuccess ? success : kind == FormKind::kMiss ? miss : error;
  return f ? &*f : nullptr;
}

const DetectionRule* matching_rule(const Profile& profile, const json& envelope) {
  const DetectionRule* best = nullptr;
  for (const auto& rule : profile.detection.any_of)
    if ((!best || rule.all.size() > best->all.size()) && !rule.all.empty() && holds_all(rule.all, envelope))
      best = &rule;
  return best;
}

int detection_score(const Profile& profile, const json& envelope) {
  const DetectionRule* rule = matching_rule(profile, envelope);
  return rule ? static_cast<int>(rule->all.size()) : 0;
}

const DetectionRule* detect_rule(const json& envelope, const std::vector<Profile>& profiles, const Profile** out) {
  const Profile* best = nullptr;
  const DetectionRule* best_rule = nullptr;
  for (const auto& p : profiles) {
    const DetectionRule* rule = matching_rule(p, envelope);
    if (!rule) continue;
    if (!best_rule || rule->all.size() > best_rule->all.size() ||
        (rule->all.size() == best_rule->all.size() && p.detection.priority > best->detection.priority)) {
      best = &p;
      best_rule = rule;
    }
  }
  if (out) *out = best;
  return best_rule;
}

const Profile* detect(const json& envelope, const std::vector<Profile>& profiles) {
  const Profile* best = nullptr;
  (void)detect_rule(envelope, profiles, &best);
  return best;
}

std::optional<FormKind> classify(const Profile& profile, const json& envelope) {
  for (FormKind kind : {FormKind::kError, FormKind::kMiss, FormKind::kSuccess}) {
    const Form* f = profile.form(kind);
    if (f && holds_all(f->when, envelope)) return kind;
  }
  return std::nullopt;
}

EnvelopeCheck validate_envelope(const Profile& profile, const json& envelope) {
  EnvelopeCheck out;
  out.form = classify(profile, envelope);
  if (!out.form) {
    if (profile.success || profile.miss || profile.error)
      out.violations.push_back({"", "the envelope matches no form of profile " + profile.name});
    return out;
  }
  out.violations = profile.form(*out.form)->validator.check(envelope);
  return out;
}

}  // namespace ctxo::profile
