# SPDX-License-Identifier: MIT
# A minimal MCP server that is conformant until its stdin closes, then prints a farewell line on
# stdout before it exits (with GOODBYE=0, it exits quietly). The line is not a JSON-RPC message:
# stdout pollution (T-FRAMING) that only shows after end-of-file.
# Used by tests/cli/hostile_test.cpp (Shutdown).
import os
import sys

import mini_mcp

mini_mcp.serve("goodbye", [mini_mcp.ping_tool()], lambda message: {"content": [{"type": "text", "text": "ok"}]})
if os.environ.get("GOODBYE", "1") != "0":
    sys.stdout.write("server stopped, goodbye\n")
    sys.stdout.flush()
