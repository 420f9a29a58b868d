/**
 * Process-wide tallies of script runs and limit hits. The scripting room calls
 * {@link countScriptRun} / {@link countScriptLimit}; `/metrics` reads {@link scriptStats}.
 * Module state on purpose: a script host need not know whether metrics are served.
 */

const runs = new Map<string, number>();
const limits = new Map<string, number>();

/** Counts one finished script run (`ok`, `error`, `limit`, or another short outcome word). */
export function countScriptRun(outcome: string): void {
  runs.set(outcome, (runs.get(outcome) ?? 0) + 1);
}

/** Counts one run stopped at a limit (`timeout`, `memory`, `transfer`, `pictures`, ...). */
export function countScriptLimit(limit: string): void {
  limits.set(limit, (limits.get(limit) ?? 0) + 1);
}

/** A snapshot of the tallies. */
export function scriptStats(): {
  runs: ReadonlyMap<string, number>;
  limits: ReadonlyMap<string, number>;
} {
  return { runs: new Map(runs), limits: new Map(limits) };
}
