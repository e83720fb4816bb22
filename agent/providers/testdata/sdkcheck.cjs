// Streams COUNT responses, one after the other, from a scripted server with
// a provider's official TypeScript SDK and prints what the SDK assembled,
// one JSON line each, in the shape sdk_test.go compares with tandem's own
// client:
//
//   {"text", "thinking": [{"text", "signature"}], "toolCalls": [{"id", "name", "input"}],
//    "stop", "usage": {"input", "output", "cacheRead", "cacheCreate"}}
//
// Stop reasons and usage are mapped to tandem's words the way the Go
// clients map them, so that a difference is a difference in parsing. The
// formats tandem only serves (OpenAI Responses for Codex, Gemini for Gemini
// CLI) are mapped the same way and compared with what the script says.
//
// One process serves all of a format's cases because loading an SDK takes
// a second or two.
//
// Usage: node sdkcheck.cjs MODULES_DIR anthropic|openai-chat|openai-responses|gemini BASE_URL COUNT
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

async function responses() {
  const { default: OpenAI } = load("openai");
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  return () => responsesOne(client);
}

async function responsesOne(client) {
  const response = await client.responses.stream({ model: request.model, input: "hi" }).finalResponse();
  const calls = response.output.filter((o) => o.type === "function_call");
  const incomplete = { max_output_tokens: "max_tokens", content_filter: "refusal" };
  const cached = response.usage.input_tokens_details?.cached_tokens ?? 0;
  return {
    text: response.output_text,
    thinking: response.output
      .filter((o) => o.type === "reasoning")
      .map((o) => ({ text: o.summary.map((s) => s.text).join(""), signature: o.encrypted_content ?? "" })),
    toolCalls: calls.map((c) => ({
      id: c.call_id,
      name: c.name,
      input: JSON.parse(c.arguments),
      ...(c.namespace ? { namespace: c.namespace } : {}),
    })),
    stop:
      response.status === "incomplete"
        ? incomplete[response.incomplete_details.reason] ?? response.incomplete_details.reason
        : calls.length > 0
          ? "tool_use"
          : "end_turn",
    usage: {
      input: response.usage.input_tokens - cached,
      output: response.usage.output_tokens,
      cacheRead: cached,
      cacheCreate: 0,
    },
  };
}

async function gemini() {
  const { GoogleGenAI } = load("@google/genai");
  const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: baseURL } });
  return () => geminiOne(ai);
}

// geminiOne assembles the chunks as a chat client does: text parts joined,
// consecutive thought parts one thought until a part carries its
// signature, each function call whole.
async function geminiOne(ai) {
  const out = { text: "", thinking: [], toolCalls: [] };
  let finish, usage, thought;
  for await (const chunk of await ai.models.generateContentStream({ model: request.model, contents: "hi" })) {
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.thought) {
        if (!thought) {
          thought = { text: "", signature: "" };
          out.thinking.push(thought);
        }
        thought.text += part.text ?? "";
        if (part.thoughtSignature) {
          thought.signature = part.thoughtSignature;
          thought = undefined;
        }
        continue;
      }
      thought = undefined;
      if (part.functionCall) {
        out.toolCalls.push({ id: part.functionCall.id ?? "", name: part.functionCall.name, input: part.functionCall.args });
      } else if (part.text) {
        out.text += part.text;
      }
    }
    finish = candidate?.finishReason ?? finish;
    usage = chunk.usageMetadata ?? usage;
  }
  const stops = { MAX_TOKENS: "max_tokens", SAFETY: "refusal" };
  const cached = usage.cachedContentTokenCount ?? 0;
  out.stop = stops[finish] ?? (finish === "STOP" ? (out.toolCalls.length > 0 ? "tool_use" : "end_turn") : finish);
  out.usage = {
    input: usage.promptTokenCount - cached,
    output: usage.candidatesTokenCount ?? 0,
    cacheRead: cached,
    cacheCreate: 0,
  };
  return out;
}

async function main() {
  const clients = { anthropic, "openai-chat": openai, "openai-responses": responses, gemini };
  const one = await clients[format]();
  for (let i = 0; i < Number(count); i++) {
    process.stdout.write(JSON.stringify(await one()) + "\n");
  }
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + "\n");
  process.exit(1);
});
