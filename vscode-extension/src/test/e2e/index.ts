// Runs inside a real VS Code extension host (code-server, extension development mode) with
// the extension under test loaded, and writes what passed and failed to $TANDEM_E2E_OUT for
// the driver (driver.ts) to report.
import * as assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import * as vscode from 'vscode';
import type { InstallReport } from '../../commands';
import type { TandemApi } from '../../extension';
import { lmToolPrefix } from '../../lmTools';
import { resultText } from '../../protocol';
import { reviewOp } from './reviewHost';

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
  {
    name: 'agent_edit_keeps_unsaved_change_and_undo_reverts_it',
    fn: async (api, root) => {
      const uri = vscode.Uri.joinPath(root, 'internal/names/names.go');
      const disk = fs.readFileSync(uri.fsPath, 'utf8');
      const doc = await vscode.workspace.openTextDocument(uri);
      const editor = await vscode.window.showTextDocument(doc);
      check(await editor.edit((e) => e.insert(new vscode.Position(2, 0), '// the user is still writing this\n')), 'the user typed');
      const users = doc.getText();
      const read = resultText(await api.callTool('read', { path: 'internal/names/names.go' }));
      const tag = /#([0-9A-Fa-f]+)\]/.exec(read)?.[1];
      check(tag !== undefined, `no tag in the read:\n${read}`);
      const r = await api.callTool('edit', {
        files: [{ path: 'internal/names/names.go', tag, old: 'return "Hello, stranger!"', new: 'return "Hi, stranger!"' }],
      });
      check(r.isError !== true, `the edit failed: ${resultText(r)}`);
      const want = users.replace('return "Hello, stranger!"', 'return "Hi, stranger!"');
      await waitFor('the edit in the editor', () => doc.getText() === want || undefined, 5000);
      check(doc.isDirty, "the user's change is still unsaved");
      check(fs.readFileSync(uri.fsPath, 'utf8') === disk, 'a document with unsaved user text was written to disk');
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('undo');
      await waitFor('undo to revert the agent edit', () => doc.getText() === users || undefined, 5000).catch(() => {
        throw new Error(`undo did not restore the user's text; the document is:\n${doc.getText()}`);
      });
    },
  },
  {
    // Astral characters are two UTF-16 units each: positions that counted characters instead
    // would put the user's change, or the agent's edit, beside its place.
    name: 'astral_characters_keep_typed_changes_and_agent_edits_in_place',
    fn: async (api, root) => {
      const uri = vscode.Uri.joinPath(root, 'docs', 'astral.txt');
      fs.mkdirSync(path.dirname(uri.fsPath), { recursive: true });
      fs.writeFileSync(uri.fsPath, 'first line\n');
      const doc = await vscode.workspace.openTextDocument(uri);
      const editor = await vscode.window.showTextDocument(doc);
      check(await editor.edit((e) => e.insert(new vscode.Position(1, 0), '𝄞😀 clef and face: end\n')), 'the user typed the line');
      // An incremental change after the astral characters of that line: "end" becomes "fin".
      const at = doc.lineAt(1).text.indexOf('end');
      check(await editor.edit((e) => e.replace(new vscode.Range(1, at, 1, at + 3), 'fin')), 'the user changed the word');
      const read = resultText(await api.callTool('read', { path: 'docs/astral.txt' }));
      check(read.includes('2:𝄞😀 clef and face: fin'), `the read does not show the typed line exactly:\n${read}`);
      const tag = /#([0-9A-Fa-f]+)\]/.exec(read)?.[1];
      const r = await api.callTool('edit', { files: [{ path: 'docs/astral.txt', tag, old: 'face: fin', new: 'face: 🎻 done' }] });
      check(r.isError !== true, `the edit failed: ${resultText(r)}`);
      const want = 'first line\n𝄞😀 clef and face: 🎻 done\n';
      await waitFor('the edit in the editor', () => doc.getText() === want || undefined, 5000).catch(() => {
        throw new Error(`the document after the edit is ${JSON.stringify(doc.getText())}, want ${JSON.stringify(want)}`);
      });
      const again = resultText(await api.callTool('read', { path: 'docs/astral.txt' }));
      check(again.includes('2:𝄞😀 clef and face: 🎻 done'), `tandem's view after the edit:\n${again}`);
    },
  },
  {
    name: 'agent_edit_of_a_clean_document_is_saved',
    fn: async (api, root) => {
      const uri = vscode.Uri.joinPath(root, 'cmd/greet/main.go');
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      const read = resultText(await api.callTool('read', { path: 'cmd/greet/main.go' }));
      const tag = /#([0-9A-Fa-f]+)\]/.exec(read)?.[1];
      const r = await api.callTool('edit', { files: [{ path: 'cmd/greet/main.go', tag, ops: [{ append: '// appended by the agent\n' }] }] });
      check(r.isError !== true, `the edit failed: ${resultText(r)}`);
      await waitFor('the edit in the editor', () => doc.getText().includes('// appended by the agent') || undefined, 5000);
      // Under heavy load the document was once still unsaved here: wait for the save to land.
      await waitFor('the document saved', () => !doc.isDirty || undefined, 5000).catch(() => undefined);
      check(!doc.isDirty, 'the document was saved');
      check(fs.readFileSync(uri.fsPath, 'utf8') === doc.getText(), 'the disk holds the document');
    },
  },
  {
    // The user's settings ask before a program tandem cannot classify (exec); the driver clicks
    // "Allow" on the notification that names ./allowed.sh.
    name: 'bash_step_allowed_from_the_notification',
    fn: async (api, root) => {
      fs.writeFileSync(vscode.Uri.joinPath(root, 'allowed.sh').fsPath, '#!/bin/sh\ntouch allowed.txt\n', { mode: 0o755 });
      const r = await api.callTool('bash', { command: './allowed.sh' });
      check(r.isError !== true, `the script failed: ${resultText(r)}`);
      check(fs.existsSync(vscode.Uri.joinPath(root, 'allowed.txt').fsPath), 'the allowed step did not run');
    },
  },
  {
    // The driver clicks "Deny" on the notification that names ./denied.sh.
    name: 'bash_step_denied_from_the_notification',
    fn: async (api, root) => {
      fs.writeFileSync(vscode.Uri.joinPath(root, 'denied.sh').fsPath, '#!/bin/sh\ntouch denied.txt\n', { mode: 0o755 });
      const text = resultText(await api.callTool('bash', { command: './denied.sh' }));
      check(text.includes('denied'), `the result does not say denied:\n${text}`);
      check(!fs.existsSync(vscode.Uri.joinPath(root, 'denied.txt').fsPath), 'the denied step ran');
    },
  },
  {
    name: 'language_model_tools_are_tandems_own',
    fn: async (api) => {
      const tandem = await api.listTools();
      const lm = vscode.lm.tools.filter((t) => t.name.startsWith(lmToolPrefix));
      const hint = 'package.json differs from tandem/listTools: run node scripts/lm-tools.mjs';
      check(
        JSON.stringify(lm.map((t) => t.name).sort()) === JSON.stringify(tandem.map((t) => lmToolPrefix + t.name).sort()),
        `${hint}; VS Code has ${lm.map((t) => t.name).join(', ')}`,
      );
      for (const t of tandem) {
        const mine = lm.find((l) => l.name === lmToolPrefix + t.name)!;
        assert.deepStrictEqual({ description: mine.description, inputSchema: mine.inputSchema }, { description: t.description, inputSchema: t.inputSchema }, `${hint} (${t.name})`);
      }
    },
  },
  {
    // As Copilot's agent mode calls them, through VS Code: lm.invokeTool outside a chat, so
    // every call here is in the one session of calls without a chat, not the window's.
    name: 'language_model_tools_read_edit_the_buffer_refuse_unseen_lines_and_run_bash',
    fn: async (api, root) => {
      const uri = vscode.Uri.joinPath(root, 'lm.txt');
      const disk = 'one\ntwo\nthree\nfour\nfive\n';
      fs.writeFileSync(uri.fsPath, disk);
      const doc = await vscode.workspace.openTextDocument(uri);
      const editor = await vscode.window.showTextDocument(doc);
      check(await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'typed, not saved\n')), 'the user typed');
      const invoke = async (tool: string, input: object): Promise<string> => {
        const r = await vscode.lm.invokeTool(lmToolPrefix + tool, { input, toolInvocationToken: undefined });
        return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
      };

      // The window's session has seen the file; the chat agent has not, so its tag is no
      // version the agent has seen.
      const windowRead = resultText(await api.callTool('read', { path: 'lm.txt' }));
      const windowTag = /#([0-9A-Fa-f]+)\]/.exec(windowRead)?.[1];
      const stale = await invoke('edit', { files: [{ path: 'lm.txt', tag: windowTag, ops: [{ replace: '5:four', text: 'FOUR' }] }] });
      check(stale.startsWith('NOT applied') && stale.includes('Read the file, then call edit again'), `another session's tag was not refused:\n${stale}`);
      // Shown lines 1-2 only, the agent may not anchor on line 5.
      const part = await invoke('read', { path: 'lm.txt', lines: '1-2' });
      const partTag = /#([0-9A-Fa-f]+)\]/.exec(part)?.[1];
      const unseen = await invoke('edit', { files: [{ path: 'lm.txt', tag: partTag, ops: [{ replace: '5:four', text: 'FOUR' }] }] });
      check(unseen.startsWith('NOT applied') && unseen.includes('you have not seen line 5'), `the unseen line was not refused:\n${unseen}`);
      check(unseen.includes('call edit again'), `the refusal does not say what to do next:\n${unseen}`);
      check(!doc.getText().includes('FOUR'), 'a refused edit reached the buffer');

      const read = await invoke('read', { path: 'lm.txt' });
      check(read.startsWith('[lm.txt#') && /^1:typed, not saved$/m.test(read) && /^6:five$/m.test(read), `the read is not the numbered buffer:\n${read}`);
      const tag = /#([0-9A-Fa-f]+)\]/.exec(read)?.[1];
      const edited = await invoke('edit', { files: [{ path: 'lm.txt', tag, ops: [{ replace: '6:five', text: 'FIVE' }] }] });
      await waitFor('the edit in the buffer', () => doc.getText() === 'typed, not saved\none\ntwo\nthree\nfour\nFIVE\n' || undefined, 5000).catch(() => {
        throw new Error(`the buffer is:\n${doc.getText()}\nthe edit answered:\n${edited}`);
      });
      check(doc.isDirty, "the user's line is still unsaved");
      check(fs.readFileSync(uri.fsPath, 'utf8') === disk, `a document with unsaved user text was written to disk; the edit answered:\n${edited}`);

      const ran = await invoke('bash', { command: 'echo from-the-chat-agent > lm-step.txt' });
      const step = vscode.Uri.joinPath(root, 'lm-step.txt').fsPath;
      check(fs.existsSync(step) && fs.readFileSync(step, 'utf8') === 'from-the-chat-agent\n', `the bash step did not run:\n${ran}`);
    },
  },
  {
    // Before the install test: the workspace servers it writes into .mcp.json need the
    // user's approval to start, which `tandem mcp list` would wait for.
    name: 'terminal_env_reaches_the_integrated_terminal_and_the_bridge_answers',
    fn: async (api, root) => {
      await api.ready();
      const vars = api.terminalEnvironment();
      check(Object.keys(vars).length > 0, 'tandem gave no terminal environment');
      const tandem = vscode.workspace.getConfiguration('tandem').get<string>('path', 'tandem');
      const t = vscode.window.createTerminal({
        name: 'tandem e2e',
        cwd: root,
        shellPath: '/bin/sh',
        shellArgs: ['-c', `env > env.txt; '${tandem}' mcp list > list.txt 2>&1; echo $? > status.txt`],
      });
      const status = vscode.Uri.joinPath(root, 'status.txt').fsPath;
      await waitFor('the terminal to finish', () => (fs.existsSync(status) && fs.readFileSync(status, 'utf8').endsWith('\n')) || undefined);
      t.dispose();
      const env = fs.readFileSync(vscode.Uri.joinPath(root, 'env.txt').fsPath, 'utf8');
      for (const [k, v] of Object.entries(vars)) {
        check(env.includes(`${k}=${v}\n`), `the terminal lacks ${k}`);
      }
      const list = fs.readFileSync(vscode.Uri.joinPath(root, 'list.txt').fsPath, 'utf8');
      check(fs.readFileSync(status, 'utf8') === '0\n', `tandem mcp list did not reach the bridge: ${list}`);
    },
  },
  {
    name: 'install_command_sets_agents_up_and_refuses_invalid_json',
    fn: async (_api, root) => {
      const file = (f: string) => vscode.Uri.joinPath(root, f).fsPath;
      fs.writeFileSync(file('.mcp.json'), '{"mcpServers": {"other": {"command": "x"}}}\n');
      fs.mkdirSync(file('.vscode'), { recursive: true });
      const editing = '{"servers": {"mine": {"command": "y"},';
      fs.writeFileSync(file('.vscode/mcp.json'), editing);
      const install = async () => {
        const report = await vscode.commands.executeCommand<InstallReport>('tandem.installAgentConfig');
        const line = (who: string) => report.lines.find((l) => l.startsWith(`${who}: `)) ?? `no ${who} line in ${JSON.stringify(report.lines)}`;
        return { report, line };
      };

      const first = await install();
      check(first.line('claude') === `claude: added to ${file('.mcp.json')}`, first.line('claude'));
      check(first.line('codex') === `codex: added to ${file('.codex/config.toml')}`, first.line('codex'));
      check(first.line('gemini') === `gemini: added to ${file('.gemini/settings.json')}`, first.line('gemini'));
      check(first.line('cursor') === `cursor: added to ${file('.cursor/mcp.json')}`, first.line('cursor'));
      // Refused, naming what is wrong and where, and left as the user is writing it.
      const refusal = `vscode: skipped: ${file('.vscode/mcp.json')}: line 1, column 39: `;
      check(first.line('vscode').startsWith(refusal) && first.line('vscode').includes('fix the file'), first.line('vscode'));
      check(fs.readFileSync(file('.vscode/mcp.json'), 'utf8') === editing, 'the file being edited was changed');
      check(first.line('AGENTS.md') === 'AGENTS.md: created', first.line('AGENTS.md'));
      // The rule's text is tandem's (mcpinstall tests it): here, that it is the whole file, one block.
      const rule = fs.readFileSync(file('AGENTS.md'), 'utf8');
      check(/^<!-- tandem:begin -->\n## tandem\n[^]*`tandem mcp serve`[^]*\n<!-- tandem:end -->\n$/.test(rule) && rule.split('tandem:begin').length === 2, `AGENTS.md is not the working rule:\n${rule}`);
      check(!first.report.ok, 'a skipped agent was reported as all done');
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(file('.mcp.json'), 'utf8')), {
        mcpServers: { other: { command: 'x' }, tandem: { command: 'tandem', args: ['mcp', 'serve'], alwaysLoad: true } },
      });

      const again = await install();
      for (const [who, f] of [['claude', '.mcp.json'], ['codex', '.codex/config.toml'], ['gemini', '.gemini/settings.json'], ['cursor', '.cursor/mcp.json']]) {
        check(again.line(who) === `${who}: already there in ${file(f)}`, again.line(who));
      }
      check(again.line('vscode').startsWith(refusal), again.line('vscode'));
      check(again.line('AGENTS.md') === 'AGENTS.md: unchanged', again.line('AGENTS.md'));
    },
  },
  {
    name: 'read_active_file_command_shows_what_the_model_sees',
    fn: async (_api, root) => {
      await vscode.window.showTextDocument(vscode.Uri.joinPath(root, 'internal/names/names_test.go'));
      await vscode.commands.executeCommand('tandem.readActiveFile');
      const doc = await waitFor('the result document', () => {
        const d = vscode.window.activeTextEditor?.document;
        return d?.uri.scheme === 'tandem-result' ? d : undefined;
      });
      check(doc.getText().startsWith('[internal/names/names_test.go#'), `the result is:\n${doc.getText()}`);
      check(/^1:/m.test(doc.getText()), 'the result has numbered rows');
    },
  },
  {
    // A session opened by one call is the session of every call made meanwhile: seen lines
    // are per session, so two sessions would refuse an edit of lines the other one read.
    name: 'calls_made_at_once_share_one_session',
    fn: async (api) => {
      await vscode.commands.executeCommand('tandem.closeSession');
      const [a, b] = await Promise.all([api.openSession(), api.openSession()]);
      check(a === b, `two sessions opened at once: ${a} and ${b}`);
      check((await api.openSession()) === a, 'a later call got another session');
    },
  },
  {
    name: 'restart_reconnects_with_a_new_session_and_terminal_environment',
    fn: async (api) => {
      const before = JSON.stringify(api.terminalEnvironment());
      const first = await api.openSession();
      await vscode.commands.executeCommand('tandem.restart');
      await waitFor('the new terminal environment', () => {
        const now = JSON.stringify(api.terminalEnvironment());
        return now !== '{}' && now !== before ? true : undefined;
      });
      const second = await api.openSession();
      check(second !== first, 'the restarted backend kept the old session id');
      const r = await api.callTool('read', { path: 'README.md' });
      check(r.isError !== true, `read after restart failed: ${resultText(r)}`);
    },
  },
  {
    // With the tandem approval capability left undeclared, the question comes as
    // window/showMessageRequest, shown by vscode-languageclient; the driver clicks "Allow".
    name: 'bash_step_allowed_through_window_showMessageRequest',
    fn: async (api, root) => {
      const cfg = vscode.workspace.getConfiguration('tandem');
      await cfg.update('approvals', 'native', vscode.ConfigurationTarget.Global);
      try {
        await vscode.commands.executeCommand('tandem.restart');
        fs.writeFileSync(vscode.Uri.joinPath(root, 'native.sh').fsPath, '#!/bin/sh\ntouch native.txt\n', { mode: 0o755 });
        const r = await api.callTool('bash', { command: './native.sh' });
        check(r.isError !== true, `the script failed: ${resultText(r)}`);
        check(fs.existsSync(vscode.Uri.joinPath(root, 'native.txt').fsPath), 'the allowed step did not run');
      } finally {
        await cfg.update('approvals', undefined, vscode.ConfigurationTarget.Global);
      }
    },
  },
  {
    name: 'code_tool_and_problems_after_edits_from_the_typescript_server',
    fn: async (api, root) => {
      // VS Code's built-in TypeScript support is the language server here: no extension needed.
      const file = vscode.Uri.joinPath(root, 'web', 'greet.ts');
      fs.mkdirSync(path.dirname(file.fsPath), { recursive: true });
      fs.writeFileSync(
        file.fsPath,
        "export function greet(name: string): string {\n  return 'Hello, ' + name;\n}\n\nexport const message: string = greet('you');\n",
      );
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
      await waitFor(
        'the TypeScript server to answer',
        async () => ((await vscode.commands.executeCommand<unknown[]>('vscode.executeDocumentSymbolProvider', file)) ?? []).length > 0,
        60000,
      );
      const names = (await api.listTools()).map((t) => t.name);
      check(names.includes('code'), `the code tool is not listed: ${names.join(', ')}`);

      const symbols = resultText(await api.callTool('code', { op: 'symbols', path: 'web/greet.ts' }));
      check(symbols.includes('function greet 1-3') && /\bmessage 5\b/.test(symbols), `symbols:\n${symbols}`);
      const defn = resultText(await api.callTool('code', { op: 'definition', path: 'web/greet.ts', line: 5, symbol: 'greet' }));
      check(defn.includes('[web/greet.ts#') && defn.includes("1:export function greet(name: string): string {"), `definition:\n${defn}`);
      const refs = resultText(await api.callTool('code', { op: 'references', path: 'web/greet.ts', line: 1, symbol: 'greet' }));
      check(refs.includes('1:export function greet') && refs.includes("5:export const message: string = greet('you');"), `references:\n${refs}`);

      // The references' rows are seen: the edit anchors on row 5 without another read.
      const tag = /#([0-9A-F]+)\]/.exec(refs)?.[1];
      const broke = resultText(
        await api.callTool('edit', { files: [{ path: 'web/greet.ts', tag, ops: [{ replace: "5:export const message: string = greet('you');", text: 'export const message: string = greet(42);' }] }] }),
      );
      check(
        broke.includes('new problem(s) after this change') && /web\/greet\.ts:5: error: Argument of type 'number' is not assignable/.test(broke),
        `the breaking edit's reply:\n${broke}`,
      );
      const problems = resultText(await api.callTool('code', { op: 'diagnostics', path: 'web/greet.ts' }));
      check(problems.includes('web/greet.ts:5: error:') && problems.includes('(ts)'), `diagnostics:\n${problems}`);
      const read = resultText(await api.callTool('read', { path: 'web/greet.ts' }));
      const fixed = resultText(
        await api.callTool('edit', {
          files: [{ path: 'web/greet.ts', tag: /#([0-9A-F]+)\]/.exec(read)?.[1], ops: [{ replace: '5:export const message: string = greet(42);', text: "export const message: string = greet('you');" }] }],
        }),
      );
      check(fixed.includes('Applied to web/greet.ts.') && !fixed.includes('new problem'), `the fixing edit's reply:\n${fixed}`);
      if (!fixed.includes('1 problem(s) the editor reported before are fixed')) {
        // On a loaded machine the TypeScript server may report the fix after the edit's bounded
        // wait: the problem must then leave the editor's diagnostics soon after.
        await waitFor(
          'the fixed problem to leave the diagnostics',
          async () => !resultText(await api.callTool('code', { op: 'diagnostics', path: 'web/greet.ts' })).includes('web/greet.ts:5: error:') || undefined,
          30000,
        );
      }
    },
  },
];

export async function run(): Promise<void> {
  const out = process.env.TANDEM_E2E_OUT;
  const report: { passed: string[]; failed: { name: string; error: string }[] } = { passed: [], failed: [] };
  if (out && fs.existsSync(out)) {
    // The window reloaded (the driver's setup tests): the cases ran and reported; this new
    // extension host goes on doing what the driver asks.
    const api = await waitFor('the tandem extension', () => vscode.extensions.getExtension<TandemApi>('tandemdev.tandem'));
    await serve(out, await api.activate(), await waitFor('a workspace folder', () => vscode.workspace.workspaceFolders?.[0]?.uri));
    return;
  }
  try {
    const root = await waitFor('a workspace folder', () => vscode.workspace.workspaceFolders?.[0]?.uri);
    const ext = await waitFor('the tandem extension', () => vscode.extensions.getExtension<TandemApi>('tandemdev.tandem'));
    const api = await ext.activate();
    // TANDEM_E2E_ONLY_CHAT: only the chat tests (the driver's), for working on the chat.
    // TANDEM_E2E_CASES: only the cases whose names this regular expression matches.
    const only = new RegExp(process.env.TANDEM_E2E_CASES ?? '');
    for (const c of process.env.TANDEM_E2E_ONLY_CHAT ? [] : cases.filter((c) => only.test(c.name))) {
      const start = Date.now();
      try {
        await c.fn(api, root);
        report.passed.push(`${c.name} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
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
    // The extension host ends when run() returns: stay up, doing what the driver asks for its
    // chat tests, until it has finished (it writes OUT.done), at most 10 minutes.
    const api = vscode.extensions.getExtension<TandemApi>('tandemdev.tandem')?.exports;
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (api && root) {
      await serve(out, api, root);
    }
  }
}

// --- what the driver's chat tests ask of the extension host --------------------------------
// The driver writes OUT.req.N.json ({op, ...}); the answer is OUT.res.N.json ({ok, value} or
// {ok: false, error}). Setting up a model, reading files and the editor's tabs need the real
// vscode API; clicking in the chat is the driver's.

let replay: ChildProcess | undefined;

function stopReplay(): void {
  if (replay && replay.exitCode === null) {
    replay.kill();
  }
  replay = undefined;
}

/** Starts `tandem replay [ARGS] SCRIPT` and resolves with it and the URL it serves. */
async function spawnReplay(script: unknown, args: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const file = path.join(os.tmpdir(), `tandem-chat-script-${process.pid}-${Date.now()}.json`);
  fs.writeFileSync(file, JSON.stringify(script));
  const tandem = vscode.workspace.getConfiguration('tandem').get<string>('path', 'tandem');
  const child = spawn(tandem, ['replay', ...args, file], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    process.stderr.write(d);
  });
  const first = await new Promise<string>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout });
    rl.once('line', (l) => resolve(l));
    child.once('exit', (code) => reject(new Error(`tandem replay exited ${code}: ${stderr.trim()}`)));
    child.once('error', reject);
  });
  return { child, url: (JSON.parse(first) as { url: string }).url };
}

/** Starts `tandem replay SCRIPT` as the chat's model and resolves with the URL it serves. */
async function startReplay(script: unknown): Promise<string> {
  stopReplay();
  const { child, url } = await spawnReplay(script);
  replay = child;
  return url;
}

/** A local Ollama: a scripted model where Ollama listens (`tandem replay --listen`). */
let ollama: ChildProcess | undefined;

function userConfigFile(): string {
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'tandem', 'config.json');
}

type Req = { op: string; [k: string]: unknown };

async function handle(api: TandemApi, root: vscode.Uri, r: Req): Promise<unknown> {
  switch (r.op) {
    case 'useModel': {
      // A fresh tandem on a new user config: the scripted model (or none), then a new chat.
      let config: unknown = {};
      if (r.script) {
        // deadUrl: a provider nobody listens at (the network card).
        const url = r.deadUrl ? 'http://127.0.0.1:9' : await startReplay(r.script);
        const replayProvider = { api: 'anthropic', url };
        config = { agent: { model: 'replay/any', providers: { replay: replayProvider }, models: { 'replay/any': { window: 200000, price: { input: 3, output: 15 }, images: true }, 'replay/other': { window: 100000 }, 'replay/a-model-whose-name-is-wider-than-a-narrow-sidebar': { window: 100000 } } } };
      } else {
        stopReplay();
      }
      fs.mkdirSync(path.dirname(userConfigFile()), { recursive: true });
      fs.writeFileSync(userConfigFile(), JSON.stringify(config));
      const before = api.chat.state.session;
      await api.chat.restartBackend();
      await waitFor('the chat on the new tandem', () => {
        const s = api.chat.state.session;
        return s && s !== before ? s : undefined;
      });
      await api.chat.newChat();
      return waitFor('a new chat', () => api.chat.state.session);
    }
    case 'writeFile':
      fs.writeFileSync(vscode.Uri.joinPath(root, String(r.path)).fsPath, String(r.text), { mode: r.mode === 'exec' ? 0o755 : 0o644 });
      return null;
    case 'readFile': {
      const p = vscode.Uri.joinPath(root, String(r.path)).fsPath;
      return fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null;
    }
    case 'editFile': {
      // The user changes a file in the editor and saves it.
      const uri = vscode.Uri.joinPath(root, String(r.path));
      const doc = await vscode.workspace.openTextDocument(uri);
      const e = new vscode.WorkspaceEdit();
      e.replace(uri, new vscode.Range(0, 0, doc.lineCount, 0), String(r.text));
      await vscode.workspace.applyEdit(e);
      await doc.save();
      return null;
    }
    case 'tabs':
      return vscode.window.tabGroups.all.flatMap((g) =>
        g.tabs.map((t) => ({
          label: t.label,
          active: t.isActive,
          diff: t.input instanceof vscode.TabInputTextDiff ? { original: t.input.original.toString(), modified: t.input.modified.toString() } : undefined,
          uri: t.input instanceof vscode.TabInputText ? t.input.uri.toString() : undefined,
        })),
      );
    case 'diffText': {
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
      if (!(tab?.input instanceof vscode.TabInputTextDiff)) {
        return null;
      }
      const [a, b] = await Promise.all([vscode.workspace.openTextDocument(tab.input.original), vscode.workspace.openTextDocument(tab.input.modified)]);
      return { original: a.getText(), modified: b.getText() };
    }
    case 'activeEditor': {
      const ed = vscode.window.activeTextEditor;
      return ed ? { path: vscode.workspace.asRelativePath(ed.document.uri), line: ed.selection.active.line + 1 } : null;
    }
    case 'select': {
      const ed = await vscode.window.showTextDocument(vscode.Uri.joinPath(root, String(r.path)));
      ed.selection = new vscode.Selection(Number(r.from) - 1, 0, Number(r.to) - 1, ed.document.lineAt(Number(r.to) - 1).text.length);
      return null;
    }
    case 'closeEditors':
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      return null;
    case 'chatState':
      return api.chat.state;
    case 'command':
      return vscode.commands.executeCommand(String(r.command), ...((r.args as unknown[]) ?? []));
    case 'prompt':
      // As if typed while the chat is hidden: the turn runs; the driver does the rest.
      void api.chat.prompt(String(r.text));
      return null;
    case 'firstRun': {
      // A user who has set no model: the scripted model is their anthropic provider's URL
      // (so the card's Anthropic reaches it), agent.model unset; a fresh tandem, a new chat.
      await vscode.commands.executeCommand('tandem.chat.focus');
      const url = await startReplay(r.script);
      const config = { agent: { providers: { anthropic: { api: 'anthropic', url, apiKeyEnv: 'ANTHROPIC_API_KEY' } }, models: { 'anthropic/claude-big-2': { window: 200000 } } } };
      fs.mkdirSync(path.dirname(userConfigFile()), { recursive: true });
      fs.writeFileSync(userConfigFile(), JSON.stringify(config));
      const before = api.chat.state.session;
      await api.chat.restartBackend();
      await waitFor('the chat on the new tandem', () => {
        const s = api.chat.state.session;
        return s && s !== before ? s : undefined;
      });
      return api.chat.state.session;
    }
    case 'ollama': {
      // With a script, Ollama "runs" on this machine; without, it stops.
      if (ollama && ollama.exitCode === null) {
        const gone = new Promise((resolve) => ollama!.once('exit', resolve));
        ollama.kill();
        await gone;
      }
      ollama = undefined;
      if (r.script) {
        ollama = (await spawnReplay(r.script, ['--listen', '127.0.0.1:11434'])).child;
      }
      return null;
    }
    case 'useTandem': {
      // The user points tandem.path at another tandem (none: back to PATH's) and restarts it.
      await vscode.workspace.getConfiguration('tandem').update('path', r.path, vscode.ConfigurationTarget.Global);
      const before = api.chat.state.session;
      await api.chat.restartBackend();
      return waitFor('the chat on the new tandem', () => {
        const s = api.chat.state.session;
        return s && s !== before ? s : undefined;
      });
    }
    case 'userConfig':
      return fs.readFileSync(userConfigFile(), 'utf8');
    case 'terminalEnvironment':
      return api.terminalEnvironment();
  }
  const more = await reviewOp(api, root, r);
  if (more) {
    return more.value;
  }
  throw new Error(`unknown op ${r.op}`);
}

/** Which window is serving: the driver counts reloads in OUT.generation. */
function generation(out: string): string {
  return fs.existsSync(`${out}.generation`) ? fs.readFileSync(`${out}.generation`, 'utf8') : '0';
}

async function serve(out: string, api: TandemApi, root: vscode.Uri): Promise<void> {
  const end = Date.now() + 600000;
  const mine = generation(out);
  let n = 0;
  // After a reload, the requests the window before answered are done.
  while (fs.existsSync(`${out}.res.${n}.json`)) {
    n++;
  }
  try {
    while (!fs.existsSync(out + '.done') && Date.now() < end) {
      if (generation(out) !== mine) {
        // The window reloaded: the new extension host answers now. This one stays up (ending
        // its tests would end the window) until code-server takes it down.
        stopReplay();
        await new Promise(() => undefined);
      }
      const req = `${out}.req.${n}.json`;
      if (!fs.existsSync(req)) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      let res: unknown;
      try {
        res = { ok: true, value: await handle(api, root, JSON.parse(fs.readFileSync(req, 'utf8')) as Req) };
      } catch (e) {
        res = { ok: false, error: (e as Error).stack ?? String(e) };
      }
      fs.writeFileSync(`${out}.res.${n}.json.tmp`, JSON.stringify(res ?? null));
      fs.renameSync(`${out}.res.${n}.json.tmp`, `${out}.res.${n}.json`);
      n++;
    }
  } finally {
    stopReplay();
    ollama?.kill();
  }
}
