/**
 * A 2025 session's standalone event stream (`GET /mcp`), written by the gateway itself. The SDK's
 * transport can write it only while the session holds its whole SDK server, and a client that
 * keeps its stream open — most do — would keep that server for the session's life. What goes on
 * the stream needs none of it: notifications of the session (list changes, resource updates, log
 * messages, task status) and requests to its client related to no request of its own; the
 * client's answers to those reach the server built to ask them (`./streamable-session.ts`).
 * It is laid out as the SDK's transport writes it, so clients see no difference: the same
 * headers, one event per message with an id from the session's replay store, the same keep-alive
 * comments, the same refusals (406, 400, 409) and the same resume with `Last-Event-ID` — what was
 * sent while no stream was open is replayed, and only this session's events are.
 */
import {
  armSseKeepAlive,
  DEFAULT_SSE_KEEP_ALIVE_MS,
} from "@modelcontextprotocol/sdk/server/sseKeepAlive.js";
import {
  type JSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { SessionReplay } from "./event-store.ts";
import {
  isDroppableMessage,
  markDroppable,
  type StreamPressure,
  streamPressure,
} from "../../shared/stream-guard.ts";
import { jsonError } from "./sse.ts";

/** The stream id the SDK's transport gives every session's GET stream; events keep it. */
export const GET_STREAM_ID = "_GET_stream";

/** One open GET stream. */
interface Open {
  readonly controller: ReadableStreamDefaultController<Uint8Array>;
  timer?: ReturnType<typeof setInterval> | undefined;
  /** The events a resume replayed: a message stored while it replayed is not written twice. */
  readonly replayed?: ReadonlySet<string>;
  /** What the stream's guard says of its client (see `GetStream.pressure`). */
  readonly pressure: StreamPressure;
  /**
   * The first log or progress notification left unwritten because the guard was full, if any
   * is: it and those stored after it are written when the client reads again, or before the
   * next message that must not be dropped.
   */
  behindFrom?: string | undefined;
}

/** See the module comment. One per session, made when its client first opens the stream. */
export class GetStream {
  readonly #store: SessionReplay;
  readonly #sessionId: string;
  #open: Open | undefined;
  #closed = false;

  /** `store`: the replay store as the session sees it (`MemoryEventStore.scoped`). */
  constructor(store: SessionReplay, sessionId: string) {
    this.#store = store;
    this.#sessionId = sessionId;
  }

  /** Whether the client has the stream open now. */
  get isOpen(): boolean {
    return this.#open !== undefined;
  }

  /**
   * Answers a GET on the session (its id and token already checked): the stream, or the SDK's
   * refusal. `undefined` when `Last-Event-ID` names an event of a POST answer's stream, which
   * the SDK's transport holds: resuming it is the transport's.
   */
  async open(req: Request): Promise<Response | undefined> {
    if (!req.headers.get("accept")?.includes("text/event-stream")) {
      return jsonError(406, -32000, "Not Acceptable: Client must accept text/event-stream");
    }
    const version = req.headers.get("mcp-protocol-version");
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return jsonError(
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${
          SUPPORTED_PROTOCOL_VERSIONS.join(", ")
        })`,
      );
    }
    if (this.#closed) return jsonError(404, -32001, "Session not found");
    const lastEventId = req.headers.get("last-event-id");
    if (!lastEventId) {
      if (this.#open) {
        return jsonError(409, -32000, "Conflict: Only one SSE stream is allowed per session");
      }
      return this.#respond(this.#start());
    }
    const streamId = await this.#store.getStreamIdForEventId?.(lastEventId);
    if (!streamId) return jsonError(400, -32000, "Invalid event ID format");
    if (streamId !== GET_STREAM_ID) return undefined;
    if (this.#open) {
      return jsonError(409, -32000, "Conflict: Stream already has an active connection");
    }
    return await this.#resume(lastEventId);
  }

  /**
   * The pressure line of the stream `open` answered last, for its guard: while the guard drops
   * for a client that stopped reading, log and progress notifications are stored for a resume
   * but not made into events the guard would drop again.
   */
  get pressure(): StreamPressure | undefined {
    return this.#open?.pressure;
  }

  /**
   * Sends `message` (a request or notification related to no request): stored for a resume,
   * and written when the stream is open.
   */
  send(message: JSONRPCMessage): void {
    if (this.#closed) return;
    const open = this.#open;
    const droppable = droppableMessage(message);
    const skip = droppable && open?.pressure.full === true;
    // What was left unwritten goes first: the client sees its events in order.
    if (open?.behindFrom !== undefined && !skip) this.#catchUp(open);
    // Serialised once: the store counts these bytes and the stream writes them.
    const text = JSON.stringify(message);
    const id = this.#store.store(GET_STREAM_ID, message, text);
    if (!open || open.replayed?.has(id)) return;
    if (skip) {
      open.behindFrom ??= id;
      open.pressure.skipped(text.length);
      return;
    }
    write(open.controller, text, id, droppable);
  }

  /** The session ended: the stream is closed and no more is stored. */
  close(): void {
    this.#closed = true;
    const open = this.#open;
    if (open) this.#end(open);
  }

  /**
   * Writes what `open` left unwritten while its guard was full: the newest of it, as the store
   * kept (its share of log and progress notifications is the stream's bound).
   */
  #catchUp(open: Open): void {
    const from = open.behindFrom;
    if (from === undefined) return;
    open.behindFrom = undefined;
    for (const { id, text, droppable } of this.#store.eventsFrom(from)) {
      if (!open.replayed?.has(id)) write(open.controller, text, id, droppable);
    }
  }

  /** Resumes after `lastEventId`: what the client missed, then the live stream. */
  async #resume(lastEventId: string): Promise<Response> {
    const replayed = new Set<string>();
    let cancelled = false;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      cancel: () => {
        cancelled = true;
        if (this.#open?.controller === controller) this.#end(this.#open);
      },
    });
    try {
      await this.#store.replayEventsAfter(lastEventId, {
        send: (id, message) => {
          write(
            controller,
            JSON.stringify(message),
            id,
            droppableMessage(message),
          );
          replayed.add(id);
          return Promise.resolve();
        },
      });
    } catch {
      return jsonError(500, -32000, "Error replaying events");
    }
    // The session ended or the client went away while the store replayed.
    if (this.#closed || cancelled) {
      closeQuietly(controller);
      return jsonError(404, -32001, "Session not found");
    }
    // A resume that raced another one: the later stream replaces the earlier.
    if (this.#open) this.#end(this.#open);
    const open: Open = { controller, replayed, pressure: streamPressure() };
    this.#keepAlive(open);
    return this.#respond(body);
  }

  /** Opens a fresh stream. */
  #start(): ReadableStream<Uint8Array> {
    let open!: Open;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => void (open = { controller, pressure: streamPressure() }),
      cancel: () => {
        if (this.#open === open) this.#end(open);
      },
    });
    this.#keepAlive(open);
    return body;
  }

  /** Makes `open` the session's stream, with the SDK's keep-alive comments. */
  #keepAlive(open: Open): void {
    this.#open = open;
    open.pressure.onDrain = () => {
      if (this.#open === open) this.#catchUp(open);
    };
    const timer = armSseKeepAlive(DEFAULT_SSE_KEEP_ALIVE_MS, () => {
      try {
        open.controller.enqueue(KEEP_ALIVE);
      } catch {
        clearInterval(timer);
      }
    });
    open.timer = timer;
  }

  #end(open: Open): void {
    clearInterval(open.timer);
    if (this.#open === open) this.#open = undefined;
    closeQuietly(open.controller);
  }

  #respond(body: ReadableStream<Uint8Array>): Response {
    return new Response(body, {
      headers: { ...SSE_HEADERS, "mcp-session-id": this.#sessionId },
    });
  }
}

/**
 * Writes a message, serialised as `text`, as one SSE event (the stream guard drops events
 * whole, and is told which ones it may: `droppable`, a log or progress notification).
 */
function write(
  controller: ReadableStreamDefaultController<Uint8Array>,
  text: string,
  id: string,
  droppable: boolean,
): void {
  try {
    const event = ENCODER.encode(`event: message\nid: ${id}\ndata: ${text}\n\n`);
    controller.enqueue(droppable ? markDroppable(event) : event);
  } catch { /* the client went away: the stream's cancel lets it go */ }
}

/** True for a log or progress notification: what the stream guard may drop. */
function droppableMessage(message: JSONRPCMessage): boolean {
  return isDroppableMessage(message as { method?: unknown; id?: unknown });
}

function closeQuietly(controller: ReadableStreamDefaultController<Uint8Array>): void {
  try {
    controller.close();
  } catch { /* already closed or cancelled */ }
}

const ENCODER = new TextEncoder();
const KEEP_ALIVE = ENCODER.encode(": keepalive\n\n");
/** The SDK transport's headers for a GET stream. */
const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;
