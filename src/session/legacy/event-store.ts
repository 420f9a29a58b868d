/**
 * An in-memory event store so the gateway's SSE streams are resumable: a client reconnecting
 * with `Last-Event-ID` gets what it missed. Bounded in events and in bytes (each message's UTF-8
 * JSON length, what a replay writes), oldest first out, so neither large tool results nor large
 * notifications can pile up.
 */
import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Buffer } from "node:buffer";

/** Bytes the store holds at most by default: the bound on what one resume can replay. */
export const REPLAY_MAX_BYTES = 32 * 1024 * 1024;

interface Stored {
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
  /** The session ({@link MemoryEventStore.scoped}) it was stored for, if any. */
  owner?: string;
}

/**
 * A bounded {@link EventStore}; event ids are `<streamId>_<seq>`. Sessions share one store (one
 * memory bound) but each sees it through {@link MemoryEventStore.scoped}, so a client resuming
 * with `Last-Event-ID` gets its own session's events only.
 */
export class MemoryEventStore implements EventStore {
  #events = new Map<string, Stored>();
  /** Event ids by owner, so a closed session's events leave with it. */
  #owned = new Map<string, Set<string>>();
  #seq = 0;
  #bytes = 0;
  readonly #maxEvents: number;
  readonly #maxBytes: number;

  constructor(maxEvents = 10_000, maxBytes = REPLAY_MAX_BYTES) {
    this.#maxEvents = maxEvents;
    this.#maxBytes = maxBytes;
  }

  /** Bytes held: the UTF-8 JSON length of every stored message (tests, metrics). */
  get bytes(): number {
    return this.#bytes;
  }

  storeEvent(streamId: string, message: JSONRPCMessage, owner?: string): Promise<string> {
    const id = `${streamId}_${++this.#seq}`;
    const bytes = messageBytes(message);
    this.#events.set(
      id,
      owner === undefined ? { streamId, message, bytes } : { streamId, message, bytes, owner },
    );
    this.#bytes += bytes;
    if (owner !== undefined) {
      const ids = this.#owned.get(owner);
      if (ids) ids.add(id);
      else this.#owned.set(owner, new Set([id]));
    }
    while (this.#events.size > this.#maxEvents || this.#bytes > this.#maxBytes) {
      const oldest = this.#events.entries().next().value;
      if (!oldest) break;
      this.#drop(oldest[0], oldest[1]);
    }
    return Promise.resolve(id);
  }

  /** Drops every event stored for `owner` (its session closed: nobody can resume them). */
  forget(owner: string): void {
    const ids = this.#owned.get(owner);
    if (!ids) return;
    for (const id of ids) {
      const e = this.#events.get(id);
      if (e) this.#drop(id, e);
    }
    this.#owned.delete(owner);
  }

  #drop(id: string, e: Stored): void {
    this.#events.delete(id);
    this.#bytes -= e.bytes;
    if (e.owner === undefined) return;
    const ids = this.#owned.get(e.owner);
    ids?.delete(id);
    if (ids?.size === 0) this.#owned.delete(e.owner);
  }

  /**
   * This store as one session sees it: stream ids are stored under `owner` (an unguessable id
   * per session), and an event id of another owner is unknown — the SDK answers `400` to it
   * instead of replaying. The SDK gives every session's GET stream the same stream id, which is
   * why the owner must be part of what is stored.
   */
  scoped(owner: string): EventStore {
    const prefix = `${owner}/`;
    const own = (streamId: string | undefined) =>
      streamId?.startsWith(prefix) ? streamId.slice(prefix.length) : undefined;
    return {
      storeEvent: (streamId, message) => this.storeEvent(prefix + streamId, message, owner),
      getStreamIdForEventId: async (eventId) =>
        eventId.startsWith(prefix) ? own(await this.getStreamIdForEventId(eventId)) : undefined,
      replayEventsAfter: async (lastEventId, io) => {
        const streamId = lastEventId.startsWith(prefix)
          ? own(await this.replayEventsAfter(lastEventId, io))
          : undefined;
        if (streamId === undefined) throw new Error("unknown event id");
        return streamId;
      },
    };
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.#events.get(eventId)?.streamId ?? streamOf(eventId));
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = this.#events.get(lastEventId)?.streamId ?? streamOf(lastEventId);
    if (!streamId) return "";
    let after = false;
    for (const [id, e] of this.#events) {
      if (id === lastEventId) {
        after = true;
        continue;
      }
      if (after && e.streamId === streamId) await send(id, e.message);
    }
    return streamId;
  }
}

/**
 * The bytes `message` takes as JSON text in UTF-8: what a replay sends. An estimate from result
 * content alone counted every notification as a few hundred bytes whatever its size, so large
 * log messages filled a replay far past the bound.
 */
export function messageBytes(message: JSONRPCMessage): number {
  return Buffer.byteLength(JSON.stringify(message), "utf8");
}

function streamOf(eventId: string): string | undefined {
  const i = eventId.lastIndexOf("_");
  return i > 0 ? eventId.slice(0, i) : undefined;
}
