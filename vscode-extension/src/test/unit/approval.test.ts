import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { AllowSession, approvalAnswer, approvalPrompt, DefaultActions } from '../../approval';

test('approvalPrompt shows the step exactly, its effects, paths and the session', () => {
  const p = approvalPrompt({
    id: 7,
    session: 's1',
    title: 'Run this step?',
    steps: [{ command: "rm -rf $'a\\u202eb'", effects: ['write', 'outside'], paths: [{ path: '/tmp/x', class: 'outside' }] }],
  });
  assert.equal(p.message, "tandem: Run this step? — rm -rf $'a\\u202eb'");
  assert.equal(p.detail, "rm -rf $'a\\u202eb'  [write, outside]\n    /tmp/x (outside)\nsession s1");
  assert.deepEqual(p.actions, ['Allow', 'Deny', 'Allow for this session']);
});

test('approvalPrompt offers the actions tandem sends, else the three defaults', () => {
  assert.deepEqual(approvalPrompt({ id: 1, actions: ['Allow', 'Deny'] }).actions, ['Allow', 'Deny']);
  assert.deepEqual(approvalPrompt({ id: 1, actions: [] }).actions, DefaultActions);
});

test('approvalAnswer passes the click through and a closed notification is never consent', () => {
  assert.deepEqual(approvalAnswer(AllowSession), { answer: 'Allow for this session' });
  assert.notEqual(approvalAnswer(undefined).answer, 'Allow');
});
