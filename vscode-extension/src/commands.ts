// The tandem.* commands of the command palette and the sidebar.
import * as vscode from 'vscode';
import { Backend } from './backend';
import { plan, Targets } from './install';
import { argumentTemplate, parseArguments, ToolInfo } from './protocol';
import { ResultDocuments } from './results';
import { AgentSession } from './session';

export interface CommandDeps {
  log: vscode.LogOutputChannel;
  backend: Backend;
  session: AgentSession;
  results: ResultDocuments;
}

export function registerCommands({ log, backend, session, results }: CommandDeps): vscode.Disposable[] {
  async function runTool(tool: string, args: Record<string, unknown>): Promise<void> {
    try {
      await results.show(tool, await session.callTool(tool, args));
    } catch (e) {
      void vscode.window.showErrorMessage(`tandem: ${tool}: ${(e as Error).message}`);
    }
  }

  return [
    vscode.commands.registerCommand('tandem.openSession', async () => {
      try {
        await session.open();
      } catch (e) {
        void vscode.window.showErrorMessage(`tandem: opening a session failed: ${(e as Error).message}`);
      }
    }),
    vscode.commands.registerCommand('tandem.closeSession', () => session.close()),
    vscode.commands.registerCommand('tandem.refresh', () => session.listTools()),
    vscode.commands.registerCommand('tandem.showLog', () => log.show()),
    vscode.commands.registerCommand('tandem.restart', async () => {
      await backend.restart();
    }),
    vscode.commands.registerCommand('tandem.callTool', async (arg?: string | { tool?: ToolInfo }) => {
      const tools = session.tools.length > 0 ? session.tools : await session.listTools();
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
  ];
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
