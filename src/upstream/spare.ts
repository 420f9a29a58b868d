/**
 * @module The spare process of a session-isolated server (`servers.<name>.spare`): one process
 * started and connected before any session needs it, so the next session (or 2026-07-28 request
 * flow) takes it at once instead of waiting for a process start. Until it is taken it belongs
 * to nobody: the handlers that relay its requests are registered only when an owner takes it.
 * A `roots/list` it sends before that (servers ask right after initialize) waits for the owner
 * and gets the owner's roots, as if the process had been started for it (one the server gave up
 * waiting for is followed, once taken, by `notifications/roots/list_changed`); sampling and
 * elicitation are refused (no call of anybody's is behind them). Taken once, it is that
 * owner's process like any other and is never handed to anyone else.
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

/**
 * A request handler of the owner's, passed on unchanged: `any`, since the SDK types each one by
 * its own request schema and this file handles them all alike.
 */
type Handler = (request: any, extra: { signal: AbortSignal }) => any;

/** A `roots/list` that arrived before the take, waiting for the handler its owner brings. */
interface Held {
  answer(handler: Handler | undefined): void;
}

/** One pre-started process of a server, not yet anybody's. */
export class Spare {
  readonly upstream: Upstream;
  #bind: Bind;
  #owner: object | undefined;
  /** The client of its current connection (a restart before the take replaces it). */
  #client: UpstreamClient | undefined;
  /** The current connection's `roots/list` requests that wait for an owner. */
  #held: Held[] = [];
  /** A held `roots/list` was given up (the server's own timeout): tell the owner's roots anew. */
  #gaveUpRoots = false;

  constructor(config: ServerConfig, log: Logger, bind: Bind) {
    this.#bind = bind;
    this.upstream = new Upstream(config, log, {
      onCatalog: () => {},
      onState: () => {},
      setup: (u, client) => {
        this.#client = client;
        this.#release(undefined); // those of a connection that is gone have nobody to reach
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
      // The owner's handlers replace the refusals; the held roots/list go to its roots handler.
      let roots: Handler | undefined;
      // The owner's schemas and handlers pass on unchanged: the SDK types them per schema.
      const noting: UpstreamClient = {
        getServerCapabilities: () => client.getServerCapabilities(),
        setRequestHandler(schema: any, handler: (request: any, extra: any) => any) {
          if (schema === ListRootsRequestSchema) roots = handler;
          client.setRequestHandler(schema, handler);
        },
        setNotificationHandler(schema: any, handler: any) {
          client.setNotificationHandler(schema, handler);
        },
        sendRootsListChanged: () => client.sendRootsListChanged(),
        close: () => client.close(),
      };
      this.#bind(this.upstream, noting, owner);
      this.#release(roots);
      if (this.#gaveUpRoots) void client.sendRootsListChanged().catch(() => {});
    }
    return this.upstream;
  }

  /** Answers the held `roots/list` with `handler` (refused without one). */
  #release(handler: Handler | undefined): void {
    const held = this.#held;
    this.#held = [];
    for (const h of held) h.answer(handler);
  }

  /** Until taken, sampling and elicitation have nobody to answer them; roots wait. */
  #refuseAll(client: UpstreamClient): void {
    const refuse = (req: { method: string }) =>
      onWire(() => Promise.reject<never>(this.#refusal(req.method)));
    client.setRequestHandler(CreateMessageRequestSchema, refuse);
    client.setRequestHandler(ElicitRequestSchema, refuse);
    // Without `roots:` the capability is not offered (and the SDK would refuse the handler).
    if (this.upstream.config.roots === null) return;
    const hold: Handler = (req, extra) =>
      new Promise((resolve) => {
        // The server gave up on it (its own timeout) or the connection closed: stop waiting.
        const abandon = () => resolve(onWire(() => Promise.reject(this.#refusal("roots/list"))));
        const gaveUp = () => {
          this.#gaveUpRoots = true;
          abandon();
        };
        extra.signal.addEventListener("abort", gaveUp, { once: true });
        this.#held.push({
          answer: (handler) => {
            extra.signal.removeEventListener("abort", gaveUp);
            if (!handler) return abandon();
            resolve(onWire(() => handler(req, extra)));
          },
        });
      });
    client.setRequestHandler(ListRootsRequestSchema, hold);
  }

  #refusal(method: string): GatewayError {
    const name = this.upstream.name;
    return new GatewayError(
      "UNSUPPORTED",
      `no client session can answer ${method} from server "${name}": this process was ` +
        "started ahead of need and no session has taken it yet",
      { data: { server: name, method } },
    );
  }
}
