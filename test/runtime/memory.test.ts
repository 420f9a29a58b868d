// compactHeap gives start-up's garbage back to the system at once (on Bun; elsewhere a no-op):
// 64 MiB of dropped arrays leave the process's RSS after one call, not at the collector's leisure.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  compactHeap,
  CompactionSchedule,
  onCompacted,
  runtimeName,
} from "../../src/runtime/mod.ts";

describe("compactHeap", () => {
  it("returns dropped memory to the system (Bun) and never throws", () => {
    let junk: number[][] | null = [];
    for (let i = 0; i < 64; i++) junk.push(new Array(128 * 1024).fill(i + 0.5)); // 64 × 1 MiB
    const held = process.memoryUsage().rss;
    junk = null;
    compactHeap();
    const after = process.memoryUsage().rss;
    if (runtimeName() !== "bun") return; // the call is a no-op there; it must not throw
    assert.ok(
      held - after > 32 * 1024 ** 2,
      `RSS ${held} -> ${after}: less than 32 MiB given back`,
    );
  });
});

describe("CompactionSchedule", () => {
  // A long idle wait: these cases count collections alone.
  const timing = { worthBytes: 1000, quietMs: 40, maxWaitMs: 200, idleMs: 60_000 };
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** A schedule counting its collections in `runs.n`. */
  const counting = (runs: { n: number }) =>
    new CompactionSchedule(
      { collect: () => runs.n++, compact: () => {}, activity: () => 0 },
      timing,
    );

  it("does not compact for less than is worth it", async () => {
    const runs = { n: 0 };
    const s = counting(runs);
    s.note(400);
    s.note(400);
    await wait(120);
    assert.equal(runs.n, 0);
    s.cancel();
  });

  it("compacts once, after the releases pause", async () => {
    const runs = { n: 0 };
    const s = counting(runs);
    for (let i = 0; i < 5; i++) {
      s.note(300);
      await wait(5);
    }
    assert.equal(runs.n, 0, "not while releases keep coming");
    await wait(120);
    assert.equal(runs.n, 1);
    s.cancel();
  });

  it("compacts within its longest wait under steady releases", async () => {
    const runs = { n: 0 };
    const s = counting(runs);
    const t0 = Date.now();
    while (Date.now() - t0 < 2_000 && runs.n === 0) {
      s.note(600);
      await wait(10);
    }
    assert.equal(runs.n, 1, "a steady stream of releases never pauses, yet it compacted");
    s.cancel();
  });

  it("compacts once more for the tail of a burst, then waits for a full count again", async () => {
    const runs = { n: 0 };
    const s = counting(runs);
    s.note(1200);
    await wait(120);
    assert.equal(runs.n, 1);
    s.note(10); // the last sessions of the burst closed after the compaction
    await wait(120);
    assert.equal(runs.n, 2, "the tail was compacted");
    s.note(10);
    await wait(120);
    assert.equal(runs.n, 2, "a trickle after the burst waits for a full count");
    s.cancel();
  });

  it("collects under calls, and compacts only once calls have paused for its idle wait", async () => {
    const seen = { collect: 0, compact: 0 };
    let calls = 0;
    const s = new CompactionSchedule({
      collect: () => seen.collect++,
      compact: () => seen.compact++,
      activity: () => calls,
    }, { ...timing, idleMs: 80 });
    s.note(1200);
    // Calls keep coming for longer than the idle wait: collected, never compacted.
    const t0 = Date.now();
    while (Date.now() - t0 < 300) {
      calls++;
      await wait(10);
    }
    assert.equal(seen.collect, 1);
    assert.equal(seen.compact, 0, "compacted while calls were being served");
    await wait(250); // no call for three idle waits
    assert.equal(seen.compact, 1, "not compacted once calls paused");
    await wait(200);
    assert.equal(seen.compact, 1, "compacted again with nothing released");
    s.cancel();
  });

  it("collects for released buffers but never compacts for them; enough small objects earn it", async () => {
    const seen = { collect: 0, compact: 0 };
    const s = new CompactionSchedule({
      collect: () => seen.collect++,
      compact: () => seen.compact++,
      activity: () => 0,
    }, { ...timing, idleMs: 60 });
    s.note(100); // a few sessions closed, too little to compact for
    s.note(1200, "buffers");
    await wait(250); // the collection, then no call for four idle waits
    assert.equal(seen.collect, 1);
    assert.equal(seen.compact, 0, "compacted (dropping the compiled code) for large buffers");
    s.note(1000, "buffers");
    s.note(1000); // many sessions closed in the same burst
    await wait(250);
    assert.equal(seen.collect, 2);
    assert.equal(seen.compact, 1, "enough small objects among the releases were not compacted");
    s.cancel();
  });
});

describe("onCompacted", () => {
  it("tells each listener after a compaction (Bun; none runs elsewhere) until it unsubscribes", () => {
    let heard = 0;
    const off = onCompacted(() => heard++);
    compactHeap();
    off();
    compactHeap();
    assert.equal(heard, runtimeName() === "bun" ? 1 : 0);
  });
});
