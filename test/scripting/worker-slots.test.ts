// Admission of script runs, in process: slots per nesting depth, a share per token, arrival order.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WorkerSlots } from "../../src/scripting/host/worker-slots.ts";
import { MAX_DEPTH } from "../../src/scripting/mod.ts";

/** Whether a promise has settled after pending callbacks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  await new Promise((r) => setTimeout(r, 0));
  return done;
}

describe("worker slots", () => {
  it("a token holds at most its share; another token still starts", async () => {
    const slots = new WorkerSlots(4, 2);
    await slots.acquire(0, "a");
    await slots.acquire(0, "a");
    const third = slots.acquire(0, "a");
    assert.equal(await settled(third), false, "a's third run waits");
    assert.equal(await settled(slots.acquire(0, "b")), true, "b starts at once");
    slots.release(0, "a");
    assert.equal(await settled(third), true, "a's third run starts when one of its runs ends");
  });

  it("a full depth does not stop the next depth", async () => {
    const slots = new WorkerSlots(1, 1);
    await slots.acquire(0, null);
    assert.equal(await settled(slots.acquire(0, null)), false);
    assert.equal(await settled(slots.acquire(1, null)), true);
  });

  it("waiters start in arrival order among those allowed to start", async () => {
    const slots = new WorkerSlots(2, 1);
    await slots.acquire(0, "a");
    await slots.acquire(0, "b");
    const order: string[] = [];
    const a2 = slots.acquire(0, "a").then(() => order.push("a2"));
    const c = slots.acquire(0, "c").then(() => order.push("c"));
    slots.release(0, "b"); // frees a slot: a is still at its share, so c goes first
    await c;
    assert.deepEqual(order, ["c"]);
    slots.release(0, "a");
    await a2;
    assert.deepEqual(order, ["c", "a2"]);
  });

  it("runs without an owner have no share", async () => {
    const slots = new WorkerSlots(3, 1);
    for (let i = 0; i < 3; i++) assert.equal(await settled(slots.acquire(0, null)), true);
  });

  it("nesting deeper than the limit is refused with SCRIPT_LIMIT", async () => {
    const slots = new WorkerSlots(2, 1);
    await assert.rejects(slots.acquire(MAX_DEPTH + 1, null), { code: "SCRIPT_LIMIT" });
    assert.equal(await settled(slots.acquire(MAX_DEPTH, null)), true);
  });
});
