/**
 * An in-memory event store so the gateway's SSE streams are resumable: a client reconnecting
 * with `Last-Event-ID` gets what it missed. Bounded per stream and in total; oldest first out.
 */
import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

interface Stored {
  streamId: string;
  message: JSONRPCMessage;
}

/** A bounded {@link EventStore}; event ids are `<streamId>_<seq>`. */
export class MemoryEventStore implements EventStore {
  #events = new Map<string, Stored>();
  #seq = 0;
  readonly #max: number;

  constructor(maxEvents = 10_000) {
    this.#max = maxEvents;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.#seq}`;
    this.#events.set(id, { streamId, message });
    if (this.#events.size > this.#max) {
      const oldest = this.#events.keys().next().value;
      if (oldest !== undefined) this.#events.delete(oldest);
    }
    return Promise.resolve(id);
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

function streamOf(eventId: string): string | undefined {
  const i = eventId.lastIndexOf("_");
  return i > 0 ? eventId.slice(0, i) : undefined;
}
