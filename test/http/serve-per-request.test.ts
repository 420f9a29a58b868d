/**
 * What the HTTP layer does per request before the app (docs/PERFORMANCE.md, "The HTTP layer
 * against the floor"): the runtime's server hands the handler the request alone — no peer-address
 * lookup (`server.requestIP`, a `getpeername` system call per request on Bun) — and, once ready,
 * the lifecycle gate hands it to the app as it is, without parsing its URL or adding a promise;
 * in the other phases it still answers the probes and refuses by phase.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Lifecycle } from "../../src/ops/lifecycle.ts";
import { serveHttp } from "../../src/runtime/mod.ts";

describe("per request, before the app", () => {
  it("the server hands the handler the request and nothing else", async () => {
    const seen: number[] = [];
    const server = await serveHttp({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (...args: unknown[]) => {
        seen.push(args.length);
        return new Response(new URL((args[0] as Request).url).pathname);
      },
    });
    try {
      for (const path of ["/mcp", "/healthz"]) {
        const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
        assert.equal(await res.text(), path);
      }
      assert.deepEqual(seen, [1, 1]);
    } finally {
      await server.close();
    }
  });

  it("once ready, the lifecycle answers with the app's own answer", async () => {
    const lifecycle = new Lifecycle();
    const answer = new Response("from the app");
    lifecycle.ready(() => answer);
    const got = lifecycle.handle(new Request("http://127.0.0.1/mcp", { method: "POST" }));
    // Not wrapped in a promise of the lifecycle's own.
    assert.equal(got, answer);
    const promised = Promise.resolve(new Response("later"));
    lifecycle.ready(() => promised);
    assert.equal(lifecycle.handle(new Request("http://127.0.0.1/mcp")), promised);
  });

  it("before ready and while draining, it still answers by phase", async () => {
    const lifecycle = new Lifecycle();
    const health = await lifecycle.handle(new Request("http://127.0.0.1/healthz"));
    assert.equal(health.status, 200);
    const ready = await lifecycle.handle(new Request("http://127.0.0.1/readyz"));
    assert.equal(ready.status, 503);
    // An MCP request during the start waits for it, then reaches the app.
    const waiting = lifecycle.handle(new Request("http://127.0.0.1/mcp"));
    lifecycle.ready(() => new Response("served", { status: 201 }));
    assert.equal((await waiting).status, 201);
    const drained = lifecycle.drain(() => 0, 1000);
    const refused = await lifecycle.handle(new Request("http://127.0.0.1/mcp"));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "5");
    assert.equal((await lifecycle.handle(new Request("http://127.0.0.1/healthz"))).status, 200);
    assert.equal(await drained, true);
  });
});
