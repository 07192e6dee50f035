# SPDX-License-Identifier: MIT
# A plain (non-envelope) MCP server whose tool errors are JSON objects {"error": "..."}: under
# --profile auto that shape must not make it be judged as an envelope server (no E-MISS etc.).
import sys, json

for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m: continue
    meth = m.get("method"); i = m["id"]
    def out(res): print(json.dumps({"jsonrpc":"2.0","id":i,"result":res}), flush=True)
    if meth == "initialize":
        out({"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"py","version":"1"}})
    elif meth == "tools/list":
        out({"tools":[{"name":"get_item","inputSchema":{"type":"object","properties":{"itemId":{"type":"string"}},"required":["itemId"]},"annotations":{"readOnlyHint":True}}]})
    elif meth == "tools/call":
        a = m["params"].get("arguments", {})
        if a.get("itemId") == "hello": out({"content":[{"type":"text","text":"item hello: 42"}]})
        else: out({"content":[{"type":"text","text":json.dumps({"error":"no item " + str(a.get("itemId",""))})}],"isError":True})
    else:
        print(json.dumps({"jsonrpc":"2.0","id":i,"error":{"code":-32601,"message":"nope"}}), flush=True)
