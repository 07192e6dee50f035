// SPDX-License-Identifier: MIT
#include "engine/profiles.h"

#include <algorithm>

namespace ctxo::engine {

Result<ProfileSet> load_profile_set(const std::string& value) {
  ProfileSet set;
  if (value == "none") return set;
  if (value == "auto") {
    auto all = profile::load_builtins();
    if (!all.ok()) {
      set.problem = all.error().message;
      return set;
    }
    for (auto& p : all.value())
      if (p.location != profile::Location::kNone) set.candidates.push_back(std::move(p));
    return set;
  }
  auto names = profile::builtin_names();
  bool builtin = std::find(names.begin(), names.end(), value) != names.end();
  auto loaded = builtin ? profile::load_builtin(value) : profile::load_file(value);
  if (!loaded.ok()) return make_error("usage", "--profile " + value + ": " + loaded.error().message);
  if (loaded->location != profile::Location::kNone) set.forced.emplace(std::move(loaded.value()));
  return set;
}

Result<Judging> load_judging(const std::string& profile_value, const std::string& host) {
  Judging j;
  auto set = load_profile_set(profile_value);
  if (!set.ok()) return set.error();
  j.profiles = std::move(set.value());
  if (!j.profiles.problem.empty()) j.notes.push_back("envelope checks are off: " + j.profiles.problem);
  auto hosts = profile::load_hosts(host);
  if (!hosts.ok()) return make_error(hosts.error().code, "--host: " + hosts.error().message);
  j.hosts = std::move(*hosts);
  if (j.hosts.empty() && (host.empty() || host == "default")) {
    auto dir = profile::schemas_dir();
    j.notes.push_back("host checks (H-*) are off: " +
                      (dir ? "no host profile in " + *dir + "/hosts is marked default" : dir.error().message));
  }
  return j;
}

}  // namespace ctxo::engine
