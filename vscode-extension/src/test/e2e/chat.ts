// The chat tests: the driver, as a user, types and clicks inside the chat's webview (code-server
// puts it in iframe.webview → iframe#active-frame) against `tandem replay`, a scripted model.
// What needs the vscode API (a model set up, files, the editor's tabs) the extension host does
// on request (index.ts, handle()). Every wait is on a condition.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, FrameLocator, Page } from 'playwright-core';

export type Host = (op: string, args?: Record<string, unknown>) => Promise<unknown>;
export interface Report {
  passed: string[];
  failed: { name: string; error: string }[];
}

type Part = Record<string, unknown>;
const response = (parts: Part[], extra: Record<string, unknown> = {}) => ({ parts, usage: { input: 1200, output: 40 }, ...extra });
const script = (...responses: unknown[]) => ({ format: 'anthropic', responses });
const tool = (name: string, input: unknown) => ({ tool: { name, input } });

const chatFile = '# Chat\n\nThe greeting is Hello.\n';

/** The page's DOM constructors a pasted image needs (this file is compiled without the DOM's types). */
interface PageGlobals {
  DataTransfer: new () => { items: { add(file: unknown): void } };
  File: new (parts: Uint8Array[], name: string, options: { type: string }) => unknown;
  ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown;
}

/** The sidebar's chat webview (code-server marks a view's frame with its purpose). */
const sidebarFrame = 'iframe.webview[src*="extensionId=tandemdev.tandem"][src*="purpose=webviewView"]';
/** The chat opened in an editor tab. */
const tabFrame = 'iframe.webview[src*="extensionId=tandemdev.tandem"]:not([src*="purpose=webviewView"])';

/**
 * chatTests runs the chat's cases; tandemLog gives what the extension wrote to its tandem
 * log so far.
 */
export async function chatTests(page: Page, host: Host, artifacts: string, report: Report, tandemLog: () => string): Promise<void> {
  const f: FrameLocator = page.frameLocator(sidebarFrame).frameLocator('iframe#active-frame');
  page.setDefaultTimeout(10000);
  const shot = (name: string) => page.screenshot({ path: path.join(artifacts, name) });
  const prompt = async (text: string) => {
    const box = f.locator('#prompt');
    await box.fill(text);
    await box.press('Enter');
  };
  const turnEnds = () => f.locator('#app[data-running="false"]').waitFor({ timeout: 20000 });
  const agentText = (text: string | RegExp) => f.locator('.msg.agent', { hasText: text }).last();

  async function openChat(): Promise<void> {
    await host('command', { command: 'tandem.chat.focus' });
    await f.locator('#prompt').waitFor({ timeout: 20000 });
  }
  async function hideChat(): Promise<void> {
    await host('command', { command: 'workbench.view.explorer' });
    await until(10000, async () => ((await host('chatState')) as { visible: boolean }).visible === false || undefined);
  }

  const cases: [string, () => Promise<void>][] = [
    [
      'chat_full_turn_streams_reads_edits_asks_inline_and_answers',
      async () => {
        // VS Code's own chat panel is not what is tested here; the Session tree and the
        // notifications are folded away so the screenshots show the chat.
        await host('command', { command: 'workbench.action.closeAuxiliaryBar' }).catch(() => undefined);
        await host('command', { command: 'notifications.hideList' }).catch(() => undefined);
        await host('closeEditors');
        await openChat();
        const session = page.locator('.pane-header[aria-expanded="true"]', { hasText: /^Session/ });
        if ((await session.count()) > 0) {
          await session.first().click();
        }
        await host('writeFile', { path: 'chat.md', text: chatFile });
        await host('writeFile', { path: 'chat.sh', text: '#!/bin/sh\necho ran >> chat-ran.txt\n', mode: 'exec' });
        await host('useModel', {
          script: script(
            response([{ thinking: 'The user wants the greeting changed. ', signature: 's1' }, { text: "I'll read " }, { text: '`chat.md` first.' }, tool('read', { path: 'chat.md' })], { delayMs: 20 }),
            response([{ text: 'Now the edit.' }, tool('edit', { files: [{ path: 'chat.md', old: 'The greeting is Hello.', new: 'The greeting is Hi.' }] })]),
            response([{ text: 'And the script.' }, tool('bash', { command: './chat.sh' })]),
            response([{ text: 'Done: the greeting is **Hi** now. <b>raw</b> <img src=x onerror="document.title=1"> [site](javascript:alert(1))\n\n```go\nfunc greet() string { return "Hi" }\n```\n' }]),
          ),
        });
        await prompt('Change the greeting to Hi, then run ./chat.sh');
        await f.locator('.msg.user', { hasText: 'Change the greeting to Hi' }).waitFor({ timeout: 10000 });
        await agentText('chat.md first.').waitFor({ timeout: 20000 });
        const thought = f.locator('details.msg.thought').first();
        await thought.waitFor({ timeout: 10000 });
        if ((await thought.getAttribute('open')) !== null) {
          throw new Error('the thinking is shown open, not collapsed');
        }
        await f.locator('.card[data-kind="read"][data-status="completed"]').waitFor({ timeout: 20000 });
        const edit = f.locator('.card[data-kind="edit"]').last();
        await edit.locator('.diff .line.add', { hasText: 'The greeting is Hi.' }).waitFor({ timeout: 20000 });
        await edit.locator('.diff .line.del', { hasText: 'The greeting is Hello.' }).waitFor({ timeout: 5000 });
        const q = f.locator('.card[data-kind="execute"] .question', { hasText: './chat.sh' });
        await q.waitFor({ timeout: 20000 });
        await q.getByText('effects:').waitFor({ timeout: 5000 });
        await shot('chat-approval.png');
        await q.getByRole('button', { name: 'Allow', exact: true }).click();
        await q.locator('.settled', { hasText: 'Allowed once' }).waitFor({ timeout: 10000 });
        const final = agentText('the greeting is');
        await final.waitFor({ timeout: 20000 });
        await turnEnds();
        if ((await final.locator('b, img, script').count()) > 0 || (await final.locator('strong', { hasText: 'Hi' }).count()) !== 1) {
          throw new Error(`the model's markdown was not rendered safely: ${await final.innerHTML()}`);
        }
        if ((await final.locator('pre code .hljs-keyword', { hasText: 'func' }).count()) !== 1) {
          throw new Error(`the Go code block is not highlighted: ${await final.innerHTML()}`);
        }
        if (!(await final.innerText()).includes('<b>raw</b>')) {
          throw new Error('raw HTML from the model is not shown as text');
        }
        if ((await final.locator('a[href^="javascript"]').count()) > 0) {
          throw new Error('a javascript: link reached the DOM');
        }
        const text = (await host('readFile', { path: 'chat.md' })) as string;
        if (!text.includes('The greeting is Hi.')) {
          throw new Error(`chat.md was not edited: ${text}`);
        }
        if ((await host('readFile', { path: 'chat-ran.txt' })) !== 'ran\n') {
          throw new Error('the allowed step did not run exactly once');
        }
        const usage = await f.locator('.usage').innerText();
        if (!/\/ 200k/.test(usage) || !usage.includes('$')) {
          throw new Error(`the header shows no context or cost: ${usage}`);
        }
        await shot('chat-turn.png');
      },
    ],
    [
      'chat_open_diff_opens_the_diff_editor',
      async () => {
        await host('closeEditors');
        await f.locator('.card[data-kind="edit"] .open-diff').last().click();
        const d = (await until(10000, async () => (await host('diffText')) ?? undefined)) as { original: string; modified: string };
        if (!d.original.includes('Hello.') || !d.modified.includes('Hi.')) {
          throw new Error(`the diff editor shows ${JSON.stringify(d)}`);
        }
        await shot('chat-diff.png');
        await host('closeEditors');
      },
    ],
    [
      'chat_restore_puts_the_files_back',
      async () => {
        const user = f.locator('.msg.user', { hasText: 'Change the greeting to Hi' }).last();
        await user.locator('.restore').click();
        await f.locator('.notice.restored', { hasText: 'chat.md' }).last().waitFor({ timeout: 10000 });
        const text = await until(10000, async () => ((await host('readFile', { path: 'chat.md' })) as string).includes('Hello.') || undefined);
        if (!text) {
          throw new Error('chat.md was not restored');
        }
        await shot('chat-restore.png');
      },
    ],
    [
      'chat_restore_keeps_a_file_the_user_changed_since',
      async () => {
        await host('writeFile', { path: 'chat.md', text: chatFile });
        await host('useModel', {
          script: script(
            response([tool('read', { path: 'chat.md' })]),
            response([tool('edit', { files: [{ path: 'chat.md', old: 'The greeting is Hello.', new: 'The greeting is Hey.' }] })]),
            response([{ text: 'Changed to Hey.' }]),
          ),
        });
        await prompt('Make it Hey');
        await agentText('Changed to Hey.').waitFor({ timeout: 20000 });
        await turnEnds();
        const mine = '# Chat\n\nThe user rewrote this line after the agent.\n';
        await host('editFile', { path: 'chat.md', text: mine });
        await f.locator('.msg.user', { hasText: 'Make it Hey' }).last().locator('.restore').click();
        const n = f.locator('.notice.restored').last();
        await n.waitFor({ timeout: 10000 });
        const said = await n.innerText();
        if (!said.includes('chat.md')) {
          throw new Error(`the restore does not name the file it kept: ${said}`);
        }
        if ((await host('readFile', { path: 'chat.md' })) !== mine) {
          throw new Error("the restore overwrote the user's later change");
        }
      },
    ],
    [
      'chat_selection_file_and_problems_go_with_the_message',
      async () => {
        await host('writeFile', { path: 'chat.md', text: chatFile });
        await host('useModel', { script: script(response([{ text: 'Seen the context.' }])) });
        await host('select', { path: 'chat.md', from: 1, to: 3 });
        await host('command', { command: 'tandem.askAboutSelection' });
        await f.locator('.chips .chip', { hasText: 'chat.md:1-3' }).waitFor();
        const box = f.locator('#prompt');
        await box.fill('About @cha');
        const option = f.getByRole('option', { name: 'chat.md' });
        await option.waitFor();
        await box.press('Enter');
        await f.locator('.chips .chip.file', { hasText: 'chat.md' }).waitFor();
        if ((await box.inputValue()) !== 'About ') {
          throw new Error(`the @ query was not replaced: ${await box.inputValue()}`);
        }
        await f.getByRole('button', { name: "Attach the active file's problems" }).click();
        await f.locator('.chips .chip.problems', { hasText: 'Problems: chat.md' }).waitFor();
        await shot('chat-context.png');
        await box.press('End');
        await box.pressSequentially('what is this?');
        await box.press('Enter');
        const msg = f.locator('.msg.user', { hasText: 'About what is this?' }).last();
        await msg.locator('.chip', { hasText: 'chat.md:1-3' }).waitFor();
        await agentText('Seen the context.').waitFor({ timeout: 20000 });
        await turnEnds();
        if ((await f.locator('.card.error').count()) !== 0) {
          throw new Error('the message with its context failed');
        }
        if ((await f.locator('form .chips .chip').count()) !== 0) {
          throw new Error('the chips were not cleared after sending');
        }
      },
    ],
    [
      'chat_pasted_image_is_sent_and_shown',
      async () => {
        await openChat();
        await host('useModel', { script: script(response([{ text: 'A grey square.' }])) });
        const box = f.locator('#prompt');
        // A 1×1 PNG on the clipboard, as a screenshot tool leaves it (named image.png).
        const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==';
        await box.evaluate((el, data) => {
          // Runs in the webview; this file's types know no DOM.
          const g = globalThis as unknown as PageGlobals;
          const bytes = Uint8Array.from(atob(data), (ch) => ch.charCodeAt(0));
          const dt = new g.DataTransfer();
          dt.items.add(new g.File([bytes], 'image.png', { type: 'image/png' }));
          (el as unknown as { dispatchEvent(e: unknown): boolean }).dispatchEvent(new g.ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
        }, png);
        const chip = f.locator('form .chips .chip.image', { hasText: 'Pasted image' });
        await chip.locator('img.thumb').waitFor();
        await box.fill('What is in this screenshot?');
        await box.press('Enter');
        const msg = f.locator('.msg.user', { hasText: 'What is in this screenshot?' }).last();
        const thumb = msg.locator('.chip.image img.thumb');
        await thumb.waitFor();
        if ((await thumb.getAttribute('src')) !== `data:image/png;base64,${png}`) {
          throw new Error('the sent message does not show the pasted image');
        }
        await agentText('A grey square.').waitFor({ timeout: 20000 });
        await turnEnds();
        if ((await f.locator('.card.error').count()) !== 0) {
          throw new Error(`the prompt with an image failed: ${await f.locator('.card.error').first().innerText()}`);
        }
        await shot('chat-image.png');
        // Reopened from tandem's store, the message shows the image again: it reached tandem.
        await f.getByRole('button', { name: 'New chat' }).click();
        await f.getByRole('button', { name: 'History' }).click();
        const item = f.locator('.history-item', { hasText: 'What is in this screenshot?' }).first();
        await item.waitFor({ timeout: 10000 });
        await item.locator('.history-open').click();
        const again = f.locator('.msg.user', { hasText: 'What is in this screenshot?' }).last().locator('img.thumb');
        await again.waitFor({ timeout: 10000 });
        if ((await again.getAttribute('src')) !== `data:image/png;base64,${png}`) {
          throw new Error('the reopened chat does not show the image tandem kept');
        }
      },
    ],
    [
      'chat_slash_completes_commands_and_runs_a_prompt_file',
      async () => {
        // The sample workspace ships .tandem/commands/add-test.md.
        await openChat();
        await host('useModel', { script: script(response([{ text: 'Ran the prompt file.' }])) });
        const box = f.locator('#prompt');
        await box.fill('/add');
        await f.getByRole('option', { name: /^\/add-test BEHAVIOUR — Add a test/ }).waitFor();
        if ((await f.locator('#completions').getByRole('option').count()) !== 1) {
          throw new Error('/add offered more than the one command it starts');
        }
        await box.press('Enter');
        if ((await box.inputValue()) !== '/add-test ') {
          throw new Error(`the command was not completed: ${await box.inputValue()}`);
        }
        await box.pressSequentially('Blank names greet a stranger.');
        await shot('chat-commands.png');
        await box.press('Enter');
        await agentText('Ran the prompt file.').waitFor({ timeout: 20000 });
        await turnEnds();
        await box.fill('/');
        await f.getByRole('option', { name: /^\/compact/ }).waitFor();
        await box.fill('/nope');
        await box.press('Enter');
        await agentText('There is no command /nope').waitFor({ timeout: 10000 });
        await turnEnds();
      },
    ],
    [
      'chat_stop_mid_stream_ends_the_turn_at_once',
      async () => {
        const words = Array.from({ length: 200 }, (_, i) => ({ text: `word${i} ` }));
        await host('useModel', { script: script(response(words, { delayMs: 100 })) });
        await prompt('Write a long answer');
        await agentText('word3 ').waitFor({ timeout: 20000 });
        const t0 = Date.now();
        await f.getByRole('button', { name: 'Stop the turn' }).click();
        await f.locator('.notice.stopped').last().waitFor({ timeout: 5000 });
        const ms = Date.now() - t0;
        console.log(`chat stop: the turn ended ${ms} ms after the click`);
        await turnEnds();
        const text = await f.locator('.msg.agent').last().innerText();
        if (text.includes('word199')) {
          throw new Error('the stream ran to its end');
        }
        if (ms > 3000) {
          throw new Error(`stopping took ${ms} ms`);
        }
        await shot('chat-stop.png');
      },
    ],
    [
      'chat_stop_mid_approval_withdraws_the_question',
      async () => {
        await host('writeFile', { path: 'stop.sh', text: '#!/bin/sh\necho ran >> stop-ran.txt\n', mode: 'exec' });
        await host('useModel', { script: script(response([tool('bash', { command: './stop.sh' })]), response([{ text: 'not reached' }])) });
        await prompt('Run stop.sh');
        const q = f.locator('.question', { hasText: './stop.sh' }).last();
        await q.waitFor({ timeout: 20000 });
        await f.locator('#prompt').press('Escape');
        await q.locator('.settled').waitFor({ timeout: 5000 });
        await f.locator('.notice.stopped').last().waitFor({ timeout: 5000 });
        if ((await q.getByRole('button').count()) !== 0) {
          throw new Error('the withdrawn question still has buttons');
        }
        if ((await host('readFile', { path: 'stop-ran.txt' })) !== null) {
          throw new Error('the step ran after Stop');
        }
      },
    ],
    [
      'chat_follow_up_typed_during_a_turn_is_queued_then_sent',
      async () => {
        const slow = Array.from({ length: 30 }, (_, i) => ({ text: `part${i} ` }));
        await host('useModel', { script: script(response(slow, { delayMs: 100 }), response([{ text: 'The answer to the follow-up.' }])) });
        await prompt('First question');
        await agentText('part1 ').waitFor({ timeout: 20000 });
        await prompt('Follow-up question');
        await prompt('A message to remove');
        await f.locator('.queued', { hasText: 'Follow-up question' }).waitFor({ timeout: 5000 });
        await f.locator('.queued', { hasText: 'A message to remove' }).waitFor({ timeout: 5000 });
        await shot('chat-queue.png');
        await f.getByRole('button', { name: 'Remove queued message 2' }).click();
        await f.getByRole('button', { name: 'Edit queued message 1' }).click();
        const area = f.getByRole('textbox', { name: 'Edit queued message 1' });
        await area.fill('Follow-up question, edited');
        await area.press('Enter');
        await f.locator('.msg.user', { hasText: 'Follow-up question, edited' }).waitFor({ timeout: 20000 });
        await agentText('The answer to the follow-up.').waitFor({ timeout: 20000 });
        await turnEnds();
        if ((await f.locator('.msg.user', { hasText: 'A message to remove' }).count()) !== 0) {
          throw new Error('the removed message was sent');
        }
        if ((await f.locator('.queued').count()) !== 0) {
          throw new Error('the queue is not empty');
        }
      },
    ],
    [
      'chat_subagent_cards_are_nested_in_the_task_card',
      async () => {
        await openChat();
        await host('writeFile', { path: 'task.md', text: 'The release is named Juniper.\n' });
        await host('useModel', {
          script: script(
            response([tool('task', { description: 'find the release name', prompt: 'Which name does task.md give the release?' })]),
            // The subagent's turn: its own conversation, on the read-only tools.
            response([tool('read', { path: 'task.md' })]),
            response([{ text: 'task.md names the release Juniper.' }]),
            response([{ text: 'The release is Juniper.' }]),
          ),
        });
        await prompt('What is the release called?');
        const task = f.locator('.card[data-kind="other"]', { hasText: 'Subagent: find the release name' }).last();
        // Attached, not visible: the fold closes as soon as the task is done.
        await task.locator('.subagent .card[data-kind="read"][data-status="completed"]').waitFor({ state: 'attached', timeout: 20000 });
        await agentText('The release is Juniper.').waitFor({ timeout: 20000 });
        await turnEnds();
        if ((await task.getAttribute('data-status')) !== 'completed') {
          throw new Error(`the task's card did not complete: ${await task.innerHTML()}`);
        }
        if ((await task.locator(':scope > .subagent').getAttribute('open')) !== null) {
          throw new Error("the subagent's cards stay open after the task is done");
        }
        if (!(await task.locator(':scope > .subagent > summary').innerText()).includes('1 tool call')) {
          throw new Error(`the fold does not count the subagent's calls: ${await task.innerHTML()}`);
        }
        if ((await f.locator('.log > .card[data-kind="read"]', { hasText: 'task.md' }).count()) !== 0) {
          throw new Error("the subagent's read is also a card of its own in the log");
        }
        await task.locator(':scope > .subagent > summary').click();
        await shot('chat-subagent.png');
      },
    ],
    [
      'chat_model_picker_switches_the_model',
      async () => {
        await host('useModel', { script: script(response([{ text: 'ok' }])) });
        const select = f.getByRole('combobox', { name: 'Model' });
        await until(10000, async () => ((await select.inputValue()) === 'replay/any' ? true : undefined));
        await select.selectOption('replay/other');
        await until(10000, async () => ((await host('chatState')) as { model?: string }).model === 'replay/other' || undefined);
        if ((await select.inputValue()) !== 'replay/other') {
          throw new Error('the picker does not show the new model');
        }
        await prompt('Hello on the other model');
        await agentText('ok').waitFor({ timeout: 20000 });
        await turnEnds();
      },
    ],
    [
      'chat_plan_mode_refuses_what_is_not_reading',
      async () => {
        await host('useModel', { script: script(response([tool('bash', { command: './chat.sh' })]), response([{ text: 'Only planning, then.' }])) });
        const before = await host('readFile', { path: 'chat-ran.txt' });
        await f.getByRole('checkbox', { name: /Plan/ }).check();
        await until(10000, async () => ((await host('chatState')) as { planMode?: boolean }).planMode === true || undefined);
        await prompt('Run chat.sh');
        await f.locator('.card[data-kind="execute"][data-status="failed"]').last().waitFor({ timeout: 20000 });
        await agentText('Only planning, then.').waitFor({ timeout: 20000 });
        await turnEnds();
        if ((await f.locator('.question', { hasText: './chat.sh' }).count()) !== 0) {
          throw new Error('plan mode asked instead of refusing');
        }
        if ((await host('readFile', { path: 'chat-ran.txt' })) !== before) {
          throw new Error('the step ran in plan mode');
        }
      },
    ],
    [
      'chat_history_lists_searches_reopens_and_deletes',
      async () => {
        await f.getByRole('button', { name: 'History' }).click();
        const search = f.getByRole('searchbox', { name: 'Search chats' });
        await f.locator('.history-item').first().waitFor({ timeout: 10000 });
        await search.fill('greeting');
        const item = f.locator('.history-item', { hasText: 'Change the greeting' });
        await item.waitFor({ timeout: 5000 });
        if ((await f.locator('.history-item', { hasText: 'Write a long answer' }).count()) !== 0) {
          throw new Error('the search did not filter');
        }
        await shot('chat-history.png');
        await item.locator('.history-open').click();
        const reopened = f.locator('.msg.user', { hasText: 'Change the greeting to Hi' });
        await reopened.waitFor({ timeout: 10000 });
        // tandem replays each prompt with its turn, so a reopened chat restores per message.
        if ((await reopened.locator('.restore').count()) !== 1 || !/^\d+$/.test((await reopened.getAttribute('data-turn')) ?? '')) {
          throw new Error('the reopened message offers no restore of its turn');
        }
        await agentText('the greeting is').waitFor({ timeout: 10000 });
        await f.locator('.card[data-kind="edit"]').first().waitFor({ timeout: 10000 });
        // As the live chat showed it: the restore an entry of its own, tandem's note to the
        // model (which opened the next prompt) not the user's words.
        await f.locator('.notice.restored', { hasText: 'chat.md' }).first().waitFor({ timeout: 10000 });
        if ((await f.locator('.msg.user', { hasText: 'The user undid your changes' }).count()) !== 0) {
          throw new Error("the reopened chat shows tandem's note to the model as the user's message");
        }
        await shot('chat-reopened.png');
        await f.getByRole('button', { name: 'History' }).click();
        await search.fill('long answer');
        const gone = f.locator('.history-item', { hasText: 'Write a long answer' });
        await gone.waitFor({ timeout: 5000 });
        await gone.locator('.history-delete').click();
        await gone.waitFor({ state: 'detached', timeout: 10000 });
        await search.press('Escape');
      },
    ],
    [
      'chat_401_is_a_card_with_its_fix',
      async () => {
        await host('useModel', { script: script({ status: 401 }) });
        await prompt('Hello');
        const card = f.locator('.card.error[data-error="auth"]').last();
        await card.waitFor({ timeout: 20000 });
        await card.getByRole('button', { name: 'Set Up Model' }).waitFor({ timeout: 5000 });
        await turnEnds();
        await shot('chat-401.png');
      },
    ],
    [
      'chat_429_is_a_card_with_a_countdown',
      async () => {
        // A wait longer than tandem honours: it gives up at once and says how long.
        await host('useModel', { script: script({ status: 429, retryAfter: '180' }) });
        await prompt('Hello');
        const card = f.locator('.card.error[data-error="rate"]').last();
        await card.waitFor({ timeout: 20000 });
        const retry = card.locator('button.retry');
        const first = await until(5000, async () => {
          const t = await retry.innerText();
          return /^Retry in 1[78]\d s$/.test(t) ? t : undefined;
        });
        await until(5000, async () => ((await retry.innerText()) !== first ? true : undefined));
        if (await retry.isEnabled()) {
          throw new Error('Retry is enabled before the wait is over');
        }
        await turnEnds();
        await shot('chat-429.png');
      },
    ],
    [
      'chat_unreachable_model_is_a_network_card_with_retry',
      async () => {
        await host('useModel', { script: script(), deadUrl: true });
        await prompt('Hello');
        const card = f.locator('.card.error[data-error="network"]').last();
        await card.waitFor({ timeout: 60000 });
        await card.getByRole('button', { name: 'Retry' }).waitFor();
        await card.getByRole('button', { name: 'Set Up Model' }).waitFor();
        if (!(await card.innerText()).includes('connection refused')) {
          throw new Error(`the card does not say what failed: ${await card.innerText()}`);
        }
        await turnEnds();
      },
    ],
    [
      'chat_inline_answer_settles_the_notification',
      async () => {
        await host('writeFile', { path: 'note.sh', text: '#!/bin/sh\necho ran >> note-ran.txt\n', mode: 'exec' });
        await host('useModel', { script: script(response([tool('bash', { command: './note.sh' })]), response([{ text: 'Ran note.sh.' }])) });
        await hideChat();
        await host('prompt', { text: 'Run note.sh' });
        // Hidden: the question comes as a notification (in the notification center).
        const note = page.locator('.notification-list-item', { hasText: './note.sh' });
        await until(20000, async () => {
          if ((await note.count()) > 0) {
            return true;
          }
          if (!(await page.locator('.notifications-center.visible').isVisible())) {
            await page.locator('.statusbar-item', { has: page.locator('.codicon-bell, .codicon-bell-dot') }).first().click({ timeout: 1000 });
          }
          return undefined;
        });
        await openChat();
        const q = f.locator('.question', { hasText: './note.sh' }).last();
        await q.getByRole('button', { name: 'Allow', exact: true }).click();
        await q.locator('.settled', { hasText: 'Allowed once' }).waitFor({ timeout: 10000 });
        await agentText('Ran note.sh.').waitFor({ timeout: 20000 });
        await turnEnds();
        // The notification's own button is no answer any more: the step ran once.
        await note.getByRole('button', { name: 'Allow', exact: true }).first().click({ timeout: 5000 }).catch(() => undefined);
        if ((await host('readFile', { path: 'note-ran.txt' })) !== 'ran\n') {
          throw new Error('note.sh did not run exactly once');
        }
      },
    ],
  ];

  cases.push([
    'chat_long_chat_stays_fast',
    async () => {
      // 5,000 chunks through the real path (tandem replay → tandem → the extension → the
      // webview), then a 500-message chat drawn and scrolled; the webview counts its frames.
      const inner = await webviewFrame(page);
      const chunks = Array.from({ length: 5000 }, (_, i) => ({ text: i % 50 === 49 ? `chunk ${i}.\n\n` : `chunk ${i} ` }));
      await host('useModel', { script: script(response(chunks)) });
      await inner.evaluate(startFrameLog);
      const t0 = Date.now();
      await prompt('Stream a long answer');
      await agentText('chunk 4999').waitFor({ timeout: 60000 });
      const streamMs = Date.now() - t0;
      await turnEnds();
      const streamGap = await inner.evaluate<number>(stopFrameLog);
      const long = await inner.evaluate<{ openMs: number; scrollGap: number; messages: number }>(longChat);
      const figures = { streamChunks: 5000, streamMs, streamMaxFrameGapMs: Math.round(streamGap), chatMessages: long.messages, openMs: Math.round(long.openMs), scrollMaxFrameGapMs: Math.round(long.scrollGap) };
      console.log(`chat benchmark: ${JSON.stringify(figures)}`);
      fs.writeFileSync(path.join(artifacts, 'chat-bench.json'), JSON.stringify(figures, null, 2) + '\n');
      await shot('chat-long.png');
      // A safety net, not the benchmark: bounds far above the figures (README) so a machine
      // loaded by other builds passes (frames of 1 s were seen there); only a chat that hangs
      // the webview fails. The figures themselves are in chat-bench.json.
      if (long.messages < 500 || figures.openMs > 20000 || figures.scrollMaxFrameGapMs > 5000 || figures.streamMaxFrameGapMs > 5000) {
        throw new Error(`the long chat is slow: ${JSON.stringify(figures)}`);
      }
    },
  ]);


  cases.push(
    [
      'chat_scrolled_up_send_shows_the_prompt_and_follows_the_answer',
      async () => {
        const inner = await webviewFrame(page);
        const long = Array.from({ length: 60 }, (_, i) => ({ text: `Paragraph ${i} of a long answer.\n\n` }));
        const stream = Array.from({ length: 40 }, (_, i) => ({ text: `Streamed line ${i}.\n\n` }));
        await host('useModel', { script: script(response(long), response(stream, { delayMs: 60 }), response(stream, { delayMs: 60 })) });
        await prompt('Write sixty paragraphs');
        await agentText('Paragraph 59').waitFor({ timeout: 20000 });
        await turnEnds();
        // The user reads from the top, then sends from there.
        await inner.evaluate(`document.querySelector('.log').scrollTop = 0`);
        await prompt('Now stream forty lines');
        await f.locator('.msg.user', { hasText: 'Now stream forty lines' }).waitFor();
        await agentText('Streamed line 5.').waitFor({ timeout: 20000 });
        const mid = await inner.evaluate<{ toEnd: number; promptTop: number }>(logPlace("Now stream forty lines"));
        await agentText('Streamed line 39.').waitFor({ timeout: 20000 });
        await turnEnds();
        const end = await inner.evaluate<{ toEnd: number; lastVisible: boolean }>(logPlace('Streamed line 39.'));
        console.log(`chat follow: mid-stream ${mid.toEnd} px from the end; after the turn ${end.toEnd} px`);
        if (mid.toEnd > 40 || end.toEnd > 40 || !end.lastVisible) {
          throw new Error(`the log did not follow the answer: ${JSON.stringify({ mid, end })}`);
        }
        // Scrolled up during a turn, the log stays where the user put it.
        await prompt('Stream forty lines again');
        await agentText('Streamed line 3.').waitFor({ timeout: 20000 });
        await f.locator('.log').hover();
        await page.mouse.wheel(0, -3000);
        await until(5000, async () => ((await inner.evaluate<number>(`(() => { const l = document.querySelector('.log'); return l.scrollHeight - l.clientHeight - l.scrollTop; })()`)) > 400 ? true : undefined));
        await turnEnds();
        const after = await inner.evaluate<{ toEnd: number }>(logPlace('Streamed line 39.'));
        if (after.toEnd < 400) {
          throw new Error(`the log went back to its end while the user read above: ${after.toEnd} px from it`);
        }
        await shot('chat-follow.png');
      },
    ],
    [
      'chat_question_after_text_is_in_view_waits_and_is_denied',
      async () => {
        const inner = await webviewFrame(page);
        await host('writeFile', { path: 'ask.sh', text: '#!/bin/sh\necho ran >> ask-ran.txt\n', mode: 'exec' });
        const text = Array.from({ length: 30 }, (_, i) => ({ text: `Before asking, line ${i}: some words to render first.\n\n` }));
        await host('useModel', { script: script(response([...text, tool('bash', { command: './ask.sh' })], { delayMs: 10 }), response([{ text: 'Not run, then.' }])) });
        await prompt('Explain, then run ask.sh');
        const q = f.locator('.question', { hasText: './ask.sh' }).last();
        await q.waitFor({ timeout: 20000 });
        // Two frames: what the view does about a question happens in the next one.
        await inner.evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`);
        const px = await inner.evaluate<{ allow: number; deny: number; top: number }>(buttonOffsets);
        console.log(`chat question: Allow ${px.allow} px, Deny ${px.deny} px below the log's bottom edge (negative: above it, in view); top ${px.top} px below its top`);
        if (px.allow > 0 || px.deny > 0 || px.top < 0) {
          throw new Error(`the question's buttons are not in view: ${JSON.stringify(px)}`);
        }
        const card = f.locator('.card[data-kind="execute"]').last();
        const badge = card.locator('.card-head .status');
        if ((await badge.innerText()) !== 'waiting for you') {
          throw new Error(`a card with an open question says ${await badge.innerText()}`);
        }
        await shot('chat-question-in-view.png');
        await q.getByRole('button', { name: 'Deny', exact: true }).click();
        await agentText('Not run, then.').waitFor({ timeout: 20000 });
        await turnEnds();
        await until(5000, async () => ((await badge.innerText()) === 'denied' ? true : undefined)).catch(async () => {
          throw new Error(`a denied step's card says ${await badge.innerText()}`);
        });
        if ((await host('readFile', { path: 'ask-ran.txt' })) !== null) {
          throw new Error('the denied step ran');
        }
      },
    ],
    [
      'chat_question_scrolled_away_is_a_notification_naming_the_chat',
      async () => {
        await host('command', { command: 'notifications.clearAll' }).catch(() => undefined);
        await host('writeFile', { path: 'away.sh', text: '#!/bin/sh\necho ran >> away-ran.txt\n', mode: 'exec' });
        const text = Array.from({ length: 40 }, (_, i) => ({ text: `Line ${i} before the question.\n\n` }));
        await host('useModel', { script: script(response([...text, tool('bash', { command: './away.sh' })]), response([{ text: 'Ran away.sh.' }])) });
        const title = 'Run away.sh after a long explanation';
        await prompt(title);
        const q = f.locator('.question', { hasText: './away.sh' }).last();
        await q.waitFor({ timeout: 20000 });
        const session = ((await host('chatState')) as { session: string }).session;
        await f.locator('.log').hover();
        await page.mouse.wheel(0, -5000);
        const note = page.locator('.notification-list-item', { hasText: './away.sh' });
        await until(20000, async () => {
          if ((await note.count()) > 0) {
            return true;
          }
          if (!(await page.locator('.notifications-center.visible').isVisible())) {
            await page.locator('.statusbar-item', { has: page.locator('.codicon-bell, .codicon-bell-dot') }).first().click({ timeout: 1000 });
          }
          return undefined;
        });
        const said = await note.first().innerText();
        console.log(`chat notification: ${JSON.stringify(said)}`);
        if (!said.includes(`"${title}"`) || said.includes(session)) {
          throw new Error(`the notification does not name the chat by its title: ${said}`);
        }
        await shot('chat-question-notification.png');
        await q.getByRole('button', { name: 'Allow', exact: true }).click();
        await agentText('Ran away.sh.').waitFor({ timeout: 20000 });
        await turnEnds();
        await host('command', { command: 'notifications.hideList' }).catch(() => undefined);
      },
    ],
    [
      'chat_restart_without_a_turn_ends_none_and_logs_no_error',
      async () => {
        await host('useModel', { script: script(response([{ text: 'ok' }])) });
        const before = ((await host('chatState')) as { session: string }).session;
        const logged = tandemLog().length;
        await host('command', { command: 'tandem.restart' });
        await until(20000, async () => {
          const s = ((await host('chatState')) as { session?: string }).session;
          return s && s !== before ? true : undefined;
        });
        await f.locator('.notice', { hasText: 'tandem restarted' }).last().waitFor();
        if ((await f.locator('.notice', { hasText: 'The turn ended' }).count()) !== 0) {
          throw new Error('a restart with no turn running says a turn ended');
        }
        // The log is written behind: wait for the chat's line about the new tandem.
        const since = await until(15000, () => {
          const t = tandemLog().slice(logged);
          return Promise.resolve(t.includes('chat: tandem started') ? t : undefined);
        }).catch(() => {
          throw new Error(`the log says nothing of the restart:\n${tandemLog().slice(logged)}`);
        });
        const errors = since.split('\n').filter((l) => /\[error\]|\[Error\b/.test(l));
        if (errors.length) {
          throw new Error(`the user's restart was logged as an error:\n${errors.join('\n')}`);
        }
      },
    ],
    [
      'chat_fits_a_170px_sidebar',
      async () => {
        await host('writeFile', { path: 'wide.txt', text: `short\n${'const aVeryLongIdentifierName = computeSomethingWith(argumentNumberOne, argumentNumberTwo, '.repeat(2)}oldEnd\n` });
        const long = 'const aVeryLongIdentifierName = computeSomethingWith(argumentNumberOne, argumentNumberTwo, '.repeat(2);
        await host('useModel', {
          script: script(
            response([tool('read', { path: 'wide.txt' })]),
            response([tool('edit', { files: [{ path: 'wide.txt', old: `${long}oldEnd`, new: `${long}newEnd` }] })]),
            response([{ text: `Done:\n\n- [x] read wide.txt\n- [ ] test it\n\n| file | what |\n| --- | --- |\n| src/some/deeply/nested/directory/file_with_a_long_name.go | changed |\n\n\`\`\`go\n${long}newEnd\n\`\`\`\n` }]),
          ),
        });
        // The editor takes the room: the sidebar shrinks to VS Code's minimum.
        for (let i = 0; i < 12; i++) {
          await host('command', { command: 'workbench.action.increaseViewWidth' });
        }
        await prompt('Change the end of the long line in src/some/deeply/nested/directory/file_with_a_long_name.go please');
        const final = agentText('Done:');
        await final.waitFor({ timeout: 20000 });
        await turnEnds();
        const inner = await webviewFrame(page);
        const m = await inner.evaluate<Record<string, number | boolean | string>>(layoutFacts);
        console.log(`chat at ${m.width} px: ${JSON.stringify(m)}`);
        await shot('chat-170px.png');
        await f.locator('.log').evaluate('(l) => { l.scrollTop = l.scrollHeight; }');
        await shot('chat-170px-end.png');
        const problems: string[] = [];
        if (Number(m.width) > 200) {
          problems.push(`the sidebar is ${m.width} px wide, not its minimum`);
        }
        for (const k of ['page', 'log', 'header', 'composer']) {
          if (Number(m[`${k}Over`]) > 0) {
            problems.push(`${k} is ${m[`${k}Over`]} px wider than the view: ${m[`${k}Culprit`]}`);
          }
        }
        if (m.checkboxes !== 2 || m.checked !== 1) {
          problems.push(`the task list has ${m.checkboxes} boxes, ${m.checked} ticked`);
        }
        if (m.copyOverCode) {
          problems.push('Copy covers the code');
        }
        if (!m.diffEndVisible) {
          problems.push("the diff hides the changed end of the long line");
        }
        if (problems.length) {
          throw new Error(problems.join('; '));
        }
        // Back to about 300 px, where the sidebar started.
        for (let i = 0; i < 2; i++) {
          await host('command', { command: 'workbench.action.decreaseViewWidth' });
        }
        const wide = await inner.evaluate<Record<string, number | boolean | string>>(layoutFacts);
        console.log(`chat at ${wide.width} px: ${JSON.stringify(wide)}`);
        await shot('chat-300px.png');
        if (['page', 'log', 'header', 'composer'].some((k) => Number(wide[`${k}Over`]) > 0)) {
          throw new Error(`the chat overflows at ${wide.width} px: ${JSON.stringify(wide)}`);
        }
      },
    ],
    [
      'chat_opens_in_an_editor_tab_as_the_same_chat',
      async () => {
        await host('useModel', { script: script(response([{ text: 'Answered in the tab.' }])) });
        await prompt('A message from the sidebar');
        await agentText('Answered in the tab.').waitFor({ timeout: 20000 });
        await turnEnds();
        // The button in the chat view's title bar.
        await page.locator('.pane-header', { hasText: /^Chat/ }).hover().catch(() => undefined);
        await page.getByRole('button', { name: 'Open Chat in Editor' }).first().click();
        const tabs = (await until(10000, async () => {
          const all = (await host('tabs')) as { label: string; active: boolean }[];
          return all.some((t) => t.label.startsWith('tandem')) ? all : undefined;
        })) as { label: string; active: boolean }[];
        const tab = tabs.find((t) => t.label.startsWith('tandem'))!;
        console.log(`chat tab: ${JSON.stringify(tab)}`);
        if (!tab.label.includes('A message from the sidebar')) {
          throw new Error(`the tab is not named after the chat: ${tab.label}`);
        }
        const t = page.frameLocator(tabFrame).frameLocator('iframe#active-frame');
        await t.locator('.msg.user', { hasText: 'A message from the sidebar' }).waitFor({ timeout: 10000 });
        await t.locator('.msg.agent', { hasText: 'Answered in the tab.' }).waitFor();
        // Sent from the tab, the answer shows in both.
        await host('useModel', { script: script(response([{ text: 'Seen in both.' }])) });
        await t.locator('.msg.user').first().waitFor({ state: 'detached', timeout: 10000 });
        const box = t.locator('#prompt');
        await box.fill('Sent from the tab');
        await box.press('Enter');
        await t.locator('.msg.agent', { hasText: 'Seen in both.' }).waitFor({ timeout: 20000 });
        await agentText('Seen in both.').waitFor({ timeout: 10000 });
        await shot('chat-tab.png');
        await host('closeEditors');
      },
    ],
  );

  // TANDEM_E2E_CHAT_CASES: only the chat cases whose names this regular expression matches.
  const only = new RegExp(process.env.TANDEM_E2E_CHAT_CASES ?? '');
  for (const [name, fn] of cases.filter(([n]) => only.test(n))) {
    const start = Date.now();
    try {
      await fn();
      report.passed.push(`${name} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
    } catch (e) {
      report.failed.push({ name, error: (e as Error).stack ?? String(e) });
      await shot(`chat-failed-${name}.png`).catch(() => undefined);
    }
  }
}

/** Polls f until it gives a value (a throw counts as none). */
async function until<T>(ms: number, f: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) {
      return v;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${ms} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The chat webview's own document, for measuring inside it. */
async function webviewFrame(page: Page, selector = sidebarFrame): Promise<Frame> {
  const outer = await (await page.locator(selector).elementHandle())?.contentFrame();
  const inner = await (await outer?.locator('iframe#active-frame').elementHandle())?.contentFrame();
  if (!inner) {
    throw new Error('the chat webview has no frame');
  }
  return inner;
}

// Run inside the webview (its DOM; passed as source text, as this file is compiled without
// the DOM's types).
/** How far the log is from its end, and whether the element with this text is in view. */
const logPlace = (text: string) => `(() => {
  const log = document.querySelector('.log');
  const v = log.getBoundingClientRect();
  const el = [...document.querySelectorAll('.msg')].reverse().find((m) => m.textContent.includes(${JSON.stringify(text)}));
  const r = el ? el.getBoundingClientRect() : { top: -1, bottom: -1 };
  return { toEnd: Math.round(log.scrollHeight - log.clientHeight - log.scrollTop), promptTop: Math.round(r.top - v.top), lastVisible: !!el && r.bottom > v.top && r.top < v.bottom };
})()`;
/** The last question's Allow and Deny: their bottom edges below the log's (negative: in view). */
const buttonOffsets = `(() => {
  const v = document.querySelector('.log').getBoundingClientRect();
  const q = [...document.querySelectorAll('.question')].pop();
  const b = (name) => [...q.querySelectorAll('button')].find((x) => x.textContent === name).getBoundingClientRect();
  return { allow: Math.round(b('Allow').bottom - v.bottom), deny: Math.round(b('Deny').bottom - v.bottom), top: Math.round(b('Allow').top - v.top) };
})()`;
/** What a narrow chat shows: overflow of each part (and what is widest), task list, Copy, diff. */
const layoutFacts = `(() => {
  const over = (e) => e.scrollWidth - e.clientWidth;
  const culprit = (root) => {
    let worst = '', w = root.clientWidth;
    for (const e of root.querySelectorAll('*')) {
      const r = e.getBoundingClientRect(), p = root.getBoundingClientRect();
      if (r.width > 0 && r.right - p.left > w + 1) { w = r.right - p.left; worst = e.tagName + '.' + e.className; }
    }
    return worst;
  };
  const log = document.querySelector('.log'), header = document.querySelector('.header'), composer = document.querySelector('.composer');
  const final = [...document.querySelectorAll('.msg.agent')].pop();
  const boxes = final ? [...final.querySelectorAll('input[type=checkbox]')] : [];
  const copy = final && final.querySelector('.copy'), code = final && final.querySelector('pre code');
  let copyOverCode = false;
  if (copy && code) {
    const a = copy.getBoundingClientRect(), b = code.getBoundingClientRect();
    copyOverCode = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }
  const add = [...document.querySelectorAll('pre.diff .line.add')].pop();
  let diffEndVisible = false;
  if (add) {
    const pre = add.closest('pre');
    const range = document.createRange();
    range.setStart(add.firstChild, Math.max(0, add.textContent.trimEnd().length - 6));
    range.setEnd(add.firstChild, add.textContent.trimEnd().length);
    const r = range.getBoundingClientRect(), p = pre.getBoundingClientRect();
    diffEndVisible = add.textContent.includes('newEnd') && r.right <= p.right + 1 && r.left >= p.left - 1;
  }
  return {
    width: window.innerWidth,
    pageOver: over(document.documentElement), pageCulprit: culprit(document.body),
    logOver: over(log), logCulprit: culprit(log),
    headerOver: over(header), headerCulprit: culprit(header),
    composerOver: over(composer), composerCulprit: culprit(composer),
    checkboxes: boxes.length, checked: boxes.filter((b) => b.checked).length,
    copyOverCode, diffEndVisible,
  };
})()`;

const startFrameLog = `(() => {
  window.gaps = []; window.on = true; window.last = performance.now();
  const tick = (t) => { window.gaps.push(t - window.last); window.last = t; if (window.on) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
})()`;
const stopFrameLog = `(() => { window.on = false; return Math.max(...window.gaps); })()`;
/** Draws a 500-message chat through the webview's own message handler, then scrolls it. */
const longChat = `(async () => {
  const post = (m) => window.dispatchEvent(new MessageEvent('message', { data: m }));
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const t0 = performance.now();
  post({ type: 'reset' });
  for (let i = 0; i < 250; i++) {
    post({ type: 'user', text: 'Question ' + i + ': what does function f' + i + ' do?', turn: i });
    post({ type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text',
      text: 'Answer ' + i + ': it **reads** a file.\\n\\n\x60\x60\x60go\\nfunc f' + i + '() error {\\n\\treturn nil\\n}\\n\x60\x60\x60\\n\\nThen it returns.' } } });
    if (i % 5 === 0) {
      post({ type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 'bench' + i, title: 'read f' + i + '.go', kind: 'read', status: 'completed' } });
    }
  }
  // Drawn: every answer rendered (the webview renders streamed text in its next frames).
  while (document.querySelectorAll('.msg.agent .markdown:empty').length > 0) {
    await frame();
  }
  await frame();
  const openMs = performance.now() - t0;
  const log = document.querySelector('.log');
  let gap = 0;
  let last = performance.now();
  for (let k = 0; k <= 40; k++) {
    log.scrollTop = (log.scrollHeight * k) / 40;
    const t = await frame();
    gap = Math.max(gap, t - last);
    last = t;
  }
  return { openMs, scrollGap: gap, messages: document.querySelectorAll('.msg').length };
})()`;
