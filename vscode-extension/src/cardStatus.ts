// What a tool card's status badge says. Pure, so the wording is unit-tested without a webview.

const names: Record<string, string> = { pending: 'pending', in_progress: 'running', completed: 'done', failed: 'failed' };

export interface CardStatus {
  /** The badge's text. */
  text: string;
  /** Its class (and the card's data-status): the ACP status, or waiting, or denied. */
  kind: string;
}

/**
 * The badge of a tool call in status (ACP's pending, in_progress, completed, failed): while
 * one of its questions is open it waits for the user, not runs; a call that ended after the
 * user denied one of its steps was denied: not failed, nor done (a refused step ends the call).
 */
export function cardStatus(status: string, waiting: boolean, denied: boolean): CardStatus {
  if (waiting && status !== 'completed' && status !== 'failed') {
    return { text: 'waiting for you', kind: 'waiting' };
  }
  if (denied && (status === 'failed' || status === 'completed')) {
    return { text: 'denied', kind: 'denied' };
  }
  return { text: names[status] ?? status, kind: status };
}
