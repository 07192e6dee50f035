// SPDX-License-Identifier: MIT
// The envelope profiles and host profiles a run judges by: loaded once from --profile and
// --host, by the command line (to refuse a bad value before a server starts) and then handed to
// the run, live or offline.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "profile/host.h"
#include "profile/profile.h"

namespace ctxo::engine {

/// The envelope profiles a run uses: --profile auto gives every built-in envelope profile as a
/// candidate; a name or file gives one forced profile; "none" gives neither.
struct ProfileSet {
  std::vector<profile::Profile> candidates;
  std::optional<profile::Profile> forced;
  std::string problem;  ///< Set when auto could not load the built-ins (envelope checks off).
};

/// Loads the profiles for `--profile VALUE`. Errors ("usage"): an unknown name or a bad file.
Result<ProfileSet> load_profile_set(const std::string& value);

/// What a run judges by: the envelope profiles (--profile) and the host profiles (--host).
struct Judging {
  ProfileSet profiles;
  std::vector<profile::Host> hosts;
  /// Why a family of checks is off although asked for ("envelope checks are off: ...", "host
  /// checks (H-*) are off: ..."): notes of the run.
  std::vector<std::string> notes;
};

/// Loads --profile VALUE and --host VALUE ("" = the default hosts). Errors: "usage" for a bad
/// --profile (see load_profile_set), the host loader's code with "--host: " for a bad --host.
Result<Judging> load_judging(const std::string& profile, const std::string& host);

}  // namespace ctxo::engine
