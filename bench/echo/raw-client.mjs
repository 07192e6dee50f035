// SPDX-License-Identifier: MIT
// The baseline: a minimal client that starts the server, initializes, lists tools and makes N
// tools/call requests over the same pipe, one at a time, then closes stdin and waits for the
// server to exit. Usage: node raw-client.mjs N -- CMD ARGS...
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const n = Number(process.argv[2]);
const cmd = process.argv.slice(process.argv.indexOf("--") + 1);
const child = spawn(cmd[0], cmd.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const lines = createInterface({ input: child.stdout });
const waiting = new Map();
lines.on("line", (l) => {
  const m = JSON.parse(l);
  if (m.id !== undefined && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
});
let next = 1;
const request = (method, params) => new Promise((resolve) => {
  const id = next++;
  waiting.set(id, resolve);
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
});
await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } });
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
await request("tools/list", {});
for (let i = 0; i < n; i++) await request("tools/call", { name: "echo", arguments: { text: "call " + i } });
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));
