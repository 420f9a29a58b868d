/**
 * Who may start a script run now: the admission rules of the {@link ScriptHost}, kept apart from
 * the processes themselves.
 *
 * - Each nesting depth has its own `perDepth` slots. A run at depth d only ever waits for runs at
 *   depth d + 1 (a macro it calls), and the deepest depth calls nothing, so a caller can never
 *   wait for a worker one of its callers holds: `execute` calling a macro on a full pool runs the
 *   macro on a slot of depth 1 instead of deadlocking until the time limit.
 * - At each depth one token may hold at most `perToken` slots; its further runs queue while
 *   other tokens' runs still start. Runs without an owner (no auth, macro registration) have no
 *   share.
 * - Waiters start in arrival order among those allowed to start.
 */
import { GatewayError } from "../../shared/errors.ts";

/** Deepest nesting a run may have (execute → macro → macro → macro). */
export const MAX_DEPTH = 3;

interface Waiter {
  depth: number;
  owner: string | null;
  resolve: () => void;
  reject: (e: Error) => void;
}

interface Level {
  busy: number;
  byOwner: Map<string, number>;
}

/** Slot accounting for one host. */
export class WorkerSlots {
  readonly perDepth: number;
  readonly perToken: number;
  #levels: Level[] = [];
  #queue: Waiter[] = [];

  constructor(perDepth: number, perToken: number) {
    this.perDepth = Math.max(1, perDepth);
    this.perToken = Math.max(1, Math.min(perToken, this.perDepth));
    for (let d = 0; d <= MAX_DEPTH; d++) this.#levels.push({ busy: 0, byOwner: new Map() });
  }

  /** Resolves once a slot is taken for `owner` at `depth` (call {@link release} after). */
  acquire(depth: number, owner: string | null): Promise<void> {
    if (!Number.isInteger(depth) || depth < 0 || depth > MAX_DEPTH) {
      return Promise.reject(
        new GatewayError(
          "SCRIPT_LIMIT",
          `scripts may call scripts at most ${MAX_DEPTH} levels deep (this call is at level ${depth})`,
        ),
      );
    }
    if (this.#queue.length === 0 && this.#fits(depth, owner)) {
      this.#take(depth, owner);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ depth, owner, resolve, reject });
      this.#pump();
    });
  }

  /** Frees a slot and starts whichever waiters now fit. */
  release(depth: number, owner: string | null): void {
    const level = this.#levels[depth];
    if (!level) return;
    level.busy--;
    if (owner !== null) {
      const n = (level.byOwner.get(owner) ?? 1) - 1;
      if (n > 0) level.byOwner.set(owner, n);
      else level.byOwner.delete(owner);
    }
    this.#pump();
  }

  /** Runs waiting for a slot. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Slots held at `depth` (tests, status). */
  busy(depth = 0): number {
    return this.#levels[depth]?.busy ?? 0;
  }

  /** Fails every waiter (the host is closing). */
  rejectAll(err: Error): void {
    for (const w of this.#queue.splice(0)) w.reject(err);
  }

  #fits(depth: number, owner: string | null): boolean {
    const level = this.#levels[depth]!;
    if (level.busy >= this.perDepth) return false;
    return owner === null || (level.byOwner.get(owner) ?? 0) < this.perToken;
  }

  #take(depth: number, owner: string | null): void {
    const level = this.#levels[depth]!;
    level.busy++;
    if (owner !== null) level.byOwner.set(owner, (level.byOwner.get(owner) ?? 0) + 1);
  }

  #pump(): void {
    for (let i = 0; i < this.#queue.length;) {
      const w = this.#queue[i]!;
      if (this.#fits(w.depth, w.owner)) {
        this.#queue.splice(i, 1);
        this.#take(w.depth, w.owner);
        w.resolve();
      } else i++;
    }
  }
}
