// Tool results as read-only documents (scheme tandem-result), each call its own.
import * as vscode from 'vscode';
import { CallToolResult, resultText } from './protocol';
import { SessionView } from './sessionView';

export const resultScheme = 'tandem-result';

export class ResultDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private seq = 0;

  constructor(private readonly view: SessionView) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** Opens what the model sees of a call, and names the call in the sidebar. */
  async show(tool: string, r: CallToolResult): Promise<void> {
    const uri = vscode.Uri.from({ scheme: resultScheme, path: `/${++this.seq}/${tool}.txt` });
    this.texts.set(uri.toString(), resultText(r));
    this.view.update({ lastCall: { tool, isError: r.isError === true, uri } });
    await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: false });
  }
}
