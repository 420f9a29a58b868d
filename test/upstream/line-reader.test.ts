/**
 * Lines out of stdout chunks, with every cut a pipe can make: inside a line, inside a UTF-8
 * character, right after a newline, many lines per chunk, and a line over the byte limit.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LineReader } from "../../src/upstream/line-reader.ts";

function reader(maxBytes = 1 << 20) {
  const lines: string[] = [];
  const drops: number[] = [];
  const r = new LineReader(maxBytes, (l) => lines.push(l), (b) => drops.push(b));
  return { r, lines, drops };
}

const bytes = (s: string) => new TextEncoder().encode(s);

describe("the stdout line reader", () => {
  it("gives the same lines for every way of cutting the bytes in two or three", () => {
    const text = '{"a":"héllo"}\n{"b":"€ 𝄞"}\n\nlast\n';
    const all = bytes(text);
    const want = ['{"a":"héllo"}', '{"b":"€ 𝄞"}', "", "last"];
    for (let i = 0; i <= all.length; i++) {
      for (let j = i; j <= all.length; j++) {
        const { r, lines } = reader();
        r.push(all.subarray(0, i));
        r.push(all.subarray(i, j));
        r.push(all.subarray(j));
        assert.deepEqual(lines, want, `cut at ${i} and ${j}`);
      }
    }
  });

  it("joins a line fed one byte at a time", () => {
    const { r, lines } = reader();
    for (const b of bytes("€uro\n")) r.push(Uint8Array.of(b));
    assert.deepEqual(lines, ["€uro"]);
  });

  it("keeps an unfinished last line until its newline comes", () => {
    const { r, lines } = reader();
    r.push(bytes("one\ntw"));
    assert.deepEqual(lines, ["one"]);
    r.push(bytes("o"));
    assert.deepEqual(lines, ["one"]);
    r.push(bytes("\n"));
    assert.deepEqual(lines, ["one", "two"]);
  });

  it("replaces invalid UTF-8 and goes on with the next line", () => {
    const { r, lines } = reader();
    r.push(Uint8Array.of(0xff, 0xfe, 0x0a, 0x6f, 0x6b, 0x0a));
    assert.deepEqual(lines, ["\ufffd\ufffd", "ok"]);
  });

  it("drops a line over the limit whole, up to its newline, and reads the next", () => {
    const { r, lines, drops } = reader(10);
    r.push(bytes("short\n0123456"));
    r.push(bytes("789abc")); // 13 bytes open: over the limit
    r.push(bytes('{"jsonrpc":"2.0"}')); // still the dropped line
    r.push(bytes("\nnext\n"));
    assert.deepEqual(lines, ["short", "next"]);
    assert.deepEqual(drops, [13]);
  });

  it("drops an over-long tail that arrives with other lines in one chunk", () => {
    const { r, lines, drops } = reader(4);
    r.push(bytes("ab\n0123456789"));
    r.push(bytes("xyz\ncd\n"));
    assert.deepEqual(lines, ["ab", "cd"]);
    assert.deepEqual(drops, [10]);
  });

  it("forgets half a character of a dropped line", () => {
    const { r, lines } = reader(3);
    const euro = bytes("€"); // 3 bytes
    r.push(Uint8Array.of(0x61, 0x62, 0x63, euro[0]!)); // 4 bytes open: dropped
    r.push(Uint8Array.of(euro[1]!, euro[2]!, 0x0a));
    r.push(bytes("é\n"));
    assert.deepEqual(lines, ["é"]);
  });

  it("strips a byte-order mark only where the stream starts or a dropped line ended", () => {
    const { r, lines } = reader(6);
    const bom = [0xef, 0xbb, 0xbf];
    r.push(Uint8Array.of(bom[0]!)); // a mark cut across chunks
    r.push(Uint8Array.of(bom[1]!, bom[2]!, ...bytes("a\n"), ...bom, ...bytes("b\n")));
    r.push(bytes("0123456789")); // open past the limit: dropped
    r.push(bytes("\n"));
    r.push(Uint8Array.of(...bom, ...bytes("c\n"), ...bom, ...bytes("d\n")));
    assert.deepEqual(lines, ["a", "\ufeffb", "c", "\ufeffd"]);
  });

  it("joins a line of many chunks, characters cut anywhere, into the text it was", () => {
    const text = `{"t":"${"é€𝄞x".repeat(5000)}"}`;
    const all = bytes(`${text}\n${text}\n`);
    for (const size of [1, 7, 4096, 65536]) {
      const { r, lines } = reader();
      for (let i = 0; i < all.length; i += size) r.push(all.subarray(i, i + size));
      assert.deepEqual(lines, [text, text], `chunks of ${size} bytes`);
    }
  });

  it("hands a long line that spanned chunks on with the bytes it was decoded from", () => {
    const text = `{"t":"${"é€𝄞x".repeat(120_000)}"}`; // past 1 MiB
    const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
    const body = bytes(`${text}\nshort\n`);
    const all = new Uint8Array(bom.length + body.length);
    all.set(bom);
    all.set(body, bom.length);
    const got: [string, Uint8Array | undefined][] = [];
    const r = new LineReader(1 << 22, (l, b) => got.push([l, b]), () => {});
    for (let i = 0; i < all.length; i += 65536) r.push(all.subarray(i, i + 65536));
    assert.equal(got.length, 2);
    assert.ok(got[0]![0] === text);
    // Without the byte-order mark, exactly the text's UTF-8.
    const want = bytes(text);
    const given = got[0]![1];
    assert.ok(given?.length === want.length && given.every((b, i) => b === want[i]));
    assert.deepEqual(got[1], ["short", undefined]);
  });

  it("reads a line long enough to be joined between collections, and the line after it", () => {
    const text = `{"t":"${"0123456789".repeat(1_700_000)}"}`; // past 16 MiB
    const all = bytes(`${text}\nnext\n`);
    const { r, lines } = reader(64 * 1024 * 1024);
    for (let i = 0; i < all.length; i += 65536) r.push(all.subarray(i, i + 65536));
    assert.equal(lines.length, 2);
    assert.ok(lines[0] === text, "the long line changed");
    assert.equal(lines[1], "next");
  });
});
