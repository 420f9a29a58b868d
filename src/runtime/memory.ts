/**
 * Gives memory back. Bun's collector reclaims garbage late and keeps the heap's free pages, so a
 * gateway that once held thousands of sessions or a large result would idle near its peak. After
 * enough memory was released — sessions closed, large answers sent — and that release has gone
 * quiet, a full collection gives the garbage back, on a timer, never on a request. The heap's
 * shrink, which returns its free pages too but also drops every function the runtime compiled,
 * follows only a release of many small objects (sessions, a catalog's views: their pages stay
 * with the heap after the collection), and waits until no call has come for a while: dropped
 * under traffic, the whole request path ran interpreted again and kept the compiler busy for
 * thousands of calls. A large string or buffer goes back to the system at the collection that
 * finds it dead, so large answers never cost the compiled code. The shrink also runs once after
 * the first start has settled (start-up leaves garbage behind). A no-op outside Bun (V8 returns
 * free pages itself).
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

/** When a {@link CompactionSchedule} collects and compacts. */
export interface CompactionTiming {
  /** Released bytes that make a collection worth its pause (a full one). */
  worthBytes: number;
  /** A collection waits until releases have paused this long… */
  quietMs: number;
  /** …but no longer than this after the first release it answers, so steady churn collects too. */
  maxWaitMs: number;
  /** After a collection, the heap is compacted once no call has come for this long. */
  idleMs: number;
}

const TIMING: CompactionTiming = {
  worthBytes: 8 * 1024 * 1024,
  quietMs: 2_000,
  maxWaitMs: 10_000,
  idleMs: 15_000,
};

/** What a {@link CompactionSchedule} does, and how it tells that calls are being served. */
export interface CompactionActions {
  /** A full collection: the garbage's memory back, the compiled code kept. */
  collect(): void;
  /** A full collection and the heap's free pages back: drops the compiled code too. */
  compact(): void;
  /** A count that grows with every call served. */
  activity(): number;
}

/**
 * What became garbage: many small objects, whose pages the heap keeps until it is compacted, or
 * large strings and buffers, which the collection alone gives back.
 */
export type Released = "objects" | "buffers";

/**
 * Gathers released bytes; collects when enough were released and releases paused, then — if
 * enough of them were small objects — compacts once a whole `idleMs` has passed without a call.
 */
export class CompactionSchedule {
  #released = 0;
  #first = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * After a collection, the tail of the same burst (what was released after it, however
   * little) earns one more: otherwise the last few MiB of a mass close would stay held.
   */
  #tail = false;
  /**
   * Bytes of small objects released since the last compaction was scheduled: a collection
   * earns one only once they alone are worth it (a few sessions closed beside a large answer
   * leave too little behind to pay for compiling the request path again).
   */
  #objects = 0;
  /** The pending idle check, and the activity count it started from. */
  #idle: ReturnType<typeof setTimeout> | undefined;
  #seen = 0;
  readonly #actions: CompactionActions;
  readonly #timing: CompactionTiming;

  constructor(actions: CompactionActions, timing: CompactionTiming = TIMING) {
    this.#actions = actions;
    this.#timing = timing;
  }

  /** Notes that about `bytes` of memory just became garbage, as `kind`. */
  note(bytes: number, kind: Released = "objects"): void {
    if (!(bytes > 0)) return;
    if (kind === "objects") this.#objects += bytes;
    const now = Date.now();
    if (this.#released === 0) this.#first = now;
    this.#released += bytes;
    if (!this.#tail && this.#released < this.#timing.worthBytes) return;
    clearTimeout(this.#timer);
    const { quietMs, maxWaitMs } = this.#timing;
    const wait = Math.max(0, Math.min(quietMs, this.#first + maxWaitMs - now));
    this.#timer = unref(setTimeout(() => this.#run(), wait));
  }

  /** Drops a pending collection and compaction (tests; a process that stops). */
  cancel(): void {
    clearTimeout(this.#timer);
    clearTimeout(this.#idle);
    this.#timer = undefined;
    this.#idle = undefined;
    this.#released = 0;
    this.#tail = false;
    this.#objects = 0;
  }

  #run(): void {
    // A run that answered a tail ends the burst; one that answered a full count may have one.
    this.#tail = !this.#tail;
    this.#released = 0;
    this.#timer = undefined;
    this.#actions.collect();
    if (this.#objects >= this.#timing.worthBytes && this.#idle === undefined) {
      this.#objects = 0;
      this.#watchIdle();
    }
  }

  /** Compacts after `idleMs` without a call; while calls keep coming, looks again as long. */
  #watchIdle(): void {
    this.#seen = this.#actions.activity();
    this.#idle = unref(setTimeout(() => {
      this.#idle = undefined;
      if (this.#actions.activity() !== this.#seen) this.#watchIdle();
      else this.#actions.compact();
    }, this.#timing.idleMs));
  }
}

/** `timer`, never what keeps a process alive. */
function unref<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

/** Calls served by this process so far (every gateway in it): how a schedule tells idleness. */
let served = 0;

/** Notes one call served: a compaction waits for a pause in these. */
export function noteCall(): void {
  served++;
}

/**
 * The process's one schedule: the heap is the process's, so every gateway in it (tests run
 * several) adds to the same count. Outside Bun nothing is gathered.
 */
const processSchedule = typeof Bun === "undefined"
  ? null
  : new CompactionSchedule({ collect: collectNow, compact: compactHeap, activity: () => served });

/**
 * Notes that about `bytes` of memory just became garbage — many small objects (a session closed,
 * a catalog rebuilt) or, as `"buffers"`, large strings and buffers (a large answer sent): once
 * enough have gathered, a collection runs when releases pause, and a compaction once calls do if
 * enough of them were small objects (see {@link CompactionSchedule}).
 */
export function noteReleased(bytes: number, kind: Released = "objects"): void {
  processSchedule?.note(bytes, kind);
}
