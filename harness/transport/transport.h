// SPDX-License-Identifier: MIT
// The message-level contract between the MCP client and a server: newline-framed lines to and
// from a child process (stdio), or POSTs answered by JSON bodies and SSE streams (Streamable
// HTTP); a bounded stderr tail, and a clean, reaped shutdown. The stdio side knows nothing of
// JSON-RPC; the HTTP side reads just enough of it to pair each POST with its answer.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace ctxo::transport {

/// One line the server wrote on stdout, without its '\n'.
struct Frame {
  std::string body;        ///< The line's bytes (one trailing '\r' removed). If oversize: only its first bytes.
  std::size_t size = 0;    ///< The full length of the line in bytes as sent (before any cut, with '\r').
  bool oversize = false;   ///< Longer than the configured maximum; body holds a prefix only.
  std::string tail;        ///< If oversize: the line's last bytes (up to kOversizeTail, '\r' removed).
  bool valid_utf8 = true;  ///< The whole line is well-formed UTF-8 (for an oversize line too: checked as it streams).
  bool had_cr = false;     ///< The line ended in "\r\n".
};

/// Bytes kept from the end of an oversize line (where a JSON-RPC response may put its "id").
inline constexpr std::size_t kOversizeTail = 256;

/// Splits a byte stream into frames at 0x0A. Never holds more than max_line_bytes (+ an excerpt)
/// of one line in memory: the rest of an over-long line is counted and dropped.
class Framer {
 public:
  explicit Framer(std::size_t max_line_bytes = 64u << 20, std::size_t oversize_keep = 4096);
  /// Appends bytes read from the pipe.
  void feed(std::string_view bytes);
  /// The next complete frame, if one is ready.
  std::optional<Frame> next();
  /// At end of stream: a last line with no '\n' (returned as a frame), if any bytes are pending.
  /// Its '\r', if any, stays in the body (had_cr is false). Call it once next() returned nullopt:
  /// it queues the last line behind any frames not yet taken and returns the first queued one.
  std::optional<Frame> finish();
  /// Bytes of the incomplete current line held in memory.
  std::size_t pending_bytes() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// How the server process ended.
struct ExitStatus {
  enum class How { kRunning, kExited, kSignaled };
  How how = How::kRunning;
  int code = 0;             ///< Exit code when kExited; signal number when kSignaled.
  bool after_eof = false;   ///< Exited on its own after its stdin was closed (no signal from us).
  bool we_signaled = false; ///< We had to send SIGTERM or SIGKILL to stop it.
  /// "exited with code 3", "killed by signal 11 (SIGSEGV)", "still running".
  std::string describe() const;
};

enum class ReadStatus { kFrame, kTimeout, kEof };

struct ReadResult {
  ReadStatus status = ReadStatus::kTimeout;
  Frame frame;  ///< Valid when status == kFrame.
};

/// Something a transport saw that breaks its own rules (the Streamable HTTP transport's status
/// codes, content types, sessions, streams: T-HTTP-*). The MCP client reports it with its own
/// observations.
struct Violation {
  std::string invariant;  ///< "T-HTTP-STATUS", ...
  std::string diagnosis;
  std::string excerpt;    ///< What was received (bounded, printable).
  std::string request;    ///< The JSON-RPC message it answered, as sent ("" = none).
  bool warning = false;   ///< The rule is a SHOULD: a warning, not an error.
  /// What identifies the defect (Finding::cause): which message or rule, the HTTP status; never
  /// the server's text or a session id.
  std::map<std::string, std::string> cause;
};

/// A bidirectional message channel to a server. Implementations: StdioProcess (a child process:
/// newline-framed lines), the Streamable HTTP client (one message per POST body or SSE event),
/// and test doubles.
class Transport {
 public:
  virtual ~Transport() = default;
  /// Queues `line` + '\n' for the server's stdin. Never blocks indefinitely: bytes the pipe cannot
  /// take now are flushed during receive(). Fails with code "closed" when stdin is gone (EPIPE).
  virtual Result<void> send(std::string_view line) = 0;
  /// Waits up to `timeout` for the next stdout frame, meanwhile flushing queued stdin bytes and
  /// draining stderr into the tail. kEof once stdout is closed and every frame was returned.
  virtual ReadResult receive(std::chrono::milliseconds timeout) = 0;
  /// Non-blocking: the exit status if the process has ended (reaps it), else nullopt.
  virtual std::optional<ExitStatus> exit_status() = 0;
  /// The last bytes the server wrote on stderr (bounded).
  virtual std::string stderr_tail() const = 0;
  /// Closes stdin, waits up to `grace` for exit, then SIGTERM to the process group, waits `grace`
  /// again, then SIGKILL. Always reaps. Idempotent: a second call returns the same status.
  virtual ExitStatus close(std::chrono::milliseconds grace) = 0;
  /// Rule breaks the transport saw since the last call (none for stdio: the client reads its
  /// framing itself).
  virtual std::vector<Violation> take_violations() { return {}; }
  /// The session is initialised: a transport may now check what needs one (HTTP session probes).
  virtual void handshake_done() {}
  /// Why the server could not be reached or refused us as a client, in one line ("" = it could be:
  /// e.g. "could not connect to http://127.0.0.1:9/mcp: Connection refused", "HTTP 401").
  virtual std::string failure() const { return {}; }
  /// Bytes queued by send() that the server has not taken yet (a stdio server that does not read
  /// its stdin). The client stops answering the server's own requests past a bound
  /// (mcp::kMaxUnsentBytes), so that what a server does not read never becomes our memory.
  virtual std::size_t unsent_bytes() const { return 0; }
  /// Why the server refused us as a client at some point of the session (HTTP 401 or 403 to any
  /// message, after initialize too), in one line with its message and WWW-Authenticate ("" =
  /// never): nothing more can be learnt, the run ends with it (exit 3).
  virtual std::string refused() const { return {}; }
  /// "stdio" or "http".
  virtual const char* kind() const { return "stdio"; }
  /// What the transport did on its own that the run should say (once each), e.g. sessions the
  /// server ended and the client started again.
  virtual std::vector<std::string> take_notes() { return {}; }
  /// The transport's own rules (take_violations' ids) this session gave a subject to: e.g. no
  /// T-HTTP-SESSION when the server issued no session id, no T-HTTP-STREAM when it never streamed.
  virtual std::vector<std::string> exercised() const { return {}; }
};

/// How to start a server.
struct SpawnOptions {
  std::vector<std::string> argv;                 ///< argv[0] is looked up in PATH if it has no '/'.
  std::map<std::string, std::string> env;        ///< Added to (overriding) the inherited environment.
  std::string cwd;                               ///< Empty: inherit.
  std::size_t max_line_bytes = 64u << 20;        ///< Longest stdout line kept; longer lines become oversize frames.
  std::size_t stderr_tail_bytes = 16u << 10;     ///< How much of stderr to keep (the last bytes).
  /// close() sends SIGTERM at once after closing stdin instead of first waiting `grace` for an
  /// exit on end-of-file (a server reached over HTTP, whose stdin means nothing).
  bool terminate_on_close = false;
  /// A command the server runs under (the sandbox's bwrap line, up to "--"; empty: none): argv[0]
  /// is resolved (PATH, cwd) as without it, then `wrapper` + the resolved argv is started.
  std::vector<std::string> wrapper;
  /// Start the child in a session of its own (setsid), away from our terminal: a sandboxed
  /// server cannot push keystrokes into it (TIOCSTI). Its process group is still its pid.
  bool new_session = false;
};

/// Starts `opts.argv` in its own process group with pipes on stdin/stdout/stderr.
/// Errors: "spawn" (not found, not executable, cwd missing: message says which and what to do).
Result<std::unique_ptr<Transport>> spawn_stdio(const SpawnOptions& opts);

/// The key under which a JSON-RPC error the transport made up (for a request the server's answer
/// to could not be read) names what happened, in the error's "data" (see mcp::Reply::transport_failure).
inline constexpr const char* kTransportMark = "ctxo-conform/transport";

/// A Streamable HTTP server (MCP basic/transports §Streamable HTTP).
struct HttpOptions {
  std::string url;  ///< http:// or https://
  /// Sent with every request (--header, .mcp.json "headers"): e.g. Authorization. Never printed.
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds connect_timeout{10000};
  /// The longest a POST's answer (its JSON body or SSE stream) is read; the client stops waiting
  /// sooner (its own timeout), close() ends every transfer at once.
  std::chrono::milliseconds transfer_limit{180000};
  std::size_t max_message_bytes = 64u << 20;  ///< Longest message kept; longer ones become oversize frames.
  /// Started first (its stdout and stderr are drained; stderr's tail is kept), then the URL is
  /// polled until it accepts connections (up to `start_timeout`); stopped by close().
  std::optional<SpawnOptions> server;
  std::chrono::milliseconds start_timeout{20000};
  /// Make the session probes on this session (a request without the session id, a malformed body,
  /// the session used after DELETE): once per run, not on every restart.
  bool probe = false;
};

/// True when `url` is an http:// or https:// URL (the only ones connect_http takes).
inline bool is_http_url(std::string_view url) {
  return url.substr(0, 7) == "http://" || url.substr(0, 8) == "https://";
}

/// Whether the Streamable HTTP transport can run here: libcurl is loaded at run time (curl_api.h),
/// so a machine without it still checks stdio servers. Error "usage" naming what to install.
Result<void> http_available();

/// Connects to a Streamable HTTP server (starting `opts.server` first when given). Nothing is sent
/// until the first message. Errors: "usage" (not an http(s) URL, or no libcurl: http_available),
/// "spawn" (the command could not start, or exited, or the port never accepted a connection).
Result<std::unique_ptr<Transport>> connect_http(const HttpOptions& opts);

/// `value` with every header value in `headers` replaced by "<redacted>" (reports never show
/// credentials).
std::string redact_headers(std::string value, const std::vector<std::pair<std::string, std::string>>& headers);

/// The process id of a server started by spawn_stdio (it is also its process group id), or -1
/// when `t` is another kind of transport. For reports and tests; the pid is reaped after close().
int child_pid(const Transport& t);

/// Makes this process a child subreaper (Linux PR_SET_CHILD_SUBREAPER), so that processes a
/// server leaves behind (its grandchildren) are reparented to us when it dies and close() can
/// reap them after killing its group; otherwise init reaps them whenever it gets to it.
/// Process-wide: call once at startup. Returns false where unsupported (non-Linux).
bool adopt_orphans();

/// Leftover processes (T-LEFTOVER). Every server spawned in a run gets `kRunMarkerVar=<marker>`
/// in its environment (not in reports or replays), and the processes it starts inherit it.
inline constexpr const char* kRunMarkerVar = "CTXO_CONFORM_RUN";
/// A marker unique to this run (pid and random bits).
std::string new_run_marker();
/// A live process (not a zombie, not this one) whose environment carries the marker.
struct Leftover {
  int pid = 0;
  std::string command;      ///< Its command line, arguments joined by spaces.
  int parent = 0;           ///< Its parent's pid (1 or this process: the server is gone).
  bool own_session = false; ///< It leads its own session (setsid: a daemon).
};
/// The marked processes alive now, by pid (Linux /proc; empty elsewhere or on no marker). Reads
/// only what this user may read.
std::vector<Leftover> find_leftovers(const std::string& marker);
/// find_leftovers, again every 50 ms for up to `wait` while any is found (a process the server's
/// shutdown signalled may still be ending), reaping those that are our children.
std::vector<Leftover> settle_leftovers(const std::string& marker, std::chrono::milliseconds wait);
/// Ends `found`: SIGTERM, up to `grace` for them to end, then SIGKILL. Returns those still alive.
std::vector<Leftover> end_leftovers(const std::string& marker, const std::vector<Leftover>& found,
                                    std::chrono::milliseconds grace);

/// Installs SIGINT/SIGTERM/SIGHUP handlers. The first such signal only records itself
/// (core::g_interrupt): the run notices it within a fraction of a second (receive() returns at
/// once), stops, and writes its reports. A second signal, or the run still going
/// kInterruptGraceSeconds later, kills the process group of every live child spawned by
/// spawn_stdio (SIGKILL), restores the default action and re-raises the first signal.
/// A signal this process ignores (e.g. SIGHUP under nohup) stays ignored. Idempotent.
inline constexpr unsigned kInterruptGraceSeconds = 10;
void install_signal_cleanup();

/// Once a signal asked the run to stop: the watchdog's kInterruptGraceSeconds start again from now,
/// `seconds` of them, for writing the reports (a report of 10,000 tools takes seconds to write; the
/// writer must not be killed half-way). No effect while no signal was received.
void extend_interrupt_grace(unsigned seconds);

/// Kills (SIGKILL) the process group of every live child spawned by spawn_stdio, as the second
/// signal does: for a stop that writes its reports and exits without waiting for the run.
void kill_children();

}  // namespace ctxo::transport
