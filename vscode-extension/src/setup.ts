// The first run, without editing JSON: the chat's setup card (src/webview/setup.ts) chooses a
// provider, takes the key the user pastes and the model they pick; this side asks tandem
// (docs/protocol.md: `_tandem/models` lists the provider's models, `_tandem/setKey` gives it
// the key, `_tandem/setModel` writes agent.model and switches the session at once, no
// restart). Keys live in VS Code's SecretStorage only, and are given to each new tandem
// process with `_tandem/setKey`: never written to settings, never in tandem's environment.
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { ConfigOption, FromView, ToView } from './webviewMessages';
import { chatModels, choiceOf, Listing, ollamaProbeUrl, ProviderSetup, providerSetup, qualifiedModel, setupTrouble } from './setupModel';

/** The providers whose keys are stored, as `_tandem/setKey` names them. */
const storedKeys = 'tandem.providerKeys';
const secretOf = (p: ProviderSetup) => `tandem.key.${p.name}`;

export type SetupRequest = Extract<FromView, { type: 'setup' }>;

export class Setup {
  /** Whether the tandem process now running holds the stored keys. */
  private handed = false;

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly client: () => Promise<LanguageClient>,
    private readonly post: (m: ToView) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** A new tandem process: it holds no key yet. */
  connected(): void {
    this.handed = false;
  }

  /**
   * Gives the new tandem process the stored keys, once (the keys are its, not a session's;
   * session is the one the call is made in). Says whether a key was given.
   */
  async handKeys(c: LanguageClient, session: string): Promise<boolean> {
    if (this.handed) {
      return false;
    }
    this.handed = true;
    let given = false;
    for (const provider of this.ctx.globalState.get<ProviderSetup[]>(storedKeys, [])) {
      const key = await this.ctx.secrets.get(secretOf(provider));
      if (!key) {
        continue;
      }
      await c.sendRequest('_tandem/setKey', { sessionId: session, provider, key }).then(
        () => (given = true),
        (e: Error) => this.log.warn(`setup: the stored key of ${provider.name} was not taken: ${e.message}`),
      );
    }
    return given;
  }

  /** Shows the setup card, saying why the chat has no model. */
  async show(message: string): Promise<void> {
    this.post({ type: 'setup', message, ollama: await ollamaRuns() });
  }

  /**
   * Does what the card asked. use: the model is set; resolves with the session's options,
   * undefined when it failed (the card says why).
   */
  async act(m: SetupRequest, session: string): Promise<ConfigOption[] | undefined> {
    const choice = choiceOf(m.kind);
    const key = m.key?.trim() ?? '';
    const provider = providerSetup(m.kind, m.url, key !== '' && choice.key !== 'none');
    if ('error' in provider) {
      this.post({ type: 'setupError', fix: 'url', text: provider.error });
      return undefined;
    }
    try {
      const c = await this.client();
      if (key !== '' && choice.key !== 'none') {
        await c.sendRequest('_tandem/setKey', { sessionId: session, provider, key });
      }
      if (m.action === 'models') {
        const r = await c.sendRequest<{ models: Listing[] }>('_tandem/models', { sessionId: session, provider });
        const models = chatModels(m.kind, r.models ?? []);
        if (models.length === 0) {
          this.post({ type: 'setupError', fix: 'model', text: `${choice.label} lists no models. Type the model's name (for example ${choice.example}) and use it.` });
        } else {
          this.post({ type: 'setupModels', kind: m.kind, models });
        }
        return undefined;
      }
      const model = qualifiedModel(provider.name, m.model ?? '');
      // A built-in provider is named alone: its URL and key variable are tandem's own.
      const r = await c.sendRequest<{ configOptions: ConfigOption[] }>('_tandem/setModel', { sessionId: session, model, ...(provider.api ? { provider } : {}) });
      if (key !== '' && choice.key !== 'none') {
        await this.store(provider, key);
      }
      this.post({ type: 'setupDone', model });
      return r.configOptions;
    } catch (e) {
      const message = (e as Error).message;
      this.log.info(`setup: ${m.action} with ${provider.name}: ${message}`);
      this.post({ type: 'setupError', ...setupTrouble(message, choice) });
      return undefined;
    }
  }

  /** Keeps a key that worked, for every later start of tandem. */
  private async store(provider: ProviderSetup, key: string): Promise<void> {
    await this.ctx.secrets.store(secretOf(provider), key);
    const others = this.ctx.globalState.get<ProviderSetup[]>(storedKeys, []).filter((p) => p.name !== provider.name);
    await this.ctx.globalState.update(storedKeys, [...others, provider]);
  }

  /** For tests: the providers whose keys are stored. */
  storedProviders(): string[] {
    return this.ctx.globalState.get<ProviderSetup[]>(storedKeys, []).map((p) => p.name);
  }
}

/** Whether Ollama answers on this machine, asked briefly: the card offers it only then. */
async function ollamaRuns(): Promise<boolean> {
  try {
    const r = await fetch(ollamaProbeUrl, { signal: AbortSignal.timeout(1000) });
    return r.ok;
  } catch {
    return false;
  }
}
