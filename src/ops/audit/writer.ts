/**
 * The audit file: lines are queued and appended in batches by one writer (a call never waits on
 * the disk), and the file is rotated by size — FILE → FILE.1 → … → FILE.keep — before a line
 * would take it past `maxBytes`. A disk slower than the calls for long fills a bounded queue;
 * past it lines are dropped and counted rather than held in memory without end.
 */
import type { FileHandle } from "node:fs/promises";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";

/** Bytes of lines waiting at most before new ones are dropped. */
const QUEUE_MAX = 16 * 1024 * 1024;

/** An append-only, size-rotated file of lines. */
export class RotatingFile {
  readonly #path: string;
  readonly #maxBytes: number;
  readonly #keep: number;
  readonly #log: Logger;
  #queue: string[] = [];
  #queued = 0;
  #size = -1;
  #handle: FileHandle | null = null;
  #writing: Promise<void> | null = null;
  #dropped = 0;
  #failed = false;

  constructor(path: string, maxBytes: number, keep: number, log: Logger) {
    this.#path = path;
    this.#maxBytes = maxBytes;
    this.#keep = keep;
    this.#log = log;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  }

  /** Lines dropped because the queue was full or a write failed. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Queues one line (without newline); never waits. */
  write(line: string): void {
    const bytes = Buffer.byteLength(line, "utf8") + 1;
    if (this.#queued + bytes > QUEUE_MAX) {
      if (this.#dropped++ === 0) this.#log.warn("audit queue full; dropping records");
      return;
    }
    this.#queue.push(line + "\n");
    this.#queued += bytes;
    this.#writing ??= this.#drain();
  }

  /** Resolves once every queued line is written. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  /** Writes what is queued, then closes the file. */
  async close(): Promise<void> {
    await this.flush();
    await this.#handle?.close().catch(() => {});
    this.#handle = null;
  }

  async #drain(): Promise<void> {
    // One turn later: lines of calls finishing together go out in one write.
    await new Promise((r) => setTimeout(r, 0));
    try {
      while (this.#queue.length > 0) {
        const lines = this.#queue;
        this.#queue = [];
        this.#queued = 0;
        try {
          await this.#append(lines);
          this.#failed = false;
        } catch (err) {
          this.#dropped += lines.length;
          await this.#handle?.close().catch(() => {});
          this.#handle = null;
          if (!this.#failed) {
            this.#failed = true;
            this.#log.error("cannot write the audit log", {
              file: this.#path,
              error: messageOf(err),
            });
          }
        }
      }
    } finally {
      this.#writing = null;
    }
  }

  async #append(lines: string[]): Promise<void> {
    if (!this.#handle) {
      const { open, stat } = await fsp();
      this.#handle = await open(this.#path, "a", 0o600);
      this.#size = (await stat(this.#path)).size;
    }
    let chunk = "";
    let chunkBytes = 0;
    for (const line of lines) {
      const bytes = Buffer.byteLength(line, "utf8");
      if (this.#size + chunkBytes + bytes > this.#maxBytes && this.#size + chunkBytes > 0) {
        if (chunk) await this.#handle.write(chunk);
        this.#size += chunkBytes;
        chunk = "";
        chunkBytes = 0;
        await this.#rotate();
      }
      chunk += line;
      chunkBytes += bytes;
    }
    if (chunk) await this.#handle.write(chunk);
    this.#size += chunkBytes;
  }

  async #rotate(): Promise<void> {
    const { open, rename, rm } = await fsp();
    await this.#handle?.close();
    await rm(`${this.#path}.${this.#keep}`, { force: true });
    for (let i = this.#keep - 1; i >= 1; i--) {
      await rename(`${this.#path}.${i}`, `${this.#path}.${i + 1}`).catch(() => {});
    }
    await rename(this.#path, `${this.#path}.1`);
    this.#handle = await open(this.#path, "a", 0o600);
    this.#size = 0;
  }
}

/**
 * `node:fs/promises` at the first write: the audit log is wired at start in every gateway, and
 * importing the module at the top evaluates it there (~0.7 MiB of RSS) for the many that keep
 * no audit log.
 */
function fsp(): Promise<typeof import("node:fs/promises")> {
  return import("node:fs/promises");
}
