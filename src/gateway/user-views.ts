/**
 * @module What each identity sees of the servers that serve every client on its own credential
 * (`oauth: mode: per-user` or `exchange`). Such a server's shared entry never connects, so it
 * declares nothing: the catalog every caller shares holds none of its tools or prompts, and a
 * call by its prefix reaches the caller's own connection or answers with the caller's connect
 * link. An identity with connections of its own gets its own catalog: the shared servers plus
 * what *its* connections declare, held back by quarantine under its own pins — built on first
 * use after each rebuild, and never from another identity's connection.
 */
import type { GatewayConfig } from "../config/mod.ts";
import type { Logger } from "../shared/log.ts";
import type { Upstream, UpstreamPool } from "../upstream/mod.ts";
import { identityKey } from "../upstream/oauth/mod.ts";
import { buildCatalog, type Catalog } from "./catalog.ts";
import type { Pins } from "./pinning/mod.ts";

/** One caller's catalog and what it was built from. */
export interface CatalogView {
  readonly catalog: Catalog;
  /** The upstreams it was built from: a per-user server's is the identity's own connection. */
  readonly upstreams: readonly Upstream[];
  /** The key quarantine held it back under (the identity's key; `""`: the shared catalog). */
  readonly user: string;
}

/** What the views read of the gateway, each time. */
export interface UserViewSource {
  readonly config: GatewayConfig;
  /** Bumped at each rebuild: a view built before is stale. */
  readonly version: number;
  readonly pool: UpstreamPool;
  readonly pins: Pins;
  readonly log: Logger;
  /** The names of the gateway's own tools, which no upstream tool may take. */
  readonly localByName: ReadonlyMap<string, unknown>;
}

/** True when an upstream's catalog counts: it is up, or down, starting or waiting for a login. */
export function listable(u: Upstream): boolean {
  return u.state === "up" || u.state === "down" || u.state === "starting" ||
    u.state === "needs-login";
}

/** The identities' own catalogs of one gateway. */
export class UserViews {
  readonly #source: UserViewSource;
  #version = -1;
  #byIdentity = new Map<string, CatalogView>();

  constructor(source: UserViewSource) {
    this.#source = source;
  }

  /**
   * The view of `identity` (`null`: a caller with none): `shared` unless the identity has
   * connections of its own, else its own catalog.
   */
  viewOf(identity: string | null, shared: CatalogView): CatalogView {
    if (identity === null) return shared;
    const own = this.#source.pool.connectionsOf(identity).filter(listable);
    if (own.length === 0) return shared;
    return this.#ownView(identity, own, shared);
  }

  /**
   * The view of an identity with connections of its own. A function of its own: its closures'
   * scope is then made only for such identities, not for every caller's lookup.
   */
  #ownView(identity: string, own: Upstream[], shared: CatalogView): CatalogView {
    const source = this.#source;
    if (this.#version !== source.version) {
      this.#version = source.version;
      this.#byIdentity = new Map();
    }
    const known = this.#byIdentity.get(identity);
    if (known) return known;
    const byServer = new Map(own.map((u) => [u.name, u]));
    const upstreams = shared.upstreams.map((u) => {
      const mine = byServer.get(u.name);
      // A connection of a config a reload replaced is not this server's any more.
      return mine && mine.config === u.config ? mine : u;
    });
    const user = identityKey(identity);
    const reserved = new Set(source.localByName.keys());
    const catalog = source.pins.apply(
      buildCatalog(source.config, upstreams, source.log, reserved),
      user,
    );
    const view = { catalog, upstreams, user };
    this.#byIdentity.set(identity, view);
    return view;
  }

  /** Each identity's connections by the key its pins are kept under (for the pins' review). */
  connectionsByKey(): Map<string, Upstream[]> {
    const out = new Map<string, Upstream[]>();
    for (const [identity, own] of this.#source.pool.userConnections()) {
      out.set(identityKey(identity), own.filter(listable));
    }
    return out;
  }
}
