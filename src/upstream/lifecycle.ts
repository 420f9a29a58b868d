/**
 * @module One upstream's life: connect and read its catalog, and on a crash mark it down at
 * once and restart it with capped exponential backoff (backoff.ts). An HTTP connection lost
 * under a call is replaced now (a remote server restarts on its own); an OAuth credential only
 * a login can mend parks it in `needs-login`. It writes the shared state of upstream-core.ts,
 * which the public `Upstream` reads; the request path reaches it only through `line`.
 */
import { messageOf } from "../shared/errors.ts";
import { type Connection, connectUpstream } from "./connect.ts";
import { watchEnd } from "./watch-end.ts";
import { readCatalog } from "./lists.ts";
import { describeStartError, meaningful } from "./down-reason.ts";
import type { Line } from "./resend.ts";
import type { UpstreamCatalog, UpstreamState } from "./types.ts";
import type { UpstreamCore } from "./upstream-core.ts";

/** Connect, restart, reconnect and stop of one upstream, over its shared state. */
export class Lifecycle {
  readonly #core: UpstreamCore;
  #generation = 0;
  #starting: Promise<void> | undefined;
  /** The current connect attempt; aborting it kills what it started. */
  #attempt: AbortController | undefined;
  /** Shutdown began or stopped: nothing new is started, no restart is scheduled. */
  #halted = false;
  /** What the resend rule may do to the connection (resend.ts); made once, used by every call. */
  readonly line: Line = {
    current: () => (this.#core.state === "up" ? this.#core.conn : undefined),
    http: () => this.#core.config.kind === "http",
    reconnect: (lost, why) => this.#reconnect(lost, why),
    lose: (lost, why) => this.#lost(lost, why),
    down: () => this.#core.unavailable(),
  };

  constructor(core: UpstreamCore) {
    this.#core = core;
  }

  /** Connects and reads the catalog. Never throws: failure marks the upstream down. */
  start(): Promise<void> {
    if (!this.#core.config.enabled || this.#halted) return Promise.resolve();
    const started = this.#connect();
    this.#starting = started;
    void started.finally(() => {
      if (this.#starting === started) this.#starting = undefined;
    });
    return started;
  }

  async #connect(): Promise<void> {
    const core = this.#core;
    const generation = ++this.#generation;
    core.backoff.cancel();
    const stale = core.conn;
    core.conn = undefined;
    if (stale) await stale.client.close().catch(() => {});
    if (generation !== this.#generation) return; // stopped meanwhile
    core.startedAt = Date.now();
    this.#setState("starting");
    let conn: Connection | undefined;
    let closedEarly = false;
    const attempt = new AbortController();
    this.#attempt = attempt;
    core.exits.proc = undefined;
    const credential = core.credential;
    try {
      if (credential) {
        await credential.ready();
        if (generation !== this.#generation) return;
        if (credential.needsLogin !== null) return this.toNeedsLogin();
      }
      conn = await connectUpstream(
        core.config,
        core.log,
        (client) => core.hooks.setup?.(core.owner, client),
        {
          signal: attempt.signal,
          onTransport: (t) => (core.exits.proc = t),
          ...(credential ? { fetch: credential.fetch } : {}),
          ...(core.streams ? { streams: core.streams } : {}),
        },
      );
      if (generation !== this.#generation) {
        await conn.transport.close().catch(() => {});
        return;
      }
      core.conn = conn;
      watchEnd(conn.transport, (why) => {
        if (core.state === "starting") closedEarly = true;
        else this.#onClosed(generation, why);
      });
      // A 2025 side (legacy-side.ts) serves calls only: its server's catalog is the main one's.
      if (core.owner.primary === core.owner) core.catalog = await this.#read(conn);
      // A server that dies while its catalog is read is not up, even if every list was empty.
      if (closedEarly) throw new Error("the server exited during start-up");
      core.upSince = Date.now();
      core.lastError = null;
      core.backoff.up();
      core.kind = conn.kind;
      core.era = conn.era;
      this.#setState("up");
      core.hooks.onCatalog(core.owner);
    } catch (err) {
      if (generation !== this.#generation) return;
      await conn?.transport.close().catch(() => {});
      core.conn = undefined;
      this.#fail(core.exits.explain(describeStartError(core.config, err)));
    } finally {
      if (this.#attempt === attempt) this.#attempt = undefined;
    }
  }

  /** Resolves once a start in progress (a login just completed) has ended, up or not. */
  async started(): Promise<void> {
    await this.#starting;
  }

  /**
   * An operator's restart: the connection (or a connect in progress, or a pending retry) is
   * dropped and a fresh start begins at once, even after the policy gave up; the count of
   * consecutive failures starts again. A disabled or stopped upstream is left as it is.
   */
  restart(): Promise<void> {
    if (!this.#core.config.enabled || this.#halted) return Promise.resolve();
    this.#attempt?.abort();
    const b = this.#core.backoff;
    b.gaveUp = false;
    b.failures = 0;
    b.restarts++;
    return this.start();
  }

  /** Shutdown began: cancels a pending restart and starts nothing new; a live connection stays. */
  halt(): void {
    this.#halted = true;
    this.#core.backoff.cancel();
  }

  /** Stops for good in whatever state; resolves once its process tree is killed. */
  async stop(): Promise<void> {
    this.halt();
    this.#generation++;
    this.#attempt?.abort(); // a connect in progress kills its child now
    const conn = this.#core.conn;
    this.#core.conn = undefined;
    const starting = this.#starting;
    this.#setState("stopped");
    await Promise.all([conn?.client.close().catch(() => {}), starting?.catch(() => {})]);
  }

  /** Re-reads the whole catalog (after `list_changed`). */
  async refresh(): Promise<void> {
    const core = this.#core;
    const conn = core.state === "up" ? core.conn : undefined;
    if (!conn) return;
    try {
      core.catalog = await this.#read(conn);
      core.hooks.onCatalog(core.owner);
    } catch (err) {
      core.log.warn("catalog refresh failed", { error: messageOf(err) });
    }
  }

  #read(conn: Connection): Promise<UpstreamCatalog> {
    const caps = conn.client.getServerCapabilities() ?? {};
    return readCatalog(conn.caller, caps, this.#core.config.name, this.#core.config.timeoutMs);
  }

  /**
   * Replaces a lost HTTP connection now rather than after a backoff: a remote server restarts
   * on its own schedule, and the call that noticed should not fail for it. Concurrent callers
   * share one attempt; a failed attempt counts as one failure of the restart policy.
   */
  async #reconnect(lost: Connection, why: string): Promise<Connection | undefined> {
    const core = this.#core;
    if (core.conn === lost) {
      core.log.info("connection lost; reconnecting", { error: why });
      this.#generation++; // its onclose must not report the loss as a failure
      core.conn = undefined;
      void lost.client.close().catch(() => {});
      core.backoff.restarts++;
      void this.start();
    }
    await this.#starting;
    return core.state === "up" ? core.conn : undefined;
  }

  /** Drops a connection that failed under a call, unless it was already replaced. */
  #lost(lost: Connection, reason: string): void {
    if (this.#core.conn !== lost) return;
    this.#generation++; // its onclose must not report the failure a second time
    this.#core.conn = undefined;
    void lost.client.close().catch(() => {});
    this.#fail(reason);
  }

  /**
   * Only a login helps (the OAuth credential is missing or was refused): the connection is
   * dropped, no restart is scheduled, and calls answer how to log in until a login stores a
   * new credential (which starts it again).
   */
  toNeedsLogin(): void {
    const core = this.#core;
    const reason = core.credential?.needsLogin;
    if (!reason || core.state === "stopped" || core.state === "disabled") return;
    const wasUp = core.state === "up";
    const conn = core.conn;
    if (conn) {
      this.#generation++; // its onclose is not a failure
      core.conn = undefined;
      void conn.client.close().catch(() => {});
    }
    core.backoff.cancel();
    core.lastError = reason;
    this.#setState("needs-login", { reason });
    if (wasUp) core.hooks.onCatalog(core.owner);
  }

  #onClosed(generation: number, why: string | undefined): void {
    if (generation !== this.#generation || this.#core.state === "stopped") return;
    this.#core.conn = undefined;
    this.#fail(
      this.#core.exits.explain(why ?? "the server process exited or the connection closed"),
    );
  }

  /**
   * Marks the upstream down and lets the restart policy schedule the next start. One log line
   * per failure carries the reason and the delay (or that it gave up). The last-known catalog
   * stays: the gateway keeps listing a down server's tools, and calls to them answer at once
   * with why the server is down (docs/CONFIGURATION.md, "Failures stay contained").
   */
  #fail(reason: string): void {
    const core = this.#core;
    if (core.credential?.needsLogin) return this.toNeedsLogin();
    const wasUp = core.state === "up";
    core.lastError = reason;
    const fields = core.backoff.failed(this.#halted, wasUp ? core.upSince : null, () => {
      if (!this.#halted) void this.start();
    });
    const said = meaningful(core.exits.failedTail).slice(-8);
    this.#setState("down", {
      error: reason,
      ...fields,
      ...(said.length > 0 ? { stderr: said } : {}),
    });
    if (wasUp) core.hooks.onCatalog(core.owner);
  }

  #setState(state: UpstreamState, fields: Record<string, unknown> = {}): void {
    const core = this.#core;
    const from = core.state;
    core.state = state;
    if (state === "down") core.log.warn("upstream down", fields);
    else if (state === "needs-login" && from !== state) {
      core.log.warn("upstream needs a login", fields);
    } else if (state === "up") {
      core.log.info("upstream up", {
        kind: core.kind,
        era: core.era,
        tools: core.catalog.tools.length,
      });
    } else if (state === "stopped" && from !== "stopped") core.log.info("upstream stopped");
    if (state !== from || state === "down") core.hooks.onState(core.owner);
  }
}
