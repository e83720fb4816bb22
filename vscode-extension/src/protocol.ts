// The tandem/* methods of docs/protocol.md, as types, plus the pure helpers the extension
// needs around them. Nothing here imports vscode, so it is unit-tested under plain Node.

/** A tool as tandem/listTools returns it. */
export interface ToolInfo {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  default?: unknown;
  items?: JsonSchema;
  enum?: unknown[];
}

/** The result of tandem/callTool: the shape of an MCP CallToolResult. */
export interface CallToolResult {
  content: { type: string; text?: string }[];
  isError?: boolean;
  structuredContent?: unknown;
}

export const Methods = {
  openSession: 'tandem/openSession',
  closeSession: 'tandem/closeSession',
  listTools: 'tandem/listTools',
  callTool: 'tandem/callTool',
  terminalEnv: 'tandem/terminalEnv',
  askApproval: 'tandem/askApproval',
  approvalSettled: 'tandem/approvalSettled',
  jobSettled: 'tandem/jobSettled',
  saveDocument: 'tandem/saveDocument',
  languageQuery: 'tandem/languageQuery',
} as const;

/** The model-facing text of a result: its text parts, in order. */
export function resultText(r: CallToolResult): string {
  return (r.content ?? [])
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('\n');
}

/** The first line of a tool description, for a compact list. */
export function summary(description: string): string {
  const line = description.split('\n', 1)[0].trim();
  return line.length > 120 ? line.slice(0, 119) + '…' : line;
}

/**
 * A JSON object with every required argument of a schema, to prefill the argument box:
 * a user (or a model) fills in values instead of remembering names. A schema that requires
 * none of its arguments (read takes path or paths) gets its first one.
 */
export function argumentTemplate(schema: JsonSchema): string {
  const out: Record<string, unknown> = {};
  const first = Object.keys(schema.properties ?? {}).slice(0, 1);
  for (const name of schema.required?.length ? schema.required : first) {
    const p = schema.properties?.[name] ?? {};
    out[name] = p.default ?? emptyOf(p);
  }
  return JSON.stringify(out);
}

function emptyOf(s: JsonSchema): unknown {
  const t = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (t) {
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return s.enum?.[0] ?? '';
  }
}

/** Parses a tool's arguments as typed by the user; an empty box means {}. */
export function parseArguments(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  const t = text.trim();
  if (t === '') {
    return { ok: true, value: {} };
  }
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch (e) {
    return { ok: false, error: `The arguments are not JSON (${(e as Error).message}); type one object such as {"path": "README.md"}.` };
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    return { ok: false, error: 'The arguments must be one JSON object such as {"path": "README.md"}.' };
  }
  return { ok: true, value: v as Record<string, unknown> };
}

/** The variables of a tandem/terminalEnv answer, whether wrapped in {env} or not. */
export function terminalVariables(result: unknown): Record<string, string> {
  const r = (result ?? {}) as Record<string, unknown>;
  const env = (typeof r.env === 'object' && r.env !== null ? r.env : r) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (typeof v === 'string') {
      out[k] = v;
    }
  }
  return out;
}

/**
 * The tandem executable to start: the user's tandem.path when they set one; else the binary a
 * platform .vsix carries (bin/tandem in the extension), when there is one; else `tandem` on
 * PATH.
 */
export function tandemExecutable(userSetting: string | undefined, bundled: string | undefined): string {
  if (userSetting && userSetting.trim() !== '') {
    return userSetting;
  }
  return bundled ?? 'tandem';
}
