/**
 * The event-stream guard in-process: which events it may drop, that it drops the oldest first,
 * closes a stream with nothing droppable, never drops for a client that keeps up, and ends a
 * stream at its token's expiry. The gateway-level tests (`stream-backpressure.test.ts`,
 * `../security/stream-expiry.test.ts`) run the same guard behind real sockets.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  guardStream,
  isDroppableEvent,
  markDroppable,
  type StreamGuardEvent,
} from "../../src/shared/stream-guard.ts";

const encoder = new TextEncoder();
const event = (message: unknown) =>
  encoder.encode(`event: message\nid: x_1\ndata: ${JSON.stringify(message)}\n\n`);
const log = (i: number, size = 1000) =>
  event({
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "info", data: `${i} ${"x".repeat(size)}` },
  });
const update = (i: number) =>
  event({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: `u${i}` } });

/** A producer stream the test writes to, as the SDK's transport does. */
function producer() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => void (cancelled = true),
  });
  return {
    response: new Response(body, { headers: { "content-type": "text/event-stream" } }),
    write: (chunk: Uint8Array) => controller.enqueue(chunk),
    end: () => controller.close(),
    get cancelled() {
      return cancelled;
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 10));

async function readAll(response: Response): Promise<string> {
  return await response.text();
}

describe("the event-stream guard", () => {
  it("drops progress and log notifications and comments, nothing else", () => {
    assert.equal(isDroppableEvent(log(1)), true);
    assert.equal(
      isDroppableEvent(event({ jsonrpc: "2.0", method: "notifications/progress", params: {} })),
      true,
    );
    assert.equal(isDroppableEvent(encoder.encode(": keepalive\n\n")), true);
    assert.equal(isDroppableEvent(update(1)), false);
    // An upstream cannot make state droppable by naming a droppable method inside it.
    const disguised = event({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "u", nested: { method: "notifications/message" } },
    });
    assert.equal(isDroppableEvent(disguised), false);
    // A request (it has an id) is never dropped, whatever its method.
    assert.equal(
      isDroppableEvent(event({ jsonrpc: "2.0", id: 1, method: "notifications/message" })),
      false,
    );
  });

  it("drops the oldest log messages past the bound and delivers the rest in order", async () => {
    const p = producer();
    const seen: StreamGuardEvent[] = [];
    const ledger = { queued: 0 };
    const guarded = guardStream(p.response, {
      maxBytes: 10_000,
      observe: (e) => seen.push(e),
      ledger,
    });
    p.write(update(0));
    for (let i = 1; i <= 50; i++) p.write(log(i));
    await tick();
    assert.ok(ledger.queued <= 10_000 + 1100, `${ledger.queued} bytes queued`);
    p.end();
    const text = await readAll(guarded);
    assert.ok(text.includes('"uri":"u0"'), "the resource update is kept");
    const kept = [...text.matchAll(/"data":"(\d+) /g)].map((m) => Number(m[1]));
    assert.ok(kept.length >= 5 && kept.length < 15, `kept ${kept.length} log messages`);
    assert.deepEqual(kept, [...kept].sort((a, b) => a - b), "in order");
    assert.equal(kept.at(-1), 50, "the newest is kept");
    const dropped = seen.reduce((n, e) => n + (e.kind === "dropped" ? e.events : 0), 0);
    assert.equal(dropped, 50 - kept.length);
    assert.equal(ledger.queued, 0, "nothing is held once the stream ended");
  });

  it("takes its producer's word that an event is droppable", async () => {
    const p = producer();
    const guarded = guardStream(p.response, { maxBytes: 2_000 });
    // Events the guard, reading them, would keep: marked by whoever wrote them, they may go.
    for (let i = 0; i < 100; i++) p.write(markDroppable(update(i)));
    p.write(update(100));
    await tick();
    p.end();
    const uris = [...(await readAll(guarded)).matchAll(/"uri":"u(\d+)"/g)].map((m) => m[1]);
    assert.ok(uris.length < 40 && uris.at(-1) === "100", uris.join(","));
  });

  it("closes the stream when nothing queued can be dropped", async () => {
    const p = producer();
    const seen: StreamGuardEvent[] = [];
    let ends = 0;
    const guarded = guardStream(p.response, {
      maxBytes: 2_000,
      observe: (e) => seen.push(e),
      onEnd: () => ends++,
    });
    for (let i = 0; i < 100; i++) p.write(update(i));
    await tick();
    assert.equal(seen.filter((e) => e.kind === "closed").length, 1);
    assert.equal(p.cancelled, true, "the producer is told to stop");
    // The client got the stream's opening comment and no event.
    assert.equal(await readAll(guarded), ": stream open\n\n");
    assert.equal(ends, 1);
  });

  it("holds one event larger than the bound, and drops nothing for a client that reads", async () => {
    const p = producer();
    const seen: StreamGuardEvent[] = [];
    const guarded = guardStream(p.response, { maxBytes: 1_000, observe: (e) => seen.push(e) });
    const reading = readAll(guarded);
    p.write(update(0));
    await tick();
    p.write(log(1, 50_000));
    await tick();
    for (let i = 2; i < 40; i++) {
      p.write(log(i, 500));
      await tick();
    }
    p.end();
    const text = await reading;
    assert.deepEqual(seen, []);
    assert.equal([...text.matchAll(/"data":"/g)].length, 39);
  });

  it("ends the stream at its token's expiry", async () => {
    const p = producer();
    const seen: StreamGuardEvent[] = [];
    const guarded = guardStream(p.response, {
      maxBytes: 1_000_000,
      expiresAt: Date.now() + 200,
      observe: (e) => seen.push(e),
    });
    p.write(update(1));
    const text = await readAll(guarded);
    assert.match(text, /"uri":"u1"/);
    assert.deepEqual(seen, [{ kind: "expired" }]);
    assert.equal(p.cancelled, true);
  });
});
