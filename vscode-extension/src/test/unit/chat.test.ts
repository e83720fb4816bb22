import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyError, tokens } from '../../chatErrors';
import { lineDiff } from '../../lineDiff';
import { promptBlocks } from '../../chatContext';

test('a missing key or model is the setup card', () => {
  assert.equal(classifyError('provider "replay" needs its API key in the environment variable REPLAY_KEY; set it where tandem is started').kind, 'setup');
  assert.equal(classifyError('no model is set: set agent.model in ~/.config/tandem/config.json').kind, 'setup');
});

test('a refused key is an auth card', () => {
  assert.equal(classifyError('replay refused the API key in REPLAY_KEY; set REPLAY_KEY to a valid key where tandem is started').kind, 'auth');
});

test('a rate limit has a countdown from the wait it names', () => {
  assert.equal(classifyError('replay/any: 429 rate limited (it asks to wait 3m0s before trying again)').retryIn, 180);
  assert.equal(classifyError('replay/any: 429 rate limited (it asks to wait 1m30s before trying again)').retryIn, 90);
  assert.deepEqual(classifyError('replay/any: rate limited (429), retry after 7 s').retryIn, 7);
  assert.equal(classifyError('HTTP 429 Too Many Requests').kind, 'rate');
  assert.equal(classifyError('HTTP 429 Too Many Requests').retryIn, 30);
});

test('network and busy and other', () => {
  assert.equal(classifyError('replay/any: dial tcp 127.0.0.1:9: connect: connection refused').kind, 'network');
  assert.equal(classifyError('a turn of this session is running; wait for it or cancel it, then send the prompt').kind, 'busy');
  assert.equal(classifyError('something else').kind, 'other');
});

test('tokens read as people read them', () => {
  assert.equal(tokens(950), '950');
  assert.equal(tokens(1200), '1.2k');
  assert.equal(tokens(200000), '200k');
  assert.equal(tokens(1500000), '1.5M');
});

test('lineDiff shows changed lines with context and hunk breaks', () => {
  const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') + '\n';
  const after = before.replace('line 2\n', 'line two\n').replace('line 17\n', '');
  const d = lineDiff(before, after);
  const text = d.map((l) => l.op + l.text).join('\n');
  assert.ok(text.includes('-line 2\n+line two'), text);
  assert.ok(text.includes('-line 17'), text);
  assert.ok(d.some((l) => l.op === '@'), 'a hunk break between distant changes');
  assert.ok(!text.includes('line 10'), 'far context is left out');
});

test('lineDiff of a created file is all added', () => {
  assert.deepEqual(lineDiff('', 'a\nb\n'), [
    { op: '+', text: 'a' },
    { op: '+', text: 'b' },
  ]);
});

test('a message carries files and selections as links and problems as text', () => {
  const blocks = promptBlocks('why?', [
    { kind: 'selection', label: 'a.go:3-5', uri: 'file:///w/a.go#L3-5' },
    { kind: 'problems', label: 'Problems: a.go (1)', uri: 'tandem-problems:a.go', text: 'a.go:3:1: error: x' },
  ]);
  assert.deepEqual(blocks, [
    { type: 'text', text: 'why?' },
    { type: 'resource_link', uri: 'file:///w/a.go#L3-5', name: 'a.go:3-5' },
    { type: 'resource', resource: { uri: 'tandem-problems:a.go', mimeType: 'text/plain', text: 'a.go:3:1: error: x' } },
  ]);
});

test('a pasted image is an ACP image block, its bytes in base64', () => {
  const blocks = promptBlocks('what is wrong here?', [{ kind: 'image', label: 'Pasted image 1', uri: 'tandem-image:1', data: 'iVBORw0KGgo=', mimeType: 'image/png' }]);
  assert.deepEqual(blocks, [
    { type: 'text', text: 'what is wrong here?' },
    { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
  ]);
});
