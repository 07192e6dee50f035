# SPDX-License-Identifier: MIT
# A minimal, conformant MCP server that starts a detached daemon (its own session, so killing the
# server's process group does not reach it) and leaves it running when it exits: T-LEFTOVER.
# With DAEMON=0 it starts nothing (the conformant twin). DAEMON_SECONDS: how long the daemon
# sleeps (default 120). Used by tests/cli/hostile_test.cpp (Leftovers).
import os
import subprocess

import mini_mcp

if os.environ.get("DAEMON", "1") != "0":
    subprocess.Popen(["sleep", os.environ.get("DAEMON_SECONDS", "120")], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

mini_mcp.serve("daemon", [mini_mcp.ping_tool()], lambda message: {"content": [{"type": "text", "text": "pong"}]})
