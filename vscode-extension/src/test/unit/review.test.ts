import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { changedFiles, FileReview, hunkKey, lensLine, pendingHunks, replayedEntry, restoreEntry, undoRequest } from '../../reviewModel';

const file = (path: string, states: ('applied' | 'undone' | 'changed')[], before: string | null = 'x\n'): FileReview => ({
  path,
  before,
  hunks: states.map((state, i) => ({ before: [i * 3, i * 3 + 1], after: [i * 3, i * 3 + 1], now: state === 'changed' ? undefined : [i * 3 + 1, i * 3 + 2], state })),
});

test('a hunk is to review while applied and not kept', () => {
  const f = file('/w/a.ts', ['applied', 'undone', 'changed', 'applied']);
  assert.deepEqual(pendingHunks(f, new Set()), [0, 3]);
  assert.deepEqual(pendingHunks(f, new Set([hunkKey('/w/a.ts', 3)])), [0]);
});

test('the bar lists files with something to review, counting each state', () => {
  const files = [file('/w/a.ts', ['applied', 'undone', 'changed']), file('/w/b.ts', ['undone']), file('/w/new.ts', ['applied'], null)];
  const rows = changedFiles(files, new Set(), (p) => p.slice(3));
  assert.deepEqual(
    rows.map((r) => [r.label, r.pending, r.undone, r.changed, r.created]),
    [
      ['a.ts', 1, 1, 1, false],
      ['new.ts', 1, 0, 0, true],
    ],
  );
  assert.deepEqual(changedFiles(files, new Set([hunkKey('/w/a.ts', 0), hunkKey('/w/new.ts', 0)]), (p) => p), []);
});

test('undoing a file asks for the whole file only when every hunk is to review', () => {
  assert.deepEqual(undoRequest(file('/w/a.ts', ['applied', 'applied']), new Set()), { path: '/w/a.ts' });
  assert.deepEqual(undoRequest(file('/w/a.ts', ['applied', 'applied']), new Set([hunkKey('/w/a.ts', 0)])), { path: '/w/a.ts', hunks: [1] });
  assert.deepEqual(undoRequest(file('/w/a.ts', ['undone', 'applied']), new Set()), { path: '/w/a.ts', hunks: [1] });
  assert.equal(undoRequest(file('/w/a.ts', ['undone']), new Set()), undefined);
});

test("a hunk's actions stand on its first line now, inside the document", () => {
  assert.equal(lensLine({ before: [1, 2], after: [1, 2], now: [4, 5], state: 'applied' }, 10), 4);
  assert.equal(lensLine({ before: [1, 2], after: [1, 1], now: [9, 9], state: 'applied' }, 9), 8, 'a deletion at the end');
  assert.equal(lensLine({ before: [1, 2], after: [1, 2], now: [4, 5], state: 'undone' }, 10), undefined);
  assert.equal(lensLine({ before: [1, 2], after: [1, 2], state: 'changed' }, 10), undefined);
});

test('a restore says once what it did and offers its undo', () => {
  const e = restoreEntry({ text: 'Restored chat.md.\nRestore turn 3 to undo this restore.\n', isError: false, files: ['/w/chat.md'], turn: 3 }, false);
  assert.equal(e.text, 'Restored chat.md.', 'the Undo restore button says what the last sentence did');
  assert.equal(e.text.match(/Restored chat\.md/g)?.length, 1);
  assert.equal(e.undoTurn, 3);
  assert.equal(e.offerAround, false);
});

test('a restore that kept a changed file offers to restore around it, once', () => {
  const kept = {
    text: "Nothing was restored: every file the agent changed from that turn on was changed since, and is kept: chat.md (changed since the agent wrote it). Restore again around later changes to undo the agent's changes in the files kept as changed, where the later changes do not touch them.",
    isError: true,
    files: [],
    code: 'conflict',
  };
  const e = restoreEntry(kept, false);
  assert.equal(e.offerAround, true);
  assert.equal(e.kept, true, 'the file kept is named as kept');
  assert.equal(e.failed, false, 'a restore that kept the user\'s file did what restore promises: not a failure');
  const partly = restoreEntry({ text: 'Restored a.md.\nKept as they are: chat.md (changed since the agent wrote it).\nRestore turn 4 to undo this restore.\n', isError: false, files: ['/w/a.md'], turn: 4 }, false);
  assert.equal(partly.kept, true);
  const raced = restoreEntry({ text: 'Nothing was restored: chat.md changed while the restore ran. Restore again to skip it.', isError: true, files: [], code: 'conflict' }, false);
  assert.equal(raced.failed, true, 'a restore that did nothing for another reason is a failure');
  assert.equal(raced.kept, false);
  assert.equal(e.undoTurn, undefined);
  assert.equal(restoreEntry(kept, true).offerAround, false, 'not again after restoring around');
  assert.equal(restoreEntry({ text: 'Nothing changed: already as before that turn: chat.md.\n', isError: false, files: [] }, false).undoTurn, undefined);
});

test('a reopened chat shows a restore as its entry, with what undoes it, and a stop as Stopped', () => {
  const r = replayedEntry({ notice: 'restore', turn: 2, text: 'Restored a.txt to before turn 2.\nRestore turn 5 to undo this restore.' });
  assert.deepEqual(r, { kind: 'restored', turn: 2, entry: { text: 'Restored a.txt to before turn 2.', failed: false, kept: false, undoTurn: 5, offerAround: false } });
  const kept = replayedEntry({ notice: 'restore', turn: 0, text: 'Kept b.txt: you changed it since. Restore again around later changes to undo the rest.' });
  assert.equal(kept.kind === 'restored' && kept.entry.offerAround, true);
  assert.deepEqual(replayedEntry({ notice: 'stopped', text: 'Stopped.' }), { kind: 'notice', text: 'Stopped.' });
  assert.deepEqual(replayedEntry({ notice: 'rewind', turn: 1, text: 'Cut back to before "x".' }), { kind: 'rewound', turn: 1, text: 'Cut back to before "x".' });
  assert.deepEqual(replayedEntry({ notice: 'cut', text: 'The turn was cut: the connection dropped' }), { kind: 'notice', text: 'The turn was cut: the connection dropped' });
});
