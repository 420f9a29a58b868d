import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryEventStore } from "../../src/http/mod.ts";

const big = (id: number, kb: number) => ({
  jsonrpc: "2.0" as const,
  id,
  result: { content: [{ type: "text", text: "x".repeat(kb * 1024) }] },
});

describe("the resumability event store", () => {
  it("replays the events of a stream after the last one seen", async () => {
    const store = new MemoryEventStore();
    const a1 = await store.storeEvent("a", { jsonrpc: "2.0", method: "n1" });
    await store.storeEvent("b", { jsonrpc: "2.0", method: "other" });
    await store.storeEvent("a", { jsonrpc: "2.0", method: "n2" });
    const seen: string[] = [];
    const stream = await store.replayEventsAfter(a1, {
      send: (_id, m) => Promise.resolve(void seen.push((m as { method: string }).method)),
    });
    assert.equal(stream, "a");
    assert.deepEqual(seen, ["n2"]);
  });

  it("drops the oldest events once the byte ceiling is passed", async () => {
    const store = new MemoryEventStore(10_000, 1024 * 1024);
    for (let i = 0; i < 20; i++) await store.storeEvent("s", big(i, 100));
    assert.ok(store.bytes <= 1024 * 1024, `holds ${store.bytes} bytes`);
    assert.ok(store.bytes > 800 * 1024);
  });

  it("drops the oldest events once the count ceiling is passed", async () => {
    const store = new MemoryEventStore(3);
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await store.storeEvent("s", { jsonrpc: "2.0", method: `m${i}` }));
    }
    const seen: string[] = [];
    await store.replayEventsAfter(ids[2]!, {
      send: (_id, m) => Promise.resolve(void seen.push((m as { method: string }).method)),
    });
    assert.deepEqual(seen, ["m3", "m4"]);
  });
});
