/**
 * The deep JSON comparison (a filter's "changed nothing", the modern door's envelope verdicts):
 * own keys in any order, nothing inherited, and a key one side lacks — however the counts fall —
 * makes two values different.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sameJson } from "../../../src/tools/filters/same-json.ts";

describe("sameJson", () => {
  it("is true for equal values whatever their keys' order", () => {
    assert.equal(sameJson({ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 }), true);
    assert.equal(sameJson({}, {}), true);
    assert.equal(sameJson([], []), true);
  });

  it("is false when either side has a key the other lacks, or a value differs", () => {
    assert.equal(sameJson({ a: 1 }, { a: 1, b: 2 }), false);
    assert.equal(sameJson({ a: 1, b: 2 }, { a: 1 }), false);
    assert.equal(sameJson({ a: 1, b: 2 }, { a: 1, c: 2 }), false);
    assert.equal(sameJson({ a: { b: 1 } }, { a: { b: 2 } }), false);
    assert.equal(sameJson({ a: undefined }, {}), false);
    assert.equal(sameJson([1, 2], [2, 1]), false);
    assert.equal(sameJson({ 0: 1 }, [1]), false);
    assert.equal(sameJson(null, {}), false);
  });

  it("counts own keys only: inherited ones are not compared, a parsed `__proto__` key is", () => {
    const inherits = Object.create({ a: 1 }) as Record<string, unknown>;
    assert.equal(sameJson(inherits, {}), true);
    assert.equal(sameJson({}, inherits), true);
    assert.equal(sameJson(JSON.parse('{"__proto__":1}'), {}), false);
    assert.equal(sameJson(JSON.parse('{"__proto__":1}'), JSON.parse('{"__proto__":1}')), true);
  });
});
