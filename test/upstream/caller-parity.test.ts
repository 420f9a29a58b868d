/**
 * The lean stdio caller and the SDK client's caller behave alike: for the same upstream
 * behaviour (real fixture processes) they give byte-identical results, the same progress
 * sequence, the same cancellation sent upstream, and the same error for a timeout, an upstream
 * JSON-RPC error, a refused or malformed answer, a crash mid-call and a call to a dead process. Each case
 * runs once per caller, on a process of its own, and the two records must be equal.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { after, describe, it } from "node:test";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { parseConfig } from "../../src/config/mod.ts";
import { toJsonRpcError } from "../../src/shared/errors.ts";
import { type CallContext, NO_CONTEXT } from "../../src/shared/call-context.ts";
import { createLogger } from "../../src/shared/log.ts";
import type { Progress, UpstreamCaller } from "../../src/upstream/caller.ts";
import { type Connection, connectUpstream, sdkCaller } from "../../src/upstream/connect.ts";
import { reasonOf } from "../../src/upstream/call-errors.ts";
import { schemaCheck } from "../../src/upstream/result-check.ts";
import { Upstream } from "../../src/upstream/upstream.ts";
import { nodeServer, waitFor } from "../_helpers/gateway.ts";

const KINDS = ["lean", "sdk"] as const;
type Kind = typeof KINDS[number];
const log = createLogger("parity");
const open: Connection[] = [];

after(async () => {
  await Promise.all(open.map((c) => c.client.close().catch(() => {})));
});

/** A fresh process of `file`, reached through the caller of `kind`. */
async function connect(file: string, kind: Kind): Promise<UpstreamCaller> {
  const config = parseConfig(
    `servers:\n  fx: ${nodeServer(file, "timeout: 10s, protocol: legacy")}\n`,
  ).servers[0]!;
  const conn = await connectUpstream(config, log, () => {});
  open.push(conn);
  // A 2025 fixture: its connection's client is the SDK 1.x one.
  const caller = kind === "lean"
    ? conn.caller
    : sdkCaller(config.name, { client: conn.client as Client });
  assert.equal(caller.kind, kind);
  return caller;
}

/** Runs `scenario` once per caller and asserts both records are equal; returns the lean one. */
async function same<T>(file: string, scenario: (c: UpstreamCaller) => Promise<T>): Promise<T> {
  const [lean, sdk] = await Promise.all(KINDS.map(async (k) => scenario(await connect(file, k))));
  assert.deepEqual(JSON.parse(JSON.stringify(sdk)), JSON.parse(JSON.stringify(lean)));
  assert.equal(JSON.stringify(sdk), JSON.stringify(lean));
  return lean!;
}

/** What a caller sees of a failure: its class, code, message, data and wire form. */
function failure(err: unknown) {
  const e = err as { name?: string; code?: unknown; message?: string; data?: unknown };
  return {
    name: e.name,
    reason: reasonOf(err),
    code: e.code,
    message: e.message,
    data: e.data,
    wire: toJsonRpcError(err),
  };
}

/** The server's own terms in these tests: a 10 s timeout, no check (a call's context may set one). */
const TERMS = { timeoutMs: 10_000 };
const call = (c: UpstreamCaller, name: string, args = {}, context: CallContext = NO_CONTEXT) =>
  c.call("tools/call", { name, arguments: args }, context, TERMS);
const fails = (p: Promise<unknown>) =>
  p.then((r) => assert.fail(`expected a failure, got ${JSON.stringify(r)}`), failure);
const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;

describe("lean and SDK callers agree", () => {
  it("give byte-identical results, _meta included", async () => {
    const results = await same("echo.mjs", async (c) => [
      await call(c, "echo", { text: 'hé \u2028 "q"', mode: "loud" }),
      await call(c, "picture"),
      await call(c, "structured", { n: 21 }),
      await call(c, "fail"),
      await call(c, "meta", {}, {
        ...NO_CONTEXT,
        meta: { traceparent: "00-abc-def-01", extra: [1] },
      }),
      await c.call("tools/list", undefined, NO_CONTEXT, {
        timeoutMs: 10_000,
        check: schemaCheck(ListToolsResultSchema),
      }),
    ]);
    assert.equal(textOf(results[0]), '{"text":"hé \u2028 \\"q\\"","mode":"loud"}');
    assert.deepEqual(JSON.parse(textOf(results[4])), {
      traceparent: "00-abc-def-01",
      extra: [1],
    });
  });

  it("relay the same progress sequence, then the same result", async () => {
    const seen = await same("echo.mjs", async (c) => {
      const reports: Progress[] = [];
      const result = await call(c, "slow", { ms: 30, steps: 3 }, {
        ...NO_CONTEXT,
        onprogress: (p: Progress) => reports.push(p),
        resetTimeoutOnProgress: true,
      });
      return { reports, result };
    });
    assert.deepEqual(seen.reports, [
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
  });

  it("restart the timeout on progress only when asked", async () => {
    // 40 reports 50ms apart: 2s in all, against a 1s timeout.
    const slow = { ms: 2000, steps: 40 };
    const seen = await same("echo.mjs", async (c) => {
      const count = { reset: 0, plain: 0 };
      const [reset, plain] = await Promise.all([
        call(c, "slow", slow, {
          ...NO_CONTEXT,
          timeoutMs: 1000,
          resetTimeoutOnProgress: true,
          onprogress: () => count.reset++,
        }),
        fails(
          call(c, "slow", slow, {
            ...NO_CONTEXT,
            timeoutMs: 1000,
            onprogress: () => count.plain++,
          }),
        ),
      ]);
      return { reset, plain, resetReports: count.reset, plainStopped: count.plain < 40 };
    });
    assert.equal(textOf(seen.reset), "slept 2000ms");
    assert.equal(seen.resetReports, 40);
    assert.equal(seen.plain.reason, "timeout");
    assert.equal(seen.plainStopped, true);
  });

  it("cancel alike: the upstream hears the same reason for the request it got", async () => {
    const seen = await same("hang.mjs", async (c) => {
      const abort = new AbortController();
      const pending = fails(call(c, "hang", {}, { ...NO_CONTEXT, signal: abort.signal }));
      await waitFor(async () => JSON.parse(textOf(await call(c, "started"))).length === 1);
      abort.abort();
      const error = await pending;
      const heard = await waitFor(async () => {
        const list = JSON.parse(textOf(await call(c, "cancellations")));
        return list.length > 0 ? list : undefined;
      });
      const [started] = JSON.parse(textOf(await call(c, "started")));
      assert.equal(heard[0].requestId, started, "the cancellation names the request sent");
      return { error, reasons: heard.map((h: { reason: string }) => h.reason) };
    });
    assert.equal(seen.error.reason, "cancelled");
    assert.deepEqual(seen.reasons, ["cancelled by the client"]);
  });

  it("refuse a call whose signal is already aborted, sending nothing", async () => {
    const seen = await same("hang.mjs", async (c) => {
      const error = await fails(
        call(c, "hang", {}, { ...NO_CONTEXT, signal: AbortSignal.abort() }),
      );
      return { error, started: JSON.parse(textOf(await call(c, "started"))) };
    });
    assert.deepEqual(seen.started, []);
  });

  it("time out alike and tell the upstream why", async () => {
    const seen = await same("hang.mjs", async (c) => {
      const error = await fails(call(c, "hang", {}, { ...NO_CONTEXT, timeoutMs: 150 }));
      const heard = await waitFor(async () => {
        const list = JSON.parse(textOf(await call(c, "cancellations")));
        return list.length > 0 ? list : undefined;
      });
      return { error, reasons: heard.map((h: { reason: string }) => h.reason) };
    });
    assert.equal(seen.error.code, "UPSTREAM_TIMEOUT");
    assert.equal(seen.error.reason, "timeout");
    assert.deepEqual(seen.reasons, ["request timed out after 150ms"]);
  });

  it("pass an upstream JSON-RPC error through with its code, message and data", async () => {
    const seen = await same("raw-answers.mjs", async (c) => ({
      tool: await fails(call(c, "rpc_error")),
      method: await fails(c.call("prompts/get", { name: "x" }, NO_CONTEXT, TERMS)),
    }));
    assert.deepEqual(seen.tool.wire, {
      code: -32602,
      message: "bad argument: n",
      data: { field: "n", got: -1 },
    });
    assert.equal(seen.tool.reason, "rpc");
    assert.equal(seen.method.code, -32601);
  });

  it("name a result its check refuses a protocol failure", async () => {
    const seen = await same("raw-answers.mjs", async (c) => ({
      badList: await fails(c.call("tools/list", undefined, NO_CONTEXT, {
        timeoutMs: 10_000,
        check: () => ({ ok: false, problem: "no tools" }),
      })),
      after: await call(c, "plain"),
    }));
    assert.equal(seen.badList.reason, "protocol");
    assert.equal(seen.badList.code, "UPSTREAM_ERROR");
  });

  it("ignore an answer that is not JSON-RPC alike (the call then times out)", async () => {
    const seen = await same("raw-answers.mjs", async (c) => ({
      notObject: await fails(call(c, "not_object", {}, { ...NO_CONTEXT, timeoutMs: 200 })),
      noCode: await fails(call(c, "no_code", {}, { ...NO_CONTEXT, timeoutMs: 200 })),
      after: await call(c, "plain"),
    }));
    assert.equal(seen.notObject.reason, "timeout");
    assert.equal(seen.noCode.reason, "timeout");
  });

  it("fail a call pending when the process crashes, after its progress, then refuse the next", async () => {
    const seen = await same("crash-mid-call.mjs", async (c) => {
      const reports: Progress[] = [];
      const error = await fails(
        call(c, "boom", {}, { ...NO_CONTEXT, onprogress: (p: Progress) => reports.push(p) }),
      );
      const next = await fails(call(c, "work"));
      return { reports, error, next };
    });
    assert.deepEqual(seen.reports, [{ progress: 1, total: 2 }]);
    assert.equal(seen.error.reason, "closed");
    assert.equal(seen.error.code, "UPSTREAM_UNAVAILABLE");
    assert.equal(seen.next.reason, "unavailable");
  });
});

describe("the caller is chosen once per connection", () => {
  it("a stdio upstream is served by the lean caller, its catalog included", async () => {
    const config = parseConfig(`servers:\n  fx: ${nodeServer("echo.mjs")}\n`).servers[0]!;
    const upstream = new Upstream(config, log, { onCatalog: () => {}, onState: () => {} });
    try {
      await upstream.start();
      assert.equal(upstream.state, "up");
      assert.equal(upstream.callerKind, "lean");
      assert.ok(upstream.catalog.tools.some((t) => t.name === "echo"));
      const r = await upstream.callTool("echo", { a: 1 });
      assert.equal(textOf(r), '{"a":1}');
    } finally {
      await upstream.stop();
    }
  });
});
