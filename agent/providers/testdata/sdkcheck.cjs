// Streams COUNT responses, one after the other, from a scripted server with
// a provider's official TypeScript SDK and prints what the SDK assembled,
// one JSON line each, in the shape sdk_test.go compares with tandem's own
// client:
//
//   {"text", "thinking": [{"text", "signature"}], "toolCalls": [{"id", "name", "input"}],
//    "stop", "usage": {"input", "output", "cacheRead", "cacheCreate"}}
//
// Stop reasons and usage are mapped to tandem's words the way the Go
// clients map them, so that a difference is a difference in parsing.
//
// One process serves all of a format's cases because loading an SDK takes
// a second or two.
//
// Usage: node sdkcheck.cjs MODULES_DIR anthropic|openai-chat BASE_URL COUNT
"use strict";

const path = require("node:path");
const [modules, format, baseURL, count] = process.argv.slice(2);
const load = (name) => require(path.join(modules, name));

// The scripted server checks no key; the SDKs insist on having one.
const apiKey = "unused";
const request = { model: "scripted-model", max_tokens: 1024, messages: [{ role: "user", content: "hi" }] };

async function anthropic() {
  const { default: Anthropic } = load("@anthropic-ai/sdk");
  const client = new Anthropic({ baseURL, apiKey, maxRetries: 0 });
  return () => anthropicOne(client);
}

async function anthropicOne(client) {
  const msg = await client.messages.stream(request).finalMessage();
  const stops = { stop_sequence: "end_turn", model_context_window_exceeded: "context_window" };
  return {
    text: msg.content.filter((b) => b.type === "text").map((b) => b.text).join(""),
    thinking: msg.content.filter((b) => b.type === "thinking").map((b) => ({ text: b.thinking, signature: b.signature })),
    toolCalls: msg.content.filter((b) => b.type === "tool_use").map((b) => ({ id: b.id, name: b.name, input: b.input })),
    stop: stops[msg.stop_reason] ?? msg.stop_reason,
    usage: {
      input: msg.usage.input_tokens,
      output: msg.usage.output_tokens,
      cacheRead: msg.usage.cache_read_input_tokens ?? 0,
      cacheCreate: msg.usage.cache_creation_input_tokens ?? 0,
    },
  };
}

async function openai() {
  const { default: OpenAI } = load("openai");
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  return () => openaiOne(client);
}

async function openaiOne(client) {
  const stream = client.chat.completions.stream({ ...request, stream_options: { include_usage: true } });
  const completion = await stream.finalChatCompletion();
  const choice = completion.choices[0];
  const calls = choice.message.tool_calls ?? [];
  const stops = { stop: "end_turn", tool_calls: "tool_use", length: "max_tokens", content_filter: "refusal" };
  const cached = completion.usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    text: choice.message.content ?? "",
    thinking: [],
    toolCalls: calls.map((c) => ({ id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) })),
    stop: stops[choice.finish_reason] ?? choice.finish_reason,
    usage: {
      input: completion.usage.prompt_tokens - cached,
      output: completion.usage.completion_tokens,
      cacheRead: cached,
      cacheCreate: 0,
    },
  };
}

async function main() {
  const one = await (format === "anthropic" ? anthropic() : openai());
  for (let i = 0; i < Number(count); i++) {
    process.stdout.write(JSON.stringify(await one()) + "\n");
  }
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + "\n");
  process.exit(1);
});
