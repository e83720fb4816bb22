// The messages between the chat's two halves: the extension host (src/chat.ts), which owns the
// session, and the webview (src/webview/main.ts), which draws it. Both import these types, so
// the compiler checks every kind and its fields on both sides, and each side's switch over the
// kinds it receives is exhaustive. Types only: the webview bundle must not pull in node or vscode.
import type { ApprovalStep } from './approval';
import type { ChatContext } from './chatContext';
import type { ChatError } from './chatErrors';
import type { ChangedFile } from './reviewModel';
import type { Listing, ProviderKind } from './setupModel';

/** One of a session's config options (ACP session config), as tandem lists them. */
export interface ConfigOption {
  id: string;
  currentValue?: unknown;
  /** The values to choose from, for a select such as the model. */
  options?: { name?: string; value: string }[];
}

/** A stored chat, as session/list lists it. */
export interface SessionInfo {
  sessionId: string;
  title?: string;
  updatedAt?: string;
  cwd?: string;
}

/**
 * An ACP session/update as tandem sent it (agent_message_chunk, tool_call, plan, usage_update…),
 * passed through to the webview, which draws the kinds it knows.
 */
export type SessionUpdate = { sessionUpdate: string } & Record<string, unknown>;

/** A workspace file offered for `@` in the prompt box. */
export interface Completion {
  label: string;
  uri: string;
}

/** What the extension host posts to the webview. */
export type ToView =
  /** The chat as the view (re)opens: whether a turn runs, and the session's options. */
  | { type: 'state'; running: boolean; config: ConfigOption[] }
  /** A session opened (loaded: a stored chat reopened into the view). */
  | { type: 'session'; sessionId: string; config: ConfigOption[]; loaded?: boolean }
  | { type: 'config'; config: ConfigOption[] }
  /** An empty transcript (loading: a stored chat is about to replay into it). */
  | { type: 'reset'; loading?: boolean }
  /** The user's prompt as sent, with the turn number the view expects it to get; replaces: the turn whose prompt it replaces (edit and resend). */
  | { type: 'user'; text: string; turn: number; context: ChatContext[]; replaces?: number }
  /**
   * tandem cut the conversation back to before turn's prompt (edit and resend): the entries from
   * that prompt on leave the view, but restores, which stay undoable; the notice says so.
   */
  | { type: 'rewound'; turn: number; text: string }
  /** tandem numbered the prompt of turn `from` as `to`. */
  | { type: 'retagTurn'; from: number; to: number }
  /** The prompt never started a turn: it offers no restore. */
  | { type: 'forgetTurn'; turn: number }
  | { type: 'update'; update: SessionUpdate }
  | { type: 'turn'; running: boolean; stopReason?: string }
  /** A prompt sent while a turn runs, queued in the view. */
  | { type: 'queue'; text: string; context: ChatContext[] }
  | { type: 'addContext'; context: ChatContext }
  | { type: 'completions'; query: string; items: Completion[] }
  /** A question asked inside a tool call's card (or on its own without one). */
  | { type: 'ask'; id: string; toolCall?: string; kind?: string; steps: ApprovalStep[]; options?: string[] }
  /** A question answered or withdrawn: allow, allow_session, deny, unanswered, cancelled. */
  | { type: 'settled'; id: string; settled: string }
  /**
   * A restore to before `turn` (or, with `undid`, the undo of the restore recorded as turn
   * `undid`): its own entry in the chat, with what can follow it.
   */
  | { type: 'restored'; turn: number; text: string; isError: boolean; kept?: boolean; undoTurn?: number; offerAround: boolean; around?: boolean; undid?: number }
  /** The changes bar: the files `turn` changed that are still to review (none: no bar). */
  | { type: 'changes'; turn: number; files: ChangedFile[] }
  | { type: 'history'; sessions: SessionInfo[]; current?: string; error?: string }
  | { type: 'historyClosed' }
  /** No model can be reached: the setup card, saying why; ollama: Ollama answers on this machine. */
  | { type: 'setup'; message: string; ollama: boolean }
  /** The models the chosen provider lists (for the setup card that asked). */
  | { type: 'setupModels'; kind: ProviderKind; models: Listing[] }
  /** The setup failed: what to fix (the key, the URL, or type the model) and how. */
  | { type: 'setupError'; fix: 'key' | 'url' | 'model'; text: string }
  /** The model is set and the chat uses it: the card goes. */
  | { type: 'setupDone'; model: string }
  /** An empty chat: the recent chats to reopen, and things to try. */
  | { type: 'welcome'; recent: SessionInfo[] }
  | ({ type: 'error' } & ChatError)
  | { type: 'notice'; text: string };

/** The message of one kind. */
export type ToViewOf<K extends ToView['type']> = Extract<ToView, { type: K }>;

/** What the webview posts to the extension host. */
export type FromView =
  /** The view is loaded: what waited for it can be posted. */
  | { type: 'ready' }
  | { type: 'prompt'; text: string; context: ChatContext[] }
  /** The `@` query typed in the prompt box. */
  | { type: 'complete'; text: string }
  /** Attach the active file's problems. */
  | { type: 'problems' }
  | { type: 'cancel' }
  | { type: 'answer'; id: string; answer: string }
  /** The question's buttons were scrolled out of view: it is also asked as a notification. */
  | { type: 'unseen'; id: string }
  /** The index-th diff of a tool call, in VS Code's diff editor. */
  | { type: 'openDiff'; toolCallId: string; index: number }
  | { type: 'openLocation'; path: string; line?: number }
  | { type: 'openLink'; url: string }
  | { type: 'copy'; text: string }
  | { type: 'setConfig'; configId: string; value: string | boolean }
  /**
   * Restore the files to before this turn; around: around the user's later changes; undid:
   * this restores the restore recorded as that turn, undoing it.
   */
  | { type: 'restore'; turn: number; around?: boolean; undid?: number }
  /** Edit and resend the prompt of this turn; restore: the files put back to before it first. */
  | { type: 'resend'; turn: number; text: string; context: ChatContext[]; restore: boolean }
  /** The changes bar: open a file's review, keep or undo it, or all of them. */
  | { type: 'review'; action: 'open' | 'keep' | 'undo' | 'keepAll' | 'undoAll'; path?: string }
  | { type: 'newChat' }
  | { type: 'history' }
  | { type: 'load'; sessionId: string }
  | { type: 'delete'; sessionId: string }
  /** Show the setup card (a refused key, an unreachable model: choose or fix the provider). */
  | { type: 'showSetup' }
  /**
   * The setup card: list the provider's models (with the key pasted, if any), or use a model
   * (listed or typed). url: a server the user runs.
   */
  | { type: 'setup'; action: 'models' | 'use'; kind: ProviderKind; url?: string; key?: string; model?: string }
  /** Send the last prompt again. */
  | { type: 'retry' };

/**
 * The default of a switch over message kinds: it compiles only when every kind has its case.
 * A kind from another build of the other side is ignored.
 */
export function ignoreUnknown(m: never): void {
  void m;
}
