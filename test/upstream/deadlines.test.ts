/**
 * Every upstream call's timeout runs on one shared timer (`src/upstream/deadlines.ts`): each
 * deadline still fires on its own, not before its time, once; a cancelled one never fires; a
 * renewed one (progress) starts its clock again; and through a real upstream, concurrent calls
 * with different timeouts each time out with their own length and tell the upstream so, while
 * a cancelled call and an answered one do not time out.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { toJsonRpcError } from "../../src/shared/errors.ts";
import { type CallContext, NO_CONTEXT } from "../../src/shared/call-context.ts";
import { createLogger } from "../../src/shared/log.ts";
import { type Connection, connectUpstream } from "../../src/upstream/connect.ts";
import { Deadline, Deadlines } from "../../src/upstream/deadlines.ts";
import { reasonOf } from "../../src/upstream/call-errors.ts";
import { nodeServer, ROOT, waitFor } from "../_helpers/gateway.ts";

/** A deadline that notes when it fired, measured from when it was (last) added. */
class Probe extends Deadline {
  fired: number[] = [];
  start = 0;
  constructor(readonly ms: number, readonly order: number[], readonly id: number) {
    super();
  }
  expire(): void {
    this.fired.push(performance.now() - this.start);
    this.order.push(this.id);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("one timer for many deadlines", () => {
  it("fires each deadline once, not before its time; cancelled ones never", async () => {
    const deadlines = new Deadlines();
    const order: number[] = [];
    // 60 deadlines over 8 lengths, added in shuffled order of length.
    const lengths = [40, 300, 10, 120, 0, 200, 75, 20];
    const probes = Array.from({ length: 60 }, (_, i) => new Probe(lengths[i % 8]!, order, i));
    for (const p of probes) {
      p.start = performance.now();
      deadlines.add(p, p.ms);
    }
    assert.equal(deadlines.pending, 60);
    const cancelled = probes.filter((p) => p.id % 3 === 0);
    for (const p of cancelled) deadlines.cancel(p);
    deadlines.cancel(cancelled[0]!); // twice: nothing happens
    assert.equal(deadlines.pending, 40);
    await waitFor(() => deadlines.pending === 0, 10_000);
    await sleep(50);
    for (const p of probes) {
      if (p.id % 3 === 0) {
        assert.deepEqual(p.fired, [], `cancelled deadline ${p.id} fired`);
        continue;
      }
      assert.equal(p.fired.length, 1, `deadline ${p.id} (${p.ms} ms) fired ${p.fired.length}×`);
      // The runtime's timer has millisecond granularity: never more than 1 ms early.
      assert.ok(p.fired[0]! >= p.ms - 1, `deadline ${p.id} fired at ${p.fired[0]} < ${p.ms} ms`);
    }
    // Shorter lengths fired first: the order follows the lengths (equal lengths, insertion order).
    const fired = order.map((id) => probes[id]!.ms);
    assert.deepEqual(fired, [...fired].sort((a, b) => a - b));
  });

  it("restarts a renewed deadline's clock and re-adds a pending one", async () => {
    const deadlines = new Deadlines();
    const order: number[] = [];
    const renewed = new Probe(150, order, 1);
    const plain = new Probe(150, order, 2);
    renewed.start = plain.start = performance.now();
    deadlines.add(renewed, 150);
    deadlines.add(plain, 150);
    // Renewed every 50 ms for 400 ms: it outlives the plain one by far.
    for (let i = 0; i < 8; i++) {
      await sleep(50);
      if (i === 0) assert.deepEqual(order, []);
      deadlines.renew(renewed);
    }
    assert.deepEqual(order, [2], "the plain deadline fired, the renewed one did not");
    const renewedAt = performance.now();
    await waitFor(() => order.length === 2, 10_000);
    assert.ok(performance.now() - renewedAt >= 149, "the renewed deadline ran its whole length");
    // A deadline added again while pending is moved, not doubled.
    const moved = new Probe(30, order, 3);
    deadlines.add(moved, 1000);
    deadlines.add(moved, 30);
    assert.equal(deadlines.pending, 1);
    await waitFor(() => moved.fired.length === 1, 10_000);
    await sleep(50);
    assert.equal(moved.fired.length, 1);
    // Renewing or cancelling a deadline that is not pending does nothing.
    deadlines.renew(moved);
    deadlines.cancel(moved);
    assert.equal(deadlines.pending, 0);
  });

  it("keeps firing the others when one expire throws", async () => {
    const deadlines = new Deadlines();
    const order: number[] = [];
    const bad = new (class extends Probe {
      override expire(): void {
        super.expire();
        throw new Error("boom");
      }
    })(5, order, 1);
    const good = new Probe(5, order, 2);
    deadlines.add(bad, 5);
    deadlines.add(good, 5);
    await waitFor(() => order.length === 2, 10_000);
    assert.deepEqual(order, [1, 2]);
  });
});

describe("the shared timer and the process", () => {
  it("holds the process open while a deadline is pending, and not once none is", () => {
    const file = `${ROOT}/test/fixtures/deadline-idle.ts`;
    const deno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
    const [cmd, ...args] = deno ? [process.execPath, "run", "-A", file] : [process.execPath, file];
    const started = performance.now();
    const r = spawnSync(cmd!, args, { encoding: "utf8", timeout: 30_000 });
    const took = performance.now() - started;
    assert.equal(r.status, 0, r.stderr);
    // Held open for the 200 ms deadline; not for the cancelled 60 s one.
    assert.equal(r.stdout.trim(), "fired");
    assert.ok(took < 30_000, `the idle process took ${took} ms to exit`);
  });
});

describe("upstream calls on the shared timer (real process)", () => {
  const open: Connection[] = [];
  after(async () => {
    await Promise.all(open.map((c) => c.client.close().catch(() => {})));
  });

  it("time out each with its own length; a cancelled or answered call does not", async () => {
    const config = parseConfig(
      `servers:\n  fx: ${nodeServer("hang.mjs", "timeout: 10s, protocol: legacy")}\n`,
    ).servers[0]!;
    const conn = await connectUpstream(config, createLogger("deadlines"), () => {});
    open.push(conn);
    const caller = conn.caller;
    assert.equal(caller.kind, "lean");
    const terms = { timeoutMs: 10_000 };
    const call = (name: string, context: CallContext = NO_CONTEXT) =>
      caller.call("tools/call", { name, arguments: {} }, context, terms);
    // One call cancelled once the upstream has it: its 300 ms deadline must not fire.
    const abort = new AbortController();
    const cancelled = call("hang", { ...NO_CONTEXT, signal: abort.signal, timeoutMs: 300 }).then(
      () => assert.fail("a cancelled call answered"),
      (err) => err,
    );
    await waitFor(async () => {
      const r = await call("started", { ...NO_CONTEXT, timeoutMs: 5000 }) as {
        content: { text: string }[];
      };
      return JSON.parse(r.content[0]!.text).length === 1;
    });
    abort.abort();
    const lengths = [150, 400, 250, 150, 600, 300, 450, 200];
    const started = performance.now();
    const timed = lengths.map((ms) =>
      call("hang", { ...NO_CONTEXT, timeoutMs: ms }).then(
        () => assert.fail("a hanging call answered"),
        (err) => ({ ms, at: performance.now() - started, err }),
      )
    );
    const answered = await call("started", { ...NO_CONTEXT, timeoutMs: 200 });
    assert.ok(answered, "a call answered before its deadline resolves");
    for (const { ms, at, err } of await Promise.all(timed)) {
      assert.equal(reasonOf(err), "timeout");
      assert.ok(at >= ms - 1, `the ${ms} ms call timed out after ${at} ms`);
      const wire = toJsonRpcError(err);
      assert.equal(wire.code, -32006);
      assert.equal(wire.message, `server "fx" did not answer within ${ms}ms`);
      assert.deepEqual(wire.data, {
        code: "UPSTREAM_TIMEOUT",
        server: "fx",
        reason: "timeout",
        timeoutMs: ms,
      });
    }
    assert.equal(reasonOf(await cancelled), "cancelled");
    // The upstream heard one cancellation per timed-out call, each with its own length.
    const heard = await waitFor(async () => {
      const r = await call("cancellations", { ...NO_CONTEXT, timeoutMs: 5000 }) as {
        content: { text: string }[];
      };
      const list = JSON.parse(r.content[0]!.text) as { reason: string }[];
      return list.length === lengths.length + 1 ? list : undefined;
    }, 10_000);
    const reasons = heard!.map((h) => h.reason).sort();
    const expected = [
      "cancelled by the client",
      ...lengths.map((ms) => `request timed out after ${ms}ms`),
    ].sort();
    assert.deepEqual(reasons, expected);
  });
});
