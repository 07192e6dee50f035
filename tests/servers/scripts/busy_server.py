# SPDX-License-Identifier: MIT
# A minimal MCP server whose one tool answers every call with a text of ITEMS (env, default
# 3,000,000) empty JSON objects, 9 MB: a run of many calls spends its time reading answers, in
# code that does not look at a stop signal (parsing, harvesting, checking). It writes the file
# MARK (env) with its pid once the first answer is sent: the moment a test signals the harness.
# Used by tests/cli/hostile_test.cpp (Signals.ARunReadingHugeAnswersStillWritesItsReports).
import json
import os
import sys

items = int(os.environ.get("ITEMS", "3000000"))
body = "[" + "{}," * items + "{}]"
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "busy", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "dump", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
                             "annotations": {"readOnlyHint": True}}]}
    elif method == "tools/call":
        sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}\n'
                         % (json.dumps(message["id"]), body))
        sys.stdout.flush()
        if not os.path.exists(os.environ["MARK"]):
            with open(os.environ["MARK"], "w") as mark:
                mark.write(str(os.getpid()))
        continue
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                                     "error": {"code": -32601, "message": "unknown method"}}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
