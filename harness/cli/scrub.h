// SPDX-License-Identifier: MIT
// The one way out for secrets (core/redact.h): the CLI scrubs every string of a finished
// RunReport before the baseline, case files, reports and the console see it; the console
// listener's events while the run goes; and the console text itself, line by line.
#pragma once

#include <map>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "core/redact.h"
#include "engine/listener.h"
#include "engine/report.h"

namespace ctxo::cli {

/// Every string of `report` (server name and version, tool names and their notes, findings'
/// diagnoses, excerpts, requests, examples, replay lines, env values, notes, stderr tail, the
/// error's message, ...) with the secrets replaced. In replay lines, `env NAME=<redacted>` of a
/// secret env value becomes `env NAME="$NAME"`, and the server's URL, when it carries secrets,
/// becomes a double-quoted word with `${CTXO_URL_...}` for each (core::url_secrets), so the line
/// runs with the variables exported.
void scrub_report(engine::RunReport& report, const core::Redactor& redactor);
void scrub_finding(Finding& finding, const core::Redactor& redactor);
void scrub_tool(engine::ToolSummary& tool, const core::Redactor& redactor);

/// Passes every event on to `inner` with its text scrubbed (a copy; nothing when there are no
/// secrets).
class ScrubbingListener : public engine::Listener {
 public:
  ScrubbingListener(engine::Listener& inner, const core::Redactor& redactor) : inner_(inner), r_(redactor) {}
  void on_started(const engine::RunReport& report) override;
  void on_tools(const std::vector<engine::ToolSummary>& tools) override;
  void on_tool(const engine::ToolSummary& tool, std::size_t index, std::size_t total) override;
  void on_call(const engine::ToolSummary& tool, std::size_t calls_total) override;
  void on_finding(const Finding& finding) override;
  void on_note(const std::string& note) override;

 private:
  engine::Listener& inner_;
  const core::Redactor& r_;
};

/// A stream buffer that holds what is written until a line ends or the stream is flushed, then
/// writes it scrubbed to `out` (the console, after the events themselves were scrubbed: a last
/// look at the text as printed).
class ScrubbingBuf : public std::streambuf {
 public:
  ScrubbingBuf(std::ostream& out, const core::Redactor& redactor) : out_(out), r_(redactor) {}
  ~ScrubbingBuf() override { sync(); }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  std::ostream& out_;
  const core::Redactor& r_;
  std::string pending_;
};

/// An ostream over ScrubbingBuf.
class ScrubbingStream : public std::ostream {
 public:
  ScrubbingStream(std::ostream& out, const core::Redactor& redactor) : std::ostream(nullptr), buf_(out, redactor) {
    rdbuf(&buf_);
  }
  ~ScrubbingStream() override { flush(); }

 private:
  ScrubbingBuf buf_;
};

/// For `replay`: every env value of a case that a run redacted (it holds "<redacted>") is taken
/// from the current environment variable of the same name. Returns the names that hold a
/// redacted value and are not set (empty = all resolved).
std::vector<std::string> resolve_redacted_env(std::map<std::string, std::string>& env);

/// For `replay`: each credential of a case's URL that the run redacted (a userinfo part or query
/// value that is "<redacted>") is taken from its environment variable (core::UrlSecret::variable,
/// as the case's replay line names it). Returns the variables that are not set (empty = all
/// resolved).
std::vector<std::string> resolve_redacted_url(std::string& url);

}  // namespace ctxo::cli
