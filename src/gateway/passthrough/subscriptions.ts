/**
 * Resource subscriptions shared across sessions: one upstream subscription per server and URI,
 * however many sessions (or 2026-07-28 listen streams) hold it; the last one out unsubscribes
 * upstream, an update goes to the holders only (each under the URI it subscribed by), and a
 * server's new connection is subscribed again to what its sessions hold.
 */
import { EmptyResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { GatewayError, messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import type { Upstream, UpstreamPool } from "../../upstream/mod.ts";
import type { ResourceSubscriber } from "./link.ts";
import { exposeUri, type ResourceIndex, type ResourceTarget } from "./resource-index.ts";

/** The gateway's resource subscriptions. */
export class ResourceSubscriptions {
  readonly #pool: UpstreamPool;
  readonly #index: () => ResourceIndex;
  readonly #log: Logger;
  /** `server\0uri` → sessions subscribed to it. */
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
  subscribable(): boolean {
    return this.#pool.all().some((u) =>
      u.client
        ? u.client.getServerCapabilities()?.resources?.subscribe === true
        : u.state === "starting"
    );
  }

  /** Subscribes a session to an upstream resource (one upstream subscription per URI). */
  async subscribe(
    link: ResourceSubscriber,
    target: ResourceTarget,
    exposed: string,
  ): Promise<void> {
    const key = `${target.server}\0${target.uri}`;
    let set = this.#subs.get(key);
    if (!set) {
      const upstream = this.#pool.get(target.server);
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
    await this.#drop(link, `${target.server}\0${target.uri}`);
  }

  async #drop(link: ResourceSubscriber, key: string): Promise<void> {
    link.subscriptions.delete(key);
    const set = this.#subs.get(key);
    if (!set?.delete(link) || set.size > 0) return;
    this.#subs.delete(key);
    const [server, uri] = splitKey(key);
    await this.#pool.get(server)?.request("resources/unsubscribe", { uri }, EmptyResultSchema)
      .catch((err) => this.#log.debug("upstream unsubscribe failed", { error: messageOf(err) }));
  }

  #subscribeUpstream(upstream: Upstream, uri: string): Promise<unknown> {
    return upstream.request("resources/subscribe", { uri }, EmptyResultSchema);
  }

  /** An upstream's `resources/updated`: to the sessions holding that URI only. */
  deliver(server: string, params: { uri: string; [k: string]: unknown }): void {
    const key = `${server}\0${params.uri}`;
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
    for (const key of this.#subs.keys()) {
      const [server, uri] = splitKey(key);
      if (server === upstream.name) void this.#subscribeUpstream(upstream, uri).catch(() => {});
    }
  }
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf("\0");
  return [key.slice(0, i), key.slice(i + 1)];
}

function gone(server: string): GatewayError {
  return new GatewayError("UPSTREAM_UNAVAILABLE", `server "${server}" is gone`);
}
