/**
 * An in-memory event store so the gateway's SSE streams are resumable: a client reconnecting
 * with `Last-Event-ID` gets what it missed. Bounded in events and in bytes (each message's UTF-8
 * JSON length, what a replay writes), oldest first out, so neither large tool results nor large
 * notifications can pile up. Log and progress notifications — what a slow reader's stream drops
 * first — have a smaller share per session: a flood of them neither holds the whole bound nor
 * pushes out a request the client still has to answer.
 */
import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Buffer } from "node:buffer";
import { isDroppableMessage } from "../../shared/stream-guard.ts";

/** Bytes the store holds at most by default: the bound on what one resume can replay. */
export const REPLAY_MAX_BYTES = 32 * 1024 * 1024;
/** Bytes of log and progress notifications it holds at most by default. */
export const REPLAY_DROPPABLE_BYTES = 4 * 1024 * 1024;

interface Stored {
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
  /** The session ({@link MemoryEventStore.scoped}) it was stored for, if any. */
  owner?: string;
  /** A log or progress notification: counted in the smaller share too. */
  droppable?: true;
}

/** The store as one session sees it: the SDK's {@link EventStore}, and a store of known size. */
export interface SessionReplay extends EventStore {
  /** Stores `message`, whose UTF-8 JSON length is `bytes`, at once; returns its event id. */
  store(streamId: string, message: JSONRPCMessage, bytes: number): string;
  /** The events of `eventId`'s stream from it on that are still held, oldest first, at once. */
  eventsFrom(eventId: string): Array<[string, JSONRPCMessage]>;
}

/**
 * A bounded {@link EventStore}; event ids are `<streamId>_<seq>`. Sessions share one store (one
 * memory bound) but each sees it through {@link MemoryEventStore.scoped}, so a client resuming
 * with `Last-Event-ID` gets its own session's events only.
 */
export class MemoryEventStore implements EventStore {
  #events = new Map<string, Stored>();
  /** The log and progress notifications among them, by owner (`""`: none), oldest first. */
  #droppable = new Map<string, { bytes: number; events: Map<string, Stored> }>();
  /** Event ids by owner, so a closed session's events leave with it. */
  #owned = new Map<string, Set<string>>();
  #seq = 0;
  #bytes = 0;
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  readonly #maxDroppable: () => number;

  /**
   * `maxDroppable`: each session's share of log and progress notifications, read at each
   * store (the gateway passes its live `limits.streamBuffer`: a client that reconnects gets back
   * as many as its live stream may queue).
   */
  constructor(
    maxEvents = 10_000,
    maxBytes = REPLAY_MAX_BYTES,
    maxDroppable: () => number = () => REPLAY_DROPPABLE_BYTES,
  ) {
    this.#maxEvents = maxEvents;
    this.#maxBytes = maxBytes;
    this.#maxDroppable = maxDroppable;
  }

  /** Bytes held: the UTF-8 JSON length of every stored message (tests, metrics). */
  get bytes(): number {
    return this.#bytes;
  }

  storeEvent(streamId: string, message: JSONRPCMessage, owner?: string): Promise<string> {
    return Promise.resolve(this.store(streamId, message, messageBytes(message), owner));
  }

  /** {@link storeEvent} of a message whose UTF-8 JSON length is known, at once. */
  store(streamId: string, message: JSONRPCMessage, bytes: number, owner?: string): string {
    const id = `${streamId}_${++this.#seq}`;
    const stored: Stored = { streamId, message, bytes };
    if (owner !== undefined) {
      stored.owner = owner;
      const ids = this.#owned.get(owner);
      if (ids) ids.add(id);
      else this.#owned.set(owner, new Set([id]));
    }
    this.#events.set(id, stored);
    this.#bytes += bytes;
    if (isDroppableMessage(message as { method?: unknown; id?: unknown })) {
      stored.droppable = true;
      const key = owner ?? "";
      let own = this.#droppable.get(key);
      if (!own) this.#droppable.set(key, own = { bytes: 0, events: new Map() });
      own.events.set(id, stored);
      own.bytes += bytes;
      const share = this.#maxDroppable();
      while (own.bytes > share) {
        const oldest = own.events.entries().next().value;
        if (!oldest) break;
        this.#drop(oldest[0], oldest[1]);
      }
    }
    while (this.#events.size > this.#maxEvents || this.#bytes > this.#maxBytes) {
      const oldest = this.#events.entries().next().value;
      if (!oldest) break;
      this.#drop(oldest[0], oldest[1]);
    }
    return id;
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
    if (e.droppable) {
      const key = e.owner ?? "";
      const own = this.#droppable.get(key)!;
      own.events.delete(id);
      own.bytes -= e.bytes;
      if (own.events.size === 0) this.#droppable.delete(key);
    }
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
  scoped(owner: string): SessionReplay {
    const prefix = `${owner}/`;
    const own = (streamId: string | undefined) =>
      streamId?.startsWith(prefix) ? streamId.slice(prefix.length) : undefined;
    return {
      storeEvent: (streamId, message) => this.storeEvent(prefix + streamId, message, owner),
      store: (streamId, message, bytes) => this.store(prefix + streamId, message, bytes, owner),
      eventsFrom: (eventId) => eventId.startsWith(prefix) ? this.eventsFrom(eventId) : [],
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
    for (const [id, message] of this.#after(streamId, seqOf(lastEventId) + 1)) {
      await send(id, message);
    }
    return streamId;
  }

  /** The events of `eventId`'s stream from it on that are still held, oldest first. */
  eventsFrom(eventId: string): Array<[string, JSONRPCMessage]> {
    const streamId = streamOf(eventId);
    return streamId ? [...this.#after(streamId, seqOf(eventId))] : [];
  }

  /**
   * The events of `streamId` numbered `first` or later, oldest first. By sequence number, not by
   * finding an event: the one a client saw last may have been let go since (a log message past
   * its share), and what came after it is still owed. Lazy, so a replay that waits on its client
   * also sends what is stored meanwhile.
   */
  *#after(streamId: string, first: number): Generator<[string, JSONRPCMessage]> {
    for (const [id, e] of this.#events) {
      if (e.streamId === streamId && seqOf(id) >= first) yield [id, e.message];
    }
  }
}

/**
 * The bytes `message` takes as JSON text in UTF-8: what a replay sends. An estimate from result
 * content alone counted every notification as a few hundred bytes whatever its size, so large
 * log messages filled a replay far past the bound.
 */
export function messageBytes(message: JSONRPCMessage): number {
  return textBytes(JSON.stringify(message));
}

/** The UTF-8 length of `text`. */
export function textBytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The sequence number an event id ends with (NaN for an id this store did not make). */
function seqOf(eventId: string): number {
  const tail = eventId.slice(eventId.lastIndexOf("_") + 1);
  return /^\d+$/.test(tail) ? Number(tail) : NaN;
}

function streamOf(eventId: string): string | undefined {
  const i = eventId.lastIndexOf("_");
  return i > 0 ? eventId.slice(0, i) : undefined;
}
