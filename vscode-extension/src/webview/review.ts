// The chat's review and checkpoints: the changes bar (the files the last turn changed, each
// with Review, Keep and Undo, and Keep all / Undo all), a restore's own entry (Undo restore,
// Restore around my changes), and Edit on a sent message. The extension does the work
// (src/review.ts, src/chat.ts); this draws and posts back what the user chose.
import type { ChatContext } from '../chatContext';
import type { FromView, ToViewOf } from '../webviewMessages';

type Send = (m: FromView) => void;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    e.setAttribute(k, v);
  }
  e.append(...kids);
  return e;
}

function button(label: string, onClick: () => void, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = el('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', onClick);
  return b;
}

/** The changes bar, above the prompt box: hidden while there is nothing to review. */
export function changesBar(send: Send): { root: HTMLElement; render: (m: ToViewOf<'changes'>) => void } {
  const root = el('section', { class: 'changes', 'aria-label': 'Changes to review', hidden: '' });
  const render = (m: ToViewOf<'changes'>) => {
    root.replaceChildren();
    root.hidden = m.files.length === 0;
    root.dataset.turn = String(m.turn);
    if (m.files.length === 0) {
      return;
    }
    const hunks = m.files.reduce((n, f) => n + f.pending, 0);
    root.append(
      el(
        'div',
        { class: 'changes-head' },
        el('span', { class: 'title' }, `${m.files.length} file${m.files.length === 1 ? '' : 's'} changed (${hunks} change${hunks === 1 ? '' : 's'} to review)`),
        button('Keep all', () => send({ type: 'review', action: 'keepAll' }), { class: 'secondary keep-all', 'aria-label': 'Keep all changes' }),
        button('Undo all', () => send({ type: 'review', action: 'undoAll' }), { class: 'secondary undo-all', 'aria-label': 'Undo all changes' }),
      ),
    );
    const list = el('ul', { class: 'changes-list', role: 'list' });
    for (const f of m.files) {
      const notes = [f.created ? 'new' : f.deleted ? 'deleted' : '', `${f.pending} to review`, f.undone ? `${f.undone} undone` : '', f.changed ? `${f.changed} changed since` : ''].filter(Boolean).join(', ');
      list.append(
        el(
          'li',
          { class: 'changed-file', 'data-path': f.path },
          button(f.label, () => send({ type: 'review', action: 'open', path: f.path }), { class: 'link review-open', title: `Review ${f.label} in the diff editor` }),
          el('span', { class: 'changed-notes' }, notes),
          button('Keep', () => send({ type: 'review', action: 'keep', path: f.path }), { class: 'link keep', 'aria-label': `Keep ${f.label}` }),
          button('Undo', () => send({ type: 'review', action: 'undo', path: f.path }), { class: 'link undo', 'aria-label': `Undo ${f.label}` }),
        ),
      );
    }
    root.append(list);
  };
  return { root, render };
}

/** A restore's own entry in the chat: what it did, once, and what can follow. */
export function restoreEntryView(m: ToViewOf<'restored'>, send: Send): HTMLElement {
  const what = m.undid !== undefined ? 'Undo restore' : m.around ? 'Restore around your changes' : m.turn >= 0 ? 'Restore' : '';
  const n = el('div', { class: `notice restored${m.isError ? ' failed' : ''}${m.kept ? ' kept' : ''}`, role: 'status', 'data-turn': String(m.turn) });
  n.append(el('span', { class: 'restore-text' }, what ? `${what}: ${m.text}` : m.text));
  const actions = el('span', { class: 'restore-actions' });
  const disable = () => actions.querySelectorAll('button').forEach((b) => (b.disabled = true));
  if (m.undoTurn !== undefined) {
    const undoTurn = m.undoTurn;
    actions.append(
      button(m.turn >= 0 ? 'Undo restore' : 'Undo', () => {
        disable();
        send({ type: 'restore', turn: undoTurn, undid: undoTurn });
      }, { class: 'link undo-restore' }),
    );
  }
  if (m.offerAround) {
    actions.append(
      button('Restore around my changes', () => {
        disable();
        send({ type: 'restore', turn: m.turn, around: true });
      }, { class: 'link restore-around', title: "Undo the agent's changes in the files kept too, where your later changes do not touch them" }),
    );
  }
  n.append(actions);
  return n;
}

/**
 * Edit on a sent message: the text in a box, sent again with a choice — put the files changed
 * since back to before it first (Enter), or send without restoring.
 */
export function editButton(msg: HTMLElement, text: string, context: ChatContext[], send: Send): HTMLButtonElement {
  const edit = button('Edit', () => {
    if (msg.querySelector('.resend')) {
      return;
    }
    const area = el('textarea', { class: 'resend-text', rows: '3', 'aria-label': 'Edit the message' });
    area.value = text;
    const form = el('div', { class: 'resend' }, area, el('div', { class: 'resend-note' }, 'Sent again, it replaces this message: the conversation is cut back to before it. It can first put back the files the agent changed since this message; files you changed since are kept, and the restore can be undone.'));
    const close = () => {
      form.remove();
      edit.hidden = false;
    };
    const go = (restore: boolean) => {
      const t = area.value.trim();
      if (t) {
        close();
        send({ type: 'resend', turn: Number(msg.dataset.turn), text: t, context, restore });
      }
    };
    area.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        go(true);
      } else if (e.key === 'Escape') {
        e.preventDefault();
        close();
      }
    });
    form.append(
      el(
        'div',
        { class: 'question-actions' },
        button('Restore files and send', () => go(true), { class: 'resend-restore' }),
        button('Send without restoring', () => go(false), { class: 'secondary resend-keep' }),
        button('Cancel', close, { class: 'secondary' }),
      ),
    );
    edit.hidden = true;
    msg.append(form);
    area.focus();
  }, { class: 'edit link', title: 'Edit this message and send it again, the files put back to before it first if you choose', 'aria-label': 'Edit and resend' });
  return edit;
}
