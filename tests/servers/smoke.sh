#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Developer smoke test for the fixture and example servers (not a ctest; the harness's own tests
# are the real ones): drives scripted sessions through a tiny Python client and checks that the
# default fixture breaks nothing and each --defect breaks exactly the invariant it is meant to.
# usage: tests/servers/smoke.sh [BUILD_DIR]   (default: build-srv)
set -euo pipefail
build="${1:-build-srv}"
export FIXTURE="$build/tests/servers/fixture-server"
export EXAMPLE="$build/examples/example_server/example-server"
[[ -x "$FIXTURE" && -x "$EXAMPLE" ]] || { echo "error: build fixture-server and example-server in $build first" >&2; exit 2; }
exec python3 - <<'PY'
import json, os, select, signal, subprocess, sys, tempfile, time

FIXTURE, EXAMPLE = os.environ["FIXTURE"], os.environ["EXAMPLE"]
KNOWN = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
MODERN = "2026-07-28"
failures = 0

class Client:
    """Spawns a server, writes JSON lines, reads stdout lines with a timeout, answers pings."""
    def __init__(self, argv, answer_ping=True, modern=False):
        self.err = tempfile.TemporaryFile()  # drained by the OS, so a stderr flood cannot block
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err)
        self.buf, self.lines, self.bad = b"", [], set()
        self.answer_ping, self.modern, self.next_id = answer_ping, modern, 1
        self.responses = {}   # id -> list of responses
        self.pings, self.odd, self.sent, self.eof = 0, 0, set(), False
    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode()); self.p.stdin.flush()
    def meta(self, params=None):
        params = dict(params or {})
        if self.modern:
            params["_meta"] = {**params.get("_meta", {}),
                               "io.modelcontextprotocol/protocolVersion": MODERN,
                               "io.modelcontextprotocol/clientCapabilities": {}}
        return params
    def _read_line(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0: return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r: return None
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk: self.eof = True; return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line
    def _take(self, line):
        self.lines.append(line)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:  # flagged, then read leniently as the TypeScript SDK does
            self.bad.add("T-FRAMING"); self.odd += 1; text = line.decode("utf-8", "replace")
        try:
            msg = json.loads(text)
        except ValueError:
            self.bad.add("T-FRAMING"); self.odd += 1; return
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            self.bad.add("T-FRAMING"); self.odd += 1; return
        if "method" in msg and "id" in msg:
            self.pings += 1
            if self.answer_ping:
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
            return
        if "method" in msg: return  # notification
        key = json.dumps(msg.get("id"))
        if key not in self.sent: self.bad.add("T-ID"); self.odd += 1
        self.responses.setdefault(key, []).append(msg)
    def request(self, method, params=None, timeout=None):
        timeout = timeout or getattr(self, "timeout", 3.0)
        rid = self.next_id; self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        p = self.meta(params) if (params is not None or self.modern) else None
        if p is not None: msg["params"] = p
        key = json.dumps(rid)
        self.sent.add(key)
        self.send(msg)
        deadline, odd = time.monotonic() + timeout, self.odd
        while key not in self.responses:
            if self.odd != odd:  # garbage or a wrong id instead of the answer: stop waiting soon
                deadline, odd = min(deadline, time.monotonic() + 0.3), self.odd
            line = self._read_line(deadline)
            if line is None:
                if self.odd:
                    return None  # answered, but not in a readable way: not a hang
                try: self.p.wait(1.0 if self.p.poll() is None and self.eof else 0)
                except subprocess.TimeoutExpired: pass
                self.bad.add("T-CRASH" if self.p.poll() not in (None, 0) else "T-HANG")
                return None
            self._take(line)
        # give a duplicate a moment to show up
        end = time.monotonic() + 0.05
        while True:
            line = self._read_line(end)
            if line is None: break
            self._take(line)
        return self.responses[key][0]
    def close(self, grace=2.0):
        try: self.p.stdin.close()
        except BrokenPipeError: pass
        try:
            self.p.wait(grace)
        except subprocess.TimeoutExpired:
            self.bad.add("T-SHUTDOWN"); self.p.kill(); self.p.wait()
        rest = self.p.stdout.read()
        for line in rest.split(b"\n"):
            if line: self._take(line)
        for key, resps in self.responses.items():
            if len(resps) > 1: self.bad.add("T-ID")
        self.returncode = self.p.returncode
        if self.p.returncode not in (0, None) and self.p.returncode < 0 and "T-SHUTDOWN" not in self.bad:
            self.bad.add("T-CRASH")
        self.err.seek(0, 2); self.stderr_size = self.err.tell()
        self.err.seek(0); self.stderr = self.err.read(4096).decode("utf-8", "replace")

def valid_args(name):
    return {"echo": {"text": "héllo 🍣"}, "add": {"a": 3, "b": 4}, "status": {}, "shape": {"n": 3},
            "search_words": {"query": "an", "limit": 50}, "text_stats": {"text": "e\u0301🍣"}}.get(name, {})

def session(argv, modern=False, answer_ping=True, timeout=3.0):
    c = Client(argv, answer_ping=answer_ping, modern=modern)
    c.timeout = timeout
    if modern:
        r = c.request("server/discover")
        if r and ("result" not in r or r["result"].get("supportedVersions") != [MODERN]): c.bad.add("P-INIT")
    else:
        r = c.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                      "clientInfo": {"name": "smoke", "version": "0"}})
        if r is not None:
            res = r.get("result", {})
            if res.get("protocolVersion") not in KNOWN or "serverInfo" not in res: c.bad.add("P-INIT")
        c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools, cursor, seen = [], None, set()
    for _ in range(10):
        r = c.request("tools/list", {"cursor": cursor} if cursor else ({} if modern else None))
        if r is None or "result" not in r: break
        tools += r["result"].get("tools", [])
        cursor = r["result"].get("nextCursor")
        if cursor is None: break
        if cursor in seen: c.bad.add("P-LIST"); break
        seen.add(cursor)
    else:
        c.bad.add("P-LIST")
    names = [t.get("name") for t in tools]
    if len(names) != len(set(names)): c.bad.add("P-LIST")
    if any(not isinstance(t.get("inputSchema"), dict) or t["inputSchema"].get("type") != "object" for t in tools):
        c.bad.add("P-LIST")
    for t in {t["name"]: t for t in tools}.values():
        if c.bad & {"T-HANG", "T-CRASH"}: break  # one lost call is enough
        r = c.request("tools/call", {"name": t["name"], "arguments": valid_args(t["name"]), "_meta": {"progressToken": t["name"]}})
        if r is None: continue
        if "error" in r:
            if r["error"].get("code") == -32603: c.bad.add("P-NO-THROW")
            continue
        res = r.get("result", {})
        if modern and res.get("resultType") != "complete": c.bad.add("P-RESULT")
        if not all(isinstance(b, dict) and "type" in b for b in res.get("content", [None])): c.bad.add("P-RESULT")
        if "isError" in res and not isinstance(res["isError"], bool): c.bad.add("P-RESULT")
        if res.get("isError"): c.bad.add("P-NO-THROW"); c.error_text = res["content"][0].get("text")
        if "outputSchema" in t and not res.get("isError"):
            sc = res.get("structuredContent")
            req = t["outputSchema"].get("required", [])
            props = t["outputSchema"].get("properties", {})
            if not isinstance(sc, dict) or any(k not in sc for k in req) or any(
                    props.get(k, {}).get("type") == "integer" and not isinstance(v, int) for k, v in sc.items()):
                c.bad.add("P-RESULT")
    c.close()
    c.tools = names
    return c

def check(label, got, want):
    global failures
    ok = got == want
    failures += 0 if ok else 1
    print(f"{'ok  ' if ok else 'FAIL'} {label}: got {sorted(got)} want {sorted(want)}")

expect = {
    None: set(), "stderr-flood": set(), "slow": set(),
    "stdout-log": {"T-FRAMING"}, "invalid-utf8": {"T-FRAMING"}, "split-line": {"T-FRAMING"},
    "wrong-id": {"T-ID"}, "duplicate-response": {"T-ID"}, "hang": {"T-HANG"}, "crash": {"T-CRASH"},
    "no-shutdown": {"T-SHUTDOWN"}, "bad-init": {"P-INIT"}, "list-duplicate": {"P-LIST"},
    "list-cursor-loop": {"P-LIST"}, "list-bad-schema": {"P-LIST"}, "bad-content": {"P-RESULT"},
    "bad-structured": {"P-RESULT"}, "internal-error": {"P-NO-THROW"},
}
for modern in (False, True):
    for defect, want in expect.items():
        argv = [FIXTURE] + (["--defect", defect] if defect else []) + (["--modern"] if modern else [])
        c = session(argv, modern=modern)
        got = set(c.bad)
        check(f"fixture {'--modern ' if modern else ''}{defect or '(default)'}", got, want)
        if defect is None:
            check("  pings sent" + (" (modern: none)" if modern else ""), {c.pings}, {0 if modern else 1})
            check("  tools", set(c.tools), {"echo", "add", "status", "shape"})
        if defect == "stderr-flood":
            check("  stderr >= 20 MiB", {c.stderr_size >= 20 * 1024 * 1024}, {True})
        if defect == "crash":
            check("  stderr says fatal: boom", {"fatal: boom" in c.stderr}, {True})
        if defect == "no-shutdown":
            p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
            time.sleep(0.2); p.send_signal(signal.SIGTERM); time.sleep(0.3)
            check("  survives SIGTERM", {p.poll()}, {None})
            p.kill(); p.wait()

# A client that refuses the ping gets a detectably broken first call.
c = session([FIXTURE], answer_ping=False, timeout=8.0)
check("fixture, client ignores ping -> isError", {getattr(c, "error_text", None)}, {"client did not answer ping"})

# Modern-era refusals.
c = Client([FIXTURE, "--modern"], modern=False)
r = c.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "s", "version": "0"}})
check("modern: initialize -> -32022", {r and r.get("error", {}).get("code")}, {-32022})
r = c.request("tools/list", {})
check("modern: missing _meta -> -32602", {r and r.get("error", {}).get("code")}, {-32602})
r = c.request("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}})
check("modern: unknown version -> -32022", {r and r.get("error", {}).get("code")}, {-32022})
c.close()
c = Client([FIXTURE])
r = c.request("server/discover", {})
check("legacy: server/discover -> -32601", {r and r.get("error", {}).get("code")}, {-32601})
c.close()

# Bad command lines.
for argv in ([FIXTURE, "--defect", "nope"], [FIXTURE, "--frobnicate"], [FIXTURE, "--page-size", "x"]):
    rc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True).returncode
    check("exit 2: " + " ".join(argv[1:]), {rc}, {2})

# The example server: conformant, in each era, paginated or not.
for argv, modern in (([EXAMPLE], False), ([EXAMPLE, "--page-size", "1"], False),
                     ([EXAMPLE, "--era", "modern"], True), ([EXAMPLE, "--era", "dual"], True),
                     ([EXAMPLE, "--era", "dual"], False)):
    c = session(argv, modern=modern)
    check("example " + " ".join(argv[1:]), set(c.bad), set())
c = Client([EXAMPLE])
c.request("initialize", {"protocolVersion": "2099-01-01", "capabilities": {}, "clientInfo": {"name": "s", "version": "0"}})
r = c.request("tools/call", {"name": "search_words", "arguments": {"query": "SUSHI", "limit": 1}})
check("example search_words SUSHI limit 1", {json.dumps(r["result"]["structuredContent"], ensure_ascii=False)},
      {'{"count": 1, "matches": ["寿司 sushi"], "query": "SUSHI", "total": 2}'})
r = c.request("tools/call", {"name": "search_words", "arguments": {"query": "zzz"}})
check("example search_words miss is a result", {(r["result"].get("isError", False), r["result"]["structuredContent"]["count"])}, {(False, 0)})
r = c.request("tools/call", {"name": "add", "arguments": {"a": "1", "b": 2}})
check("example add bad args -> isError", {r["result"].get("isError")}, {True})
r = c.request("tools/call", {"name": "echo", "arguments": {"text": "x", "extra": 1}})
check("example echo unknown arg -> isError", {r["result"].get("isError")}, {True})
c.close()
print("smoke:", "FAILED" if failures else "all passed", f"({failures} failures)")
sys.exit(1 if failures else 0)
PY
