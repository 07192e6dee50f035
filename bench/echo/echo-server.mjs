// SPDX-License-Identifier: MIT
// The fastest server there is: one tool, `echo {text}`, on the official TypeScript SDK
// (McpServer + zod, stdio). bench/echo.sh runs ctxo-conform and raw-client.mjs against it.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "echo", version: "1.0.0" });
server.registerTool("echo", { description: "Echo the text back.", inputSchema: { text: z.string().max(200).optional() },
                              annotations: { readOnlyHint: true } },
                    async ({ text }) => ({ content: [{ type: "text", text: text ?? "" }] }));
await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
