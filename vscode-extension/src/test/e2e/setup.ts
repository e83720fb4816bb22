// The first run, as a new user meets it: no model set, the chat's setup card, a wrong key and
// an unreachable server said in the card, the right key, the provider's models listed, one
// picked — and the same chat (same tandem process, same session) answers. Then the window
// reloads: the empty chat lists the recent chats, offers things to try, and tandem got the
// stored key again (no card). The model is `tandem replay` with a key and a model list, set as
// the user's anthropic provider's URL. Runs last: it reloads the window.
import * as path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import type { Host, Report } from './chat';

const sidebarFrame = 'iframe.webview[src*="extensionId=tandemdev.tandem"][src*="purpose=webviewView"]';
const rightKey = 'sk-ant-e2e-right';
const firstPrompt = 'Say hello through the model I set up';

/** reload: reloads the window, the extension host the tests talk to included. */
export async function setupTests(page: Page, host: Host, artifacts: string, report: Report, reload: () => Promise<void>): Promise<void> {
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
        await host('firstRun', {
          script: { format: 'anthropic', key: rightKey, models: ['claude-small-1', 'claude-big-2'], responses: [{ parts: [{ text: 'Hello from the model you chose.' }], usage: { input: 900, output: 12 } }] },
        });
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
  ];
  for (const [name, fn] of cases) {
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
