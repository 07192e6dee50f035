# SPDX-License-Identifier: MIT
# A hostile MCP server over stdio: its one tool `t` declares an outputSchema whose `pattern`
# backtracks exponentially under a backtracking engine (^(a+)+$), and answers every call with
# structuredContent that almost matches it (A_COUNT a's, default 34, then a 'b'). Validating that
# answer with std::regex takes about 2^A_COUNT steps (hours); a linear-time engine takes
# microseconds. Used by tests/cli/bounds_test.cpp.
import json
import os
import sys

subject = "a" * int(os.environ.get("A_COUNT", "34")) + "b"
schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}, "required": ["s"]}

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "redos", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
                             "outputSchema": schema, "annotations": {"readOnlyHint": True}}]}
    elif method == "tools/call":
        structured = {"s": subject}
        result = {"content": [{"type": "text", "text": json.dumps(structured)}], "structuredContent": structured}
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                                     "error": {"code": -32601, "message": "Method not found"}}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
