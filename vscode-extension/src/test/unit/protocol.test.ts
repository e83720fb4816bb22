import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { argumentTemplate, parseArguments, resultText, summary, tandemExecutable, terminalVariables } from '../../protocol';

test('resultText joins the text parts in order and skips the rest', () => {
  assert.equal(
    resultText({ content: [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }] }),
    'a\nb',
  );
  assert.equal(resultText({ content: [] }), '');
});

test('argumentTemplate prefills every required argument with an empty value of its type', () => {
  const t = argumentTemplate({
    type: 'object',
    properties: { path: { type: 'string' }, skip: { type: 'integer' }, lines: { type: 'string' }, literal: { type: 'boolean' } },
    required: ['path', 'skip', 'literal'],
  });
  assert.deepEqual(JSON.parse(t), { path: '', skip: 0, literal: false });
  assert.equal(argumentTemplate({}), '{}');
  const either = argumentTemplate({ type: 'object', properties: { path: { type: 'string' }, paths: { type: 'array' } } });
  assert.deepEqual(JSON.parse(either), { path: '' }, 'no argument required: the first one');
});

test('parseArguments accepts one object, an empty box, and refuses anything else with the next step', () => {
  assert.deepEqual(parseArguments(' {"path":"a.go"} '), { ok: true, value: { path: 'a.go' } });
  assert.deepEqual(parseArguments(''), { ok: true, value: {} });
  for (const bad of ['[1]', '"x"', 'null', '{path: 1}']) {
    const r = parseArguments(bad);
    assert.equal(r.ok, false, bad);
    if (!r.ok) {
      assert.match(r.error, /such as \{"path": "README.md"\}\.$/);
    }
  }
});

test('terminalVariables keeps string variables, wrapped or not', () => {
  assert.deepEqual(terminalVariables({ env: { A: '1', B: 2 } }), { A: '1' });
  assert.deepEqual(terminalVariables({ A: 'x' }), { A: 'x' });
  assert.deepEqual(terminalVariables(null), {});
});

test('summary is the first line, bounded', () => {
  assert.equal(summary('Read a file.\nMore.'), 'Read a file.');
  assert.equal(summary('x'.repeat(200)).length, 120);
});

test("tandemExecutable: the user's setting, else the bundled binary, else PATH", () => {
  assert.equal(tandemExecutable('/opt/tandem', '/ext/bin/tandem'), '/opt/tandem');
  assert.equal(tandemExecutable(undefined, '/ext/bin/tandem'), '/ext/bin/tandem');
  assert.equal(tandemExecutable('', undefined), 'tandem');
});
