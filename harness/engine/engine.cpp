// SPDX-License-Identifier: MIT
#include "engine/engine.h"

#include <algorithm>
#include <ctime>
#include <functional>
#include <set>

#include "checks/protocol.h"
#include "core/text.h"
#include "mcp/client.h"
#include "profile/schema_validator.h"
#include "transport/transport.h"

namespace ctxo::engine {

namespace {

using Clock = std::chrono::steady_clock;
using mcp::Reply;

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string tool_of(const json& request) {
  if (request.is_object() && request.value("method", "") == "tools/call" && request.contains("params") &&
      request["params"].is_object())
    return request["params"].value("name", "");
  return "";
}

bool annotated_read_only(const json& tool) {
  return tool.contains("annotations") && tool["annotations"].is_object() &&
         tool["annotations"].value("readOnlyHint", false) == true;
}

class Runner {
 public:
  Runner(const RunOptions& o, Listener& l) : o_(o), l_(l) {}

  RunReport run() {
    const auto t0 = Clock::now();
    rep_.seed = o_.seed;
    rep_.command = o_.command;
    rep_.env = o_.env;
    rep_.cwd = o_.cwd;
    rep_.profile = o_.profile;
    rep_.started_at = iso_now();
    for (const auto& inv : checks::registry())
      if (inv.implemented && o_.selection.enabled(inv.id)) rep_.invariants_checked.push_back(inv.id);
    transport::install_signal_cleanup();
    body();
    finish_session(true);
    rep_.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
    if (rep_.error) {
      rep_.verdict = "error";
    } else {
      rep_.verdict = rep_.error_count() > 0 ? "fail" : "pass";
      rep_.exit_code = rep_.error_count() > 0 ? 1 : 0;
    }
    return std::move(rep_);
  }

 private:
  // --- findings -------------------------------------------------------------------------
  void add(Finding f) {
    if (!o_.selection.enabled(f.invariant)) return;
    if (f.tool.empty()) f.tool = tool_of(f.request);
    if (f.replay.empty()) f.replay = replay_command(f.request);
    const std::string key = f.invariant + "\x1f" + f.tool + "\x1f" + f.diagnosis;
    if (auto it = index_.find(key); it != index_.end()) {
      rep_.findings[it->second].count++;
      return;
    }
    index_[key] = rep_.findings.size();
    for (auto& t : rep_.tools)
      if (t.name == f.tool) t.findings++;
    l_.on_finding(f);
    rep_.findings.push_back(ReportedFinding{std::move(f), 1});
  }

  void add_all(std::vector<Finding> fs) {
    for (auto& f : fs) add(std::move(f));
  }

  void take_observations() {
    if (!client_) return;
    for (auto& ob : client_->take_observations()) {
      Finding f;
      f.invariant = ob.invariant;
      f.severity = Severity::kError;
      f.request = ob.related_request;
      f.response_excerpt = ob.excerpt;
      f.diagnosis = ob.diagnosis;
      add(std::move(f));
    }
  }

  void note(std::string n) {
    l_.on_note(n);
    rep_.notes.push_back(std::move(n));
  }

  // The exact bytes to send, then the server command: runs anywhere a POSIX shell does.
  std::string replay_command(const json& request) const {
    std::vector<std::string> lines = prelude_;
    if (!request.is_null()) lines.push_back(request.dump());
    std::string cmd = "{ printf '%s\\n'";
    for (const auto& l : lines) cmd += " " + shell_quote(l);
    cmd += "; sleep 2; } | ";
    if (!o_.cwd.empty()) cmd += "(cd " + shell_quote(o_.cwd) + " && ";
    if (!o_.env.empty()) {
      cmd += "env";
      for (const auto& [k, v] : o_.env) cmd += " " + shell_quote(k + "=" + v);
      cmd += " ";
    }
    cmd += shell_join(o_.command);
    if (!o_.cwd.empty()) cmd += ")";
    return cmd;
  }

  // --- sessions -------------------------------------------------------------------------
  Result<void> start(const std::string& forced, bool first) {
    transport::SpawnOptions so;
    so.argv = o_.command;
    so.env = o_.env;
    so.cwd = o_.cwd;
    so.max_line_bytes = o_.max_message_bytes;
    auto t = transport::spawn_stdio(so);
    if (!t.ok()) return t.error();
    transport_ = std::move(t.value());
    mcp::ClientOptions co;
    co.timeout = o_.timeout;
    co.client_version = CTXO_VERSION;
    client_ = std::make_unique<mcp::Client>(*transport_, co);
    std::vector<Reply> attempts;
    auto info = client_->handshake(forced, &attempts);
    if (!info.ok() && info.error().code == "init-probe") {
      // The server died on the server/discover probe: a legacy server that cannot take an
      // unknown method. Start it again and speak the legacy era from the first line.
      finish_session(false);
      auto again = start("legacy", first);
      if (!again.ok()) return again;
      return {};
    }
    if (!info.ok()) {
      if (first) {
        for (const auto& a : attempts) {
          if (a.request.value("method", "") == "server/discover") continue;
          if (a.kind == Reply::Kind::kTimeout) {
            Finding f;
            f.invariant = "T-HANG";
            f.request = a.request;
            f.diagnosis = "no answer to initialize within " + std::to_string(o_.timeout.count()) + " ms";
            add(std::move(f));
          }
        }
        add_all(checks::check_failed_init(attempts));
      }
      take_observations();
      std::string msg = info.error().message;
      auto status = transport_->close(std::chrono::milliseconds(300));
      if (status.how != transport::ExitStatus::How::kRunning && !status.we_signaled && msg.find("exit") == std::string::npos)
        msg += " (" + status.describe() + ")";
      std::string tail = transport_->stderr_tail();
      if (!tail.empty()) msg += "; its stderr ended with: " + excerpt(tail.substr(tail.size() > 300 ? tail.size() - 300 : 0), 300);
      rep_.stderr_tail = tail;
      client_.reset();
      transport_.reset();
      return make_error("init", msg);
    }
    prelude_ = client_->replay_prelude();
    if (first) {
      rep_.server_name = info->name;
      rep_.server_version = info->version;
      rep_.protocol_version = info->protocol_version;
      rep_.era = info->era;
      add_all(checks::check_init(*info));
    }
    negotiated_ = info->era == "modern" ? mcp::kModernVersion : info->protocol_version;
    take_observations();
    return {};
  }

  // Ends the current server. `final`: the normal end of the run, where T-SHUTDOWN applies.
  void finish_session(bool final) {
    if (!transport_) return;
    if (client_) {
      client_->drain(std::chrono::milliseconds(final ? 100 : 0));
      take_observations();
      rep_.notifications += client_->traffic().notifications;
      rep_.server_requests += client_->traffic().server_requests;
    }
    auto before = transport_->exit_status();
    auto status = transport_->close(final ? o_.grace : std::chrono::milliseconds(300));
    if (final && !before && !status.after_eof) {
      Finding f;
      f.invariant = "T-SHUTDOWN";
      f.diagnosis = "the server did not exit within " + std::to_string(o_.grace.count()) +
                    " ms after its stdin was closed; it had to be stopped with a signal (" + status.describe() +
                    "). A stdio server must exit when stdin reaches end-of-file";
      f.replay = replay_command(json());
      add(std::move(f));
    }
    rep_.stderr_tail = transport_->stderr_tail();
    client_.reset();
    transport_.reset();
  }

  bool restart() {
    if (rep_.restarts >= o_.max_restarts) {
      note("stopped restarting the server after " + std::to_string(rep_.restarts) + " restarts");
      return false;
    }
    rep_.restarts++;
    finish_session(false);
    auto r = start(negotiated_, false);
    if (!r.ok()) {
      note("the server could not be restarted: " + r.error().message);
      return false;
    }
    return true;
  }

  // --- the run --------------------------------------------------------------------------
  void body() {
    auto s = start(o_.protocol, true);
    if (!s.ok()) {
      rep_.error = s.error();
      rep_.exit_code = 3;
      return;
    }
    l_.on_started(rep_);

    auto listing = client_->list_tools();
    add_all(checks::check_tools_list(listing, rep_.era));
    for (const auto& page : listing.pages) {
      if (page.kind == Reply::Kind::kTimeout && !page.stray_seen) {
        Finding f;
        f.invariant = "T-HANG";
        f.request = page.request;
        f.diagnosis = "no answer to tools/list within " + std::to_string(o_.timeout.count()) + " ms";
        add(std::move(f));
      } else if (page.kind == Reply::Kind::kClosed) {
        crash_finding(page, "tools/list");
      }
    }
    take_observations();
    if (listing.failed && listing.tools.empty()) {
      note("tools/list did not return a list of tools, so no tool was called");
      return;
    }
    std::vector<const json*> tools;
    std::set<std::string> names;
    for (const auto& t : listing.tools) {
      if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
      if (!names.insert(t["name"].get<std::string>()).second) continue;
      tools.push_back(&t);
    }
    std::sort(tools.begin(), tools.end(),
              [](const json* a, const json* b) { return (*a)["name"].get<std::string>() < (*b)["name"].get<std::string>(); });
    // Selection: globs, read-only, shard (deterministic: sorted names, i mod N).
    std::vector<const json*> selected;
    std::size_t eligible = 0;
    for (const json* t : tools) {
      ToolSummary ts;
      ts.name = (*t)["name"].get<std::string>();
      ts.read_only = annotated_read_only(*t);
      bool in = o_.tool_globs.empty();
      for (const auto& g : o_.tool_globs) in = in || glob_match(g, ts.name);
      for (const auto& g : o_.exclude_globs)
        if (glob_match(g, ts.name)) in = false;
      if (in && o_.read_only && !ts.read_only) {
        in = false;
        ts.skipped = "not annotated readOnlyHint:true (--read-only)";
      }
      if (in) {
        if (static_cast<int>(eligible % static_cast<std::size_t>(o_.shard_count)) != o_.shard_index) {
          in = false;
          ts.skipped = "in another shard";
        }
        ++eligible;
      } else if (ts.skipped.empty()) {
        ts.skipped = "not selected (--tools / --exclude-tools)";
      }
      ts.selected = in;
      rep_.tools.push_back(ts);
      if (in) selected.push_back(t);
    }
    std::vector<std::string> writers;
    for (const auto& ts : rep_.tools)
      if (ts.selected && !ts.read_only) writers.push_back(ts.name);
    if (!writers.empty()) {
      std::string list;
      for (const auto& w : writers) list += (list.empty() ? "" : ", ") + w;
      note("calling tools not annotated readOnlyHint:true (they may write, move or delete): " + list +
           " (use --read-only to skip them, and run the server in a throwaway directory)");
    }
    l_.on_tools(rep_.tools);

    gen::SimpleSource source;
    const auto t0 = Clock::now();
    std::size_t index = 0;
    bool alive = true;
    for (const json* tool : selected) {
      const std::string name = (*tool)["name"].get<std::string>();
      ToolSummary* ts = nullptr;
      for (auto& t : rep_.tools)
        if (t.name == name) ts = &t;
      l_.on_tool(*ts, index++, selected.size());
      if (!alive) {
        ts->skipped = "the server could not be restarted";
        continue;
      }
      const json input_schema = tool->contains("inputSchema") && (*tool)["inputSchema"].is_object()
                                    ? (*tool)["inputSchema"]
                                    : json{{"type", "object"}};
      auto in_validator = profile::SchemaValidator::compile(input_schema);
      if (!in_validator.ok())
        note("cannot validate the inputSchema of tool " + name + " (" + in_validator.error().message +
             "); its calls are not held to P-NO-THROW");
      std::optional<profile::SchemaValidator> out_validator;
      if (tool->contains("outputSchema") && (*tool)["outputSchema"].is_object()) {
        auto v = profile::SchemaValidator::compile((*tool)["outputSchema"]);
        if (v.ok()) out_validator.emplace(std::move(v.value()));
        else note("cannot compile the outputSchema of tool " + name + ": " + v.error().message);
      }
      auto cases = source.cases(input_schema, o_.calls_per_tool, o_.seed ^ fnv1a(name));
      std::size_t troubles = 0;
      for (const auto& c : cases) {
        if (o_.time_budget_s &&
            std::chrono::duration<double>(Clock::now() - t0).count() > *o_.time_budget_s) {
          ts->skipped = "time budget reached";
          budget_hit_ = true;
          break;
        }
        checks::CallContext ctx;
        ctx.tool = tool;
        ctx.era = rep_.era;
        ctx.schema_valid = in_validator.ok() && in_validator->validate(c.arguments).empty();
        if (out_validator) {
          const profile::SchemaValidator* ov = &*out_validator;
          ctx.output_validator = [ov](const json& v) { return ov->validate(v); };
        }
        Reply reply = client_->call_tool(name, c.arguments);
        ts->elapsed += reply.elapsed;
        rep_.calls++;
        ts->calls++;
        l_.on_call(*ts, rep_.calls);
        take_observations();
        if (reply.kind == Reply::Kind::kTimeout) {
          if (!reply.stray_seen) {
            Finding f;
            f.invariant = "T-HANG";
            f.request = reply.request;
            f.diagnosis = "no answer to tools/call within " + std::to_string(o_.timeout.count()) +
                          " ms (raise --timeout if the tool is legitimately slow)";
            add(std::move(f));
            ++troubles;
            if (!(alive = restart())) break;
          }
        } else if (reply.kind == Reply::Kind::kClosed) {
          crash_finding(reply, "this tools/call");
          ++troubles;
          if (!(alive = restart())) break;
        } else {
          add_all(checks::check_call(ctx, reply));
        }
        if (troubles >= 2) {
          ts->skipped = "stopped after 2 crashes or hangs";
          break;
        }
      }
    }
    if (budget_hit_) note("--time-budget reached: some generated calls were not made");
  }

  void crash_finding(const Reply& reply, const char* what) {
    // The process closed stdout; give it a moment to be reaped so the status is known.
    std::optional<transport::ExitStatus> st = transport_->exit_status();
    for (int i = 0; i < 50 && !st; ++i) {
      auto rr = transport_->receive(std::chrono::milliseconds(10));
      (void)rr;
      st = transport_->exit_status();
    }
    std::string tail = transport_->stderr_tail();
    Finding f;
    f.invariant = "T-CRASH";
    f.request = reply.request;
    f.diagnosis = std::string("the server ") + (st ? st->describe() : std::string("closed its stdout")) +
                  " while handling " + what + "; it must stay alive whatever it is sent";
    f.response_excerpt = tail.empty() ? std::string("(no stderr output)")
                                      : "stderr: " + excerpt(tail.substr(tail.size() > 400 ? tail.size() - 400 : 0), 400);
    add(std::move(f));
  }

  const RunOptions& o_;
  Listener& l_;
  RunReport rep_;
  std::unique_ptr<transport::Transport> transport_;
  std::unique_ptr<mcp::Client> client_;
  std::map<std::string, std::size_t> index_;
  std::vector<std::string> prelude_;
  std::string negotiated_;
  bool budget_hit_ = false;
};

}  // namespace

std::size_t RunReport::error_count() const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(), [](const ReportedFinding& f) {
    return f.finding.severity == Severity::kError;
  }));
}

std::size_t RunReport::warning_count() const { return findings.size() - error_count(); }

bool glob_match(std::string_view p, std::string_view t) {
  std::size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi, ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

RunReport run(const RunOptions& options, Listener& listener) { return Runner(options, listener).run(); }

}  // namespace ctxo::engine
