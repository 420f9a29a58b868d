/**
 * @module What both spawns share: signalling a process group, one pipe write per turn of the
 * event loop, and the handle of a child that never started.
 */
import { setImmediate } from "node:timers";
import type { ChildExit, SpawnedChild } from "./spawn.ts";

const NOTHING = (): void => {};

/** Signals process group `pid`, falling back to `self` (the leader alone). */
export function signalGroupOf(
  pid: number | undefined,
  signal: NodeJS.Signals,
  self: (signal: NodeJS.Signals) => void,
): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      self(signal);
    } catch { /* already gone */ }
  }
}

/**
 * A write joins small texts up to this many characters; a text this long or longer is written as
 * it is, and alone.
 */
const JOIN_CHARS = 64 * 1024;

/**
 * Joins what one turn of the event loop writes into one write of the sink: eight requests that
 * arrive together cost one pipe write, not eight. The flush waits for the turn's end
 * (`setImmediate`), not for the end of the current task (a microtask): the runtime hands each HTTP
 * request to the gateway as a task of its own, so a microtask flush wrote once per request, and
 * the child, woken per write, read and answered one request per wake-up, paying for every wake-up
 * again (and so did the gateway, reading one answer per read).
 *
 * Large texts are never joined, and while the pipe is full (`sink` returned a promise) the rest
 * waits here, as the strings it already is: joining eight 1 MiB requests made an 8 MiB string,
 * and the sink's copy of it another 8 MiB buffer, every time fresh pages the kernel had to fault
 * in; one large text at a time lets each next copy reuse the last one's memory.
 */
export class WriteBatch {
  #queued: string[] = [];
  #scheduled = false;
  #full: Promise<void> | undefined;
  readonly #sink: (parts: readonly string[]) => Promise<void> | undefined;

  /**
   * `sink` writes its parts, in order, as one write (the parts of a large text are the text and
   * what small texts follow it); it returns a promise while the pipe is full, resolved once it
   * has drained.
   */
  constructor(sink: (parts: readonly string[]) => Promise<void> | undefined) {
    this.#sink = sink;
  }

  /** Queues `text`; see {@link SpawnedChild.write}. */
  write(text: string): Promise<void> | undefined {
    this.#queued.push(text);
    if (!this.#scheduled && this.#full === undefined) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
    return this.#full;
  }

  /** Writes what is queued, a write at a time, until the pipe is full. */
  readonly #flush = (): void => {
    this.#scheduled = false;
    while (this.#queued.length > 0 && this.#full === undefined) {
      const full = this.#sink(this.#take());
      if (full) this.#full = this.#drained(full);
    }
  };

  /**
   * Resolves when a full pipe has drained, and writes on. A function of its own, so a write the
   * pipe takes at once makes no closure (nor the scope one would hold).
   */
  #drained(full: Promise<void>): Promise<void> {
    const drained: Promise<void> = full.then(() => {
      if (this.#full !== drained) return;
      this.#full = undefined;
      this.#flush();
    });
    return drained;
  }

  /**
   * The parts of the next write: a large text at the head of the queue as it is, then the small
   * texts that follow (a large text's own newline among them) joined, up to {@link JOIN_CHARS}.
   */
  #take(): string[] {
    const queue = this.#queued;
    const parts = queue[0]!.length >= JOIN_CHARS ? [queue[0]!] : [];
    const small: string[] = [];
    let chars = 0;
    let i = parts.length;
    for (; i < queue.length && chars < JOIN_CHARS && queue[i]!.length < JOIN_CHARS; i++) {
      small.push(queue[i]!);
      chars += queue[i]!.length;
    }
    this.#queued = i === queue.length ? [] : queue.slice(i);
    if (small.length > 0) parts.push(small.length === 1 ? small[0]! : small.join(""));
    return parts;
  }

  /** Writes everything queued at once, full pipe or not (used before closing the pipe). */
  flushNow(): void {
    const queue = this.#queued;
    this.#queued = [];
    if (queue.length > 0) this.#sink(queue);
  }
}

/** The exit a process's `exitCode` and `signalCode` tell; `null` while it runs. */
export function exitOf(code: number | null, signal: string | null): ChildExit | null {
  return code === null && signal === null ? null : { code, signal };
}

/** A child that never started: `started` rejects with `err`, the rest is already over. */
export function neverStarted(err: unknown): SpawnedChild {
  const started = Promise.reject(err);
  started.catch(NOTHING); // the caller awaits it; never an unhandled rejection
  return {
    pid: undefined,
    started,
    exited: new Promise<never>(NOTHING),
    stderrEnded: Promise.resolve(),
    exit: null,
    write: () => undefined,
    endInput: NOTHING,
    signalGroup: NOTHING,
    kill: NOTHING,
  };
}
