/**
 * Gives memory back. Bun's collector reclaims garbage but keeps the heap's free pages, so a
 * gateway that once held thousands of sessions or a large result would idle at its peak: a full
 * collection and a shrink of the heap return them. It runs once after the first start has
 * settled (start-up leaves garbage behind), and after enough memory was released — sessions
 * closed, large answers sent — once that release has gone quiet, on a timer, never on a request.
 * A no-op outside Bun (V8 returns free pages itself).
 */

declare const Bun: { gc?: (force: boolean) => void; shrink?: () => void } | undefined;

/**
 * One full, synchronous collection, without the heap's shrink (compiled code stays). Bun frees
 * the buffers a pipe was read into, and large strings, only when a collection finds them dead:
 * whoever is about to allocate as much again (a long stdout line joined, then decoded) has the
 * dead ones freed first. A pause of some milliseconds; a no-op outside Bun.
 */
export function collectNow(): void {
  if (typeof Bun === "undefined") return;
  Bun.gc?.(true);
}

/** Who hears of each compaction ({@link onCompacted}). */
const compactedListeners = new Set<() => void>();

/**
 * One full, synchronous collection, then the heap's free pages returned to the system. The
 * shrink also drops the code the runtime compiled (the next run of each function starts
 * interpreted), so those who keep a hot path warm hear of it ({@link onCompacted}).
 */
export function compactHeap(): void {
  if (typeof Bun === "undefined") return;
  Bun.gc?.(true);
  Bun.shrink?.();
  for (const listener of compactedListeners) listener();
}

/**
 * Calls `listener` after each {@link compactHeap} (never outside Bun, where none runs), during
 * it: a listener with work to do schedules it. Returns the unsubscribe function.
 */
export function onCompacted(listener: () => void): () => void {
  compactedListeners.add(listener);
  return () => void compactedListeners.delete(listener);
}

/** When a {@link CompactionSchedule} compacts. */
export interface CompactionTiming {
  /** Released bytes that make a compaction worth its pause (a full collection). */
  worthBytes: number;
  /** A compaction waits until releases have paused this long… */
  quietMs: number;
  /** …but no longer than this after the first release it answers, so steady churn compacts too. */
  maxWaitMs: number;
}

const TIMING: CompactionTiming = { worthBytes: 8 * 1024 * 1024, quietMs: 2_000, maxWaitMs: 10_000 };

/** Gathers released bytes and runs `compact` when enough were released and releases paused. */
export class CompactionSchedule {
  #released = 0;
  #first = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * After a compaction, the tail of the same burst (what was released after it, however
   * little) earns one more: otherwise the last few MiB of a mass close would stay held.
   */
  #tail = false;
  readonly #compact: () => void;
  readonly #timing: CompactionTiming;

  constructor(compact: () => void, timing: CompactionTiming = TIMING) {
    this.#compact = compact;
    this.#timing = timing;
  }

  /** Notes that about `bytes` of memory just became garbage. */
  note(bytes: number): void {
    if (!(bytes > 0)) return;
    const now = Date.now();
    if (this.#released === 0) this.#first = now;
    this.#released += bytes;
    if (!this.#tail && this.#released < this.#timing.worthBytes) return;
    clearTimeout(this.#timer);
    const { quietMs, maxWaitMs } = this.#timing;
    const wait = Math.max(0, Math.min(quietMs, this.#first + maxWaitMs - now));
    this.#timer = setTimeout(() => this.#run(), wait);
    // Never what keeps a process alive.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Drops a pending compaction (tests; a process that stops). */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#released = 0;
    this.#tail = false;
  }

  #run(): void {
    // A run that answered a tail ends the burst; one that answered a full count may have one.
    this.#tail = !this.#tail;
    this.#released = 0;
    this.#timer = undefined;
    this.#compact();
  }
}

/**
 * The process's one schedule: the heap is the process's, so every gateway in it (tests run
 * several) adds to the same count. Outside Bun nothing is gathered.
 */
const processSchedule = typeof Bun === "undefined" ? null : new CompactionSchedule(compactHeap);

/**
 * Notes that about `bytes` of memory just became garbage (a session closed, a large answer
 * sent): once enough have gathered, {@link compactHeap} runs when releases pause.
 */
export function noteReleased(bytes: number): void {
  processSchedule?.note(bytes);
}
