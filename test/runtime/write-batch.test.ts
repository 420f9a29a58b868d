/**
 * The stdin write batch: what a turn of the event loop writes reaches the child in one write,
 * including writes made by later tasks of the same turn, and nothing is lost or reordered.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WriteBatch } from "../../src/runtime/spawn-shared.ts";

/** Resolves once the current turn of the event loop, with every task queued in it, is over. */
const turnOver = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

/** A batch whose sink records each write and never reports a full pipe. */
function recording(): { writes: string[]; batch: WriteBatch } {
  const writes: string[] = [];
  const batch = new WriteBatch((text) => {
    writes.push(text);
    return undefined;
  });
  return { writes, batch };
}

describe("WriteBatch", () => {
  it("joins writes of separate tasks in one turn into one write, in order", async () => {
    const { writes, batch } = recording();
    batch.write("a\n");
    // A later task of the same turn, as the next HTTP request's handler is: a flush at the end
    // of the first task would already have written "a\n" alone.
    await Promise.resolve();
    await Promise.resolve();
    batch.write("b\n");
    queueMicrotask(() => batch.write("c\n"));
    await turnOver();
    assert.deepEqual(writes, ["a\nb\nc\n"]);
  });

  it("writes again in a later turn, and at once when asked before the pipe closes", async () => {
    const { writes, batch } = recording();
    batch.write("one\n");
    await turnOver();
    batch.write("two\n");
    batch.flushNow();
    assert.deepEqual(writes, ["one\n", "two\n"]);
    await turnOver();
    assert.deepEqual(writes, ["one\n", "two\n"], "the pending flush finds nothing left to write");
  });

  it("hands back the sink's promise while the pipe is full, and none once it drains", async () => {
    let drain!: () => void;
    let calls = 0;
    const batch = new WriteBatch(() =>
      ++calls === 1 ? new Promise<void>((resolve) => (drain = resolve)) : undefined
    );
    assert.equal(batch.write("x\n"), undefined);
    await turnOver();
    const full = batch.write("y\n");
    assert.ok(full instanceof Promise, "a write while the pipe is full returns its drain");
    drain();
    await full;
    assert.equal(batch.write("z\n"), undefined, "a drained pipe takes writes again");
    await turnOver();
    assert.equal(calls, 2, "y and z went out in one write");
  });
});
