// Drives `TANDEM mcp serve` in WORKSPACE with the official MCP TypeScript
// SDK's client, which checks every result against the MCP schema as it
// parses it: v1 (@modelcontextprotocol/sdk, revisions up to 2025-11-25) or
// v2 (@modelcontextprotocol/client, which negotiates 2026-07-28 through
// server/discover and takes questions as multi round-trips), told apart by
// SDK_DIR's package.json.
// The first line on standard output is {"tools", "protocol"}: the tools
// listed and the revision negotiated. Each line on standard input is then
// one call {"tool", "args"}; each line on standard output is what came
// back: {"result", "sent"} (sent: how many tools/call requests the call
// took, its retries with answers included) or {"error"} (a protocol error
// or a result the SDK refused), and {"elicited"} for each question tandem
// asked. With ANSWER (allow, allow_session, deny or decline) the client
// declares elicitation and answers so.
// Usage: node mcp-client.mjs SDK_DIR TANDEM WORKSPACE [ANSWER]
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [sdkDir, tandem, workspace, answer] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(`${sdkDir}/${p}`).href);
const major = Number(JSON.parse(readFileSync(`${sdkDir}/package.json`, "utf8")).version.split(".")[0]);
let Client, StdioClientTransport, onElicit;
if (major === 1) {
  ({ Client } = await load("dist/esm/client/index.js"));
  ({ StdioClientTransport } = await load("dist/esm/client/stdio.js"));
  const { ElicitRequestSchema } = await load("dist/esm/types.js");
  onElicit = (client, handle) => client.setRequestHandler(ElicitRequestSchema, handle);
} else {
  ({ Client } = await load("dist/index.mjs"));
  ({ StdioClientTransport } = await load("dist/stdio.mjs"));
  onElicit = (client, handle) => client.setRequestHandler("elicitation/create", handle);
}

const out = (v) => process.stdout.write(JSON.stringify(v) + "\n");
// v1 ignores versionNegotiation; v2 without it stays on the 2025 handshake.
const client = new Client(
  { name: "tandem-test", version: "1" },
  { capabilities: answer ? { elicitation: {} } : {}, versionNegotiation: { mode: "auto" } },
);
if (answer) {
  onElicit(client, async (req) => {
    out({ elicited: req.params.message });
    if (answer === "decline") return { action: "decline" };
    return { action: "accept", content: { answer } };
  });
}
const transport = new StdioClientTransport({ command: tandem, args: ["mcp", "serve"], cwd: workspace, env: process.env, stderr: "inherit" });
// Both SDKs hand a transport the revision they settled on (for HTTP's
// header); stdio has no use for it, so it is only recorded here.
let protocol;
transport.setProtocolVersion = (v) => (protocol = v);
let sent = 0;
const send = transport.send.bind(transport);
transport.send = (msg, opts) => {
  if (msg.method === "tools/call") sent++;
  return send(msg, opts);
};
await client.connect(transport);
const { tools } = await client.listTools();
out({ tools: tools.map((t) => t.name), protocol });

for await (const line of createInterface({ input: process.stdin })) {
  const { tool, args } = JSON.parse(line);
  sent = 0;
  try {
    out({ result: await client.callTool({ name: tool, arguments: args ?? {} }), sent });
  } catch (e) {
    out({ error: String(e?.message ?? e) });
  }
}
await client.close();
