/**
 * A long-lived event stream to one client (a 2025 `GET /mcp` or `GET /sse` stream, a 2026-07-28
 * `subscriptions/listen` stream), guarded on the gateway's side:
 * - **bounded**: what the producer (the SDK's transport) writes is taken at once into a queue of
 *   at most `maxBytes`, handed on only as fast as the client reads. A client that stops reading
 *   while an upstream floods log messages made the SDK's own unbounded queue hold everything;
 *   here, past the bound, the oldest droppable events (progress and log notifications,
 *   keep-alive comments) are dropped, and when nothing droppable is left the stream is closed.
 * - **expiring**: the stream ends when the access token that opened it expires, so a token's
 *   stream never outlives the token.
 *
 * The producer writes one SSE event per chunk (both SDKs do), which is what lets an event be
 * dropped whole.
 */

/**
 * Why a guard stepped in: events dropped for a slow reader, the stream closed because nothing
 * droppable was left (`bytes` queued then), or closed because its token expired.
 */
export type StreamGuardEvent =
  | { kind: "dropped"; events: number; bytes: number }
  | { kind: "closed"; bytes: number }
  | { kind: "expired" };

/** Which kind of stream a guard event happened on: `GET /mcp`, `GET /sse`, or listen. */
export type StreamKind = "get" | "sse" | "listen";

/** What the front doors publish and `ops` counts. */
export type StreamObserver = (event: StreamGuardEvent & { stream: StreamKind }) => void;

/** Bytes queued by every guard that shares it, for a gauge; guards add and take back theirs. */
export interface StreamLedger {
  queued: number;
}

/** Options of {@link guardStream}. */
export interface StreamGuardOptions {
  /** Most bytes queued for a client that does not read (at least one event is always held). */
  maxBytes: number;
  /** Epoch milliseconds at which the stream is closed (the opening token's expiry), if any. */
  expiresAt?: number | undefined;
  /** Called once when the stream ends, however it ends. */
  onEnd?: () => void;
  /** Told each time the guard drops events or closes the stream. */
  observe?: (event: StreamGuardEvent) => void;
  /** Where the bytes this guard holds are also counted. */
  ledger?: StreamLedger;
  /** The producer's line back from the guard (see {@link StreamPressure}). */
  pressure?: StreamPressure;
}

/**
 * What a producer that makes its own events may ask its guard before making one: a client that
 * stopped reading under a flood of log messages would have each new one serialised, encoded and
 * queued only for an older one to be dropped for it. While `full`, the producer may leave a
 * droppable event unmade and tell the guard (`skipped`), and make what it left (the newest of it)
 * when `onDrain` says the client has read again.
 */
export interface StreamPressure {
  /**
   * Set by the guard: true from the time it dropped events for a slow reader until that reader
   * has read half of the bound.
   */
  full: boolean;
  /**
   * Set by the guard: counts a droppable event of about `bytes` its producer left unmade as
   * dropped (when it is made later after all, for a client that read again, it was counted).
   */
  skipped: (bytes: number) => void;
  /** Set by the producer: called when `full` turns false while the stream is open. */
  onDrain: () => void;
}

/** A {@link StreamPressure} for a producer to hand its guard: not full, nothing to do. */
export function streamPressure(): StreamPressure {
  return { full: false, skipped: () => {}, onDrain: () => {} };
}

/** What a front door reports about the streams it guards: what guards did, and bytes queued. */
export interface StreamReport {
  readonly observe: StreamObserver;
  readonly ledger: StreamLedger;
}

/**
 * The guard options of a `stream` opened by a token expiring at `expiresAt` (if it does), under
 * the bound `maxBytes`, reported to `report`: what every front door passes to {@link guardStream}.
 */
export function guardOptions(
  stream: StreamKind,
  maxBytes: number,
  expiresAt: number | undefined,
  report: StreamReport | undefined,
): Omit<StreamGuardOptions, "onEnd"> {
  return {
    maxBytes,
    expiresAt,
    ...(report
      ? { observe: (event) => report.observe({ ...event, stream }), ledger: report.ledger }
      : {}),
  };
}

/** Notifications a client can lose without losing state: they only report on work. */
const DROPPABLE_METHODS: ReadonlySet<string> = new Set([
  "notifications/message",
  "notifications/progress",
]);

/** True when `message` is a notification a client can lose (a progress or log notification). */
export function isDroppableMessage(message: { method?: unknown; id?: unknown } | null): boolean {
  return typeof message?.method === "string" && DROPPABLE_METHODS.has(message.method) &&
    message.id === undefined;
}

/**
 * The bytes of an event its producer knows to be droppable (it wrote a progress or log
 * notification): the guard takes its word instead of decoding and parsing the event again.
 */
class DroppableChunk extends Uint8Array {}

/** `event`, marked as droppable for the guard (a view of the same bytes, not a copy). */
export function markDroppable(event: Uint8Array<ArrayBuffer>): Uint8Array {
  return new DroppableChunk(event.buffer, event.byteOffset, event.byteLength);
}

/** Longest delay `setTimeout` takes (about 24.8 days); longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Queued {
  readonly chunk: Uint8Array;
  droppable?: boolean;
}

const decoder = new TextDecoder();

/**
 * The first bytes of every guarded stream, an SSE comment every client skips: Bun sends a
 * streaming response's head only with its first chunk, so without it a client's `fetch` waited
 * for the first event or keep-alive (seconds) to learn the stream was open.
 */
const OPENING = new TextEncoder().encode(": stream open\n\n");

/**
 * True when an SSE event may be dropped: a comment (keep-alive), or a progress or log
 * notification. Decided from the parsed `data` line, never from text matched inside it.
 */
export function isDroppableEvent(chunk: Uint8Array): boolean {
  const text = decoder.decode(chunk);
  if (text.startsWith(":")) return true;
  // Cheap refusal first: most events are not notifications of these kinds at all.
  if (!text.includes("notifications/message") && !text.includes("notifications/progress")) {
    return false;
  }
  const data = text.split("\n").filter((l) => l.startsWith("data:")).map((l) =>
    l.slice(5).trimStart()
  ).join("\n");
  try {
    return isDroppableMessage(JSON.parse(data) as { method?: unknown; id?: unknown } | null);
  } catch {
    return false;
  }
}

/** `response` with its body guarded as the module comment says; other fields as they were. */
export function guardStream(response: Response, options: StreamGuardOptions): Response {
  const inner = response.body;
  if (!inner) {
    options.onEnd?.();
    return response;
  }
  const reader = inner.getReader();
  const queue: Queued[] = [];
  let head = 0;
  let bytes = 0;
  let innerDone = false;
  let finished = false;
  let out!: ReadableStreamDefaultController<Uint8Array>;
  let wake: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const ledger = options.ledger;
  const pressure = options.pressure;
  if (pressure) {
    pressure.skipped = (skipped) => {
      if (!finished) options.observe?.({ kind: "dropped", events: 1, bytes: skipped });
    };
  }
  const account = (delta: number) => {
    bytes += delta;
    if (ledger) ledger.queued += delta;
  };
  const finish = () => {
    if (finished) return;
    finished = true;
    if (pressure) pressure.full = false;
    clearTimeout(timer);
    account(-bytes);
    queue.length = head = 0;
    wake?.();
    options.onEnd?.();
  };
  /** Ends the stream from the gateway's side: the producer is cancelled, the client told. */
  const stop = (reason: string) => {
    if (finished) return;
    finish();
    void reader.cancel(reason).catch(() => {});
    try {
      out.close();
    } catch { /* the client went away first */ }
  };
  const compact = () => {
    if (head > 64 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
  };
  /** Drops the oldest droppable events until the queue fits; false when it cannot. */
  const shed = (): boolean => {
    let events = 0;
    const before = bytes;
    for (let i = head; i < queue.length && bytes > options.maxBytes; i++) {
      const q = queue[i]!;
      q.droppable ??= q.chunk instanceof DroppableChunk || isDroppableEvent(q.chunk);
      if (!q.droppable) continue;
      account(-q.chunk.byteLength);
      queue.splice(i, 1);
      i--;
      events++;
    }
    if (events > 0) {
      if (pressure) pressure.full = true;
      options.observe?.({ kind: "dropped", events, bytes: before - bytes });
    }
    return bytes <= options.maxBytes;
  };
  const take = (chunk: Uint8Array) => {
    queue.push({ chunk });
    account(chunk.byteLength);
    if (bytes > options.maxBytes && queue.length - head > 1 && !shed()) {
      const held = bytes;
      stop("the client reads too slowly");
      options.observe?.({ kind: "closed", bytes: held });
      return;
    }
    wake?.();
  };
  const pump = async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (finished) return;
        if (done) break;
        take(value);
      }
    } catch (err) {
      if (finished) return;
      finish();
      out.error(err);
      return;
    }
    innerDone = true;
    wake?.();
  };

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
      controller.enqueue(OPENING);
      if (options.expiresAt !== undefined) {
        const expiresAt = options.expiresAt;
        const arm = () => {
          const left = expiresAt - Date.now();
          if (left > 0) {
            // Cleared when the stream ends, so it never holds a process past its stream.
            timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
            return;
          }
          stop("the token that opened the stream expired");
          options.observe?.({ kind: "expired" });
        };
        arm();
      }
      void pump();
    },
    async pull(controller) {
      while (!finished && head === queue.length && !innerDone) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
      if (finished) return;
      if (head < queue.length) {
        const q = queue[head]!;
        queue[head++] = undefined as unknown as Queued;
        account(-q.chunk.byteLength);
        compact();
        controller.enqueue(q.chunk);
        if (pressure?.full && bytes <= options.maxBytes / 2) {
          pressure.full = false;
          pressure.onDrain();
        }
        return;
      }
      finish();
      controller.close();
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
