/**
 * The ring the replay store keeps log and progress notifications in: texts come out as they went
 * in while it wraps around and grows, never past its limit, and a text that does not fit beside
 * what is held is refused until the oldest is let go.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type RingSlot, TextRing } from "../../src/session/legacy/text-ring.ts";

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;

describe("the text ring", () => {
  it("keeps the newest texts readable while it wraps, within its limit", () => {
    const ring = new TextRing();
    const limit = 100_000;
    const held: Array<[RingSlot, string]> = [];
    let heldBytes = 0;
    for (let i = 0; i < 2_000; i++) {
      // Sizes that do not divide the buffer, and text that is not all ASCII.
      const text = `${i} ${"é".repeat((i * 7919) % 3000)}`;
      const n = bytes(text);
      let slot: RingSlot | undefined;
      while (!(slot = heldBytes + n <= limit ? ring.put(text, n, limit) : undefined)) {
        assert.ok(held.length > 0, `text ${i} refused with nothing held`);
        ring.shift();
        heldBytes -= held.shift()![0].length;
      }
      held.push([slot, text]);
      heldBytes += n;
      assert.ok(ring.capacity <= limit, `capacity ${ring.capacity}`);
      if (i % 97 === 0) {
        for (const [s, t] of held) assert.equal(ring.text(s), t);
      }
    }
    for (const [s, t] of held) assert.equal(ring.text(s), t);
    assert.ok(held.length > 10, `${held.length} held at the end`);
  });

  it("refuses a text larger than its limit, and one that does not fit beside what it holds", () => {
    const ring = new TextRing();
    assert.equal(ring.put("x".repeat(11), 11, 10), undefined);
    const a = ring.put("aaaaaa", 6, 10)!;
    assert.equal(ring.put("bbbbbb", 6, 10), undefined);
    ring.shift();
    const b = ring.put("bbbbbb", 6, 10)!;
    assert.equal(ring.text(b), "bbbbbb");
    assert.equal(a.length, 6);
  });

  it("shrinks back as texts leave, keeping the ones still held", () => {
    const ring = new TextRing();
    const limit = 4 * 1024 * 1024;
    const text = (i: number) => `${i} ${"x".repeat(64 * 1024)}`;
    const slots = [...Array(60).keys()].map((i) => ring.put(text(i), bytes(text(i)), limit)!);
    assert.ok(ring.capacity >= 60 * 64 * 1024, `capacity ${ring.capacity}`);
    for (let i = 0; i < 58; i++) ring.shift();
    assert.ok(ring.capacity <= 512 * 1024, `capacity ${ring.capacity} for two texts`);
    assert.equal(ring.text(slots[58]!), text(58));
    assert.equal(ring.text(slots[59]!), text(59));
  });
});
