// The tandem.* commands of the command palette and the sidebar.
import { execFile, ExecFileException } from 'node:child_process';
import * as vscode from 'vscode';
import { Backend } from './backend';
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
    vscode.commands.registerCommand('tandem.installAgentConfig', async (): Promise<InstallReport | undefined> => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (!folder) {
        void vscode.window.showInformationMessage('tandem: open a folder first.');
        return undefined;
      }
      const report = await installAgentConfig(backend.executable(), folder.uri);
      log.info(`Set Up Agents:\n${report.lines.join('\n')}`);
      const text = `tandem: ${report.lines.join('; ')}`;
      // The log has the report one line per agent, easier to read than the notification.
      const show = report.ok ? vscode.window.showInformationMessage(text, 'Show Log') : vscode.window.showWarningMessage(text, 'Show Log');
      void show.then((choice) => choice && log.show());
      return report;
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

/** What Set Up Agents did: the lines `tandem mcp install` printed, one per agent, then AGENTS.md. */
export interface InstallReport {
  lines: string[];
  /** Nothing was skipped or refused. */
  ok: boolean;
}

/**
 * Adds tandem to every agent's project configuration, and its working rule to the folder's
 * AGENTS.md, with `tandem mcp install --scope project`.
 */
async function installAgentConfig(tandem: string, root: vscode.Uri): Promise<InstallReport> {
  const run = await new Promise<{ stdout: string; stderr: string; error: ExecFileException | null }>((resolve) => {
    execFile(tandem, ['mcp', 'install', '--scope', 'project'], { cwd: root.fsPath }, (error, stdout, stderr) => resolve({ stdout, stderr, error }));
  });
  const lines = `${run.stdout}\n${run.stderr}`.split('\n').filter((l) => l.trim() !== '');
  if (run.error && lines.length === 0) {
    // It did not run at all (no such executable), or failed without a word.
    lines.push(`${tandem} mcp install failed: ${run.error.message}`);
  }
  return { lines, ok: run.error === null };
}
