/**
 * What a server process left behind when it failed: how it exited and the last lines it wrote
 * to stderr. They explain a failure in the process's own words (`exited with code 1: Error:
 * GITHUB_TOKEN is not set`) and stay readable after the process is gone.
 */
import { downReason } from "./down-reason.ts";
import type { ProcessExit, StdioTransport } from "./stdio.ts";

/** The stdio process of the latest connect attempt, and what the last failed one left. */
export class ExitRecord {
  /** The process of the latest attempt (none for HTTP upstreams). */
  proc: StdioTransport | undefined;
  #tail: string[] = [];
  #lastExit: ProcessExit | null = null;

  /** The running process's stderr tail when it wrote any, else the last failed one's. */
  get stderrTail(): readonly string[] {
    const live = this.proc?.stderrTail;
    return live && live.length > 0 ? live : this.#tail;
  }

  /** The tail kept from the last failure. */
  get failedTail(): readonly string[] {
    return this.#tail;
  }

  /** How the process that failed last exited by itself (`null`: it did not, or never ran). */
  get lastExit(): ProcessExit | null {
    return this.#lastExit;
  }

  /** Keeps what the process left and answers the failure in its words, else `fallback`. */
  explain(fallback: string): string {
    const proc = this.proc;
    this.#lastExit = proc?.exit ?? null;
    this.#tail = proc?.stderrTail ?? [];
    return proc ? downReason(fallback, proc.exit, this.#tail) : fallback;
  }
}
