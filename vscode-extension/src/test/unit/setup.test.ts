import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { baseUrl, chatModels, choiceOf, providerSetup, qualifiedModel, setupTrouble } from '../../setupModel';

test('a local server is told with its URL, and its key variable only with a key', () => {
  assert.deepEqual(providerSetup('llamacpp', 'http://127.0.0.1:8080/v1/', false), { name: 'llamacpp', api: 'openai-chat', url: 'http://127.0.0.1:8080/v1' });
  assert.deepEqual(providerSetup('lmstudio', 'http://box:1234', true), { name: 'lmstudio', api: 'openai-chat', url: 'http://box:1234/v1', apiKeyEnv: 'LMSTUDIO_API_KEY' });
  assert.deepEqual(providerSetup('vllm', '', false), { name: 'vllm', api: 'openai-chat', url: 'http://127.0.0.1:8000/v1' });
  assert.deepEqual(providerSetup('llamacpp', 'ftp://x', false), { error: '"ftp://x" is not an http(s) URL; give the server\'s, such as http://127.0.0.1:8080/v1' });
});

test('a built-in is named alone; OpenRouter is a new provider with its key variable', () => {
  assert.deepEqual(providerSetup('anthropic', 'http://ignored', true), { name: 'anthropic' });
  assert.deepEqual(providerSetup('ollama', undefined, false), { name: 'ollama' });
  assert.deepEqual(providerSetup('openrouter', undefined, true), { name: 'openrouter', api: 'openai-chat', url: 'https://openrouter.ai/api/v1', apiKeyEnv: 'OPENROUTER_API_KEY' });
});

test('a base URL keeps its path, and gets /v1 when the user gave only the server', () => {
  assert.deepEqual(baseUrl(' http://127.0.0.1:8080 '), { url: 'http://127.0.0.1:8080/v1' });
  assert.deepEqual(baseUrl('https://gpu.example/openai/v1//'), { url: 'https://gpu.example/openai/v1' });
  assert.ok('error' in baseUrl('localhost 8080'));
});

test("a model is named with its provider, its own slashes kept (OpenRouter's)", () => {
  assert.equal(qualifiedModel('openrouter', ' anthropic/claude-sonnet-4.5 '), 'openrouter/anthropic/claude-sonnet-4.5');
});

test("OpenAI's list is cut to models that chat; others are as listed", () => {
  const list = ['gpt-5', 'text-embedding-3-small', 'whisper-1', 'gpt-4o-realtime-preview', 'dall-e-3', 'gpt-4.1-mini', 'tts-1'].map((id) => ({ id, name: id }));
  assert.deepEqual(chatModels('openai', list).map((m) => m.id), ['gpt-5', 'gpt-4.1-mini']);
  assert.equal(chatModels('openrouter', list).length, list.length);
});

test('what went wrong is said with the field to fix and what to do next', () => {
  const key = setupTrouble('anthropic refused the API key (HTTP 401: invalid x-api-key); paste the right key for anthropic, then list the models again', choiceOf('anthropic'));
  assert.equal(key.fix, 'key');
  assert.match(key.text, /^Anthropic refused the key\. Paste the right key \(from https:\/\/console\.anthropic\.com\/settings\/keys\) and list the models again\.$/);
  const down = setupTrouble('llamacpp did not list its models (dial tcp 127.0.0.1:9: connect: connection refused); check its URL and key, or type the model\'s name', choiceOf('llamacpp'));
  assert.deepEqual(down, { fix: 'url', text: 'Nothing answers at that URL. Start the server (or fix the URL), then list the models again.' });
  assert.match(setupTrouble('ollama did not list its models (dial tcp 127.0.0.1:11434: connect: connection refused)', choiceOf('ollama')).text, /^Nothing answers at http:\/\/127\.0\.0\.1:11434\./);
  assert.match(setupTrouble('openai did not list its models (dial tcp: lookup api.openai.com: no such host)', choiceOf('openai')).text, /^OpenAI could not be reached\./);
  assert.deepEqual(setupTrouble('provider "openai" needs its API key in the environment variable OPENAI_API_KEY; set it where tandem is started', choiceOf('openai')), {
    fix: 'key',
    text: 'Paste your OpenAI API key (from https://platform.openai.com/api-keys), then list the models again.',
  });
  const other = setupTrouble('provider "x" cannot list its models; type the model\'s name', choiceOf('vllm'));
  assert.equal(other.fix, 'model');
  assert.equal(other.text, 'provider "x" cannot list its models. Type the model\'s name (for example default) and use it.');
});
