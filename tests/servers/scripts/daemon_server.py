# SPDX-License-Identifier: MIT
# A minimal, conformant MCP server that starts a detached daemon (its own session, so killing the
# server's process group does not reach it) and leaves it running when it exits: T-LEFTOVER.
# With DAEMON=0 it starts nothing (the conformant twin). DAEMON_SECONDS: how long the daemon
# sleeps (default 120). Used by tests/cli/hostile_test.cpp (Leftovers).
import json
import os
import subprocess
import sys

if os.environ.get("DAEMON", "1") != "0":
    subprocess.Popen(["sleep", os.environ.get("DAEMON_SECONDS", "120")], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "daemon", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "ping", "inputSchema": {"type": "object", "properties": {}},
                             "annotations": {"readOnlyHint": True}}]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "pong"}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
