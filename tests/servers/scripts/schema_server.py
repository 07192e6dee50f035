# SPDX-License-Identifier: MIT
# A minimal MCP server (newline-delimited JSON-RPC on stdio) with one tool `t` whose inputSchema
# is the text of the file SCHEMA_FILE, spliced in as it is (never parsed, so a schema nested
# 100,000 levels or holding 2^64-1 reaches the client unchanged). Every call is answered with one
# text part: "ok", or ANSWER_BYTES (env) letters. Used by tests/cli/hostile_test.cpp.
import json
import os
import sys

schema_text = open(os.environ["SCHEMA_FILE"]).read()
answer = "a" * int(os.environ.get("ANSWER_BYTES", "0")) or "ok"
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = json.dumps({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                             "serverInfo": {"name": "hostile-schema", "version": "1"}})
    elif method == "tools/list":
        result = '{"tools":[{"name":"t","inputSchema":' + schema_text + '}]}'
    elif method == "tools/call":
        result = '{"content":[{"type":"text","text":"' + answer + '"}]}'
    else:
        result = "{}"
    sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (json.dumps(message["id"]), result))
    sys.stdout.flush()
