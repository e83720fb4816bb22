// tandem's approval questions (tandem/askApproval) as warning notifications, until the user
// answers or tandem settles them (tandem/approvalSettled).
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { ApprovalQuestion, approvalAnswer, approvalPrompt } from './approval';
import { Methods } from './protocol';

/** Where a question can also be asked: the chat, inside the tool card of the step. */
export interface InlineAsker {
  owns(q: ApprovalQuestion): boolean;
  readonly visible: boolean;
  ask(q: ApprovalQuestion): { answer: Promise<{ answer: string | null } | undefined>; settle: (how: string) => void };
  /** tandem settled a question (any client's): the card shows how. */
  settled(id: string, how: string): void;
}

/** How an answer kind reads once settled, as tandem/approvalSettled says it. */
const settledAs: Record<string, string> = { allow_once: 'allow', allow_always: 'allow_session', reject_once: 'deny', reject_always: 'deny' };

export class Questions {
  /** The questions on screen, by id: settle() drops one that tandem settled elsewhere. */
  private readonly open = new Map<string, (reason: string) => void>();

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly inline?: InlineAsker,
  ) {}

  register(c: LanguageClient): void {
    c.onRequest(Methods.askApproval, (q: ApprovalQuestion, token: vscode.CancellationToken) => this.ask(q, token));
    c.onNotification(Methods.approvalSettled, (p: { id: string; settled?: string }) => {
      this.open.get(String(p.id))?.(p.settled ?? 'settled');
      this.inline?.settled(String(p.id), p.settled ?? 'settled');
    });
  }

  private async ask(q: ApprovalQuestion, token: vscode.CancellationToken): Promise<{ answer: string | null }> {
    const id = String(q.id);
    if (this.inline?.owns(q)) {
      return this.askInline(q, id, token);
    }
    const p = approvalPrompt(q);
    // Settled elsewhere (another client answered, the step ended) or cancelled: stop waiting.
    // VS Code cannot close a notification, so a later click is simply not used.
    const settled = new Promise<undefined>((resolve) => {
      this.open.set(id, (how) => {
        this.log.info(`question ${id} settled: ${how}`);
        resolve(undefined);
      });
      token.onCancellationRequested(() => resolve(undefined));
    });
    const button = await Promise.race([vscode.window.showWarningMessage(p.message, ...p.buttons), settled]);
    this.open.delete(id);
    return approvalAnswer(button);
  }

  /**
   * A chat's question: asked in its tool card, and also as a notification when the chat is
   * hidden. The first answer wins; the other is settled (the card says how it ended).
   */
  private async askInline(q: ApprovalQuestion, id: string, token: vscode.CancellationToken): Promise<{ answer: string | null }> {
    const card = this.inline!.ask(q);
    let done = false;
    const settled = new Promise<undefined>((resolve) => {
      this.open.set(id, (how) => {
        this.log.info(`question ${id} settled: ${how}`);
        card.settle(how);
        resolve(undefined);
      });
      token.onCancellationRequested(() => {
        card.settle('cancelled');
        resolve(undefined);
      });
    });
    const asks: Promise<{ answer: string | null } | undefined>[] = [card.answer, settled];
    if (!this.inline!.visible) {
      const p = approvalPrompt(q);
      asks.push(
        Promise.resolve(vscode.window.showWarningMessage(p.message, ...p.buttons)).then((b) => {
          if (done) {
            return undefined;
          }
          const a = approvalAnswer(b);
          return a.answer === null ? new Promise<undefined>(() => undefined) : a;
        }),
      );
    }
    const a = await Promise.race(asks);
    done = true;
    this.open.delete(id);
    if (a) {
      card.settle(settledAs[a.answer ?? ''] ?? 'unanswered');
    }
    return a ?? { answer: null };
  }
}
