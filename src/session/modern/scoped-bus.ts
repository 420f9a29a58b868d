/**
 * The change-event bus of the 2026-07-28 door's `subscriptions/listen` streams, per token. The
 * SDK's listen router gives every open stream each event published; a stream is the listening
 * client's view, so a list change is delivered only to the streams whose token is shown a
 * different list than before (as 2025 sessions are, `gateway/visible-changes.ts`). A stream's
 * owner is the request that opened it: the door serves each request inside {@link ScopedBus.as},
 * and the router subscribes while serving the listen request.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";
import { type Gateway, visibleChanges } from "../../gateway/mod.ts";
import type { Caller } from "../../gateway/types.ts";

type Listener = (event: ServerEvent) => void;

/** A bus delivering list changes to each stream only when its caller's view changed. */
export class ScopedBus implements ServerEventBus {
  readonly #gateway: Gateway;
  readonly #owner = new AsyncLocalStorage<Caller>();
  readonly #listeners = new Set<Listener>();
  readonly #onerror: (err: unknown) => void;

  constructor(gateway: Gateway, onerror: (err: unknown) => void) {
    this.#gateway = gateway;
    this.#onerror = onerror;
  }

  /** Runs `serve` (one request) as `caller`: a stream it opens belongs to that caller. */
  as<T>(caller: Caller, serve: () => T): T {
    return this.#owner.run(caller, serve);
  }

  subscribe(listener: Listener): () => void {
    const caller = this.#owner.getStore();
    const deliver = caller ? this.#scoped(caller, listener) : listener;
    this.#listeners.add(deliver);
    return () => void this.#listeners.delete(deliver);
  }

  publish(event: ServerEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (err) {
        this.#onerror(err);
      }
    }
  }

  /** `listener` told of a list change only when what `caller` is shown of it changed. */
  #scoped(caller: Caller, listener: Listener): Listener {
    let current: ServerEvent | undefined;
    const pass = () => current && listener(current);
    const changes = visibleChanges(this.#gateway, () => caller, {
      toolsChanged: pass,
      promptsChanged: pass,
      resourcesChanged: pass,
    });
    return (event) => {
      current = event;
      if (event.kind === "tools_list_changed") changes.toolsChanged();
      else if (event.kind === "prompts_list_changed") changes.promptsChanged();
      else if (event.kind === "resources_list_changed") changes.resourcesChanged();
      else listener(event); // resource updates: the feed already scopes them per stream
    };
  }
}
