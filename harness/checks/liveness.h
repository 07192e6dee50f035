// SPDX-License-Identifier: MIT
// The liveness rules a live run judges from how a server behaved rather than from what it
// answered: T-HANG (no answer; slow is a warning, not a hang), T-CRASH (it went away) and
// T-SHUTDOWN (it did not exit at end-of-file), with their texts; and the rule that a lookup
// answered with an error is one E-MISS, not also an E-ERROR about its shape.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "checks/outcome.h"
#include "core/finding.h"

namespace ctxo::checks {

/// T-HANG: no answer to `method` (initialize, tools/list) within `timeout`.
Finding no_answer(const nlohmann::json& request, const std::string& method, std::chrono::milliseconds timeout);

/// T-HANG: no answer to a tools/call within `waited` (the confirmation of the hang included).
Finding call_hung(const nlohmann::json& request, std::chrono::milliseconds waited, std::chrono::milliseconds timeout);

/// The T-HANG of call_hung(), a warning: the same call asking for a short wait (`property` =
/// `quick`) was answered in `answered`, so the tool does the long work it is asked for.
void hung_on_request(Finding& hang, std::chrono::milliseconds waited, const std::string& what,
                     const std::string& property, const std::string& quick, std::chrono::milliseconds answered);

/// T-HANG warning: an answer that came after `timeout` with no progress notification meanwhile.
Finding slow_answer(const nlohmann::json& request, std::chrono::milliseconds took, std::chrono::milliseconds timeout);

/// T-HANG warning: still working, reporting progress, when the run stopped waiting.
Finding slow_progressing(const nlohmann::json& request, std::chrono::milliseconds waited);

/// T-CRASH: the server `how` ("exited with status 1", "went away (...)") while handling `what`;
/// `stderr_tail` is its stderr's end ("" = none).
Finding crashed(const nlohmann::json& request, const std::string& how, const std::string& what,
                const std::string& stderr_tail);

/// T-SHUTDOWN: the server did not exit within `grace` of its stdin closing and was stopped with a
/// signal (`stopped`, the status); `replaced`: an instance the run replaced to restart it with
/// another environment; `calls`: the tools/calls made on the instance; `needed`: how many of them
/// a fresh instance needed to stay up too (0: none; its case replays them), or nullopt when that
/// was not tried or did not reproduce (its case replays every call).
Finding no_exit_at_eof(std::chrono::milliseconds grace, bool replaced, std::size_t calls, const std::string& stopped,
                       std::optional<std::size_t> needed = std::nullopt);

/// A lookup of an identifier that cannot exist (`missed`: what E-MISS said of its answer): when
/// E-MISS failed, the answer's E-ERROR findings in `judged` are dropped (one E-MISS, not also
/// an E-ERROR about its shape).
void miss_hides_error(Outcomes& judged, const Outcomes& missed);

}  // namespace ctxo::checks
