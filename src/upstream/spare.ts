/**
 * @module The spare process of a session-isolated server (`servers.<name>.spare`): one process
 * started and connected before any session needs it, so the next session (or 2026-07-28 request
 * flow) takes it at once instead of waiting for a process start. Until it is taken it belongs
 * to nobody: the handlers that relay its requests are registered only when an owner takes it,
 * and what it asks before that is refused (a `roots/list` so refused is followed, once taken,
 * by `notifications/roots/list_changed`, so it asks again and reaches its owner). Taken once,
 * it is that owner's process like any other and is never handed to anyone else.
 */
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ServerConfig } from "../config/mod.ts";
import { GatewayError, onWire } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import type { UpstreamClient } from "./client.ts";
import { Upstream } from "./upstream.ts";

/** Registers pass-through handlers on a process for its owner (isolated.ts's `SessionSetup`). */
type Bind = (upstream: Upstream, client: UpstreamClient, owner: object) => void;

/** One pre-started process of a server, not yet anybody's. */
export class Spare {
  readonly upstream: Upstream;
  #bind: Bind;
  #owner: object | undefined;
  /** The client of its current connection (a restart before the take replaces it). */
  #client: UpstreamClient | undefined;
  /** It asked for roots while it had no owner: tell it they changed once it has one. */
  #askedRoots = false;

  constructor(config: ServerConfig, log: Logger, bind: Bind) {
    this.#bind = bind;
    this.upstream = new Upstream(config, log, {
      onCatalog: () => {},
      onState: () => {},
      setup: (u, client) => {
        this.#client = client;
        if (this.#owner) bind(u, client, this.#owner);
        else this.#refuseAll(client);
      },
    });
    void this.upstream.start();
  }

  /**
   * True while taking it saves a start: it is up, or in its first start. One that failed is
   * restarting on its own backoff (or gave up) and serves nobody until it comes up.
   */
  get takeable(): boolean {
    const u = this.upstream;
    return u.state === "up" || (u.state === "starting" && u.failures === 0);
  }

  /** Hands the process to `owner` for good: from now on its requests go there. */
  take(owner: object): Upstream {
    if (this.#owner) throw new Error(`the spare of server "${this.upstream.name}" was taken`);
    this.#owner = owner;
    const client = this.#client;
    if (client) {
      this.#bind(this.upstream, client, owner);
      if (this.#askedRoots) void client.sendRootsListChanged().catch(() => {});
    }
    return this.upstream;
  }

  /** Until taken, whatever the process asks has nobody to answer it. */
  #refuseAll(client: UpstreamClient): void {
    const name = this.upstream.name;
    const refuse = (req: { method: string }) =>
      onWire(() => {
        if (req.method === "roots/list") this.#askedRoots = true;
        throw new GatewayError(
          "UNSUPPORTED",
          `no client session can answer ${req.method} from server "${name}": this process ` +
            "was started ahead of need and no session has taken it yet",
          { data: { server: name, method: req.method } },
        );
      }) as never;
    client.setRequestHandler(CreateMessageRequestSchema, refuse);
    client.setRequestHandler(ElicitRequestSchema, refuse);
    // Without `roots:` the capability is not offered (and the SDK would refuse the handler).
    if (this.upstream.config.roots !== null) {
      client.setRequestHandler(ListRootsRequestSchema, refuse);
    }
  }
}
