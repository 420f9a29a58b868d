/**
 * The calls trace of one `execute` run. It lives in the parent process, so it survives a worker
 * killed at its deadline: whatever was still running then is reported as incomplete (and
 * cancelled upstream by the run's abort signal).
 */

/** What a traced operation did. */
export type Operation = "search" | "describe" | "call";

/** One entry of the trace, as `structuredContent.calls` carries it. */
export interface TraceEntry {
  operation: Operation;
  /** Tool path, for `describe` and `call`. */
  path?: string;
  /** Query, for `search`. */
  query?: string;
  ok: boolean;
  /** Error code when not ok (`tool_error`, `tool_not_found`, …, `cancelled`). */
  error?: string;
  duration_ms: number;
  /** Still running when the script ended; its call was cancelled. */
  incomplete?: true;
}

/** Entries a trace keeps; later operations are only counted (a loop of calls stays bounded). */
export const MAX_TRACE_ENTRIES = 1000;

interface Slot {
  entry: TraceEntry;
  started: number;
  done: boolean;
}

/** Records operations as they start and finish; {@link close} freezes it. */
export class CallTrace {
  #slots: Slot[] = [];
  #dropped = 0;
  #closed = false;

  /** Starts an entry; returns its handle (-1 once the trace is full or closed). */
  start(operation: Operation, target: { path?: string; query?: string }): number {
    if (this.#closed) return -1;
    if (this.#slots.length >= MAX_TRACE_ENTRIES) {
      this.#dropped++;
      return -1;
    }
    const entry: TraceEntry = { operation, ...target, ok: false, duration_ms: 0 };
    this.#slots.push({ entry, started: performance.now(), done: false });
    return this.#slots.length - 1;
  }

  /** Finishes an entry; ignored after {@link close} (the run already reported it incomplete). */
  finish(handle: number, ok: boolean, error?: string): void {
    const slot = this.#slots[handle];
    if (this.#closed || !slot || slot.done) return;
    slot.done = true;
    slot.entry.ok = ok;
    if (!ok && error !== undefined) slot.entry.error = error;
    slot.entry.duration_ms = elapsed(slot.started);
  }

  /** Operations started past {@link MAX_TRACE_ENTRIES}. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Freezes the trace: unfinished entries become incomplete, cancelled ones. */
  close(): TraceEntry[] {
    if (!this.#closed) {
      this.#closed = true;
      for (const slot of this.#slots) {
        if (slot.done) continue;
        slot.entry.error = "cancelled";
        slot.entry.incomplete = true;
        slot.entry.duration_ms = elapsed(slot.started);
      }
    }
    return this.#slots.map((s) => s.entry);
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
