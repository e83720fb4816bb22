import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { BEGIN, END, mergeBlock, mergeJson, plan, Targets, WORKING_RULE } from '../../install';

const entry = { command: 'tandem', args: ['mcp', 'serve'] };

test('mergeJson adds tandem under its own key and keeps every other server and key', () => {
  const before = '{"mcpServers": {"other": {"command": "x", "env": {"TOKEN": "${env:T}"}}}, "extra": [1, {}]}';
  const r = mergeJson(before, 'mcpServers', entry);
  assert.equal(r.status, 'write');
  if (r.status === 'write') {
    assert.deepEqual(JSON.parse(r.text), {
      mcpServers: { other: { command: 'x', env: { TOKEN: '${env:T}' } }, tandem: entry },
      extra: [1, {}],
    });
    assert.deepEqual(Object.keys((JSON.parse(r.text) as { mcpServers: object }).mcpServers), ['other', 'tandem']);
    assert.ok(r.text.endsWith('}\n'));
    // Idempotent: installing again changes nothing.
    assert.deepEqual(mergeJson(r.text, 'mcpServers', entry), { status: 'unchanged' });
  }
});

test('mergeJson creates a missing file and replaces a stale tandem entry', () => {
  const created = mergeJson(undefined, 'servers', entry);
  assert.deepEqual(created, { status: 'write', text: JSON.stringify({ servers: { tandem: entry } }, null, 2) + '\n' });
  const stale = mergeJson('{"servers": {"tandem": {"command": "/old/tandem"}}}', 'servers', entry);
  assert.equal(stale.status, 'write');
  if (stale.status === 'write') {
    assert.deepEqual(JSON.parse(stale.text), { servers: { tandem: entry } });
  }
});

test('mergeJson refuses what is not valid JSON, not an object, or has a non-object container', () => {
  for (const bad of ['{"mcpServers": {', '// comment\n{}', '[]', '{"mcpServers": []}', '{"mcpServers": "x"}']) {
    const r = mergeJson(bad, 'mcpServers', entry);
    assert.equal(r.status, 'refused', bad);
    if (r.status === 'refused') {
      assert.match(r.reason, /then install again$/);
    }
  }
});

test('mergeBlock appends the rule once, replaces it between the markers, keeps the rest', () => {
  const first = mergeBlock('# Project\n\nOur rules.\n', WORKING_RULE);
  assert.deepEqual(first, { status: 'write', text: '# Project\n\nOur rules.\n\n' + WORKING_RULE });
  if (first.status === 'write') {
    assert.deepEqual(mergeBlock(first.text, WORKING_RULE), { status: 'unchanged' });
    const old = first.text.replace(WORKING_RULE, `${BEGIN}\nold rule\n${END}\n`) + 'After.\n';
    assert.deepEqual(mergeBlock(old, WORKING_RULE), { status: 'write', text: first.text + 'After.\n' });
  }
  assert.deepEqual(mergeBlock(undefined, WORKING_RULE), { status: 'write', text: WORKING_RULE });
});

test('mergeBlock refuses broken markers instead of guessing', () => {
  for (const bad of [`${BEGIN}\nx\n`, `${END}\n${BEGIN}\n`, `${BEGIN}${END}${BEGIN}${END}`]) {
    assert.equal(mergeBlock(bad, WORKING_RULE).status, 'refused', bad);
  }
});

test('nothing an install writes holds a token or a secret', () => {
  for (const t of Targets) {
    const r = plan(t, undefined);
    assert.equal(r.status, 'write');
    if (r.status === 'write') {
      assert.doesNotMatch(r.text, /token|secret|password|api[_-]?key/i, t.file);
    }
  }
});
