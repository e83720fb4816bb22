// tandem's approval questions (tandem/askApproval) as warning notifications, until the user
// answers or tandem settles them (tandem/approvalSettled).
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { ApprovalQuestion, approvalAnswer, approvalPrompt } from './approval';
import { Methods } from './protocol';

/** A question asked in the chat. */
export interface InlineQuestion {
  /** The card's answer, or undefined once settled. */
  answer: Promise<{ answer: string | null } | undefined>;
  /** Resolves when the user cannot see it there: the chat hidden, or the question scrolled away. */
  unseen: Promise<void>;
  settle(how: string): void;
}

/** Where a question can also be asked: the chat, inside the tool card of the step. */
export interface InlineAsker {
  owns(q: ApprovalQuestion): boolean;
  ask(q: ApprovalQuestion): InlineQuestion;
  /** tandem settled a question (any client's): the card shows how. */
  settled(id: string, how: string): void;
  /** The title of the chat a session is, for a notification to name it. */
  chatName(session: string | undefined): Promise<string | undefined>;
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
    const p = approvalPrompt(q, await this.inline?.chatName(q.session).catch(() => undefined));
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
   * A chat's question: asked in its tool card, and also as a notification naming the chat
   * once the user cannot see it there (the chat hidden, the question scrolled away). The
   * first answer wins; the other is settled (the card says how it ended).
   */
  private async askInline(q: ApprovalQuestion, id: string, token: vscode.CancellationToken): Promise<{ answer: string | null }> {
    const inline = this.inline!;
    const card = inline.ask(q);
    let done = false;
    const a = await new Promise<{ answer: string | null } | undefined>((resolve) => {
      void card.answer.then(resolve);
      this.open.set(id, (how) => {
        this.log.info(`question ${id} settled: ${how}`);
        card.settle(how);
        resolve(undefined);
      });
      token.onCancellationRequested(() => {
        card.settle('cancelled');
        resolve(undefined);
      });
      void card.unseen.then(async () => {
        const p = approvalPrompt(q, await inline.chatName(q.session).catch(() => undefined));
        if (done) {
          return;
        }
        const b = await vscode.window.showWarningMessage(p.message, ...p.buttons);
        const answer = approvalAnswer(b);
        // A notification closed unanswered leaves the card's question open.
        if (!done && answer.answer !== null) {
          resolve(answer);
        }
      });
    });
    done = true;
    this.open.delete(id);
    if (a) {
      card.settle(settledAs[a.answer ?? ''] ?? 'unanswered');
    }
    return a ?? { answer: null };
  }
}
