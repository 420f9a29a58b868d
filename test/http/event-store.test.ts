import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { describe, it } from "node:test";
import { MemoryEventStore } from "../../src/session/legacy/mod.ts";

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

  it("lets a closed session's events go with it, and keeps the others'", async () => {
    const store = new MemoryEventStore();
    const gone = store.scoped("session-a");
    const kept = store.scoped("session-b");
    await gone.storeEvent("s", big(1, 10));
    await gone.storeEvent("s", big(2, 10));
    const k1 = await kept.storeEvent("s", { jsonrpc: "2.0", method: "n1" });
    await kept.storeEvent("s", { jsonrpc: "2.0", method: "n2" });
    const before = store.bytes;
    store.forget("session-a");
    assert.ok(before - store.bytes >= 20 * 1024, `${before} -> ${store.bytes} bytes`);
    store.forget("session-a"); // twice is harmless
    const seen: string[] = [];
    await kept.replayEventsAfter(k1, {
      send: (_id, m) => Promise.resolve(void seen.push((m as { method: string }).method)),
    });
    assert.deepEqual(seen, ["n2"]);
    // Evicted events leave the owner's index too: forgetting after eviction changes nothing.
    const small = new MemoryEventStore(2);
    await small.scoped("x").storeEvent("s", { jsonrpc: "2.0", method: "a" });
    for (let i = 0; i < 3; i++) await small.storeEvent("t", { jsonrpc: "2.0", method: "b" });
    const held = small.bytes;
    small.forget("x");
    assert.equal(small.bytes, held);
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

  it("counts a notification by its real size, so a resume after large ones stays in the bound", async () => {
    const bound = 1024 * 1024;
    const store = new MemoryEventStore(10_000, bound);
    // 40 log messages of 32 Ki two-byte characters (64 KiB each): 2.5 MiB, past the bound.
    const log = (i: number) => ({
      jsonrpc: "2.0" as const,
      method: "notifications/message",
      params: { level: "info", data: "é".repeat(32 * 1024) + i },
    });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await store.storeEvent("s", log(i)));
    assert.ok(store.bytes <= bound, `holds ${store.bytes} bytes`);
    // A client resuming from any event it saw gets at most the bound back.
    let most = 0;
    for (const id of ids) {
      let replayed = 0;
      await store.replayEventsAfter(id, {
        send: (_id, m) => Promise.resolve(void (replayed += Buffer.byteLength(JSON.stringify(m)))),
      });
      most = Math.max(most, replayed);
    }
    assert.ok(most <= bound, `a resume replayed ${most} bytes (bound ${bound})`);
    assert.ok(most > bound / 2, `the store still replays recent events (${most} bytes)`);
  });

  it("holds log and progress notifications within their own share, never at a request's cost", async () => {
    const share = 512 * 1024;
    const store = new MemoryEventStore(10_000, 1024 * 1024, () => share);
    const start = await store.storeEvent("s", { jsonrpc: "2.0", method: "n0" });
    const ask = { jsonrpc: "2.0" as const, id: 7, method: "elicitation/create", params: {} };
    await store.storeEvent("s", ask);
    const log = (i: number) => ({
      jsonrpc: "2.0" as const,
      method: i % 2 ? "notifications/message" : "notifications/progress",
      params: { level: "info", data: "x".repeat(64 * 1024), i },
    });
    // 3 MiB of them: three times the whole bound, six times their share.
    const logIds: string[] = [];
    for (let i = 0; i < 48; i++) logIds.push(await store.storeEvent("s", log(i)));
    const seen: unknown[] = [];
    await store.replayEventsAfter(start, {
      send: (_id, m) => Promise.resolve(void seen.push(m)),
    });
    assert.deepEqual(seen[0], ask, "the request the client must answer is still replayed");
    const kept = seen.slice(1) as { params: { i: number } }[];
    assert.ok(store.bytes <= share + 1024, `holds ${store.bytes} bytes`);
    assert.ok(kept.length >= 6 && kept.length <= 8, `kept ${kept.length} notifications`);
    assert.deepEqual(
      kept.map((m) => m.params.i),
      [...Array(kept.length)].map((_, k) => 48 - kept.length + k),
    );
    // Resuming from a log message let go since replays what is left after it.
    const after: unknown[] = [];
    await store.replayEventsAfter(logIds[0]!, {
      send: (_id, m) => Promise.resolve(void after.push(m)),
    });
    assert.deepEqual(after, kept);
  });

  it("gives each session its own share: one session's flood keeps another's log messages", async () => {
    const store = new MemoryEventStore(10_000, 32 * 1024 * 1024, () => 256 * 1024);
    const quiet = store.scoped("quiet");
    const loud = store.scoped("loud");
    const start = await quiet.storeEvent("s", { jsonrpc: "2.0", method: "n0" });
    const note = {
      jsonrpc: "2.0" as const,
      method: "notifications/message",
      params: { level: "info", data: "kept" },
    };
    await quiet.storeEvent("s", note);
    const big = { ...note, params: { level: "info", data: "x".repeat(64 * 1024) } };
    for (let i = 0; i < 40; i++) await loud.storeEvent("s", big);
    assert.ok(store.bytes <= 256 * 1024 + 1024, `holds ${store.bytes} bytes`);
    const seen: unknown[] = [];
    await quiet.replayEventsAfter(start, { send: (_id, m) => Promise.resolve(void seen.push(m)) });
    assert.deepEqual(seen, [note]);
  });

  it("lets a log message larger than the share go alone, keeping the ones before it", async () => {
    const store = new MemoryEventStore(10_000, 32 * 1024 * 1024, () => 64 * 1024);
    const start = await store.storeEvent("s", { jsonrpc: "2.0", method: "n0" });
    const note = (data: string) => ({
      jsonrpc: "2.0" as const,
      method: "notifications/message",
      params: { level: "info", data },
    });
    await store.storeEvent("s", note("small ünïcode"));
    await store.storeEvent("s", note("x".repeat(100 * 1024)));
    await store.storeEvent("s", note("after"));
    const seen: unknown[] = [];
    await store.replayEventsAfter(start, { send: (_id, m) => Promise.resolve(void seen.push(m)) });
    assert.deepEqual(seen, [note("small ünïcode"), note("after")]);
  });

  it("gives a session's writer its own events from an id on, and none of another session's", async () => {
    const store = new MemoryEventStore();
    const mine = store.scoped("mine");
    const theirs = store.scoped("theirs");
    const note = (data: string) => ({
      jsonrpc: "2.0" as const,
      method: "notifications/message",
      params: { level: "info", data },
    });
    const first = mine.store("s", note("one"), JSON.stringify(note("one")));
    mine.store("s", note("two"), JSON.stringify(note("two")));
    const secret = theirs.store("s", note("secret"), JSON.stringify(note("secret")));
    assert.deepEqual(mine.eventsFrom(first).map((e) => JSON.parse(e.text)), [
      note("one"),
      note("two"),
    ]);
    assert.deepEqual(mine.eventsFrom(secret), []);
  });
});
