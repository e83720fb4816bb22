import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { BEGIN, END, mergeBlock, WORKING_RULE } from '../../install';

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
