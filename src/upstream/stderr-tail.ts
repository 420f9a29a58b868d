/**
 * The last lines a stdio server wrote to stderr, kept whatever the log level: when a server
 * exits at start (a missing token, an `npx` package that does not exist) these lines are the
 * only place its reason is written, and the operator needs it in the `upstream down` line,
 * `/readyz` and the error an agent gets — not only under `--log-level debug`.
 */

/** How much of a server's stderr is kept. */
export interface TailLimits {
  lines: number;
  bytes: number;
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** Default bound: the last 20 lines and at most 4096 characters (4 KiB of ASCII). */
export const TAIL_LIMITS: TailLimits = { lines: 20, bytes: 4096 };

/** A bounded ring of complete stderr lines (a partial last line is kept until flushed). */
export class StderrTail {
  readonly #limits: TailLimits;
  #lines: string[] = [];
  #bytes = 0;
  #partial = "";

  constructor(limits: TailLimits = TAIL_LIMITS) {
    this.#limits = limits;
  }

  /** Adds a chunk as written; returns the complete lines it finished (for the debug log). */
  push(chunk: string): string[] {
    const parts = (this.#partial + chunk).split("\n");
    this.#partial = parts.pop()!.slice(-this.#limits.bytes);
    for (const line of parts) this.#add(line);
    return parts;
  }

  /** Keeps a last line that had no newline (called when the stream ends). */
  flush(): void {
    if (this.#partial !== "") this.#add(this.#partial);
    this.#partial = "";
  }

  /** The kept lines, oldest first (blank lines dropped, each at most `bytes` long). */
  lines(): string[] {
    return [...this.#lines];
  }

  #add(raw: string): void {
    // Colour codes (Deno and others colour errors even into a pipe) carry no meaning here.
    const line = raw.replace(ANSI, "").replace(/\r$/, "").slice(0, this.#limits.bytes);
    if (line.trim() === "") return;
    this.#lines.push(line);
    this.#bytes += line.length;
    while (
      this.#lines.length > this.#limits.lines ||
      (this.#bytes > this.#limits.bytes && this.#lines.length > 1)
    ) {
      this.#bytes -= this.#lines.shift()!.length;
    }
  }
}
