// What the review tests (review.ts) ask of the extension host: the user's own edits in a
// buffer, VS Code's undo, and what the review holds. Called from index.ts's handle().
import * as vscode from 'vscode';
import type { TandemApi } from '../../extension';

export async function reviewOp(api: TandemApi, root: vscode.Uri, r: { op: string; [k: string]: unknown }): Promise<{ value: unknown } | undefined> {
  const uri = () => vscode.Uri.joinPath(root, String(r.path));
  switch (r.op) {
    case 'typeLine': {
      // The user types over one line (1-based) in the editor; saved only when asked.
      const doc = await vscode.workspace.openTextDocument(uri());
      const line = doc.lineAt(Number(r.line) - 1);
      const e = new vscode.WorkspaceEdit();
      e.replace(doc.uri, line.range, String(r.text));
      await vscode.workspace.applyEdit(e);
      if (r.save) {
        await doc.save();
      }
      return { value: null };
    }
    case 'bufferText': {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri().toString());
      return { value: doc ? { text: doc.getText(), dirty: doc.isDirty } : null };
    }
    case 'undoInEditor': {
      // Ctrl+Z in the file's editor.
      await vscode.window.showTextDocument(uri(), { preview: false });
      await vscode.commands.executeCommand('undo');
      return { value: null };
    }
    case 'reviewState':
      return { value: api.chat.review.state };
  }
  return undefined;
}
