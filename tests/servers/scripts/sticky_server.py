# SPDX-License-Identifier: MIT
# A minimal MCP server that exits when its stdin closes, unless its tool `arm` was called with
# {"on": true} before: then it ignores end-of-file and SIGTERM and keeps running (a server whose
# shutdown depends on its state, e.g. a watcher started by a tool). `ping` does nothing.
# Used by tests/cli/hostile_test.cpp (StateCarryingCases).
import json
import signal
import sys
import time

armed = False
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "sticky", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [
            {"name": "arm", "inputSchema": {"type": "object", "properties": {"on": {"type": "boolean"}},
                                            "required": ["on"]}},
            {"name": "ping", "inputSchema": {"type": "object", "properties": {}}}]}
    elif method == "tools/call":
        params = message.get("params", {})
        if params.get("name") == "arm" and params.get("arguments", {}).get("on") is True:
            armed = True
        result = {"content": [{"type": "text", "text": "armed" if armed else "ok"}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
if armed:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(60)
