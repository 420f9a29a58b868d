/**
 * The catalog's tools by exposed name: what a `Map` of them answers, for any names an upstream
 * sends (prototype keys, non-ASCII, names that differ in one code unit), across growth.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NameIndex } from "../../src/gateway/name-index.ts";

const HOSTILE = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "",
  "é",
  "e\u0301",
  "🚀",
];

describe("the index of tools by name", () => {
  it("answers get, has, size and iteration as a Map of the same items does", () => {
    const items = [...HOSTILE, ...Array.from({ length: 5000 }, (_, i) => `s${i % 7}__t${i}`)]
      .map((name, i) => ({ name, i }));
    const index = new NameIndex<{ name: string; i: number }>();
    const map = new Map<string, { name: string; i: number }>();
    for (const item of items) {
      index.add(item);
      map.set(item.name, item);
    }
    assert.equal(index.size, map.size);
    for (const name of [...map.keys(), "missing", "__proto__x", "s0__t5000", "valueOf"]) {
      assert.equal(index.get(name), map.get(name), name);
      assert.equal(index.has(name), map.has(name), name);
    }
    assert.deepEqual([...index.keys()], [...map.keys()]);
    assert.deepEqual([...index.values()], [...map.values()]);
    assert.deepEqual([...index], [...map]);
    const seen: string[] = [];
    index.forEach((v, k) => seen.push(`${k}=${v.i}`));
    assert.deepEqual(seen, [...map].map(([k, v]) => `${k}=${v.i}`));
    assert.equal(index.get(undefined as unknown as string), undefined);
  });

  it("holds a name once: adding it again throws, of() keeps the first", () => {
    const index = NameIndex.of([{ name: "__proto__", n: 1 }, { name: "__proto__", n: 2 }]);
    assert.equal(index.size, 1);
    assert.equal(index.get("__proto__")!.n, 1);
    assert.throws(() => index.add({ name: "__proto__", n: 3 }));
    assert.equal(Object.getPrototypeOf({}), Object.prototype);
  });
});
