# SPDX-License-Identifier: MIT
# A minimal MCP server listing TOOLS (argv[1], default 50,000) tools, each answering "ok" (with
# argv[2] = "enum": one tool whose parameter is an enum of argv[1] objects): the
# harness must bound what it does before the first call and after --time-budget by the budget,
# not by the number of tools. Used by tests/cli/hostile_test.cpp (Budget.*).
import json, sys
N = int(sys.argv[1]) if len(sys.argv) > 1 else 50000
if len(sys.argv) > 2 and sys.argv[2] == "enum":
    # One tool whose parameter is an enum of N objects (bench/listing-memory.sh).
    enum = [{"k": i, "v": "value-%d" % i} for i in range(N)]
    tools = [{"name": "pick", "description": "d", "inputSchema": {"type": "object", "properties": {"x": {"enum": enum}}, "required": ["x"]}}]
else:
    tools = [{"name": "tool_%d" % i, "description": "d", "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "pattern": "^[a-z]+$"}}}} for i in range(N)]
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m: continue
    meth = m.get("method")
    if meth == "initialize":
        r = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "many", "version": "1"}}
    elif meth == "tools/list":
        r = {"tools": tools}
    elif meth == "tools/call":
        r = {"content": [{"type": "text", "text": "ok"}]}
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}}) + "\n"); sys.stdout.flush(); continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n"); sys.stdout.flush()
