/**
 * What the 2025 revision's stateful requests become on a 2026-07-28 upstream, which has none of
 * them. The gateway keeps speaking them to every upstream (pass-through sends one
 * `logging/setLevel` and one `resources/subscribe` per URI, whatever the era), and here they are
 * carried the way the newer revision offers:
 *
 * - `logging/setLevel` → the level rides every later request's envelope (`logLevel`), and the
 *   server's `notifications/message` come back on that request's own stream;
 * - `resources/subscribe` / `resources/unsubscribe` → the URI set of one `subscriptions/listen`
 *   stream (`resourceSubscriptions`). A listen filter is fixed when the stream opens, so a
 *   change opens a new stream for the new set and closes the old one once the new one is
 *   acknowledged: no update is lost in between (one may arrive twice, which only says "read it
 *   again" twice). A URI the server does not acknowledge is refused to the subscriber.
 */
import {
  type Client as V2Client,
  LOG_LEVEL_META_KEY,
  type McpSubscription,
} from "@modelcontextprotocol/client";
import { messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { UpstreamRpcError } from "../call-errors.ts";
import { RELISTEN_MS } from "./listen.ts";

/** The 2025 methods this room answers in place of the upstream. */
const STATEFUL = new Set(["logging/setLevel", "resources/subscribe", "resources/unsubscribe"]);

/** One modern connection's stand-in for the 2025 stateful requests. */
export class StatefulMethods {
  readonly #server: string;
  readonly #v2: V2Client;
  readonly #log: Logger | undefined;
  #level: string | undefined;
  readonly #uris = new Set<string>();
  #stream: McpSubscription | undefined;
  /** Stream changes run one after another, in the order they were asked for. */
  #queue: Promise<void> = Promise.resolve();
  #retryMs: number = RELISTEN_MS[0];

  constructor(server: string, v2: V2Client, log?: Logger) {
    this.#server = server;
    this.#v2 = v2;
    this.#log = log;
  }

  /** Whether `method` is one this room answers. */
  handles(method: string): boolean {
    return STATEFUL.has(method);
  }

  /** Answers one of {@link handles}'s methods as the 2025 revision would (`{}`). */
  async answer(method: string, params: Record<string, unknown> | undefined): Promise<object> {
    if (method === "logging/setLevel") {
      this.#level = typeof params?.level === "string" ? params.level : undefined;
      return {};
    }
    const uri = String(params?.uri ?? "");
    if (method === "resources/subscribe") {
      if (!this.#uris.has(uri)) await this.#change(() => this.#uris.add(uri), uri);
    } else if (this.#uris.has(uri)) {
      await this.#change(() => this.#uris.delete(uri));
    }
    return {};
  }

  /** `params` with the level set by `logging/setLevel` in its envelope, if one was set. */
  withLevel(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    if (this.#level === undefined) return params;
    const meta = params?._meta as Record<string, unknown> | undefined;
    return { ...params, _meta: { [LOG_LEVEL_META_KEY]: this.#level, ...meta } };
  }

  #change(edit: () => void, added?: string): Promise<void> {
    const run = this.#queue.then(() => this.#reopen(edit, added));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #reopen(edit: () => void, added?: string): Promise<void> {
    edit();
    const previous = this.#stream;
    if (this.#uris.size === 0) {
      this.#stream = undefined;
      await previous?.close();
      return;
    }
    let next: McpSubscription;
    try {
      next = await this.#v2.listen({ resourceSubscriptions: [...this.#uris] });
      if (added !== undefined && !next.honoredFilter.resourceSubscriptions?.includes(added)) {
        await next.close();
        throw new UpstreamRpcError(this.#server, {
          code: -32603,
          message: `server "${this.#server}" did not accept a subscription to ${added}`,
        });
      }
    } catch (err) {
      if (added !== undefined) this.#uris.delete(added);
      throw err;
    }
    this.#stream = next;
    this.#retryMs = RELISTEN_MS[0];
    void next.closed.then((how) => this.#dropped(next, how));
    await previous?.close();
  }

  /** A stream the server ended while still wanted is opened again after a pause. */
  #dropped(stream: McpSubscription, how: string): void {
    if (how !== "remote" || this.#stream !== stream || !this.#v2.transport) return;
    this.#stream = undefined;
    this.#relisten();
  }

  #relisten(): void {
    const delay = this.#retryMs;
    this.#retryMs = Math.min(delay * 2, RELISTEN_MS[1]);
    this.#log?.info("resource subscription stream closed; listening again", { inMs: delay });
    const timer = setTimeout(() => {
      if (!this.#v2.transport || this.#stream || this.#uris.size === 0) return;
      this.#change(() => {}).catch((err) => {
        this.#log?.warn("resource subscription stream failed", { error: messageOf(err) });
        this.#relisten();
      });
    }, delay);
    (timer as { unref?: () => void }).unref?.();
  }
}
