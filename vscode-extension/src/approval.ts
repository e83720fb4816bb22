// Turning a tandem/askApproval question (docs/protocol.md, "Approvals") into a notification,
// and the user's click into the answer kind tandem expects. Pure, so the mapping is
// unit-tested without an editor.

export interface StepPath {
  path: string;
  real?: string;
  class?: string;
}

export interface ApprovalStep {
  text: string;
  effects?: string[];
  paths?: StepPath[];
}

export interface ApprovalQuestion {
  id: string;
  session?: string;
  /** Who asks when it is not the agent: an MCP client ("Claude Code"), the editor's terminal. */
  who?: string;
  /** 'shell', 'document' or 'mcp' so far; an unknown kind is asked about as a step to run. */
  kind?: string;
  steps?: ApprovalStep[];
  options?: string[];
}

/** The buttons of a question, in the order shown, with the answer kind each sends. */
export const Choices: readonly { title: string; answer: string }[] = [
  { title: 'Allow', answer: 'allow_once' },
  { title: 'Deny', answer: 'reject_once' },
  { title: 'Allow for this session', answer: 'allow_always' },
];

export interface Prompt {
  message: string;
  buttons: string[];
}

const verbs: Record<string, string> = { shell: 'run', document: 'access', mcp: 'call' };

/**
 * The notification for a question: who asks (in which chat, by its title, when the session
 * is one), each step exactly as it will run (tandem has escaped every hidden character), its
 * effects, and the paths that are not plain workspace paths, which are what the user decides on.
 */
export function approvalPrompt(q: ApprovalQuestion, chat?: string): Prompt {
  const where = chat ? `in the chat "${chat}"` : `(session ${q.session ?? '?'})`;
  const parts = [`tandem: ${q.who ?? 'the agent'} ${where} asks to ${verbs[q.kind ?? ''] ?? 'run'}:`];
  for (const s of q.steps ?? []) {
    let line = s.text;
    if (Array.isArray(s.effects) && s.effects.length > 0) {
      line += ` — effects: ${s.effects.join(', ')}`;
    }
    for (const p of s.paths ?? []) {
      if (p.class && p.class !== 'inside' && p.class !== 'harmless') {
        line += ` — ${p.class}: ${p.real ?? p.path}`;
      }
    }
    parts.push(line);
  }
  const offered = Choices.filter((c) => !q.options || q.options.includes(c.answer));
  return { message: parts.join('\n'), buttons: offered.map((c) => c.title) };
}

/**
 * The reply to a question. A closed notification, or a question settled elsewhere, is no
 * answer from this client ({answer: null}): tandem never takes it as a yes.
 */
export function approvalAnswer(button: string | undefined): { answer: string | null } {
  return { answer: Choices.find((c) => c.title === button)?.answer ?? null };
}
