/**
 * Session-isolated upstreams (`isolation: session`): one process of a stdio server per client
 * session, started by that session's first call and stopped when it closes. Such a process
 * serves one session only, so it may be given that session's roots and its sampling and
 * elicitation requests have exactly one place to go. The pool's own instance of the server stays
 * the shared definition (its catalog is what sessions list); this class only holds the copies,
 * and each server's spare (spare.ts): one process started ahead of need, counted in
 * `maxSessions`, that the next new owner takes at once. Under `apps: auto` a process is offered
 * the MCP Apps extension only when its owner's client declared it (the shared instance, serving
 * everyone, always is), so a server that registers view tools for hosts registers them only for
 * a session that renders them. A spare, started before its owner is known, is offered what a
 * client that renders no views gets (most clients): a host of views starts its own process.
 */
import type { UpstreamClient } from "./client.ts";
import type { ServerConfig } from "../config/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import { Upstream } from "./upstream.ts";
import type { UpstreamCredential } from "./oauth/mod.ts";
import { Spare } from "./spare.ts";
// Straight from its file: the modern room's mod.ts would load the SDK v2 client at start.
import { sourceOf, withoutApps } from "./config-copies.ts";

/** Registers pass-through handlers on a session's process, knowing whose it is. */
export type SessionSetup = (upstream: Upstream, client: UpstreamClient, owner: object) => void;

interface Instance {
  /** The server's config it was started for (its process may run a copy: {@link ownConfig}). */
  readonly config: ServerConfig;
  readonly upstream: Upstream;
  readonly ready: Promise<void>;
  /** The token of the session the process serves (`null`: no auth). */
  readonly tokenName: string | null;
}

/** The per-session processes of every session-isolated server. */
export class SessionUpstreams {
  /** server name → session (any object the caller uses as its key) → its process. */
  #byServer = new Map<string, Map<object, Instance>>();
  #log: Logger;
  #setup: SessionSetup;

  #onCatalog: ((upstream: Upstream) => void) | undefined;
  /** server name → its spare processes (at most its `spare`; see {@link prime}). */
  #spares = new Map<string, Spare[]>();
  /** Whether this table keeps spares at all (not for per-user connections: see the pool). */
  #keepsSpares: boolean;
  #halted = false;

  constructor(
    log: Logger,
    setup: SessionSetup,
    { onCatalog, spares = false }: { onCatalog?: (upstream: Upstream) => void; spares?: boolean } =
      {},
  ) {
    this.#log = log;
    this.#setup = setup;
    this.#onCatalog = onCatalog;
    this.#keepsSpares = spares;
  }

  /**
   * The owner's process of this server, started on first use. Refused with a clear error when
   * the server already runs `maxSessions` processes for other sessions, or `maxSessionsPerToken`
   * for other sessions of `tokenName` — so one token cannot take every process (anonymous
   * sessions meet `maxSessions` only). A refusal never stops someone else's process.
   * `apps`: the owner's client renders MCP Apps views (under `apps: auto`, whether its process
   * is offered the extension).
   */
  async acquire(
    config: ServerConfig,
    owner: object,
    tokenName: string | null,
    credential?: UpstreamCredential,
    apps = true,
  ): Promise<Upstream> {
    let owners = this.#byServer.get(config.name);
    if (!owners) this.#byServer.set(config.name, owners = new Map());
    let instance = owners.get(owner);
    if (instance && instance.config !== config) {
      // The server's config changed on reload: this session gets a process of the new one.
      owners.delete(owner);
      void instance.upstream.stop();
      instance = undefined;
    }
    if (!instance) {
      if (owners.size >= config.maxSessions) {
        throw new GatewayError(
          "UPSTREAM_UNAVAILABLE",
          `server "${config.name}" already runs ${owners.size} session processes ` +
            `(maxSessions: ${config.maxSessions}); close a session or raise ` +
            `servers.${config.name}.maxSessions`,
          { data: { server: config.name, maxSessions: config.maxSessions } },
        );
      }
      const perToken = config.maxSessionsPerToken;
      let held = 0;
      for (const i of owners.values()) if (tokenName !== null && i.tokenName === tokenName) held++;
      if (tokenName !== null && held >= perToken) {
        throw new GatewayError(
          "UPSTREAM_UNAVAILABLE",
          `token "${tokenName}" already holds ${held} session processes of server ` +
            `"${config.name}" (maxSessionsPerToken: ${perToken}); close one of its sessions or ` +
            `raise servers.${config.name}.maxSessionsPerToken`,
          { data: { server: config.name, maxSessionsPerToken: perToken } },
        );
      }
      // Only owners count here: a spare exists only while they leave room for it, one taken
      // moves from spare to owner, and one that cannot serve now (down, restarting, given up)
      // yields its slot when the server is full — a spare never makes anyone be refused.
      const own = ownConfig(config, apps);
      // A spare was offered what a client rendering no views gets: only such an owner takes it.
      const spare = credential || own !== ownConfig(config, false)
        ? undefined
        : this.#takeSpare(config, owners.size);
      if (spare) {
        instance = {
          config,
          upstream: spare.take(owner),
          ready: spare.upstream.started(),
          tokenName,
        };
      } else {
        const upstream = new Upstream(own, this.#log, {
          onCatalog: (u) => this.#onCatalog?.(u),
          onState: () => {},
          setup: (u, client) => this.#setup(u, client, owner),
          ...(credential ? { credential: () => credential } : {}),
        });
        instance = { config, upstream, ready: upstream.start(), tokenName };
      }
      owners.set(owner, instance);
      this.prime(config);
    }
    await instance.ready;
    return instance.upstream;
  }

  /**
   * Starts spares of the server in the background until it has its `spare` of them, unless
   * this table keeps none or its owners' processes leave no room under `maxSessions`. The
   * pool primes a server once its shared instance came up (one that crashes at start never
   * gets a spare); a take or a closed session primes it again. A spare that dies restarts on
   * the server's own `restart` backoff and gives up like any upstream; it keeps its place, so
   * a server that cannot start never makes spares loop.
   */
  prime(config: ServerConfig): void {
    if (!this.#keepsSpares || this.#halted || !config.enabled) return;
    let spares = this.#spares.get(config.name);
    if (!spares) this.#spares.set(config.name, spares = []);
    const owners = this.count(config.name);
    while (spares.length < config.spare && owners + spares.length < config.maxSessions) {
      spares.push(new Spare(ownConfig(config, false), this.#log, this.#setup));
    }
  }

  /** The server's spare processes nobody has taken yet (status, tests). */
  sparesOf(server: string): readonly Upstream[] {
    return (this.#spares.get(server) ?? []).map((s) => s.upstream);
  }

  /**
   * The spare a new owner of `config` takes, removed from the table; `undefined` when none
   * saves a start. Those of an older config are stopped; one that cannot serve now stays
   * (keeping its backoff) unless the new owner needs its slot, then it is stopped.
   */
  #takeSpare(config: ServerConfig, owners: number): Spare | undefined {
    const all = this.#spares.get(config.name) ?? [];
    const spares = all.filter((s) => sourceOf(s.upstream.config) === config);
    for (const s of all) if (!spares.includes(s)) void s.upstream.stop();
    this.#spares.set(config.name, spares);
    const i = spares.findIndex((s) => s.takeable);
    if (i >= 0) return spares.splice(i, 1)[0];
    while (spares.length > 0 && owners + 1 + spares.length > config.maxSessions) {
      void spares.pop()!.upstream.stop();
    }
    return undefined;
  }

  /** The owner's running processes (for its `roots/list_changed`). */
  of(owner: object): Upstream[] {
    const out: Upstream[] = [];
    for (const owners of this.#byServer.values()) {
      const instance = owners.get(owner);
      if (instance) out.push(instance.upstream);
    }
    return out;
  }

  /** How many session processes this server runs. */
  count(server: string): number {
    return this.#byServer.get(server)?.size ?? 0;
  }

  /** Requests in flight over every session process. */
  inFlight(): number {
    let n = 0;
    for (const owners of this.#byServer.values()) {
      for (const i of owners.values()) n += i.upstream.inFlight;
    }
    return n;
  }

  /** Stops the owner's processes (its session closed). */
  async release(owner: object): Promise<void> {
    const stops: Promise<void>[] = [];
    for (const owners of this.#byServer.values()) {
      const instance = owners.get(owner);
      if (!instance) continue;
      owners.delete(owner);
      stops.push(instance.upstream.stop());
      // A full server has room again: its spare comes back.
      this.prime(instance.config);
    }
    await Promise.all(stops);
  }

  /** Stops every session process of a server (removed or changed on reload). */
  async drop(server: string): Promise<void> {
    const owners = this.#byServer.get(server);
    this.#byServer.delete(server);
    const spares = this.#spares.get(server) ?? [];
    this.#spares.delete(server);
    await Promise.all([...owners?.values() ?? [], ...spares].map((i) => i.upstream.stop()));
  }

  /** Shutdown began: no spare is started from now on. */
  halt(): void {
    this.#halted = true;
  }

  /** Stops every session process and every spare (shutdown). */
  async stopAll(): Promise<void> {
    this.halt();
    const servers = new Set([...this.#byServer.keys(), ...this.#spares.keys()]);
    await Promise.all([...servers].map((s) => this.drop(s)));
  }
}

/**
 * The config an owner's own process runs: `config` itself, or under `apps: auto` for a client
 * that renders no views a copy that does not offer the MCP Apps extension.
 */
function ownConfig(config: ServerConfig, apps: boolean): ServerConfig {
  return apps || config.apps !== "auto" ? config : withoutApps(config);
}
