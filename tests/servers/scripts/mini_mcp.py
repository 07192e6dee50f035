# SPDX-License-Identifier: MIT
# The stdio loop of the small Python MCP servers the CLI tests spawn: one JSON-RPC message per
# line, initialize and tools/list answered from what the server gives, tools/call by its `call`.
import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve(name, tools, call):
    """Answers requests until stdin closes. `tools`: the tools/list entries; `call(message)`: the
    tools/call result for a request (a dict)."""
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message.get("method")
        if method == "initialize":
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                      "serverInfo": {"name": name, "version": "1"}}
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "tools/call":
            result = call(message)
        else:
            result = {}
        send({"jsonrpc": "2.0", "id": message["id"], "result": result})


def ping_tool():
    """One read-only tool `ping` with no parameters."""
    return {"name": "ping", "inputSchema": {"type": "object", "properties": {}}, "annotations": {"readOnlyHint": True}}
