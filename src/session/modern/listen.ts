/**
 * `notifications/resources/updated` on 2026-07-28 `subscriptions/listen` streams. The SDK's
 * listen router acknowledges a stream, filters and stamps what it publishes, but the resources
 * live upstream: so the door reads which URIs a stream asks for, holds one hub subscription per
 * URI for as long as any open stream wants it (the hub in turn holds one upstream subscription
 * per URI, shared with 2025 sessions), and publishes each upstream update once — the router
 * fans it out to the streams that asked for that URI.
 */
import { type Gateway, LOCAL_CALLER } from "../../gateway/mod.ts";
import { resourceTarget } from "../../gateway/operations.ts";
import type { ResourceSubscriber } from "../../gateway/passthrough/mod.ts";
import { messageOf } from "../../shared/errors.ts";

/** True when `request` (with its parsed `body`) is a `subscriptions/listen` request. */
export function isListen(request: Request, body: unknown): boolean {
  return request.method === "POST" &&
    request.headers.get("mcp-method") === "subscriptions/listen" &&
    (body as { method?: unknown } | undefined)?.method === "subscriptions/listen";
}

/** The resource URIs a `subscriptions/listen` request (with its parsed `body`) asks for, or none. */
export function listenedUris(request: Request, body: unknown): string[] {
  if (!isListen(request, body)) return [];
  const listen = body as { params?: { notifications?: { resourceSubscriptions?: unknown } } };
  const uris = listen.params?.notifications?.resourceSubscriptions;
  return Array.isArray(uris) ? [...new Set(uris.filter((u) => typeof u === "string"))] : [];
}

/** The listen streams of one door, as one subscriber of the hub. */
export class ListenFeed implements ResourceSubscriber {
  readonly era = "modern";
  readonly subscriptions = new Map<string, string>();
  #gateway: Gateway;
  #publish: (uri: string) => void;
  /** Exposed URI → open streams that asked for it. */
  #streams = new Map<string, number>();

  constructor(gateway: Gateway, publish: (uri: string) => void) {
    this.#gateway = gateway;
    this.#publish = publish;
  }

  resourceUpdated(params: { uri: string }): void {
    this.#publish(params.uri);
  }

  /** Subscribes for one stream; returns what ends its share (idempotent). */
  async open(uris: readonly string[]): Promise<() => void> {
    await Promise.all(uris.map(async (uri) => {
      const n = this.#streams.get(uri) ?? 0;
      this.#streams.set(uri, n + 1);
      if (n > 0) return;
      try {
        // The door admits only URIs the stream's token reaches (`front.ts`).
        const target = resourceTarget(this.#gateway, uri, LOCAL_CALLER);
        await this.#gateway.passthrough.subscribe(this, target, uri);
      } catch (err) {
        // The stream is acknowledged anyway; it just never hears about a URI nobody serves.
        this.#gateway.log.debug("listen: resource not subscribed", { uri, error: messageOf(err) });
      }
    }));
    let done = false;
    return () => {
      if (done) return;
      done = true;
      for (const uri of uris) this.#leave(uri);
    };
  }

  #leave(uri: string): void {
    const n = (this.#streams.get(uri) ?? 1) - 1;
    if (n > 0) {
      this.#streams.set(uri, n);
      return;
    }
    this.#streams.delete(uri);
    for (const [key, exposed] of this.subscriptions) {
      if (exposed === uri) void this.#gateway.passthrough.leave(this, key).catch(() => {});
    }
  }
}
