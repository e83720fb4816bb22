// Drives `TANDEM acp` in WORKSPACE with the official ACP TypeScript SDK's
// client as an editor that offers its buffers: fs/read_text_file answers
// an in-memory buffer of a.txt whose second line is unsaved, and
// fs/write_text_file changes that buffer only. The SDK checks every
// message against the ACP schema. Prints what happened as one JSON object.
// Usage: node acp-fs-client.mjs SDK_ENTRY TANDEM WORKSPACE
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkEntry, tandem, workspace] = process.argv.slice(2);
const acp = await import(pathToFileURL(sdkEntry).href);

const child = spawn(tandem, ["acp"], { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const buffers = new Map([[join(workspace, "a.txt"), "one\nTWO unsaved\nthree\n"]]);
const served = [];
const updates = [];
const app = acp
  .client({ name: "tandem-test" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params.update);
  })
  .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
    served.push(`read ${params.path}`);
    return { content: buffers.get(params.path) ?? readFileSync(params.path, "utf8") };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
    served.push(`write ${params.path}`);
    buffers.set(params.path, params.content);
    return {};
  });

await app.connectWith(stream, async (ctx) => {
  await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  });
  const session = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
  await ctx.request(acp.methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: 'call read {"path":"a.txt"}\ncall edit {"files":[{"path":"a.txt","old":"three","new":"3"}]}' }],
  });
});
child.stdin.end();
const exitCode = await exited;

console.log(
  JSON.stringify({
    text: updates
      .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
      .map((u) => u.content.text)
      .join(""),
    served: served.map((s) => s.replace(workspace + "/", "")),
    buffer: buffers.get(join(workspace, "a.txt")),
    exitCode,
  }),
);
