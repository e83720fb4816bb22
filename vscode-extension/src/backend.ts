// Starting `tandem lsp` for the workspace with vscode-languageclient, and following it through
// restarts.
import * as fs from 'node:fs';
import * as path from 'node:path';
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
import { executableTarget, hostTarget } from './platform';
import { tandemExecutable } from './protocol';
import { SessionView } from './sessionView';
import { compareVersions, extensionVersion, verdictMeaning } from './version';

/**
 * Declares what this client does for tandem: it answers questions (tandem/askApproval, with
 * tandem/approvalSettled), saves a document on request (tandem/saveDocument) and answers for
 * VS Code's language servers (tandem/languageQuery). Read at every (re)start.
 */
class TandemFeature implements StaticFeature {
  fillClientCapabilities(caps: ClientCapabilities): void {
    // "native" leaves approvals undeclared (false would mean "never asks me"): questions then
    // come as window/showMessageRequest, which vscode-languageclient shows itself.
    const native = vscode.workspace.getConfiguration('tandem').get<string>('approvals', 'tandem') === 'native';
    const tandem = native ? { saveDocument: true, languageQuery: true } : { approvals: true, saveDocument: true, languageQuery: true };
    caps.experimental = { ...(caps.experimental as object | undefined), tandem };
  }
  getState(): FeatureState {
    return { kind: 'static' };
  }
  initialize(): void {}
  clear(): void {}
}

/**
 * The client, with tandem's clean exit said as what it is: vscode-languageclient logs every
 * exit of the server as an error, the exit 0 of a stop or restart the user asked for too. A
 * crash (another code, a signal) and a connection lost unasked are still errors.
 */
class TandemClient extends LanguageClient {
  override error(message: string, data?: unknown, showNotification?: boolean | 'force'): void {
    if (message === 'Server process exited with code 0.') {
      this.info(message, data, false);
      return;
    }
    super.error(message, data, showNotification);
  }
}

/** What the rest of the extension does at the backend's turns. */
export interface BackendHooks {
  /** Installs the handlers of tandem's requests and notifications on the new client. */
  register(c: LanguageClient): void;
  /** After tandem (re)started; the first start is ready once this has finished. */
  connected(c: LanguageClient): Promise<void>;
  /** After tandem stopped. */
  stopped(): void;
}

export class Backend implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private saidForeign = false;
  /** The executable the client starts. */
  private exe = 'tandem';

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly view: SessionView,
    private readonly hooks: BackendHooks,
    private readonly extensionPath: string,
  ) {}

  /** The client once tandem answered initialize, starting it on first use. */
  async ready(): Promise<LanguageClient> {
    this.starting ??= this.start();
    await this.starting;
    return this.client!;
  }

  /** The client if a start was attempted; unlike ready(), never starts one. */
  get started(): LanguageClient | undefined {
    return this.client;
  }

  /**
   * Restarts tandem (the user's command, a test's new settings); a tandem.path changed since
   * the start is started in the old one's place.
   */
  async restart(): Promise<void> {
    if (this.client && this.executable() === this.exe) {
      await this.client.restart();
      return;
    }
    const old = this.client;
    this.client = undefined;
    this.starting = undefined;
    await old?.dispose();
    await this.ready();
  }

  dispose(): void {
    void this.client?.stop();
  }

  /**
   * The tandem executable: the user's tandem.path, else the binary a platform .vsix carries
   * when it is for the platform the extension host runs on, else `tandem` on PATH.
   */
  executable(): string {
    const set = vscode.workspace.getConfiguration('tandem').inspect<string>('path');
    return tandemExecutable(set?.globalValue ?? set?.workspaceValue ?? set?.workspaceFolderValue, this.carried());
  }

  /**
   * The binary this package carries, if it runs here. A package of another target (installed
   * into a remote of another platform) is said once, and PATH's tandem is started instead.
   */
  private carried(): string | undefined {
    const bundled = path.join(this.extensionPath, 'bin', process.platform === 'win32' ? 'tandem.exe' : 'tandem');
    let header: Buffer;
    try {
      const fd = fs.openSync(bundled, 'r');
      header = Buffer.alloc(64);
      fs.readSync(fd, header, 0, header.length, 0);
      fs.closeSync(fd);
    } catch {
      return undefined;
    }
    const target = executableTarget(header);
    if (target !== hostTarget()) {
      if (!this.saidForeign) {
        this.saidForeign = true;
        const msg = `This tandem package carries tandem for ${target ?? 'another platform'}, but the extension runs on ${hostTarget()} here: install the package for ${hostTarget()}, or set tandem.path. Starting \`tandem\` from PATH instead.`;
        this.log.warn(msg);
        void vscode.window.showWarningMessage(msg);
      }
      return undefined;
    }
    try {
      // A .vsix may not keep the executable bit of what it carries.
      fs.chmodSync(bundled, 0o755);
    } catch {
      // An extension directory we may not change: start it as it is.
    }
    return bundled;
  }

  /**
   * Says plainly, once per start, when the tandem started is of another build than this
   * extension (a tandem of another version first on PATH is the usual cause); the log always
   * has both versions.
   */
  private checkVersion(c: LanguageClient, exe: string): void {
    const server = c.initializeResult?.serverInfo?.version ?? 'unknown';
    const mine = extensionVersion();
    const verdict = compareVersions(server, mine);
    const line = `tandem ${server} (${onPath(exe)}), this extension ${mine || 'unknown'}: ${verdictMeaning[verdict]}`;
    this.log.info(line);
    if (verdict !== 'differ') {
      return;
    }
    const doctor = 'Run tandem doctor';
    void vscode.window
      .showWarningMessage(
        `${line}. A tandem of another build may not speak this extension's protocol: set tandem.path to the tandem of this version, or install the package for your platform, which carries its own.`,
        doctor,
      )
      .then((pick) => {
        if (pick === doctor) {
          const t = vscode.window.createTerminal({
            name: 'tandem doctor',
            env: { TANDEM_CLIENT_NAME: 'VS Code extension', TANDEM_CLIENT_VERSION: mine },
          });
          t.show();
          t.sendText(`'${onPath(exe).replace(/'/g, "'\\''")}' doctor`);
        }
      });
  }

  private async start(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const cfg = vscode.workspace.getConfiguration('tandem');
    const exe = this.executable();
    this.exe = exe;
    const serverOptions: ServerOptions = {
      command: exe,
      args: ['lsp'],
      transport: TransportKind.stdio,
      // tandem gets provider keys from the chat (_tandem/setKey), never in its environment.
      options: { cwd: folder?.uri.fsPath },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      // tandem.settings is application-scoped, so only the user's own settings.json can set
      // it: it goes to tandem as user-level settings, where execution gates are honoured.
      initializationOptions: { user: cfg.inspect<object>('settings')?.globalValue ?? {} },
      outputChannel: this.log,
    };
    const c = new TandemClient('tandem', 'tandem', serverOptions, clientOptions);
    c.registerFeature(new TandemFeature());
    this.hooks.register(c);
    c.onDidChangeState((e) => {
      if (e.newState === State.Stopped) {
        this.hooks.stopped();
        this.view.update({ backend: 'stopped', session: undefined });
      } else if (e.newState === State.Running && this.view.state.backend === 'stopped') {
        // Restarted (by the command, or by the client after a crash): a new connection
        // with its own terminal variables.
        void this.connected(c);
      }
    });
    this.client = c;
    this.view.update({ backend: 'starting', error: undefined });
    try {
      await c.start();
    } catch (e) {
      this.view.update({
        backend: 'stopped',
        error: `tandem did not start: ${(e as Error).message}. Check the tandem.path setting and run \`tandem doctor\`.`,
      });
      throw e;
    }
    await this.connected(c);
  }

  private async connected(c: LanguageClient): Promise<void> {
    this.view.update({ backend: 'running' });
    this.checkVersion(c, this.exe);
    await this.hooks.connected(c);
  }
}

/** Where a command name resolves on PATH (a path is itself). */
function onPath(exe: string): string {
  if (exe.includes(path.sep)) {
    return exe;
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, exe);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // not in this directory
    }
  }
  return exe;
}
