import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { composeResult } from "../../src/media/mod.ts";
import { fakeBridge, makeHost, valueOf } from "./_helpers.ts";

const host = makeHost({ poolSize: 1 });
after(() => host.close());

const GALLERY = readFileSync(new URL("../fixtures/lua/gallery.lua", import.meta.url), "utf8");
const bridge = () =>
  fakeBridge({ describe: (a) => ({ content: [{ type: "text", text: `a ${a.name}` }] }) });

describe("pictures from a script to MCP content", () => {
  test("nested image values become image blocks, numbered in the text", async () => {
    const value = valueOf(
      await host.run(GALLERY, {
        bridge: bridge(),
        globals: { args: { names: ["red-3x2.png", "green-7x6.gif", "lossless-9x8.webp"] } },
      }),
    );
    const { content } = composeResult(value);
    assert.equal(content.length, 5); // text + 3 items + the cover
    const text = JSON.parse((content[0] as { text: string }).text);
    // Lua tables have no key order, so numbering follows the JSON text; check it is consistent.
    const numbers = [
      ...text.items.map((i: { picture: { image: number } }) => i.picture.image),
      text.cover.image,
    ];
    assert.deepEqual([...numbers].sort(), [1, 2, 3, 4]);
    const mime = (n: number) => (content[n] as { mimeType: string }).mimeType;
    assert.deepEqual(numbers.map(mime), ["image/png", "image/gif", "image/webp", "image/png"]);
    assert.deepEqual(text.items[1].caption, "a green-7x6.gif");
    assert.deepEqual(text.items[1].picture, { type: "image", image: numbers[1] });
  });

  test("a script result with 17 pictures is refused naming the count and the ceiling", async () => {
    const value = valueOf(
      await host.run(GALLERY, {
        bridge: bridge(),
        globals: { args: { names: ["red-3x2.png"], extra: 15 } },
      }),
    );
    assert.throws(
      () => composeResult(value),
      /the result carries 17 pictures, over the ceiling of 16/,
    );
    const sixteen = valueOf(
      await host.run(GALLERY, {
        bridge: bridge(),
        globals: { args: { names: ["red-3x2.png"], extra: 14 } },
      }),
    );
    assert.equal(composeResult(sixteen).content.length, 17); // text + 16 pictures
  });
});
