// The setup card: the chat's first run without editing JSON. The user chooses a provider
// (Ollama only when it answers on this machine), pastes its key (kept in VS Code's secret
// storage by the extension, src/setup.ts) or gives a local server's URL, picks a model from
// the provider's list (or types one), and the chat uses it at once. What fails is said in the
// card beside the field to fix.
import { choiceOf, Listing, ProviderKind, providerChoices } from '../setupModel';
import type { FromView, ToViewOf } from '../webviewMessages';
import { button, el } from './dom';

type Send = (m: FromView) => void;

export interface SetupCard {
  root: HTMLElement;
  models(m: ToViewOf<'setupModels'>): void;
  error(m: ToViewOf<'setupError'>): void;
  /** What the user has chosen and typed so far, for a card drawn in this one's place. */
  draft(): SetupDraft;
}

/**
 * A card's fields, carried to the card that replaces it (a prompt sent while it is open, Set Up
 * Model again): kept only in the webview's memory, as the key never goes to settings or logs.
 */
export interface SetupDraft {
  kind: ProviderKind;
  url: string;
  key: string;
  /** The listed models, if listed, and the one picked or typed. */
  models?: Listing[];
  model: string;
  typed: boolean;
}

export function setupCard(m: ToViewOf<'setup'>, send: Send, draft?: SetupDraft): SetupCard {
  const root = el('section', { class: 'card setup', role: 'region', 'aria-label': 'Set up a model' });
  const kinds = providerChoices.filter((c) => c.kind !== 'ollama' || m.ollama);
  const kept = kinds.some((c) => c.kind === draft?.kind) ? draft : undefined;
  let kind: ProviderKind = kept?.kind ?? (m.ollama ? 'ollama' : 'anthropic');
  let listed: Listing[] | undefined;

  const radios = el('fieldset', { class: 'setup-providers' }, el('legend', {}, 'Provider'));
  for (const c of kinds) {
    const input = el('input', { type: 'radio', name: 'setup-provider', value: c.kind, id: `setup-${c.kind}` });
    input.checked = c.kind === kind;
    input.addEventListener('change', () => choose(c.kind));
    radios.append(el('label', { for: `setup-${c.kind}`, class: 'setup-provider' }, input, ` ${c.label}`));
  }

  const urlBox = el('input', { type: 'url', id: 'setup-url', spellcheck: 'false' });
  const urlRow = el('div', { class: 'setup-field' }, el('label', { for: 'setup-url' }, 'Server URL (OpenAI-compatible)'), urlBox);
  const keyBox = el('input', { type: 'password', id: 'setup-key', autocomplete: 'off', spellcheck: 'false' });
  const keyLabel = el('label', { for: 'setup-key' }, 'API key');
  const keyHelp = el('div', { class: 'setup-help' });
  const keyRow = el('div', { class: 'setup-field' }, keyLabel, keyBox, keyHelp);
  const list = button('List models', () => ask('models'), { class: 'setup-list' });

  const modelSelect = el('select', { id: 'setup-model', 'aria-label': 'Model' });
  const modelBox = el('input', { type: 'text', id: 'setup-model-name', spellcheck: 'false', 'aria-label': "Model's name" });
  const modelLabel = el('label', { for: 'setup-model' }, 'Model');
  const modelRow = el('div', { class: 'setup-field', hidden: '' }, modelLabel, modelSelect, modelBox);
  const use = button('Use this model', () => ask('use', modelSelect.hidden ? modelBox.value : modelSelect.value), { class: 'setup-use' });
  const useRow = el('div', { class: 'question-actions', hidden: '' }, use);
  const trouble = el('div', { class: 'setup-error', role: 'alert' });

  root.append(
    el('div', { class: 'card-head' }, el('span', { class: 'title' }, 'Connect a model')),
    el('p', {}, 'Choose where the model runs, paste its key and pick a model: the chat uses it at once.'),
    radios,
    urlRow,
    keyRow,
    el('div', { class: 'question-actions' }, list),
    modelRow,
    useRow,
    trouble,
  );
  // A first run has no model by design: only another reason (a key missing for the model set)
  // is worth saying.
  if (m.message && !/^no model is set\b/.test(m.message)) {
    root.insertBefore(el('p', { class: 'setup-why' }, `Why: ${m.message}`), radios);
  }

  function busy(on: boolean): void {
    for (const b of [list, use]) {
      b.disabled = on;
    }
    root.setAttribute('aria-busy', String(on));
  }

  function ask(action: 'models' | 'use', model?: string): void {
    if (action === 'use' && !model?.trim()) {
      trouble.textContent = `Pick or type a model (for example ${choiceOf(kind).example}).`;
      return;
    }
    trouble.textContent = action === 'models' ? 'Asking the provider for its models…' : 'Setting the model…';
    busy(true);
    send({ type: 'setup', action, kind, url: urlBox.value, key: keyBox.value, model });
  }

  /**
   * Shows the fields the provider needs, and lists a key-less one's models at once; with a
   * draft, as the user left them.
   */
  function choose(k: ProviderKind, keep?: SetupDraft): void {
    kind = k;
    listed = undefined;
    const c = choiceOf(k);
    urlRow.hidden = c.defaultUrl === undefined;
    urlBox.value = keep?.url ?? c.defaultUrl ?? '';
    keyRow.hidden = c.key === 'none';
    keyBox.value = keep?.key ?? '';
    keyLabel.textContent = c.key === 'optional' ? 'API key (if the server asks for one)' : `${c.label} API key`;
    keyHelp.replaceChildren("Kept in VS Code's secret storage, never in settings.");
    const page = c.keyPage;
    if (page) {
      keyHelp.append(' ', button('Get a key', () => send({ type: 'openLink', url: page }), { class: 'link', title: page }));
    }
    modelRow.hidden = true;
    useRow.hidden = true;
    trouble.textContent = '';
    if (keep?.models) {
      showList(keep.models, keep.model);
    } else if (keep?.typed) {
      showTyped(keep.model);
    } else if (c.key === 'none') {
      ask('models');
    }
  }

  function showList(models: Listing[], selected?: string): void {
    listed = models;
    modelSelect.replaceChildren(...models.map((l: Listing) => el('option', { value: l.id }, l.name === l.id ? l.id : `${l.name} (${l.id})`)));
    if (selected && models.some((l) => l.id === selected)) {
      modelSelect.value = selected;
    }
    modelSelect.hidden = false;
    modelBox.hidden = true;
    modelLabel.setAttribute('for', 'setup-model');
    modelRow.hidden = false;
    useRow.hidden = false;
  }

  /** No list to pick from: the model is typed. */
  function showTyped(name: string): void {
    modelBox.value = name;
    modelSelect.hidden = true;
    modelBox.hidden = false;
    modelBox.placeholder = choiceOf(kind).example;
    modelLabel.setAttribute('for', 'setup-model-name');
    modelRow.hidden = false;
    useRow.hidden = false;
  }

  choose(kind, kept);
  return {
    root,
    models(r) {
      busy(false);
      if (r.kind !== kind) {
        return;
      }
      trouble.textContent = '';
      showList(r.models);
      modelSelect.focus();
    },
    error(r) {
      busy(false);
      trouble.textContent = r.text;
      if (r.fix === 'model') {
        showTyped(modelBox.value);
        modelBox.focus();
      } else {
        (r.fix === 'key' ? keyBox : urlBox).focus();
      }
    },
    draft() {
      const typed = !modelRow.hidden && modelSelect.hidden;
      return { kind, url: urlBox.value, key: keyBox.value, models: listed, model: typed ? modelBox.value : modelSelect.value, typed };
    },
  };
}
