/**
 * All upstreams of a config: started concurrently (one slow or broken server never holds up
 * the others), replaced as a diff on reload, stopped together on shutdown. A session-isolated
 * server whose shared instance came up gets its spare process (spare.ts) right after.
 */
import type { UpstreamClient } from "./client.ts";
import type { ServerConfig } from "../config/mod.ts";
import type { Logger } from "../shared/log.ts";
import { SessionUpstreams } from "./isolated.ts";
import { startInWaves } from "./start-queue.ts";
import { Upstream } from "./upstream.ts";
import type { UpstreamCredential } from "./oauth/mod.ts";

/**
 * The owner of one identity's connections to `mode: per-user` (and `exchange`) servers: their
 * pass-through setup knows by it that a connection serves that identity alone.
 */
export class UserKey {
  constructor(readonly identity: string) {}
}

/** Listeners for pool-wide changes. */
export interface PoolEvents {
  /** Some upstream's catalog changed (connect, crash, list_changed), an identity's own included. */
  onCatalog?(upstream: Upstream): void;
  /** Some upstream changed state. */
  onState?(upstream: Upstream): void;
  /**
   * Register pass-through handlers on each new client before its handshake; `owner` is the
   * session a session-isolated process belongs to (absent for the shared instance).
   */
  setup?(upstream: Upstream, client: UpstreamClient, owner?: object): void;
  /** The OAuth credential of a server with `oauth:`. */
  credential?(config: ServerConfig): UpstreamCredential | undefined;
  /** The credential of one client identity on a server whose mode serves each on its own. */
  userCredential?(config: ServerConfig, identity: string): UpstreamCredential | undefined;
}

/** The set of upstream servers. */
export class UpstreamPool {
  #upstreams = new Map<string, Upstream>();
  #log: Logger;
  #events: PoolEvents;
  /** The per-session processes of `isolation: session` servers. */
  readonly isolated: SessionUpstreams;
  /** The per-identity connections of `oauth: mode: per-user` servers. */
  readonly users: SessionUpstreams;
  /** One key object per identity (the users' table is keyed by object). */
  #userKeys = new Map<string, UserKey>();
  #halted = false;

  /**
   * `spares: false` starts no spare processes (`check` starts each server once, to look at it).
   */
  constructor(
    servers: readonly ServerConfig[],
    log: Logger,
    events: PoolEvents = {},
    { spares = true }: { spares?: boolean } = {},
  ) {
    this.#log = log;
    this.#events = events;
    this.isolated = new SessionUpstreams(
      log.child("session"),
      (u, c, owner) => this.#events.setup?.(u, c, owner),
      { spares },
    );
    // No spares here: a per-user connection is made with its identity's own credential, so
    // one started before its identity is known would have nobody's (or the wrong) credential.
    this.users = new SessionUpstreams(
      log.child("user"),
      (u, c, owner) => this.#events.setup?.(u, c, owner),
      // What a user's connection declares is that user's alone: the gateway builds their view.
      { onCatalog: (u) => this.#events.onCatalog?.(u) },
    );
    for (const s of servers) this.#upstreams.set(s.name, this.#create(s));
  }

  /**
   * The connection of client `identity` to a `mode: per-user` server: its own upstream, with
   * its own credential, started on first use. Nothing one identity obtained serves another.
   */
  async forUser(config: ServerConfig, identity: string, subjectToken?: string): Promise<Upstream> {
    const credential = this.#events.userCredential?.(config, identity);
    if (!credential) throw new Error(`no per-user credentials for server "${config.name}"`);
    // An exchanging credential trades the caller's latest token (exchange.ts).
    credential.present(subjectToken);
    let key = this.#userKeys.get(identity);
    if (!key) this.#userKeys.set(identity, key = new UserKey(identity));
    const upstream = await this.users.acquire(config, key, identity, credential);
    // Right after a login its connection is starting: the call waits for it, not fails.
    await upstream.started();
    return upstream;
  }

  /**
   * Each identity's own connections (of every per-user server), for the views built from what
   * they declare; identities without one are left out.
   */
  userConnections(): Map<string, Upstream[]> {
    const out = new Map<string, Upstream[]>();
    for (const identity of this.#userKeys.keys()) {
      const own = this.connectionsOf(identity);
      if (own.length > 0) out.set(identity, own);
    }
    return out;
  }

  /** The connections of `identity` to per-user servers (none before its first call). */
  connectionsOf(identity: string): Upstream[] {
    const key = this.#userKeys.get(identity);
    return key ? this.users.of(key) : [];
  }

  #create(config: ServerConfig): Upstream {
    const upstream = new Upstream(config, this.#log, {
      onCatalog: (u) => this.#events.onCatalog?.(u),
      onState: (u) => this.#events.onState?.(u),
      setup: (u, c) => this.#events.setup?.(u, c),
      credential: (c) => this.#events.credential?.(c),
    });
    if (this.#halted) upstream.halt();
    return upstream;
  }

  /** Starts every upstream in waves; resolves when each is up or marked down. */
  async startAll(onEach?: (u: Upstream) => void): Promise<void> {
    await startInWaves([...this.#upstreams.values()], async (u) => {
      await u.start();
      this.#primeSpare(u);
      onEach?.(u);
    });
  }

  /** Starts the spare of a session-isolated server whose shared instance just came up. */
  #primeSpare(u: Upstream): void {
    if (u.state === "up" && this.#upstreams.get(u.name) === u) this.isolated.prime(u.config);
  }

  /** The upstream with this name. */
  get(name: string): Upstream | undefined {
    return this.#upstreams.get(name);
  }

  /**
   * Restarts the shared connection of `name` now (an operator's restart; see
   * `Upstream.restart`); false when no such server is configured.
   */
  async restart(name: string): Promise<boolean> {
    const u = this.#upstreams.get(name);
    if (!u) return false;
    await u.restart();
    this.#primeSpare(u);
    return true;
  }

  /** Every upstream, in config order. */
  all(): Upstream[] {
    return [...this.#upstreams.values()];
  }

  /**
   * Applies a new server list as a diff: unchanged upstreams keep running untouched; removed
   * ones stop; added and changed ones (re)start. Returns the names that changed.
   */
  async apply(
    servers: readonly ServerConfig[],
  ): Promise<{ added: string[]; removed: string[]; changed: string[] }> {
    const next = new Map(servers.map((s) => [s.name, s]));
    const added: string[] = [];
    const removed: string[] = [];
    const changed: string[] = [];
    const stops: Promise<void>[] = [];
    const starts: Upstream[] = [];
    for (const [name, u] of this.#upstreams) {
      const cfg = next.get(name);
      if (!cfg) {
        removed.push(name);
        stops.push(u.stop(), this.isolated.drop(name), this.users.drop(name));
        this.#upstreams.delete(name);
      } else if (JSON.stringify(cfg) !== JSON.stringify(u.config)) {
        changed.push(name);
        stops.push(u.stop(), this.isolated.drop(name), this.users.drop(name));
        const fresh = this.#create(cfg);
        this.#upstreams.set(name, fresh);
        starts.push(fresh);
      }
    }
    for (const [name, cfg] of next) {
      if (!this.#upstreams.has(name)) {
        added.push(name);
        const fresh = this.#create(cfg);
        this.#upstreams.set(name, fresh);
        starts.push(fresh);
      }
    }
    // Keep config order so listings stay stable.
    this.#upstreams = new Map(servers.map((s) => [s.name, this.#upstreams.get(s.name)!]));
    await Promise.all(stops);
    await startInWaves(starts, async (u) => {
      await u.start();
      this.#primeSpare(u);
    });
    return { added, removed, changed };
  }

  /** Requests sent upstream and not yet answered, over every upstream. */
  inFlight(): number {
    let n = 0;
    for (const u of this.#upstreams.values()) n += u.inFlight;
    return n + this.isolated.inFlight() + this.users.inFlight();
  }

  /**
   * Shutdown began: no upstream restarts or starts from now on (pending backoff timers are
   * cancelled); connections that are up keep serving the calls being drained.
   */
  halt(): void {
    this.#halted = true;
    for (const u of this.#upstreams.values()) u.halt();
    this.isolated.halt();
  }

  /** Stops every upstream, in any state, and resolves once each process tree is killed. */
  async stopAll(): Promise<void> {
    this.halt();
    await Promise.all([
      ...this.all().map((u) => u.stop()),
      this.isolated.stopAll(),
      this.users.stopAll(),
    ]);
  }
}
