/**
 * The runtime's UTF-8 decoder: whichever decoder it picks for a length, a range of bytes reads as
 * a non-fatal `TextDecoder` reads it — invalid bytes as U+FFFD, a byte-order mark kept — for
 * short ranges and for ranges long enough to take the other decoder, at any offset.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeUtf8 } from "../../src/runtime/mod.ts";

const reference = new TextDecoder("utf-8", { ignoreBOM: true });
const encode = (s: string) => new TextEncoder().encode(s);

/** `bytes` inside a larger buffer, `pad` bytes in, so offsets into a shared buffer are used. */
function framed(bytes: Uint8Array, pad: number): { all: Uint8Array; start: number; end: number } {
  const backing = new Uint8Array(bytes.length + 2 * pad + 16).fill(0x41);
  backing.set(bytes, pad + 8);
  return { all: backing.subarray(8), start: pad, end: pad + bytes.length };
}

const MALFORMED = [
  [0xff],
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9d, 0x84],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
];

describe("decodeUtf8", () => {
  for (const length of [0, 40, 64 * 1024, 300 * 1024]) {
    it(`reads ${length} bytes of mixed text with a mark and malformed sequences as the reference does`, () => {
      const parts: number[] = [0xef, 0xbb, 0xbf];
      const text = encode("héllo € 𝄞 日本 ");
      for (let i = 0; parts.length < length; i++) {
        parts.push(...text, ...MALFORMED[i % MALFORMED.length]!);
      }
      const bytes = Uint8Array.from(parts.slice(0, Math.max(length, 3)));
      for (const pad of [0, 5]) {
        const { all, start, end } = framed(bytes, pad);
        assert.equal(decodeUtf8(all, start, end), reference.decode(bytes));
      }
    });
  }

  it("reads a long ASCII range out of the middle of a buffer", () => {
    const bytes = encode(`{"text":"${"x".repeat(200 * 1024)}"}`);
    const { all, start, end } = framed(bytes, 3);
    const text = decodeUtf8(all, start, end);
    assert.equal(text.length, bytes.length);
    assert.equal(text, reference.decode(bytes));
  });
});
