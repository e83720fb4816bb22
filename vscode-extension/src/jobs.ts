// tandem/jobSettled: a bash script that outlived its call ended.
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { Methods } from './protocol';

export function registerJobSettled(c: LanguageClient): void {
  c.onNotification(Methods.jobSettled, (p: { job: string; command?: string; end?: string; status?: number }) => {
    const text = `tandem: job ${p.job} (${p.command ?? ''}) ${p.end ?? 'ended'}${p.status !== undefined ? `, status ${p.status}` : ''}`;
    if (p.end === 'finished' && p.status === 0) {
      void vscode.window.showInformationMessage(text);
    } else {
      void vscode.window.showWarningMessage(text);
    }
  });
}
