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
  assert.equal(f.following, true);
  f.userScrolledUp();
  assert.equal(f.following, false);
  // Content grows below while the user reads above: still where they put it.
  f.scrolled(600, 2000);
  assert.equal(f.following, false);
  f.start();
  assert.equal(f.following, true, 'a sent prompt follows again');
  f.userScrolledUp();
  // Back at the end by hand: following again.
  f.scrolled(1990, 2000);
  assert.equal(f.following, true);
});

test("a wheel's first small step up is no return to the end", () => {
  const f = new FollowState();
  f.scrolled(1990, 2000);
  f.userScrolledUp();
  // The smooth scroll the wheel started: its first steps are still within reach of the end.
  f.scrolled(1980, 2000);
  assert.equal(f.following, false);
  f.scrolled(1700, 2000);
  assert.equal(f.following, false);
  f.scrolled(1995, 2000);
  assert.equal(f.following, true, 'brought back down to the end by hand, it follows again');
});

test('the log moving by itself is no scroll of the user', () => {
  const f = new FollowState();
  // A card laid out shorter than guessed: the browser clamps the scroll up to the new end,
  // and the event may come once more content made the end lower again.
  f.scrolled(872, 1024);
  assert.equal(f.following, true);
});
