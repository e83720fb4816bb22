// What tandem asks of the editor's documents beyond workspace/applyEdit, which
// vscode-languageclient applies itself as an editor edit.
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { Methods } from './protocol';

/**
 * tandem/saveDocument: after an agent edit lands in a document that had no unsaved changes,
 * tandem asks to save it, so builds and tests the agent runs see it.
 */
export function registerSaveDocument(c: LanguageClient): void {
  c.onRequest(Methods.saveDocument, async (p: { uri: string }) => {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === vscode.Uri.parse(p.uri).toString());
    if (!doc) {
      throw new Error(`${p.uri} is not open in the editor`);
    }
    if (!(await doc.save())) {
      throw new Error(`saving ${p.uri} failed`);
    }
    return null;
  });
}
