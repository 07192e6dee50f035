# SPDX-License-Identifier: MIT
# A minimal MCP server (newline-delimited JSON-RPC on stdio) whose tool `list` answers with one
# huge JSON text part, to bound what the harness's per-answer checks cost (issue 27). Usage:
#   huge_answer_server.py empties N   `[{},{},...]`: N empty objects (20 million: 60 MB)
#   huge_answer_server.py keys N      `{"key-0":"value-0",...}`: one object of N keys (a million: 20 MB)
#   huge_answer_server.py ids N       `{"items":[{"id":"item-0","name":"n0"},...],"returned":N}`,
#                                      and a tool `get` taking an `id` (the ids are harvestable)
# LEAK=1 (env) makes the first item's name "[object Object]" (a P-LEAK in the first items);
# STRUCTURED=1 sends the value as structuredContent too. Used by tests/cli/hostile_test.cpp and
# bench/huge-answer.sh.
import json
import os
import sys

import mini_mcp

mode, n = sys.argv[1], int(sys.argv[2])
if mode == "empties":
    text = "[" + ",".join(["{}"] * n) + "]"
elif mode == "keys":
    text = "{" + ",".join('"key-%d":"value-%d"' % (i, i) for i in range(n)) + "}"
else:
    items = ['{"id":"item-%d","name":"n%d"}' % (i, i) for i in range(n)]
    if os.environ.get("LEAK") == "1" and items:
        items[0] = '{"id":"item-0","name":"[object Object]"}'
    text = '{"items":[' + ",".join(items) + '],"returned":%d}' % n
    del items
listed = {"content": [{"type": "text", "text": text}]}
if os.environ.get("STRUCTURED") == "1":
    value = json.loads(text)
    listed["structuredContent"] = value if isinstance(value, dict) else {"items": value}
tools = [{"name": "list", "description": "Lists every item.", "inputSchema": {"type": "object", "properties": {}}}]
if mode == "ids":
    tools.append({"name": "get", "description": "Gets one item by its id.",
                  "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}})


def call(message):
    params = message["params"]
    if params.get("name") == "list":
        return listed
    item = str(params.get("arguments", {}).get("id", ""))
    if item.startswith("item-") and item[5:].isdigit() and int(item[5:]) < n:
        return {"content": [{"type": "text", "text": json.dumps({"id": item, "name": "n" + item[5:]})}]}
    return {"content": [{"type": "text", "text": "Item not found: " + item}], "isError": True}


mini_mcp.serve("huge-answer", tools, call)
