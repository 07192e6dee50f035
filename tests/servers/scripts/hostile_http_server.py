# SPDX-License-Identifier: MIT
# A hostile Streamable HTTP server (issue 27, item 5: transport failures named as such), on
# 127.0.0.1:$PORT only, ending itself after 60 s at most. Well-behaved (JSON answers, one tool
# "echo") except where MODE says:
#   auth-after-init  initialize answered; every later request HTTP 401 with a WWW-Authenticate
#                    and a JSON-RPC error message carrying an escape character
#   big-header-init  the initialize answer carries a 200 KB header line (libcurl refuses it)
#   nul-session-init the initialize answer's Mcp-Session-Id holds a NUL byte
#   huge-session-init the initialize answer's Mcp-Session-Id is 1 MiB long
#   cr-session-init  the initialize answer's Mcp-Session-Id holds a lone CR and a header after it
#                    ("abc\rX-Forged: 1"); a later request carrying either header is answered 400
#   many-headers-call tools/call answered with 100,000 header lines (libcurl refuses them)
#   redirect-init    initialize answered 307 with a Location (elsewhere on this server)
#   redirect-call    tools/call answered 307 with a Location
#   sse-cut          tools/call answered by an SSE stream: one event of SSE_BYTES bytes of data,
#                    the connection closed before the blank line that would end it
#   sse-big          the same event, ended (a JSON-RPC response over --max-message-bytes)
import json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = os.environ.get("MODE", "")
PORT = int(os.environ.get("PORT", "0"))
SSE_BYTES = int(os.environ.get("SSE_BYTES", "8192"))


def answer(m):
    meth = m.get("method"); i = m.get("id")
    def res(r): return {"jsonrpc": "2.0", "id": i, "result": r}
    if meth == "initialize":
        v = m.get("params", {}).get("protocolVersion", "2025-06-18")
        if v not in ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"): v = "2025-06-18"
        return res({"protocolVersion": v, "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile-http", "version": "1"}})
    if meth == "tools/list":
        return res({"tools": [{"name": "echo", "description": "Echoes", "annotations": {"readOnlyHint": True},
                               "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "maxLength": 8}}}}]})
    if meth == "tools/call":
        t = (m.get("params", {}).get("arguments") or {}).get("text", "")
        return res({"content": [{"type": "text", "text": "said " + str(t)}]})
    if meth == "ping":
        return res({})
    return {"jsonrpc": "2.0", "id": i, "error": {"code": -32601, "message": "no method " + str(meth)}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a): pass

    def raw(self, status, headers, body=b""):
        out = [("HTTP/1.1 %s\r\n" % status).encode()]
        out += [(h if isinstance(h, bytes) else h.encode()) + b"\r\n" for h in headers]
        out.append(b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body))
        self.wfile.write(b"".join(out) + body)
        self.close_connection = True

    def json_answer(self, obj, extra=()):
        self.raw("200 OK", ["Content-Type: application/json", *extra], json.dumps(obj).encode())

    def do_DELETE(self):
        self.raw("200 OK", [])

    def do_GET(self):
        self.raw("405 Method Not Allowed", [])

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        try: m = json.loads(self.rfile.read(n))
        except ValueError:
            return self.raw("400 Bad Request", [])
        v = self.headers.get("MCP-Protocol-Version")
        if v is not None and v not in ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"):
            return self.raw("400 Bad Request", [])
        meth = m.get("method") if isinstance(m, dict) else None
        if not isinstance(m, dict) or "id" not in m or meth is None:
            return self.raw("202 Accepted", [])
        where = "http://127.0.0.1:%d/elsewhere/mcp" % PORT
        if meth == "initialize":
            if MODE == "big-header-init":
                return self.json_answer(answer(m), ["X-Padding: " + "a" * 200000])
            if MODE == "nul-session-init":
                return self.json_answer(answer(m), [b"Mcp-Session-Id: abc\x00def"])
            if MODE == "huge-session-init":
                return self.json_answer(answer(m), ["Mcp-Session-Id: " + "s" * (1 << 20)])
            if MODE == "cr-session-init":
                return self.json_answer(answer(m), [b"Mcp-Session-Id: abc\rX-Forged: 1"])
            if MODE == "redirect-init":
                return self.raw("307 Temporary Redirect", ["Location: " + where])
            return self.json_answer(answer(m))
        if MODE == "cr-session-init" and ("Mcp-Session-Id" in self.headers or "X-Forged" in self.headers):
            return self.raw("400 Bad Request", [])
        if MODE == "auth-after-init" and meth != "ping":
            err = {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "token expired \x1b[31mred"}}
            return self.raw("401 Unauthorized", ["Content-Type: application/json",
                                                 'WWW-Authenticate: Bearer realm="mcp", error="invalid_token", '
                                                 'resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'],
                            json.dumps(err).encode())
        if meth == "tools/call":
            if MODE == "many-headers-call":
                return self.json_answer(answer(m), ["X-H%d: v" % k for k in range(100000)])
            if MODE == "redirect-call":
                return self.raw("307 Temporary Redirect", ["Location: " + where])
            if MODE in ("sse-cut", "sse-big"):
                body = json.dumps(answer(m))
                data = body[:-1] + ', "pad": "' + "p" * SSE_BYTES + '"}'
                out = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                out += b"data: " + data.encode() + (b"\n\n" if MODE == "sse-big" else b"")
                self.wfile.write(out)
                self.close_connection = True
                return
        return self.json_answer(answer(m))


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
    srv.daemon_threads = True
    threading.Timer(60, lambda: os._exit(0)).start()
    try: srv.serve_forever()
    except KeyboardInterrupt: pass


if __name__ == "__main__":
    main()
