/**
 * Script runs as events: macros and `execute` publish one {@link ScriptRunRecord} per finished
 * run, and whoever cares (metrics, the status page) subscribes with {@link ScriptRuns.observe},
 * just as tool calls are observed through `Gateway.calls.observeCalls`. The core keeps no counters.
 */
import type { ScriptOutcome } from "../scripting/mod.ts";

/** How a run ended: `ok`, `error` (a Lua error or refused result), or `limit`. */
export type ScriptVerdict = "ok" | "error" | "limit";

/** One finished script run. */
export interface ScriptRunRecord {
  readonly feature: "execute" | "macro";
  /** `execute`, or the macro's tool name. */
  readonly name: string;
  readonly tokenName: string | null;
  readonly durationMs: number;
  readonly outcome: ScriptVerdict;
  /** The limit that stopped it (`timeout`, `memory`, `transfer`, `pictures`, `crash`, …). */
  readonly limit?: string;
  readonly at: number;
}

/** The verdict and limit of a run; `tooManyPictures` when its result was refused for them. */
export function verdictOf(
  outcome: ScriptOutcome,
  tooManyPictures: boolean,
): { outcome: ScriptVerdict; limit?: string } {
  if (tooManyPictures) return { outcome: "limit", limit: "pictures" };
  if (outcome.ok) return { outcome: "ok" };
  if (outcome.limit) {
    return { outcome: "limit", limit: outcome.limit === "time" ? "timeout" : outcome.limit };
  }
  return { outcome: "error" };
}

/** The observers of one gateway's script runs. */
export class ScriptRuns {
  #observers: ((run: ScriptRunRecord) => void)[] = [];

  /** Registers an observer told about every finished run. */
  observe(observer: (run: ScriptRunRecord) => void): void {
    this.#observers.push(observer);
  }

  /** Tells every observer; an observer that throws never breaks a run. */
  publish(run: ScriptRunRecord): void {
    for (const o of this.#observers) {
      try {
        o(run);
      } catch { /* observers must not break runs */ }
    }
  }
}
