// Drives `TANDEM acp` in WORKSPACE with the official ACP TypeScript SDK's
// client, which checks every message tandem sends against the ACP schema,
// and prints what happened as one JSON object.
// Usage: node acp-client.mjs SDK_ENTRY TANDEM WORKSPACE
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkEntry, tandem, workspace] = process.argv.slice(2);
const acp = await import(pathToFileURL(sdkEntry).href);

const child = spawn(tandem, ["acp"], { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const updates = [];
const asked = [];
let answer = "reject_once";
let onAsked = () => {};
let withdrawn = false;
const app = acp
  .client({ name: "tandem-test" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params.update);
  })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
    asked.push(params);
    onAsked();
    if (answer === "never") {
      // Never answered: only tandem's withdrawal ($/cancel_request) ends it.
      await new Promise((resolve) => signal.addEventListener("abort", resolve));
      withdrawn = true;
      return { outcome: { outcome: "cancelled" } };
    }
    return { outcome: { outcome: "selected", optionId: answer } };
  });

const result = await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const session = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
  const prompt = (text) =>
    ctx.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text }],
    });
  const stops = [];
  stops.push((await prompt('call read {"path":"a.txt"}')).stopReason);
  stops.push((await prompt('call bash {"command":"cat ~/.ssh/x"}')).stopReason);
  answer = "never";
  const wasAsked = new Promise((resolve) => (onAsked = resolve));
  const running = prompt('call bash {"command":"sleep 31.4161 & cat ~/.ssh/x; wait"}');
  await wasAsked;
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
  stops.push((await running).stopReason);
  return { init, session, stops };
});
child.stdin.end();
const exitCode = await exited;

const text = updates
  .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
  .map((u) => u.content.text)
  .join("");
console.log(
  JSON.stringify({
    protocolVersion: result.init.protocolVersion,
    agent: result.init.agentInfo?.name,
    model: result.session.configOptions?.[0]?.currentValue,
    stops: result.stops,
    kinds: [...new Set(updates.map((u) => u.sessionUpdate))].sort(),
    asked: asked.map((a) => a.options.map((o) => o.kind).join(" ")),
    text,
    withdrawn,
    exitCode,
  }),
);
