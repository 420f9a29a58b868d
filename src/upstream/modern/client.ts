/**
 * The SDK v2 client of a 2026-07-28 upstream, seen through {@link UpstreamClient}: the gateway
 * registers its sampling, elicitation, roots and notification handlers with the 1.x schemas it
 * already uses. The v2 client calls those same handlers to fulfil an upstream's
 * `input_required` rounds (they relay to the calling client: a 2025 session's ordinary
 * sampling/elicitation request, or a 2026-07-28 client's own round), then retries the request
 * with the answers. Requests themselves go through the connection's caller (leg.ts).
 */
import type { Client as V2Client } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ServerCapabilities, Task } from "@modelcontextprotocol/sdk/types.js";
import type { UpstreamClient } from "../client.ts";
import { TASKS_EXTENSION } from "../../shared/tasks-extension.ts";

/** A 1.x handler, of any request or notification: its schema gave its types. */
type AnyHandler = (request: any, extra: any) => unknown;

/** What a v2 request handler is given that a 1.x handler reads. */
interface V2Context {
  mcpReq: { id: unknown; signal: AbortSignal };
}

/**
 * The v2 client's handler registration as this adapter uses it: by method name, with handlers
 * of any message. v2 types each method's handler by its own schemas, which describe the same
 * wire shapes and which it checks every answer against, so they need not be named here.
 */
interface ByMethod {
  setRequestHandler(method: string, handler: (request: unknown, ctx: V2Context) => unknown): void;
  setNotificationHandler(method: string, handler: (notification: unknown) => void): void;
}

/** A connected v2 client in the modern era, adapted to what pass-through registers on it. */
export class ModernClient implements UpstreamClient {
  /** The v2 client itself (its requests go through the connection's leg). */
  readonly v2: V2Client;
  readonly #byMethod: ByMethod;
  #taskStatus: ((notification: unknown) => void) | undefined;

  constructor(client: V2Client) {
    this.v2 = client;
    this.#byMethod = client;
  }

  /**
   * The server's capabilities; a server offering the tasks extension is said to support tasks
   * as 2025 names them (task-augmented `tools/call` and `tasks/cancel`, no `tasks/list`): the
   * leg carries those requests as the extension's (tasks.ts).
   */
  getServerCapabilities: Client["getServerCapabilities"] = () => {
    const caps = this.v2.getServerCapabilities() as
      | (ServerCapabilities & { extensions?: Record<string, unknown> })
      | undefined;
    if (!caps?.extensions?.[TASKS_EXTENSION] || caps.tasks) return caps;
    return { ...caps, tasks: { cancel: {}, requests: { tools: { call: {} } } } };
  };

  setRequestHandler(schema: unknown, handler: AnyHandler): void {
    tolerate(() =>
      this.#byMethod.setRequestHandler(
        methodOf(schema),
        (request, ctx) => handler(request, { signal: ctx.mcpReq.signal, requestId: ctx.mcpReq.id }),
      )
    );
  }

  setNotificationHandler(schema: unknown, handler: (notification: any) => void): void {
    const method = methodOf(schema);
    if (method === TASK_STATUS) this.#taskStatus = handler;
    else tolerate(() => this.#byMethod.setNotificationHandler(method, handler));
  }

  /**
   * Tells the gateway's task status handler of a change the connection saw (tasks.ts): the
   * 2026-07-28 revision has no such notification, so the leg makes it from what it reads.
   */
  taskStatus(task: Task): void {
    this.#taskStatus?.({ method: TASK_STATUS, params: task });
  }

  /** The 2026-07-28 revision has no roots notifications: nothing to tell. */
  sendRootsListChanged(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return this.v2.close();
  }
}

const TASK_STATUS = "notifications/tasks/status";

/** The method a 1.x request or notification schema stands for (its `method` literal). */
function methodOf(schema: unknown): string {
  const method = (schema as { shape?: { method?: { value?: unknown } } }).shape?.method?.value;
  if (typeof method !== "string") throw new TypeError("expected an MCP message schema");
  return method;
}

/**
 * Registers a handler, or skips one the v2 client refuses (a message the 2026-07-28 revision
 * does not have, such as task status): such a message can never arrive on this connection.
 */
function tolerate(register: () => void): void {
  try {
    register();
  } catch { /* not part of this revision */ }
}
