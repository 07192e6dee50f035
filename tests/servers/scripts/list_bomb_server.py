# SPDX-License-Identifier: MIT
# A minimal MCP server whose tools/list is hostile to the client's memory (issue 45, item 1):
#   list_bomb_server.py endless PER_PAGE   pages of PER_PAGE tools, each with a new nextCursor:
#                                           the listing never ends
#   list_bomb_server.py cursors BYTES      pages of one tool whose nextCursor is BYTES long, forever
#   list_bomb_server.py readonly N         one page of N read-only tools (P-CONCURRENT's candidates)
# Every tool answers "ok". PAGE_SECONDS (env) makes each tools/list page take that long. Used by
# tests/cli/memory_test.cpp and bench/memory.sh.
import json
import os
import sys
import time

mode, n = sys.argv[1], int(sys.argv[2])


def tool(i, read_only=False):
    t = {"name": "tool_%d" % i, "description": "d",
         "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "pattern": "^[a-z]+$"}}}}
    if read_only:
        t["annotations"] = {"readOnlyHint": True, "idempotentHint": True}
    return t


def listing(cursor):
    page = int(cursor.split(":")[0]) if cursor else 0
    if mode == "endless":
        return {"tools": [tool(page * n + i) for i in range(n)], "nextCursor": "%d:" % (page + 1)}
    if mode == "cursors":
        return {"tools": [tool(page)], "nextCursor": "%d:" % (page + 1) + "c" * n}
    return {"tools": [tool(i, True) for i in range(n)]}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method = m.get("method")
    if method == "initialize":
        r = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "bomb", "version": "1"}}
    elif method == "tools/list":
        time.sleep(float(os.environ.get("PAGE_SECONDS", "0")))
        r = listing((m.get("params") or {}).get("cursor"))
    elif method == "tools/call":
        r = {"content": [{"type": "text", "text": "ok"}]}
    else:
        send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}})
        continue
    send({"jsonrpc": "2.0", "id": m["id"], "result": r})
