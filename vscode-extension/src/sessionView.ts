// The sidebar: the backend's state, the agent session, the tools (click one to call it) and
// the last call's outcome.
import * as vscode from 'vscode';
import { summary, ToolInfo } from './protocol';

export interface ViewState {
  backend: 'starting' | 'running' | 'stopped';
  session?: string;
  tools: ToolInfo[];
  lastCall?: { tool: string; isError: boolean; uri: vscode.Uri };
  error?: string;
}

type Node =
  | { kind: 'backend' }
  | { kind: 'session' }
  | { kind: 'tools' }
  | { kind: 'tool'; tool: ToolInfo }
  | { kind: 'last' }
  | { kind: 'error' };

export class SessionView implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly state: ViewState = { backend: 'stopped', tools: [] };

  /** Changes what the view shows, and shows it. */
  update(patch: Partial<ViewState>): void {
    Object.assign(this.state, patch);
    this.changed.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    const s = this.state;
    if (!node) {
      const top: Node[] = [{ kind: 'backend' }, { kind: 'session' }];
      if (s.error) {
        top.push({ kind: 'error' });
      }
      if (s.lastCall) {
        top.push({ kind: 'last' });
      }
      top.push({ kind: 'tools' });
      return top;
    }
    if (node.kind === 'tools') {
      return s.tools.map((tool) => ({ kind: 'tool', tool }));
    }
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const s = this.state;
    switch (node.kind) {
      case 'backend': {
        const item = new vscode.TreeItem(`Backend: ${s.backend}`);
        item.iconPath = new vscode.ThemeIcon(s.backend === 'running' ? 'pass' : s.backend === 'starting' ? 'loading~spin' : 'error');
        item.command = { command: 'tandem.showLog', title: 'Show Log' };
        return item;
      }
      case 'session': {
        const item = new vscode.TreeItem(s.session ? `Session ${s.session}` : 'No session — click to open');
        item.iconPath = new vscode.ThemeIcon(s.session ? 'account' : 'add');
        item.contextValue = s.session ? 'session' : 'nosession';
        if (!s.session) {
          item.command = { command: 'tandem.openSession', title: 'Open Agent Session' };
        }
        return item;
      }
      case 'error': {
        const item = new vscode.TreeItem(s.error ?? '');
        item.iconPath = new vscode.ThemeIcon('warning');
        item.tooltip = s.error;
        return item;
      }
      case 'last': {
        const last = s.lastCall!;
        const item = new vscode.TreeItem(`Last call: ${last.tool} — ${last.isError ? 'error' : 'ok'}`);
        item.iconPath = new vscode.ThemeIcon(last.isError ? 'error' : 'check');
        item.command = { command: 'vscode.open', title: 'Show Result', arguments: [last.uri] };
        return item;
      }
      case 'tools': {
        const item = new vscode.TreeItem(`Tools (${s.tools.length})`, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon('tools');
        return item;
      }
      case 'tool': {
        const item = new vscode.TreeItem(node.tool.name);
        item.description = summary(node.tool.description);
        item.tooltip = new vscode.MarkdownString().appendText(node.tool.description);
        item.contextValue = 'tool';
        item.iconPath = new vscode.ThemeIcon('symbol-method');
        item.command = { command: 'tandem.callTool', title: 'Call', arguments: [node.tool.name] };
        return item;
      }
    }
  }
}
