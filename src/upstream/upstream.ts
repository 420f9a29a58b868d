/**
 * One upstream server's lifecycle: connect, read its catalog, serve calls through the caller
 * its connection chose, and on a crash fail in-flight calls at once and restart with capped
 * exponential backoff. An HTTP upstream whose connection is lost is reconnected on the next
 * call (a remote server restarts on its own).
 */
import type { AnySchema } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ServerConfig } from "../config/mod.ts";
import { type CallContext, NO_CONTEXT } from "../shared/call-context.ts";
import type { InputRelay, RequestTerms } from "./caller.ts";
import { type GatewayError, messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import type { UpstreamCredential } from "./oauth/mod.ts";
import { Backoff } from "./backoff.ts";
import type { UpstreamClient } from "./client.ts";
import { type Connection, connectUpstream } from "./connect.ts";
import { ExitRecord } from "./exit-record.ts";
import { unavailable } from "./failure.ts";
import { describeStartError, watchEnd } from "./failures.ts";
import { readCatalog } from "./lists.ts";
import { lastWords, meaningful } from "./reason.ts";
import { schemaCheck } from "./result-check.ts";
import { type Line, send } from "./resend.ts";
import { statusText } from "./status.ts";
import type { ProcessExit } from "./stdio.ts";
import {
  EMPTY_CATALOG,
  type UpstreamCatalog,
  type UpstreamHooks,
  type UpstreamState,
} from "./types.ts";

/** A single configured upstream server. */
export class Upstream {
  readonly config: ServerConfig;
  readonly log: Logger;
  #hooks: UpstreamHooks;
  /** The terms of a request with no result check and no input relay (most of them). */
  readonly #terms: RequestTerms;
  /** Its OAuth credential (`servers.<name>.oauth`), or `undefined`. */
  #credential: UpstreamCredential | undefined;
  #conn: Connection | undefined;
  #state: UpstreamState;
  #catalog: UpstreamCatalog = EMPTY_CATALOG;
  #lastError: string | null = null;
  #backoff: Backoff;
  #upSince = 0;
  /** When the current start attempt began (epoch ms). */
  #startedAt = 0;
  #generation = 0;
  #kind: Connection["kind"] | null = null;
  #era: Connection["era"] | null = null;
  #starting: Promise<void> | undefined;
  #inFlight = 0;
  /** The current connect attempt; aborting it kills what it started. */
  #attempt: AbortController | undefined;
  /** The stdio process of the latest attempt: its stderr and exit explain a failure. */
  #exits = new ExitRecord();
  /** Shutdown began or stopped: nothing new is started, no restart is scheduled. */
  #halted = false;
  /** What the resend rule may do to the connection (resend.ts). */
  #line: Line = {
    current: () => (this.#state === "up" ? this.#conn : undefined),
    http: () => this.config.kind === "http",
    reconnect: (lost, why) => this.#reconnect(lost, why),
    lose: (lost, why) => this.#lost(lost, why),
    down: () => this.unavailable(),
  };

  constructor(config: ServerConfig, log: Logger, hooks: UpstreamHooks) {
    this.config = config;
    this.log = log.child(config.name);
    this.#hooks = hooks;
    this.#terms = { timeoutMs: config.timeoutMs };
    this.#state = config.enabled ? "starting" : "disabled";
    this.#backoff = new Backoff(config.restart);
    const credential = hooks.credential?.(config);
    this.#credential = credential;
    if (credential) {
      credential.onLogin = () => void this.start();
      credential.onNeedsLogin = () => this.#toNeedsLogin();
    }
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
    return this.#exits.stderrTail;
  }
  /** How the process that failed last exited by itself (`null`: it did not, or never ran). */
  get lastExit(): ProcessExit | null {
    return this.#exits.lastExit;
  }
  /** When the next restart is due (epoch ms), or `null` when none is scheduled. */
  get nextRetryAt(): number | null {
    const at = this.#backoff.nextRetryAt;
    return this.#state === "down" && at > 0 ? at : null;
  }
  /** True once `restart.maxRestarts` consecutive failures made it stop retrying. */
  get gaveUp(): boolean {
    return this.#backoff.gaveUp;
  }
  /** Consecutive failures so far (reset after it stayed up `restart.resetAfter`). */
  get failures(): number {
    return this.#backoff.failures;
  }
  get restarts(): number {
    return this.#backoff.restarts;
  }
  /** Which caller serves the current connection (`lean`, `sdk`), or `null` while none is up. */
  get callerKind(): string | null {
    return this.#state === "up" ? this.#conn?.caller.kind ?? null : null;
  }
  /** Protocol era the last successful connection negotiated (`legacy` 2025, `modern` 2026-07-28). */
  get era(): Connection["era"] | null {
    return this.#era;
  }
  /** Transport kind of the last successful connection (kept while down, for the status page). */
  get kind(): Connection["kind"] | null {
    return this.#kind;
  }
  /** Requests sent upstream and not yet answered (graceful drain waits for these). */
  get inFlight(): number {
    return this.#inFlight;
  }
  /** When the current (or last) start attempt began (epoch ms; 0 before the first). */
  get startedAt(): number {
    return this.#startedAt;
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
    this.#backoff.cancel();
    const stale = this.#conn;
    this.#conn = undefined;
    if (stale) await stale.client.close().catch(() => {});
    if (generation !== this.#generation) return; // stopped meanwhile
    this.#startedAt = Date.now();
    this.#setState("starting");
    let conn: Connection | undefined;
    let closedEarly = false;
    const attempt = new AbortController();
    this.#attempt = attempt;
    this.#exits.proc = undefined;
    const credential = this.#credential;
    try {
      if (credential) {
        await credential.ready();
        if (generation !== this.#generation) return;
        if (credential.needsLogin !== null) return this.#toNeedsLogin();
      }
      conn = await connectUpstream(
        this.config,
        this.log,
        (client) => this.#hooks.setup?.(this, client),
        {
          signal: attempt.signal,
          onTransport: (t) => (this.#exits.proc = t),
          ...(credential ? { fetch: credential.fetch } : {}),
        },
      );
      if (generation !== this.#generation) {
        await conn.transport.close().catch(() => {});
        return;
      }
      this.#conn = conn;
      watchEnd(conn.transport, (why) => {
        if (this.#state === "starting") closedEarly = true;
        else this.#onClosed(generation, why);
      });
      this.#catalog = await this.#read(conn);
      // A server that dies while its catalog is read is not up, even if every list was empty.
      if (closedEarly) throw new Error("the server exited during start-up");
      this.#upSince = Date.now();
      this.#lastError = null;
      this.#backoff.up();
      this.#kind = conn.kind;
      this.#era = conn.era;
      this.#setState("up");
      this.#hooks.onCatalog(this);
    } catch (err) {
      if (generation !== this.#generation) return;
      await conn?.transport.close().catch(() => {});
      this.#conn = undefined;
      this.#fail(this.#exits.explain(describeStartError(this.config, err)));
    } finally {
      if (this.#attempt === attempt) this.#attempt = undefined;
    }
  }

  /** Resolves once a start in progress (a login just completed) has ended, up or not. */
  async started(): Promise<void> {
    await this.#starting;
  }

  /** Shutdown began: cancels a pending restart and starts nothing new; a live connection stays. */
  halt(): void {
    this.#halted = true;
    this.#backoff.cancel();
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

  /**
   * Takes the catalog a per-user connection read (a `mode: per-user` server's shared entry
   * never connects itself, yet its tools are listed to every client).
   */
  adoptCatalog(catalog: UpstreamCatalog): void {
    this.#catalog = catalog;
    this.#hooks.onCatalog(this);
  }

  /** Re-reads the whole catalog (after `list_changed`). */
  async refresh(): Promise<void> {
    const conn = this.#state === "up" ? this.#conn : undefined;
    if (!conn) return;
    try {
      this.#catalog = await this.#read(conn);
      this.#hooks.onCatalog(this);
    } catch (err) {
      this.log.warn("catalog refresh failed", { error: messageOf(err) });
    }
  }

  #read(conn: Connection): Promise<UpstreamCatalog> {
    const caps = conn.client.getServerCapabilities() ?? {};
    return readCatalog(conn.caller, caps, this.name, this.config.timeoutMs);
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
   * any object passes). Failures reject with the errors of failure.ts.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    schema?: AnySchema,
    call: CallContext = NO_CONTEXT,
  ): Promise<unknown> {
    const terms = schema
      ? { timeoutMs: this.config.timeoutMs, check: schemaCheck(schema) }
      : this.#terms;
    return this.#send(method, params, call, terms);
  }

  async #send(
    method: string,
    params: Record<string, unknown> | undefined,
    call: CallContext,
    terms: RequestTerms,
  ): Promise<unknown> {
    this.#inFlight++;
    try {
      return await send(this.#line, method, params, call, terms);
    } catch (err) {
      // The credential failed under this call (a refused refresh, a 401): say how to log in.
      if (this.#credential?.needsLogin) throw this.#credential.loginError();
      throw err;
    } finally {
      this.#inFlight--;
    }
  }

  /**
   * Replaces a lost HTTP connection now rather than after a backoff: a remote server restarts
   * on its own schedule, and the call that noticed should not fail for it. Concurrent callers
   * share one attempt; a failed attempt counts as one failure of the restart policy.
   */
  async #reconnect(lost: Connection, why: string): Promise<Connection | undefined> {
    if (this.#conn === lost) {
      this.log.info("connection lost; reconnecting", { error: why });
      this.#generation++; // its onclose must not report the loss as a failure
      this.#conn = undefined;
      void lost.client.close().catch(() => {});
      this.#backoff.restarts++;
      void this.start();
    }
    await this.#starting;
    return this.#state === "up" ? this.#conn : undefined;
  }

  /** Drops a connection that failed under a call, unless it was already replaced. */
  #lost(lost: Connection, reason: string): void {
    if (this.#conn !== lost) return;
    this.#generation++; // its onclose must not report the failure a second time
    this.#conn = undefined;
    void lost.client.close().catch(() => {});
    this.#fail(reason);
  }

  /**
   * Only a login helps (the OAuth credential is missing or was refused): the connection is
   * dropped, no restart is scheduled, and calls answer how to log in until a login stores a
   * new credential (which starts it again).
   */
  #toNeedsLogin(): void {
    const reason = this.#credential?.needsLogin;
    if (!reason || this.#state === "stopped" || this.#state === "disabled") return;
    const wasUp = this.#state === "up";
    const conn = this.#conn;
    if (conn) {
      this.#generation++; // its onclose is not a failure
      this.#conn = undefined;
      void conn.client.close().catch(() => {});
    }
    this.#backoff.cancel();
    this.#lastError = reason;
    this.#setState("needs-login", { reason });
    if (wasUp) this.#hooks.onCatalog(this);
  }

  /** The error a call gets while this upstream is not up. */
  unavailable(): GatewayError {
    if (this.#state === "needs-login" && this.#credential) return this.#credential.loginError();
    return unavailable(this.name, this.status(), { lastError: this.#lastError });
  }

  /**
   * Its state in words, for errors and `/readyz`: `is down: exited with code 1: …; next
   * restart in 3s`, `…; gave up after 5 restarts`, `is down: …; restarting now`, `is starting:
   * not up after 1.2s`, `is up`.
   */
  status(): string {
    const b = this.#backoff;
    return statusText({
      state: this.#state,
      lastError: this.#lastError,
      gaveUp: b.gaveUp,
      failures: b.failures,
      nextRetryAt: b.nextRetryAt,
      ...(this.#state === "starting" && this.#startedAt > 0
        ? { startedAt: this.#startedAt, ...said(this.#exits.stderrTail) }
        : {}),
    });
  }

  #onClosed(generation: number, why: string | undefined): void {
    if (generation !== this.#generation || this.#state === "stopped") return;
    this.#conn = undefined;
    this.#fail(this.#exits.explain(why ?? "the server process exited or the connection closed"));
  }

  /**
   * Marks the upstream down and lets the restart policy schedule the next start. One log line
   * per failure carries the reason and the delay (or that it gave up). The last-known catalog
   * stays: the gateway keeps listing a down server's tools, and calls to them answer at once
   * with why the server is down (README, "Failures stay contained").
   */
  #fail(reason: string): void {
    if (this.#credential?.needsLogin) return this.#toNeedsLogin();
    const wasUp = this.#state === "up";
    this.#lastError = reason;
    const fields = this.#backoff.failed(this.#halted, wasUp ? this.#upSince : null, () => {
      if (!this.#halted) void this.start();
    });
    const said = meaningful(this.#exits.failedTail).slice(-8);
    this.#setState("down", {
      error: reason,
      ...fields,
      ...(said.length > 0 ? { stderr: said } : {}),
    });
    if (wasUp) this.#hooks.onCatalog(this);
  }

  #setState(state: UpstreamState, fields: Record<string, unknown> = {}): void {
    const from = this.#state;
    this.#state = state;
    if (state === "down") this.log.warn("upstream down", fields);
    else if (state === "needs-login" && from !== state) {
      this.log.warn("upstream needs a login", fields);
    } else if (state === "up") {
      this.log.info("upstream up", {
        kind: this.kind,
        era: this.#era,
        tools: this.#catalog.tools.length,
      });
    } else if (state === "stopped" && from !== "stopped") this.log.info("upstream stopped");
    if (state !== from || state === "down") this.#hooks.onState(this);
  }
}

/** `{ said }` with the last words of a stderr tail, or nothing when it says none. */
function said(tail: readonly string[]): { said?: string } {
  const words = lastWords(tail);
  return words === undefined ? {} : { said: words };
}
