// tandem's tools as VS Code language-model tools (contributes.languageModelTools), so Copilot's
// agent mode and any other chat agent in VS Code can call them. VS Code's tool names are
// global, so each is tandem's name prefixed with `tandem_`; its description and input schema
// are tandem's own, and its result is the text tandem/callTool gives, refusals included.
//
// Each chat session gets a tandem session of its own (its own seen lines): VS Code passes every
// call made in one chat session the same tool invocation token, so its serialised form names
// that chat. Calls without a token (lm.invokeTool outside a chat) share one session.
import * as vscode from 'vscode';
import { Backend } from './backend';
import { resultText } from './protocol';
import { ToolSession } from './session';

export const lmToolPrefix = 'tandem_';

/** Chat sessions whose tandem sessions stay open; past it the least recently used is closed. */
const openChats = 16;

/** The names of the language-model tools this extension contributes (its package.json). */
export function contributedToolNames(packageJSON: unknown): string[] {
  const tools = (packageJSON as { contributes?: { languageModelTools?: { name: string }[] } }).contributes?.languageModelTools ?? [];
  return tools.map((t) => t.name);
}

export class LanguageModelTools implements vscode.Disposable {
  /** By chat (the serialised invocation token), least recently used first. */
  private readonly sessions = new Map<string, ToolSession>();
  private readonly registrations: vscode.Disposable[];

  constructor(
    private readonly backend: Backend,
    names: string[],
  ) {
    this.registrations = names.map((name) =>
      vscode.lm.registerTool<Record<string, unknown>>(name, {
        // No prepareInvocation confirmation: tandem's own gate asks the user, in the editor,
        // about exactly the steps outside their auto set; asking here too would ask twice.
        invoke: (options, token) => this.invoke(name.slice(lmToolPrefix.length), options, token),
      }),
    );
  }

  private async invoke(
    tool: string,
    options: vscode.LanguageModelToolInvocationOptions<Record<string, unknown>>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const r = await this.session(JSON.stringify(options.toolInvocationToken ?? null)).callTool(tool, options.input ?? {}, token);
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(resultText(r))]);
  }

  private session(chat: string): ToolSession {
    const s = this.sessions.get(chat) ?? new ToolSession(this.backend);
    this.sessions.delete(chat);
    this.sessions.set(chat, s);
    if (this.sessions.size > openChats) {
      const [oldest, least] = this.sessions.entries().next().value!;
      this.sessions.delete(oldest);
      // A session tandem already ended (a restart) needs no closing.
      void least.close().catch(() => undefined);
    }
    return s;
  }

  /** tandem stopped: its sessions are gone with it. */
  stopped(): void {
    this.sessions.clear();
  }

  dispose(): void {
    for (const r of this.registrations) {
      r.dispose();
    }
  }
}
