/**
 * @module Upstream calls' timeouts, on one timer per set (each connection's caller owns one). A
 * `setTimeout` and a `clearTimeout` per call are each a native allocation on the hot path (with
 * the garbage they leave); here a call's deadline is an entry linked into a lane of calls with the
 * same timeout, so a lane is in deadline order by construction (same clock, same length) and
 * adding, renewing (progress restarting the clock) and cancelling are a few pointer moves. One
 * timer is armed for the earliest head of all lanes; when it fires, every expired entry fires,
 * each on its own, and the timer is armed again for the next one. A finished call's deadline is
 * unlinked and never re-arms the timer: at worst the timer wakes once for nothing and sleeps until
 * the next head.
 */

/** The longest delay a timer takes (a larger one fires at once on every runtime). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timer as the runtime hands it out: an object with `ref`/`unref` (Bun, Node) or a number (Deno). */
type Timer = ReturnType<typeof setTimeout>;

/** One pending deadline, linked into its {@link Deadlines} lane. Subclass it and give `expire`. */
export abstract class Deadline {
  /** When it expires, on the `performance.now()` clock. */
  at = 0;
  /** @internal Links of the lane this deadline is in (`lane` undefined: not pending). */
  prev: Deadline | undefined = undefined;
  /** @internal */
  next: Deadline | undefined = undefined;
  /** @internal */
  lane: Lane | undefined = undefined;

  /** Called once when the deadline passes, unless it was cancelled first. */
  abstract expire(): void;
}

/** The pending deadlines of one timeout length, earliest first. */
interface Lane {
  readonly ms: number;
  head: Deadline | undefined;
  tail: Deadline | undefined;
}

/** A set of deadlines sharing one timer (see the module comment). */
export class Deadlines {
  readonly #lanes = new Map<number, Lane>();
  #timer: Timer | undefined;
  /** When the armed timer fires (`Infinity`: none armed). */
  #armedAt = Number.POSITIVE_INFINITY;
  /** Pending deadlines (a runtime whose timers cannot be unreferenced clears the timer at 0). */
  #pending = 0;
  /** The armed timer can be unreferenced (Bun, Node: an object; Deno: a number, cleared). */
  #refable = false;
  readonly #sweep = () => this.#fire();

  /** Deadlines pending now (for tests and diagnostics). */
  get pending(): number {
    return this.#pending;
  }

  /**
   * Makes `deadline` pending, to expire `ms` from now (a negative or missing length is 0, as for
   * `setTimeout`; longer than {@link MAX_TIMER_MS} is cut to it). Already pending: starts again.
   */
  add(deadline: Deadline, ms: number): void {
    const length = ms > 0 ? Math.min(ms, MAX_TIMER_MS) : 0;
    if (deadline.lane) {
      this.#unlink(deadline);
      this.#pending--;
    }
    let lane = this.#lanes.get(length);
    if (!lane) {
      lane = { ms: length, head: undefined, tail: undefined };
      this.#lanes.set(length, lane);
    }
    deadline.at = performance.now() + length;
    deadline.lane = lane;
    deadline.prev = lane.tail;
    deadline.next = undefined;
    if (lane.tail) lane.tail.next = deadline;
    else lane.head = deadline;
    lane.tail = deadline;
    // The timer holds the process open while a call waits on it, as a call's own timer did.
    if (this.#pending++ === 0 && this.#refable && this.#timer !== undefined) {
      (this.#timer as unknown as Refable).ref();
    }
    if (deadline.at < this.#armedAt) this.#arm(deadline.at);
  }

  /** Restarts `deadline`'s clock with its own length (progress on a call that asked for it). */
  renew(deadline: Deadline): void {
    if (deadline.lane) this.add(deadline, deadline.lane.ms);
  }

  /** Takes `deadline` out: it will not expire. Not pending: nothing happens. */
  cancel(deadline: Deadline): void {
    if (!deadline.lane) return;
    this.#unlink(deadline);
    if (--this.#pending > 0 || this.#timer === undefined) return;
    // Nothing pending: an idle process (a test, a one-shot command) has nothing of ours holding
    // it open. The timer is unreferenced where it can be, else (a number) cleared.
    if (this.#refable) (this.#timer as unknown as Refable).unref();
    else {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#armedAt = Number.POSITIVE_INFINITY;
      this.#lanes.clear();
    }
  }

  #unlink(deadline: Deadline): void {
    const lane = deadline.lane!;
    if (deadline.prev) deadline.prev.next = deadline.next;
    else lane.head = deadline.next;
    if (deadline.next) deadline.next.prev = deadline.prev;
    else lane.tail = deadline.prev;
    deadline.prev = deadline.next = deadline.lane = undefined;
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedAt = at;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(at - performance.now())));
    this.#timer = setTimeout(this.#sweep, delay);
    const refable = this.#timer as unknown as Partial<Refable>;
    this.#refable = typeof refable.unref === "function";
    if (this.#refable && this.#pending === 0) refable.unref!();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    // Taken out first, then told: an `expire` that adds or cancels deadlines sees a settled set.
    const expired: Deadline[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [ms, lane] of this.#lanes) {
      while (lane.head && lane.head.at <= now) {
        const d = lane.head;
        this.#unlink(d);
        this.#pending--;
        expired.push(d);
      }
      if (lane.head) next = Math.min(next, lane.head.at);
      else this.#lanes.delete(ms);
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
    // In deadline order, as separate timers would fire them (a late sweep holds several lanes).
    if (expired.length > 1) expired.sort((a, b) => a.at - b.at);
    for (const d of expired) {
      try {
        d.expire();
      } catch { /* one deadline's failure must not keep the others from firing */ }
    }
  }
}

/** A timer that can stop holding the process open (Bun's and Node's; a ref/unref is ~20 ns). */
interface Refable {
  ref(): void;
  unref(): void;
}
