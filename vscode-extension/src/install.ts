// Setting agents up to use tandem in a workspace: tandem's MCP server entry in the agent
// configuration files, and a working rule in the agents' instruction file. Pure, so every rule
// is unit-tested: an entry is merged under its own key and nothing else changes; a file that
// is not valid JSON is refused (someone is editing it, and rewriting it would lose their other
// servers); the rule lives between markers and is replaced there, never appended twice; a file
// whose content would not change is not written; and nothing written holds a token (tandem
// needs none: `tandem mcp serve` runs on the workspace it is started in).

export const BEGIN = '<!-- tandem:begin -->';
export const END = '<!-- tandem:end -->';

/** The working rule, identical in the Neovim plugin (neovim/lua/tandem/install.lua). */
export const WORKING_RULE = `${BEGIN}
## tandem

This workspace has tandem's tools (MCP server \`tandem\`, started as \`tandem mcp serve\`).
Use them for files and commands: \`read\` shows \`[path#TAG]\` and numbered rows; \`edit\` names
that tag and anchors only on rows you were shown; \`grep\` and \`glob\` page with \`skip\`; \`bash\`
asks the user before risky steps. A refusal ends with what to do next: do that. For a large MCP
result, run \`tandem mcp call SERVER/TOOL '{...}' > FILE\` in a shell step and read FILE in ranges.
${END}
`;

export interface Target {
  /** Relative to the workspace folder. */
  file: string;
  kind: 'json' | 'block';
  /** json: the object that holds servers, and tandem's entry under the key "tandem". */
  container?: string;
  entry?: Record<string, unknown>;
}

export const Targets: readonly Target[] = [
  { file: '.mcp.json', kind: 'json', container: 'mcpServers', entry: { command: 'tandem', args: ['mcp', 'serve'] } },
  { file: '.vscode/mcp.json', kind: 'json', container: 'servers', entry: { type: 'stdio', command: 'tandem', args: ['mcp', 'serve'] } },
  { file: 'AGENTS.md', kind: 'block' },
];

export type Outcome = { status: 'write'; text: string } | { status: 'unchanged' } | { status: 'refused'; reason: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Puts entry under container.tandem of a JSON file's text (undefined: no file yet). */
export function mergeJson(text: string | undefined, container: string, entry: Record<string, unknown>): Outcome {
  let doc: unknown = {};
  if (text !== undefined && text.trim() !== '') {
    try {
      doc = JSON.parse(text);
    } catch (e) {
      return { status: 'refused', reason: `it is not valid JSON (${(e as Error).message}); fix or finish editing it, then install again` };
    }
  }
  if (!isObject(doc)) {
    return { status: 'refused', reason: 'it is not a JSON object; fix it, then install again' };
  }
  const servers = doc[container] ?? {};
  if (!isObject(servers)) {
    return { status: 'refused', reason: `its "${container}" is not an object; fix it, then install again` };
  }
  if (same(servers.tandem, entry)) {
    return { status: 'unchanged' };
  }
  const next = { ...doc, [container]: { ...servers, tandem: entry } };
  return { status: 'write', text: JSON.stringify(next, null, 2) + '\n' };
}

/** Replaces the block between the markers, or appends it when the text has none. */
export function mergeBlock(text: string | undefined, block: string): Outcome {
  const t = text ?? '';
  const begins = t.split(BEGIN).length - 1;
  const ends = t.split(END).length - 1;
  let next: string;
  if (begins === 0 && ends === 0) {
    next = t === '' ? block : t.replace(/\n*$/, '\n\n') + block;
  } else if (begins === 1 && ends === 1 && t.indexOf(BEGIN) < t.indexOf(END)) {
    const from = t.indexOf(BEGIN);
    let to = t.indexOf(END) + END.length;
    if (t[to] === '\n') {
      to++;
    }
    next = t.slice(0, from) + block + t.slice(to);
  } else {
    return { status: 'refused', reason: `its ${BEGIN} … ${END} markers are broken; leave exactly one pair, then install again` };
  }
  return next === t ? { status: 'unchanged' } : { status: 'write', text: next };
}

/** The outcome for one target given its current text. */
export function plan(target: Target, text: string | undefined): Outcome {
  return target.kind === 'json' ? mergeJson(text, target.container!, target.entry!) : mergeBlock(text, WORKING_RULE);
}
