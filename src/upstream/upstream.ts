/**
 * One upstream server's lifecycle: connect, read its catalog, serve calls, and on a crash fail
 * in-flight calls at once and restart with capped exponential backoff.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ServerConfig } from "../config/mod.ts";
import { GatewayError, messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import { type Connection, connectUpstream } from "./connect.ts";
import { readAllPages } from "./lists.ts";

/** Where an upstream is in its life. */
export type UpstreamState = "starting" | "up" | "down" | "stopped" | "disabled";

/** Everything an upstream offers, read in full at connect and on `list_changed`. */
export interface UpstreamCatalog {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
}

/** Callbacks the pool wires up; `setup` lets pass-through register handlers on each client. */
export interface UpstreamHooks {
  onCatalog(upstream: Upstream): void;
  onState(upstream: Upstream): void;
  setup?(upstream: Upstream, client: Client): void;
}

const EMPTY: UpstreamCatalog = { tools: [], prompts: [], resources: [], resourceTemplates: [] };

/** A single configured upstream server. */
export class Upstream {
  readonly config: ServerConfig;
  readonly log: Logger;
  #hooks: UpstreamHooks;
  #conn: Connection | undefined;
  #state: UpstreamState;
  #catalog: UpstreamCatalog = EMPTY;
  #lastError: string | null = null;
  #restarts = 0;
  #failures = 0;
  #upSince = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #nextRetryAt = 0;
  #generation = 0;

  constructor(config: ServerConfig, log: Logger, hooks: UpstreamHooks) {
    this.config = config;
    this.log = log.child(config.name);
    this.#hooks = hooks;
    this.#state = config.enabled ? "starting" : "disabled";
  }

  get name(): string {
    return this.config.name;
  }
  get state(): UpstreamState {
    return this.#state;
  }
  get catalog(): UpstreamCatalog {
    return this.#catalog;
  }
  get lastError(): string | null {
    return this.#lastError;
  }
  get restarts(): number {
    return this.#restarts;
  }
  /** Transport kind in use, once connected. */
  get kind(): Connection["kind"] | null {
    return this.#conn?.kind ?? null;
  }
  /** The connected SDK client, for pass-through of requests the gateway does not interpret. */
  get client(): Client | undefined {
    return this.#state === "up" ? this.#conn?.client : undefined;
  }

  /** Connects and reads the catalog. Never throws: failure marks the upstream down. */
  async start(): Promise<void> {
    if (!this.config.enabled) return;
    const generation = ++this.#generation;
    this.#setState("starting");
    let conn: Connection | undefined;
    try {
      conn = await connectUpstream(
        this.config,
        this.log,
        (client) => this.#hooks.setup?.(this, client),
      );
      if (generation !== this.#generation) {
        await conn.transport.close().catch(() => {});
        return;
      }
      this.#conn = conn;
      conn.transport.onclose = chain(conn.transport.onclose, () => this.#onClosed(generation));
      this.#catalog = await this.#readCatalog(conn.client);
      this.#upSince = Date.now();
      this.#lastError = null;
      this.#setState("up");
      this.#hooks.onCatalog(this);
    } catch (err) {
      if (generation !== this.#generation) return;
      await conn?.transport.close().catch(() => {});
      this.#conn = undefined;
      this.#fail(describeStartError(this.config, err));
    }
  }

  /** Stops the upstream for good (reload removal, shutdown); kills its process tree. */
  async stop(): Promise<void> {
    this.#generation++;
    clearTimeout(this.#timer);
    const conn = this.#conn;
    this.#conn = undefined;
    this.#setState("stopped");
    if (conn) await conn.client.close().catch(() => {});
  }

  /** Re-reads the whole catalog (after `list_changed`). */
  async refresh(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      this.#catalog = await this.#readCatalog(client);
      this.#hooks.onCatalog(this);
    } catch (err) {
      this.log.warn("catalog refresh failed", { error: messageOf(err) });
    }
  }

  /** Calls a tool by its upstream name. `isError` results resolve; transport failures reject. */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: RequestOptions & { meta?: Record<string, unknown> } = {},
  ): Promise<CallToolResult> {
    const params = {
      name,
      arguments: args ?? {},
      ...(options.meta ? { _meta: options.meta } : {}),
    };
    return this.request("tools/call", params, CallToolResultSchema, options) as Promise<
      CallToolResult
    >;
  }

  /** Sends any request upstream with this server's timeout and clear failure errors. */
  async request<S extends Parameters<Client["request"]>[1]>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: S,
    options: RequestOptions = {},
  ): Promise<unknown> {
    const client = this.client;
    if (!client) throw this.unavailable();
    try {
      return await client.request({ method, params } as never, schema, {
        timeout: this.config.timeoutMs,
        ...options,
      });
    } catch (err) {
      throw this.#mapCallError(err);
    }
  }

  /** The error a call gets while this upstream is not up. */
  unavailable(): GatewayError {
    const retry = this.#nextRetryAt > Date.now()
      ? `; next restart in ${Math.ceil((this.#nextRetryAt - Date.now()) / 1000)}s`
      : "";
    const why = this.#lastError ? `: ${this.#lastError}` : "";
    return new GatewayError(
      "UPSTREAM_UNAVAILABLE",
      `server "${this.name}" is ${this.#state}${why}${retry}`,
      { data: { server: this.name } },
    );
  }

  #mapCallError(err: unknown): unknown {
    if (err instanceof McpError) {
      if (err.code === ErrorCode.RequestTimeout) {
        return new GatewayError(
          "UPSTREAM_TIMEOUT",
          `server "${this.name}" did not answer within ${this.config.timeoutMs}ms`,
          { data: { server: this.name } },
        );
      }
      if (err.code === ErrorCode.ConnectionClosed) {
        return new GatewayError(
          "UPSTREAM_UNAVAILABLE",
          `server "${this.name}" closed the connection during the call`,
          { data: { server: this.name } },
        );
      }
    }
    return err;
  }

  async #readCatalog(client: Client): Promise<UpstreamCatalog> {
    const caps = client.getServerCapabilities() ?? {};
    const what = (kind: string) => `${this.name}: ${kind}`;
    const [tools, prompts, resources, resourceTemplates] = await Promise.all([
      caps.tools
        ? readAllPages(async (cursor) => {
          const r = await client.listTools(cursor ? { cursor } : undefined, {
            timeout: this.config.timeoutMs,
          });
          return { items: r.tools, nextCursor: r.nextCursor };
        }, what("tools/list"))
        : [],
      caps.prompts
        ? readAllPages(async (cursor) => {
          const r = await client.listPrompts(cursor ? { cursor } : undefined, {
            timeout: this.config.timeoutMs,
          });
          return { items: r.prompts, nextCursor: r.nextCursor };
        }, what("prompts/list"))
        : [],
      caps.resources
        ? readAllPages(async (cursor) => {
          const r = await client.listResources(cursor ? { cursor } : undefined, {
            timeout: this.config.timeoutMs,
          });
          return { items: r.resources, nextCursor: r.nextCursor };
        }, what("resources/list"))
        : [],
      caps.resources
        ? readAllPages(async (cursor) => {
          const r = await client.listResourceTemplates(cursor ? { cursor } : undefined, {
            timeout: this.config.timeoutMs,
          });
          return { items: r.resourceTemplates, nextCursor: r.nextCursor };
        }, what("resources/templates/list")).catch(() => [])
        : [],
    ]);
    return { tools, prompts, resources, resourceTemplates };
  }

  #onClosed(generation: number): void {
    if (generation !== this.#generation || this.#state === "stopped") return;
    this.#conn = undefined;
    this.#fail("the server process exited or the connection closed");
  }

  #fail(reason: string): void {
    const wasUp = this.#state === "up";
    if (wasUp && Date.now() - this.#upSince >= this.config.restart.resetAfterMs) this.#failures = 0;
    this.#lastError = reason;
    this.#catalog = EMPTY;
    this.#setState("down");
    if (wasUp) this.#hooks.onCatalog(this);
    const { initialDelayMs, maxDelayMs, maxRestarts } = this.config.restart;
    if (maxRestarts !== null && this.#failures >= maxRestarts) {
      this.log.error("giving up restarting", { failures: this.#failures });
      return;
    }
    const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** this.#failures);
    this.#failures++;
    this.#nextRetryAt = Date.now() + delay;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#restarts++;
      void this.start();
    }, delay);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #setState(state: UpstreamState): void {
    if (state === this.#state) return;
    this.#state = state;
    if (state === "down") this.log.warn("upstream down", { error: this.#lastError });
    else if (state === "up") {
      this.log.info("upstream up", { kind: this.kind, tools: this.#catalog.tools.length });
    }
    this.#hooks.onState(this);
  }
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}

function describeStartError(config: ServerConfig, err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (config.kind === "stdio" && code === "ENOENT") {
    return `command not found: ${config.command}`;
  }
  if (config.kind === "stdio" && code === "EACCES") {
    return `command is not executable: ${config.command}`;
  }
  return messageOf(err);
}
