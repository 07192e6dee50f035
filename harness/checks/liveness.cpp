// SPDX-License-Identifier: MIT
#include "checks/liveness.h"

#include "core/text.h"

namespace ctxo::checks {

namespace {

std::string ms(std::chrono::milliseconds d) { return std::to_string(d.count()); }

// `form`: which of the ways a request goes unanswered (the cause: not how long it took).
Finding hang(const nlohmann::json& request, const char* form, std::string diagnosis,
             Severity severity = Severity::kError) {
  Finding f;
  f.invariant = "T-HANG";
  f.severity = severity;
  f.request = request;
  f.diagnosis = std::move(diagnosis);
  f.cause = {{"form", form}, {"method", request.is_object() ? request.value("method", std::string()) : std::string()}};
  return f;
}

}  // namespace

Finding no_answer(const nlohmann::json& request, const std::string& method, std::chrono::milliseconds timeout) {
  return hang(request, "no-answer", "no answer to " + method + " within " + ms(timeout) + " ms");
}

Finding call_hung(const nlohmann::json& request, std::chrono::milliseconds waited, std::chrono::milliseconds timeout) {
  return hang(request, "hung", "no answer to tools/call within " + ms(waited) + " ms (--timeout " + ms(timeout) +
                           " ms, then as long again as it took to confirm the hang); raise --timeout if the tool is "
                           "legitimately this slow");
}

void hung_on_request(Finding& f, std::chrono::milliseconds waited, const std::string& what, const std::string& property,
                     const std::string& quick, std::chrono::milliseconds answered) {
  f.severity = Severity::kWarning;
  f.cause = {{"form", "long-work-asked"}, {"property", property}};
  f.diagnosis = "no answer within " + ms(waited) + " ms to a call asking for " + what + ", but the same call with " +
                property + "=" + quick + " was answered in " + ms(answered) +
                " ms: the tool does the long work it is asked for, it is not hung. Give '" + property +
                "' a maximum in the input schema, or report progress while working";
}

Finding slow_answer(const nlohmann::json& request, std::chrono::milliseconds took, std::chrono::milliseconds timeout) {
  return hang(request, "slow",
              "the answer came after " + ms(took) + " ms, over --timeout " + ms(timeout) +
                  " ms, with no progress notification meanwhile: the tool is slow, not hung. Send notifications/progress "
                  "while working, or raise --timeout if this is expected",
              Severity::kWarning);
}

Finding slow_progressing(const nlohmann::json& request, std::chrono::milliseconds waited) {
  return hang(request, "slow-progressing",
              "still working after " + ms(waited) +
                  " ms, reporting progress, when the run stopped waiting: the tool is slow, not hung. Bound the work an "
                  "argument can ask for (a maximum in the input schema), or raise --timeout",
              Severity::kWarning);
}

Finding crashed(const nlohmann::json& request, const std::string& how, const std::string& what,
                const std::string& tail) {
  Finding f;
  f.invariant = "T-CRASH";
  f.request = request;
  f.cause = {{"form", "died"}, {"method", request.is_object() ? request.value("method", std::string()) : std::string()}};
  f.diagnosis = "the server " + how + " while handling " + what + "; it must stay alive whatever it is sent";
  f.response_excerpt = tail.empty() ? std::string("(no stderr output)")
                                    : "stderr: " + excerpt(tail.substr(tail.size() > 400 ? tail.size() - 400 : 0), 400);
  return f;
}

Finding no_exit_at_eof(std::chrono::milliseconds grace, bool replaced, std::size_t calls, const std::string& stopped,
                       std::optional<std::size_t> needed) {
  Finding f;
  f.invariant = "T-SHUTDOWN";
  // The server's one cause, however many calls its instance had taken.
  f.cause = {{"form", "no-exit-at-eof"}};
  const std::string made =
      calls == 1 ? "the tool call made on it" : "the " + std::to_string(calls) + " tool calls made on it";
  std::string after;
  if (calls > 0 && !needed) after = " (after " + made + ", which its case replays first)";
  else if (calls > 0 && *needed == 0)
    after = " (after " + made + "; a fresh instance sent no call stays up too, so its case replays none)";
  else if (calls > 0 && *needed == calls)
    after = " (after " + made + "; a fresh instance stays up only after " + (calls == 1 ? "it" : "all of them") +
            ", which its case replays first)";
  else if (calls > 0)
    after = " (after " + made + "; a fresh instance stays up after only " + std::to_string(*needed) +
            " of them, which its case replays first)";
  f.diagnosis = "the server did not exit within " + ms(grace) + " ms after its stdin was closed" +
                (replaced ? " (an instance the run replaced to restart it with another environment)" : "") + after +
                "; it had to be stopped with a signal (" + stopped + "). A stdio server must exit when stdin reaches "
                "end-of-file";
  return f;
}

void miss_hides_error(Outcomes& judged, const Outcomes& missed) {
  if (missed.status("E-MISS") != Status::kFailed) return;
  Outcomes kept;
  for (auto& f : judged.take_findings())
    if (f.invariant != "E-ERROR") kept.fail(std::move(f));
  judged.merge(std::move(kept));
}

}  // namespace ctxo::checks
