# SPDX-License-Identifier: MIT
# A minimal MCP server whose tool `t` answers its first three calls at once (the second after a
# line of garbage on stdout: one T-FRAMING finding) and takes 60 s over each later call, writing
# the file MARK (env) when it starts the first slow one: the moment a test interrupts the harness.
# Used by tests/cli/hostile_test.cpp (Signals).
import json
import os
import sys
import time

calls = 0
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "slow", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}
    elif method == "tools/call":
        calls += 1
        if calls == 2:
            sys.stdout.write("garbage\n")
            sys.stdout.flush()
        if calls > 3:
            with open(os.environ["MARK"], "w") as mark:
                mark.write(str(os.getpid()))
            time.sleep(60)
        result = {"content": [{"type": "text", "text": "ok"}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
