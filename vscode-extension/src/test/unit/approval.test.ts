import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvalAnswer, approvalPrompt } from '../../approval';

test('approvalPrompt shows who asks, each step exactly, its effects and the paths that matter', () => {
  const p = approvalPrompt({
    id: 's1-7',
    session: 's1',
    kind: 'shell',
    steps: [
      {
        text: "cat $'a\\u202eb' ~/.ssh/id_ed25519",
        effects: ['read', 'secret'],
        paths: [
          { path: "a\u202eb", real: '/w/a\u202eb', class: 'inside' },
          { path: '/home/me/.ssh/id_ed25519', real: '/home/me/.ssh/id_ed25519', class: 'secret' },
        ],
      },
      { text: 'tee /dev/null', effects: ['write'], paths: [{ path: '/dev/null', class: 'harmless' }] },
    ],
    options: ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
  });
  assert.equal(
    p.message,
    "tandem: the agent (session s1) asks to run:\n" +
      "cat $'a\\u202eb' ~/.ssh/id_ed25519 — effects: read, secret — secret: /home/me/.ssh/id_ed25519\n" +
      'tee /dev/null — effects: write',
  );
  assert.deepEqual(p.buttons, ['Allow', 'Deny', 'Allow for this session']);
});

test('approvalPrompt offers only the answers tandem accepts', () => {
  assert.deepEqual(approvalPrompt({ id: '1', options: ['allow_once', 'reject_once'] }).buttons, ['Allow', 'Deny']);
  assert.match(approvalPrompt({ id: '1', kind: 'mcp' }).message, /asks to call:$/);
});

test('approvalPrompt names who asks when it is not the agent', () => {
  assert.match(approvalPrompt({ id: '1', session: 's2', who: 'Claude Code' }).message, /^tandem: Claude Code \(session s2\) asks to run:$/);
  assert.match(
    approvalPrompt({ id: '1', session: 'terminal', who: "a command in the editor's terminal", kind: 'mcp' }).message,
    /^tandem: a command in the editor's terminal \(session terminal\) asks to call:$/,
  );
});

test('approvalAnswer maps each button to its answer kind; a closed notification is no answer', () => {
  assert.deepEqual(approvalAnswer('Allow'), { answer: 'allow_once' });
  assert.deepEqual(approvalAnswer('Deny'), { answer: 'reject_once' });
  assert.deepEqual(approvalAnswer('Allow for this session'), { answer: 'allow_always' });
  assert.deepEqual(approvalAnswer(undefined), { answer: null });
  assert.deepEqual(approvalAnswer('allow'), { answer: null });
});

test('approvalPrompt names the chat by its title, not its session id', () => {
  const q = { id: 's1-8', session: 'chat-7f3a', kind: 'shell', steps: [{ text: './deploy.sh' }] };
  const p = approvalPrompt(q, 'Deploy the staging build');
  assert.equal(p.message, 'tandem: the agent in the chat "Deploy the staging build" asks to run:\n./deploy.sh');
  assert.ok(!p.message.includes('chat-7f3a'));
  // A session that is no chat (an MCP client's) is still named by its id.
  assert.ok(approvalPrompt(q).message.startsWith('tandem: the agent (session chat-7f3a) asks to run:'));
});
