// The review and checkpoint tests: as a user, in real VS Code against `tandem replay`, the
// changes bar, Keep and Undo per hunk in the diff editor (clicking its CodeLens) under a later
// edit of the user's, Keep all / Undo all with a file that was not open, a restore's entry with
// Undo restore and Restore around my changes (a restore that kept a file is no failure), Edit and
// resend (files put back first, the conversation cut back, live and reopened), tool calls whose
// ids the provider repeats, and Keep kept in a reopened chat. Every wait is on a condition.
import * as path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import type { Host, Report } from './chat';

type Part = Record<string, unknown>;
const response = (parts: Part[]) => ({ parts, usage: { input: 1200, output: 40 } });
const script = (...responses: unknown[]) => ({ format: 'anthropic', responses });
const tool = (name: string, input: unknown) => ({ tool: { name, input } });

interface ReviewState {
  turn?: number;
  files: { path: string; hunks: { state: string; now?: [number, number] }[] }[];
}

export async function reviewTests(page: Page, host: Host, artifacts: string, report: Report): Promise<void> {
  const f: FrameLocator = page.frameLocator('iframe.webview[src*="extensionId=tandemdev.tandem"]').frameLocator('iframe#active-frame');
  const shot = (name: string) => page.screenshot({ path: path.join(artifacts, name) });
  const prompt = async (text: string) => {
    const box = f.locator('#prompt');
    await box.fill(text);
    await box.press('Enter');
  };
  const turnEnds = () => f.locator('#app[data-running="false"]').waitFor({ timeout: 20000 });
  const agentText = (text: string) => f.locator('.msg.agent', { hasText: text }).last();
  const buffer = async (p: string) => (await host('bufferText', { path: p })) as { text: string; dirty: boolean } | null;
  const lastEntry = () => f.locator('.notice.restored').last();
  /** Runs a turn whose model answers with these responses and ends saying `done`. */
  const turn = async (text: string, done: string, ...responses: unknown[]) => {
    await host('useModel', { script: script(...responses, response([{ text: done }])) });
    await prompt(text);
    await agentText(done).waitFor({ timeout: 20000 });
    await turnEnds();
  };
  const row = (name: string) => f.locator('.changes .changed-file', { hasText: name });

  const cases: [string, () => Promise<void>][] = [
    [
      'review_undo_one_hunk_in_the_diff_editor_keeps_a_later_user_edit',
      async () => {
        await host('command', { command: 'workbench.action.closeAuxiliaryBar' }).catch(() => undefined);
        await host('command', { command: 'notifications.hideList' }).catch(() => undefined);
        await host('closeEditors');
        await host('command', { command: 'tandem.chat.focus' });
        await f.locator('#prompt').waitFor({ timeout: 20000 });
        const session = page.locator('.pane-header[aria-expanded="true"]', { hasText: /^Session/ });
        if ((await session.count()) > 0) {
          await session.first().click();
        }
        await host('writeFile', { path: 'review.md', text: 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n' });
        await turn(
          'Capitalize two and six',
          'Capitalized two and six.',
          response([tool('read', { path: 'review.md' })]),
          response([tool('edit', { files: [{ path: 'review.md', ops: [{ old: 'two', new: 'TWO' }, { old: 'six', new: 'SIX' }] }] })]),
        );
        const r = row('review.md');
        await r.locator('.changed-notes', { hasText: '2 to review' }).waitFor({ timeout: 10000 });
        await shot('review-bar.png');
        await r.locator('.review-open').click();
        await until(10000, async () => {
          const tabs = (await host('tabs')) as { diff?: { original: string; modified: string } }[];
          return tabs.some((t) => t.diff?.original.startsWith('tandem-before:') && t.diff.modified.startsWith('file:') && t.diff.modified.endsWith('/review.md')) || undefined;
        });
        // The user's own edit, after the agent's, in the buffer (not saved).
        await host('typeLine', { path: 'review.md', line: 4, text: 'four, mine' });
        const lenses = page.locator('.monaco-diff-editor .codelens-decoration a', { hasText: /^Undo$/ });
        await until(15000, async () => ((await lenses.count()) === 2 ? true : undefined));
        await shot('review-diff.png');
        // The Undo above the first hunk (line 2): the lens highest on the screen, clicked where
        // it is drawn (the lenses are drawn again when tandem answers where the hunks stand).
        const top = await until(10000, async () => {
          const ys = await Promise.all((await lenses.all()).map((l) => l.boundingBox()));
          const boxes = ys.filter((b) => b !== null && b.y > 0).sort((a, b) => a!.y - b!.y);
          return boxes.length === 2 && boxes[0]!.y < boxes[1]!.y ? boxes[0]! : undefined;
        });
        await page.mouse.click(top.x + top.width / 2, top.y + top.height / 2);
        const want = 'one\ntwo\nthree\nfour, mine\nfive\nSIX\nseven\n';
        const got = await until(10000, async () => {
          const b = await buffer('review.md');
          return b?.text === want ? b : undefined;
        }).catch(async () => {
          throw new Error(`after Undo of the first hunk the buffer holds ${JSON.stringify(await buffer('review.md'))}`);
        });
        if (!got.dirty) {
          throw new Error("the user's unsaved edit was saved by the undo");
        }
        await lastEntry().getByText('Undid from the review').waitFor({ timeout: 10000 });
        await r.locator('.changed-notes', { hasText: '1 to review, 1 undone' }).waitFor({ timeout: 10000 });
        await until(10000, async () => ((await lenses.count()) === 1 ? true : undefined));
        await shot('review-hunk-undone.png');
        // The undo is one step of VS Code's own undo: Ctrl+Z takes back tandem's, not the user's.
        await host('undoInEditor', { path: 'review.md' });
        await until(10000, async () => ((await buffer('review.md'))?.text === 'one\nTWO\nthree\nfour, mine\nfive\nSIX\nseven\n' ? true : undefined)).catch(async () => {
          throw new Error(`after Ctrl+Z the buffer holds ${JSON.stringify(await buffer('review.md'))}`);
        });
        // The user changes the agent's second hunk: it is no longer offered for undo.
        await host('typeLine', { path: 'review.md', line: 6, text: 'SIX, mine' });
        await until(10000, async () => {
          const s = (await host('reviewState')) as ReviewState;
          return s.files[0]?.hunks[1]?.state === 'changed' ? true : undefined;
        });
        await r.locator('.changed-notes', { hasText: '1 changed since' }).waitFor({ timeout: 10000 });
        // (The file's own editor is in front now: its lenses, the first hunk's alone.)
        const shown = page.locator('.monaco-editor .codelens-decoration a', { hasText: /^Undo$/ });
        await until(10000, async () => ((await shown.count()) === 1 ? true : undefined));
        // Keep on the first hunk's lens: nothing is left to review, the bar goes, no text changes.
        const text = (await buffer('review.md'))?.text;
        await page.locator('.monaco-editor .codelens-decoration a', { hasText: /^Keep$/ }).first().click();
        await f.locator('.changes[hidden]').waitFor({ state: 'attached', timeout: 10000 });
        await until(10000, async () => ((await shown.count()) === 0 ? true : undefined)).catch(() => {
          throw new Error('Keep left the Undo above the hunk');
        });
        if ((await buffer('review.md'))?.text !== text) {
          throw new Error('Keep changed the file');
        }
        await host('command', { command: 'workbench.action.files.saveAll' });
        await host('closeEditors');
      },
    ],
    [
      'review_undo_a_created_file_keep_one_then_undo_all_including_a_file_not_open',
      async () => {
        await host('closeEditors');
        await host('writeFile', { path: 'keep.md', text: 'alpha\nbeta\n' });
        await host('writeFile', { path: 'undo.md', text: 'gamma\ndelta\n' });
        await turn(
          'Upper-case both files',
          'Both upper-cased.',
          response([tool('read', { path: 'keep.md' }), tool('read', { path: 'undo.md' })]),
          response([tool('write', { path: 'keep.md', content: 'ALPHA\nbeta\n' }), tool('write', { path: 'undo.md', content: 'GAMMA\ndelta\n' }), tool('write', { path: 'made.md', content: 'made\n' })]),
        );
        await row('keep.md').waitFor({ timeout: 10000 });
        await row('undo.md').waitFor({ timeout: 10000 });
        // A file the turn created, reviewed in the diff editor, then undone: it goes.
        const made = row('made.md');
        await made.locator('.changed-notes', { hasText: 'new' }).waitFor({ timeout: 10000 });
        await made.locator('.review-open').click();
        await until(10000, async () => ((await buffer('made.md')) !== null ? true : undefined));
        await made.getByRole('button', { name: 'Undo made.md' }).click();
        await until(10000, async () => ((await host('readFile', { path: 'made.md' })) === null ? true : undefined)).catch(() => {
          throw new Error('the created file was not removed by its Undo');
        });
        await made.waitFor({ state: 'detached', timeout: 10000 });
        if ((await buffer('undo.md')) !== null) {
          throw new Error('undo.md is open before the test opens it');
        }
        await row('keep.md').getByRole('button', { name: 'Keep keep.md' }).click();
        await row('keep.md').waitFor({ state: 'detached', timeout: 10000 });
        await f.getByRole('button', { name: 'Undo all changes' }).click();
        await until(10000, async () => ((await host('readFile', { path: 'undo.md' })) === 'gamma\ndelta\n' ? true : undefined)).catch(async () => {
          throw new Error(`undo.md after Undo all: ${JSON.stringify(await host('readFile', { path: 'undo.md' }))}`);
        });
        if ((await host('readFile', { path: 'keep.md' })) !== 'ALPHA\nbeta\n') {
          throw new Error('Undo all undid the file the user kept');
        }
        await f.locator('.changes[hidden]').waitFor({ state: 'attached', timeout: 10000 });
        // It went through the buffer: VS Code's undo brings the agent's text back.
        await host('undoInEditor', { path: 'undo.md' });
        await until(10000, async () => ((await buffer('undo.md'))?.text === 'GAMMA\ndelta\n' ? true : undefined));
        await host('command', { command: 'workbench.action.files.saveAll' });
        await host('closeEditors');
        // Keep all: the bar goes, the files stay as the agent left them.
        await turn('Upper-case beta', 'Done.', response([tool('read', { path: 'keep.md' })]), response([tool('write', { path: 'keep.md', content: 'ALPHA\nBETA\n' })]));
        await row('keep.md').waitFor({ timeout: 10000 });
        await f.getByRole('button', { name: 'Keep all changes' }).click();
        await f.locator('.changes[hidden]').waitFor({ state: 'attached', timeout: 10000 });
        if ((await host('readFile', { path: 'keep.md' })) !== 'ALPHA\nBETA\n') {
          throw new Error('Keep all changed the file');
        }
      },
    ],
    [
      'checkpoint_restore_around_my_changes_then_undo_restore',
      async () => {
        await host('writeFile', { path: 'around.md', text: 'one\ntwo\nthree\nfour\nfive\n' });
        await turn('Capitalize two', 'Capitalized.', response([tool('read', { path: 'around.md' })]), response([tool('edit', { files: [{ path: 'around.md', old: 'two', new: 'TWO' }] })]));
        await host('typeLine', { path: 'around.md', line: 5, text: 'five, mine', save: true });
        await f.locator('.msg.user', { hasText: 'Capitalize two' }).last().locator('.restore').click();
        const kept = lastEntry();
        await kept.getByText('changed since the agent wrote it').waitFor({ timeout: 10000 });
        // Keeping the user's file is what restore promises: the entry says so, not as a failure.
        const cls = (await kept.getAttribute('class')) ?? '';
        if (cls.includes('failed') || !cls.includes('kept')) {
          throw new Error(`a restore that kept the user's file is drawn as "${cls}"`);
        }
        if ((await kept.getByRole('button', { name: 'Undo restore' }).count()) !== 0) {
          throw new Error('a restore that restored nothing offers to undo it');
        }
        await kept.getByRole('button', { name: 'Restore around my changes' }).click();
        const around = f.locator('.notice.restored', { hasText: 'Restore around your changes' }).last();
        await around.getByText('Restored around your later changes, which stay: around.md').waitFor({ timeout: 10000 });
        if ((await host('readFile', { path: 'around.md' })) !== 'one\ntwo\nthree\nfour\nfive, mine\n') {
          throw new Error(`restore around: ${JSON.stringify(await host('readFile', { path: 'around.md' }))}`);
        }
        await shot('checkpoint-around.png');
        await around.getByRole('button', { name: 'Undo restore' }).click();
        await f.locator('.notice.restored', { hasText: 'Undo restore:' }).last().waitFor({ timeout: 10000 });
        await until(10000, async () => ((await host('readFile', { path: 'around.md' })) === 'one\nTWO\nthree\nfour\nfive, mine\n' ? true : undefined)).catch(async () => {
          throw new Error(`after Undo restore: ${JSON.stringify(await host('readFile', { path: 'around.md' }))}`);
        });
      },
    ],
    [
      'checkpoint_restore_says_once_and_a_second_click_changes_nothing',
      async () => {
        await host('writeFile', { path: 'twice.md', text: 'calm\n' });
        await turn('Make it loud', 'Loud.', response([tool('read', { path: 'twice.md' })]), response([tool('write', { path: 'twice.md', content: 'LOUD\n' })]));
        const restore = f.locator('.msg.user', { hasText: 'Make it loud' }).last().locator('.restore');
        await restore.click();
        const first = lastEntry();
        await first.getByText('Restored twice.md.').waitFor({ timeout: 10000 });
        const said = await first.innerText();
        if (said.split('twice.md').length - 1 !== 1) {
          throw new Error(`the restore names the file more than once: ${said}`);
        }
        if ((await host('readFile', { path: 'twice.md' })) !== 'calm\n') {
          throw new Error('twice.md was not restored');
        }
        await until(10000, async () => ((await restore.isEnabled()) ? true : undefined));
        await restore.click();
        await f.locator('.notice.restored', { hasText: 'Nothing changed' }).last().waitFor({ timeout: 10000 });
      },
    ],
    [
      'checkpoint_edit_and_resend_cuts_the_conversation_back',
      async () => {
        await host('writeFile', { path: 'resend.md', text: 'hello\n' });
        await host('useModel', {
          script: script(
            response([tool('read', { path: 'resend.md' })]),
            response([tool('write', { path: 'resend.md', content: 'HELLO\n' })]),
            response([{ text: 'Shouted.' }]),
            response([{ text: 'Whispered instead.' }]),
          ),
        });
        await prompt('Shout the greeting');
        await agentText('Shouted.').waitFor({ timeout: 20000 });
        await turnEnds();
        const msg = f.locator('.msg.user', { hasText: 'Shout the greeting' }).last();
        await msg.getByRole('button', { name: 'Edit and resend' }).click();
        const area = msg.getByRole('textbox', { name: 'Edit the message' });
        await area.fill('Whisper the greeting');
        await msg.getByText('put back the files the agent changed since this message').waitFor();
        await shot('checkpoint-resend-ask.png');
        await msg.getByRole('button', { name: 'Restore files and send' }).click();
        await agentText('Whispered instead.').waitFor({ timeout: 20000 });
        await turnEnds();
        if ((await host('readFile', { path: 'resend.md' })) !== 'hello\n') {
          throw new Error('the files were not put back before the resend');
        }
        // The chat is cut back as the model's conversation is: the earlier prompt and what
        // answered it are gone; the restore stays, with its undo; the cut is said before the
        // new prompt.
        const cutShown = async (where: string) => {
          await f.locator('.msg.user', { hasText: 'Whisper the greeting' }).waitFor({ timeout: 10000 });
          const restore = f.locator('.notice.restored', { hasText: 'Restored resend.md.' });
          await restore.waitFor({ timeout: 10000 });
          await f.locator('.notice.rewound', { hasText: 'Cut back to before "Shout the greeting"' }).waitFor({ timeout: 10000 });
          const left = (await f.locator('.msg.user', { hasText: 'Shout the greeting' }).count()) + (await f.locator('.msg.agent', { hasText: 'Shouted.' }).count()) + (await f.locator('.card[data-kind="edit"]').count());
          if (left !== 0) {
            throw new Error(`${where}, ${left} entries of the cut turn are still shown`);
          }
          const order = await Promise.all((await f.locator('.log > *').all()).map(async (e) => `${((await e.getAttribute('class')) ?? '').split(' ').slice(0, 2).join('.')}:${((await e.textContent()) ?? '').slice(0, 20)}`));
          const at = (prefix: string) => order.findIndex((o) => o.startsWith(prefix));
          if (!(at('notice.restored') < at('notice.rewound') && at('notice.rewound') < at('msg.user'))) {
            throw new Error(`${where}, the chat reads ${JSON.stringify(order)}`);
          }
          if ((await restore.getByRole('button', { name: 'Undo restore' }).count()) !== 1) {
            throw new Error(`${where}, the restore made before the cut offers no undo`);
          }
        };
        await cutShown('live');
        await shot('checkpoint-resend.png');
        // Reopened from History, the chat is the cut one.
        const session = ((await host('chatState')) as { session: string }).session;
        await f.getByRole('button', { name: 'New chat' }).click();
        await until(10000, async () => (((await host('chatState')) as { session?: string }).session !== session ? true : undefined));
        await f.getByRole('button', { name: 'History' }).click();
        await f.locator(`.history-item[data-session="${session}"] .history-open`).click();
        await cutShown('reopened');
        await shot('checkpoint-resend-reopened.png');
      },
    ],
    [
      'chat_repeated_tool_call_ids_get_a_card_each_live_and_reopened',
      async () => {
        // A provider naming the call of every response call_0.
        await host('useModel', {
          script: script(
            response([{ tool: { id: 'call_0', name: 'write', input: { path: 'first.md', content: 'first\n' } } }]),
            response([{ tool: { id: 'call_0', name: 'write', input: { path: 'second.md', content: 'second\n' } } }]),
            response([{ text: 'Wrote both.' }]),
          ),
        });
        await prompt('Write first.md and second.md');
        await agentText('Wrote both.').waitFor({ timeout: 20000 });
        await turnEnds();
        const cardsShown = async (where: string) => {
          const cards = f.locator('.card[data-kind="edit"]');
          await until(10000, async () => ((await cards.count()) === 2 ? true : undefined)).catch(async () => {
            throw new Error(`${where}, ${await cards.count()} edit cards for two calls`);
          });
          const seen = await Promise.all(
            (await cards.all()).map(async (c) => ({ id: await c.getAttribute('data-tool-call'), status: await c.getAttribute('data-status'), files: await c.locator('.diff-head .path').allTextContents() })),
          );
          if (seen[0].id === seen[1].id || JSON.stringify(seen.map((c) => c.files)) !== JSON.stringify([['first.md'], ['second.md']]) || seen.some((c) => c.status !== 'completed')) {
            throw new Error(`${where}, the cards are ${JSON.stringify(seen)}`);
          }
        };
        await cardsShown('live');
        await shot('chat-repeated-ids.png');
        const session = ((await host('chatState')) as { session: string }).session;
        await f.getByRole('button', { name: 'New chat' }).click();
        await until(10000, async () => (((await host('chatState')) as { session?: string }).session !== session ? true : undefined));
        await f.getByRole('button', { name: 'History' }).click();
        await f.locator(`.history-item[data-session="${session}"] .history-open`).click();
        await f.locator('.msg.user', { hasText: 'Write first.md and second.md' }).waitFor({ timeout: 10000 });
        await cardsShown('reopened');
      },
    ],
    [
      'review_keep_is_kept_when_the_chat_is_reopened',
      async () => {
        await host('closeEditors');
        await host('writeFile', { path: 'kept1.md', text: 'one\n' });
        await host('writeFile', { path: 'kept2.md', text: 'two\n' });
        await turn(
          'Upper-case kept1 and kept2',
          'Both upper-cased.',
          response([tool('read', { path: 'kept1.md' }), tool('read', { path: 'kept2.md' })]),
          response([tool('write', { path: 'kept1.md', content: 'ONE\n' }), tool('write', { path: 'kept2.md', content: 'TWO\n' })]),
        );
        await row('kept2.md').waitFor({ timeout: 10000 });
        await row('kept1.md').getByRole('button', { name: 'Keep kept1.md' }).click();
        await row('kept1.md').waitFor({ state: 'detached', timeout: 10000 });
        const session = ((await host('chatState')) as { session: string }).session;
        const reopen = async () => {
          await f.getByRole('button', { name: 'New chat' }).click();
          await until(10000, async () => (((await host('chatState')) as { session?: string }).session !== session ? true : undefined));
          await f.locator('.changes[hidden]').waitFor({ state: 'attached', timeout: 10000 });
          await f.getByRole('button', { name: 'History' }).click();
          await f.locator(`.history-item[data-session="${session}"] .history-open`).click();
          await f.locator('.msg.user', { hasText: 'Upper-case kept1 and kept2' }).waitFor({ timeout: 10000 });
        };
        await reopen();
        // As the live chat left it: kept2.md to review, kept1.md kept.
        await row('kept2.md').waitFor({ timeout: 10000 });
        if ((await row('kept1.md').count()) !== 0) {
          throw new Error('the reopened chat offers the file the user kept for review again');
        }
        await shot('review-kept-reopened.png');
        await f.getByRole('button', { name: 'Keep all changes' }).click();
        await f.locator('.changes[hidden]').waitFor({ state: 'attached', timeout: 10000 });
        await reopen();
        await f.locator('.changes[hidden]').waitFor({ state: 'attached', timeout: 10000 });
        if ((await host('readFile', { path: 'kept1.md' })) !== 'ONE\n' || (await host('readFile', { path: 'kept2.md' })) !== 'TWO\n') {
          throw new Error('Keep changed a file');
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
      await shot(`review-failed-${name}.png`).catch(() => undefined);
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
