/**
 * @module One upstream server: its public face and its request path. The status getters read
 * the shared state of upstream-core.ts; connect, restart with capped exponential backoff and
 * stop are its `Lifecycle` (lifecycle.ts); calls go out here, through the caller its connection
 * chose, under the resend rule of resend.ts, counted in flight by requests.ts. On a crash
 * in-flight calls fail at once; a lost HTTP connection is reconnected on the next call. A 2025
 * caller's request to a 2026-07-28 server that also speaks 2025 goes over its 2025 side
 * (legacy-side.ts).
 */
import type { AnySchema } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ServerConfig } from "../config/mod.ts";
import { type CallContext, NO_CONTEXT } from "../shared/call-context.ts";
import type { InputRelay, RequestTerms } from "./caller.ts";
import type { GatewayError } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import type { UpstreamClient } from "./client.ts";
import type { Connection } from "./connect.ts";
import { pinnedLegacy } from "./config-copies.ts";
import { LegacySide, mayHaveSide } from "./legacy-side.ts";
import { Lifecycle } from "./lifecycle.ts";
import { schemaCheck } from "./result-check.ts";
import type { ProcessExit } from "./stdio.ts";
import { Requests } from "./requests.ts";
import type { StreamCalls } from "./stream-calls.ts";
import type { UpstreamCatalog, UpstreamHooks, UpstreamState } from "./types.ts";
import { UpstreamCore } from "./upstream-core.ts";

/** A single configured upstream server. */
export class Upstream {
  readonly config: ServerConfig;
  readonly log: Logger;
  /** The terms of a request with no result check and no input relay (most of them). */
  readonly #terms: RequestTerms;
  /** The state this upstream shares with its lifecycle (see upstream-core.ts for why). */
  readonly #core: UpstreamCore;
  readonly #life: Lifecycle;
  /** The lifecycle's resend line, kept here so a call reads it in one step. */
  /** Its requests in flight (requests.ts). */
  readonly #requests: Requests;
  /** The 2025-11-25 side of a server that may speak both eras (legacy-side.ts). */
  readonly #side: LegacySide | undefined;
  /** The upstream whose 2025 side this is, or this one itself. */
  readonly primary: Upstream;

  /** `primary`: this is that upstream's 2025 side, sharing its hooks and credential. */
  constructor(config: ServerConfig, log: Logger, hooks: UpstreamHooks, primary?: Upstream) {
    this.config = config;
    this.primary = primary ?? this;
    this.log = primary ? primary.log.child("2025") : log.child(config.name);
    this.#terms = { timeoutMs: config.timeoutMs };
    const credential = primary ? primary.#core.credential : hooks.credential?.(config);
    this.#core = new UpstreamCore(this, config, this.log, hooks, credential);
    const life = new Lifecycle(this.#core);
    this.#life = life;
    this.#requests = new Requests(this.#core, life.line);
    this.#side = !primary && mayHaveSide(config)
      ? new LegacySide(config, () => this.#sideUpstream(hooks))
      : undefined;
    if (credential && !primary) {
      credential.onLogin = () => void this.start();
      credential.onNeedsLogin = () => life.toNeedsLogin();
    }
  }

  /** The side's upstream: the pool's handlers; its changes are told as this one's (and renewed). */
  #sideUpstream(hooks: UpstreamHooks): Upstream {
    return new Upstream(pinnedLegacy(this.config), this.log, {
      onCatalog: () => hooks.onCatalog(this),
      onState: () => hooks.onState(this),
      ...(hooks.setup ? { setup: hooks.setup } : {}),
    }, this);
  }

  /** Its configured name (`servers.<name>`). */
  get name(): string {
    return this.config.name;
  }
  /** Where it is in its life. */
  get state(): UpstreamState {
    return this.#core.state;
  }
  /** Its last-known catalog (kept while down). */
  get catalog(): UpstreamCatalog {
    return this.#core.catalog;
  }
  /** Why it is down (or why it last went down), e.g. `exited with code 1: Error: …`. */
  get lastError(): string | null {
    return this.#core.lastError;
  }
  /**
   * The last lines its process wrote to stderr (at most 20 lines / 4 KiB): the running or
   * starting process's when it wrote any, else those of the process that failed last.
   */
  get stderrTail(): readonly string[] {
    return this.#core.exits.stderrTail;
  }
  /** How the process that failed last exited by itself (`null`: it did not, or never ran). */
  get lastExit(): ProcessExit | null {
    return this.#core.exits.lastExit;
  }
  /** When the next restart is due (epoch ms), or `null` when none is scheduled. */
  get nextRetryAt(): number | null {
    const at = this.#core.backoff.nextRetryAt;
    return this.#core.state === "down" && at > 0 ? at : null;
  }
  /** True once `restart.maxRestarts` consecutive failures made it stop retrying. */
  get gaveUp(): boolean {
    return this.#core.backoff.gaveUp;
  }
  /** Consecutive failures so far (reset after it stayed up `restart.resetAfter`). */
  get failures(): number {
    return this.#core.backoff.failures;
  }
  /** Restarts begun (scheduled ones and immediate reconnects). */
  get restarts(): number {
    return this.#core.backoff.restarts;
  }
  /** Which caller serves the current connection (`lean`, `sdk`), or `null` while none is up. */
  get callerKind(): string | null {
    return this.#core.state === "up" ? this.#core.conn?.caller.kind ?? null : null;
  }
  /** Protocol era the last successful connection negotiated (`legacy` 2025, `modern` 2026-07-28). */
  get era(): Connection["era"] | null {
    return this.#core.era;
  }
  /** Transport kind of the last successful connection (kept while down, for the status page). */
  get kind(): Connection["kind"] | null {
    return this.#core.kind;
  }
  /** Whether it holds a 2025 session (`Mcp-Session-Id`): a stateless 2025 server can ask nothing. */
  get holdsSession(): boolean {
    const transport = this.#core.conn?.transport as { sessionId?: unknown } | undefined;
    return typeof transport?.sessionId === "string";
  }
  /** Requests sent upstream and not yet answered (graceful drain waits for these). */
  get inFlight(): number {
    return this.#requests.inFlight + (this.#side?.open?.inFlight ?? 0);
  }
  /**
   * Its 2025-11-25 side (legacy-side.ts) once open; none while never needed, not offered by the
   * server, or for a server that may have none.
   */
  get legacySide(): Upstream | undefined {
    return this.#side?.open;
  }
  /** When the current (or last) start attempt began (epoch ms; 0 before the first). */
  get startedAt(): number {
    return this.#core.startedAt;
  }
  /** When the current connection came up (epoch ms), or `null` while not up. */
  get upSince(): number | null {
    return this.#core.state === "up" ? this.#core.upSince : null;
  }
  /** The connected SDK client, for pass-through of requests the gateway does not interpret. */
  get client(): UpstreamClient | undefined {
    return this.#core.state === "up" ? this.#core.conn?.client : undefined;
  }

  /** Connects and reads the catalog. Never throws: failure marks the upstream down. */
  start(): Promise<void> {
    return this.#life.start();
  }

  /** Resolves once a start in progress (a login just completed) has ended, up or not. */
  started(): Promise<void> {
    return this.#life.started();
  }

  /**
   * Drops the connection and starts afresh now, even after the restart policy gave up;
   * resolves once it is up or marked down (a disabled or stopped upstream stays so).
   */
  restart(): Promise<void> {
    return this.#life.restart();
  }

  /** Shutdown began: cancels a pending restart and starts nothing new; a live connection stays. */
  halt(): void {
    this.#life.halt();
  }

  /**
   * Stops the upstream for good (reload removal, shutdown) in whatever state it is — up,
   * connecting, backing off — and resolves once its process tree is killed.
   */
  async stop(): Promise<void> {
    await Promise.all([this.#life.stop(), this.#side?.stop()]);
  }

  /** Re-reads the whole catalog (after `list_changed`). */
  refresh(): Promise<void> {
    return this.#life.refresh();
  }

  /**
   * Calls a tool by its upstream name, in the call's own context (handed on unchanged);
   * `input` answers a 2026-07-28 upstream's input rounds. `isError` results resolve; failures
   * reject.
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    call: CallContext = NO_CONTEXT,
    input?: InputRelay,
  ): Promise<CallToolResult> {
    // Tool results pass through as the upstream sent them (any object): re-validating every
    // result costs CPU on the hot path, and the downstream client validates anyway.
    const params = { name, arguments: args ?? {} };
    const terms = input ? { timeoutMs: this.config.timeoutMs, input } : this.#terms;
    return this.#send("tools/call", params, call, terms) as Promise<CallToolResult>;
  }

  /**
   * Sends any request upstream through this connection's caller, in the call's context, with
   * this server's timeout unless the context sets one; `schema` checks the result (without one
   * any object passes). `input` answers a 2026-07-28 upstream's input rounds (`prompts/get`,
   * `resources/read`). Failures reject with the errors of call-errors.ts.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    schema?: AnySchema,
    call: CallContext = NO_CONTEXT,
    input?: InputRelay,
  ): Promise<unknown> {
    const terms = schema || input
      ? { timeoutMs: this.config.timeoutMs, check: schema && schemaCheck(schema), input }
      : this.#terms;
    return this.#send(method, params, call, terms);
  }

  /**
   * The connection that serves a caller of `era`: this one, or for a 2025 caller of a
   * 2026-07-28 server that also speaks 2025, its 2025 side (opened on this first need).
   */
  async forEra(era: "legacy" | "modern" | undefined): Promise<Upstream> {
    return (await this.#sideFor(era)?.serving()) ?? this;
  }

  /**
   * Like {@link forEra} without opening anything: the side when it is open; `undefined` when a
   * 2025 caller would open one whose answer is not known yet.
   */
  peekEra(era: "legacy" | "modern"): Upstream | undefined {
    const side = this.#sideFor(era);
    return side ? side.open : this;
  }

  /** The 2025 side a caller of `era` may be served on (a 2025 one, on a modern connection). */
  #sideFor(era: "legacy" | "modern" | undefined): LegacySide | undefined {
    if (era !== "legacy" || this.#core.era !== "modern") return undefined;
    return this.#side?.possible ? this.#side : undefined;
  }

  #send(
    method: string,
    params: Record<string, unknown> | undefined,
    call: CallContext,
    terms: RequestTerms,
  ): Promise<unknown> {
    // A 2025 session's request to a server that speaks both eras goes in 2025.
    const side = this.#sideFor(call.client?.era);
    if (side) return this.#sendOnSide(side, method, params, call, terms);
    return this.#requests.send(method, params, call, terms);
  }

  async #sendOnSide(
    side: LegacySide,
    method: string,
    params: Record<string, unknown> | undefined,
    call: CallContext,
    terms: RequestTerms,
  ): Promise<unknown> {
    const via = (await side.serving()) ?? this;
    return await via.#requests.send(method, params, call, terms);
  }

  /** Which call's stream carried each of its requests, on a 2025 streamable HTTP connection. */
  get streams(): StreamCalls | undefined {
    return this.#core.streams;
  }

  /** The error a call gets while this upstream is not up. */
  unavailable(): GatewayError {
    return this.#core.unavailable();
  }

  /**
   * Its state in words, for errors and `/readyz`: `is down: exited with code 1: …; next
   * restart in 3s`, `…; gave up after 5 restarts`, `is down: …; restarting now`, `is starting:
   * not up after 1.2s`, `is up`.
   */
  status(): string {
    return this.#core.status();
  }
}
