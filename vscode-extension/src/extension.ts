// tandem for VS Code: starts `tandem lsp` for the workspace with vscode-languageclient, shows
// the agent session and its tools in a sidebar, answers tandem's approval questions with
// notifications, gives integrated terminals the bridge environment, and offers tandem's tools
// to VS Code's own chat agents as language-model tools. It talks to tandem only through the
// protocol in docs/protocol.md.
import * as vscode from 'vscode';
import { Backend } from './backend';
import { ChatView, chatPanelType, chatViewId, diffScheme } from './chat';
import { registerCommands } from './commands';
import { registerSaveDocument } from './documents';
import { DiagnosticsWatch } from './language';
import { registerJobSettled } from './jobs';
import { contributedToolNames, LanguageModelTools } from './lmTools';
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
  /** The sidebar chat, for tests. */
  chat: ChatView;
}

export function activate(ctx: vscode.ExtensionContext): TandemApi {
  const log = vscode.window.createOutputChannel('tandem', { log: true });
  const view = new SessionView();
  const results = new ResultDocuments(view);
  const terminal = new TerminalEnvironment(ctx.environmentVariableCollection, log);
  const late: { chat?: ChatView } = {};
  const questions = new Questions(log, {
    owns: (q) => late.chat?.owns(q) ?? false,
    ask: (q) => late.chat!.ask(q),
    settled: (id, how) => late.chat?.settled(id, how),
    chatName: (session) => late.chat?.chatName(session) ?? Promise.resolve(undefined),
  });
  const diagnostics = new DiagnosticsWatch();
  ctx.subscriptions.push(diagnostics);
  const backend = new Backend(log, view, {
    register: (c) => {
      diagnostics.register(c);
      questions.register(c);
      late.chat?.register(c);
      registerJobSettled(c);
      registerSaveDocument(c);
    },
    connected: async (c) => {
      await terminal.connected(c);
      late.chat?.connected();
      void session.listTools();
    },
    stopped: () => {
      terminal.stopped();
      lmTools.stopped();
    },
  }, ctx.extensionPath);
  const chat = new ChatView(ctx, backend, log);
  late.chat = chat;
  const session = new AgentSession(backend, view);
  const lmTools = new LanguageModelTools(backend, contributedToolNames(ctx.extension.packageJSON));
  ctx.subscriptions.push(
    log,
    vscode.window.registerTreeDataProvider('tandem.session', view),
    vscode.workspace.registerTextDocumentContentProvider(resultScheme, results),
    vscode.window.registerWebviewViewProvider(chatViewId, chat, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.window.registerWebviewPanelSerializer(chatPanelType, chat),
    vscode.workspace.registerTextDocumentContentProvider(diffScheme, chat),
    ...chat.review.register(),
    vscode.commands.registerCommand('tandem.setUpModel', () => chat.showSetup()),
    vscode.commands.registerCommand('tandem.newChat', () => chat.newChat()),
    vscode.commands.registerCommand('tandem.openChatInEditor', () => chat.openInEditor()),
    vscode.commands.registerCommand('tandem.askAboutSelection', () => chat.askAboutSelection()),
    ...registerCommands({ log, backend, session, results }),
    lmTools,
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
    chat,
  };
}

export function deactivate(): void {}
