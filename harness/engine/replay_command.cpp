// SPDX-License-Identifier: MIT
#include "engine/replay_command.h"

#include "core/text.h"

namespace ctxo::engine {

namespace {

// `lines` sent one per line, then two seconds of waiting, to the server command.
std::string pipe_command(const ReplayTarget& t, const std::vector<std::string>& lines,
                         const std::map<std::string, std::string>& env) {
  std::string cmd = "{ printf '%s\\n'";
  for (const auto& l : lines) cmd += " " + shell_quote(l);
  cmd += "; sleep 2; } | " + launch_command(t, env);
  return cmd;
}

// `lines` POSTed in order to the URL with curl, the session id the first answer gives sent with
// the others (and the negotiated version after the handshake); the server command, when the run
// started one, first. --header values are printed as <redacted>.
std::string curl_command(const ReplayTarget& t, const std::vector<std::string>& lines, bool legacy,
                         const std::string& negotiated, const std::map<std::string, std::string>& env) {
  std::string c = "c() { curl -sS -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'";
  for (const auto& k : t.header_names) c += " -H " + shell_quote(k + ": <redacted>");
  c += " ${s:+-H \"Mcp-Session-Id: $s\"} ${v:+-H \"MCP-Protocol-Version: $v\"} \"$@\" " + shell_quote(t.url) +
       "; echo; }; s=; v=; ";
  std::string cmd;
  if (!t.command.empty()) cmd += "(" + launch_command(t, env) + ") & p=$!; sleep 2; ";
  cmd += c;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (legacy && i == 0) {
      cmd += "s=$(c -D - -o /dev/null --data-binary " + shell_quote(lines[i]) +
             " | tr -d '\\r' | sed -n 's/^[Mm][Cc][Pp]-[Ss][Ee][Ss][Ss][Ii][Oo][Nn]-[Ii][Dd]: *//p'); v=" +
             shell_quote(negotiated) + "; ";
      continue;
    }
    cmd += "c --data-binary " + shell_quote(lines[i]) + "; ";
  }
  if (!t.command.empty()) cmd += "kill $p";
  else if (!cmd.empty() && cmd.back() == ' ') cmd.erase(cmd.size() - 2);
  return cmd;
}

}  // namespace

std::string launch_command(const ReplayTarget& t, const std::map<std::string, std::string>& env) {
  std::string cmd;
  if (!t.cwd.empty()) cmd += "(cd " + shell_quote(t.cwd) + " && ";
  if (!env.empty()) {
    cmd += "env";
    for (const auto& [k, v] : env) cmd += " " + shell_quote(k + "=" + v);
    cmd += " ";
  }
  if (t.sandboxed) cmd += std::string(kReplaySandbox) + " ";
  cmd += shell_join(t.command);
  if (!t.cwd.empty()) cmd += ")";
  return cmd;
}

std::string replay_command(const ReplayTarget& t, const std::vector<std::string>& prelude, const std::string& negotiated,
                           const nlohmann::json& request, const std::map<std::string, std::string>& env,
                           const nlohmann::json& sequence) {
  std::vector<std::string> lines = prelude;
  if (sequence.is_array())
    for (const auto& r : sequence) lines.push_back(r.dump());
  if (!request.is_null()) lines.push_back(request.dump());
  if (!t.url.empty()) return curl_command(t, lines, !prelude.empty(), negotiated, env);
  return pipe_command(t, lines, env);
}

}  // namespace ctxo::engine
