// What a failed prompt means to the user, and the one action that fixes it. Pure, so it is
// unit-tested without an editor. tandem's agent errors are sentences that say what to set
// (docs/protocol.md, "The agent on the editor's connection"); these patterns read them.

export type ChatErrorKind = 'setup' | 'auth' | 'rate' | 'network' | 'busy' | 'other';

export interface ChatError {
  kind: ChatErrorKind;
  message: string;
  /** The environment variable that holds the provider's key, when the message names one. */
  keyEnv?: string;
  /** For 'rate': seconds until a retry makes sense. */
  retryIn?: number;
}

/** Classifies an error message of session/new, session/prompt or set_config_option. */
export function classifyError(message: string): ChatError {
  const m = message.trim();
  const env = /environment variable ([A-Z_][A-Z0-9_]*)/.exec(m)?.[1] ?? /API key in ([A-Z_][A-Z0-9_]*)/.exec(m)?.[1];
  if (/no model is set|needs its API key|no usable provider/i.test(m)) {
    return { kind: 'setup', message: m, keyEnv: env };
  }
  if (/refused the API key|unauthori[sz]ed|\b401\b|invalid x-api-key|authentication/i.test(m)) {
    return { kind: 'auth', message: m, keyEnv: env };
  }
  if (/\b429\b|rate.?limit|too many requests/i.test(m)) {
    const after = /retry(?:-after| after| in)?\D{0,12}?(\d+(?:\.\d+)?)\s*(ms|s\b|sec|seconds?)?/i.exec(m);
    let retryIn = 30;
    if (after) {
      const n = Number(after[1]);
      retryIn = after[2]?.toLowerCase() === 'ms' ? Math.ceil(n / 1000) : Math.ceil(n);
    }
    return { kind: 'rate', message: m, retryIn: Math.max(1, Math.min(retryIn, 600)) };
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
