import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { crc32, readImageInfo } from "../../src/media/mod.ts";

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url)));

function raises(bytes: Uint8Array, pattern: RegExp): void {
  assert.throws(() => readImageInfo(bytes), (err: Error & { code?: string }) => {
    assert.equal(err.code, "IMAGE_INVALID");
    assert.match(err.message, pattern);
    return true;
  });
}

describe("readImageInfo on real files", () => {
  for (
    const [name, mimeType, width, height] of [
      ["red-3x2.png", "image/png", 3, 2],
      ["grad-5x4.jpg", "image/jpeg", 5, 4],
      ["progressive-13x12.jpg", "image/jpeg", 13, 12],
      ["green-7x6.gif", "image/gif", 7, 6],
      ["lossy-7x6.webp", "image/webp", 7, 6],
      ["lossless-9x8.webp", "image/webp", 9, 8],
      ["alpha-11x10.webp", "image/webp", 11, 10],
    ] as const
  ) {
    test(`${name} is ${mimeType} ${width}x${height}`, () => {
      assert.deepEqual(readImageInfo(fixture(name)), { mimeType, width, height });
    });
  }
});

describe("readImageInfo refuses", () => {
  test("bytes of no supported format", () => {
    raises(new TextEncoder().encode("hello world, not a picture"), /not a PNG, JPEG, GIF or WebP/);
    raises(new Uint8Array(0), /not a PNG/);
    raises(new TextEncoder().encode("BM6\u0000\u0000\u0000"), /not a PNG/); // BMP
  });

  test("every truncation of every fixture header", () => {
    const cut: Record<string, number> = {
      "red-3x2.png": 33,
      "green-7x6.gif": 13,
      "lossy-7x6.webp": 30,
      "lossless-9x8.webp": 30,
      "alpha-11x10.webp": 30,
    };
    for (const [name, headerLength] of Object.entries(cut)) {
      const bytes = fixture(name);
      for (let n = 1; n < headerLength; n++) {
        assert.throws(
          () => readImageInfo(bytes.subarray(0, n)),
          /truncated|not a PNG|shorter than/,
          `${name} cut at ${n}`,
        );
      }
    }
  });

  test("a JPEG cut before its frame header", () => {
    const jpeg = fixture("grad-5x4.jpg");
    for (const n of [3, 4, 10, 20, 100]) raises(jpeg.subarray(0, n), /truncated|marker expected/);
  });

  test("a PNG whose IHDR lies (checksum mismatch)", () => {
    const png = fixture("red-3x2.png").slice();
    png[19] = 200; // width 3 → 200 without fixing the CRC
    raises(png, /checksum/);
  });

  test("a PNG whose first chunk is not IHDR", () => {
    const png = fixture("red-3x2.png").slice();
    png.set(new TextEncoder().encode("IDAT"), 12);
    raises(png, /does not start with IHDR/);
  });

  test("headers stating no size", () => {
    const gif = fixture("green-7x6.gif").slice();
    gif[6] = 0;
    gif[7] = 0;
    raises(gif, /states no size \(0x6\)/);
    const png = fixture("red-3x2.png").slice();
    png.set([0, 0, 0, 0], 16);
    const crc = crc32(png.subarray(12, 29));
    png.set([crc >>> 24, (crc >>> 16) & 255, (crc >>> 8) & 255, crc & 255], 29);
    raises(png, /states no size \(0x2\)/);
  });

  test("a JPEG with no frame header before the scan", () => {
    raises(
      new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xda, 0x00, 0x02]),
      /no frame header/,
    );
  });

  test("a WebP whose RIFF size claims more bytes than there are", () => {
    const webp = fixture("lossy-7x6.webp").slice();
    webp[4] = 0xff;
    raises(webp, /shorter than its RIFF header/);
  });

  test("a WebP with a broken VP8 start code or unknown chunk", () => {
    const lossy = fixture("lossy-7x6.webp").slice();
    lossy[23] = 0;
    raises(lossy, /start code/);
    const other = fixture("lossy-7x6.webp").slice();
    other.set(new TextEncoder().encode("VP9 "), 12);
    raises(other, /not VP8, VP8L or VP8X/);
  });

  test("crc32 matches the standard check value", () => {
    assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  });
});
