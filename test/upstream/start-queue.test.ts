/**
 * Upstreams start in waves: at most a fixed number of starts begun and unfinished at once, a
 * start that hangs holds its slot only briefly, and nothing is started before the event loop
 * has had a turn (requests already at the port are served first).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startInWaves } from "../../src/upstream/start-queue.ts";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe("starting upstreams in waves", () => {
  it("never has more than the slots' number of starts running", async () => {
    let running = 0;
    let most = 0;
    let finished = 0;
    await startInWaves(
      Array.from({ length: 20 }, (_, i) => i),
      async () => {
        most = Math.max(most, ++running);
        await sleep(30);
        running--;
        finished++;
      },
      4,
      10_000,
    );
    assert.equal(finished, 20);
    assert.equal(most, 4);
  });

  it("a start that hangs gives its slot back after the hold time", async () => {
    const began: number[] = [];
    const t0 = performance.now();
    const hang = sleep(1_000);
    await startInWaves(
      [0, 1, 2, 3],
      async (i) => {
        began.push(performance.now() - t0);
        if (i === 0) await hang;
      },
      1,
      50,
    );
    assert.equal(began.length, 4);
    // Item 1 began once item 0 held its slot for 50 ms, not after its 1 s.
    assert.ok(began[1]! >= 45 && began[1]! < 600, `item 1 began after ${began[1]} ms`);
  });

  it("lets the event loop turn before the first start", async () => {
    const order: string[] = [];
    setTimeout(() => order.push("request served"), 0);
    await startInWaves([0], async () => {
      order.push("start");
    });
    assert.deepEqual(order, ["request served", "start"]);
  });
});
