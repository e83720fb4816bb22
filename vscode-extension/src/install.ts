// Setting agents up to use tandem in a workspace: tandem's MCP server entry in each agent's
// configuration, written by `tandem mcp install --scope project` (which keeps every other byte
// of those files and refuses one it cannot parse), and a working rule in the agents'
// instruction file, AGENTS.md. The rule's merge is pure, so every rule of it is unit-tested: it
// lives between markers and is replaced there, never appended twice; broken markers are
// refused; a file whose content would not change is not written.

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

export type Outcome = { status: 'write'; text: string } | { status: 'unchanged' } | { status: 'refused'; reason: string };

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
