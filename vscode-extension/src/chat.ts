// The chat: a webview view in tandem's sidebar speaking ACP's session methods over the
// `tandem lsp` connection (docs/protocol.md, "The agent on the editor's connection"). The
// webview (src/webview/) draws; this side owns the session, the turn, the questions asked
// inside tool cards, diffs for "Open Diff"; the setup card's work is src/setup.ts's.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { ApprovalQuestion } from './approval';
import type { InlineQuestion } from './questions';
import { Backend } from './backend';
import { Review } from './review';
import { ReplayedNotice, replayedEntry, RestoreReply, restoreEntry } from './reviewModel';
import { ChatError, classifyError } from './chatErrors';
import { ChatContext, promptBlocks } from './chatContext';
import { chatPanelType, ChatSurfaces, chatViewId } from './chatSurfaces';
import { Setup, SetupRequest } from './setup';
import { ConfigOption, FromView, ignoreUnknown, SessionInfo, SessionUpdate, ToView } from './webviewMessages';

export { chatPanelType, chatViewId };
export const diffScheme = 'tandem-diff';

interface Diff {
  path: string;
  oldText: string;
  newText: string;
}

export class ChatView implements vscode.WebviewViewProvider, vscode.WebviewPanelSerializer, vscode.TextDocumentContentProvider {
  /** The sidebar's view and the editor tab, drawing the same chat. */
  private readonly surfaces: ChatSurfaces;
  private session: string | undefined;
  private creating: Promise<string> | undefined;
  private turn = 0;
  private running = false;
  private lastPrompt: { text: string; context: ChatContext[] } | undefined;
  private config: ConfigOption[] = [];
  private reviewing: Review | undefined;
  private readonly diffs = new Map<string, Diff>();
  /** Questions asked inline, by id: the answer from the card, or undefined once settled. */
  private readonly questions = new Map<string, (answer: string | undefined) => void>();
  /** Open questions' calls for a notification: the user cannot see them in the chat. */
  private readonly unseen = new Map<string, () => void>();
  /** The turns of the prompts a reopened chat replayed (the cut ones are not). */
  private readonly replayedTurns = new Set<number>();
  /** The chats' titles as tandem named them, by session. */
  private readonly titles = new Map<string, string>();
  /** The first run's setup card: provider, key, model. */
  private readonly setup: Setup;

  constructor(
    ctx: vscode.ExtensionContext,
    private readonly backend: Backend,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.setup = new Setup(ctx, () => this.client(), (m) => this.post(m), log);
    this.surfaces = new ChatSurfaces(ctx.extensionUri, (m) => void this.received(m).catch((e: Error) => this.log.error(`chat: ${m.type}: ${e.message}`)));
    this.surfaces.onDidChangeVisibility((visible) => {
      if (!visible) {
        for (const notify of this.unseen.values()) {
          notify();
        }
      }
    });
  }

  // --- the webview -------------------------------------------------------------------

  resolveWebviewView(view: vscode.WebviewView): void {
    this.surfaces.addSidebar(view);
  }

  /** Opens the chat in an editor tab: the same chat as the sidebar's. */
  async openInEditor(): Promise<void> {
    this.surfaces.openInEditor(await this.tabTitle());
  }

  /** The chat's tab, restored by VS Code after a reload: it shows the chat of this window. */
  deserializeWebviewPanel(panel: vscode.WebviewPanel): Thenable<void> {
    this.surfaces.adopt(panel);
    this.retitle();
    return Promise.resolve();
  }

  /** Whether the user can see the chat now (questions are then asked in it). */
  get visible(): boolean {
    return this.surfaces.visible;
  }

  post(m: ToView): void {
    this.surfaces.post(m);
  }

  private async received(m: FromView): Promise<void> {
    switch (m.type) {
      case 'ready': {
        this.post({ type: 'state', running: this.running, config: this.config });
        this.postCommands();
        if (!this.session) {
          void this.ensureSession().catch(() => undefined);
        }
        return;
      }
      case 'prompt':
        return this.prompt(m.text, m.context);
      case 'complete':
        return this.complete(m.text);
      case 'problems':
        return this.attachProblems();
      case 'cancel':
        return this.cancel();
      case 'answer':
        this.questions.get(m.id)?.(m.answer);
        return;
      case 'unseen':
        this.unseen.get(m.id)?.();
        return;
      case 'openDiff':
        return this.openDiff(m.toolCallId, m.index);
      case 'openLocation':
        return this.openLocation(m.path, m.line);
      case 'openLink':
        if (/^https?:\/\//.test(m.url)) {
          await vscode.env.openExternal(vscode.Uri.parse(m.url));
        }
        return;
      case 'copy':
        await vscode.env.clipboard.writeText(m.text);
        return;
      case 'setConfig':
        return this.setConfig(m.configId, m.value);
      case 'restore':
        await this.restore(m.turn, m.around, m.undid);
        return;
      case 'resend':
        return this.resend(m.turn, m.text, m.context, m.restore);
      case 'review':
        return this.review.act(m);
      case 'newChat':
        return this.newChat();
      case 'history':
        return this.history();
      case 'load':
        return this.load(m.sessionId);
      case 'delete':
        return this.deleteChat(m.sessionId);
      case 'showSetup':
        return this.showSetup();
      case 'setup':
        return this.configure(m);
      case 'retry':
        if (this.lastPrompt !== undefined) {
          return this.prompt(this.lastPrompt.text, this.lastPrompt.context);
        }
        return;
      default:
        ignoreUnknown(m);
    }
  }

  /** The review of the last turn that changed files (src/review.ts). */
  get review(): Review {
    return (this.reviewing ??= new Review(this.backend, () => this.session, (m) => this.post(m), (r) => this.undone(r), this.log));
  }

  // --- the backend's side -----------------------------------------------------------

  /** Installs the handlers of the chat's notifications on a (re)started client. */
  register(c: LanguageClient): void {
    c.onNotification('session/update', (p: { sessionId: string; update: SessionUpdate }) => this.update(p));
  }

  /** tandem (re)started: the chat's session belonged to the old process. */
  connected(): void {
    this.setup.connected();
    this.log.info(`chat: tandem started${this.session ? '; the chat goes on in a new session' : ''}`);
    if (this.session) {
      this.session = undefined;
      if (this.running) {
        this.running = false;
        this.post({ type: 'turn', running: false, stopReason: 'backend restarted' });
      }
      this.post({ type: 'notice', text: 'tandem restarted: this chat goes on in a new session (it is kept in History).' });
    }
    if (this.surfaces.ready) {
      void this.ensureSession().catch(() => undefined);
    }
  }

  /** Streamed text not yet posted: chunks that arrive together go to the webview as one. */
  private pending: { kind: string; text: string } | undefined;
  private flushTimer: NodeJS.Timeout | undefined;

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const p = this.pending;
    this.pending = undefined;
    if (p) {
      this.post({ type: 'update', update: { sessionUpdate: p.kind, content: { type: 'text', text: p.text } } });
    }
  }

  /** Each session's commands as tandem last advertised them: after session/new they may come before its answer names the session. */
  private commandLists = new Map<string, SessionUpdate>();

  /** Tells the view the current session's commands, for `/` completion. */
  private postCommands(): void {
    const u = this.session ? this.commandLists.get(this.session) : undefined;
    if (u) {
      this.post({ type: 'update', update: u });
    }
  }

  private update(p: { sessionId: string; update: SessionUpdate }): void {
    if (p.update.sessionUpdate === 'available_commands_update') {
      this.commandLists.set(p.sessionId, p.update);
    }
    if (p.sessionId !== this.session) {
      return;
    }
    const u = p.update;
    const content = u.content as { type?: string; text?: unknown } | undefined;
    if ((u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'agent_thought_chunk') && u._meta === undefined && content?.type === 'text' && typeof content.text === 'string') {
      if (this.pending && this.pending.kind !== u.sessionUpdate) {
        this.flush();
      }
      this.pending ??= { kind: u.sessionUpdate, text: '' };
      this.pending.text += content.text;
      this.flushTimer ??= setTimeout(() => this.flush(), 16);
      return;
    }
    this.flush();
    const notice = (u._meta as { tandem?: Partial<ReplayedNotice> } | undefined)?.tandem;
    if (u.sessionUpdate === 'agent_message_chunk' && typeof notice?.notice === 'string' && typeof notice.text === 'string') {
      const shown = replayedEntry({ notice: notice.notice, text: notice.text, turn: notice.turn });
      if (shown.kind === 'restored') {
        const { failed, ...entry } = shown.entry;
        this.post({ type: 'restored', turn: shown.turn, isError: failed, ...entry });
      } else if (shown.kind === 'rewound') {
        this.post({ type: 'rewound', turn: shown.turn, text: shown.text });
      } else {
        this.post({ type: 'notice', text: shown.text });
      }
      return;
    }
    if (u.sessionUpdate === 'tool_call_update' || u.sessionUpdate === 'tool_call') {
      const content = (u.content ?? []) as { type: string; path?: string; oldText?: string | null; newText?: string }[];
      content.forEach((c, i) => {
        if (c.type === 'diff' && c.path) {
          this.diffs.set(`${String(u.toolCallId)}#${i}`, { path: c.path, oldText: c.oldText ?? '', newText: c.newText ?? '' });
        }
      });
    }
    const turn = (u._meta as { tandem?: { turn?: unknown } } | undefined)?.tandem?.turn;
    if (u.sessionUpdate === 'user_message_chunk' && typeof turn === 'number') {
      this.replayedTurns.add(turn);
    }
    if (u.sessionUpdate === 'config_option_update' && Array.isArray(u.configOptions)) {
      this.config = u.configOptions as ConfigOption[];
    }
    this.post({ type: 'update', update: u });
  }

  private async client(): Promise<LanguageClient> {
    return this.backend.ready();
  }

  private cwd(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  /** The chat's session, opened on first use. */
  private async ensureSession(): Promise<string> {
    if (this.session) {
      return this.session;
    }
    this.creating ??= (async () => {
      try {
        const c = await this.client();
        const open = () => c.sendRequest<{ sessionId: string; configOptions?: ConfigOption[] }>('session/new', { cwd: this.cwd(), mcpServers: [] });
        let r = await open();
        // A new tandem gets the stored keys in its first session; a session opened before
        // them could not reach a model that needs one, so the chat takes a new one.
        if ((await this.setup.handKeys(c, r.sessionId)) && noModel(r.configOptions)) {
          await c.sendRequest('session/close', { sessionId: r.sessionId }).catch(() => undefined);
          r = await open();
        }
        this.session = r.sessionId;
        this.turn = 0;
        this.config = r.configOptions ?? [];
        this.post({ type: 'session', sessionId: r.sessionId, config: this.config });
        this.postCommands();
        if (noModel(this.config)) {
          // No model can be reached: an empty prompt is refused before any turn starts, with
          // the sentence that says what to set, which the setup card shows.
          const why = await c.sendRequest('session/prompt', { sessionId: r.sessionId, prompt: [] }).then(
            () => 'tandem has no model to talk to yet.',
            (e: Error) => e.message,
          );
          void this.setup.show(why);
        } else {
          void this.welcome(r.sessionId);
        }
        return r.sessionId;
      } catch (e) {
        this.showError(classifyError((e as Error).message));
        throw e;
      }
    })().finally(() => {
      this.creating = undefined;
    });
    return this.creating;
  }

  private showError(err: ChatError): void {
    if (err.kind === 'setup') {
      void this.setup.show(err.message);
    } else {
      this.post({ type: 'error', ...err });
    }
  }

  /** Shows the setup card: to choose the provider, paste its key, pick the model. */
  async showSetup(): Promise<void> {
    await this.surfaces.postToFront({ type: 'historyClosed' });
    await this.setup.show('');
  }

  /** Does what the setup card asked; a model set goes to the header, and the chat is ready. */
  private async configure(m: SetupRequest): Promise<void> {
    const session = await this.ensureSession();
    const config = await this.setup.act(m, session);
    if (config) {
      this.config = config;
      this.post({ type: 'config', config });
      void this.welcome(session);
    }
  }

  /** An empty chat: the recent chats to reopen, and things to try. */
  private async welcome(session: string): Promise<void> {
    const r = await this.client()
      .then((c) => c.sendRequest<{ sessions: SessionInfo[] }>('session/list', {}))
      .catch(() => ({ sessions: [] as SessionInfo[] }));
    // Only while the chat is still empty: the user may have sent meanwhile.
    if (this.session === session && !this.running && this.turn === 0) {
      const recent = (r.sessions ?? []).filter((s) => s.sessionId !== session).slice(0, 5);
      this.post({ type: 'welcome', recent });
    }
  }

  /**
   * Sends one prompt; the webview queues the ones typed while a turn runs. replaces: the turn
   * whose prompt this one replaces (edit and resend): tandem cuts the conversation back first.
   */
  async prompt(text: string, context: ChatContext[] = [], replaces?: number): Promise<void> {
    if (!text.trim()) {
      return;
    }
    if (this.running) {
      this.post({ type: 'queue', text, context });
      return;
    }
    this.running = true;
    this.lastPrompt = { text, context };
    const turn = this.turn;
    this.post({ type: 'turn', running: true });
    let session: string;
    try {
      session = await this.ensureSession();
    } catch {
      this.running = false;
      this.post({ type: 'turn', running: false, stopReason: 'error' });
      return;
    }
    this.post({ type: 'user', text, turn, context, replaces });
    let counted = false;
    let actual = turn;
    try {
      const c = await this.client();
      const r = await c.sendRequest<{ stopReason: string; _meta?: { tandem?: { turn?: number } } }>('session/prompt', {
        sessionId: session,
        prompt: promptBlocks(text, context),
        ...(replaces === undefined ? {} : { _meta: { tandem: { replaces } } }),
      });
      counted = true;
      // tandem names the prompt's turn: the count here follows it, through restores and reopens.
      const named = r._meta?.tandem?.turn;
      if (typeof named === 'number' && named !== turn) {
        this.post({ type: 'retagTurn', from: turn, to: named });
        actual = named;
      }
      this.flush();
      this.post({ type: 'turn', running: false, stopReason: r.stopReason });
      this.retitle();
    } catch (e) {
      const err = classifyError((e as Error).message);
      // A turn the agent never started (no model, another turn running) takes no turn number.
      counted = err.kind !== 'setup' && err.kind !== 'busy';
      if (!counted) {
        this.post({ type: 'forgetTurn', turn });
      }
      this.flush();
      this.showError(err);
      this.post({ type: 'turn', running: false, stopReason: 'error' });
    } finally {
      if (counted) {
        this.turn = actual + 1;
        // What the turn changed, to review — a stopped or failed turn's too.
        void this.review.show(actual);
      }
      this.running = false;
    }
  }

  /** Stops the running turn: the agent ends it at once and settles its questions. */
  async cancel(): Promise<void> {
    if (!this.session || !this.running) {
      return;
    }
    const c = await this.client();
    await c.sendNotification('session/cancel', { sessionId: this.session });
  }

  private async setConfig(configId: string, value: string | boolean): Promise<void> {
    try {
      const session = await this.ensureSession();
      const c = await this.client();
      const r = await c.sendRequest<{ configOptions: ConfigOption[] }>('session/set_config_option', { sessionId: session, configId, value });
      this.config = r.configOptions ?? this.config;
      this.post({ type: 'config', config: this.config });
    } catch (e) {
      this.showError(classifyError((e as Error).message));
      this.post({ type: 'config', config: this.config });
    }
  }

  /**
   * Restores the files to before turn (around the user's later changes, when asked); undid: the
   * turn restored is a restore's own, so this undoes that restore. The chat gets an entry saying
   * what it did, with Undo restore and, where files were kept, Restore around my changes.
   */
  private async restore(turn: number, around = false, undid?: number): Promise<RestoreReply | undefined> {
    if (!this.session) {
      return undefined;
    }
    try {
      const c = await this.client();
      const r = await c.sendRequest<RestoreReply>('_tandem/restore', { sessionId: this.session, turn, ...(around ? { aroundLaterChanges: true } : {}) });
      this.turn++; // the restore is a turn of its own
      const { failed, ...entry } = restoreEntry(r, around);
      this.post({ type: 'restored', turn, isError: failed, ...entry, around, undid });
      void this.review.refresh();
      return r;
    } catch (e) {
      this.post({ type: 'restored', turn, text: (e as Error).message, isError: true, offerAround: false, around, undid });
      return undefined;
    }
  }

  /** An undo from the review: a turn of its own, said in the chat with its own Undo. */
  private undone(r: RestoreReply): void {
    this.turn++;
    const e = restoreEntry(r, true);
    this.post({ type: 'restored', turn: -1, text: `Undid from the review: ${e.text}`, isError: e.failed, kept: e.kept, undoTurn: e.undoTurn, offerAround: false });
  }

  /**
   * Sends an earlier prompt again, edited, in its place: tandem cuts the conversation back to
   * just before it (docs/protocol.md, `_meta.tandem.replaces`). With restore (the user's choice
   * in the edit box), the files changed from its turn on are first put back to before it, as a
   * restore the chat shows and can undo. A restore that put nothing back stops here: its entry
   * says why.
   */
  private async resend(turn: number, text: string, context: ChatContext[], restore: boolean): Promise<void> {
    if (this.running || !this.session) {
      this.post({ type: 'notice', text: 'Wait for the turn to end (or stop it), then send the edited message.' });
      return;
    }
    if (restore) {
      const c = await this.client();
      const cps = await c.sendRequest<{ checkpoints: { turn: number }[] }>('_tandem/checkpoints', { sessionId: this.session }).catch(() => ({ checkpoints: [] }));
      if (cps.checkpoints.some((cp) => cp.turn >= turn)) {
        const r = await this.restore(turn);
        if (!r || (r.isError && r.turn === undefined)) {
          return;
        }
      }
    }
    await this.prompt(text, context, turn);
  }

  /** Leaves the current chat (kept in History) and opens a new one. */
  async newChat(): Promise<void> {
    await this.closeCurrent();
    this.post({ type: 'reset' });
    this.surfaces.setTitle('tandem chat');
    await this.ensureSession().catch(() => undefined);
  }

  private async closeCurrent(): Promise<void> {
    const old = this.session;
    if (!old) {
      return;
    }
    if (this.running) {
      await this.cancel();
    }
    this.session = undefined;
    this.running = false;
    this.diffs.clear();
    this.review.clear();
    const c = this.backend.started;
    await c?.sendRequest('session/close', { sessionId: old }).catch(() => undefined);
  }

  private async history(): Promise<void> {
    try {
      const c = await this.client();
      const r = await c.sendRequest<{ sessions: SessionInfo[] }>('session/list', {});
      this.post({ type: 'history', sessions: r.sessions ?? [], current: this.session });
    } catch (e) {
      this.post({ type: 'history', sessions: [], error: (e as Error).message });
    }
  }

  /** Opens a stored chat: its messages replay into the view, and it goes on. */
  private async load(sessionId: string): Promise<void> {
    if (!sessionId || sessionId === this.session) {
      this.post({ type: 'historyClosed' });
      return;
    }
    await this.closeCurrent();
    this.post({ type: 'reset', loading: true });
    const c = await this.client();
    this.session = sessionId;
    this.replayedTurns.clear();
    try {
      const r = await c.sendRequest<{ configOptions?: ConfigOption[] }>('session/load', { sessionId, cwd: this.cwd() });
      // The reopened chat's own model and plan mode, not the previous chat's.
      this.config = r?.configOptions ?? this.config;
      const cps = await c.sendRequest<{ checkpoints: { turn: number }[] }>('_tandem/checkpoints', { sessionId }).catch(() => ({ checkpoints: [] }));
      // A guess until the first prompt's response names its turn (see prompt).
      this.turn = Math.max(0, ...cps.checkpoints.map((cp) => cp.turn + 1));
      this.post({ type: 'session', sessionId, config: this.config, loaded: true });
      this.retitle();
      // The review the live chat showed: the last prompt that changed files, with what was kept.
      const reviewed = Math.max(-1, ...cps.checkpoints.map((cp) => cp.turn).filter((t) => this.replayedTurns.has(t)));
      if (reviewed >= 0) {
        await this.review.show(reviewed);
      }
    } catch (e) {
      this.session = undefined;
      this.showError(classifyError((e as Error).message));
      await this.ensureSession().catch(() => undefined);
    }
  }

  private async deleteChat(sessionId: string): Promise<void> {
    const c = await this.client();
    if (sessionId === this.session) {
      await this.closeCurrent();
      this.post({ type: 'reset' });
    }
    await c.sendRequest('_tandem/deleteSession', { sessionId }).catch((e: Error) => this.log.warn(`delete ${sessionId}: ${e.message}`));
    await this.history();
    if (!this.session) {
      await this.ensureSession().catch(() => undefined);
    }
  }

  // --- questions -----------------------------------------------------------------------

  /** Whether a question belongs in this chat's cards. */
  owns(q: ApprovalQuestion & { toolCall?: string }): boolean {
    return q.session !== undefined && q.session === this.session && this.surfaces.ready;
  }

  /**
   * Asks a question inside its tool card. Resolves with the card's answer, or undefined once
   * settled (another answer won, the turn stopped).
   */
  ask(q: ApprovalQuestion & { toolCall?: string }): InlineQuestion {
    const id = String(q.id);
    let resolve!: (a: string | undefined) => void;
    const answer = new Promise<string | undefined>((r) => (resolve = r));
    this.questions.set(id, resolve);
    let notify!: () => void;
    const unseen = new Promise<void>((r) => (notify = r));
    this.unseen.set(id, notify);
    if (!this.visible) {
      notify();
    }
    this.post({ type: 'ask', id, toolCall: q.toolCall, kind: q.kind, steps: q.steps ?? [], options: q.options });
    return {
      answer: answer.then((a) => {
        this.questions.delete(id);
        this.unseen.delete(id);
        return a === undefined ? undefined : { answer: a };
      }),
      unseen,
      settle: (how: string) => this.settled(id, how),
    };
  }

  settled(id: string, how: string): void {
    this.questions.get(id)?.(undefined);
    this.questions.delete(id);
    this.unseen.delete(id);
    this.post({ type: 'settled', id, settled: how });
  }

  /** The chat's title as tandem named it (its first prompt's words), once it has one. */
  async chatName(sessionId: string | undefined = this.session): Promise<string | undefined> {
    if (!sessionId) {
      return undefined;
    }
    const known = this.titles.get(sessionId);
    if (known) {
      return known;
    }
    const c = this.backend.started;
    const r = await c?.sendRequest<{ sessions: SessionInfo[] }>('session/list', {}).catch(() => undefined);
    const title = r?.sessions?.find((s) => s.sessionId === sessionId)?.title;
    if (title) {
      this.titles.set(sessionId, title);
    }
    return title;
  }

  private async tabTitle(): Promise<string> {
    const name = await this.chatName();
    return name ? `tandem: ${name}` : 'tandem chat';
  }

  /** Names the editor tab after the chat, which its first prompt names. */
  private retitle(): void {
    void this.tabTitle().then((t) => this.surfaces.setTitle(t));
  }

  // --- diffs and locations -------------------------------------------------------------

  provideTextDocumentContent(uri: vscode.Uri): string {
    const q = new URLSearchParams(uri.query);
    const d = this.diffs.get(q.get('key') ?? '');
    return d ? (q.get('side') === 'old' ? d.oldText : d.newText) : '';
  }

  private async openDiff(toolCallId: string, index: number): Promise<void> {
    const key = `${toolCallId}#${index}`;
    const d = this.diffs.get(key);
    if (!d) {
      return;
    }
    const name = path.basename(d.path);
    const side = (s: string) => vscode.Uri.from({ scheme: diffScheme, path: d.path, query: new URLSearchParams({ key, side: s }).toString() });
    await vscode.commands.executeCommand('vscode.diff', side('old'), side('new'), `${name} (before ↔ after the agent's edit)`, { preview: true });
  }

  private async openLocation(p: string, line?: number): Promise<void> {
    const cwd = this.cwd();
    const abs = path.isAbsolute(p) || !cwd ? p : path.join(cwd, p);
    const pos = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
    await vscode.window.showTextDocument(vscode.Uri.file(abs), { selection: new vscode.Range(pos, pos), preview: true });
  }

  // --- context ------------------------------------------------------------------------

  /** Workspace files whose path contains what follows `@`, for the prompt box. */
  private async complete(query: string): Promise<void> {
    const safe = query.replace(/[[\]{}*?!]/g, '');
    const found = await vscode.workspace.findFiles(`**/*${safe}*`, undefined, 200);
    const items = found
      .map((u) => ({ label: vscode.workspace.asRelativePath(u, false), uri: u.toString() }))
      .filter((i) => i.label.toLowerCase().includes(safe.toLowerCase()))
      .sort((a, b) => a.label.length - b.label.length || a.label.localeCompare(b.label))
      .slice(0, 20);
    this.post({ type: 'completions', query, items });
  }

  /** Adds the editor's selection (or its line) with its file and lines to the next message. */
  async askAboutSelection(): Promise<void> {
    const ed = vscode.window.activeTextEditor;
    if (!ed) {
      void vscode.window.showInformationMessage('tandem: open a file and select the lines to ask about.');
      return;
    }
    const sel = ed.selection;
    const first = sel.start.line + 1;
    let last = sel.end.line + 1;
    if (sel.end.line > sel.start.line && sel.end.character === 0) {
      last--; // a selection of whole lines ends at the start of the next
    }
    const rel = vscode.workspace.asRelativePath(ed.document.uri, false);
    const lines = first === last ? `${first}` : `${first}-${last}`;
    const uri = ed.document.uri.with({ fragment: `L${first}-${last}` }).toString();
    await this.surfaces.postToFront({ type: 'addContext', context: { kind: 'selection', label: `${rel}:${lines}`, uri } });
  }

  /** Adds the Problems of the active file to the next message. */
  private async attachProblems(): Promise<void> {
    const ed = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
    if (!ed) {
      this.post({ type: 'notice', text: 'Open a file to attach its problems.' });
      return;
    }
    const rel = vscode.workspace.asRelativePath(ed.document.uri, false);
    const diags = vscode.languages.getDiagnostics(ed.document.uri);
    const names = ['error', 'warning', 'info', 'hint'];
    const text = diags.length
      ? diags.map((d) => `${rel}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${names[d.severity]}: ${d.message}${d.source ? ` (${d.source})` : ''}`).join('\n')
      : `${rel}: no problems reported`;
    this.post({ type: 'addContext', context: { kind: 'problems', label: `Problems: ${rel} (${diags.length})`, uri: `tandem-problems:${rel}`, text } });
    await Promise.resolve();
  }

  /** Restarts tandem. */
  async restartBackend(): Promise<void> {
    await this.backend.restart();
  }

  /** For tests: what the chat holds. */
  get state(): { session?: string; running: boolean; turn: number; model?: unknown; planMode?: unknown; visible: boolean; storedKeys: string[] } {
    return {
      storedKeys: this.setup.storedProviders(),
      visible: this.visible,
      session: this.session,
      running: this.running,
      turn: this.turn,
      model: this.config.find((o) => o.id === 'model')?.currentValue,
      planMode: this.config.find((o) => o.id === 'plan_mode')?.currentValue,
    };
  }
}

/** Whether the session's options say no model can be reached. */
function noModel(config: ConfigOption[] | undefined): boolean {
  const model = config?.find((o) => o.id === 'model');
  return model !== undefined && (model.currentValue === 'none' || model.currentValue === '');
}
