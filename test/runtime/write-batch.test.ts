/**
 * The stdin write batch: what a turn of the event loop writes reaches the child in one write,
 * including writes made by later tasks of the same turn, and nothing is lost or reordered; a
 * large text is never joined with others, and while the pipe is full the rest waits.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WriteBatch } from "../../src/runtime/spawn-shared.ts";

/** Resolves once the current turn of the event loop, with every task queued in it, is over. */
const turnOver = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

/** A batch whose sink records each write (its parts joined) and never reports a full pipe. */
function recording(): { writes: string[]; batch: WriteBatch } {
  const writes: string[] = [];
  const batch = new WriteBatch((parts) => {
    writes.push(parts.join(""));
    return undefined;
  });
  return { writes, batch };
}

/** A text long enough to be written as it is, never joined. */
const large = (c: string) => c.repeat(64 * 1024);

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
    assert.equal(calls, 2, "what waited went out as soon as the pipe drained");
    assert.equal(batch.write("z\n"), undefined, "a drained pipe takes writes again");
    await turnOver();
    assert.equal(calls, 3);
  });

  it("writes a large text alone with its newline, never joined into one string", async () => {
    const writes: (readonly string[])[] = [];
    const batch = new WriteBatch((parts) => {
      writes.push(parts);
      return undefined;
    });
    const [a, b] = [large("a"), large("b")];
    for (const text of ["x\n", a, "\n", b, "\n", "y\n"]) batch.write(text);
    await turnOver();
    assert.equal(writes.length, 3);
    assert.deepEqual(writes[0], ["x\n"]);
    assert.ok(writes[1]![0] === a, "the large text is handed on as it is");
    assert.deepEqual(writes[1]!.slice(1), ["\n"]);
    assert.ok(writes[2]![0] === b);
    assert.deepEqual(writes[2]!.slice(1), ["\ny\n"], "the small texts after it are joined");
  });

  it("holds what follows a large text until the pipe has drained, then writes it in order", async () => {
    const writes: string[] = [];
    const drains: (() => void)[] = [];
    const batch = new WriteBatch((parts) => {
      writes.push(parts.join(""));
      return new Promise<void>((resolve) => drains.push(resolve));
    });
    const [a, b] = [large("a"), large("b")];
    for (const text of [a, "\n", b, "\n", "c\n"]) batch.write(text);
    await turnOver();
    assert.equal(writes.length, 1, "one write while the pipe is full");
    assert.ok(writes[0] === `${a}\n`);
    assert.ok(
      batch.write("d\n") instanceof Promise,
      "a write while full gets the drain to wait on",
    );
    drains.shift()!();
    await turnOver();
    assert.equal(writes.length, 2);
    assert.ok(writes[1] === `${b}\nc\nd\n`, "the rest in one write, in order");
    drains.shift()!();
    await turnOver();
    assert.equal(writes.length, 2, "nothing is written twice");
  });

  it("writes everything at once before the pipe closes, even while it is full", async () => {
    const writes: string[] = [];
    const batch = new WriteBatch((parts) => {
      writes.push(parts.join(""));
      return new Promise<void>(() => {});
    });
    batch.write(large("a"));
    await turnOver();
    batch.write("b\n");
    batch.write(large("c"));
    batch.flushNow();
    assert.equal(writes.length, 2);
    assert.ok(writes[0] === large("a") && writes[1] === `b\n${large("c")}`);
  });
});
