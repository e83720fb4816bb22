// Where the chat is drawn: the sidebar's view and, on request, an editor tab — the same chat
// in both. What the chat posts goes to every surface and is kept as the transcript since the
// last reset, which a surface that (re)loads gets first, so a tab opened mid-chat shows it
// whole. Answers to a surface's request (completions, history) go to the surface that last
// spoke alone.
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import { FromView, ToView } from './webviewMessages';

/** The editor tab's view type. */
export const chatPanelType = 'tandem.chatEditor';

/** The sidebar's view. */
export const chatViewId = 'tandem.chat';

/**
 * What one surface alone gets: answers to what it asked, context for its next message, and
 * the queue (which the surface holding it sends: two would send it twice).
 */
export function perSurface(m: ToView): boolean {
  switch (m.type) {
    case 'state':
    case 'completions':
    case 'history':
    case 'historyClosed':
    case 'queue':
    case 'addContext':
    case 'setupModels':
    case 'setupError':
      return true;
    default:
      return false;
  }
}

interface Surface {
  webview: vscode.Webview;
  ready: boolean;
  /** Shown now (a hidden sidebar or a background tab is not). */
  visible(): boolean;
}

export class ChatSurfaces {
  private readonly surfaces = new Set<Surface>();
  private panel: vscode.WebviewPanel | undefined;
  private readonly transcript: ToView[] = [];
  /** The surface whose message was received last: answers go there. */
  private asker: Surface | undefined;
  private readonly visibility = new vscode.EventEmitter<boolean>();
  /** Fires with whether any surface is visible, when that may have changed. */
  readonly onDidChangeVisibility = this.visibility.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly received: (m: FromView) => void,
  ) {}

  /** The sidebar's view resolved (again). */
  addSidebar(view: vscode.WebviewView): void {
    const s = this.attach(view.webview, () => view.visible);
    view.onDidChangeVisibility(() => this.visibility.fire(this.visible));
    view.onDidDispose(() => {
      this.surfaces.delete(s);
      this.visibility.fire(this.visible);
    });
  }

  /** Opens the chat in an editor tab, or shows the one open. */
  openInEditor(title: string): void {
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    this.adopt(vscode.window.createWebviewPanel(chatPanelType, title, vscode.ViewColumn.Active, { retainContextWhenHidden: true }));
  }

  /** Draws the chat in a tab: a new one, or the one VS Code restores after a reload. */
  adopt(panel: vscode.WebviewPanel): void {
    if (this.panel && this.panel !== panel) {
      this.panel.dispose();
    }
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'tandem.svg');
    this.panel = panel;
    const s = this.attach(panel.webview, () => panel.visible);
    panel.onDidChangeViewState(() => this.visibility.fire(this.visible));
    panel.onDidDispose(() => {
      this.surfaces.delete(s);
      this.panel = undefined;
      this.visibility.fire(this.visible);
    });
  }

  /** Names the editor tab after the chat. */
  setTitle(title: string): void {
    if (this.panel) {
      this.panel.title = title;
    }
  }

  /** Whether the user can see the chat somewhere now. */
  get visible(): boolean {
    return [...this.surfaces].some((s) => s.ready && s.visible());
  }

  /** Whether a surface has loaded. */
  get ready(): boolean {
    return [...this.surfaces].some((s) => s.ready);
  }

  /** Posts to every surface and keeps it for those that load later; a reset starts anew. */
  post(m: ToView): void {
    if (m.type === 'reset') {
      this.transcript.length = 0;
    }
    if (perSurface(m)) {
      const s = this.asker?.ready && this.surfaces.has(this.asker) ? this.asker : this.front();
      if (s) {
        void s.webview.postMessage(m);
      }
      return;
    }
    this.transcript.push(m);
    for (const s of this.surfaces) {
      if (s.ready) {
        void s.webview.postMessage(m);
      }
    }
  }

  /** Shows the surface the user looks at (the tab if open, else the sidebar) and posts to it. */
  async postToFront(m: ToView): Promise<void> {
    if (this.panel) {
      this.panel.reveal(undefined, false);
    } else {
      await vscode.commands.executeCommand(`${chatViewId}.focus`);
    }
    const s = this.front();
    if (s) {
      void s.webview.postMessage(m);
    }
  }

  private front(): Surface | undefined {
    const all = [...this.surfaces].filter((s) => s.ready);
    return all.find((s) => s.webview === this.panel?.webview && s.visible()) ?? all.find((s) => s.visible()) ?? all[0];
  }

  private attach(webview: vscode.Webview, visible: () => boolean): Surface {
    const s: Surface = { webview, ready: false, visible };
    this.surfaces.add(s);
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const bundle = vscode.Uri.joinPath(this.extensionUri, 'out', 'webview');
    webview.options = { enableScripts: true, localResourceRoots: [media, bundle] };
    webview.html = html(webview, media, bundle);
    webview.onDidReceiveMessage((m: FromView) => {
      this.asker = s;
      if (m.type === 'ready') {
        // A surface that (re)loaded draws the chat so far, then hears what follows.
        s.ready = true;
        for (const t of this.transcript) {
          void webview.postMessage(t);
        }
        this.visibility.fire(this.visible);
      }
      this.received(m);
    });
    return s;
  }
}

function html(w: vscode.Webview, media: vscode.Uri, bundle: vscode.Uri): string {
  const nonce = crypto.randomBytes(18).toString('base64');
  const css = w.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css'));
  const js = w.asWebviewUri(vscode.Uri.joinPath(bundle, 'main.js'));
  const csp = [
    "default-src 'none'",
    `style-src ${w.cspSource}`,
    `img-src ${w.cspSource} data:`,
    `font-src ${w.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css.toString()}">
<title>tandem chat</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${js.toString()}"></script>
</body>
</html>`;
}
