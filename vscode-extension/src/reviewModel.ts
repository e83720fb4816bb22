// What the review of a turn and a restore show, worked out from tandem's answers
// (`_tandem/changes`, `_tandem/undo`, `_tandem/restore`; docs/protocol.md). Pure: no vscode,
// so unit tests and the webview can use it. The rule of what an undo keeps lives in tandem
// alone; this only decides what to offer and where.

/** One hunk of a turn's change to a file, as `_tandem/changes` lists it. */
export interface Hunk {
  before: [number, number];
  after: [number, number];
  /** Where it stands in the file now (0-based lines, end excluded), when applied or undone. */
  now?: [number, number];
  state: 'applied' | 'undone' | 'changed';
}

/** One file a turn changed, as `_tandem/changes` lists it. */
export interface FileReview {
  path: string;
  /** What it held before the turn; null: the turn created it. */
  before: string | null;
  deleted?: boolean;
  hunks: Hunk[];
  /** The hunks the user kept (`_tandem/keep`), as tandem keeps them in the chat's file. */
  kept?: number[];
  problem?: string;
}

/** What `_tandem/restore` and `_tandem/undo` answer. */
export interface RestoreReply {
  text: string;
  isError: boolean;
  files: string[];
  code?: string;
  /** The turn the restore was recorded as: restoring it undoes the restore. */
  turn?: number;
}

/** One row of the changes bar. */
export interface ChangedFile {
  path: string;
  label: string;
  /** Hunks still to review: applied, not kept. */
  pending: number;
  undone: number;
  /** Hunks changed since by someone else: neither kept nor undoable here. */
  changed: number;
  created: boolean;
  deleted: boolean;
}

/** The key of a hunk the user kept. */
export const hunkKey = (path: string, index: number): string => `${path}#${index}`;

/** The hunks of a file still to review: applied and not kept. */
export function pendingHunks(f: FileReview, kept: ReadonlySet<string>): number[] {
  return f.hunks.flatMap((h, i) => (h.state === 'applied' && !kept.has(hunkKey(f.path, i)) ? [i] : []));
}

/** The changes bar's rows: every file with a hunk to review or undone. */
export function changedFiles(files: FileReview[], kept: ReadonlySet<string>, label: (path: string) => string): ChangedFile[] {
  return files
    .map((f) => ({
      path: f.path,
      label: label(f.path),
      pending: pendingHunks(f, kept).length,
      undone: f.hunks.filter((h) => h.state === 'undone').length,
      changed: f.hunks.filter((h) => h.state === 'changed').length,
      created: f.before === null,
      deleted: f.deleted === true,
    }))
    .filter((f) => f.pending > 0);
}

/**
 * What undoing a file's pending hunks asks tandem: the whole file when every hunk is pending
 * (so a created file goes and a deleted one comes back), else those hunks.
 */
export function undoRequest(f: FileReview, kept: ReadonlySet<string>): { path: string; hunks?: number[] } | undefined {
  const pending = pendingHunks(f, kept);
  if (pending.length === 0) {
    return undefined;
  }
  return pending.length === f.hunks.length ? { path: f.path } : { path: f.path, hunks: pending };
}

/** The line a hunk's Keep/Undo stand on in the document now (a deletion: where its lines were). */
export function lensLine(h: Hunk, lineCount: number): number | undefined {
  if (h.state !== 'applied' || !h.now) {
    return undefined;
  }
  return Math.max(0, Math.min(h.now[0], lineCount - 1));
}

/** A restore's entry in the chat: what it did, said once, and what can follow it. */
export interface RestoreEntry {
  text: string;
  /** Nothing was done for a reason of its own (not files kept as the user changed them). */
  failed: boolean;
  /** Files were kept as they are, changed since the agent wrote them: the user's work, not a failure. */
  kept: boolean;
  /** Restore this turn to undo the restore. */
  undoTurn?: number;
  /** Files were kept as changed since: restoring around those changes may do more. */
  offerAround: boolean;
}

export function restoreEntry(r: RestoreReply, around: boolean): RestoreEntry {
  const text = r.text.trim();
  const undoTurn = typeof r.turn === 'number' ? r.turn : undefined;
  // tandem names the files it kept ("… and is kept: a.txt", "Kept as they are: a.txt"); a
  // restore that kept every file answers isError, but it did what restore promises.
  const kept = /\bis kept: |^Kept as they are: /m.test(text);
  return {
    // The entry's Undo restore button says what tandem's last sentence does.
    text: undoTurn === undefined ? text : text.replace(/\s*Restore turn \d+ to undo this restore\.$/, ''),
    failed: r.isError && !kept,
    kept,
    undoTurn,
    // tandem's own advice names it when it applies (docs/protocol.md, `_tandem/restore`).
    offerAround: !around && /Restore again around later changes/.test(text),
  };
}

/** A replayed notice of a reopened chat (`_meta.tandem` of an agent_message_chunk): its kind, text and, for a restore, the turn it restored. */
export interface ReplayedNotice {
  notice: string;
  text: string;
  turn?: number;
}

/**
 * How a chat shows a notice as the live chat did: a restore as its own entry (with Undo restore
 * when tandem's text names the turn that undoes it, and Restore around my changes when it offers
 * that), a cut of the conversation (edit and resend) as the cut, a stop as "Stopped.", anything
 * else by its text.
 */
export function replayedEntry(n: ReplayedNotice): { kind: 'restored'; turn: number; entry: RestoreEntry } | { kind: 'rewound'; turn: number; text: string } | { kind: 'notice'; text: string } {
  if (n.notice === 'rewind' && typeof n.turn === 'number') {
    return { kind: 'rewound', turn: n.turn, text: n.text };
  }
  if (n.notice === 'restore') {
    const undo = /Restore turn (\d+) to undo this restore\./.exec(n.text);
    const entry = restoreEntry({ text: n.text, isError: false, files: [], turn: undo ? Number(undo[1]) : undefined }, false);
    return { kind: 'restored', turn: n.turn ?? -1, entry };
  }
  return { kind: 'notice', text: n.notice === 'stopped' ? 'Stopped.' : n.text };
}
