// tandem sessions: what one agent has seen (the tags and lines its edits anchor on), opened on
// first use. The window's own session is shown in the sidebar; VS Code's chat agents get one
// each (lmTools.ts).
import type { CancellationToken } from 'vscode';
import { Backend } from './backend';
import { CallToolResult, Methods, ToolInfo } from './protocol';
import { SessionView } from './sessionView';

/** Where a session's id is kept; undefined when none is open. */
export interface SessionId {
  get(): string | undefined;
  set(id: string | undefined): void;
}

/** An id kept by the session itself. */
function ownId(): SessionId {
  let id: string | undefined;
  return {
    get: () => id,
    set: (v) => {
      id = v;
    },
  };
}

export class ToolSession {
  /** The session being opened, so calls made meanwhile wait for it instead of opening more. */
  private opening: Promise<string> | undefined;

  constructor(
    protected readonly backend: Backend,
    private readonly id: SessionId = ownId(),
  ) {}

  /** The session, opened on first use. */
  async open(): Promise<string> {
    const open = this.id.get();
    if (open) {
      return open;
    }
    this.opening ??= (async () => {
      const c = await this.backend.ready();
      const r = await c.sendRequest<{ session: string }>(Methods.openSession, {});
      this.id.set(r.session);
      return r.session;
    })().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** Closes the session, if tandem was started and it is open. */
  async close(): Promise<void> {
    const session = this.id.get();
    const c = this.backend.started;
    if (!session || !c) {
      return;
    }
    this.id.set(undefined);
    await c.sendRequest(Methods.closeSession, { session });
  }

  /** Calls a tool in the session; cancelling token cancels the call in tandem. */
  async callTool(name: string, args: Record<string, unknown>, token?: CancellationToken): Promise<CallToolResult> {
    const session = await this.open();
    const c = await this.backend.ready();
    const params = { session, name, arguments: args };
    // vscode-jsonrpc sends an undefined third argument as a parameter of its own.
    return token ? c.sendRequest<CallToolResult>(Methods.callTool, params, token) : c.sendRequest<CallToolResult>(Methods.callTool, params);
  }
}

/** The session of this window, shown in the sidebar with the tools tandem offers in it. */
export class AgentSession extends ToolSession {
  constructor(
    backend: Backend,
    private readonly view: SessionView,
  ) {
    // The sidebar's session is the one the view holds: cleared there when tandem stops.
    super(backend, { get: () => view.state.session, set: (session) => view.update({ session }) });
  }

  /** The tools as last listed. */
  get tools(): ToolInfo[] {
    return this.view.state.tools;
  }

  /** Asks tandem for its tools, and shows them. */
  async listTools(): Promise<ToolInfo[]> {
    const c = await this.backend.ready();
    const r = await c.sendRequest<{ tools: ToolInfo[] }>(Methods.listTools, {});
    this.view.update({ tools: r.tools ?? [] });
    return this.tools;
  }
}
