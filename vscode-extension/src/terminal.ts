// The bridge environment of integrated terminals: the variables of tandem/terminalEnv, so
// `tandem mcp call` works there.
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { Methods, terminalVariables } from './protocol';

export class TerminalEnvironment {
  private vars: Record<string, string> = {};

  constructor(
    private readonly collection: vscode.GlobalEnvironmentVariableCollection,
    private readonly log: vscode.LogOutputChannel,
  ) {
    // The variables hold a bridge token: never persist them across windows.
    collection.persistent = false;
    collection.description = 'tandem: lets `tandem mcp call` in this terminal reach your MCP tools';
    collection.clear();
  }

  /** Asks the new connection for its variables, unless the user turned them off. */
  async connected(c: LanguageClient): Promise<void> {
    if (!vscode.workspace.getConfiguration('tandem').get<boolean>('terminalEnvironment', true)) {
      return;
    }
    try {
      this.vars = terminalVariables(await c.sendRequest(Methods.terminalEnv, {}));
      for (const [k, v] of Object.entries(this.vars)) {
        this.collection.replace(k, v);
      }
    } catch (e) {
      this.log.warn(`tandem/terminalEnv: ${(e as Error).message}`);
    }
  }

  /** The connection ended, and its token with it. */
  stopped(): void {
    this.collection.clear();
    this.vars = {};
  }

  variables(): Record<string, string> {
    return { ...this.vars };
  }
}
