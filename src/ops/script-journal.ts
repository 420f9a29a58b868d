/**
 * Every finished macro and `execute` run, seen through `Scripting.runs.observe`: a ring of the
 * most recent ones for the status page.
 */
import type { ScriptRunRecord } from "../tools/mod.ts";

/** Keeps the last `size` script runs. */
export class ScriptJournal {
  readonly #ring: (ScriptRunRecord | undefined)[];
  #next = 0;

  constructor(size = 20) {
    this.#ring = new Array(size);
  }

  /** Records one run (pass to `Scripting.runs.observe`). */
  record(run: ScriptRunRecord): void {
    this.#ring[this.#next] = run;
    this.#next = (this.#next + 1) % this.#ring.length;
  }

  /** The recorded runs, newest first. */
  recent(): ScriptRunRecord[] {
    const out: ScriptRunRecord[] = [];
    for (let i = 1; i <= this.#ring.length; i++) {
      const r = this.#ring[(this.#next - i + this.#ring.length) % this.#ring.length];
      if (r) out.push(r);
    }
    return out;
  }
}
