/**
 * A 2025 session's GET stream whose client stopped reading, in-process: its writer asks the
 * stream guard before making an event, so a flood of log messages is stored for a resume but not
 * serialised into events the guard would only drop; when the client reads again it gets the
 * newest of what it missed, in order, and nothing that must not be dropped is lost or reordered.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MemoryEventStore } from "../../src/session/legacy/event-store.ts";
import { GetStream } from "../../src/session/legacy/get-stream.ts";
import { guardStream, type StreamGuardEvent } from "../../src/shared/stream-guard.ts";

const log = (i: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level: "info", data: `${i} ${"x".repeat(1000)}` },
});
const update = (uri: string): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "notifications/resources/updated",
  params: { uri },
});
const tick = () => new Promise((r) => setTimeout(r, 10));

/** A session's GET stream opened and guarded at `maxBytes`, counting the events its writer made. */
async function openGuarded(maxBytes: number) {
  // The replay store keeps as many log messages per session as the stream's bound.
  const store = new MemoryEventStore(10_000, 32 * 1024 * 1024, () => maxBytes);
  const stream = new GetStream(store.scoped("owner"), "sid");
  const response = (await stream.open(
    new Request("http://127.0.0.1/mcp", { headers: { accept: "text/event-stream" } }),
  ))!;
  assert.equal(response.status, 200);
  let made = 0;
  const counted = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, c) => {
        made++;
        c.enqueue(chunk);
      },
    }),
  );
  const seen: StreamGuardEvent[] = [];
  const guarded = guardStream(new Response(counted), {
    maxBytes,
    observe: (e) => seen.push(e),
    pressure: stream.pressure!,
  });
  const reader = guarded.body!.getReader();
  let text = "";
  return {
    stream,
    get made() {
      return made;
    },
    dropped: () => seen.reduce((n, e) => n + (e.kind === "dropped" ? e.events : 0), 0),
    /** Reads what is queued (bounded: `chunks` reads at most). */
    read: async (chunks: number) => {
      for (let i = 0; i < chunks; i++) {
        const next = await Promise.race([reader.read(), tick().then(() => null)]);
        if (!next || next.done) break;
        text += new TextDecoder().decode(next.value);
      }
      return text;
    },
    close: () => void reader.cancel(),
  };
}

const numbers = (text: string) => [...text.matchAll(/"data":"(\d+) /g)].map((m) => Number(m[1]));

describe("a GET stream whose client stopped reading", () => {
  it("makes no events its guard would drop, and gives the newest when the client reads", async () => {
    const s = await openGuarded(10_000);
    for (let i = 1; i <= 200; i++) {
      s.stream.send(log(i));
      await tick();
    }
    // About ten 1 KiB events fit the bound: the writer stopped making them soon after.
    assert.ok(s.made < 40, `${s.made} events made for 200 log messages`);
    const kept = numbers(await s.read(1_000));
    assert.ok(kept.length >= 5 && kept.length < 40, `${kept.length} log messages read`);
    assert.deepEqual(kept, [...kept].sort((a, b) => a - b), "in order");
    assert.equal(kept.at(-1), 200, "the newest is read");
    // Every message not read is counted as dropped; those left unwritten are counted when left,
    // even the newest of them written from the replay store when the client read again.
    assert.ok(s.dropped() >= 200 - kept.length, `${s.dropped()} counted as dropped`);
    assert.ok(s.dropped() <= 200 - kept.length + 20, `${s.dropped()} counted as dropped`);
    s.close();
  });

  it("writes what it left, newest first kept, before a message that must not be dropped", async () => {
    const s = await openGuarded(10_000);
    for (let i = 1; i <= 100; i++) {
      s.stream.send(log(i));
      await tick();
    }
    s.stream.send(update("after-100"));
    await tick();
    const text = await s.read(1_000);
    const at = text.indexOf("after-100");
    assert.ok(at > 0, "the resource update is delivered");
    const before = numbers(text.slice(0, at));
    assert.equal(before.at(-1), 100, "the log messages before it come before it");
    assert.deepEqual(before, [...before].sort((a, b) => a - b), "in order");
    assert.equal(numbers(text.slice(at)).length, 0);
    s.close();
  });
});
