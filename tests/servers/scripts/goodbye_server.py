# SPDX-License-Identifier: MIT
# A minimal MCP server that is conformant until its stdin closes, then prints a farewell line on
# stdout before it exits (with GOODBYE=0, it exits quietly). The line is not a JSON-RPC message:
# stdout pollution (T-FRAMING) that only shows after end-of-file.
# Used by tests/cli/hostile_test.cpp (Shutdown).
import json
import os
import sys

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "goodbye", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "ping", "inputSchema": {"type": "object", "properties": {}},
                             "annotations": {"readOnlyHint": True}}]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "ok"}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
if os.environ.get("GOODBYE", "1") != "0":
    sys.stdout.write("server stopped, goodbye\n")
    sys.stdout.flush()
