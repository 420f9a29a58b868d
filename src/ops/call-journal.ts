/**
 * Every finished tool call, seen through `gateway.calls.observeCalls`: one debug log line each, and a
 * ring of the most recent ones for the status page. The ring keeps what the page shows, never a
 * call's arguments or result: those may be large (the last 50 results of 8 MB each were held in
 * memory) and may carry secrets.
 */
import type { CallRecord } from "../gateway/mod.ts";
import type { Logger } from "../shared/log.ts";

/** What the journal keeps of a call: its record without the arguments and the result. */
export type JournalEntry = Omit<CallRecord, "args" | "result">;

/** Keeps the last `size` calls and logs each at debug level. */
export class CallJournal {
  readonly #ring: (JournalEntry | undefined)[];
  #next = 0;
  readonly #log: Logger;

  constructor(log: Logger, size = 50) {
    this.#ring = new Array(size);
    this.#log = log;
  }

  /** Records one call. Argument values are never logged: they may carry secrets. */
  record(call: CallRecord): void {
    this.#ring[this.#next] = entryOf(call);
    this.#next = (this.#next + 1) % this.#ring.length;
    if (this.#log.enabled("debug")) {
      this.#log.debug("call", {
        tool: call.name,
        server: call.server,
        tokenName: call.tokenName,
        outcome: call.outcome,
        durationMs: Math.round(call.durationMs * 1000) / 1000,
        ...(call.error === undefined ? {} : { error: call.error }),
      });
    }
  }

  /** The recorded calls, newest first. */
  recent(): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let i = 1; i <= this.#ring.length; i++) {
      const c = this.#ring[(this.#next - i + this.#ring.length) % this.#ring.length];
      if (c) out.push(c);
    }
    return out;
  }
}

/**
 * `call` without its arguments and result, its members copied by name: a rest pattern
 * (`{ args, result, ...entry }`) costs a generic property copy on every call (0.22 against
 * 0.05 µs). A member added to `CallRecord` and not listed here fails the journal's test, whose
 * record is a `Required<CallRecord>`.
 */
function entryOf(call: CallRecord): JournalEntry {
  const entry: { -readonly [K in keyof JournalEntry]: JournalEntry[K] } = {
    kind: call.kind,
    name: call.name,
    server: call.server,
    tokenName: call.tokenName,
    profile: call.profile,
    sessionId: call.sessionId,
    era: call.era,
    scriptDepth: call.scriptDepth,
    durationMs: call.durationMs,
    outcome: call.outcome,
    at: call.at,
    filters: call.filters,
  };
  if (call.error !== undefined) entry.error = call.error;
  if (call.code !== undefined) entry.code = call.code;
  return entry;
}
