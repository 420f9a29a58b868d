/**
 * The 2025 fast path cancels a call upstream three ways: the client's `notifications/cancelled`,
 * the client going away (its request aborted), and the session's close (DELETE); the 2026-07-28
 * one when its client goes away. Each reaches the upstream server as its own
 * `notifications/cancelled`, which `hang.mjs` records. The call's
 * `AbortSignal` is made only for a layer that reads it, and then behaves as if made at the start.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { MCP_HEADERS, openSession } from "../_helpers/raw-session.ts";
import { postModern } from "../protocol/_modern.ts";
import { FastCalls } from "../../src/session/legacy/fast-call.ts";
import { newActivity } from "../../src/session/legacy/activity.ts";
import { type CallContext, cancellationOf, signalOf } from "../../src/shared/call-context.ts";
import { LOCAL_CALLER } from "../../src/shared/caller.ts";
import type { Gateway } from "../../src/gateway/mod.ts";

function post(url: string, sid: string, body: object, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-session-id": sid },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

const callOf = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {} },
});

/** The upstream ids of the `hang` calls the server was told of, asked on a session of its own. */
async function upstreamRecord(gw: TestGateway, tool: string): Promise<unknown[]> {
  const sid = await openSession(gw.url);
  const res = await post(gw.url, sid, callOf(1, `hang__${tool}`));
  const body = await res.json() as { result: { content: { text: string }[] } };
  return JSON.parse(body.result.content[0]!.text) as unknown[];
}

/** Waits (bounded) until the upstream started one more `hang` call than `before`. */
async function started(gw: TestGateway, before: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await upstreamRecord(gw, "started")).length > before) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the upstream never started the call");
}

/** Waits (bounded) until the upstream was told of one more cancellation than `before`. */
async function cancelledUpstream(gw: TestGateway, before: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await upstreamRecord(gw, "cancellations")).length > before) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail("the upstream was never told the call was cancelled");
}

describe("a fast call cancelled upstream", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`servers:\n  hang: ${nodeServer("hang.mjs")}\n`);
  });
  after(() => gw?.stop());

  it("by the client's notifications/cancelled", async () => {
    const sid = await openSession(gw.url);
    const [calls, cancels] = [
      (await upstreamRecord(gw, "started")).length,
      (await upstreamRecord(gw, "cancellations")).length,
    ];
    const pending = post(gw.url, sid, callOf(7, "hang__hang"));
    await started(gw, calls);
    const cancel = await post(gw.url, sid, {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 7 },
    });
    assert.equal(cancel.status, 202);
    const body = await (await pending).json();
    assert.deepEqual(body, {
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32800, message: "Request cancelled" },
    });
    await cancelledUpstream(gw, cancels);
  });

  it("by the client going away", async () => {
    const sid = await openSession(gw.url);
    const [calls, cancels] = [
      (await upstreamRecord(gw, "started")).length,
      (await upstreamRecord(gw, "cancellations")).length,
    ];
    const abort = new AbortController();
    const pending = post(gw.url, sid, callOf(8, "hang__hang"), abort.signal).catch(() => null);
    await started(gw, calls);
    abort.abort();
    await pending;
    await cancelledUpstream(gw, cancels);
  });

  it("by a 2026-07-28 client going away (that door's fast path)", async () => {
    const [calls, cancels] = [
      (await upstreamRecord(gw, "started")).length,
      (await upstreamRecord(gw, "cancellations")).length,
    ];
    const abort = new AbortController();
    const pending = postModern(gw.url, "", "tools/call", { name: "hang__hang", arguments: {} }, {
      signal: abort.signal,
    }).catch(() => null);
    await started(gw, calls);
    abort.abort();
    await pending;
    await cancelledUpstream(gw, cancels);
  });

  it("by the session's close", async () => {
    const sid = await openSession(gw.url);
    const [calls, cancels] = [
      (await upstreamRecord(gw, "started")).length,
      (await upstreamRecord(gw, "cancellations")).length,
    ];
    const pending = post(gw.url, sid, callOf(9, "hang__hang"));
    await started(gw, calls);
    const closed = await fetch(`${gw.url}/mcp`, {
      method: "DELETE",
      headers: { ...MCP_HEADERS, "mcp-session-id": sid },
    });
    await closed.body?.cancel();
    assert.equal(closed.status, 200);
    const body = await (await pending).json();
    assert.deepEqual(body.error, { code: -32800, message: "Request cancelled" });
    await cancelledUpstream(gw, cancels);
  });
});

describe("a fast call's signal, made only when a layer asks for it", () => {
  /** A call in flight on `FastCalls`, and the context the core got for it. */
  function inFlight(requestSignal = new AbortController().signal, reads = { count: 0 }) {
    const fast = new FastCalls();
    let context: CallContext | undefined;
    const gateway = {
      callTool: (_name: string, _args: unknown, options: CallContext) => {
        context = options;
        return new Promise(() => {});
      },
    } as unknown as Gateway;
    void fast.run(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } },
      {
        gateway,
        caller: LOCAL_CALLER,
        link: undefined,
        sessionId: "s",
        activity: newActivity(),
        request: {
          get signal() {
            reads.count++;
            return requestSignal;
          },
        } as Request,
      },
    );
    return { fast, context: context! };
  }

  it("aborts a signal read before the cancel, and tells each listener once", () => {
    const { fast, context } = inFlight();
    const signal = signalOf(context)!;
    const told: string[] = [];
    signal.addEventListener("abort", () => told.push("signal"));
    const listener = { handleEvent: () => told.push("listener") };
    cancellationOf(context)!.addEventListener("abort", listener);
    cancellationOf(context)!.addEventListener("abort", listener);
    assert.equal(signal.aborted, false);
    assert.equal(fast.cancel(1), true);
    fast.cancel(1);
    assert.equal(signal.aborted, true);
    assert.deepEqual(told, ["signal", "listener"]);
  });

  it("makes a signal read after the cancel already aborted", () => {
    const { fast, context } = inFlight();
    fast.abortAll();
    assert.equal(cancellationOf(context)!.aborted, true);
    assert.equal(signalOf(context)!.aborted, true);
  });

  it("reads the request's signal only once a layer watches the call", () => {
    const request = new AbortController();
    const reads = { count: 0 };
    const { context } = inFlight(request.signal, reads);
    assert.equal(reads.count, 0);
    const told: string[] = [];
    cancellationOf(context)!.addEventListener("abort", { handleEvent: () => told.push("frame") });
    assert.equal(reads.count, 1);
    request.abort();
    assert.deepEqual(told, ["frame"]);
  });

  it("is cancelled at once when the request was aborted before anything watched it", () => {
    const request = new AbortController();
    const { context } = inFlight(request.signal);
    request.abort();
    assert.equal(cancellationOf(context)!.aborted, true);
    assert.equal(signalOf(context)!.aborted, true);
  });

  it("tells no listener removed before the cancel, nor one added after", () => {
    const request = new AbortController();
    const { context } = inFlight(request.signal);
    const told: string[] = [];
    const removed = { handleEvent: () => told.push("removed") };
    const cancellation = cancellationOf(context)!;
    cancellation.addEventListener("abort", removed);
    cancellation.removeEventListener("abort", removed);
    request.abort();
    cancellation.addEventListener("abort", { handleEvent: () => told.push("late") });
    assert.equal(cancellation.aborted, true);
    assert.deepEqual(told, []);
  });
});
