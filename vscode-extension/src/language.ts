// tandem/languageQuery: tandem asks what VS Code's language servers know — problems, symbols,
// definitions, references, hovers — through the vscode.languages API and the
// vscode.execute…Provider commands, so the agent gets the editor's own answers.
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { Methods } from './protocol';

type Position = { line: number; character: number };
type Range = { start: Position; end: Position };
type Diagnostic = { range: Range; severity: number; message: string; source?: string; code?: string | number };
type FileDiagnostics = { uri: string; diagnostics: Diagnostic[] };
type Symbol = { name: string; detail?: string; kind: number; range: Range; location?: { uri: string; range: Range }; children?: Symbol[] };
type Location = { uri: string; range: Range } | { targetUri: string; targetRange: Range; uri: string; range: Range };

export type LanguageQuery = {
  kind: 'diagnostics' | 'symbols' | 'definition' | 'references' | 'hover';
  uri?: string;
  uris?: string[];
  position?: Position;
  after?: number;
  settleMs?: number;
};

/** How long problems must stay unchanged after a change before a settle answers. */
const QUIET_MS = 200;

function range(r: vscode.Range): Range {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

function diagnostic(d: vscode.Diagnostic): Diagnostic {
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  // vscode.DiagnosticSeverity counts from Error = 0; LSP from Error = 1.
  return { range: range(d.range), severity: d.severity + 1, message: d.message, source: d.source, code };
}

function symbol(s: vscode.DocumentSymbol | vscode.SymbolInformation): Symbol {
  // vscode.SymbolKind counts from File = 0; LSP from File = 1.
  if ('location' in s) {
    return { name: s.name, kind: s.kind + 1, range: range(s.location.range), location: { uri: s.location.uri.toString(), range: range(s.location.range) } };
  }
  return { name: s.name, detail: s.detail, kind: s.kind + 1, range: range(s.range), children: s.children.map(symbol) };
}

function location(l: vscode.Location | vscode.LocationLink): Location {
  if ('targetUri' in l) {
    return { uri: l.targetUri.toString(), range: range(l.targetRange), targetUri: l.targetUri.toString(), targetRange: range(l.targetRange) };
  }
  return { uri: l.uri.toString(), range: range(l.range) };
}

function hoverText(hovers: vscode.Hover[]): string {
  const parts: string[] = [];
  for (const h of hovers) {
    for (const c of h.contents) {
      if (typeof c === 'string') {
        parts.push(c);
      } else if (c instanceof vscode.MarkdownString) {
        parts.push(c.value);
      } else {
        parts.push('```' + c.language + '\n' + c.value + '\n```');
      }
    }
  }
  return parts.join('\n\n');
}

/**
 * Counts VS Code's diagnostics changes, per file, so a settle can wait for the change an edit
 * brings: generation is the count of change events; changedAt the generation of each file's
 * last change. languages are the languages whose files have had problems reported, which a
 * settle takes as covered by a language server.
 */
export class DiagnosticsWatch implements vscode.Disposable {
  private generation = 0;
  private readonly changedAt = new Map<string, number>();
  private readonly lastChange = new Map<string, number>();
  private readonly languages = new Set(['typescript', 'typescriptreact', 'javascript', 'javascriptreact', 'json', 'jsonc']);
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly sub: vscode.Disposable;

  constructor() {
    this.sub = vscode.languages.onDidChangeDiagnostics((e) => {
      this.generation++;
      const now = Date.now();
      for (const uri of e.uris) {
        this.changedAt.set(uri.toString(), this.generation);
        this.lastChange.set(uri.toString(), now);
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        if (doc && vscode.languages.getDiagnostics(uri).length > 0) {
          this.languages.add(doc.languageId);
        }
      }
      this.changed.fire();
    });
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }

  register(c: LanguageClient): void {
    c.onRequest(Methods.languageQuery, (q: LanguageQuery, token: vscode.CancellationToken) => this.answer(q, token));
  }

  async answer(q: LanguageQuery, token?: vscode.CancellationToken): Promise<unknown> {
    switch (q.kind) {
      case 'diagnostics':
        if (q.after !== undefined && q.uris?.length) {
          await this.settle(q.uris, q.after, q.settleMs ?? 1500, token);
        }
        return this.diagnostics(q.uris, q.after);
      case 'symbols': {
        const syms = await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>(
          'vscode.executeDocumentSymbolProvider',
          uriOf(q.uri),
        );
        return { symbols: (syms ?? []).map(symbol) };
      }
      case 'definition':
      case 'references': {
        const command = q.kind === 'definition' ? 'vscode.executeDefinitionProvider' : 'vscode.executeReferenceProvider';
        const locs = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(command, uriOf(q.uri), positionOf(q.position));
        return { locations: (locs ?? []).map(location) };
      }
      case 'hover': {
        const hovers = await vscode.commands.executeCommand<vscode.Hover[] | undefined>('vscode.executeHoverProvider', uriOf(q.uri), positionOf(q.position));
        return { contents: hoverText(hovers ?? []) };
      }
    }
    throw new Error(`unknown language query kind ${String((q as { kind: unknown }).kind)}`);
  }

  /** The problems of uris (all files when none), and every other file changed after `after`. */
  private diagnostics(uris: string[] | undefined, after: number | undefined): { generation: number; files: FileDiagnostics[] } {
    const files: FileDiagnostics[] = [];
    if (!uris?.length) {
      for (const [uri, ds] of vscode.languages.getDiagnostics()) {
        files.push({ uri: uri.toString(), diagnostics: ds.map(diagnostic) });
      }
      return { generation: this.generation, files };
    }
    const named = new Set(uris.map((u) => uriOf(u).toString()));
    for (const u of named) {
      files.push({ uri: u, diagnostics: vscode.languages.getDiagnostics(vscode.Uri.parse(u)).map(diagnostic) });
    }
    if (after !== undefined) {
      for (const [u, g] of this.changedAt) {
        if (g > after && !named.has(u)) {
          files.push({ uri: u, diagnostics: vscode.languages.getDiagnostics(vscode.Uri.parse(u)).map(diagnostic) });
        }
      }
    }
    return { generation: this.generation, files };
  }

  /** Whether a language server is expected to diagnose uri: an open document of a language with problems seen. */
  private covered(uri: string): boolean {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    return doc !== undefined && this.languages.has(doc.languageId);
  }

  /**
   * Resolves once every covered file of uris changed after generation `after` and then stayed
   * unchanged for QUIET_MS, or after ms, or when cancelled.
   */
  private settle(uris: string[], after: number, ms: number, token?: vscode.CancellationToken): Promise<void> {
    const watched = uris.map((u) => uriOf(u).toString()).filter((u) => this.covered(u));
    const end = Date.now() + ms;
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const subs: vscode.Disposable[] = [];
      const finish = () => {
        clearTimeout(timer);
        for (const s of subs) {
          s.dispose();
        }
        resolve();
      };
      const check = () => {
        clearTimeout(timer);
        const now = Date.now();
        if (now >= end || watched.every((u) => (this.changedAt.get(u) ?? 0) > after && now - (this.lastChange.get(u) ?? 0) >= QUIET_MS)) {
          finish();
          return;
        }
        const pending = watched.filter((u) => (this.changedAt.get(u) ?? 0) > after);
        const quietIn = pending.length === watched.length ? Math.max(...pending.map((u) => QUIET_MS - (now - (this.lastChange.get(u) ?? 0)))) : end - now;
        timer = setTimeout(check, Math.max(1, Math.min(quietIn, end - now)));
      };
      subs.push(this.changed.event(check));
      if (token) {
        subs.push(token.onCancellationRequested(finish));
      }
      check();
    });
  }
}

function uriOf(u: string | undefined): vscode.Uri {
  if (!u) {
    throw new Error('the query names no uri');
  }
  return vscode.Uri.parse(u);
}

function positionOf(p: Position | undefined): vscode.Position {
  if (!p) {
    throw new Error('the query names no position');
  }
  return new vscode.Position(p.line, p.character);
}
