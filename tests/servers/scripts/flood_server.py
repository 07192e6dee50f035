# SPDX-License-Identifier: MIT
# A hostile MCP server over stdio: it answers the handshake and tools/list, then, at its first
# tools/call, stops reading its stdin and writes requests of its own as fast as it can (`ping` by
# default; FLOOD_METHOD=sampling/createMessage for a request the client refuses), for at most
# FLOOD_SECONDS (default 60) before it exits. A client that queues an answer to each of them
# grows without end. Used by tests/cli/bounds_test.cpp.
import json
import os
import sys
import time

method = os.environ.get("FLOOD_METHOD", "ping")
seconds = float(os.environ.get("FLOOD_SECONDS", "60"))
out = sys.stdout.buffer


def answer(message, result):
    out.write((json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n").encode())
    out.flush()


def flood():
    end = time.monotonic() + seconds
    next_id = 0
    while time.monotonic() < end:
        lines = []
        for _ in range(2000):
            next_id += 1
            lines.append('{"jsonrpc":"2.0","id":"s%d","method":"%s"}\n' % (next_id, method))
        try:
            out.write("".join(lines).encode())
            out.flush()
        except BrokenPipeError:
            return
    sys.exit(0)


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    m = message.get("method")
    if m == "initialize":
        answer(message, {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                         "serverInfo": {"name": "flood", "version": "1"}})
    elif m == "tools/list":
        answer(message, {"tools": [{"name": "t", "inputSchema": {"type": "object",
                                                                  "properties": {"q": {"type": "string"}}}}]})
    elif m == "tools/call":
        flood()
    else:
        out.write((json.dumps({"jsonrpc": "2.0", "id": message["id"],
                               "error": {"code": -32601, "message": "Method not found"}}) + "\n").encode())
        out.flush()
