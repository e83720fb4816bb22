// Runs inside a real VS Code extension host (code-server, extension development mode) with
// the extension under test loaded, and writes what passed and failed to $TANDEM_E2E_OUT for
// the driver (driver.ts) to report.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TandemApi } from '../../extension';
import { resultText } from '../../protocol';

type Case = { name: string; fn: (api: TandemApi, root: vscode.Uri) => Promise<void> };

function check(cond: boolean, what: string): void {
  if (!cond) {
    throw new Error(what);
  }
}

async function waitFor<T>(what: string, f: () => T | undefined | Promise<T | undefined>, ms = 20000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined && v !== null && (v as unknown) !== false) {
      return v;
    }
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const cases: Case[] = [
  {
    name: 'extension_starts_tandem_lsp_and_lists_tools',
    fn: async (api) => {
      await api.ready();
      const names = (await api.listTools()).map((t) => t.name);
      check(names.includes('read'), `tandem/listTools has no read tool: ${names.join(', ')}`);
    },
  },
  {
    name: 'read_sees_unsaved_editor_text',
    fn: async (api, root) => {
      const uri = vscode.Uri.joinPath(root, 'README.md');
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      const typed = 'typed in VS Code, not saved: ünï 𝄞';
      const edit = new vscode.WorkspaceEdit();
      edit.insert(uri, new vscode.Position(1, 0), typed + '\n');
      check(await vscode.workspace.applyEdit(edit), 'the user edit applied');
      check(doc.isDirty, 'the document is dirty');
      const r = await api.callTool('read', { path: 'README.md' });
      const text = resultText(r);
      check(r.isError !== true, `read failed: ${text}`);
      check(text.includes(typed), `the read does not show the unsaved line:\n${text}`);
      const disk = fs.readFileSync(uri.fsPath, 'utf8');
      check(!disk.includes(typed), 'the unsaved text reached the disk');
    },
  },
];

export async function run(): Promise<void> {
  const out = process.env.TANDEM_E2E_OUT;
  const report: { passed: string[]; failed: { name: string; error: string }[] } = { passed: [], failed: [] };
  try {
    const root = await waitFor('a workspace folder', () => vscode.workspace.workspaceFolders?.[0]?.uri);
    const ext = await waitFor('the tandem extension', () => vscode.extensions.getExtension<TandemApi>('tandemdev.tandem'));
    const api = await ext.activate();
    for (const c of cases) {
      try {
        await c.fn(api, root);
        report.passed.push(c.name);
      } catch (e) {
        report.failed.push({ name: c.name, error: (e as Error).stack ?? String(e) });
      }
    }
  } catch (e) {
    report.failed.push({ name: 'setup', error: (e as Error).stack ?? String(e) });
  }
  if (out) {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out + '.tmp', JSON.stringify(report, null, 2));
    fs.renameSync(out + '.tmp', out);
    // The extension host ends when run() returns: stay up until the driver has looked at
    // the sidebar (it writes OUT.done), at most 60 s.
    await waitFor('the driver to finish looking', () => fs.existsSync(out + '.done') || undefined, 60000).catch(() => undefined);
  }
}
