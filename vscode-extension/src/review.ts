// Review before keep: the files a chat turn changed, each hunk with Keep and Undo, in VS Code's
// own diff editor — the text before the turn (served here) against the live document, with a
// CodeLens above each hunk still to review and Keep/Undo for the file in the editor's title.
// tandem lists the hunks and where they stand now (`_tandem/changes`) and does every undo
// (`_tandem/undo`): through the editor's buffer, so VS Code's undo takes it back, and around the
// user's later changes, refusing and naming the lines where they meet (docs/protocol.md).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Backend } from './backend';
import { changedFiles, FileReview, hunkKey, lensLine, pendingHunks, RestoreReply, undoRequest } from './reviewModel';
import type { ToView } from './webviewMessages';

export const beforeScheme = 'tandem-before';
/** The context key listing the paths (uri.path) with hunks to review, for the editor's title. */
const reviewFilesKey = 'tandem.reviewFiles';

export class Review implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider {
  private turn: number | undefined;
  private files: FileReview[] = [];
  /** Hunks the user kept (path#index): reviewed, left as the agent made them. */
  private readonly kept = new Set<string>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly backend: Backend,
    private readonly session: () => string | undefined,
    private readonly post: (m: ToView) => void,
    /** After an undo: the undo is a turn of its own, as a restore is. */
    private readonly undone: (r: RestoreReply) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  register(): vscode.Disposable[] {
    return [
      this.lensesChanged,
      vscode.workspace.registerTextDocumentContentProvider(beforeScheme, this),
      vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this),
      // The user typing in a reviewed file moves its hunks: ask tandem where they stand now.
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (this.file(e.document.uri.fsPath) && e.contentChanges.length > 0) {
          clearTimeout(this.refreshTimer);
          this.refreshTimer = setTimeout(() => void this.refresh(), 300);
        }
      }),
      vscode.commands.registerCommand('tandem.review.open', (p?: string | vscode.Uri) => this.open(this.pathOf(p))),
      vscode.commands.registerCommand('tandem.review.keepHunk', (p: string, i: number) => this.keep(p, [i])),
      vscode.commands.registerCommand('tandem.review.undoHunk', (p: string, i: number) => this.undo(p, [i])),
      vscode.commands.registerCommand('tandem.review.keepFile', (p?: string | vscode.Uri) => this.keep(this.pathOf(p))),
      vscode.commands.registerCommand('tandem.review.undoFile', (p?: string | vscode.Uri) => this.undo(this.pathOf(p))),
      vscode.commands.registerCommand('tandem.review.keepAll', () => this.keepAll()),
      vscode.commands.registerCommand('tandem.review.undoAll', () => this.undoAll()),
    ];
  }

  /** Reviews what turn changed; a turn that changed nothing leaves the review as it was. */
  async show(turn: number): Promise<void> {
    const files = await this.changes(turn);
    if (files.length === 0) {
      return;
    }
    this.turn = turn;
    this.kept.clear();
    this.files = files;
    this.keptByTandem();
    await this.changed();
  }

  /** The hunks tandem lists as kept (a reopened chat's, or kept from the other view). */
  private keptByTandem(): void {
    for (const f of this.files) {
      for (const i of f.kept ?? []) {
        this.kept.add(hunkKey(f.path, i));
      }
    }
  }

  /** Asks tandem again where the reviewed turn's hunks stand (after an undo, a restore, typing). */
  async refresh(): Promise<void> {
    if (this.turn === undefined) {
      return;
    }
    this.files = await this.changes(this.turn);
    this.keptByTandem();
    await this.changed();
  }

  /** A new or reopened chat: nothing to review. */
  clear(): void {
    this.turn = undefined;
    this.files = [];
    this.kept.clear();
    void this.changed();
  }

  /** For tests: the reviewed turn and its files. */
  get state(): { turn?: number; files: FileReview[]; kept: string[] } {
    return { turn: this.turn, files: this.files, kept: [...this.kept] };
  }

  async act(m: { action: 'open' | 'keep' | 'undo' | 'keepAll' | 'undoAll'; path?: string }): Promise<void> {
    switch (m.action) {
      case 'open':
        return this.open(m.path);
      case 'keep':
        return this.keep(m.path);
      case 'undo':
        return this.undo(m.path);
      case 'keepAll':
        return this.keepAll();
      case 'undoAll':
        return this.undoAll();
    }
  }

  private async changes(turn: number): Promise<FileReview[]> {
    const session = this.session();
    if (!session) {
      return [];
    }
    try {
      const c = await this.backend.ready();
      const r = await c.sendRequest<{ files?: FileReview[] }>('_tandem/changes', { sessionId: session, turn });
      return r.files ?? [];
    } catch (e) {
      this.log.warn(`review: changes of turn ${turn}: ${(e as Error).message}`);
      return [];
    }
  }

  private async changed(): Promise<void> {
    const rows = changedFiles(this.files, this.kept, (p) => vscode.workspace.asRelativePath(p, false));
    this.post({ type: 'changes', turn: this.turn ?? -1, files: rows });
    this.lensesChanged.fire();
    await vscode.commands.executeCommand('setContext', reviewFilesKey, rows.map((r) => vscode.Uri.file(r.path).path));
  }

  private file(p: string | undefined): FileReview | undefined {
    return p === undefined ? undefined : this.files.find((f) => f.path === p);
  }

  /** A path from a command's argument: a path, a Uri (the editor's title), else the active editor's. */
  private pathOf(p?: string | vscode.Uri): string | undefined {
    if (typeof p === 'string') {
      return p;
    }
    const uri = p ?? vscode.window.activeTextEditor?.document.uri;
    return uri?.fsPath;
  }

  // --- the diff editor ------------------------------------------------------------------

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.file(uri.fsPath)?.before ?? '';
  }

  private async open(p: string | undefined): Promise<void> {
    const f = this.file(p);
    if (!f || this.turn === undefined) {
      return;
    }
    const before = vscode.Uri.file(f.path).with({ scheme: beforeScheme, query: `turn=${this.turn}` });
    const now = vscode.Uri.file(f.path);
    const name = path.basename(f.path);
    if (f.deleted) {
      await vscode.window.showTextDocument(before, { preview: true });
      return;
    }
    await vscode.commands.executeCommand('vscode.diff', before, now, `${name} (before turn ${this.turn} ↔ now): review`, { preview: false });
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const f = this.file(doc.uri.fsPath);
    if (!f) {
      return [];
    }
    const out: vscode.CodeLens[] = [];
    for (const i of pendingHunks(f, this.kept)) {
      const line = lensLine(f.hunks[i], doc.lineCount);
      if (line === undefined) {
        continue;
      }
      const range = new vscode.Range(line, 0, line, 0);
      out.push(
        new vscode.CodeLens(range, { title: 'Keep', tooltip: "Keep this change of the agent's", command: 'tandem.review.keepHunk', arguments: [f.path, i] }),
        new vscode.CodeLens(range, { title: 'Undo', tooltip: 'Put these lines back as they were before the turn; your later changes stay', command: 'tandem.review.undoHunk', arguments: [f.path, i] }),
      );
    }
    return out;
  }

  // --- keep and undo ----------------------------------------------------------------------

  private async keep(p: string | undefined, hunks?: number[]): Promise<void> {
    const f = this.file(p);
    if (!f) {
      return;
    }
    await this.record(f, hunks ?? pendingHunks(f, this.kept));
    await this.changed();
  }

  private async keepAll(): Promise<void> {
    for (const f of this.files) {
      await this.record(f, pendingHunks(f, this.kept));
    }
    await this.changed();
  }

  /** Marks hunks of f kept, here and in the chat's file (`_tandem/keep`), so a reopened chat shows them kept. */
  private async record(f: FileReview, hunks: number[]): Promise<void> {
    const session = this.session();
    if (hunks.length === 0 || !session || this.turn === undefined) {
      return;
    }
    for (const i of hunks) {
      this.kept.add(hunkKey(f.path, i));
    }
    const c = await this.backend.ready();
    await c.sendRequest('_tandem/keep', { sessionId: session, turn: this.turn, path: f.path, hunks }).then(undefined, (e: Error) => this.log.warn(`review: keep ${f.path}: ${e.message}`));
  }

  private async undo(p: string | undefined, hunks?: number[]): Promise<void> {
    const f = this.file(p);
    const req = f && (hunks ? { path: f.path, hunks } : undoRequest(f, this.kept));
    if (req) {
      await this.send([req]);
    }
  }

  private async undoAll(): Promise<void> {
    const reqs = this.files.flatMap((f) => undoRequest(f, this.kept) ?? []);
    // Nothing kept: the whole turn, as one undo (one turn to restore to take it back).
    await this.send(reqs.length === this.files.length && reqs.every((r) => !r.hunks) ? [{}] : reqs);
  }

  private async send(reqs: { path?: string; hunks?: number[] }[]): Promise<void> {
    const session = this.session();
    if (!session || this.turn === undefined) {
      return;
    }
    const c = await this.backend.ready();
    for (const req of reqs) {
      for (const f of req.path ? this.files.filter((x) => x.path === req.path) : this.files) {
        if (f.before === null) {
          // The undo removes a file the turn created, which tandem does not do under an open
          // editor: its editors are closed first, unless it holds unsaved text.
          await closeClean(vscode.Uri.file(f.path));
        } else if (!f.deleted) {
          // A file that is not open is opened first (not shown), so the undo goes through its
          // buffer and VS Code's undo can take it back, as for an open one.
          await vscode.workspace.openTextDocument(f.path).then(undefined, () => undefined);
        }
      }
      try {
        const r = await c.sendRequest<RestoreReply>('_tandem/undo', { sessionId: session, turn: this.turn, ...req });
        this.undone(r);
        if (r.isError) {
          void vscode.window.showWarningMessage(`tandem: ${r.text.trim()}`);
        }
      } catch (e) {
        void vscode.window.showErrorMessage(`tandem: undo failed: ${(e as Error).message}`);
      }
    }
    await this.refresh();
  }
}

/** Closes the editors of uri (diffs showing it included) unless it has unsaved text, and waits until VS Code closed the document. */
async function closeClean(uri: vscode.Uri): Promise<void> {
  const key = uri.toString();
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
  if (!doc || doc.isDirty) {
    return;
  }
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => (t.input instanceof vscode.TabInputText && t.input.uri.toString() === key) || (t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === key));
  let done!: () => void;
  const closed = new Promise<void>((resolve) => (done = resolve));
  const listener = vscode.workspace.onDidCloseTextDocument((d) => d.uri.toString() === key && done());
  // VS Code may keep a document without editors open for a while: the undo then says so.
  const timer = setTimeout(() => done(), 3000);
  try {
    await vscode.window.tabGroups.close(tabs);
    await closed;
  } finally {
    clearTimeout(timer);
    listener.dispose();
  }
}
