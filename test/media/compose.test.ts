import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  checkToolResultPictures,
  composeResult,
  decodeBase64,
  type ImageValue,
  imageValueFromBase64,
  imageValueFromBytes,
} from "../../src/media/mod.ts";

const png = new Uint8Array(
  readFileSync(new URL("../fixtures/images/red-3x2.png", import.meta.url)),
);
const picture = (path?: string): ImageValue => imageValueFromBytes(png, path);

describe("image values", () => {
  test("carry type, mime_type, base64 data, bytes, size and path", () => {
    const value = picture("/source/a.png");
    assert.equal(value.type, "image");
    assert.equal(value.mime_type, "image/png");
    assert.equal(value.bytes, 84);
    assert.equal(value.width, 3);
    assert.equal(value.height, 2);
    assert.equal(value.path, "/source/a.png");
    assert.deepEqual(decodeBase64(value.data), png);
    const { path: _path, ...withoutPath } = value;
    assert.deepEqual(imageValueFromBase64(value.data), withoutPath);
    assert.equal("path" in imageValueFromBase64(value.data), false);
  });
});

describe("composeResult", () => {
  test("a string is text as is; nil is empty text", () => {
    assert.deepEqual(composeResult("hello"), { content: [{ type: "text", text: "hello" }] });
    assert.deepEqual(composeResult(null), { content: [{ type: "text", text: "" }] });
    assert.deepEqual(composeResult(undefined), { content: [{ type: "text", text: "" }] });
    assert.deepEqual(composeResult(42), { content: [{ type: "text", text: "42" }] });
  });

  test("pictures at any depth become image blocks numbered in sequence order, then sorted keys", () => {
    const a = picture();
    const b = { type: "image", data: a.data, mimeType: "image/png" }; // an MCP block counts too
    const result = composeResult({ verdict: "ok", shots: [a, { deeper: { b } }], last: a });
    assert.equal(result.content.length, 4);
    assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), {
      verdict: "ok",
      // "last" sorts before "shots", whatever order the keys were written in
      shots: [{ type: "image", image: 2 }, { deeper: { b: { type: "image", image: 3 } } }],
      last: { type: "image", image: 1 },
    });
    for (const block of result.content.slice(1)) {
      assert.deepEqual(block, { type: "image", data: a.data, mimeType: "image/png" });
    }
  });

  test("a returned picture alone is one text placeholder and one image", () => {
    const result = composeResult(picture());
    assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), {
      type: "image",
      image: 1,
    });
    assert.equal(result.content.length, 2);
  });

  test("16 pictures pass; the 17th is an error naming the count and the ceiling", () => {
    const sixteen = Array.from({ length: 16 }, () => picture());
    assert.equal(composeResult({ list: sixteen }).content.length, 17);
    assert.throws(
      () => composeResult({ list: sixteen, extra: { nested: [picture()] } }),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, "TOO_LARGE");
        assert.equal(err.message, "the result carries 17 pictures, over the ceiling of 16");
        return true;
      },
    );
    assert.throws(
      () => composeResult([picture(), picture()], { maxPictures: 1 }),
      /2 pictures, over the ceiling of 1/,
    );
  });

  test("upstream results: image blocks pass through, over the ceiling is an error", () => {
    const block = { type: "image", data: "AAAA", mimeType: "image/png" };
    const ok = { content: [{ type: "text", text: "x" }, block] };
    assert.equal(checkToolResultPictures(ok), ok);
    const many = { content: Array.from({ length: 17 }, () => block) };
    assert.throws(() => checkToolResultPictures(many), /17 pictures, over the ceiling of 16/);
  });
});
