import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { cardStatus } from '../../cardStatus';
import { FollowState } from '../../followState';

test('a card with an open question waits for the user instead of running', () => {
  assert.deepEqual(cardStatus('in_progress', true, false), { text: 'waiting for you', kind: 'waiting' });
  assert.deepEqual(cardStatus('pending', true, false), { text: 'waiting for you', kind: 'waiting' });
  assert.deepEqual(cardStatus('in_progress', false, false), { text: 'running', kind: 'in_progress' });
  // Ended is ended, whatever question the view still shows.
  assert.deepEqual(cardStatus('completed', true, false), { text: 'done', kind: 'completed' });
});

test('a step the user denied is denied, not failed', () => {
  assert.deepEqual(cardStatus('failed', false, true), { text: 'denied', kind: 'denied' });
  assert.deepEqual(cardStatus('failed', false, false), { text: 'failed', kind: 'failed' });
  assert.deepEqual(cardStatus('completed', false, true), { text: 'denied', kind: 'denied' });
  // Still running after the denial (another step to ask): it runs.
  assert.deepEqual(cardStatus('in_progress', false, true), { text: 'running', kind: 'in_progress' });
});

test('the log stops following when the user scrolls up, and a sent prompt follows again', () => {
  const f = new FollowState();
  f.place(1000); // the view kept the end of a log of 1000 px above its fold
  assert.equal(f.scrolled(1000, 1000), false);
  assert.equal(f.following, true);
  assert.equal(f.scrolled(600, 1200), true, 'the user scrolled up');
  assert.equal(f.following, false);
  // Content grows below while the user reads: no scroll of theirs, nothing changes.
  assert.equal(f.scrolled(650, 2000), false);
  assert.equal(f.following, false);
  f.start();
  assert.equal(f.following, true, 'a sent prompt follows again');
  f.place(2000);
  // Back at the end by hand: following again.
  assert.equal(f.scrolled(1500, 2000), true);
  assert.equal(f.scrolled(1990, 2000), false);
  assert.equal(f.following, true);
});

test('content that shrinks under the end is no scroll of the user', () => {
  const f = new FollowState();
  f.place(2000);
  // A re-rendered answer got shorter: the browser clamps the scroll to the new end.
  assert.equal(f.scrolled(1700, 1700), false);
  assert.equal(f.following, true);
});
