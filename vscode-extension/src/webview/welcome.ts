// An empty chat (after a reload, a New chat): the recent chats to reopen, and a few things to
// try, each of which fills the prompt box. It goes as soon as the chat has a message.
import type { FromView, ToViewOf } from '../webviewMessages';
import { button, el } from './dom';

const tries: readonly string[] = [
  'Explain how this project is laid out and where to start reading.',
  'Find the tests of the file I have open and run them.',
  'Review my uncommitted changes (git diff) for bugs.',
];

export function welcome(m: ToViewOf<'welcome'>, send: (m: FromView) => void, fill: (text: string) => void): HTMLElement {
  const root = el('section', { class: 'welcome', 'aria-label': 'Start' });
  if (m.recent.length > 0) {
    const recent = el('ul', { class: 'welcome-recent', 'aria-label': 'Recent chats' });
    for (const s of m.recent) {
      const title = s.title || '(untitled chat)';
      const when = s.updatedAt ? new Date(s.updatedAt).toLocaleString() : '';
      recent.append(el('li', {}, button(title, () => send({ type: 'load', sessionId: s.sessionId }), { class: 'link welcome-open', title: `Open: ${title}` }), el('span', { class: 'when' }, when)));
    }
    root.append(el('h2', {}, 'Recent chats'), recent);
  }
  const ideas = el('ul', { class: 'welcome-tries', 'aria-label': 'Things to try' });
  for (const t of tries) {
    ideas.append(el('li', {}, button(t, () => fill(t), { class: 'link welcome-try' })));
  }
  root.append(
    el('h2', {}, 'Things to try'),
    ideas,
    el('p', { class: 'welcome-tip' }, 'Type @ to attach a file; select code and press Ctrl+Alt+A (⌘⌥A) to ask about it.'),
  );
  return root;
}
