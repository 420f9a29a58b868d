/**
 * Resource subscriptions shared across sessions: one upstream subscription per server and URI,
 * however many sessions (or 2026-07-28 listen streams) hold it; the last one out unsubscribes
 * upstream, an update goes to the holders only (each under the URI it subscribed by), and a
 * server's new connection is subscribed again to what its sessions hold. A 2025 session's
 * subscription to a 2026-07-28 server that also speaks 2025 is held on that server's 2025 side
 * (upstream/legacy-side.ts), natively; it is keyed apart from what the modern connection holds.
 */
import { GatewayError, messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import {
  type ProtocolEra,
  resultSchemaOf,
  type Upstream,
  type UpstreamPool,
} from "../../upstream/mod.ts";
import type { ResourceSubscriber } from "./link.ts";
import { exposeUri, type ResourceIndex, type ResourceTarget } from "./resource-index.ts";

/** The gateway's resource subscriptions. */
export class ResourceSubscriptions {
  readonly #pool: UpstreamPool;
  readonly #index: () => ResourceIndex;
  readonly #log: Logger;
  /** `server\0side\0uri` → sessions subscribed to it (`side`: `2025` for a 2025 side). */
  readonly #subs = new Map<string, Set<ResourceSubscriber>>();

  constructor(pool: UpstreamPool, index: () => ResourceIndex, log: Logger) {
    this.#pool = pool;
    this.#index = index;
    this.#log = log;
  }

  /** Drops every subscription `sub` holds (a session closed, a listen stream ended). */
  release(sub: ResourceSubscriber): void {
    for (const key of [...sub.subscriptions.keys()]) void this.#drop(sub, key);
  }

  /**
   * Whether some upstream may carry a resource subscription: a connected one that offers them,
   * or one still starting (its answer not known yet). Without one, the front doors do not
   * advertise `resources.subscribe`: never a capability advertised and then refused.
   */
  subscribable(era: ProtocolEra): boolean {
    return this.#pool.all().some((u) => {
      // A 2025 side not opened yet has not said (it opens on the first subscription).
      const via = u.peekEra(era);
      if (!via) return true;
      return via.client
        ? via.client.getServerCapabilities()?.resources?.subscribe === true
        : via.state === "starting";
    });
  }

  /** Subscribes a session to an upstream resource (one upstream subscription per URI). */
  async subscribe(
    link: ResourceSubscriber,
    target: ResourceTarget,
    exposed: string,
  ): Promise<void> {
    const server = this.#pool.get(target.server);
    const upstream = await server?.forEra(link.era);
    const key = keyOf(target.server, upstream, target.uri);
    let set = this.#subs.get(key);
    if (!set) {
      if (!upstream?.client) throw upstream?.unavailable() ?? gone(target.server);
      if (!upstream.client.getServerCapabilities()?.resources?.subscribe) {
        throw new GatewayError(
          "UNSUPPORTED",
          `server "${target.server}" does not support resource subscriptions`,
        );
      }
      set = new Set();
      this.#subs.set(key, set);
      try {
        await this.#subscribeUpstream(upstream, target.uri);
      } catch (err) {
        if (set.size === 0) this.#subs.delete(key);
        throw err;
      }
    }
    set.add(link);
    link.subscriptions.set(key, exposed);
  }

  /** Ends a session's subscription; the last one out unsubscribes upstream. */
  async unsubscribe(link: ResourceSubscriber, target: ResourceTarget): Promise<void> {
    const server = this.#pool.get(target.server);
    const side = link.era === "legacy" ? server?.legacySide : undefined;
    // Held on the side when the session subscribed through it, else on the connection itself.
    const key = keyOf(target.server, side, target.uri);
    await this.#drop(
      link,
      link.subscriptions.has(key) ? key : keyOf(target.server, server, target.uri),
    );
  }

  /** Ends the subscription `link` holds under `key` (one of its `subscriptions`). */
  async leave(link: ResourceSubscriber, key: string): Promise<void> {
    await this.#drop(link, key);
  }

  async #drop(link: ResourceSubscriber, key: string): Promise<void> {
    link.subscriptions.delete(key);
    const set = this.#subs.get(key);
    if (!set?.delete(link) || set.size > 0) return;
    this.#subs.delete(key);
    const [server, side, uri] = splitKey(key);
    const upstream = this.#pool.get(server);
    await (side ? upstream?.legacySide : upstream)
      ?.request("resources/unsubscribe", { uri }, resultSchemaOf("resources/unsubscribe"))
      .catch((err) => this.#log.debug("upstream unsubscribe failed", { error: messageOf(err) }));
  }

  #subscribeUpstream(upstream: Upstream, uri: string): Promise<unknown> {
    return upstream.request("resources/subscribe", { uri }, resultSchemaOf("resources/subscribe"));
  }

  /** An upstream's `resources/updated`: to the sessions holding that URI there only. */
  deliver(via: Upstream, params: { uri: string; [k: string]: unknown }): void {
    const server = via.name;
    const key = keyOf(server, via, params.uri);
    const set = this.#subs.get(key);
    if (!set) return;
    const fallback = exposeUri(this.#index(), server, params.uri);
    for (const link of set) {
      // A token narrowed by a reload no longer hears about a server it cannot reach.
      if (link.sees && !link.sees(server)) continue;
      link.resourceUpdated({ ...params, uri: link.subscriptions.get(key) ?? fallback });
    }
  }

  /** A server's new connection: subscribes it again to every URI its sessions hold. */
  renew(upstream: Upstream): void {
    const side = upstream.primary === upstream ? "" : SIDE;
    for (const key of this.#subs.keys()) {
      const [server, held, uri] = splitKey(key);
      if (server === upstream.name && held === side) {
        void this.#subscribeUpstream(upstream, uri).catch(() => {});
      }
    }
  }
}

/** The tag of a subscription held on a server's 2025 side. */
const SIDE = "2025";

/** The key of `uri` held on `via` (a server's connection, or its 2025 side). */
function keyOf(server: string, via: Upstream | undefined, uri: string): string {
  return `${server}\0${via && via.primary !== via ? SIDE : ""}\0${uri}`;
}

function splitKey(key: string): [string, string, string] {
  const i = key.indexOf("\0");
  const j = key.indexOf("\0", i + 1);
  return [key.slice(0, i), key.slice(i + 1, j), key.slice(j + 1)];
}

function gone(server: string): GatewayError {
  return new GatewayError("UPSTREAM_UNAVAILABLE", `server "${server}" is gone`);
}
