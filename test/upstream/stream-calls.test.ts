/**
 * Which call's stream carried a 2025 streamable HTTP server's request
 * (src/upstream/stream-calls.ts), in process: the POST of the call's own request claims it,
 * nothing else sent in its async context does, and an id two calls' streams carried belongs to
 * neither.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CallContext } from "../../src/shared/call-context.ts";
import { sendingFor, StreamCalls } from "../../src/upstream/stream-calls.ts";

const ask = (id: number) =>
  `event: message\ndata: ${
    JSON.stringify({ jsonrpc: "2.0", id, method: "sampling/createMessage", params: {} })
  }\n\n`;

/** An upstream answering every request with `body` as an event stream (`status` 200). */
function upstream(body: string, status = 200) {
  return () =>
    Promise.resolve(
      new Response(status === 200 ? body : "no", {
        status,
        headers: { "content-type": status === 200 ? "text/event-stream" : "text/plain" },
      }),
    );
}

const SESSION = { "mcp-session-id": "s" };
const post = (method: string, headers: Record<string, string> = SESSION): RequestInit => ({
  method: "POST",
  headers,
  body: JSON.stringify({ method, params: {}, jsonrpc: "2.0", id: 1 }),
});
const call = () => ({ client: {} }) as unknown as CallContext;

describe("the call whose stream carried a server's request", () => {
  it("is the call whose own POST it answered, taken once", async () => {
    const streams = new StreamCalls();
    const f = streams.fetch(upstream(ask(7)));
    const a = call();
    await (await sendingFor(a, "tools/call", () => f("http://x/mcp", post("tools/call")))).text();
    assert.equal(streams.take(7), a);
    assert.equal(streams.take(7), undefined);
  });

  it("is no call's for a POST without a session, a GET, or another method", async () => {
    const streams = new StreamCalls();
    const f = streams.fetch(upstream(ask(1) + ask(2) + ask(3)));
    const a = call();
    await sendingFor(a, "tools/call", async () => {
      await (await f("http://x/mcp", post("initialize", {}))).text();
      await (await f("http://x/mcp", { method: "GET", headers: SESSION })).text();
      await (await f("http://x/mcp", post("tools/list"))).text();
    });
    for (const id of [1, 2, 3]) assert.equal(streams.take(id), undefined);
  });

  it("is claimed once: a second POST in the call's context is not its stream", async () => {
    const streams = new StreamCalls();
    const first = call();
    let n = 0;
    const f = streams.fetch(() => upstream(ask(++n))());
    await sendingFor(first, "tools/call", async () => {
      await (await f("http://x/mcp", post("tools/call"))).text();
      await (await f("http://x/mcp", post("tools/call"))).text();
    });
    assert.equal(streams.take(1), first);
    assert.equal(streams.take(2), undefined);
  });

  it("is the retried POST's after a refused one", async () => {
    const streams = new StreamCalls();
    let n = 0;
    const f = streams.fetch(() => (n++ === 0 ? upstream("", 401) : upstream(ask(5)))());
    const a = call();
    await sendingFor(a, "tools/call", async () => {
      await (await f("http://x/mcp", post("tools/call"))).text();
      await (await f("http://x/mcp", post("tools/call"))).text();
    });
    assert.equal(streams.take(5), a);
  });

  it("is neither call's when two calls' streams carried the same id", async () => {
    const streams = new StreamCalls();
    const f = streams.fetch(upstream(ask(9)));
    for (const c of [call(), call()]) {
      await (await sendingFor(c, "tools/call", () => f("http://x/mcp", post("tools/call"))))
        .text();
    }
    assert.equal(streams.take(9), "ambiguous");
  });
});
