// tandem's approval questions (tandem/askApproval) as warning notifications, until the user
// answers or tandem settles them (tandem/approvalSettled).
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { ApprovalQuestion, approvalAnswer, approvalPrompt } from './approval';
import { Methods } from './protocol';

export class Questions {
  /** The questions on screen, by id: settle() drops one that tandem settled elsewhere. */
  private readonly open = new Map<string, (reason: string) => void>();

  constructor(private readonly log: vscode.LogOutputChannel) {}

  register(c: LanguageClient): void {
    c.onRequest(Methods.askApproval, (q: ApprovalQuestion, token: vscode.CancellationToken) => this.ask(q, token));
    c.onNotification(Methods.approvalSettled, (p: { id: string; settled?: string }) => {
      this.open.get(String(p.id))?.(p.settled ?? 'settled');
    });
  }

  private async ask(q: ApprovalQuestion, token: vscode.CancellationToken): Promise<{ answer: string | null }> {
    const p = approvalPrompt(q);
    const id = String(q.id);
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
}
