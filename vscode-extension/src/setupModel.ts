// The first-run setup's pure part, shared by the extension host (src/setup.ts) and the chat's
// webview (src/webview/setup.ts): the providers a user can choose, what tandem is told about
// each (docs/protocol.md, `_tandem/models`, `_tandem/setKey`, `_tandem/setModel`), and what a
// failed listing means to the user. No node or vscode here: the webview bundles it.
import { classifyError } from './chatErrors';

/** A provider as `_tandem/models`, `_tandem/setKey` and `_tandem/setModel` name it. */
export interface ProviderSetup {
  name: string;
  api?: 'anthropic' | 'openai-chat';
  url?: string;
  apiKeyEnv?: string;
}

/** A model a provider lists. */
export interface Listing {
  id: string;
  name: string;
}

export type ProviderKind = 'anthropic' | 'openai' | 'openrouter' | 'ollama' | 'llamacpp' | 'vllm' | 'lmstudio';

export interface ProviderChoice {
  kind: ProviderKind;
  label: string;
  /** Whether the provider needs a key, takes one if given, or has none. */
  key: 'required' | 'optional' | 'none';
  /** A server the user runs, reached at a URL they give (this one unless they change it). */
  defaultUrl?: string;
  /** Where the user gets a key. */
  keyPage?: string;
  /** The model offered when the provider lists none. */
  example: string;
  /** How tandem is told of it: a built-in by name, or a new provider with its wire, URL and key variable. */
  setup: ProviderSetup;
}

export const providerChoices: readonly ProviderChoice[] = [
  { kind: 'anthropic', label: 'Anthropic', key: 'required', keyPage: 'https://console.anthropic.com/settings/keys', example: 'claude-sonnet-4-5', setup: { name: 'anthropic' } },
  { kind: 'openai', label: 'OpenAI', key: 'required', keyPage: 'https://platform.openai.com/api-keys', example: 'gpt-5', setup: { name: 'openai' } },
  {
    kind: 'openrouter',
    label: 'OpenRouter',
    key: 'required',
    keyPage: 'https://openrouter.ai/settings/keys',
    example: 'anthropic/claude-sonnet-4.5',
    setup: { name: 'openrouter', api: 'openai-chat', url: 'https://openrouter.ai/api/v1', apiKeyEnv: 'OPENROUTER_API_KEY' },
  },
  { kind: 'ollama', label: 'Ollama (running on this machine)', key: 'none', example: 'qwen3-coder', setup: { name: 'ollama' } },
  { kind: 'llamacpp', label: 'llama.cpp server', key: 'optional', defaultUrl: 'http://127.0.0.1:8080/v1', example: 'default', setup: { name: 'llamacpp', api: 'openai-chat', apiKeyEnv: 'LLAMACPP_API_KEY' } },
  { kind: 'vllm', label: 'vLLM', key: 'optional', defaultUrl: 'http://127.0.0.1:8000/v1', example: 'default', setup: { name: 'vllm', api: 'openai-chat', apiKeyEnv: 'VLLM_API_KEY' } },
  { kind: 'lmstudio', label: 'LM Studio', key: 'optional', defaultUrl: 'http://127.0.0.1:1234/v1', example: 'default', setup: { name: 'lmstudio', api: 'openai-chat', apiKeyEnv: 'LMSTUDIO_API_KEY' } },
];

export function choiceOf(kind: ProviderKind): ProviderChoice {
  return providerChoices.find((c) => c.kind === kind)!;
}

/** Where Ollama answers when it runs on this machine (its built-in provider's URL). */
export const ollamaProbeUrl = 'http://127.0.0.1:11434/api/tags';

/**
 * An OpenAI-compatible base URL as the user typed it, made what tandem appends `/models` and
 * `/chat/completions` to: trimmed, without a trailing slash, and with `/v1` when the user gave
 * only the server (http://127.0.0.1:8080), as llama.cpp, vLLM and LM Studio serve it there.
 */
export function baseUrl(typed: string): { url: string } | { error: string } {
  let u: URL;
  try {
    u = new URL(typed.trim());
  } catch {
    return { error: `"${typed.trim()}" is not a URL; give the server's, such as http://127.0.0.1:8080/v1` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return { error: `"${typed.trim()}" is not an http(s) URL; give the server's, such as http://127.0.0.1:8080/v1` };
  }
  const path = u.pathname.replace(/\/+$/, '');
  return { url: `${u.protocol}//${u.host}${path === '' ? '/v1' : path}` };
}

/**
 * What tandem is told about the chosen provider: a server the user runs gets its URL, and
 * its key variable only when the user gave a key (a key-less server sends no Authorization).
 */
export function providerSetup(kind: ProviderKind, url: string | undefined, withKey: boolean): ProviderSetup | { error: string } {
  const c = choiceOf(kind);
  if (c.defaultUrl === undefined) {
    return { ...c.setup };
  }
  const b = baseUrl(url || c.defaultUrl);
  if ('error' in b) {
    return b;
  }
  const s: ProviderSetup = { name: c.setup.name, api: c.setup.api, url: b.url };
  if (withKey) {
    s.apiKeyEnv = c.setup.apiKeyEnv;
  }
  return s;
}

/** The model as agent.model names it: PROVIDER/MODEL (the model's own id may hold slashes). */
export function qualifiedModel(provider: string, model: string): string {
  return `${provider}/${model.trim()}`;
}

// OpenAI lists every model of the account: the ones that cannot chat are left out of the menu.
const notChat = /embed|whisper|tts|dall-e|gpt-image|moderation|davinci|babbage|transcribe|realtime|audio|search|computer-use|codex-mini/i;

/** The models worth offering for a chat, in the order the provider gave them. */
export function chatModels(kind: ProviderKind, list: Listing[]): Listing[] {
  return kind === 'openai' ? list.filter((m) => !notChat.test(m.id)) : list;
}

/** What went wrong in the setup, said to the user with what to do next. */
export interface SetupTrouble {
  /** Which field the user fixes: the key, the URL, or the model's name (typed). */
  fix: 'key' | 'url' | 'model';
  text: string;
}

/** Reads a failed `_tandem/models`, `_tandem/setKey` or `_tandem/setModel`. */
export function setupTrouble(message: string, c: ProviderChoice): SetupTrouble {
  const kind = classifyError(message).kind;
  const where = c.defaultUrl !== undefined ? 'that URL' : 'http://127.0.0.1:11434';
  if (/needs its API key/i.test(message)) {
    // No key pasted, none in tandem's environment.
    return { fix: 'key', text: `Paste your ${c.label} API key${c.keyPage ? ` (from ${c.keyPage})` : ''}, then list the models again.` };
  }
  if (kind === 'auth' || /the key for .* is empty|paste it again/i.test(message)) {
    return { fix: 'key', text: `${c.label} refused the key. Paste the right key${c.keyPage ? ` (from ${c.keyPage})` : ''} and list the models again.` };
  }
  if (kind === 'network') {
    return c.defaultUrl !== undefined || c.kind === 'ollama'
      ? { fix: 'url', text: `Nothing answers at ${where}. Start the server (or fix the URL), then list the models again.` }
      : { fix: 'url', text: `${c.label} could not be reached. Check this machine's connection (or proxy), then list the models again.` };
  }
  if (/not an http|not a URL/i.test(message)) {
    return { fix: 'url', text: message };
  }
  // tandem's sentence ends saying to type the model's name: the card says it once, with an example.
  const why = message.replace(/[.;,]?\s*(or )?type the model's name\.?\s*$/i, '').replace(/[.;]?\s*$/, '');
  return { fix: 'model', text: `${why}. Type the model's name (for example ${c.example}) and use it.` };
}
