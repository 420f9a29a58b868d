/**
 * One upstream server's lifecycle: connect, read its catalog, serve calls, and on a crash fail
 * in-flight calls at once and restart with capped exponential backoff. An HTTP upstream whose
 * connection is lost is reconnected on the next call (a remote server restarts on its own).
 */
import type { UpstreamClient } from "./client.ts";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ServerConfig } from "../config/mod.ts";
import { GatewayError, messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import { type Connection, connectUpstream } from "./connect.ts";
import { type ProcessExit, StdioTransport } from "./stdio.ts";
import { chain, describeStartError, isTransportFailure, notDelivered } from "./failures.ts";
import { readCatalog } from "./lists.ts";
import { downReason, meaningful } from "./reason.ts";

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
  setup?(upstream: Upstream, client: UpstreamClient): void;
}

/**
 * Tool results pass through as the upstream sent them: re-validating every result with the
 * SDK's zod schema costs CPU on the hot path, and the downstream client validates anyway.
 */
const PASS_THROUGH_RESULT = z.custom<CallToolResult>((v) => typeof v === "object" && v !== null);

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
  #kind: Connection["kind"] | null = null;
  #era: Connection["era"] | null = null;
  #starting: Promise<void> | undefined;
  #inFlight = 0;
  /** The current connect attempt; aborting it kills what it started. */
  #attempt: AbortController | undefined;
  /** The stdio process of the latest attempt: its stderr and exit explain a failure. */
  #proc: StdioTransport | undefined;
  #tail: string[] = [];
  #lastExit: ProcessExit | null = null;
  #gaveUp = false;
  /** Shutdown began or stopped: nothing new is started, no restart is scheduled. */
  #halted = false;

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
  /** Why it is down (or why it last went down), e.g. `exited with code 1: Error: …`. */
  get lastError(): string | null {
    return this.#lastError;
  }
  /**
   * The last lines its process wrote to stderr (at most 20 lines / 4 KiB): the running or
   * starting process's when it wrote any, else those of the process that failed last.
   */
  get stderrTail(): readonly string[] {
    const live = this.#proc?.stderrTail;
    return live && live.length > 0 ? live : this.#tail;
  }
  /** How the process that failed last exited by itself (`null`: it did not, or never ran). */
  get lastExit(): ProcessExit | null {
    return this.#lastExit;
  }
  /** When the next restart is due (epoch ms), or `null` when none is scheduled. */
  get nextRetryAt(): number | null {
    return this.#state === "down" && this.#nextRetryAt > 0 ? this.#nextRetryAt : null;
  }
  /** True once `restart.maxRestarts` consecutive failures made it stop retrying. */
  get gaveUp(): boolean {
    return this.#gaveUp;
  }
  /** Consecutive failures so far (reset after it stayed up `restart.resetAfter`). */
  get failures(): number {
    return this.#failures;
  }
  get restarts(): number {
    return this.#restarts;
  }
  /** Transport kind of the last successful connection (kept while down, for the status page). */
  get kind(): Connection["kind"] | null {
    return this.#kind;
  }
  /** Protocol era the last successful connection negotiated (`legacy` 2025, `modern` 2026-07-28). */
  get era(): Connection["era"] | null {
    return this.#era;
  }
  /** Requests sent upstream and not yet answered (graceful drain waits for these). */
  get inFlight(): number {
    return this.#inFlight;
  }
  /** When the current connection came up (epoch ms), or `null` while not up. */
  get upSince(): number | null {
    return this.#state === "up" ? this.#upSince : null;
  }
  /** The connected SDK client, for pass-through of requests the gateway does not interpret. */
  get client(): UpstreamClient | undefined {
    return this.#state === "up" ? this.#conn?.client : undefined;
  }

  /** Connects and reads the catalog. Never throws: failure marks the upstream down. */
  start(): Promise<void> {
    if (!this.config.enabled || this.#halted) return Promise.resolve();
    const started = this.#connect();
    this.#starting = started;
    void started.finally(() => {
      if (this.#starting === started) this.#starting = undefined;
    });
    return started;
  }

  async #connect(): Promise<void> {
    const generation = ++this.#generation;
    clearTimeout(this.#timer);
    const stale = this.#conn;
    this.#conn = undefined;
    if (stale) await stale.client.close().catch(() => {});
    if (generation !== this.#generation) return; // stopped meanwhile
    this.#setState("starting");
    let conn: Connection | undefined;
    let closedEarly = false;
    const attempt = new AbortController();
    this.#attempt = attempt;
    this.#proc = undefined;
    try {
      conn = await connectUpstream(
        this.config,
        this.log,
        (client) => this.#hooks.setup?.(this, client),
        { signal: attempt.signal, onTransport: (t) => (this.#proc = t) },
      );
      if (generation !== this.#generation) {
        await conn.transport.close().catch(() => {});
        return;
      }
      this.#conn = conn;
      let why: string | undefined;
      const prevError = conn.transport.onerror;
      conn.transport.onerror = (err) => {
        why = messageOf(err); // e.g. "server process exited with code 1", reported before close
        prevError?.(err);
      };
      conn.transport.onclose = chain(conn.transport.onclose, () => {
        if (this.#state === "starting") closedEarly = true;
        else this.#onClosed(generation, why);
      });
      this.#catalog = await readCatalog(conn.client, this.name, this.config.timeoutMs);
      // A server that dies while its catalog is read is not up, even if every list was empty.
      if (closedEarly) throw new Error("the server exited during start-up");
      this.#upSince = Date.now();
      this.#lastError = null;
      this.#gaveUp = false;
      this.#kind = conn.kind;
      this.#era = conn.era;
      this.#setState("up");
      this.#hooks.onCatalog(this);
    } catch (err) {
      if (generation !== this.#generation) return;
      await conn?.transport.close().catch(() => {});
      this.#conn = undefined;
      this.#fail(this.#explain(describeStartError(this.config, err)));
    } finally {
      if (this.#attempt === attempt) this.#attempt = undefined;
    }
  }

  /** Shutdown began: cancels a pending restart and starts nothing new; a live connection stays. */
  halt(): void {
    this.#halted = true;
    clearTimeout(this.#timer);
    this.#nextRetryAt = 0;
  }

  /**
   * Stops the upstream for good (reload removal, shutdown) in whatever state it is — up,
   * connecting, backing off — and resolves once its process tree is killed.
   */
  async stop(): Promise<void> {
    this.halt();
    this.#generation++;
    this.#attempt?.abort(); // a connect in progress kills its child now
    const conn = this.#conn;
    this.#conn = undefined;
    const starting = this.#starting;
    this.#setState("stopped");
    await Promise.all([conn?.client.close().catch(() => {}), starting?.catch(() => {})]);
  }

  /** Re-reads the whole catalog (after `list_changed`). */
  async refresh(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      this.#catalog = await readCatalog(client, this.name, this.config.timeoutMs);
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
    const transport = this.#conn?.transport;
    if (transport instanceof StdioTransport && this.#state === "up" && !options.onprogress) {
      return this.#lean(transport, params, options);
    }
    return this.request("tools/call", params, PASS_THROUGH_RESULT, options) as Promise<
      CallToolResult
    >;
  }

  async #lean(
    transport: StdioTransport,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<CallToolResult> {
    this.#inFlight++;
    try {
      return await transport.calls.call(params, {
        server: this.name,
        timeoutMs: options.timeout ?? this.config.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } finally {
      this.#inFlight--;
    }
  }

  /** Sends any request upstream with this server's timeout and clear failure errors. */
  async request<S extends Parameters<UpstreamClient["request"]>[1]>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: S,
    options: RequestOptions = {},
  ): Promise<unknown> {
    this.#inFlight++;
    try {
      const send = (client: UpstreamClient) =>
        client.request({ method, params } as never, schema, {
          timeout: this.config.timeoutMs,
          ...options,
        });
      const client = this.client;
      if (!client) throw this.unavailable();
      try {
        return await send(client);
      } catch (err) {
        if (this.config.kind !== "http" || !isTransportFailure(err)) throw err;
        // The remote went away or restarted and forgot our session. A request that surely
        // never ran is resent once over a fresh connection; any other fails.
        if (!notDelivered(err)) {
          this.#lost(client, `connection lost: ${messageOf(err)}`);
          throw this.unavailable();
        }
        const again = await this.#reconnect(client, messageOf(err));
        if (!again) throw this.unavailable();
        return await send(again);
      }
    } catch (err) {
      // The SDK reports an aborted request as a timeout; it was the caller who cancelled.
      if (options.signal?.aborted) {
        throw new GatewayError(
          "UPSTREAM_ERROR",
          `the call to server "${this.name}" was cancelled`,
          {
            data: { server: this.name, cancelled: true },
          },
        );
      }
      throw this.#mapCallError(err);
    } finally {
      this.#inFlight--;
    }
  }

  /**
   * Replaces a lost HTTP connection now rather than after a backoff: a remote server restarts
   * on its own schedule, and the call that noticed should not fail for it. Concurrent callers
   * share one attempt; a failed attempt counts as one failure of the restart policy.
   */
  async #reconnect(client: UpstreamClient, why: string): Promise<UpstreamClient | undefined> {
    const conn = this.#conn;
    if (conn && conn.client === client) {
      this.log.info("connection lost; reconnecting", { error: why });
      this.#generation++; // its onclose must not report the loss as a failure
      this.#conn = undefined;
      void conn.client.close().catch(() => {});
      this.#restarts++;
      void this.start();
    }
    await this.#starting;
    return this.client;
  }

  /** Drops a connection that failed under a call, unless it was already replaced. */
  #lost(client: UpstreamClient, reason: string): void {
    const conn = this.#conn;
    if (!conn || conn.client !== client) return;
    this.#generation++; // its onclose must not report the failure a second time
    this.#conn = undefined;
    void conn.client.close().catch(() => {});
    this.#fail(reason);
  }

  /** The error a call gets while this upstream is not up. */
  unavailable(): GatewayError {
    return new GatewayError("UPSTREAM_UNAVAILABLE", `server "${this.name}" ${this.status()}`, {
      data: { server: this.name, ...(this.#lastError ? { reason: this.#lastError } : {}) },
    });
  }

  /**
   * Its state in words, for errors and `/readyz`: `is down: exited with code 1: …; next
   * restart in 3s`, `…; gave up after 5 restarts`, `is down: …; restarting now`, `is up`.
   */
  status(): string {
    const why = this.#lastError ? `: ${this.#lastError}` : "";
    if (this.#state === "starting" && why) return `is down${why}; restarting now`;
    if (this.#state !== "down") return `is ${this.#state}${why}`;
    if (this.#gaveUp) {
      const n = this.#failures;
      return `is down${why}; gave up after ${n} restart${n === 1 ? "" : "s"}`;
    }
    const wait = this.#nextRetryAt - Date.now();
    return wait > 0 ? `is down${why}; next restart in ${Math.ceil(wait / 1000)}s` : `is down${why}`;
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

  #onClosed(generation: number, why: string | undefined): void {
    if (generation !== this.#generation || this.#state === "stopped") return;
    this.#conn = undefined;
    this.#fail(this.#explain(why ?? "the server process exited or the connection closed"));
  }

  /** A failure in the process's own words when it left any (exit, last stderr line). */
  #explain(fallback: string): string {
    const proc = this.#proc;
    this.#lastExit = proc?.exit ?? null;
    this.#tail = proc?.stderrTail ?? [];
    return proc ? downReason(fallback, proc.exit, this.#tail) : fallback;
  }

  /**
   * Marks the upstream down and schedules the next start: the delay doubles per consecutive
   * failure up to `maxDelay`, and the count resets once a connection stayed up `resetAfter`.
   * One log line per failure carries the reason and the delay (or that we gave up).
   */
  #fail(reason: string): void {
    const wasUp = this.#state === "up";
    if (wasUp && Date.now() - this.#upSince >= this.config.restart.resetAfterMs) this.#failures = 0;
    this.#lastError = reason;
    // The last-known catalog stays: the gateway keeps listing a down server's tools, and
    // calls to them answer at once with why the server is down (README, "Failures stay contained").
    const { initialDelayMs, maxDelayMs, maxRestarts } = this.config.restart;
    clearTimeout(this.#timer);
    const said = meaningful(this.#tail).slice(-8);
    const stderr = said.length > 0 ? { stderr: said } : {};
    if (this.#halted) {
      this.#nextRetryAt = 0;
      this.#setState("down", { error: reason, shuttingDown: true, ...stderr });
    } else if (maxRestarts !== null && this.#failures >= maxRestarts) {
      this.#nextRetryAt = 0;
      this.#gaveUp = true;
      this.#setState("down", { error: reason, gaveUp: true, failures: this.#failures, ...stderr });
    } else {
      const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** this.#failures);
      this.#failures++;
      this.#nextRetryAt = Date.now() + delay;
      this.#timer = setTimeout(() => {
        if (this.#halted) return;
        this.#restarts++;
        void this.start();
      }, delay);
      (this.#timer as { unref?: () => void }).unref?.();
      this.#setState("down", {
        error: reason,
        retryInMs: delay,
        failures: this.#failures,
        ...stderr,
      });
    }
    if (wasUp) this.#hooks.onCatalog(this);
  }

  #setState(state: UpstreamState, fields: Record<string, unknown> = {}): void {
    const from = this.#state;
    this.#state = state;
    if (state === "down") this.log.warn("upstream down", fields);
    else if (state === "up") {
      this.log.info("upstream up", {
        kind: this.kind,
        era: this.#era,
        tools: this.#catalog.tools.length,
      });
    } else if (state === "stopped" && from !== "stopped") this.log.info("upstream stopped");
    if (state !== from || state === "down") this.#hooks.onState(this);
  }
}
