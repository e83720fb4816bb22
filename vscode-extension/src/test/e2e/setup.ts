// The first run, as a new user meets it: no model set, the chat's setup card, a wrong key and
// an unreachable server said in the card, the right key, the provider's models listed, one
// picked — and the same chat (same tandem process, same session) answers. Then the window
// reloads: the empty chat lists the recent chats, offers things to try, and tandem got the
// stored key again (no card). The model is `tandem replay` with a key and a model list, set as
// the user's anthropic provider's URL. Runs last: it reloads the window. Then a local Ollama
// (the same scripted model at 127.0.0.1:11434) found, listed and answering with no key.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import type { Host, Report } from './chat';

const sidebarFrame = 'iframe.webview[src*="extensionId=tandemdev.tandem"][src*="purpose=webviewView"]';
const rightKey = 'sk-ant-e2e-right';
const firstPrompt = 'Say hello through the model I set up';
const firstRunScript = {
  format: 'anthropic',
  key: rightKey,
  models: ['claude-small-1', 'claude-big-2'],
  responses: [{ parts: [{ text: 'Hello from the model you chose.' }], usage: { input: 900, output: 12 } }],
};
const repo = path.resolve(__dirname, '../../../..');

/** The extension's version checks in its log: one a start of tandem. */
function versionLines(log: string): { tandem: string; path: string; extension: string; verdict: string }[] {
  return [...log.matchAll(/\] tandem (\S+) \((.*)\), this extension (\S+): (.*)$/gm)].map((m) => ({ tandem: m[1], path: m[2], extension: m[3], verdict: m[4] }));
}

/**
 * reload: reloads the window, the extension host the tests talk to included; log: the
 * extension's tandem log so far.
 */
export async function setupTests(page: Page, host: Host, artifacts: string, report: Report, reload: () => Promise<void>, log: () => string): Promise<void> {
  const f: FrameLocator = page.frameLocator(sidebarFrame).frameLocator('iframe#active-frame');
  const shot = (name: string) => page.screenshot({ path: path.join(artifacts, name) });
  const card = f.locator('.card.setup');
  const trouble = card.locator('.setup-error');
  const said = async (text: string) => {
    await card.locator('.setup-error', { hasText: text }).waitFor({ timeout: 20000 }).catch(async () => {
      throw new Error(`the card says ${JSON.stringify(await trouble.innerText())}, not ${JSON.stringify(text)}`);
    });
  };
  const state = async () => (await host('chatState')) as { session?: string; model?: string; storedKeys: string[] };

  const cases: [string, () => Promise<void>][] = [
    [
      'setup_card_says_a_wrong_key_and_an_unreachable_server',
      async () => {
        await host('firstRun', { script: firstRunScript });
        await host('command', { command: 'tandem.chat.focus' });
        await card.waitFor({ timeout: 20000 });
        // The Session view starts folded, so the card's buttons are in view.
        if ((await page.locator('.pane-header[aria-expanded="true"]', { hasText: /^Session/ }).count()) !== 0) {
          throw new Error('the Session view starts expanded');
        }
        // Ollama is offered when, and only when, it answers on this machine.
        const ollama = await fetch('http://127.0.0.1:11434/api/tags', { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
        if ((await card.getByRole('radio', { name: /Ollama/ }).count()) !== (ollama ? 1 : 0)) {
          throw new Error(`Ollama ${ollama ? 'answers' : 'does not answer'} here, and the card ${ollama ? 'does not offer' : 'offers'} it`);
        }
        await shot('setup-card.png');
        await card.getByRole('radio', { name: 'Anthropic' }).check();
        await card.getByRole('button', { name: 'List models' }).click();
        await said('Paste your Anthropic API key');
        await card.getByLabel('Anthropic API key').fill('sk-ant-e2e-wrong');
        await card.getByRole('button', { name: 'List models' }).click();
        await said('Anthropic refused the key. Paste the right key');
        await shot('setup-wrong-key.png');
        await card.getByRole('radio', { name: 'llama.cpp server' }).check();
        await card.getByLabel('Server URL').fill('http://127.0.0.1:9');
        await card.getByRole('button', { name: 'List models' }).click();
        await said('Nothing answers at that URL. Start the server (or fix the URL)');
        if ((await state()).storedKeys.length !== 0) {
          throw new Error('a key that did not work was stored');
        }
      },
    ],
    [
      'setup_card_keeps_a_typed_key_when_a_prompt_redraws_it',
      async () => {
        // A fresh first run (this case also runs alone), the key half pasted in, then the user
        // sends a prompt: tandem has no model, so the card is drawn again, with what was typed.
        await host('firstRun', { script: firstRunScript });
        await host('command', { command: 'tandem.chat.focus' });
        await card.waitFor({ timeout: 20000 });
        const typed = 'sk-ant-e2e-typed-before-a-prompt';
        await card.getByRole('radio', { name: 'OpenAI' }).check();
        await card.getByLabel('OpenAI API key').fill(typed);
        await card.evaluate("(c) => c.setAttribute('data-drawn-before', '')");
        const box = f.locator('#prompt');
        await box.fill('Are you there?');
        await box.press('Enter');
        await f.locator('.card.setup:not([data-drawn-before])').waitFor({ timeout: 20000 });
        if ((await card.count()) !== 1) {
          throw new Error(`${await card.count()} setup cards after the prompt`);
        }
        if (!(await card.getByRole('radio', { name: 'OpenAI' }).isChecked())) {
          throw new Error('the redrawn card forgot the provider chosen');
        }
        const kept = await card.getByLabel('OpenAI API key').inputValue();
        if (kept !== typed) {
          throw new Error(`the redrawn card's key field holds ${JSON.stringify(kept)}, not what was typed`);
        }
        // Kept in the webview only: not in the user's settings, not in the extension's log.
        if (((await host('userConfig')) as string).includes(typed) || log().includes(typed) || (await state()).storedKeys.length !== 0) {
          throw new Error('the typed key reached the settings, the log or the secret storage');
        }
      },
    ],
    [
      'setup_first_run_to_a_first_answer_without_a_restart',
      async () => {
        const before = await state();
        const restarted = f.locator('.notice', { hasText: 'tandem restarted' });
        const restarts = await restarted.count();
        const terminal = JSON.stringify(await host('terminalEnvironment'));
        await card.getByRole('radio', { name: 'Anthropic' }).check();
        await card.getByLabel('Anthropic API key').fill(rightKey);
        await card.getByRole('button', { name: 'List models' }).click();
        const models = card.getByRole('combobox', { name: 'Model' });
        await models.waitFor({ timeout: 20000 });
        const offered = await models.locator('option').allInnerTexts();
        if (JSON.stringify(offered) !== JSON.stringify(['Scripted claude-small-1 (claude-small-1)', 'Scripted claude-big-2 (claude-big-2)'])) {
          throw new Error(`the card offers ${JSON.stringify(offered)}`);
        }
        await models.selectOption('claude-big-2');
        await shot('setup-models.png');
        await card.getByRole('button', { name: 'Use this model' }).click();
        await card.waitFor({ state: 'detached', timeout: 20000 });
        await f.locator('.notice', { hasText: 'Using anthropic/claude-big-2' }).waitFor({ timeout: 5000 });
        const header = f.getByRole('combobox', { name: 'Model' }).first();
        if ((await header.inputValue()) !== 'anthropic/claude-big-2') {
          throw new Error(`the header shows ${await header.inputValue()}`);
        }
        const box = f.locator('#prompt');
        await box.fill(firstPrompt);
        await box.press('Enter');
        await f.locator('.msg.agent', { hasText: 'Hello from the model you chose.' }).waitFor({ timeout: 20000 });
        await f.locator('#app[data-running="false"]').waitFor({ timeout: 20000 });
        const after = await state();
        if (after.session !== before.session || JSON.stringify(await host('terminalEnvironment')) !== terminal) {
          throw new Error('tandem was restarted or the chat replaced to take the model');
        }
        if ((await restarted.count()) !== restarts) {
          throw new Error('the chat says tandem restarted');
        }
        if (JSON.stringify(after.storedKeys) !== '["anthropic"]') {
          throw new Error(`the stored keys are ${JSON.stringify(after.storedKeys)}`);
        }
        const settings = (await host('userConfig')) as string;
        const parsed = JSON.parse(settings) as { agent?: { model?: string } };
        if (parsed.agent?.model !== 'anthropic/claude-big-2' || settings.includes(rightKey)) {
          throw new Error(`the user's settings are ${settings}`);
        }
        await shot('setup-first-answer.png');
      },
    ],
    [
      'setup_after_a_reload_the_empty_chat_lists_recent_chats_with_the_key_given_again',
      async () => {
        await reload();
        await host('command', { command: 'tandem.chat.focus' });
        const welcome = f.locator('.welcome');
        await welcome.waitFor({ timeout: 30000 });
        const recent = welcome.getByRole('button', { name: firstPrompt });
        await recent.waitFor({ timeout: 5000 });
        if ((await card.count()) !== 0) {
          throw new Error('the setup card is back after a reload: the stored key was not given to the new tandem');
        }
        const header = f.getByRole('combobox', { name: 'Model' }).first();
        if ((await header.inputValue()) !== 'anthropic/claude-big-2') {
          throw new Error(`after the reload the header shows ${await header.inputValue()}`);
        }
        const tries = welcome.locator('.welcome-try');
        if ((await tries.count()) < 2) {
          throw new Error('the empty chat offers nothing to try');
        }
        await shot('setup-after-reload.png');
        const idea = await tries.first().innerText();
        await tries.first().click();
        if ((await f.locator('#prompt').inputValue()) !== idea) {
          throw new Error('a thing to try did not fill the prompt box');
        }
        await recent.click();
        await f.locator('.msg.user', { hasText: firstPrompt }).waitFor({ timeout: 10000 });
        await f.locator('.msg.agent', { hasText: 'Hello from the model you chose.' }).waitFor({ timeout: 10000 });
        if ((await welcome.count()) !== 0) {
          throw new Error('the reopened chat still shows the empty chat’s list');
        }
      },
    ],
    [
      'setup_a_local_ollama_is_offered_listed_and_answers_with_no_key',
      async () => {
        // Ollama running on this machine: `tandem replay --listen 127.0.0.1:11434`, which
        // answers GET /api/tags in Ollama's shape and Chat Completions at /v1, as Ollama does.
        // CI is a clean machine: a port already taken fails the case, it is never skipped.
        await host('ollama', { script: { format: 'openai-chat', models: ['qwen2.5-coder:7b'], responses: [{ parts: [{ text: 'Hello from your local Ollama.' }], usage: { input: 700, output: 9 } }] } }).catch(
          (e: Error) => {
            throw new Error(`the Ollama stand-in could not listen on 127.0.0.1:11434 (something, an Ollama perhaps, already listens there: stop it): ${e.message}`);
          },
        );
        try {
          // No model set again (a fresh tandem): the card, with Ollama found.
          await host('firstRun', { script: { format: 'anthropic', key: rightKey, responses: [{ parts: [{ text: 'unused' }] }] } });
          await host('command', { command: 'tandem.chat.focus' });
          await card.waitFor({ timeout: 20000 });
          const before = await state();
          // Offered (first when the card is new; a redrawn card keeps the user's choice) and,
          // chosen, it lists its models at once: nothing to paste.
          const radio = card.getByRole('radio', { name: /Ollama/ });
          await radio.waitFor({ timeout: 5000 });
          await radio.check();
          const models = card.getByRole('combobox', { name: 'Model' });
          await models.waitFor({ timeout: 20000 });
          const offered = await models.locator('option').allInnerTexts();
          if (JSON.stringify(offered) !== JSON.stringify(['qwen2.5-coder:7b'])) {
            throw new Error(`the card offers ${JSON.stringify(offered)} from Ollama`);
          }
          if (await card.getByLabel(/API key/).isVisible()) {
            throw new Error('the card asks a key for Ollama');
          }
          await shot('setup-ollama.png');
          await models.selectOption('qwen2.5-coder:7b');
          await card.getByRole('button', { name: 'Use this model' }).click();
          await card.waitFor({ state: 'detached', timeout: 20000 });
          await f.locator('.notice', { hasText: 'Using ollama/qwen2.5-coder:7b' }).waitFor({ timeout: 5000 });
          const box = f.locator('#prompt');
          await box.fill('Say hello through my local Ollama');
          await box.press('Enter');
          await f.locator('.msg.agent', { hasText: 'Hello from your local Ollama.' }).waitFor({ timeout: 20000 });
          await f.locator('#app[data-running="false"]').waitFor({ timeout: 20000 });
          const after = await state();
          if (after.session !== before.session) {
            throw new Error('tandem was restarted or the chat replaced to take the Ollama model');
          }
          if (after.storedKeys.includes('ollama')) {
            throw new Error(`a key was stored for Ollama: ${JSON.stringify(after.storedKeys)}`);
          }
          const parsed = JSON.parse((await host('userConfig')) as string) as { agent?: { model?: string } };
          if (parsed.agent?.model !== 'ollama/qwen2.5-coder:7b') {
            throw new Error(`agent.model is ${parsed.agent?.model}`);
          }
        } finally {
          await host('ollama');
        }
      },
    ],
    [
      'version_warning_names_both_builds_and_the_binary_and_a_same_build_start_shows_none',
      async () => {
        // A tandem of another build, as a user's older install first on PATH: the same tandem,
        // stamped as the Makefile stamps it but with another version.
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-other-build-'));
        const other = path.join(dir, 'tandem');
        const otherVersion = 'v0.0.1-another-build';
        execFileSync('go', ['build', '-ldflags', `-X main.version=${otherVersion}`, '-o', other, './cmd/tandem'], { cwd: repo, env: { ...process.env, CGO_ENABLED: '0' }, stdio: 'inherit' });
        const warnings = page.locator('.notification-list-item', { hasText: 'A tandem of another build' });
        try {
          await host('command', { command: 'notifications.clearAll' });
          // The same build: PATH's tandem, built from this tree as the extension was.
          const seen = versionLines(log()).length;
          await host('useTandem', {});
          const same = versionLines(log()).slice(seen);
          if (same.length !== 1 || same[0].verdict !== 'the same build') {
            throw new Error(`a start of PATH's tandem logged ${JSON.stringify(same)}, not one start of the same build (a tree with uncommitted changes cannot be told apart: commit, then run the tests)`);
          }
          const mine = same[0].extension;
          // Another build: said in a warning naming both versions and the binary started.
          await host('useTandem', { path: other });
          if (!(await page.locator('.notifications-center.visible').isVisible())) {
            await page.locator('.statusbar-item', { has: page.locator('.codicon-bell, .codicon-bell-dot') }).first().click({ timeout: 5000 });
          }
          await warnings.first().waitFor({ timeout: 20000 });
          const text = await warnings.first().innerText();
          for (const want of [`tandem ${otherVersion} (${other})`, `this extension ${mine}`, 'different builds', 'set tandem.path']) {
            if (!text.includes(want)) {
              throw new Error(`the warning does not say ${JSON.stringify(want)}: ${JSON.stringify(text)}`);
            }
          }
          await warnings.first().getByRole('button', { name: 'Run tandem doctor' }).waitFor({ timeout: 5000 });
          await shot('version-warning.png');
          // The same-build start before showed none: this one is the only warning since the clear.
          if ((await warnings.count()) !== 1) {
            throw new Error(`${await warnings.count()} version warnings after one start of another build: ${JSON.stringify(await warnings.allInnerTexts())}`);
          }
        } finally {
          await host('useTandem', {});
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    ],
  ];
  // TANDEM_E2E_SETUP_CASES: only the cases whose names this regular expression matches.
  const only = new RegExp(process.env.TANDEM_E2E_SETUP_CASES ?? '');
  for (const [name, fn] of cases.filter(([n]) => only.test(n))) {
    const start = Date.now();
    try {
      await fn();
      report.passed.push(`${name} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
    } catch (e) {
      report.failed.push({ name, error: (e as Error).stack ?? String(e) });
      await shot(`${name}-failed.png`).catch(() => undefined);
    }
  }
}
