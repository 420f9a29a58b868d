/**
 * @module Newline-delimited lines out of a stdio server's stdout chunks, cheaply: the bytes are
 * cut at their newlines first (a newline byte is never part of a UTF-8 character) and each line
 * is decoded once, whole. A line that spans chunks keeps its chunks as bytes and is joined and
 * decoded when its newline comes — decoding each chunk on its own and joining the strings costs
 * several times more for a large line, and leaves a string every later step (`JSON.parse`, the
 * answer's `Response`) reads more slowly. A line longer than the limit is dropped whole — the
 * rest of it, up to its newline, is skipped too, so its tail is never read as a message of its
 * own.
 *
 * Every line is decoded the one way the runtime decodes UTF-8 cheapest (`decodeUtf8`): which of
 * its decoders that is matters for a long line, by several times.
 */
import { Buffer } from "node:buffer";
import { collectNow, decodeUtf8 } from "../runtime/mod.ts";

const NEWLINE = 10;
/**
 * A line this long that spanned chunks is handed on with its bytes too: a result sent on as it
 * came can then be written from those bytes, instead of from one more copy as text.
 */
const BYTES_WITH_LINE = 1024 * 1024;
/**
 * A line of this many bytes read in more than one chunk is joined between two collections: the
 * first frees what earlier long lines left (their text, once answered) before the joined copy
 * is made, the second frees this line's chunks before its text is made. Bun frees a read
 * buffer or a string only at a collection, and without them a few large results in flight
 * each held three copies at once. Each pause is small beside reading that many bytes.
 */
const COLLECT_AROUND_JOIN = 16 * 1024 * 1024;

/** Splits a byte stream into lines; see the module comment. */
export class LineReader {
  readonly #maxBytes: number;
  readonly #onLine: (line: string, bytes?: Uint8Array) => void;
  readonly #onDrop: (bytes: number) => void;
  /**
   * The chunks of the line still open, as read: a runtime hands each read its own buffer, so
   * they are kept without a copy.
   */
  #parts: Uint8Array[] = [];
  /** Bytes of the line still open. */
  #bytes = 0;
  /** Inside a dropped line: everything up to the next newline is thrown away. */
  #skipping = false;
  /**
   * The next line starts the stream (or follows a dropped line): a byte-order mark at its start
   * is not text. One streaming decoder used to strip it there and nowhere else.
   */
  #atStart = true;

  /**
   * `onLine` gets each complete line (without its newline) — a long one with the bytes it was
   * decoded from (byte-order mark stripped), see {@link BYTES_WITH_LINE}; `onDrop` the bytes
   * read of a line that went past `maxBytes`.
   */
  constructor(
    maxBytes: number,
    onLine: (line: string, bytes?: Uint8Array) => void,
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
      this.#open(chunk);
      return;
    }
    let start = 0;
    // Asked of the byte count, not of the parts: the hot path (short lines, nothing open) then
    // never reads an array that a long line's chunks make of another kind, which would send
    // the runtime's optimised code for this function back to be compiled again.
    if (this.#bytes > 0) {
      const nl = chunk.indexOf(NEWLINE);
      this.#parts.push(chunk.subarray(0, nl));
      const bytes = this.#bytes + nl;
      const collect = bytes >= COLLECT_AROUND_JOIN;
      if (collect) collectNow();
      const line = joined(this.#parts, bytes);
      const from = this.#markAt(line, 0);
      this.#parts = [];
      if (collect) collectNow();
      const text = decodeUtf8(line, from, line.length);
      if (line.length - from >= BYTES_WITH_LINE) this.#onLine(text, line.subarray(from));
      else this.#onLine(text);
      start = nl + 1;
    }
    if (start <= last) {
      // The complete lines left in this chunk, decoded in one go and cut at their newlines.
      const text = decodeUtf8(chunk, this.#markAt(chunk, start), last);
      let from = 0;
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
        this.#onLine(text.slice(from, nl));
        from = nl + 1;
      }
      this.#onLine(from === 0 ? text : text.slice(from));
    }
    // What follows the last newline opens the next line.
    this.#bytes = 0;
    if (last + 1 < chunk.length) this.#open(chunk.subarray(last + 1));
  }

  /** Adds bytes without a newline to the open line; past the limit, the line is dropped. */
  #open(bytes: Uint8Array): void {
    if (bytes.length === 0) return; // an empty read opens nothing: an open line has bytes
    this.#bytes += bytes.length;
    if (this.#bytes > this.#maxBytes) this.#drop();
    else this.#parts.push(bytes);
  }

  /**
   * Where the text of the whole lines from `start` in `bytes` begins: past the byte-order mark
   * that may open the stream (the decoder would keep it as text).
   */
  #markAt(bytes: Uint8Array, start: number): number {
    const marked = this.#atStart && bytes.length - start >= 3 && bytes[start] === 0xef &&
      bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf;
    this.#atStart = false;
    return marked ? start + 3 : start;
  }

  #drop(): void {
    this.#onDrop(this.#bytes);
    this.#parts = [];
    this.#bytes = 0;
    this.#skipping = true;
    this.#atStart = true;
  }
}

/**
 * The chunks of one line (always two or more: an open line and the chunk that ends it) as one
 * byte array of `total` bytes. A `Buffer`: its memory is not zeroed before the chunks overwrite
 * it.
 */
function joined(parts: Uint8Array[], total: number): Uint8Array {
  return Buffer.concat(parts, total);
}
