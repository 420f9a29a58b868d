/**
 * @module UTF-8 bytes to text, by whichever decoder the runtime runs cheapest for the size: on
 * Deno always its `TextDecoder` (its `Buffer` decodes a 1 MiB line several times more slowly);
 * on Bun the `TextDecoder` for short text and `Buffer`'s decoder for long text — its
 * `TextDecoder` is the cheaper one for the short lines a call's answer is made of, and several
 * times the dearer for a line of a megabyte. Both turn invalid bytes into U+FFFD alike and keep a
 * byte-order mark as text (the caller strips one where a stream starts).
 */
import { Buffer } from "node:buffer";

declare const Bun: unknown;

/** From this many bytes on, Bun decodes with `Buffer` (see the module comment). */
const LONG_BYTES = 64 * 1024;

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

const decode = (bytes: Uint8Array, start: number, end: number): string =>
  decoder.decode(bytes.subarray(start, end));

const decodeLong = (bytes: Uint8Array, start: number, end: number): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8", start, end);

/** The text of `bytes` from `start` to `end` (byte offsets); nothing is copied before decoding. */
export const decodeUtf8: (bytes: Uint8Array, start: number, end: number) => string =
  typeof Bun === "undefined"
    ? decode
    : (bytes, start, end) => (end - start < LONG_BYTES ? decode : decodeLong)(bytes, start, end);
