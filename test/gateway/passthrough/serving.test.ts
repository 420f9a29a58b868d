/**
 * Which process serves a request for its caller (`serveOn`): a call with no client runs on the
 * server's shared process and is not recorded in flight; a client's call of an
 * `isolation: session` server runs on that client's own process, recorded while it runs; a
 * channel that does not last (a 2026-07-28 flow) has its process stopped when the call ends, and
 * a closed one gets none.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../../src/config/mod.ts";
import { enterCall } from "../../../src/gateway/call-context.ts";
import { Gateway } from "../../../src/gateway/gateway.ts";
import { serveOn } from "../../../src/gateway/passthrough/serving.ts";
import { type ClientChannel, LOCAL_CALLER } from "../../../src/gateway/types.ts";
import { GatewayError } from "../../../src/shared/errors.ts";
import type { Upstream } from "../../../src/upstream/mod.ts";
import { createLogger } from "../../../src/shared/log.ts";
import { nodeServer } from "../../_helpers/gateway.ts";

const YAML = `servers:\n  iso: ${nodeServer("echo.mjs", "isolation: session")}\n`;

/** A channel of a 2026-07-28 flow (not lasting) or a 2025 session (lasting). */
function channel(lasting: boolean, closed = false): ClientChannel {
  return {
    era: lasting ? "legacy" : "modern",
    askable: false,
    closed,
    lasting,
    capabilities: {},
    request: () => Promise.reject(new Error("not asked")),
    notify() {},
  };
}

describe("the process that serves a request", () => {
  let gateway: Gateway;
  let shared: Upstream;
  before(async () => {
    gateway = new Gateway(parseConfig(YAML), createLogger("test"));
    await gateway.start();
    shared = gateway.pool.get("iso")!;
  });
  after(() => gateway.stop());

  const serve = <T>(client: ClientChannel | undefined, fn: (u: Upstream) => Promise<T>) =>
    serveOn(
      gateway.pool,
      gateway.passthrough.calls,
      shared,
      enterCall(LOCAL_CALLER, client ? { client } : {}),
      fn,
      undefined,
    );

  it("hands the request's job to the function it runs", async () => {
    const job = { tool: "t" };
    const call = enterCall(LOCAL_CALLER, {});
    const pool = gateway.pool;
    const seen = await serveOn(pool, gateway.passthrough.calls, shared, call, (u, j) => {
      assert.equal(u, shared);
      return Promise.resolve(j);
    }, job);
    assert.equal(seen, job);
  });

  it("a request with no client runs on the shared process, recorded nowhere", async () => {
    const seen = await serve(undefined, (u) => {
      assert.deepEqual(gateway.passthrough.calls.callsOn("iso"), []);
      return Promise.resolve(u);
    });
    assert.equal(seen, shared);
  });

  it("a client's request runs on its own process, in flight while it runs", async () => {
    const session = channel(true);
    const first = await serve(session, (u) => {
      assert.equal(gateway.passthrough.calls.callsOn("iso").length, 1);
      return Promise.resolve(u);
    });
    assert.notEqual(first, shared);
    assert.deepEqual(gateway.passthrough.calls.callsOn("iso"), [], "untracked once done");
    // The same lasting client keeps its process; another client gets another one.
    assert.equal(await serve(session, (u) => Promise.resolve(u)), first);
    assert.notEqual(await serve(channel(true), (u) => Promise.resolve(u)), first);
  });

  it("a flow's own process ends with its call; a closed client gets none", async () => {
    const flow = channel(false);
    const own = await serve(flow, (u) => Promise.resolve(u));
    assert.notEqual(own, shared);
    assert.notEqual(await serve(flow, (u) => Promise.resolve(u)), own, "a new one per call");
    const err = await serve(channel(true, true), () => Promise.resolve()).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof GatewayError);
    assert.equal(err.code, "UPSTREAM_UNAVAILABLE");
  });
});
