/**
 * @module Newline-delimited lines out of a stdio server's stdout chunks, cheaply: each chunk is
 * decoded once by one streaming `TextDecoder` (a UTF-8 character split across two chunks comes
 * out whole) and cut at its newlines; only a line that spans chunks is joined. A line longer
 * than the limit is dropped whole — the rest of it, up to its newline, is skipped too, so its
 * tail is never read as a message of its own.
 */

const STREAM = { stream: true } as const;
const NEWLINE = 10;

/** Splits a byte stream into lines; see the module comment. */
export class LineReader {
  readonly #maxBytes: number;
  readonly #onLine: (line: string) => void;
  readonly #onDrop: (bytes: number) => void;
  #decoder = new TextDecoder();
  /** The decoded pieces of the line still open. */
  #parts: string[] = [];
  /** Bytes of the line still open. */
  #bytes = 0;
  /** Inside a dropped line: everything up to the next newline is thrown away. */
  #skipping = false;

  /**
   * `onLine` gets each complete line (without its newline); `onDrop` the bytes read of a line
   * that went past `maxBytes`.
   */
  constructor(
    maxBytes: number,
    onLine: (line: string) => void,
    onDrop: (bytes: number) => void,
  ) {
    this.#maxBytes = maxBytes;
    this.#onLine = onLine;
    this.#onDrop = onDrop;
  }

  /** Feeds one chunk as read. */
  push(chunk: Uint8Array): void {
    if (this.#skipping) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl === -1) return;
      this.#skipping = false;
      chunk = chunk.subarray(nl + 1);
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last === -1) {
      this.#bytes += chunk.length;
      if (this.#bytes > this.#maxBytes) this.#drop();
      else this.#parts.push(this.#decoder.decode(chunk, STREAM));
      return;
    }
    const text = this.#decoder.decode(chunk, STREAM);
    let start = 0;
    let nl = text.indexOf("\n");
    if (this.#parts.length > 0) {
      this.#parts.push(text.slice(0, nl));
      const line = this.#parts.join("");
      this.#parts = [];
      this.#onLine(line);
      start = nl + 1;
      nl = text.indexOf("\n", start);
    }
    for (; nl !== -1; nl = text.indexOf("\n", start)) {
      this.#onLine(text.slice(start, nl));
      start = nl + 1;
    }
    // What follows the last newline opens the next line (the decoder may still hold the first
    // bytes of a character split by the chunk's end; they come out with the next chunk).
    this.#bytes = chunk.length - last - 1;
    if (this.#bytes > this.#maxBytes) this.#drop();
    else if (start < text.length) this.#parts.push(text.slice(start));
  }

  #drop(): void {
    this.#onDrop(this.#bytes);
    this.#parts = [];
    this.#bytes = 0;
    this.#skipping = true;
    this.#decoder.decode(); // forget a character cut in half: the line is gone
  }
}
