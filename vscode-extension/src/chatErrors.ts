// What a failed prompt means to the user, and the one action that fixes it. Pure, so it is
// unit-tested without an editor. tandem's agent errors are sentences that say what to set
// (docs/protocol.md, "The agent on the editor's connection"); these patterns read them.

export type ChatErrorKind = 'setup' | 'auth' | 'rate' | 'network' | 'busy' | 'other';

export interface ChatError {
  kind: ChatErrorKind;
  message: string;
  /** For 'rate': seconds until a retry makes sense. */
  retryIn?: number;
}

/** Classifies an error message of session/new, session/prompt or set_config_option. */
export function classifyError(message: string): ChatError {
  const m = message.trim();
  if (/no model is set|needs its API key|no usable provider/i.test(m)) {
    return { kind: 'setup', message: m };
  }
  if (/refused the API key|unauthori[sz]ed|\b401\b|invalid x-api-key|authentication/i.test(m)) {
    return { kind: 'auth', message: m };
  }
  if (/\b429\b|rate.?limit|too many requests|overloaded/i.test(m)) {
    return { kind: 'rate', message: m, retryIn: Math.max(1, Math.min(retrySeconds(m) ?? 30, 600)) };
  }
  if (/a turn of this session is running/i.test(m)) {
    return { kind: 'busy', message: m };
  }
  if (/connection refused|connection reset|no such host|dial tcp|timeout|timed out|network|\bEOF\b|unreachable|ECONNREFUSED/i.test(m)) {
    return { kind: 'network', message: m };
  }
  return { kind: 'other', message: m };
}

/** A token count as people read it: 950, 12.3k, 1.2M. */
export function tokens(n: number): string {
  if (n < 1000) {
    return String(n);
  }
  if (n < 1_000_000) {
    return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  }
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/**
 * The wait a rate-limit message names: tandem's "(it asks to wait 3m0s before trying again)"
 * (a Go duration), or "retry after 7 s" / "retry-after: 7".
 */
export function retrySeconds(m: string): number | undefined {
  const go = /wait ((?:\d+h)?(?:\d+m)?(?:\d+(?:\.\d+)?s)?)\b/.exec(m)?.[1];
  if (go) {
    const part = (unit: string) => Number(new RegExp(`(\\d+(?:\\.\\d+)?)${unit}`).exec(go)?.[1] ?? 0);
    return Math.ceil(part('h') * 3600 + part('m(?!s)') * 60 + part('s'));
  }
  const after = /retry(?:-after| after| in)\D{0,4}(\d+(?:\.\d+)?)\s*(ms)?/i.exec(m);
  if (after) {
    const n = Number(after[1]);
    return after[2] ? Math.ceil(n / 1000) : Math.ceil(n);
  }
  return undefined;
}
