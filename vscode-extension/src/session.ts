// The agent session of this window and the tools tandem offers in it.
import { Backend } from './backend';
import { CallToolResult, Methods, ToolInfo } from './protocol';
import { SessionView } from './sessionView';

export class AgentSession {
  /** The session being opened, so calls made meanwhile wait for it instead of opening more. */
  private opening: Promise<string> | undefined;

  constructor(
    private readonly backend: Backend,
    private readonly view: SessionView,
  ) {}

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

  /** The session of this window, opened on first use. */
  async open(): Promise<string> {
    if (this.view.state.session) {
      return this.view.state.session;
    }
    this.opening ??= (async () => {
      const c = await this.backend.ready();
      const r = await c.sendRequest<{ session: string }>(Methods.openSession, {});
      this.view.update({ session: r.session });
      return r.session;
    })().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** Closes the open session, if tandem was started and has one. */
  async close(): Promise<void> {
    const session = this.view.state.session;
    const c = this.backend.started;
    if (!session || !c) {
      return;
    }
    this.view.update({ session: undefined });
    await c.sendRequest(Methods.closeSession, { session });
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const session = await this.open();
    const c = await this.backend.ready();
    return c.sendRequest<CallToolResult>(Methods.callTool, { session, name, arguments: args });
  }
}
