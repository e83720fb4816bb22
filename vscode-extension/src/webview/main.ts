// The chat's webview: draws what the extension posts (src/chat.ts) and posts back what the
// user does. Every piece of text from the model or a tool reaches the DOM as text, except
// markdown, which markdown-it renders with raw HTML disabled (it is escaped) and images off.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import lua from 'highlight.js/lib/languages/lua';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { tasklist } from '@mdit/plugin-tasklist';
import MarkdownIt from 'markdown-it';
import { cardStatus } from '../cardStatus';
import type { ChatContext } from '../chatContext';
import { tokens } from '../chatErrors';
import { lineDiff } from '../lineDiff';
import { changesBar, editButton, restoreEntryView } from './review';
import { ignoreUnknown } from '../webviewMessages';
import { Follow } from './follow';
import { acceptImages, thumbnail } from './images';
import { setupCard, SetupCard } from './setup';
import { welcome } from './welcome';
import type { Completion, ConfigOption, FromView, SessionInfo, SessionUpdate, ToView, ToViewOf } from '../webviewMessages';

interface VsCodeApi {
  postMessage(m: FromView): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();
const send = (m: FromView) => vscode.postMessage(m);

for (const [name, lang] of Object.entries({ bash, c, cpp, css, diff, go, java, javascript, json, lua, markdown, python, rust, sql, typescript, xml, yaml })) {
  hljs.registerLanguage(name, lang);
}

// Raw HTML off: the model's HTML is escaped text. Code blocks are highlighted by highlight.js,
// whose output is the escaped code inside <span class="hljs-…"> elements.
const md: MarkdownIt = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
  highlight: (code, lang) => {
    const language = lang && hljs.getLanguage(lang) ? lang : undefined;
    if (!language) {
      return '';
    }
    try {
      return `<pre class="hljs"><code class="language-${md.utils.escapeHtml(language)}">${hljs.highlight(code, { language, ignoreIllegals: true }).value}</code></pre>`;
    } catch {
      return '';
    }
  },
});
md.disable(['image']);
// GitHub's task lists (- [ ] and - [x]) as checkboxes the user sees but does not tick.
md.use(tasklist, { disabled: true, label: false });

type Json = Record<string, unknown>;

/** A value from a message as text: strings as they are, anything else as JSON. */
function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
}

// --- small DOM helpers ---------------------------------------------------------------------

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') {
      e.className = v;
    } else {
      e.setAttribute(k, v);
    }
  }
  for (const k of kids) {
    e.append(k);
  }
  return e;
}

function button(label: string, onClick: () => void, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = el('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', onClick);
  return b;
}

// --- the layout ----------------------------------------------------------------------------

const app = document.getElementById('app')!;
const header = el('header', { class: 'header', role: 'toolbar', 'aria-label': 'Chat settings' });
const modelSelect = el('select', { id: 'model', 'aria-label': 'Model', title: 'Model' });
const planBox = el('input', { type: 'checkbox', id: 'plan-mode' });
const planLabel = el('label', { for: 'plan-mode', class: 'plan', title: 'Plan mode: only reading runs' }, planBox, ' Plan');
const meter = el('div', { class: 'meter', role: 'meter', 'aria-label': 'Context used', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0' });
const meterBar = el('div', { class: 'meter-bar' });
meter.append(meterBar);
const usageText = el('span', { class: 'usage', 'aria-live': 'off' }, '');
const newChatButton = button('New', () => send({ type: 'newChat' }), { title: 'New chat', 'aria-label': 'New chat', class: 'secondary' });
const historyButton = button('History', () => toggleHistory(), { title: 'Past chats', 'aria-label': 'History', class: 'secondary', 'aria-expanded': 'false' });
header.append(modelSelect, planLabel, meter, usageText, newChatButton, historyButton);

const historyPanel = el('section', { class: 'history', 'aria-label': 'Past chats', hidden: '' });
const historySearch = el('input', { type: 'search', placeholder: 'Search chats', 'aria-label': 'Search chats' });
const historyList = el('ul', { class: 'history-list', role: 'list' });
historyPanel.append(historySearch, historyList);

const log = el('main', { class: 'log', role: 'log', 'aria-label': 'Conversation', 'aria-live': 'off', tabindex: '0' });
const status = el('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
const queueList = el('ul', { class: 'queue', 'aria-label': 'Queued messages', role: 'list' });
const form = el('form', { class: 'composer' });
const box = el('textarea', {
  id: 'prompt',
  rows: '3',
  placeholder: 'Ask tandem… (Enter sends, Shift+Enter for a new line, Escape stops)',
  'aria-label': 'Message to tandem',
});
box.setAttribute('aria-autocomplete', 'list');
box.setAttribute('aria-controls', 'completions');
box.setAttribute('aria-expanded', 'false');
const chips = el('ul', { class: 'chips', 'aria-label': 'Context sent with the message', role: 'list', hidden: '' });
const completionList = el('ul', { id: 'completions', class: 'completions', role: 'listbox', 'aria-label': 'Workspace files', hidden: '' });
const problemsButton = button('Problems', () => send({ type: 'problems' }), { class: 'secondary', title: "Attach the active file's problems", 'aria-label': "Attach the active file's problems" });
const sendButton = el('button', { type: 'submit', class: 'send' }, 'Send');
const stopButton = button('Stop', () => stop(), { class: 'stop', hidden: '', 'aria-label': 'Stop the turn' });
form.append(chips, box, completionList, el('div', { class: 'actions' }, problemsButton, el('span', { class: 'spacer' }), stopButton, sendButton));
const changes = changesBar(send);
app.append(header, historyPanel, log, status, changes.root, queueList, form);

// --- state ---------------------------------------------------------------------------------

let running = false;
let stopping = false;
/** The block text streams into: the last agent message or thought, else none. */
let current: { kind: 'agent' | 'thought'; el: HTMLElement; body: HTMLElement; text: string } | undefined;
const cards = new Map<string, ToolCard>();
/** The questions asked in the log: their element, their card, what stops watching them. */
const questions = new Map<string, { q: HTMLElement; card?: ToolCard; unwatch: () => void }>();
const dirty = new Set<{ body: HTMLElement; text: string; kind: string }>();
let frame = 0;
/** What goes with a message: a file, a selection or problems, shown as chips. */
let contexts: ChatContext[] = [];
const queue: { text: string; context: ChatContext[] }[] = [];
let sessionId: string | undefined;
let historySessions: SessionInfo[] = [];

// --- rendering -----------------------------------------------------------------------------

const follow = new Follow(log);

/** When the next render may start: long messages re-render less often, so typing stays smooth. */
let notBefore = 0;

function schedule(): void {
  if (frame) {
    return;
  }
  const wait = Math.max(0, notBefore - performance.now());
  frame = window.setTimeout(() => {
    requestAnimationFrame(() => {
      frame = 0;
      const t0 = performance.now();
      renderDirty();
      // Rendering takes at most about a fifth of the time while text streams.
      notBefore = performance.now() + 4 * (performance.now() - t0);
    });
  }, wait);
}

/** Draws the streamed text not drawn yet. */
function renderDirty(): void {
  for (const b of dirty) {
    if (b.kind === 'agent') {
      renderMarkdown(b.body, b.text);
    } else {
      b.body.textContent = b.text;
    }
  }
  dirty.clear();
}

function renderMarkdown(target: HTMLElement, text: string): void {
  target.innerHTML = md.render(text);
  // Each code block gets a bar above it with its language and Copy, so nothing covers a line.
  for (const pre of Array.from(target.querySelectorAll('pre'))) {
    const code = pre.textContent ?? '';
    const lang = /(?:^|\s)language-(\S+)/.exec(pre.querySelector('code')?.className ?? '')?.[1] ?? '';
    const copy = button('Copy', () => send({ type: 'copy', text: code }), { class: 'copy secondary', 'aria-label': 'Copy code' });
    const block = el('div', { class: 'code-block' });
    pre.replaceWith(block);
    block.append(el('div', { class: 'code-head' }, el('span', { class: 'lang' }, lang), copy), pre);
  }
}

function append(node: HTMLElement): void {
  log.append(node);
}

function streamText(kind: 'agent' | 'thought', text: string, meta?: Json): void {
  const compacted = (meta?.tandem as Json | undefined)?.compacted;
  if (kind === 'thought' && compacted !== undefined) {
    current = undefined;
    append(el('div', { class: 'notice compacted', role: 'note' }, `Context compacted: ${str(compacted)} earlier messages were summarised. ${text.trim()}`));
    return;
  }
  if (!current || current.kind !== kind) {
    if (kind === 'agent') {
      const body = el('div', { class: 'markdown' });
      const m = el('article', { class: 'msg agent', 'aria-label': 'tandem' }, body);
      current = { kind, el: m, body, text: '' };
    } else {
      const body = el('div', { class: 'thought-text' });
      const d = el('details', { class: 'msg thought' }, el('summary', {}, 'Thinking'), body);
      current = { kind, el: d, body, text: '' };
    }
    append(current.el);
  }
  current.text += text;
  dirty.add(current);
  // dirty holds the block object itself; its text is read when the frame renders.
  schedule();
}

function userMessage(text: string, turn?: number, context: ChatContext[] = []): HTMLElement {
  current = undefined;
  const m = el('article', { class: 'msg user', 'aria-label': 'You' }, el('div', { class: 'user-text' }, text));
  if (context.length) {
    m.append(el('ul', { class: 'chips sent', 'aria-label': 'Context' }, ...context.map((c) => el('li', { class: `chip ${c.kind}`, title: c.uri ?? c.label }, thumbnail(c) ?? '', c.label))));
  }
  if (turn !== undefined) {
    m.dataset.turn = String(turn);
    const r = button('Restore files to before this', () => {
      r.disabled = true;
      send({ type: 'restore', turn: Number(m.dataset.turn) });
    }, { class: 'restore link', title: "Puts back every file the agent changed from this message on; files you changed since are kept" });
    m.append(r, editButton(m, text, context, send));
  }
  append(m);
  return m;
}

/**
 * The conversation was cut back to before turn's prompt (edit and resend): what the model no
 * longer sees leaves the view — from that prompt up to the prompt replacing it — but restores,
 * which stay undoable, as a reopened chat shows it; the cut's notice stands before the new prompt.
 */
function rewound(turn: number, text: string): void {
  current = undefined;
  const replacing = log.querySelector<HTMLElement>(`.msg.user[data-replaces="${turn}"]`);
  const from = log.querySelector<HTMLElement>(`.msg.user[data-turn="${turn}"]:not([data-replaces])`);
  for (let e = from; e && e !== replacing; ) {
    const next = e.nextElementSibling as HTMLElement | null;
    if (!e.matches('.notice.restored')) {
      e.remove();
    }
    e = next;
  }
  const n = el('div', { class: 'notice rewound', role: 'note', 'data-turn': String(turn) }, text);
  if (replacing) {
    replacing.before(n);
  } else {
    append(n);
  }
}

function notice(text: string, cls = ''): HTMLElement {
  current = undefined;
  const n = el('div', { class: `notice ${cls}`, role: 'note' }, text);
  append(n);
  return n;
}

// --- tool cards ----------------------------------------------------------------------------

// Symbols found in the common UI and monospace fonts (no emoji font needed); hidden from
// screen readers, which read the card's title and status.
const kindIcons: Record<string, string> = {
  read: '≡',
  edit: '✎',
  delete: '✗',
  move: '⇄',
  search: '⌕',
  execute: '▶',
  think: '…',
  fetch: '↓',
  other: '⚙',
};

class ToolCard {
  readonly root: HTMLElement;
  private readonly title = el('span', { class: 'title' });
  private readonly status = el('span', { class: 'status' });
  private readonly icon = el('span', { class: 'icon', 'aria-hidden': 'true' });
  private readonly locations = el('div', { class: 'locations' });
  private readonly diffs = el('div', { class: 'diffs' });
  private readonly output = el('details', { class: 'output', hidden: '' });
  private readonly outputText = el('pre', {});
  readonly ask = el('div', { class: 'ask' });
  private acpStatus = 'pending';
  /** The card's questions still open. */
  private readonly waiting = new Set<string>();
  /** The user denied one of its steps. */
  private denied = false;
  /** A task's subagent: its tool calls' cards, open while it works (docs/protocol.md, _meta.tandem.parent). */
  private readonly subagent = el('details', { class: 'subagent', open: '', hidden: '' });
  private readonly subagentSummary = el('summary', {});
  private readonly subagentCards = el('div', { class: 'subagent-cards' });

  constructor(readonly id: string) {
    this.output.append(el('summary', {}, 'Output'), this.outputText);
    this.subagent.append(this.subagentSummary, this.subagentCards);
    this.root = el(
      'section',
      { class: 'card', 'data-tool-call': id, 'aria-label': 'Tool call' },
      el('div', { class: 'card-head' }, this.icon, this.title, this.status),
      this.locations,
      this.diffs,
      this.ask,
      this.subagent,
      this.output,
    );
  }

  /** Holds a card of this task's subagent. */
  nest(child: HTMLElement): void {
    this.subagentCards.append(child);
    this.subagent.hidden = false;
    const n = this.subagentCards.childElementCount;
    this.subagentSummary.textContent = `Subagent: ${n} tool call${n === 1 ? '' : 's'}`;
  }

  update(u: Json): void {
    if (typeof u.kind === 'string') {
      this.icon.textContent = kindIcons[u.kind] ?? kindIcons.other;
      this.root.dataset.kind = u.kind;
    }
    if (typeof u.title === 'string') {
      this.title.textContent = u.title;
      this.root.setAttribute('aria-label', `Tool call: ${u.title}`);
    }
    if (typeof u.status === 'string') {
      this.acpStatus = u.status;
      this.root.dataset.status = u.status;
      this.showStatus();
      if (u.status === 'completed' || u.status === 'failed') {
        this.subagent.open = false; // done: its steps fold away under the answer
      }
    }
    // A reopened chat's answer to a question of this call (docs/protocol.md, session/load).
    const answer = ((u._meta as Json | undefined)?.tandem as Json | undefined)?.answer;
    if (typeof answer === 'string') {
      this.denied ||= !answer.startsWith('allow');
      this.showStatus();
    }
    if (Array.isArray(u.locations)) {
      this.locations.replaceChildren();
      for (const l of u.locations as { path: string; line?: number }[]) {
        // Named as a diff is (locations are absolute paths): the file's name, the path on hover.
        const name = l.path.split('/').pop() ?? l.path;
        const label = l.line ? `${name}:${l.line}` : name;
        this.locations.append(button(label, () => send({ type: 'openLocation', path: l.path, line: l.line }), { class: 'link location', title: `Open ${l.line ? `${l.path}:${l.line}` : l.path}` }));
      }
    }
    if (Array.isArray(u.content)) {
      const texts: string[] = [];
      this.diffs.replaceChildren();
      (u.content as Json[]).forEach((c, i) => {
        if (c.type === 'diff') {
          this.diffs.append(this.diffView(c, i));
        } else if (c.type === 'content') {
          const block = c.content as Json | undefined;
          if (block && typeof block.text === 'string') {
            texts.push(block.text);
          }
        }
      });
      if (texts.length) {
        this.outputText.textContent = texts.join('\n');
        this.output.hidden = false;
      }
    }
  }

  /** A question of this card opened, or settled as how (allow, deny, …). */
  question(id: string, how?: string): void {
    if (how === undefined) {
      this.waiting.add(id);
    } else {
      this.waiting.delete(id);
      this.denied ||= how === 'deny';
    }
    this.showStatus();
  }

  private showStatus(): void {
    const s = cardStatus(this.acpStatus, this.waiting.size > 0, this.denied);
    this.status.textContent = s.text;
    this.status.className = `status ${s.kind}`;
  }

  private diffView(c: Json, index: number): HTMLElement {
    const p = str(c.path);
    const name = p.split('/').pop() ?? p;
    const lines = lineDiff(typeof c.oldText === 'string' ? c.oldText : '', typeof c.newText === 'string' ? c.newText : '');
    const pre = el('pre', { class: 'diff', 'aria-label': `Changes to ${name}` });
    for (const l of lines) {
      const cls = l.op === '+' ? 'add' : l.op === '-' ? 'del' : l.op === '@' ? 'hunk' : 'ctx';
      pre.append(el('span', { class: `line ${cls}` }, `${l.op === '@' ? '' : l.op + ' '}${l.text}\n`));
    }
    return el(
      'div',
      { class: 'diff-item' },
      el('div', { class: 'diff-head' }, el('span', { class: 'path', title: p }, name), button('Open Diff', () => send({ type: 'openDiff', toolCallId: this.id, index }), { class: 'secondary open-diff', 'aria-label': `Open diff of ${name}` })),
      pre,
    );
  }
}

/** The card of a tool call; a subagent's call (parent: its task's call) goes inside the task's card. */
function card(id: string, parent?: string): ToolCard {
  let c = cards.get(id);
  if (!c) {
    c = new ToolCard(id);
    cards.set(id, c);
    const task = parent === undefined ? undefined : cards.get(parent);
    if (task) {
      task.nest(c.root);
    } else {
      current = undefined;
      append(c.root);
    }
  }
  return c;
}

// --- approvals -----------------------------------------------------------------------------

const choices: [string, string][] = [
  ['Allow', 'allow_once'],
  ['Deny', 'reject_once'],
  ['Allow for this session', 'allow_always'],
];

function ask(m: ToViewOf<'ask'>): void {
  const id = m.id;
  const toolCall = m.toolCall;
  // The text before the question is drawn now, so nothing rendered later pushes it down.
  renderDirty();
  const owner = toolCall ? card(toolCall) : undefined;
  const holder = owner ? owner.ask : el('div', { class: 'card ask standalone' });
  if (!owner) {
    append(holder);
  }
  const verb = m.kind === 'document' ? 'access' : m.kind === 'mcp' ? 'call' : 'run';
  const q = el('div', { class: 'question', role: 'group', 'aria-label': `tandem asks to ${verb}`, 'data-question': id });
  q.append(el('div', { class: 'question-title' }, `Allow the agent to ${verb}:`));
  for (const s of m.steps) {
    q.append(el('pre', { class: 'step' }, s.text));
    const notes: string[] = [];
    if (s.effects?.length) {
      notes.push(`effects: ${s.effects.join(', ')}`);
    }
    for (const p of s.paths ?? []) {
      if (p.class && p.class !== 'inside' && p.class !== 'harmless') {
        notes.push(`${p.class}: ${p.real ?? p.path}`);
      }
    }
    if (notes.length) {
      q.append(el('div', { class: 'effects' }, notes.join(' — ')));
    }
  }
  const offered = m.options;
  const row = el('div', { class: 'question-actions' });
  for (const [label, answer] of choices) {
    if (offered && !offered.includes(answer)) {
      continue;
    }
    row.append(
      button(label, () => {
        for (const b of Array.from(row.querySelectorAll('button'))) {
          b.disabled = true;
        }
        send({ type: 'answer', id, answer });
      }, { class: answer.startsWith('reject') ? 'secondary' : '' }),
    );
  }
  q.append(row);
  holder.append(q);
  owner?.question(id);
  status.textContent = `tandem asks to ${verb} ${m.steps.map((s) => s.text).join('; ')}`;
  // Focus stays where the user is (they may be typing: Enter must not answer a question);
  // the status line announces it, and Tab reaches its buttons. Scrolled away, the question
  // also comes as a notification.
  follow.reveal(q);
  const unwatch = follow.watch(row, () => send({ type: 'unseen', id }));
  questions.set(id, { q, card: owner, unwatch });
}

const settledNames: Record<string, string> = {
  allow: 'Allowed once',
  allow_session: 'Allowed for this session',
  deny: 'Denied',
  unanswered: 'Not answered — the step did not run',
  cancelled: 'Withdrawn — the turn stopped',
};

function settle(id: string, how: string): void {
  const asked = questions.get(id);
  if (!asked) {
    return;
  }
  const q = asked.q;
  asked.unwatch();
  follow.release(q);
  asked.card?.question(id, how);
  q.querySelector('.question-actions')?.remove();
  let s = q.querySelector('.settled');
  if (!s) {
    s = el('div', { class: 'settled', role: 'status' });
    q.append(s);
  }
  s.textContent = settledNames[how] ?? `Settled: ${how}`;
  q.dataset.settled = how;
}

// --- turn, queue, errors -------------------------------------------------------------------

function setRunning(on: boolean, stopReason?: string): void {
  running = on;
  stopButton.hidden = !on;
  stopButton.disabled = false;
  sendButton.textContent = on ? 'Queue' : 'Send';
  app.dataset.running = on ? 'true' : 'false';
  if (!on) {
    current = undefined;
    if (stopReason === 'cancelled') {
      notice('Stopped.', 'stopped');
      status.textContent = 'Stopped';
    } else if (stopReason && stopReason !== 'end_turn' && stopReason !== 'error') {
      notice(`The turn ended: ${stopReason.replace(/_/g, ' ')}.`);
    } else if (stopReason === 'end_turn') {
      status.textContent = 'tandem answered';
    }
    const wasStop = stopping || stopReason === 'cancelled';
    stopping = false;
    if (!wasStop && stopReason !== 'error' && queue.length) {
      const next = queue.shift()!;
      renderQueue();
      send({ type: 'prompt', text: next.text, context: next.context });
    }
  }
}

function stop(): void {
  if (!running) {
    return;
  }
  stopping = true;
  stopButton.disabled = true;
  send({ type: 'cancel' });
}

function renderQueue(): void {
  queueList.replaceChildren();
  queue.forEach(({ text, context }, i) => {
    const item = el('li', { class: 'queued', 'aria-label': `Queued message ${i + 1}` });
    const t = el('span', { class: 'queued-text' }, text);
    const edit = button('Edit', () => {
      const area = el('textarea', { 'aria-label': `Edit queued message ${i + 1}`, rows: '2' });
      area.value = queue[i].text;
      const save = () => {
        queue[i].text = area.value.trim() || queue[i].text;
        renderQueue();
      };
      area.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && !e.shiftKey) {
          e.preventDefault();
          save();
        } else if (e.key === 'Escape') {
          renderQueue();
        }
      });
      area.addEventListener('blur', save);
      t.replaceWith(area);
      area.focus();
    }, { class: 'link', 'aria-label': `Edit queued message ${i + 1}` });
    const remove = button('Remove', () => {
      queue.splice(i, 1);
      renderQueue();
    }, { class: 'link', 'aria-label': `Remove queued message ${i + 1}` });
    const sendNow = button('Send', () => {
      if (!running) {
        queue.splice(i, 1);
        renderQueue();
        send({ type: 'prompt', text, context });
      }
    }, { class: 'link send-queued', 'aria-label': `Send queued message ${i + 1}` });
    item.append(el('span', { class: 'queued-label' }, 'Queued:'), t, edit, remove);
    if (!running) {
      item.append(sendNow);
    }
    queueList.append(item);
  });
}

function submit(): void {
  const text = box.value;
  if (!text.trim() && !contexts.some((c) => c.kind === 'image')) {
    return;
  }
  box.value = '';
  const context = contexts;
  contexts = [];
  renderChips();
  closeCompletions();
  if (running) {
    queue.push({ text, context });
    renderQueue();
    status.textContent = 'Queued; it is sent when this turn ends';
    return;
  }
  send({ type: 'prompt', text, context });
}

// --- context: chips, @ completion of workspace files ----------------------------------------

function addContext(c: ChatContext): void {
  if (!contexts.some((x) => x.kind === c.kind && x.uri === c.uri && x.label === c.label)) {
    contexts.push(c);
  }
  renderChips();
  status.textContent = `Added ${c.label}`;
}

function renderChips(): void {
  chips.replaceChildren();
  contexts.forEach((c, i) => {
    chips.append(
      el(
        'li',
        { class: `chip ${c.kind}`, title: c.uri ?? c.label },
        thumbnail(c) ?? '',
        el('span', {}, c.label),
        button('×', () => {
          contexts.splice(i, 1);
          renderChips();
          box.focus();
        }, { class: 'link', 'aria-label': `Remove ${c.label}` }),
      ),
    );
  });
  chips.hidden = contexts.length === 0;
}

/** A command tandem advertised (ACP's available_commands_update), offered for `/` at the start of the prompt. */
interface Command {
  name: string;
  description: string;
  input?: { hint?: string };
}
let commands: Command[] = [];

/** A completion offered: a workspace file for `@`, or a command (its name) for `/`. */
type Choice = Completion & { command?: string };
let completions: Choice[] = [];
let selected = 0;

/** The `/name` being typed at the very start of the prompt, if any: what `/` completes. */
function slashQuery(): string | undefined {
  return /^\/([^\s/]*)$/.exec(box.value.slice(0, box.selectionStart))?.[1];
}

/** Offers the commands whose names start with the `/name` typed; false when none is typed. */
function completeCommand(): boolean {
  const q = slashQuery();
  if (q === undefined || commands.length === 0) {
    return false;
  }
  completions = commands
    .filter((c) => c.name.startsWith(q))
    .map((c) => ({ label: `/${c.name}${c.input?.hint ? ` ${c.input.hint}` : ''} — ${c.description}`, uri: '', command: c.name }));
  selected = 0;
  completionList.setAttribute('aria-label', 'Commands');
  renderCompletions();
  return true;
}

/** The `@word` being typed at the caret, if any. */
function atQuery(): { start: number; query: string } | undefined {
  const upto = box.value.slice(0, box.selectionStart);
  const m = /(^|\s)@([^\s@]*)$/.exec(upto);
  return m ? { start: upto.length - m[2].length - 1, query: m[2] } : undefined;
}

function closeCompletions(): void {
  completions = [];
  completionList.hidden = true;
  box.setAttribute('aria-expanded', 'false');
  box.removeAttribute('aria-activedescendant');
}

function renderCompletions(): void {
  completionList.replaceChildren();
  completions.forEach((c, i) => {
    const o = el('li', { role: 'option', id: `completion-${i}`, 'aria-selected': String(i === selected), class: i === selected ? 'selected' : '' }, c.label);
    o.addEventListener('mousedown', (e) => {
      e.preventDefault();
      accept(i);
    });
    completionList.append(o);
  });
  completionList.hidden = completions.length === 0;
  box.setAttribute('aria-expanded', String(completions.length > 0));
  if (completions.length) {
    box.setAttribute('aria-activedescendant', `completion-${selected}`);
  }
}

function accept(i: number): void {
  const c = completions[i];
  if (c?.command !== undefined) {
    const rest = box.value.slice(box.selectionStart).trimStart();
    box.value = `/${c.command} ${rest}`;
    box.selectionStart = box.selectionEnd = c.command.length + 2;
    closeCompletions();
    return;
  }
  const q = atQuery();
  if (!c || !q) {
    closeCompletions();
    return;
  }
  box.value = box.value.slice(0, q.start) + box.value.slice(box.selectionStart);
  box.selectionStart = box.selectionEnd = q.start;
  addContext({ kind: 'file', label: c.label, uri: c.uri });
  closeCompletions();
}

acceptImages(box, addContext, (s) => {
  status.textContent = s;
});
box.addEventListener('input', () => {
  if (completeCommand()) {
    return;
  }
  const q = atQuery();
  if (q) {
    completionList.setAttribute('aria-label', 'Workspace files');
    send({ type: 'complete', text: q.query });
  } else {
    closeCompletions();
  }
});

form.addEventListener('submit', (e) => {
  e.preventDefault();
  submit();
});
box.addEventListener('keydown', (e) => {
  if (completions.length) {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      selected = (selected + (e.key === 'ArrowDown' ? 1 : completions.length - 1)) % completions.length;
      renderCompletions();
      return;
    }
    if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      accept(selected);
      return;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      closeCompletions();
      return;
    }
  }
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  } else if (e.key === 'Escape' && running) {
    e.preventDefault();
    stop();
  }
});
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && running && document.activeElement !== box) {
    stop();
  }
});

function errorCard(m: ToViewOf<'error'>): void {
  current = undefined;
  const kind = m.kind;
  const titles: Record<string, string> = {
    auth: 'The provider refused the API key',
    rate: 'The provider is rate limiting',
    network: 'The model could not be reached',
    busy: 'A turn is still running',
    other: 'The turn failed',
  };
  const c = el('section', { class: `card error ${kind}`, role: 'alert', 'data-error': kind });
  c.append(el('div', { class: 'card-head' }, el('span', { class: 'title' }, titles[kind] ?? 'Error')), el('div', { class: 'error-text' }, m.message));
  const actions = el('div', { class: 'question-actions' });
  if (kind === 'auth') {
    actions.append(button('Set Up Model', () => send({ type: 'showSetup' })));
  } else if (kind === 'rate') {
    let left = m.retryIn ?? 30;
    const retry = button(`Retry in ${left} s`, () => send({ type: 'retry' }), { class: 'retry' });
    retry.disabled = true;
    const tick = setInterval(() => {
      left--;
      if (left <= 0) {
        clearInterval(tick);
        retry.disabled = false;
        retry.textContent = 'Retry';
      } else {
        retry.textContent = `Retry in ${left} s`;
      }
    }, 1000);
    actions.append(retry);
  } else if (kind === 'network' || kind === 'other') {
    actions.append(button('Retry', () => send({ type: 'retry' }), { class: 'retry' }), button('Set Up Model', () => send({ type: 'showSetup' }), { class: 'secondary' }));
  }
  c.append(actions);
  append(c);
}

/** The setup card shown, if any (src/webview/setup.ts). */
let setup: SetupCard | undefined;

function showSetup(m: ToViewOf<'setup'>): void {
  // Drawn again (a prompt sent while it is open, a new chat): what the user chose and typed
  // stays, until a model is set.
  const draft = setup?.draft();
  log.querySelector('.card.setup')?.remove();
  current = undefined;
  setup = setupCard(m, send, draft);
  append(setup.root);
  setup.root.scrollIntoView({ block: 'nearest' });
}

// --- header --------------------------------------------------------------------------------

function setConfig(options: ConfigOption[]): void {
  const model = options.find((o) => o.id === 'model');
  modelSelect.replaceChildren();
  if (model) {
    const values = (model.options ?? []).slice();
    if (typeof model.currentValue === 'string' && !values.some((v) => v.value === model.currentValue)) {
      values.unshift({ value: model.currentValue, name: model.currentValue });
    }
    for (const v of values) {
      const o = el('option', { value: v.value }, v.name ?? v.value);
      if (v.value === model.currentValue) {
        o.selected = true;
      }
      modelSelect.append(o);
    }
  }
  modelSelect.hidden = !model;
  const plan = options.find((o) => o.id === 'plan_mode');
  planBox.checked = plan?.currentValue === true;
  planLabel.hidden = !plan;
  app.dataset.planMode = planBox.checked ? 'true' : 'false';
}

modelSelect.addEventListener('change', () => send({ type: 'setConfig', configId: 'model', value: modelSelect.value }));
planBox.addEventListener('change', () => {
  app.dataset.planMode = planBox.checked ? 'true' : 'false';
  send({ type: 'setConfig', configId: 'plan_mode', value: planBox.checked });
});

function usage(u: Json): void {
  const used = Number(u.used ?? 0);
  const size = Number(u.size ?? 0);
  const pct = size > 0 ? Math.min(100, Math.round((used / size) * 100)) : 0;
  meterBar.style.width = `${pct}%`;
  meter.setAttribute('aria-valuenow', String(pct));
  meter.className = `meter${pct >= 85 ? ' high' : ''}`;
  const cost = u.cost as { amount?: number; currency?: string } | undefined;
  let text = size > 0 ? `${tokens(used)} / ${tokens(size)}` : `${tokens(used)} tokens`;
  if (cost && typeof cost.amount === 'number') {
    text += ` · ${cost.currency === 'USD' || !cost.currency ? '$' : cost.currency + ' '}${cost.amount.toFixed(cost.amount < 1 ? 4 : 2)}`;
  }
  usageText.textContent = text;
  meter.title = `Context: ${used} of ${size || '?'} tokens (${pct}%)`;
  meter.setAttribute('aria-valuetext', meter.title);
}

// --- history -------------------------------------------------------------------------------

function toggleHistory(open = historyPanel.hidden): void {
  historyPanel.hidden = !open;
  historyButton.setAttribute('aria-expanded', String(open));
  if (open) {
    send({ type: 'history' });
    historySearch.focus();
  }
}

function renderHistory(): void {
  const q = historySearch.value.trim().toLowerCase();
  historyList.replaceChildren();
  const shown = historySessions.filter((s) => !q || (s.title ?? '').toLowerCase().includes(q));
  if (!shown.length) {
    historyList.append(el('li', { class: 'empty' }, q ? 'No chat matches.' : 'No past chats yet.'));
  }
  for (const s of shown) {
    const when = s.updatedAt ? new Date(s.updatedAt).toLocaleString() : '';
    const title = s.title || '(untitled chat)';
    const open = button(title, () => {
      toggleHistory(false);
      send({ type: 'load', sessionId: s.sessionId });
    }, { class: 'link history-open', title: `Open: ${title}` });
    const del = button('Delete', () => send({ type: 'delete', sessionId: s.sessionId }), { class: 'link history-delete', 'aria-label': `Delete chat ${title}` });
    const item = el('li', { class: `history-item${s.sessionId === sessionId ? ' current' : ''}`, 'data-session': s.sessionId }, open, el('span', { class: 'when' }, when), del);
    historyList.append(item);
  }
}
historySearch.addEventListener('input', renderHistory);
historyPanel.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') {
    toggleHistory(false);
    historyButton.focus();
  }
});

// --- messages from the extension -----------------------------------------------------------

function reset(): void {
  log.replaceChildren();
  cards.clear();
  for (const a of questions.values()) {
    a.unwatch();
  }
  questions.clear();
  current = undefined;
  usageText.textContent = '';
  meterBar.style.width = '0%';
}

function onUpdate(u: SessionUpdate): void {
  switch (u.sessionUpdate) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const c = u.content as Json | undefined;
      if (c && typeof c.text === 'string') {
        streamText(u.sessionUpdate === 'agent_message_chunk' ? 'agent' : 'thought', c.text, (u._meta ?? c._meta) as Json | undefined);
      }
      return;
    }
    case 'user_message_chunk': {
      const c = u.content as Json | undefined;
      // A replayed prompt carries its turn, so a reopened chat restores per message too.
      const turn = ((u._meta as Json | undefined)?.tandem as Json | undefined)?.turn;
      if (c && typeof c.text === 'string') {
        userMessage(c.text, typeof turn === 'number' ? turn : undefined);
      } else if (c && c.type === 'image' && typeof c.data === 'string' && typeof c.mimeType === 'string') {
        // A reopened chat's image follows its prompt's text: shown in that message.
        const image: ChatContext = { kind: 'image', label: 'image', data: c.data, mimeType: c.mimeType };
        const last = Array.from(log.querySelectorAll('.msg.user')).pop() ?? userMessage('', typeof turn === 'number' ? turn : undefined);
        last.append(el('ul', { class: 'chips sent', 'aria-label': 'Context' }, el('li', { class: 'chip image' }, thumbnail(image) ?? '')));
      }
      return;
    }
    case 'tool_call':
    case 'tool_call_update': {
      const parent = ((u._meta as Json | undefined)?.tandem as Json | undefined)?.parent;
      card(String(u.toolCallId), typeof parent === 'string' ? parent : undefined).update(u);
      return;
    }
    case 'usage_update':
      usage(u);
      return;
    case 'available_commands_update':
      if (Array.isArray(u.availableCommands)) {
        commands = u.availableCommands as Command[];
      }
      return;
    case 'config_option_update':
      if (Array.isArray(u.configOptions)) {
        setConfig(u.configOptions as ConfigOption[]);
      }
      return;
    case 'plan': {
      current = undefined;
      const list = el('ol', { class: 'plan-entries' });
      for (const e of (u.entries as { content: string; status?: string }[]) ?? []) {
        list.append(el('li', { class: `plan-entry ${e.status ?? ''}` }, e.content));
      }
      append(el('section', { class: 'card plan', 'aria-label': 'Plan' }, el('div', { class: 'card-head' }, el('span', { class: 'title' }, 'Plan')), list));
      return;
    }
  }
}

window.addEventListener('message', (ev: MessageEvent<ToView>) => {
  const m = ev.data;
  switch (m.type) {
    case 'state':
      setRunning(m.running);
      setConfig(m.config ?? []);
      return;
    case 'session':
      sessionId = m.sessionId;
      app.dataset.session = sessionId;
      setConfig(m.config ?? []);
      if ((m.config ?? []).some((o) => o.id === 'model' && o.currentValue !== 'none')) {
        for (const c of Array.from(log.querySelectorAll('.card.setup'))) {
          c.remove();
        }
        setup = undefined;
      }
      if (m.loaded) {
        follow.start();
        log.querySelector('.loading')?.remove();
        status.textContent = 'Chat loaded';
      }
      return;
    case 'config':
      setConfig(m.config ?? []);
      return;
    case 'reset':
      reset();
      if (m.loading) {
        notice('Loading the chat…', 'loading');
      }
      return;
    case 'user': {
      log.querySelector('.welcome')?.remove();
      follow.start();
      const sent = userMessage(m.text, m.turn, m.context ?? []);
      if (m.replaces !== undefined) {
        sent.dataset.replaces = String(m.replaces);
      }
      return;
    }
    case 'rewound':
      rewound(m.turn, m.text);
      return;
    case 'retagTurn': {
      // tandem numbered the prompt otherwise than the view guessed (a restore, a reopened chat).
      const msg = log.querySelector<HTMLElement>(`.msg.user[data-turn="${m.from}"]:last-of-type`);
      if (msg) {
        msg.dataset.turn = String(m.to);
      }
      return;
    }
    case 'forgetTurn':
      log.querySelector(`.msg.user[data-turn="${m.turn}"] .restore`)?.remove();
      return;
    case 'update':
      onUpdate(m.update);
      return;
    case 'turn':
      if (m.running) {
        setRunning(true);
      } else {
        setRunning(false, m.stopReason);
      }
      renderQueue();
      return;
    case 'queue':
      queue.push({ text: m.text, context: m.context ?? [] });
      renderQueue();
      return;
    case 'addContext':
      addContext(m.context);
      box.focus();
      return;
    case 'completions':
      if (atQuery()?.query === m.query) {
        completions = m.items ?? [];
        selected = 0;
        renderCompletions();
      }
      return;
    case 'ask':
      ask(m);
      return;
    case 'settled':
      settle(m.id, m.settled);
      return;
    case 'restored': {
      // A restore is an entry of its own, at the end of the chat, saying once what it did.
      current = undefined;
      const n = restoreEntryView(m, send);
      append(n);
      n.scrollIntoView({ block: 'nearest' });
      const b = log.querySelector<HTMLButtonElement>(`.msg.user[data-turn="${m.turn}"] .restore`);
      if (b) {
        b.disabled = false;
      }
      return;
    }
    case 'changes':
      changes.render(m);
      return;
    case 'history':
      historySessions = m.sessions ?? [];
      renderHistory();
      return;
    case 'historyClosed':
      toggleHistory(false);
      return;
    case 'setup':
      showSetup(m);
      return;
    case 'setupModels':
      setup?.models(m);
      return;
    case 'setupError':
      setup?.error(m);
      return;
    case 'setupDone':
      setup?.root.remove();
      setup = undefined;
      notice(`Using ${m.model}: saved as agent.model in your tandem settings; the key stays in VS Code's secret storage.`, 'setup-done');
      box.focus();
      return;
    case 'welcome':
      log.querySelector('.welcome')?.remove();
      if (log.querySelector('.msg')) {
        return; // the chat is no longer empty
      }
      append(
        welcome(m, send, (text) => {
          box.value = text;
          box.focus();
        }),
      );
      return;
    case 'error':
      errorCard(m);
      return;
    case 'notice':
      notice(m.text);
      return;
    default:
      ignoreUnknown(m);
  }
});

// Links in rendered markdown open outside the webview, through the extension.
log.addEventListener('click', (e) => {
  const a = (e.target as HTMLElement).closest('a');
  if (a) {
    e.preventDefault();
    send({ type: 'openLink', url: a.getAttribute('href') ?? '' });
  }
});

send({ type: 'ready' });
box.focus();
