/**
 * An in-memory event store so the gateway's SSE streams are resumable: a client reconnecting
 * with `Last-Event-ID` gets what it missed. Bounded in events and in bytes (each message's UTF-8
 * JSON length, what a replay writes), oldest first out, so neither large tool results nor large
 * notifications can pile up. Log and progress notifications — what a slow reader's stream drops
 * first — have a smaller share per session: a flood of them neither holds the whole bound nor
 * pushes out a request the client still has to answer. That share is held as text in one buffer
 * per session (`./text-ring.ts`), read back into messages only by a replay: a flood passes through
 * it without leaving an object per message for the collector to free late.
 */
import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Buffer } from "node:buffer";
import { isDroppableMessage } from "../../shared/stream-guard.ts";
import { type RingSlot, TextRing } from "./text-ring.ts";

/** Bytes the store holds at most by default: the bound on what one resume can replay. */
export const REPLAY_MAX_BYTES = 32 * 1024 * 1024;
/** Bytes of log and progress notifications it holds at most by default. */
export const REPLAY_DROPPABLE_BYTES = 4 * 1024 * 1024;

interface Stored {
  streamId: string;
  /** The message; a log or progress notification is held as text in its share's ring instead. */
  message?: JSONRPCMessage;
  bytes: number;
  /** The session ({@link MemoryEventStore.scoped}) it was stored for, if any. */
  owner?: string;
  /** A log or progress notification: counted in the smaller share, its text in the ring. */
  slot?: RingSlot;
}

/** One owner's share of log and progress notifications: oldest first, their texts in `ring`. */
interface Share {
  bytes: number;
  readonly events: Map<string, Stored>;
  readonly ring: TextRing;
}

/** An event as its stream writes it again: its id, its JSON text, whether a guard may drop it. */
export interface HeldEvent {
  readonly id: string;
  readonly text: string;
  /** A log or progress notification (what a slow reader's stream drops first). */
  readonly droppable: boolean;
}

/** The store as one session sees it: the SDK's {@link EventStore}, and a store of known size. */
export interface SessionReplay extends EventStore {
  /** Stores `message`, serialised as `text`, at once; returns its event id. */
  store(streamId: string, message: JSONRPCMessage, text: string): string;
  /** The events of `eventId`'s stream from it on that are still held, oldest first, at once. */
  eventsFrom(eventId: string): HeldEvent[];
}

/**
 * A bounded {@link EventStore}; event ids are `<streamId>_<seq>`. Sessions share one store (one
 * memory bound) but each sees it through {@link MemoryEventStore.scoped}, so a client resuming
 * with `Last-Event-ID` gets its own session's events only.
 */
export class MemoryEventStore implements EventStore {
  #events = new Map<string, Stored>();
  /** The log and progress notifications among them, by owner (`""`: none), oldest first. */
  #droppable = new Map<string, Share>();
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
    return Promise.resolve(this.store(streamId, message, JSON.stringify(message), owner));
  }

  /** {@link storeEvent} of a message already serialised as `text`, at once. */
  store(streamId: string, message: JSONRPCMessage, text: string, owner?: string): string {
    const id = `${streamId}_${++this.#seq}`;
    const bytes = textBytes(text);
    const stored: Stored = { streamId, bytes };
    if (isDroppableMessage(message as { method?: unknown; id?: unknown })) {
      const slot = this.#share(owner ?? "", text, bytes);
      // Larger than the whole share: let go at once, as if stored and pushed out.
      if (!slot) return id;
      stored.slot = slot;
      this.#droppable.get(owner ?? "")!.events.set(id, stored);
    } else {
      stored.message = message;
    }
    if (owner !== undefined) {
      stored.owner = owner;
      const ids = this.#owned.get(owner);
      if (ids) ids.add(id);
      else this.#owned.set(owner, new Set([id]));
    }
    this.#events.set(id, stored);
    this.#bytes += bytes;
    while (this.#events.size > this.#maxEvents || this.#bytes > this.#maxBytes) {
      const oldest = this.#events.entries().next().value;
      if (!oldest) break;
      this.#drop(oldest[0], oldest[1]);
    }
    return id;
  }

  /**
   * Room for a log or progress notification of `key`'s share: its oldest let go until `bytes`
   * more fit the share and its ring; where the text now lies, or `undefined` when it is larger
   * than the share.
   */
  #share(key: string, text: string, bytes: number): RingSlot | undefined {
    const limit = this.#maxDroppable();
    if (bytes > limit) return undefined;
    for (;;) {
      let own = this.#droppable.get(key);
      if (!own) {
        this.#droppable.set(key, own = { bytes: 0, events: new Map(), ring: new TextRing() });
      }
      const slot = own.bytes + bytes <= limit ? own.ring.put(text, bytes, limit) : undefined;
      if (slot) {
        own.bytes += bytes;
        return slot;
      }
      // A share with nothing held always takes a text within the limit: its ring is new.
      const oldest = own.events.entries().next().value;
      if (!oldest) return undefined;
      this.#drop(oldest[0], oldest[1]);
    }
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
    if (e.slot) {
      const key = e.owner ?? "";
      const own = this.#droppable.get(key)!;
      own.events.delete(id);
      own.bytes -= e.bytes;
      // Held oldest first and let go oldest first: this event's text is the ring's oldest.
      own.ring.shift();
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
      store: (streamId, message, text) => this.store(prefix + streamId, message, text, owner),
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
    for (const [id, e] of this.#after(streamId, seqOf(lastEventId) + 1)) {
      await send(id, e.message ?? JSON.parse(this.#text(e)) as JSONRPCMessage);
    }
    return streamId;
  }

  /**
   * The events of `eventId`'s stream from it on that are still held, oldest first, each as the
   * text it was stored as: a log message held in its share's ring is written again from there,
   * not parsed and serialised anew.
   */
  eventsFrom(eventId: string): HeldEvent[] {
    const streamId = streamOf(eventId);
    if (!streamId) return [];
    const held: HeldEvent[] = [];
    for (const [id, e] of this.#after(streamId, seqOf(eventId))) {
      held.push({ id, text: this.#text(e), droppable: e.slot !== undefined });
    }
    return held;
  }

  /** The JSON text of `e`: from its share's ring if it is held there. */
  #text(e: Stored): string {
    if (e.message) return JSON.stringify(e.message);
    return this.#droppable.get(e.owner ?? "")!.ring.text(e.slot!);
  }

  /**
   * The events of `streamId` numbered `first` or later, oldest first. By sequence number, not by
   * finding an event: the one a client saw last may have been let go since (a log message past
   * its share), and what came after it is still owed. Lazy, so a replay that waits on its client
   * also sends what is stored meanwhile.
   */
  *#after(streamId: string, first: number): Generator<[string, Stored]> {
    for (const [id, e] of this.#events) {
      if (e.streamId === streamId && seqOf(id) >= first) yield [id, e];
    }
  }
}

/**
 * The UTF-8 length of `text`, a message's JSON: what a replay sends. An estimate from result
 * content alone counted every notification as a few hundred bytes whatever its size, so large
 * log messages filled a replay far past the bound.
 */
function textBytes(text: string): number {
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
