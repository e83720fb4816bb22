// tandem for VS Code: starts `tandem lsp` for the workspace with vscode-languageclient, shows
// the agent session and its tools in a sidebar, answers tandem's approval questions with
// notifications, and gives integrated terminals the bridge environment. It talks to tandem
// only through the protocol in docs/protocol.md.
import * as vscode from 'vscode';
import { Backend } from './backend';
import { registerCommands } from './commands';
import { registerSaveDocument } from './documents';
import { registerJobSettled } from './jobs';
import { CallToolResult, ToolInfo } from './protocol';
import { Questions } from './questions';
import { ResultDocuments, resultScheme } from './results';
import { AgentSession } from './session';
import { SessionView } from './sessionView';
import { TerminalEnvironment } from './terminal';

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

export function activate(ctx: vscode.ExtensionContext): TandemApi {
  const log = vscode.window.createOutputChannel('tandem', { log: true });
  const view = new SessionView();
  const results = new ResultDocuments(view);
  const terminal = new TerminalEnvironment(ctx.environmentVariableCollection, log);
  const questions = new Questions(log);
  const backend = new Backend(log, view, {
    register: (c) => {
      questions.register(c);
      registerJobSettled(c);
      registerSaveDocument(c);
    },
    connected: async (c) => {
      await terminal.connected(c);
      void session.listTools();
    },
    stopped: () => terminal.stopped(),
  });
  const session = new AgentSession(backend, view);
  ctx.subscriptions.push(
    log,
    vscode.window.registerTreeDataProvider('tandem.session', view),
    vscode.workspace.registerTextDocumentContentProvider(resultScheme, results),
    ...registerCommands({ log, backend, session, results }),
    backend,
  );

  if (vscode.workspace.workspaceFolders?.length) {
    backend.ready().catch((e) => log.error(`start: ${(e as Error).message}`));
  }

  return {
    ready: async () => {
      await backend.ready();
    },
    openSession: () => session.open(),
    listTools: () => session.listTools(),
    callTool: (name, args) => session.callTool(name, args),
    terminalEnvironment: () => terminal.variables(),
  };
}

export function deactivate(): void {}
