// tandem for VS Code: starts `tandem lsp` for the workspace with vscode-languageclient, shows
// the agent session and its tools in a sidebar, answers tandem's approval questions with
// notifications, and gives integrated terminals the bridge environment. It talks to tandem
// only through the protocol in docs/protocol.md.
import * as vscode from 'vscode';
import {
  ClientCapabilities,
  FeatureState,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  StaticFeature,
  TransportKind,
} from 'vscode-languageclient/node';
import { ApprovalQuestion, approvalAnswer, approvalPrompt } from './approval';
import { plan, Targets } from './install';
import {
  argumentTemplate,
  CallToolResult,
  Methods,
  parseArguments,
  resultText,
  terminalVariables,
  ToolInfo,
} from './protocol';
import { SessionView, ViewState } from './sessionView';

/** What activate() returns: the extension's API, used by tests and by other extensions. */
export interface TandemApi {
  /** Resolves once tandem answered initialize. */
  ready(): Promise<void>;
  openSession(): Promise<string>;
  listTools(): Promise<ToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** The variables given to integrated terminals. */
  terminalEnvironment(): Record<string, string>;
}

const resultScheme = 'tandem-result';

/**
 * Declares what this client does for tandem: it answers questions (tandem/askApproval, with
 * tandem/approvalSettled) and saves a document on request (tandem/saveDocument). Read at
 * every (re)start.
 */
class TandemFeature implements StaticFeature {
  fillClientCapabilities(caps: ClientCapabilities): void {
    // "native" leaves approvals undeclared (false would mean "never asks me"): questions then
    // come as window/showMessageRequest, which vscode-languageclient shows itself.
    const native = vscode.workspace.getConfiguration('tandem').get<string>('approvals', 'tandem') === 'native';
    const tandem = native ? { saveDocument: true } : { approvals: true, saveDocument: true };
    caps.experimental = { ...(caps.experimental as object | undefined), tandem };
  }
  getState(): FeatureState {
    return { kind: 'static' };
  }
  initialize(): void {}
  clear(): void {}
}

export async function activate(ctx: vscode.ExtensionContext): Promise<TandemApi> {
  const log = vscode.window.createOutputChannel('tandem', { log: true });
  const state: ViewState = { backend: 'stopped', tools: [] };
  const view = new SessionView(() => state);
  const results = new Map<string, string>();
  let resultSeq = 0;
  const resultsChanged = new vscode.EventEmitter<vscode.Uri>();
  ctx.subscriptions.push(
    log,
    vscode.window.registerTreeDataProvider('tandem.session', view),
    vscode.workspace.registerTextDocumentContentProvider(resultScheme, {
      onDidChange: resultsChanged.event,
      provideTextDocumentContent: (uri) => results.get(uri.toString()) ?? '',
    }),
  );

  // The terminal environment holds a bridge token: never persist it across windows.
  const termEnv = ctx.environmentVariableCollection;
  termEnv.persistent = false;
  termEnv.description = 'tandem: lets `tandem mcp call` in this terminal reach your MCP tools';
  termEnv.clear();
  let terminalVars: Record<string, string> = {};

  /** The questions on screen, by id: settle() drops one that tandem settled elsewhere. */
  const open = new Map<string, (reason: string) => void>();

  let client: LanguageClient | undefined;
  let starting: Promise<void> | undefined;

  function update(patch: Partial<ViewState>): void {
    Object.assign(state, patch);
    view.refresh();
  }

  async function start(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const cfg = vscode.workspace.getConfiguration('tandem');
    const exe = cfg.get<string>('path', 'tandem');
    const serverOptions: ServerOptions = {
      command: exe,
      args: ['lsp'],
      transport: TransportKind.stdio,
      options: folder ? { cwd: folder.uri.fsPath } : undefined,
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      // tandem.settings is application-scoped, so only the user's own settings.json can set
      // it: it goes to tandem as user-level settings, where execution gates are honoured.
      initializationOptions: { user: cfg.inspect<object>('settings')?.globalValue ?? {} },
      outputChannel: log,
    };
    const c = new LanguageClient('tandem', 'tandem', serverOptions, clientOptions);
    c.registerFeature(new TandemFeature());
    c.onRequest(Methods.askApproval, (q: ApprovalQuestion, token) => ask(q, token));
    c.onNotification(Methods.approvalSettled, (p: { id: string; settled?: string }) => {
      open.get(String(p.id))?.(p.settled ?? 'settled');
    });
    c.onNotification(Methods.jobSettled, (p: { job: string; command?: string; end?: string; status?: number }) => {
      const text = `tandem: job ${p.job} (${p.command ?? ''}) ${p.end ?? 'ended'}${p.status !== undefined ? `, status ${p.status}` : ''}`;
      if (p.end === 'finished' && p.status === 0) {
        void vscode.window.showInformationMessage(text);
      } else {
        void vscode.window.showWarningMessage(text);
      }
    });
    c.onRequest(Methods.saveDocument, async (p: { uri: string }) => {
      // After an agent edit lands in a document that had no unsaved changes, tandem asks to
      // save it, so builds and tests the agent runs see it.
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === vscode.Uri.parse(p.uri).toString());
      if (!doc) {
        throw new Error(`${p.uri} is not open in the editor`);
      }
      if (!(await doc.save())) {
        throw new Error(`saving ${p.uri} failed`);
      }
      return null;
    });
    c.onDidChangeState((e) => {
      if (e.newState === State.Stopped) {
        termEnv.clear();
        terminalVars = {};
        update({ backend: 'stopped', session: undefined });
      } else if (e.newState === State.Running && state.backend === 'stopped') {
        // Restarted (by the command, or by the client after a crash): a new connection
        // with its own terminal variables.
        void connected(c);
      }
    });
    client = c;
    update({ backend: 'starting', error: undefined });
    try {
      await c.start();
    } catch (e) {
      update({ backend: 'stopped', error: `tandem did not start: ${(e as Error).message}. Check the tandem.path setting and run \`tandem doctor\`.` });
      throw e;
    }
    await connected(c);
  }

  /** After tandem (re)started: the terminal variables of this connection, and its tools. */
  async function connected(c: LanguageClient): Promise<void> {
    update({ backend: 'running' });
    if (vscode.workspace.getConfiguration('tandem').get<boolean>('terminalEnvironment', true)) {
      try {
        terminalVars = terminalVariables(await c.sendRequest(Methods.terminalEnv, {}));
        for (const [k, v] of Object.entries(terminalVars)) {
          termEnv.replace(k, v);
        }
      } catch (e) {
        log.warn(`tandem/terminalEnv: ${(e as Error).message}`);
      }
    }
    void refreshTools();
  }

  async function ready(): Promise<LanguageClient> {
    if (!starting) {
      starting = start();
    }
    await starting;
    return client!;
  }

  async function ask(q: ApprovalQuestion, token: vscode.CancellationToken): Promise<{ answer: string | null }> {
    const p = approvalPrompt(q);
    const id = String(q.id);
    // Settled elsewhere (another client answered, the step ended) or cancelled: stop waiting.
    // VS Code cannot close a notification, so a later click is simply not used.
    const settled = new Promise<undefined>((resolve) => {
      open.set(id, (how) => {
        log.info(`question ${id} settled: ${how}`);
        resolve(undefined);
      });
      token.onCancellationRequested(() => resolve(undefined));
    });
    const button = await Promise.race([vscode.window.showWarningMessage(p.message, ...p.buttons), settled]);
    open.delete(id);
    return approvalAnswer(button);
  }

  async function refreshTools(): Promise<ToolInfo[]> {
    const c = await ready();
    const r = await c.sendRequest<{ tools: ToolInfo[] }>(Methods.listTools, {});
    update({ tools: r.tools ?? [] });
    return state.tools;
  }

  /** The session being opened, so calls made meanwhile wait for it instead of opening more. */
  let opening: Promise<string> | undefined;

  async function openSession(): Promise<string> {
    if (state.session) {
      return state.session;
    }
    opening ??= (async () => {
      const c = await ready();
      const r = await c.sendRequest<{ session: string }>(Methods.openSession, {});
      update({ session: r.session });
      return r.session;
    })().finally(() => {
      opening = undefined;
    });
    return opening;
  }

  async function callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const session = await openSession();
    const c = await ready();
    return c.sendRequest<CallToolResult>(Methods.callTool, { session, name, arguments: args });
  }

  async function showResult(tool: string, r: CallToolResult): Promise<void> {
    const uri = vscode.Uri.from({ scheme: resultScheme, path: `/${++resultSeq}/${tool}.txt` });
    results.set(uri.toString(), resultText(r));
    update({ lastCall: { tool, isError: r.isError === true, uri } });
    await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: false });
  }

  async function runTool(tool: string, args: Record<string, unknown>): Promise<void> {
    try {
      await showResult(tool, await callTool(tool, args));
    } catch (e) {
      void vscode.window.showErrorMessage(`tandem: ${tool}: ${(e as Error).message}`);
    }
  }

  ctx.subscriptions.push(
    vscode.commands.registerCommand('tandem.openSession', async () => {
      try {
        await openSession();
      } catch (e) {
        void vscode.window.showErrorMessage(`tandem: opening a session failed: ${(e as Error).message}`);
      }
    }),
    vscode.commands.registerCommand('tandem.closeSession', async () => {
      const session = state.session;
      if (!session || !client) {
        return;
      }
      update({ session: undefined });
      await client.sendRequest(Methods.closeSession, { session });
    }),
    vscode.commands.registerCommand('tandem.refresh', () => refreshTools()),
    vscode.commands.registerCommand('tandem.showLog', () => log.show()),
    vscode.commands.registerCommand('tandem.restart', async () => {
      if (!client) {
        return;
      }
      await client.restart();
    }),
    vscode.commands.registerCommand('tandem.callTool', async (arg?: string | { tool?: ToolInfo }) => {
      const tools = state.tools.length > 0 ? state.tools : await refreshTools();
      let name = typeof arg === 'string' ? arg : arg?.tool?.name;
      if (!name) {
        const pick = await vscode.window.showQuickPick(
          tools.map((t) => ({ label: t.name, detail: t.description })),
          { placeHolder: 'Tool to call' },
        );
        name = pick?.label;
      }
      const tool = tools.find((t) => t.name === name);
      if (!name || !tool) {
        return;
      }
      const text = await vscode.window.showInputBox({
        prompt: `Arguments for ${name} (one JSON object)`,
        value: argumentTemplate(tool.inputSchema ?? {}),
        validateInput: (v) => {
          const r = parseArguments(v);
          return r.ok ? undefined : r.error;
        },
      });
      if (text === undefined) {
        return;
      }
      const parsed = parseArguments(text);
      if (parsed.ok) {
        await runTool(name, parsed.value);
      }
    }),
    vscode.commands.registerCommand('tandem.installAgentConfig', async () => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (!folder) {
        void vscode.window.showInformationMessage('tandem: open a folder first.');
        return [];
      }
      const done = await installAgentConfig(folder.uri);
      const text = done.map((d) => `${d.file}: ${d.what}`).join('; ');
      if (done.some((d) => d.what.startsWith('refused'))) {
        void vscode.window.showWarningMessage(`tandem: ${text}`);
      } else {
        void vscode.window.showInformationMessage(`tandem: ${text}`);
      }
      return done;
    }),
    vscode.commands.registerCommand('tandem.readActiveFile', async () => {
      const doc = vscode.window.activeTextEditor?.document;
      if (!doc) {
        void vscode.window.showInformationMessage('tandem: open a file first.');
        return;
      }
      await runTool('read', { path: vscode.workspace.asRelativePath(doc.uri, false) });
    }),
    { dispose: () => void client?.stop() },
  );

  if (vscode.workspace.workspaceFolders?.length) {
    ready().catch((e) => log.error(`start: ${(e as Error).message}`));
  }

  return {
    ready: async () => {
      await ready();
    },
    openSession,
    listTools: refreshTools,
    callTool,
    terminalEnvironment: () => ({ ...terminalVars }),
  };
}

/** Installs tandem's MCP entry and working rule into the agent configs of a folder. */
async function installAgentConfig(root: vscode.Uri): Promise<{ file: string; what: string }[]> {
  const out: { file: string; what: string }[] = [];
  for (const t of Targets) {
    const uri = vscode.Uri.joinPath(root, t.file);
    let text: string | undefined;
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      text = undefined;
    }
    const r = plan(t, text);
    if (r.status === 'write') {
      await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(uri, '..'));
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(r.text));
      out.push({ file: t.file, what: text === undefined ? 'created' : 'updated' });
    } else {
      out.push({ file: t.file, what: r.status === 'refused' ? `refused: ${r.reason}` : 'unchanged' });
    }
  }
  return out;
}

export function deactivate(): void {}
