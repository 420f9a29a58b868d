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
 * Joins what one turn of the event loop writes into one write of the sink: eight requests that
 * arrive together cost one pipe write, not eight. The flush waits for the turn's end
 * (`setImmediate`), not for the end of the current task (a microtask): the runtime hands each HTTP
 * request to the gateway as a task of its own, so a microtask flush wrote once per request, and
 * the child, woken per write, read and answered one request per wake-up, paying for every wake-up
 * again (and so did the gateway, reading one answer per read). `sink` returns a promise while
 * the pipe is full.
 */
export class WriteBatch {
  #queued: string[] = [];
  #full: Promise<void> | undefined;
  readonly #sink: (text: string) => Promise<void> | undefined;

  constructor(sink: (text: string) => Promise<void> | undefined) {
    this.#sink = sink;
  }

  /** Queues `text`; see {@link SpawnedChild.write}. */
  write(text: string): Promise<void> | undefined {
    if (this.#queued.push(text) === 1) setImmediate(this.#flush);
    return this.#full;
  }

  /** Writes what is queued now (before stdin is closed). */
  readonly #flush = (): void => {
    const queued = this.#queued;
    if (queued.length === 0) return;
    this.#queued = [];
    const full = this.#sink(queued.length === 1 ? queued[0]! : queued.join(""));
    if (!full) return;
    const drained: Promise<void> = full.then(() => {
      if (this.#full === drained) this.#full = undefined;
    });
    this.#full = drained;
  };

  /** Writes what is queued at once (used before closing the pipe). */
  flushNow(): void {
    this.#flush();
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
