// Turning a tandem/askApproval question into a notification and the user's click into the
// answer tandem expects. Pure, so the mapping is unit-tested without an editor.

export interface ApprovalStep {
  command?: string;
  text?: string;
  effects?: string[];
  paths?: { path: string; class?: string }[];
}

export interface ApprovalQuestion {
  id: string | number;
  session?: string;
  title?: string;
  message?: string;
  steps?: ApprovalStep[];
  actions?: string[];
}

/** The three answers every question offers, in the order a notification shows them. */
export const Allow = 'Allow';
export const Deny = 'Deny';
export const AllowSession = 'Allow for this session';
export const DefaultActions = [Allow, Deny, AllowSession];

export interface Prompt {
  message: string;
  detail: string;
  actions: string[];
}

/** The notification for a question: one line to decide on, the exact steps in the detail. */
export function approvalPrompt(q: ApprovalQuestion): Prompt {
  const head = q.title ?? q.message ?? 'tandem asks before running a step';
  const lines: string[] = [];
  for (const s of q.steps ?? []) {
    let line = s.command ?? s.text ?? '';
    if (s.effects && s.effects.length > 0) {
      line += `  [${s.effects.join(', ')}]`;
    }
    lines.push(line);
    for (const p of s.paths ?? []) {
      lines.push(`    ${p.path}${p.class ? ` (${p.class})` : ''}`);
    }
  }
  if (q.session) {
    lines.push(`session ${q.session}`);
  }
  const firstStep = q.steps?.[0]?.command ?? q.steps?.[0]?.text;
  const message = firstStep && !head.includes(firstStep) ? `tandem: ${head} — ${firstStep}` : `tandem: ${head}`;
  return {
    message,
    detail: lines.join('\n'),
    actions: q.actions && q.actions.length > 0 ? q.actions : DefaultActions,
  };
}

/**
 * The reply to a question. A closed notification (no choice) is no answer: tandem treats
 * it as a denial of this step, never as consent.
 */
export function approvalAnswer(choice: string | undefined): { answer: string } {
  return { answer: choice ?? 'dismissed' };
}
