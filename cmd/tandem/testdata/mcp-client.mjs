// Drives `TANDEM mcp serve` in WORKSPACE with the official MCP TypeScript
// SDK's client, which checks every result against the MCP schema as it
// parses it. Each line on standard input is one call {"tool", "args"};
// each line on standard output is what came back: {"result"} or {"error"}
// (a protocol error or a result the SDK refused), and {"elicited"} for each
// question tandem asked. With ANSWER (allow, allow_session, deny or
// decline) the client declares elicitation and answers so.
// Usage: node mcp-client.mjs SDK_DIR TANDEM WORKSPACE [ANSWER]
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [sdkDir, tandem, workspace, answer] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(`${sdkDir}/dist/esm/${p}`).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { ElicitRequestSchema } = await load("types.js");

const out = (v) => process.stdout.write(JSON.stringify(v) + "\n");
const client = new Client({ name: "tandem-test", version: "1" }, { capabilities: answer ? { elicitation: {} } : {} });
if (answer) {
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    out({ elicited: req.params.message });
    if (answer === "decline") return { action: "decline" };
    return { action: "accept", content: { answer } };
  });
}
const transport = new StdioClientTransport({ command: tandem, args: ["mcp", "serve"], cwd: workspace, env: process.env, stderr: "inherit" });
await client.connect(transport);
const { tools } = await client.listTools();
out({ tools: tools.map((t) => t.name) });

for await (const line of createInterface({ input: process.stdin })) {
  const { tool, args } = JSON.parse(line);
  try {
    out({ result: await client.callTool({ name: tool, arguments: args ?? {} }) });
  } catch (e) {
    out({ error: String(e?.message ?? e) });
  }
}
await client.close();
